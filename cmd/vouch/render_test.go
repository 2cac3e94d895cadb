package main

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/internal/testws"
	"github.com/vouchgate/vouch/wire"
)

// renderCase verifies a request (with the files as its workspace, when
// there are any) and renders the report as a person sees it.
func renderCase(t *testing.T, request string, files map[string]string) (*vouch.Report, string) {
	t.Helper()
	req, err := wire.DecodeRequest([]byte(request), wire.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if files != nil {
		req.Workspace = testws.Dir(t, files)
	}
	eng, err := engine.New(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := eng.Verify(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	render(&b, rep, false)
	return rep, b.String()
}

var countsLine = regexp.MustCompile(`(?m)^Checks: (\d+) passed, (\d+) failed, (\d+) undecided$`)

// checkCounts holds the counts line to the check lines shown under it.
func checkCounts(t *testing.T, rep *vouch.Report, out string) {
	t.Helper()
	m := countsLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no counts line in:\n%s", out)
	}
	passed, _ := strconv.Atoi(m[1])
	failed, _ := strconv.Atoi(m[2])
	undecided, _ := strconv.Atoi(m[3])
	// The check lines are those under the counts line, up to a blank
	// line; claims above it have the same marks.
	checks := out[countsLine.FindStringIndex(out)[0]:]
	if i := strings.Index(checks, "\n\n"); i >= 0 {
		checks = checks[:i+1]
	}
	if n := strings.Count(checks, "\n  x  "); n != failed {
		t.Errorf("counts line says %d failed, %d failed lines are shown:\n%s", failed, n, out)
	}
	if n := strings.Count(checks, "\n  ?  "); n != undecided {
		t.Errorf("counts line says %d undecided, %d undecided lines are shown:\n%s", undecided, n, out)
	}
	shown := 0
	for _, c := range rep.Checks {
		if c.Status == vouch.StatusPass {
			shown++
		}
	}
	if passed != shown {
		t.Errorf("counts line says %d passed, the report has %d passed checks", passed, shown)
	}
}

// TestRenderSaysWhy: a report that is not a pass says why on its first
// line; the counts line counts every check line shown, undecided ones
// included; a NOTHING_DECIDED beside a failed check does not claim that
// nothing could be checked.
func TestRenderSaysWhy(t *testing.T) {
	for _, tt := range []struct {
		name, request string
		files         map[string]string
		why           string // on the first line
	}{
		{name: "must-pass criterion undecided, score 1.00",
			request: `{"task":{"goal":"Write the release notes","criteria":[{"id":"tone","text":"The notes are friendly","must":true},{"id":"has","check":{"type":"contains","value":"Release"}}]},"output":{"summary":"Release 1.2 adds dark mode."}}`,
			why:     "must-pass criterion tone could not be decided"},
		{name: "truncated summary, nothing scored",
			request: `{"task":{"goal":"Summarise the meeting"},"output":{"summary":"The meeting went well and we agreed to"}}`,
			why:     "output.summary failed: the summary stops mid-sentence"},
		{name: "nothing decided",
			request: `{"task":{"goal":"Summarise the meeting"},"output":{"summary":"The meeting went well."}}`,
			why:     "nothing could be decided"},
		{name: "must-pass check failed",
			request: `{"task":{"goal":"Write the status","criteria":[{"id":"done","must":true,"check":{"type":"contains","value":"DONE"}}]},"output":{"summary":"Status written."}}`,
			why:     "must-pass check contains:done failed"},
		{name: "count claim against doc comments",
			request: `{"task":{"goal":"Add doc comments to Lex and Join in lex/lex.go"},"output":{"summary":"Added doc comments to both functions.","modified":["lex/lex.go"]}}`,
			files:   map[string]string{"lex/lex.go": "package lex\n\n// Lex splits src.\nfunc Lex(src string) []string { return nil }\n\nfunc Join(parts []string) string { return \"\" }\n"},
			why:     "must-pass check claims.count failed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rep, out := renderCase(t, tt.request, tt.files)
			if rep.Verdict == vouch.VerdictPass {
				t.Fatalf("passed:\n%s", out)
			}
			first, _, _ := strings.Cut(out, "\n")
			if !strings.Contains(first, " — ") || !strings.Contains(first, tt.why) {
				t.Errorf("first line does not say %q:\n%s", tt.why, first)
			}
			checkCounts(t, rep, out)
			for _, w := range rep.Warnings {
				if w.Code == vouch.CodeNothingDecided && len(failedChecks(rep)) > 0 && strings.Contains(w.Message, "nothing in this request could be checked") {
					t.Errorf("NOTHING_DECIDED says nothing could be checked beside a failed check: %s", w.Message)
				}
			}
		})
	}
}

func failedChecks(rep *vouch.Report) []vouch.CheckResult {
	var out []vouch.CheckResult
	for _, c := range rep.Checks {
		if c.Status == vouch.StatusFail {
			out = append(out, c)
		}
	}
	return out
}

// TestRenderWithoutReason: a report without a reason (built by hand, or by
// an older vouch) still says why on its first line.
func TestRenderWithoutReason(t *testing.T) {
	one := 1.0
	rep := &vouch.Report{Verdict: vouch.VerdictFail, Action: vouch.ActionEscalate, Score: &one, Kind: vouch.KindSubtask,
		Criteria: []vouch.CriterionResult{{ID: "tone", Must: true, Status: vouch.CriterionUndecided, Reason: "no rule decides this criterion"}},
		Warnings: []vouch.Warning{{Code: vouch.CodeMustUndecided, Message: "must-pass criterion tone could not be decided"}}}
	var b bytes.Buffer
	render(&b, rep, false)
	first, _, _ := strings.Cut(b.String(), "\n")
	if !strings.Contains(first, "must-pass criterion tone could not be decided") {
		t.Errorf("first line: %s", first)
	}
	checkCounts(t, rep, b.String())
}

// TestRenderMarks: claims and checks are marked ✓ ✗ ? with colour, ok x ?
// without; an undecided check's code says why it is undecided, never on
// a line that reads as a failure.
func TestRenderMarks(t *testing.T) {
	score := 0.5
	rep := &vouch.Report{ID: "r", Kind: vouch.KindSubtask, Verdict: vouch.VerdictRetry, Action: vouch.ActionRetry, Score: &score, Reason: "why",
		Claims: []vouch.Claim{
			{ID: "c1", Kind: "file", Source: vouch.SourceSummary, Text: "Created a.go", State: vouch.ClaimVerified},
			{ID: "c2", Kind: "tests", Source: vouch.SourceSummary, Text: "All tests pass", State: vouch.ClaimRefuted},
			{ID: "c3", Kind: "behaviour", Source: vouch.SourceSummary, Text: "Fixed it", State: vouch.ClaimUnverified},
		},
		Checks: []vouch.CheckResult{
			{Name: "claims.created", Status: vouch.StatusPass},
			{Name: "claims.count", Status: vouch.StatusFail, Code: vouch.CodeCountMismatch, Reason: "2 claimed, 1 found",
				Evidence: map[string]any{"code": vouch.CodeCountMismatch, "missing": []string{"b.go", "c.go"},
					"violations": []any{map[string]any{"path": "a.b", "message": "got string, want number"}, map[string]any{"path": "a.c", "message": "missing"}},
					"counts":     map[string]int{"documented": 1, "undocumented": 2}}},
			{Name: "claims.tests", Status: vouch.StatusUndecided, Code: vouch.CodeTestStale, Reason: "a source file changed after the last run",
				Evidence: map[string]any{"code": vouch.CodeTestStale}},
		}}
	for _, tt := range []struct {
		color         bool
		ok, bad, open string
	}{{true, "✓", "✗", "?"}, {false, "ok", "x", "?"}} {
		var b bytes.Buffer
		render(&b, rep, tt.color)
		out := ansiCodes.ReplaceAllString(b.String(), "")
		for _, want := range []string{
			"  " + tt.ok + strings.Repeat(" ", 3-len([]rune(tt.ok))) + "file       Created a.go\n",
			"  " + tt.bad + "  tests      All tests pass\n",
			"  " + tt.open + "  behaviour  Fixed it\n",
			"  " + tt.bad + "  claims.count [COUNT_MISMATCH]: 2 claimed, 1 found\n",
			"       missing: b.go, c.go\n",
			"       counts: documented 1; undocumented 2\n",
			"       violations:\n         - a.b: got string, want number\n         - a.c: missing\n",
			"  " + tt.open + "  claims.tests (undecided, TEST_STALE): a source file changed after the last run\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("color=%v: no %q in:\n%s", tt.color, want, out)
			}
		}
		if strings.Contains(out, "????") || strings.Contains(out, "[TEST_STALE]") || goInternals.MatchString(out) {
			t.Errorf("color=%v: garbled marks or Go values:\n%s", tt.color, out)
		}
	}
}
