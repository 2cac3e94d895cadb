package engine

import (
	"testing"

	"github.com/vouchgate/vouch"
)

// TestDecide exercises every row of the verdict table directly, including
// the attempt boundary of rows 2 and 4.
func TestDecide(t *testing.T) {
	p := vouch.DefaultPolicy()
	f := func(x float64) *float64 { return &x }
	tests := []struct {
		name    string
		attempt int
		in      verdictInputs
		verdict vouch.Verdict
		action  vouch.Action
		row     int
	}{
		{"row1 nothing decided", 1, verdictInputs{}, vouch.VerdictFail, vouch.ActionEscalate, 1},
		{"row1 beats must-pass", 1, verdictInputs{mustFailed: true}, vouch.VerdictFail, vouch.ActionEscalate, 1},
		{"row2 must failed", 1, verdictInputs{score: f(0.9), mustFailed: true}, vouch.VerdictRetry, vouch.ActionRetry, 2},
		{"row2 must failed at maxRetries", 2, verdictInputs{score: f(0.9), mustFailed: true}, vouch.VerdictRetry, vouch.ActionRetry, 2},
		{"row2 must failed past maxRetries", 3, verdictInputs{score: f(0.9), mustFailed: true}, vouch.VerdictFail, vouch.ActionEscalate, 2},
		{"row2 unverified over limit", 1, verdictInputs{score: f(0.9), unverified: 4}, vouch.VerdictRetry, vouch.ActionRetry, 2},
		{"row2 unverified at limit is fine", 1, verdictInputs{score: f(0.9), unverified: 3}, vouch.VerdictPass, vouch.ActionAccept, 6},
		{"row2 beats row3", 1, verdictInputs{score: f(0.1), mustFailed: true}, vouch.VerdictRetry, vouch.ActionRetry, 2},
		{"row3 below failBelow", 1, verdictInputs{score: f(0.49)}, vouch.VerdictFail, vouch.ActionEscalate, 3},
		{"row4 at failBelow", 1, verdictInputs{score: f(0.5)}, vouch.VerdictRetry, vouch.ActionRetry, 4},
		{"row4 just below passAt", 1, verdictInputs{score: f(0.699)}, vouch.VerdictRetry, vouch.ActionRetry, 4},
		{"row4 past maxRetries", 3, verdictInputs{score: f(0.6)}, vouch.VerdictFail, vouch.ActionEscalate, 4},
		{"row5 must undecided", 1, verdictInputs{score: f(0.95), mustUndecided: true}, vouch.VerdictFail, vouch.ActionEscalate, 5},
		{"row4 beats row5", 1, verdictInputs{score: f(0.6), mustUndecided: true}, vouch.VerdictRetry, vouch.ActionRetry, 4},
		{"row6 at passAt", 1, verdictInputs{score: f(0.7)}, vouch.VerdictPass, vouch.ActionAccept, 6},
		{"row6 injection blocks", 1, verdictInputs{score: f(1), injection: true}, vouch.VerdictFail, vouch.ActionEscalate, 6},
		{"row6 follow-up", 1, verdictInputs{score: f(0.8), completeness: f(0.5), gaps: 1}, vouch.VerdictPass, vouch.ActionFollowUp, 6},
		{"row6 low completeness without gaps", 1, verdictInputs{score: f(0.8), completeness: f(0.5)}, vouch.VerdictPass, vouch.ActionAccept, 6},
		{"row6 gaps with enough completeness", 1, verdictInputs{score: f(0.8), completeness: f(0.6), gaps: 2}, vouch.VerdictPass, vouch.ActionAccept, 6},
	}
	for _, tt := range tests {
		v, a, row := decide(&p, tt.attempt, tt.in)
		if v != tt.verdict || a != tt.action || row != tt.row {
			t.Errorf("%s: decide = %s/%s row %d, want %s/%s row %d", tt.name, v, a, row, tt.verdict, tt.action, tt.row)
		}
	}

	// Row 4's reformulate needs failBelow under 0.4.
	p.FailBelow = 0.2
	if v, a, _ := decide(&p, 1, verdictInputs{score: f(0.39)}); v != vouch.VerdictRetry || a != vouch.ActionReformulate {
		t.Errorf("score 0.39 with failBelow 0.2: %s/%s, want retry/reformulate", v, a)
	}
	if v, a, _ := decide(&p, 1, verdictInputs{score: f(0.4)}); v != vouch.VerdictRetry || a != vouch.ActionRetry {
		t.Errorf("score 0.4 with failBelow 0.2: %s/%s, want retry/retry", v, a)
	}
	// maxRetries 0: the first attempt is the last.
	p.MaxRetries = 0
	if v, a, _ := decide(&p, 1, verdictInputs{score: f(0.6)}); v != vouch.VerdictFail || a != vouch.ActionEscalate {
		t.Errorf("maxRetries 0: %s/%s, want fail/escalate", v, a)
	}
}
