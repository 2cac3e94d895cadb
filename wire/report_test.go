package wire

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/schema"
)

func ptr[T any](v T) *T { return &v }

// fullReport has every field of the report contract set.
func fullReport() *vouch.Report {
	return &vouch.Report{
		APIVersion:  vouch.APIVersion,
		ID:          "r-0123456789abcdef",
		Kind:        vouch.KindSubtask,
		Attempt:     2,
		Verdict:     vouch.VerdictRetry,
		Action:      vouch.ActionRetry,
		VerdictRow:  1,
		Reason:      "must-pass check claims.count failed: claimed 4, found 1",
		Score:       ptr(0.62),
		Confidence:  0.9,
		NeedsReview: false,
		Claims: []vouch.Claim{
			{ID: "c1", Text: "Added JSDoc comments to all 4 exported functions", Kind: vouch.ClaimSymbol, Source: vouch.SourceSummary,
				State: vouch.ClaimRefuted, Reason: "claimed 4, found 1", Checks: []int{0}},
			{ID: "c2", Text: "src/parser.ts", Kind: vouch.ClaimFile, Source: "output.modified", State: vouch.ClaimUnverified, Reason: "no workspace", Checks: []int{}},
		},
		Coverage: ptr(0.5),
		Dimensions: map[string]vouch.Dimension{
			"claims":       {Score: ptr(0.5), State: vouch.StateDecided, Weight: 0.4},
			"criteria":     {Score: ptr(1.0), State: vouch.StateDecided, Weight: 0.3},
			"groundedness": {Score: nil, State: vouch.StateNotApplicable, Weight: 0.2},
			"completeness": {Score: nil, State: vouch.StateUndecided, Weight: 0.1},
		},
		Criteria: []vouch.CriterionResult{
			{ID: "docs", Text: "doc comments on 4 symbols", Must: true, Inferred: true, Status: vouch.CriterionUnmet, Score: ptr(0.25), DecidedBy: vouch.DecidedByRule, Reason: "1 of 4 documented"},
			{ID: "tone", Text: "clear", Status: vouch.CriterionUndecided, Reason: "no judge"},
		},
		Checks: []vouch.CheckResult{
			{Name: "claims.count", Level: vouch.LevelClaims, Strength: vouch.StrengthStrict, Status: vouch.StatusFail, Confidence: 1, Reason: "claimed 4, found 1", Evidence: map[string]any{"code": vouch.CodeTextMissing, "claimed": 4, "found": 1}},
			{Name: "criteria.tone", Level: vouch.LevelJudge, Strength: vouch.StrengthJudge, Status: vouch.StatusUndecided, Confidence: 0, Reason: "no judge"},
		},
		Mentions: vouch.Mentions{
			Verified:   []vouch.VerifiedMention{{Text: "src/parser.ts", Kind: vouch.MentionFile, Evidence: map[string]any{"source": "trace"}}},
			Unverified: []vouch.UnverifiedMention{{Text: "lexer.ts", Kind: vouch.MentionFile, Sentence: "Also updated lexer.ts."}},
			Refuted:    []vouch.RefutedMention{{Text: "src/gone.ts", Kind: vouch.MentionFile, Sentence: "Edited src/gone.ts.", Evidence: "not in the workspace"}},
		},
		Gaps:        []string{"tokenize, format, validate undocumented"},
		Issues:      []string{"count claim does not hold"},
		Suggestions: []string{"document the three remaining functions"},
		Warnings:    []vouch.Warning{{Code: vouch.CodeNoJudge, Message: "no judge configured", Details: map[string]any{"criteria": []string{"tone"}}}},
		Feedback:    "Add doc comments to tokenize, format and validate.",
		Judge:       &vouch.JudgeInfo{Models: []string{"m1", "m2"}, Mode: "panel", Samples: 2, Agreement: ptr(0.8), SameModelAsExecutor: false},
		Cost:        vouch.Cost{JudgeCalls: 2, CacheHits: 1, CacheMisses: 1, InputTokens: 1200, OutputTokens: 300, USD: 0.002, TaskCostRatio: ptr(0.5)},
		AnswerChars: 51,
		DurationMs:  12.5,
	}
}

// nothingDecided is the smallest report: no score, no lists.
func nothingDecided() *vouch.Report {
	return &vouch.Report{
		APIVersion: vouch.APIVersion,
		ID:         "r-1",
		Kind:       vouch.KindAnswer,
		Attempt:    1,
		Verdict:    vouch.VerdictUnverified,
		Action:     vouch.ActionAccept,
	}
}

