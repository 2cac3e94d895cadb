package plan

import (
	"context"
	"fmt"
	"testing"

	"github.com/vouchgate/vouch"
)

// benchPlan is a sound plan of 30 subgoals in 6 phases of 5: each phase is
// parallel, and each subgoal depends on two of the phase before, so the
// dependency graph is a lattice of diamonds. Six agents, two required
// topics.
func benchPlan() (*vouch.Plan, []vouch.Agent) {
	const phases, width = 6, 5
	agents := []vouch.Agent{
		{Name: "backend-dev", Capabilities: []string{"go", "sql", "http"}},
		{Name: "frontend-dev", Capabilities: []string{"react", "css"}},
		{Name: "db-agent", Capabilities: []string{"sql", "migrations"}},
		{Name: "qa-agent", Capabilities: []string{"testing"}},
		{Name: "ops", Capabilities: []string{"deploy", "config"}},
		{Name: "generic-executor", Capabilities: []string{"shell"}},
	}
	descs := []string{
		"Add the %d-th table and its migration",
		"Implement endpoint %d and return clear errors on invalid input",
		"Build page %d of the settings screen",
		"Write integration tests for feature %d",
		"Configure environment %d",
	}
	routes := []struct {
		agent string
		req   []string
	}{{"db-agent", []string{"migrations"}}, {"backend-dev", []string{"go", "http"}}, {"frontend-dev", []string{"react"}},
		{"qa-agent", []string{"testing"}}, {"ops", []string{"config"}}}
	p := &vouch.Plan{Goal: "Ship the settings area"}
	for ph := range phases {
		phase := vouch.Phase{Mode: vouch.PhaseParallel}
		for w := range width {
			id := fmt.Sprintf("s%d-%d", ph, w)
			sg := vouch.Subgoal{ID: id, Description: fmt.Sprintf(descs[w], ph*width+w), Agent: routes[w].agent, Requires: routes[w].req}
			if ph > 0 {
				sg.DependsOn = []string{fmt.Sprintf("s%d-%d", ph-1, w), fmt.Sprintf("s%d-%d", ph-1, (w+1)%width)}
			}
			p.Subgoals = append(p.Subgoals, sg)
			phase.Subgoals = append(phase.Subgoals, id)
		}
		p.Phases = append(p.Phases, phase)
	}
	return p, agents
}

func BenchmarkAnalyze30(b *testing.B) {
	p, agents := benchPlan()
	pol := vouch.DefaultPolicy()
	pol.RequiredTopics = []string{"testing", "error handling", "monitoring"}
	req := &vouch.Request{Kind: vouch.KindDecomposition, Context: &vouch.Context{Plan: p, Agents: agents}}
	s := &vouch.Subject{Request: req, Policy: &pol}
	ctx := context.Background()
	var f vouch.Findings
	if err := (analyzer{}).Analyze(ctx, s, &f); err != nil {
		b.Fatal(err)
	}
	if faults := len(f.Issues); faults != 1 { // monitoring is not covered
		b.Fatalf("%d faults, want 1: %q", faults, f.Issues)
	}
	b.ReportAllocs()
	for b.Loop() {
		var f vouch.Findings
		_ = (analyzer{}).Analyze(ctx, s, &f)
	}
}
