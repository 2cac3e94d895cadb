package web

import (
	"slices"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
)

// TestVerdictRowWords: row 6 is a pass, or a failure when the output tried
// to steer its verifier; the stored row wins over the report's.
func TestVerdictRowWords(t *testing.T) {
	pol := vouch.DefaultPolicy()
	h := &Handler{policy: pol}
	if got := h.verdictRow(6, 0, vouch.VerdictPass); !strings.Contains(got, "so it passes") {
		t.Errorf("row 6, pass: %q", got)
	}
	if got := h.verdictRow(6, 0, vouch.VerdictFail); !strings.Contains(got, "prompt injection") || strings.Contains(got, "so it passes") {
		t.Errorf("row 6, fail: %q", got)
	}
	if got := h.verdictRow(0, 3, vouch.VerdictFail); !strings.HasPrefix(got, "Row 3:") {
		t.Errorf("row from the report: %q", got)
	}
}

// TestChangesBetweenAttempts names checks and criteria that changed,
// appeared or went away.
func TestChangesBetweenAttempts(t *testing.T) {
	a := &vouch.Report{Verdict: vouch.VerdictRetry,
		Checks:   []vouch.CheckResult{{Name: "claims.count", Status: vouch.StatusFail}, {Name: "old", Status: vouch.StatusPass}},
		Criteria: []vouch.CriterionResult{{ID: "c1", Status: vouch.CriterionUnmet}, {ID: "dropped", Status: vouch.CriterionMet}}}
	b := &vouch.Report{Verdict: vouch.VerdictPass,
		Checks:   []vouch.CheckResult{{Name: "claims.count", Status: vouch.StatusPass}},
		Criteria: []vouch.CriterionResult{{ID: "c1", Status: vouch.CriterionMet}, {ID: "added", Status: vouch.CriterionMet}}}
	got := changes(a, b)
	for _, want := range []string{"criterion c1: unmet → met", "criterion added new: met", "criterion dropped gone", "check old gone"} {
		if !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, want) }) {
			t.Errorf("changes = %q, want one with %q", got, want)
		}
	}
}
