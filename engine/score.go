package engine

import (
	"fmt"
	"math"

	"github.com/vouchgate/vouch"
)

// dimState is a dimension's computed state.
type dimState struct {
	name     string
	weight   float64 // policy weight
	state    vouch.DimensionState
	score    float64 // weighted mean of decided checks
	strength float64 // evidence strength in [0,1]: firmness times coverage
}

// applicable reports whether dimension d has something to check against in
// this request, apart from checks that feed it.
func (r *run) applicable(d string) bool {
	if r.f.Applicable[d] {
		return true
	}
	req := r.req
	ctx := req.Context
	switch d {
	case vouch.DimClaims:
		o := &req.Output
		a := o.Artifacts
		return len(o.Created) > 0 || len(o.Modified) > 0 || len(o.Deleted) > 0 ||
			len(o.Commands) > 0 || o.TestResult != "" ||
			a != nil && (len(a.FileEdits) > 0 || len(a.FilesCreated) > 0 || len(a.CommandResults) > 0 || len(a.PluginResults) > 0)
	case vouch.DimGroundedness:
		return len(req.Trace) > 0 || ctx != nil && len(ctx.Sources) > 0 || r.subj.Workspace != nil
	case vouch.DimCompleteness:
		return true
	case vouch.DimConsistency:
		return ctx != nil && (ctx.Plan != nil || len(ctx.Outputs) > 0)
	case vouch.DimRoutability:
		return ctx != nil && ctx.Plan != nil && len(ctx.Agents) > 0
	case vouch.DimTraceability:
		return ctx != nil && len(ctx.Outputs) > 0
	case vouch.DimCoverage, vouch.DimFaithfulness:
		return ctx != nil && len(ctx.Discussion) > 0
	}
	return false
}

// undecidedDimensions lists the applicable dimensions no check has decided,
// the ones a judge may score.
func (r *run) undecidedDimensions() []string {
	var out []string
	for _, d := range vouch.Dimensions(r.kind) {
		ds := r.dimension(d)
		if ds.state == vouch.StateUndecided {
			out = append(out, d)
		}
	}
	return out
}

// dimension computes one dimension from the checks that feed it.
func (r *run) dimension(d string) dimState {
	ds := dimState{name: d, weight: r.pol.Weight(r.kind, d)}
	var wDecided, wAll, sum, firm float64
	n := 0
	for i := range r.f.Checks {
		c := &r.f.Checks[i]
		if c.Dimension != d {
			continue
		}
		n++
		w := c.Weight
		if w == 0 {
			w = 1
		}
		if c.Weight < 0 {
			w = 0
		}
		wAll += w
		if c.Status == vouch.StatusUndecided {
			continue
		}
		wDecided += w
		sum += w * c.Score
		firm += w * strengthOf(c)
	}
	if d == vouch.CriteriaDimension(r.kind) {
		// Pending criteria the judge never answered count as undecided.
		for _, p := range r.pending {
			if r.crits[p.index].Status == vouch.CriterionUndecided && !r.hasJudgeCheck(r.crits[p.index].ID) {
				n++
				w := p.weight
				if w == 0 {
					w = 1
				}
				wAll += w
			}
		}
	}
	switch {
	case n == 0 && !r.applicable(d):
		ds.state = vouch.StateNotApplicable
	case wDecided == 0:
		ds.state = vouch.StateUndecided
	default:
		ds.state = vouch.StateDecided
		ds.score = sum / wDecided
		ds.strength = firm / wAll
	}
	return ds
}

func (r *run) hasJudgeCheck(id string) bool {
	for i := range r.f.Checks {
		if r.f.Checks[i].Level == vouch.LevelJudge && r.f.Checks[i].Name == "judge:"+id {
			return true
		}
	}
	return false
}

