package judge

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vouchgate/vouch"
)

// aggregator combines the answers of several models or samples.
type aggregator struct {
	pol     *vouch.JudgePolicy
	answers []*Answer
}

// scores returns the scores the answers give an item, with their
// confidences, and why the answers that give none do not.
func (g *aggregator) scores(get func(*Answer) (Item, bool), key string) (scores, confs []float64, why []string, reasons []string) {
	for _, a := range g.answers {
		if it, ok := get(a); ok {
			scores = append(scores, it.Score)
			confs = append(confs, a.Confidence)
			reasons = append(reasons, it.Reason)
			continue
		}
		if w, ok := a.Invalid[key]; ok {
			why = append(why, w)
		}
	}
	return scores, confs, why, reasons
}

// combine applies the policy's aggregation to scores that agree within
// judge.maxDisagreement; it reports false with the reason when they do
// not: judges that disagree ask for review, they are not averaged away.
func (g *aggregator) combine(scores []float64) (float64, string) {
	lo, hi := slices.Min(scores), slices.Max(scores)
	if hi-lo > g.pol.MaxDisagreement {
		return 0, fmt.Sprintf("the judges disagree: their scores range from %s to %s, more than judge.maxDisagreement (%s) apart",
			formatFloat(lo), formatFloat(hi), formatFloat(g.pol.MaxDisagreement))
	}
	switch g.pol.Aggregate {
	case vouch.AggregateMin:
		return lo, ""
	case vouch.AggregateMajor:
		var met, unmet []float64
		for _, s := range scores {
			if s >= metAt {
				met = append(met, s)
			} else {
				unmet = append(unmet, s)
			}
		}
		if len(met) > len(unmet) {
			return mean(met), ""
		}
		return mean(unmet), "" // a tie fails closed
	}
	return mean(scores), ""
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// criterion combines the answers on one criterion.
func (g *aggregator) criterion(id string) vouch.JudgedCriterion {
	key := "criterion " + id
	scores, confs, why, reasons := g.scores(func(a *Answer) (Item, bool) { it, ok := a.Criteria[id]; return it, ok }, key)
	if len(scores) == 0 {
		return vouch.JudgedCriterion{ID: id, Status: vouch.CriterionUndecided, Code: vouch.CodeJudgeFailed,
			Reason: firstOr(why, "the judge gave no valid score")}
	}
	s, disagree := g.combine(scores)
	if disagree != "" {
		return vouch.JudgedCriterion{ID: id, Status: vouch.CriterionUndecided, Code: vouch.CodeJudgeDisagree, Reason: disagree}
	}
	st := vouch.CriterionUnmet
	if s >= metAt {
		st = vouch.CriterionMet
	}
	return vouch.JudgedCriterion{ID: id, Status: st, Score: s, Confidence: mean(confs), Reason: bestReason(reasons, scores, s)}
}

// refutedBelow is the combined score under which a judged claim is
// refuted: the judge says the evidence shows it false. Between it and
// metAt the judge saw neither, and the claim stays unverified.
const refutedBelow = 0.3

// claim combines the answers on one claim of the ledger.
func (g *aggregator) claim(id string) vouch.JudgedClaim {
	key := "criterion " + claimItem(id)
	scores, confs, why, reasons := g.scores(func(a *Answer) (Item, bool) { it, ok := a.Criteria[claimItem(id)]; return it, ok }, key)
	if len(scores) == 0 {
		return vouch.JudgedClaim{ID: id, State: vouch.ClaimUnverified, Reason: firstOr(why, "the judge gave no valid score")}
	}
	s, disagree := g.combine(scores)
	if disagree != "" {
		return vouch.JudgedClaim{ID: id, State: vouch.ClaimUnverified, Reason: disagree}
	}
	st := vouch.ClaimUnverified
	switch {
	case s >= metAt:
		st = vouch.ClaimVerified
	case s < refutedBelow:
		st = vouch.ClaimRefuted
	}
	return vouch.JudgedClaim{ID: id, State: st, Confidence: mean(confs), Reason: bestReason(reasons, scores, s)}
}

// dimension combines the answers on one dimension; false when it stays
// undecided.
func (g *aggregator) dimension(d string) (vouch.JudgedScore, bool) {
	scores, confs, _, reasons := g.scores(func(a *Answer) (Item, bool) { it, ok := a.Dimensions[d]; return it, ok }, "dimension "+d)
	if len(scores) == 0 {
		return vouch.JudgedScore{}, false
	}
	s, disagree := g.combine(scores)
	if disagree != "" {
		return vouch.JudgedScore{}, false
	}
	return vouch.JudgedScore{Score: s, Confidence: mean(confs), Reason: bestReason(reasons, scores, s)}, true
}

// agreement is 1 minus the widest spread of scores over every item.
func (g *aggregator) agreement() float64 {
	spread := 0.0
	items := map[string][]float64{}
	for _, a := range g.answers {
		for id, it := range a.Criteria {
			items["c "+id] = append(items["c "+id], it.Score)
		}
		for d, it := range a.Dimensions {
			items["d "+d] = append(items["d "+d], it.Score)
		}
	}
	for _, xs := range items {
		if len(xs) > 1 {
			spread = max(spread, slices.Max(xs)-slices.Min(xs))
		}
	}
	return 1 - spread
}

// notes gathers the gaps, warnings and unverified mentions of every
// answer, each once; warnings join the issues.
func (g *aggregator) notes(issues []string) (gaps, outIssues []string, unverified []vouch.UnverifiedMention) {
	seen := map[string]bool{}
	once := func(s string) bool {
		k := strings.ToLower(strings.TrimSpace(s))
		if seen[k] {
			return false
		}
		seen[k] = true
		return true
	}
	for _, a := range g.answers {
		for _, x := range a.Gaps {
			if once("g" + x) {
				gaps = append(gaps, x)
			}
		}
		for _, x := range a.Warnings {
			if once("w" + x) {
				issues = append(issues, x)
			}
		}
		for _, u := range a.Unverified {
			if once("u" + string(u.Kind) + u.Text) {
				unverified = append(unverified, u)
			}
		}
	}
	return gaps, issues, unverified
}

// bestReason returns the reason of the answer whose score is nearest the
// combined one.
func bestReason(reasons []string, scores []float64, s float64) string {
	best := 0
	for i := range scores {
		if abs(scores[i]-s) < abs(scores[best]-s) {
			best = i
		}
	}
	return reasons[best]
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func firstOr(xs []string, def string) string {
	if len(xs) > 0 {
		return xs[0]
	}
	return def
}
