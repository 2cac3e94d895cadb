package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/vouchgate/vouch/judge"
	"github.com/vouchgate/vouch/judge/fake"
)

// judgeModel is the judge the demo's verifications name: a model no
// executor of the demo uses, so that no output is judged by its own
// model.
const judgeModel = "openai:o4-mini"

// scripted is a judge.Provider that stands in for a model API: it answers
// the judge's real prompts with the real tool's arguments, scoring every
// criterion and dimension asked around the quality the seeder set for the
// output being verified, with noise from the seeded generator. The
// engine, the judge's validation, its costing and the store all run as in
// production; only the model's opinion is made up.
type scripted struct {
	mu sync.Mutex
	r  *rand.Rand
	// quality is the score the next answers centre on.
	quality float64
	calls   int
	// latency draws how long each answer takes a model, from its own
	// generator (the scores' stream stays as it is); wait lets that time
	// pass on the seeder's clock. Both nil: answers take no time.
	latency *rand.Rand
	wait    func(time.Duration)
}

var _ judge.Provider = (*scripted)(nil)

// Name implements judge.Provider.
func (*scripted) Name() string { return "openai" }

// set makes the next answers score around q.
func (p *scripted) set(q float64) {
	p.mu.Lock()
	p.quality = q
	p.mu.Unlock()
}

type item struct {
	ID        string  `json:"id,omitempty"`
	Reasoning string  `json:"reasoning"`
	Score     float64 `json:"score"`
	Reason    string  `json:"reason"`
}

// Complete implements judge.Provider.
func (p *scripted) Complete(ctx context.Context, c *judge.Call) (*judge.Reply, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ids, dims, ok := fake.SchemaItems(c.Tool.Schema)
	if !ok {
		return nil, fmt.Errorf("demo judge: the tool's schema names no criteria and dimensions")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	if p.latency != nil && p.wait != nil {
		// A small model answers a judge's prompt in one to three seconds.
		p.wait(time.Duration((0.9 + 1.8*p.latency.Float64()) * float64(time.Second)))
	}
	score := func() float64 {
		s := p.quality + p.r.NormFloat64()*0.06
		return math.Round(math.Min(math.Max(s, 0), 1)*20) / 20 // as a model writes them
	}
	reason := func(s float64) string {
		switch {
		case s >= 0.85:
			return "fully supported by the evidence shown"
		case s >= 0.65:
			return "mostly met; a detail is not shown by the evidence"
		case s >= 0.45:
			return "partially met; part of what was asked is missing"
		}
		return "barely met; the evidence does not show the work"
	}
	args := struct {
		Reasoning    string          `json:"reasoning"`
		Mentions     []string        `json:"mentions"`
		Verified     []string        `json:"verified"`
		Unverified   []any           `json:"unverified"`
		Criteria     []item          `json:"criteria"`
		Dimensions   map[string]item `json:"dimensions"`
		Completeness float64         `json:"completeness"`
		Gaps         []string        `json:"gaps"`
		Warnings     []string        `json:"warnings"`
		Confidence   float64         `json:"confidence"`
	}{Reasoning: "Read the task, the output and the evidence before scoring.", Mentions: []string{}, Verified: []string{},
		Unverified: []any{}, Criteria: []item{}, Dimensions: map[string]item{}, Gaps: []string{}, Warnings: []string{}}
	for _, id := range ids {
		s := score()
		args.Criteria = append(args.Criteria, item{ID: id, Reasoning: "Compared the criterion with the output.", Score: s, Reason: reason(s)})
	}
	for _, d := range dims { // sorted: the schema's object is a map
		s := score()
		args.Dimensions[d] = item{Reasoning: "Weighed the output against the task.", Score: s, Reason: reason(s)}
	}
	args.Completeness = score()
	if args.Completeness < 0.7 {
		args.Gaps = append(args.Gaps, "part of the task is not addressed")
	}
	// A judge is surer of clear cases than of middling ones.
	conf := 0.55 + 0.8*math.Abs(p.quality-0.6) + p.r.NormFloat64()*0.05
	args.Confidence = math.Round(math.Min(math.Max(conf, 0.3), 0.97)*100) / 100
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	in := 0
	in += len(c.System)
	for _, m := range c.Messages {
		in += len(m.Content)
	}
	in += len(c.Tool.Schema)
	return &judge.Reply{Arguments: raw, Stop: judge.StopTool, Model: c.Model,
		Usage:     judge.Usage{InputTokens: (in + 3) / 4, OutputTokens: 180 + p.r.IntN(240)},
		RequestID: fmt.Sprintf("demo-%06d", p.calls)}, nil
}
