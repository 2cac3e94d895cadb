package vouch_test

import (
	"strconv"
	"testing"

	"github.com/vouchgate/vouch"
)

// TestDecide exercises every row of the verdict table directly, including
// the attempt boundary of rows 1 and 3 and each choice of onUnverified.
func TestDecide(t *testing.T) {
	p := vouch.DefaultPolicy()
	f := func(x float64) *float64 { return &x }
	// held: one claim, verified, and a score: what a pass needs.
	held := func(in vouch.VerdictInputs) vouch.VerdictInputs {
		in.Claims = 1
		return in
	}
	tests := []struct {
		name    string
		attempt int
		in      vouch.VerdictInputs
		verdict vouch.Verdict
		action  vouch.Action
		row     int
	}{
		{"row1 must failed", 1, held(vouch.VerdictInputs{Score: f(0.9), MustFailed: true}), vouch.VerdictRetry, vouch.ActionRetry, 1},
		{"row1 must failed with nothing scored", 1, vouch.VerdictInputs{MustFailed: true}, vouch.VerdictRetry, vouch.ActionRetry, 1},
		{"row1 must failed at maxRetries", 2, held(vouch.VerdictInputs{Score: f(0.9), MustFailed: true}), vouch.VerdictRetry, vouch.ActionRetry, 1},
		{"row1 must failed past maxRetries", 3, held(vouch.VerdictInputs{Score: f(0.9), MustFailed: true}), vouch.VerdictFail, vouch.ActionEscalate, 1},
		{"row1 refuted over limit", 1, held(vouch.VerdictInputs{Score: f(0.9), Refuted: 4}), vouch.VerdictRetry, vouch.ActionRetry, 1},
		{"row1 refuted at limit is no send-back", 1, held(vouch.VerdictInputs{Score: f(0.9), Refuted: 3}), vouch.VerdictPass, vouch.ActionAccept, 7},
		{"row1 beats row2", 1, held(vouch.VerdictInputs{Score: f(0.1), MustFailed: true}), vouch.VerdictRetry, vouch.ActionRetry, 1},
		{"row1 beats unverified claims", 1, vouch.VerdictInputs{Score: f(0.9), MustFailed: true, Claims: 3, Unverified: 2}, vouch.VerdictRetry, vouch.ActionRetry, 1},
		{"row2 below failBelow", 1, held(vouch.VerdictInputs{Score: f(0.49)}), vouch.VerdictFail, vouch.ActionEscalate, 2},
		{"row3 at failBelow", 1, held(vouch.VerdictInputs{Score: f(0.5)}), vouch.VerdictRetry, vouch.ActionRetry, 3},
		{"row3 just below passAt", 1, held(vouch.VerdictInputs{Score: f(0.699)}), vouch.VerdictRetry, vouch.ActionRetry, 3},
		{"row3 past maxRetries", 3, held(vouch.VerdictInputs{Score: f(0.6)}), vouch.VerdictFail, vouch.ActionEscalate, 3},
		{"row4 must undecided", 1, held(vouch.VerdictInputs{Score: f(0.95), MustUndecided: true}), vouch.VerdictFail, vouch.ActionEscalate, 4},
		{"row3 beats row4", 1, held(vouch.VerdictInputs{Score: f(0.6), MustUndecided: true}), vouch.VerdictRetry, vouch.ActionRetry, 3},
		{"row4 beats unverified claims", 1, vouch.VerdictInputs{Score: f(0.95), MustUndecided: true, Claims: 2, Unverified: 2}, vouch.VerdictFail, vouch.ActionEscalate, 4},
		{"row5 injection blocks", 1, held(vouch.VerdictInputs{Score: f(1), Injection: true}), vouch.VerdictFail, vouch.ActionEscalate, 5},
		{"row6 nothing decided", 1, vouch.VerdictInputs{}, vouch.VerdictUnverified, vouch.ActionAccept, 6},
		{"row6 a claim unverified", 1, vouch.VerdictInputs{Score: f(1), Claims: 2, Unverified: 1}, vouch.VerdictUnverified, vouch.ActionAccept, 6},
		{"row6 no claim and no criterion decided", 1, vouch.VerdictInputs{Score: f(1)}, vouch.VerdictUnverified, vouch.ActionAccept, 6},
		{"row7 no claim, a criterion decided", 1, vouch.VerdictInputs{Score: f(1), Decided: 1}, vouch.VerdictPass, vouch.ActionAccept, 7},
		{"row7 at passAt", 1, held(vouch.VerdictInputs{Score: f(0.7)}), vouch.VerdictPass, vouch.ActionAccept, 7},
		{"row7 follow-up", 1, held(vouch.VerdictInputs{Score: f(0.8), Completeness: f(0.5), Gaps: 1}), vouch.VerdictPass, vouch.ActionFollowUp, 7},
		{"row7 low completeness without gaps", 1, held(vouch.VerdictInputs{Score: f(0.8), Completeness: f(0.5)}), vouch.VerdictPass, vouch.ActionAccept, 7},
		{"row7 gaps with enough completeness", 1, held(vouch.VerdictInputs{Score: f(0.8), Completeness: f(0.6), Gaps: 2}), vouch.VerdictPass, vouch.ActionAccept, 7},
	}
	for _, tt := range tests {
		v, a, row := vouch.Decide(&p, tt.attempt, tt.in)
		if v != tt.verdict || a != tt.action || row != tt.row {
			t.Errorf("%s: Decide = %s/%s row %d, want %s/%s row %d", tt.name, v, a, row, tt.verdict, tt.action, tt.row)
		}
	}

	// onUnverified chooses what row 6 asks of an orchestrator.
	unverified := vouch.VerdictInputs{Score: f(1), Claims: 1, Unverified: 1}
	for _, tt := range []struct {
		on      vouch.OnUnverified
		verdict vouch.Verdict
		action  vouch.Action
	}{
		{vouch.OnUnverifiedAccept, vouch.VerdictUnverified, vouch.ActionAccept},
		{vouch.OnUnverifiedFollowUp, vouch.VerdictUnverified, vouch.ActionFollowUp},
		{vouch.OnUnverifiedEscalate, vouch.VerdictUnverified, vouch.ActionEscalate},
		{vouch.OnUnverifiedFail, vouch.VerdictFail, vouch.ActionEscalate},
	} {
		q := p
		q.OnUnverified = tt.on
		if v, a, row := vouch.Decide(&q, 1, unverified); v != tt.verdict || a != tt.action || row != 6 {
			t.Errorf("onUnverified %s: %s/%s row %d, want %s/%s row 6", tt.on, v, a, row, tt.verdict, tt.action)
		}
	}

	// Row 3 reformulates when the verifier's confidence is under 0.4,
	// whatever the score; a low score with a confident verifier retries.
	if v, a, _ := vouch.Decide(&p, 1, held(vouch.VerdictInputs{Score: f(0.6), Confidence: f(0.39)})); v != vouch.VerdictRetry || a != vouch.ActionReformulate {
		t.Errorf("score 0.6, confidence 0.39: %s/%s, want retry/reformulate", v, a)
	}
	if v, a, _ := vouch.Decide(&p, 1, held(vouch.VerdictInputs{Score: f(0.6), Confidence: f(0.4)})); v != vouch.VerdictRetry || a != vouch.ActionRetry {
		t.Errorf("score 0.6, confidence 0.4: %s/%s, want retry/retry", v, a)
	}
	p.FailBelow = 0.2
	if v, a, _ := vouch.Decide(&p, 1, held(vouch.VerdictInputs{Score: f(0.3), Confidence: f(0.9)})); v != vouch.VerdictRetry || a != vouch.ActionRetry {
		t.Errorf("score 0.3 with failBelow 0.2, confidence 0.9: %s/%s, want retry/retry", v, a)
	}
	// maxRetries 0: the first attempt is the last.
	p.MaxRetries = 0
	if v, a, _ := vouch.Decide(&p, 1, held(vouch.VerdictInputs{Score: f(0.6)})); v != vouch.VerdictFail || a != vouch.ActionEscalate {
		t.Errorf("maxRetries 0: %s/%s, want fail/escalate", v, a)
	}
}

