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
	if n := strings.Count(out, "\n  FAIL "); n != failed {
		t.Errorf("counts line says %d failed, %d FAIL lines are shown:\n%s", failed, n, out)
	}
	if n := strings.Count(out, "\n  ???? "); n != undecided {
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
