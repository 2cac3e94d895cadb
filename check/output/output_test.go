package output

import (
	"context"
	"math"
	"testing"

	"github.com/vouchgate/vouch"
)

func TestTruncated(t *testing.T) {
	tests := []struct {
		summary string
		cut     bool
	}{
		{"Added JSDoc comments to parse, tokenize, format and validate.", false},
		{"Done", false},
		{"All tests pass", false},
		{"Changes:\n- updated parser.ts\n- added tests", false},
		{"## Summary\n\nFixed the bug in `lexer.go`", false},
		{"1. Read the file\n2. Fixed it", false},
		{"| file | lines |\n|---|---|\n| a.go | 3 |", false},
		{"Here is the diff:\n```go\nfunc f() {}\n```", false},
		{"Updated the handler (see router.go)", false},
		{"The answer is 42", false},
		{"Run `go test ./...` -- all green --", false},
		{"Steps:", true},
		{"", true},
		{"   \n\t", true},
		{"I updated the parser and then added tests for the", true},
		{"Fixed three bugs, including the race in the cache and", true},
		{"The changes are:\n```go\nfunc f() {", true},
		{"Updated the config,", true},
		{"Implemented the retry loop (with backoff", false}, // ends with a word, not an open bracket
		{"Implemented the retry loop (", true},
		{"The remaining work is —", true},
		{"Summary: I refactored the module so that", true},
	}
	for _, tt := range tests {
		why := Truncated(tt.summary)
		if (why != "") != tt.cut {
			t.Errorf("Truncated(%q) = %q, want cut %v", tt.summary, why, tt.cut)
		}
	}
}

func analyze(t *testing.T, req *vouch.Request) *vouch.Findings {
	t.Helper()
	var f vouch.Findings
	s := &vouch.Subject{Request: req, Policy: new(vouch.DefaultPolicy())}
	if err := (formatAnalyzer{}).Analyze(context.Background(), s, &f); err != nil {
		t.Fatal(err)
	}
	return &f
}

func TestAnalyze(t *testing.T) {
	conf := func(x float64) *vouch.SelfAssessment { return &vouch.SelfAssessment{Confidence: &x} }
	tests := []struct {
		name  string
		req   vouch.Request
		codes []string
	}{
		{"well formed", vouch.Request{Output: vouch.Output{Summary: "Fixed it.", ToolCalls: []string{"Read", "fs:write"}, SelfAssessment: conf(0.8)}}, nil},
		{"confidence above 1", vouch.Request{Output: vouch.Output{Summary: "Fixed it.", SelfAssessment: conf(1.5)}}, []string{vouch.CodeFormatInvalid}},
		{"confidence NaN", vouch.Request{Output: vouch.Output{Summary: "Fixed it.", SelfAssessment: conf(math.NaN())}}, []string{vouch.CodeFormatInvalid}},
		{"tool call with spaces", vouch.Request{Output: vouch.Output{Summary: "Fixed it.", ToolCalls: []string{"read the file"}}}, []string{vouch.CodeFormatInvalid}},
		{"empty tool call", vouch.Request{Output: vouch.Output{Summary: "Fixed it.", ToolCalls: []string{""}}}, []string{vouch.CodeFormatInvalid}},
		{"cut off", vouch.Request{Output: vouch.Output{Summary: "I fixed the parser and the"}}, []string{vouch.CodeSummaryTruncated}},
		{"both", vouch.Request{Output: vouch.Output{Summary: "", SelfAssessment: conf(-0.1)}}, []string{vouch.CodeFormatInvalid, vouch.CodeSummaryTruncated}},
		{"plan without summary", vouch.Request{Kind: vouch.KindDecomposition, Output: vouch.Output{Summary: ""}}, nil},
		{"plan with cut summary", vouch.Request{Kind: vouch.KindDecomposition, Output: vouch.Output{Summary: "The plan splits the work into"}}, []string{vouch.CodeSummaryTruncated}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := analyze(t, &tt.req)
			var codes []string
			for _, c := range f.Checks {
				if c.Status != vouch.StatusFail || !c.Must || c.Dimension != "" || c.Evidence["code"] != c.Code {
					t.Errorf("check %+v: want a failed must-pass check with no dimension and its code in evidence", c)
				}
				codes = append(codes, c.Code)
			}
			if len(codes) != len(tt.codes) {
				t.Fatalf("codes = %v, want %v", codes, tt.codes)
			}
			for i := range codes {
				if codes[i] != tt.codes[i] {
					t.Errorf("codes = %v, want %v", codes, tt.codes)
				}
			}
		})
	}
}
