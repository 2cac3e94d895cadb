package judge

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/vouchgate/vouch"
)

// Estimate is what judging a query would take, worked out without calling
// any model.
type Estimate struct {
	// Models are the judge models the query would go to.
	Models []string `json:"models"`
	// Calls is how many calls would be made: models times samples, less
	// the answers the cache already holds; retries and repair re-asks
	// come on top.
	Calls int `json:"calls"`
	// Cached is how many answers would come from the cache.
	Cached int `json:"cached"`
	// InputTokens is the prompt tokens of those calls, estimated at four
	// bytes a token.
	InputTokens int `json:"inputTokens"`
	// MaxOutputTokens is the most tokens those calls may answer with.
	MaxOutputTokens int `json:"maxOutputTokens"`
	// MaxUSD is the most those calls may cost at the known prices.
	MaxUSD float64 `json:"maxUsd"`
	// Unpriced are the models no price is known for; MaxUSD leaves them
	// out.
	Unpriced []string `json:"unpriced,omitempty"`
	// Bypassed says why the policy's bypass rules skip the judge, if they
	// do; nothing is called then.
	Bypassed string `json:"bypassed,omitempty"`
}

// Estimate works out what judging q would take: the models, the calls, the
// tokens and the most it could cost. It calls no model.
func (j *Judge) Estimate(q *vouch.JudgeQuery) (*Estimate, error) {
	pol := judgePolicy(q)
	e := &Estimate{}
	if why := bypassed(q, pol); why != "" {
		e.Bypassed = why
		return e, nil
	}
	adversarial := isAdversarial(q, pol)
	targets, err := j.choose(q, pol, adversarial)
	if err != nil {
		return nil, err
	}
	p := buildPrompt(q, pol, adversarial, ScaleUnit)
	in := estimateTokens(p.system) + estimateTokens(p.user) + estimateTokens(string(p.schema))
	temperature := 0.0
	if pol.Samples > 1 {
		temperature = 0.7
	}
	for _, t := range targets {
		e.Models = append(e.Models, t.spec)
		price, priced := priceOf(t.model, pol)
		if !priced && !slices.Contains(e.Unpriced, t.model) {
			e.Unpriced = append(e.Unpriced, t.model)
		}
		for s := 0; s < pol.Samples; s++ {
			if pol.Cache {
				if _, ok := j.cache.Get(cacheKey(t.spec, p, adversarial, s, temperature, pol.Structured)); ok {
					e.Cached++
					continue
				}
			}
			e.Calls++
			e.InputTokens += in
			e.MaxOutputTokens += pol.MaxTokens
			if priced {
				e.MaxUSD += usd(price, in, pol.MaxTokens)
			}
		}
	}
	return e, nil
}

// Recorder is a vouch.Judge that records the query it is asked and
// answers with ErrRecorded, so that a verification can be run up to the
// judge to estimate what judging it would take.
type Recorder struct {
	Query *vouch.JudgeQuery
}

// ErrRecorded is what a Recorder answers.
var ErrRecorded = errors.New("judge: query recorded, not judged")

// Evaluate implements vouch.Judge.
func (r *Recorder) Evaluate(_ context.Context, q *vouch.JudgeQuery) (*vouch.JudgeVerdict, error) {
	r.Query = q
	return nil, ErrRecorded
}

// String renders the estimate for a terminal.
func (e *Estimate) String() string {
	if e.Bypassed != "" {
		return "judge: 0 calls (" + e.Bypassed + ")\n"
	}
	var b strings.Builder
	b.WriteString("judge: " + strings.Join(e.Models, ", ") + "\n")
	b.WriteString("calls: " + itoa(e.Calls))
	if e.Cached > 0 {
		b.WriteString(" (" + itoa(e.Cached) + " answers cached)")
	}
	b.WriteString("\ninput tokens: about " + itoa(e.InputTokens) + "\noutput tokens: at most " + itoa(e.MaxOutputTokens) +
		"\ncost: at most $" + formatFloat(roundUSD(e.MaxUSD)) + "\n")
	if len(e.Unpriced) > 0 {
		b.WriteString("no price known for: " + strings.Join(e.Unpriced, ", ") + "\n")
	}
	return b.String()
}
