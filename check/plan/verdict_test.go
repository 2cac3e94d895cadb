package plan_test

import (
	"context"
	"testing"
	"time"

	"github.com/vouchgate/vouch"
	_ "github.com/vouchgate/vouch/check/plan"
	"github.com/vouchgate/vouch/engine"
)

// TestVerdicts runs plans through the engine: must-pass faults send a plan
// back whatever its score, score-only faults do not, and a sound plan
// passes with every decided dimension at 1.
func TestVerdicts(t *testing.T) {
	pol := vouch.DefaultPolicy()
	pol.RequiredTopics = []string{"testing", "error handling"}
	eng, err := engine.New(engine.Options{Policy: &pol, Analyzers: []string{"plan.structure"}, Now: func() time.Time { return time.Unix(0, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	agents := []vouch.Agent{
		{Name: "backend-dev", Capabilities: []string{"go", "sql"}},
		{Name: "qa-agent", Capabilities: []string{"testing"}},
		{Name: "generic-executor"},
	}
	sound := func() *vouch.Plan {
		return &vouch.Plan{
			Subgoals: []vouch.Subgoal{
				{ID: "schema", Description: "Add the table", Agent: "backend-dev", Requires: []string{"sql"}},
				{ID: "api", Description: "Add the endpoint; return an error on bad input", Agent: "backend-dev", Requires: []string{"go"}, DependsOn: []string{"schema"}},
				{ID: "docs", Description: "Describe the endpoint", Agent: "generic-executor", DependsOn: []string{"schema"}},
				{ID: "tests", Description: "Integration tests", Agent: "qa-agent", Requires: []string{"testing"}, DependsOn: []string{"api", "docs"}},
			},
			Phases: []vouch.Phase{
				{Mode: vouch.PhaseSequential, Subgoals: []string{"schema"}},
				{Mode: vouch.PhaseParallel, Subgoals: []string{"api", "docs"}},
				{Mode: vouch.PhaseSequential, Subgoals: []string{"tests"}},
			},
		}
	}
	for _, tt := range []struct {
		name   string
		change func(p *vouch.Plan)
		want   vouch.Verdict
	}{
		{"sound", func(*vouch.Plan) {}, vouch.VerdictPass},
		{"cycle", func(p *vouch.Plan) { p.Subgoals[0].DependsOn = []string{"tests"} }, vouch.VerdictRetry},
		{"unknown agent", func(p *vouch.Plan) { p.Subgoals[2].Agent = "writer" }, vouch.VerdictRetry},
		{"incapable agent", func(p *vouch.Plan) { p.Subgoals[3].Agent = "generic-executor" }, vouch.VerdictRetry},
		{"uncovered topic", func(p *vouch.Plan) {
			p.Subgoals[3].Description, p.Subgoals[3].Requires, p.Subgoals[3].ID = "Review", nil, "review"
		}, vouch.VerdictRetry},
		{"parallel dependency", func(p *vouch.Plan) { p.Subgoals[2].DependsOn = []string{"api"} }, vouch.VerdictRetry},
		{"phase order", func(p *vouch.Plan) { p.Phases[0], p.Phases[2] = p.Phases[2], p.Phases[0] }, vouch.VerdictRetry},
		{"unknown dependency", func(p *vouch.Plan) { p.Subgoals[1].DependsOn = []string{"schemas"} }, vouch.VerdictRetry},
		{"no agent lowers the score only", func(p *vouch.Plan) { p.Subgoals[2].Agent = "" }, vouch.VerdictPass},
		{"unscheduled dependency", func(p *vouch.Plan) { p.Phases[1].Subgoals = []string{"api"} }, vouch.VerdictRetry},
		{"unscheduled leaf lowers the score only", func(p *vouch.Plan) {
			p.Subgoals = append(p.Subgoals, vouch.Subgoal{ID: "changelog", Agent: "generic-executor", DependsOn: []string{"api"}})
		}, vouch.VerdictPass},
		{"scheduled twice lowers the score only", func(p *vouch.Plan) { p.Phases[2].Subgoals = []string{"tests", "tests"} }, vouch.VerdictPass},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := sound()
			tt.change(p)
			req := &vouch.Request{Kind: vouch.KindDecomposition, Output: vouch.Output{Summary: "A plan."},
				Context: &vouch.Context{Plan: p, Agents: agents}}
			rep, err := eng.Verify(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Verdict != tt.want {
				t.Errorf("verdict %s (score %v), want %s; issues %q", rep.Verdict, *rep.Score, tt.want, rep.Issues)
			}
			if tt.want == vouch.VerdictPass && tt.name == "sound" {
				for name, d := range rep.Dimensions {
					if d.State == vouch.StateDecided && *d.Score != 1 {
						t.Errorf("%s: %v", name, *d.Score)
					}
				}
			}
		})
	}
}
