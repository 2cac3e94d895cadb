package server

import (
	"context"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/text/critmatch"
)

// matchConfidence is the confidence of a criterion decided by matching
// words and numbers: the evidence is the output's own text, but words
// that appear are not proof that what the criterion asks was done.
const matchConfidence = 0.7

// criteriaMatcher decides criteria the way criteria_match scores them:
// by matching each criterion's words and numbers against the output's
// summary (package critmatch), calling no model and costing nothing. It
// stands where the engine asks a judge, so that its decisions feed the
// verdict as a judge's do. It decides no dimension, and leaves every
// claim of the output unverified.
type criteriaMatcher struct{}

// Evaluate implements vouch.Judge.
func (criteriaMatcher) Evaluate(_ context.Context, q *vouch.JudgeQuery) (*vouch.JudgeVerdict, error) {
	v := &vouch.JudgeVerdict{Dimensions: map[string]vouch.JudgedScore{}}
	ix := critmatch.NewIndex(q.Request.Output.Summary)
	for _, c := range q.Criteria {
		m := ix.Match(c.Text)
		jc := vouch.JudgedCriterion{ID: c.ID, Status: vouch.CriterionUndecided, Reason: m.Reason()}
		if m.Decidable() {
			jc.Status, jc.Score, jc.Confidence = vouch.CriterionUnmet, m.Score(), matchConfidence
			if m.Met() {
				jc.Status = vouch.CriterionMet
			}
		}
		v.Criteria = append(v.Criteria, jc)
	}
	for _, c := range q.Claims {
		v.Claims = append(v.Claims, vouch.JudgedClaim{ID: c.ID, State: vouch.ClaimUnverified,
			Reason: "criteria_match decides criteria only"})
	}
	return v, nil
}