func strengthOf(c *vouch.CheckResult) float64 {
	if c.Strength == vouch.StrengthJudge {
		return c.Confidence
	}
	return c.Strength.Weight()
}

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
func Decide(p *vouch.Policy, attempt int, in VerdictInputs) (vouch.Verdict, vouch.Action, int) {
	retryOr := func(a vouch.Action) (vouch.Verdict, vouch.Action) {
		if attempt <= p.MaxRetries {
			return vouch.VerdictRetry, a
		}
		return vouch.VerdictFail, vouch.ActionEscalate
	}
	switch {
	case in.MustFailed || in.Refuted > p.MaxRefuted:
		v, a := retryOr(vouch.ActionRetry)
		return v, a, 1
	case in.Score != nil && *in.Score < p.FailBelow:
		return vouch.VerdictFail, vouch.ActionEscalate, 2
	case in.Score != nil && *in.Score < p.PassAt:
		a := vouch.ActionRetry
		if in.Confidence != nil && *in.Confidence < ReformulateBelow {
			a = vouch.ActionReformulate
		}
		v, a := retryOr(a)
		return v, a, 3
	case in.MustUndecided:
		return vouch.VerdictFail, vouch.ActionEscalate, 4
	case in.Injection:
		// An output that tries to steer its verifier is never accepted; a
		// human must look.
		return vouch.VerdictFail, vouch.ActionEscalate, 5
	case in.unverified():
		switch p.OnUnverified {
		case vouch.OnUnverifiedFollowUp:
			return vouch.VerdictUnverified, vouch.ActionFollowUp, 6
		case vouch.OnUnverifiedEscalate:
			return vouch.VerdictUnverified, vouch.ActionEscalate, 6
		case vouch.OnUnverifiedFail:
			return vouch.VerdictFail, vouch.ActionEscalate, 6
		}
		return vouch.VerdictUnverified, vouch.ActionAccept, 6
	}
	if in.Completeness != nil && *in.Completeness < FollowUpBelow && in.Gaps > 0 {
		return vouch.VerdictPass, vouch.ActionFollowUp, 7
	}
	return vouch.VerdictPass, vouch.ActionAccept, 7
}

// Score is the score of a verification of kind whose decided dimensions
// scored dims: their mean weighted by p's weights for kind
// ([vouch.Policy.Weight], so the built-in defaults fill what p leaves
// out), renormalised over the decided dimensions, rounded to 4 decimals
// as in reports. Names in dims that are not dimensions of kind are
// ignored. Score is nil when nothing was decided, or when every decided
// dimension weighs 0. It is the formula the engine scores reports with.
func Score(p *vouch.Policy, kind vouch.Kind, dims map[string]float64) *float64 {
	var wDecided, sum float64
	for _, d := range vouch.Dimensions(kind) {
		s, ok := dims[d]
		if !ok {
			continue
		}
		w := p.Weight(kind, d)
		wDecided += w
		sum += w * s
	}
	if wDecided > 0 {
		return ptr(round(sum / wDecided))
	}
	return nil
}

// mustFailed reports whether a must-pass check failed: an explicit must
// criterion unmet, a check marked must-pass (a failed check of a plugin
// that is not advisory), or a strict claim check failed while the policy
// makes those must-pass.
func (r *run) mustFailed() bool {
	for i := range r.f.Checks {
		c := &r.f.Checks[i]
		if c.Status == vouch.StatusFail && r.isMust(c) {
			return true
		}
	}
	for i := range r.crits {
		if r.crits[i].Must && r.crits[i].Status == vouch.CriterionUnmet {
			return true
		}
	}
	return false
}

func (r *run) isMust(c *vouch.CheckResult) bool {
	if c.Must {
		return true
	}
	return r.pol.Claims.StrictIsMustPass && c.Level == vouch.LevelClaims && c.Strength == vouch.StrengthStrict
}

// round keeps report figures readable and stable across platforms.
func round(x float64) float64 { return math.Round(x*1e4) / 1e4 }

func ptr(x float64) *float64 { return &x }

func pct(x float64) string { return fmt.Sprintf("%.2f", x) }
