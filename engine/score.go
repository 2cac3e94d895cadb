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
