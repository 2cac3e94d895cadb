package loop

import (
	"slices"
	"strings"
)

// BiasStat is the self-assessment bias of one executor: how far the
// confidence its agent claims runs ahead of (positive) or behind what
// verification found, the verified score (see event.SelfAssessment).
type BiasStat struct {
	// Executor is provider:model, or "unknown".
	Executor string `json:"executor"`
	// N is how many attempts gave a self-assessed confidence and had a
	// score.
	N int `json:"n"`
	// Self is the mean claimed confidence, Verified the mean verified
	// score; Bias is Self − Verified.
	Self     float64 `json:"self"`
	Verified float64 `json:"verified"`
	Bias     float64 `json:"bias"`
}

// Bias gathers the self-assessment bias of every attempt of the results
// (their follow-ups included) by executor, sorted by executor. Attempts
// whose agent gave no confidence, or whose report decided nothing, are
// left out.
func Bias(results ...*Result) []BiasStat {
	by := map[string]*BiasStat{}
	var walk func(r *Result)
	walk = func(r *Result) {
		if r == nil {
			return
		}
		for _, a := range r.Attempts {
			sa := a.SelfAssessment
			if sa == nil || sa.Confidence == nil || sa.VerifiedScore == nil {
				continue
			}
			name := "unknown"
			if e := a.Executor; e != nil && (e.Provider != "" || e.Model != "") {
				name = strings.Trim(e.Provider+":"+e.Model, ":")
			}
			s := by[name]
			if s == nil {
				s = &BiasStat{Executor: name}
				by[name] = s
			}
			s.N++
			s.Self += *sa.Confidence
			s.Verified += *sa.VerifiedScore
		}
		for _, fu := range r.FollowUps {
			walk(fu.Result)
		}
	}
	for _, r := range results {
		walk(r)
	}
	out := make([]BiasStat, 0, len(by))
	for _, s := range by {
		s.Self /= float64(s.N)
		s.Verified /= float64(s.N)
		s.Bias = s.Self - s.Verified
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b BiasStat) int { return strings.Compare(a.Executor, b.Executor) })
	return out
}