// TestScore checks the score formula: a weighted mean over the decided
// dimensions with the weights renormalised, the defaults filling what the
// policy leaves out, rounded to 4 decimals, nil when nothing weighs.
func TestScore(t *testing.T) {
	p := vouch.DefaultPolicy()
	p.Weights = map[vouch.Kind]map[string]float64{vouch.KindAnswer: {vouch.DimGroundedness: 0}}
	tests := []struct {
		name string
		kind vouch.Kind
		dims map[string]float64
		want *float64
	}{
		{"nothing decided", vouch.KindSubtask, nil, nil},
		{"one dimension", vouch.KindSubtask, map[string]float64{vouch.DimClaims: 0.25}, ptr(0.25)},
		// Default weights claims 0.4, criteria 0.3: (0.4*1 + 0.3*0.5) / 0.7.
		{"renormalised", vouch.KindSubtask, map[string]float64{vouch.DimClaims: 1, vouch.DimCriteria: 0.5}, ptr(0.7857)},
		{"not a dimension of the kind", vouch.KindSubtask, map[string]float64{vouch.DimClaims: 1, vouch.DimCoverage: 0}, ptr(1)},
		{"weight 0 only", vouch.KindAnswer, map[string]float64{vouch.DimGroundedness: 1}, nil},
		// The policy's 0 for groundedness, the default 0.3 for completeness.
		{"policy and default weights", vouch.KindAnswer, map[string]float64{vouch.DimGroundedness: 1, vouch.DimCompleteness: 0.4}, ptr(0.4)},
		{"unknown kind", vouch.Kind("nope"), map[string]float64{vouch.DimClaims: 1}, nil},
	}
	for _, tt := range tests {
		got := vouch.Score(&p, tt.kind, tt.dims)
		if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
			t.Errorf("%s: Score = %v, want %v", tt.name, fmtPtr(got), fmtPtr(tt.want))
		}
	}
}

func fmtPtr(x *float64) string {
	if x == nil {
		return "nil"
	}
	return strconv.FormatFloat(*x, 'g', -1, 64)
}

func ptr(x float64) *float64 { return &x }
