package vouch

import "math"

// The verdict table: how a verification's facts decide its verdict and
// action, and how its decided dimensions make its score. The engine
// decides every report with them; calibration decides past verifications
// again with them under other thresholds.

// VerdictInputs are the facts the verdict table reads.
type VerdictInputs struct {
	// Score is the verification's score, nil when nothing was decided
	// (row 6).
	Score *float64
	// MustFailed: a must-pass check failed: an explicit criterion unmet,
	// a claim refuted by a strict check, a failed plugin check (row 1).
	MustFailed bool
	// Refuted counts the refuted mentions (row 1 when more than the
	// policy's maxRefuted).
	Refuted int
	// MustUndecided: a must-pass criterion was left undecided (row 4).
	MustUndecided bool
	// Injection: the output tried to steer its verifier (row 5).
	Injection bool
	// Claims counts the claims of the ledger, Unverified those that stay
	// unverified (row 6).
	Claims, Unverified int
	// Decided counts the criteria decided, written or inferred, and the
	// checks of level criteria (a plan's structure): with no claim, there
	// must be one for the output to pass (row 6).
	Decided int
	// Completeness is the completeness dimension's score, nil when it was
	// not decided; with Gaps it picks follow_up over accept in row 7.
	Completeness *float64
	// Gaps counts the report's gaps.
	Gaps int
	// Confidence is the verifier's confidence in what it decided: the
	// judge's (the mean confidence of its decisions) when a judge decided
	// something, else the report's. Below ReformulateBelow, a row-3 retry
	// is a reformulation: a verifier that cannot tell is the sign of a
	// task that is probably unclear. Nil when unknown (a retry, never a
	// reformulation).
	Confidence *float64
}

// Fixed limits of the verdict table (DESIGN.md): when the verifier's
// confidence is below ReformulateBelow a row-3 retry is a reformulation; a
// pass whose completeness is below FollowUpBelow, with gaps, asks for a
// follow-up.
const (
	ReformulateBelow = 0.4
	FollowUpBelow    = 0.6
)

// unverified reports whether in leaves the work unverified (verdict table
// row 6, once nothing was found false): a claim stays unverified, or
// nothing was decided, or the output makes no claim and no criterion was
// decided.
func (in VerdictInputs) unverified() bool {
	return in.Score == nil || in.Unverified > 0 || in.Claims == 0 && in.Decided == 0
}

// Decide applies the verdict table of DESIGN.md to in for the given attempt
// (counted from 1) under p, first matching row wins, and returns the
// verdict, the action and the row (1 to 7):
//
//  1. a must-pass check failed (an explicit criterion unmet, a claim
//     refuted by a strict check, a failed check of a plugin the policy
//     does not list in advisoryPlugins), or more than maxRefuted mentions
//     are refuted: retry while attempts remain, else fail;
//  2. the score is below failBelow: fail;
//  3. the score is below passAt: retry while attempts remain (reformulate
//     when the verifier's confidence, in.Confidence, is below
//     ReformulateBelow: the task itself is probably unclear), else fail;
//  4. an explicit must-pass criterion stayed undecided: fail;
//  5. the output tried to steer its verifier: fail;
//  6. a claim stayed unverified, or nothing could be decided: unverified,
//     with the action the policy's onUnverified gives (onUnverified fail
//     makes it fail);
//  7. pass, with a follow-up when completeness is low and there are gaps.
//
// It reads only p's PassAt, FailBelow, MaxRetries, MaxRefuted and
// OnUnverified, and does not validate p; the action of row 3 depends on
// in.Confidence, never the verdict. It is the table the engine itself
// decides with, exported so that calibration can decide past
// verifications again under other thresholds.
func Decide(p *Policy, attempt int, in VerdictInputs) (Verdict, Action, int) {
	retryOr := func(a Action) (Verdict, Action) {
		if attempt <= p.MaxRetries {
			return VerdictRetry, a
		}
		return VerdictFail, ActionEscalate
	}
	switch {
	case in.MustFailed || in.Refuted > p.MaxRefuted:
		v, a := retryOr(ActionRetry)
		return v, a, 1
	case in.Score != nil && *in.Score < p.FailBelow:
		return VerdictFail, ActionEscalate, 2
	case in.Score != nil && *in.Score < p.PassAt:
		a := ActionRetry
		if in.Confidence != nil && *in.Confidence < ReformulateBelow {
			a = ActionReformulate
		}
		v, a := retryOr(a)
		return v, a, 3
	case in.MustUndecided:
		return VerdictFail, ActionEscalate, 4
	case in.Injection:
		// An output that tries to steer its verifier is never accepted; a
		// human must look.
		return VerdictFail, ActionEscalate, 5
	case in.unverified():
		switch p.OnUnverified {
		case OnUnverifiedFollowUp:
			return VerdictUnverified, ActionFollowUp, 6
		case OnUnverifiedEscalate:
			return VerdictUnverified, ActionEscalate, 6
		case OnUnverifiedFail:
			return VerdictFail, ActionEscalate, 6
		}
		return VerdictUnverified, ActionAccept, 6
	}
	if in.Completeness != nil && *in.Completeness < FollowUpBelow && in.Gaps > 0 {
		return VerdictPass, ActionFollowUp, 7
	}
	return VerdictPass, ActionAccept, 7
}

// Score is the score of a verification of kind whose decided dimensions
// scored dims: their mean weighted by p's weights for kind
// ([Policy.Weight], so the built-in defaults fill what p leaves
// out), renormalised over the decided dimensions, rounded to 4 decimals
// as in reports. Names in dims that are not dimensions of kind are
// ignored. Score is nil when nothing was decided, or when every decided
// dimension weighs 0. It is the formula the engine scores reports with.
func Score(p *Policy, kind Kind, dims map[string]float64) *float64 {
	var wDecided, sum float64
	for _, d := range Dimensions(kind) {
		s, ok := dims[d]
		if !ok {
			continue
		}
		w := p.Weight(kind, d)
		wDecided += w
		sum += w * s
	}
	if wDecided > 0 {
		x := math.Round(sum/wDecided*1e4) / 1e4
		return &x
	}
	return nil
}