func TestReportSchema(t *testing.T) {
	sch, err := schema.CompileReport()
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]*vouch.Report{"full": fullReport(), "score null": nothingDecided()} {
		b, err := MarshalReport(r)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s: the report schema rejects MarshalReport's output: %v\n%s", name, err, b)
		}
	}
	// The schema is not vacuous.
	bad := strings.Replace(mustMarshal(t, nothingDecided()), `"verdict":"unverified"`, `"verdict":"maybe"`, 1)
	v, _ := jsonschema.UnmarshalJSON(strings.NewReader(bad))
	if sch.Validate(v) == nil {
		t.Error("the report schema accepts verdict maybe")
	}
}

func mustMarshal(t *testing.T, r *vouch.Report) string {
	t.Helper()
	b, err := MarshalReport(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestMarshalReportShape(t *testing.T) {
	got := mustMarshal(t, nothingDecided())
	want := `{"apiVersion":"vouch/v1","id":"r-1","kind":"answer","attempt":1,"verdict":"unverified","action":"accept",` +
		`"score":null,"confidence":0,"needsReview":false,"claims":[],"coverage":null,"dimensions":{},"criteria":[],"checks":[],` +
		`"mentions":{"verified":[],"unverified":[],"refuted":[]},"gaps":[],"issues":[],"suggestions":[],"warnings":[],` +
		`"feedback":"","cost":{"judgeCalls":0,"cacheHits":0,"cacheMisses":0,"inputTokens":0,"outputTokens":0,"usd":0,"taskCostRatio":null},` +
		`"answerChars":0,"durationMs":0}`
	if got != want {
		t.Errorf("MarshalReport:\ngot  %s\nwant %s", got, want)
	}
	// Nested nil maps and lists too; internal fields stay out.
	r := nothingDecided()
	r.Checks = []vouch.CheckResult{{Name: "x", Dimension: "claims", Code: "C", Fix: []string{"a"}}}
	r.Warnings = []vouch.Warning{{Code: "W", Message: "m"}}
	got = mustMarshal(t, r)
	for _, s := range []string{`"evidence":{}`, `{"code":"W","message":"m"}`} {
		if !strings.Contains(got, s) {
			t.Errorf("missing %s in %s", s, got)
		}
	}
	for _, s := range []string{"Dimension", "Fix", `"C"`, "details"} {
		if strings.Contains(got, s) {
			t.Errorf("unexpected %s in %s", s, got)
		}
	}
}

func TestMarshalReportDeterministic(t *testing.T) {
	first := mustMarshal(t, fullReport())
	for range 20 {
		if got := mustMarshal(t, fullReport()); got != first {
			t.Fatalf("two encodings differ:\n%s\n%s", first, got)
		}
	}
	// The output is plain JSON that encoding/json reads back.
	var back vouch.Report
	if err := json.Unmarshal([]byte(first), &back); err != nil {
		t.Fatal(err)
	}
	if *back.Score != 0.62 || back.Dimensions["groundedness"].Score != nil || back.Judge.Models[1] != "m2" {
		t.Errorf("read back: %+v", back)
	}
}

func TestEncodeReport(t *testing.T) {
	r := fullReport()
	var compact, indented bytes.Buffer
	if err := EncodeReport(&compact, r, false); err != nil {
		t.Fatal(err)
	}
	if err := EncodeReport(&indented, r, true); err != nil {
		t.Fatal(err)
	}
	if want := mustMarshal(t, r) + "\n"; compact.String() != want {
		t.Errorf("compact:\n%s\nwant\n%s", compact.String(), want)
	}
	if strings.Count(compact.String(), "\n") != 1 {
		t.Error("compact form is not one line")
	}
	if !strings.HasPrefix(indented.String(), "{\n  \"apiVersion\": \"vouch/v1\",\n") || !strings.HasSuffix(indented.String(), "}\n") {
		t.Errorf("indented:\n%s", indented.String())
	}
	var a, b any
	if json.Unmarshal(compact.Bytes(), &a) != nil || json.Unmarshal(indented.Bytes(), &b) != nil {
		t.Fatal("invalid JSON")
	}
	if EncodeReport(&compact, nil, false) == nil {
		t.Error("nil report encoded")
	}
	if _, err := MarshalReport(nil); err == nil {
		t.Error("nil report marshalled")
	}
}

func TestMarshalReportInvalidUTF8(t *testing.T) {
	r := nothingDecided()
	r.Feedback = "bad \xff byte"
	got := mustMarshal(t, r)
	if !strings.Contains(got, `"feedback":"bad \ufffd byte"`) && !strings.Contains(got, "\"feedback\":\"bad \uFFFD byte\"") {
		t.Errorf("invalid UTF-8 not replaced: %s", got)
	}
}
