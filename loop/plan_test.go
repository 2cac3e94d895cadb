package loop_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/loop"
)

// planAgent answers DONE for the subgoals it can do and something else
// for the rest, recording which subgoals it was asked to do.
type planAgent struct {
	mu    sync.Mutex
	fails map[string]bool
	ran   []string
}

func (a *planAgent) Execute(_ context.Context, in *loop.Input) (*loop.Reply, error) {
	a.mu.Lock()
	a.ran = append(a.ran, in.TaskID)
	a.mu.Unlock()
	if a.fails[in.TaskID] {
		return &loop.Reply{Output: vouch.Output{Summary: "could not do it"}}, nil
	}
	return &loop.Reply{Output: vouch.Output{Summary: "DONE"}}, nil
}

// subgoalTask is a subgoal's task: say DONE, a must-pass criterion.
func subgoalTask(_ context.Context, sg vouch.Subgoal) (loop.Task, error) {
	return loop.Task{InteractionID: "plan", Request: vouch.Request{Task: vouch.Task{ID: sg.ID, Goal: sg.Description,
		Criteria: []vouch.Criterion{{ID: "done", Text: "says DONE", Must: true, Check: ptr(vouch.NewCheckSpec("contains", false, map[string]any{"value": "DONE"}))}}}}}, nil
}

// A failed high-criticality subgoal stops what depends on it, directly or
// not, and names itself and how it failed; independent branches go on,
// and a failed normal subgoal stops nothing.
func TestRunPlanStopsAtACriticalFailure(t *testing.T) {
	pol := vouch.DefaultPolicy()
	pol.MaxRetries = 0
	eng := newEngine(t, &pol, nil)
	plan := &vouch.Plan{Subgoals: []vouch.Subgoal{
		{ID: "schema", Criticality: vouch.CriticalityHigh},
		{ID: "api", DependsOn: []string{"schema"}},
		{ID: "ui", DependsOn: []string{"api"}},
		{ID: "docs"},
		{ID: "lint"},
		{ID: "release", DependsOn: []string{"lint", "docs"}},
	}}
	a := &planAgent{fails: map[string]bool{"schema": true, "lint": true}}
	res, err := loop.RunPlan(t.Context(), eng, plan, subgoalTask, a, loop.Options{Policy: &pol})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(a.ran, ","); got != "schema,docs,lint,release" {
		t.Errorf("the agent ran %s, want schema,docs,lint,release", got)
	}
	if res.Accepted {
		t.Error("a plan with failed subgoals is accepted")
	}
	want := map[string]struct {
		ran       bool
		outcome   loop.Outcome
		blockedBy string
	}{
		"schema": {true, loop.Escalated, ""}, "api": {false, "", "schema"}, "ui": {false, "", "schema"},
		"docs": {true, loop.Accepted, ""}, "lint": {true, loop.Escalated, ""}, "release": {true, loop.Accepted, ""},
	}
	if len(res.Subgoals) != len(want) {
		t.Fatalf("%d subgoal results, want %d", len(res.Subgoals), len(want))
	}
	for _, sr := range res.Subgoals {
		w := want[sr.ID]
		if (sr.Result != nil) != w.ran || sr.BlockedBy != w.blockedBy {
			t.Errorf("%s: ran %v, blocked by %q; want ran %v, blocked by %q", sr.ID, sr.Result != nil, sr.BlockedBy, w.ran, w.blockedBy)
		}
		if sr.Result != nil && sr.Result.Outcome != w.outcome {
			t.Errorf("%s: %s, want %s", sr.ID, sr.Result.Outcome, w.outcome)
		}
		if sr.BlockedBy != "" && !strings.Contains(sr.Why, "escalated") {
			t.Errorf("%s: why %q does not say how schema failed", sr.ID, sr.Why)
		}
	}
	if res.Subgoals[0].Criticality != vouch.CriticalityHigh || res.Subgoals[1].Criticality != vouch.CriticalityNormal {
		t.Errorf("criticalities %s, %s", res.Subgoals[0].Criticality, res.Subgoals[1].Criticality)
	}
}

// A plan with a cycle, an unknown dependency or a repeated id is bad
// input, and nothing runs.
func TestRunPlanRefusesBadPlans(t *testing.T) {
	eng := newEngine(t, nil, nil)
	for name, plan := range map[string]*vouch.Plan{
		"cycle":    {Subgoals: []vouch.Subgoal{{ID: "a", DependsOn: []string{"c"}}, {ID: "b", DependsOn: []string{"a"}}, {ID: "c", DependsOn: []string{"b"}}, {ID: "free"}}},
		"unknown":  {Subgoals: []vouch.Subgoal{{ID: "a", DependsOn: []string{"ghost"}}}},
		"repeated": {Subgoals: []vouch.Subgoal{{ID: "a"}, {ID: "a"}}},
	} {
		a := &planAgent{}
		_, err := loop.RunPlan(t.Context(), eng, plan, subgoalTask, a, loop.Options{})
		var ve *vouch.Error
		if !errors.As(err, &ve) || ve.Code != vouch.ErrInvalid {
			t.Errorf("%s: %v, want an invalid-input error", name, err)
		}
		if len(a.ran) != 0 {
			t.Errorf("%s: the agent ran %v", name, a.ran)
		}
		if name == "cycle" && (!strings.Contains(err.Error(), "a, b, c") || strings.Contains(err.Error(), "free")) {
			t.Errorf("cycle: %v, want the subgoals of the cycle named, and only them", err)
		}
	}
}
