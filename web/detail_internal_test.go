package web

import (
	"slices"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
)

// TestVerdictRowWords: each row of the seven-row table in words; row 6 is
// unverified, or a failure when the policy's onUnverified makes it one;
// the stored row wins over the report's; a report without a claim ledger
// is told by the six-row table of its time.
func TestVerdictRowWords(t *testing.T) {
	pol := vouch.DefaultPolicy()
	h := &Handler{policy: pol}
	for _, tc := range []struct {
		row     int
		verdict vouch.Verdict
		says    []string
	}{
		{1, vouch.VerdictRetry, []string{"Row 1:", "a claim refuted by the evidence", "more than 3 mentions are refuted", "attempt ≤ 2"}},
		{2, vouch.VerdictFail, []string{"Row 2:", "below failBelow (0.50)"}},
		{3, vouch.VerdictRetry, []string{"Row 3:", "below passAt (0.70)", "reformulated when the verifier's confidence is below 0.4"}},
		{4, vouch.VerdictFail, []string{"Row 4:", "must-pass criterion was left undecided"}},
		{5, vouch.VerdictFail, []string{"Row 5:", "prompt injection"}},
		{6, vouch.VerdictUnverified, []string{"Row 6:", "nothing was found false", "unverified", "onUnverified (accept)"}},
		{6, vouch.VerdictFail, []string{"Row 6:", "onUnverified makes that fail"}},
		{7, vouch.VerdictPass, []string{"Row 7:", "every claim was checked and holds, so it passes"}},
		{0, vouch.VerdictPass, []string{"does not say which row"}},
	} {
		got := h.verdictRow(tc.row, 0, tc.verdict, true)
		for _, want := range tc.says {
			if !strings.Contains(got, want) {
				t.Errorf("row %d, %s: %q lacks %q", tc.row, tc.verdict, got, want)
			}
		}
	}
	if got := h.verdictRow(6, 0, vouch.VerdictUnverified, true); strings.Contains(got, "passes") || strings.Contains(got, "fail") {
		t.Errorf("row 6, unverified: %q speaks of a pass or a fail", got)
	}
	if got := h.verdictRow(0, 3, vouch.VerdictFail, true); !strings.HasPrefix(got, "Row 3:") {
		t.Errorf("row from the report: %q", got)
	}
	if got := h.verdictRow(2, 3, vouch.VerdictFail, true); !strings.HasPrefix(got, "Row 2:") {
		t.Errorf("the stored row beside the report's: %q", got)
	}
	// Without a ledger: the six-row table's rows.
	for _, tc := range []struct {
		row     int
		verdict vouch.Verdict
		says    string
	}{
		{1, vouch.VerdictFail, "nothing could be decided, so it failed"},
		{2, vouch.VerdictRetry, "a must-pass check failed"},
		{3, vouch.VerdictFail, "below failBelow (0.50), so it failed"},
		{4, vouch.VerdictRetry, "below passAt (0.70)"},
		{5, vouch.VerdictFail, "must-pass criterion was left undecided"},
		{6, vouch.VerdictPass, "so it passed"},
		{6, vouch.VerdictFail, "prompt injection"},
	} {
		got := h.verdictRow(tc.row, 0, tc.verdict, false)
		if !strings.Contains(got, tc.says) || !strings.Contains(got, "six-row verdict table") {
			t.Errorf("six-row %d, %s: %q, want %q", tc.row, tc.verdict, got, tc.says)
		}
	}
}

// TestLedgerSummary: the claim ledger's counts and coverage in words, and
// what a report without one says.
func TestLedgerSummary(t *testing.T) {
	rep := &vouch.Report{Claims: []vouch.Claim{{State: vouch.ClaimVerified}, {State: vouch.ClaimRefuted}, {State: vouch.ClaimUnverified}, {State: vouch.ClaimVerified}},
		Checks: []vouch.CheckResult{{Name: "claims.count"}}}
	if got, want := ledgerSummary(rep), "4 claims: 2 verified, 1 refuted, 1 unverified; 3 of 4 decided (coverage 75%)."; got != want {
		t.Errorf("ledgerSummary = %q, want %q", got, want)
	}
	if got := ledgerSummary(&vouch.Report{Claims: []vouch.Claim{}}); got != "The output makes no claim." {
		t.Errorf("no claim: %q", got)
	}
	if got := ledgerSummary(&vouch.Report{}); !strings.Contains(got, "before vouch kept a claim ledger") {
		t.Errorf("no ledger: %q", got)
	}
	// A claim's checks are linked by index; an index out of the report's
	// checks is left out.
	rep.Claims[0].Checks = []int{0, 7, -1}
	rows := claimRows(rep, nil)
	if len(rows) != 4 || len(rows[0].Checks) != 1 || rows[0].Checks[0] != (checkLink{Index: 0, Name: "claims.count"}) {
		t.Errorf("claim rows %+v", rows)
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
