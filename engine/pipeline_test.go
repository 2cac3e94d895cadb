package engine_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/engine"
)

// TestPipelines checks the pipeline New builds for each checkpoint kind:
// the analyzers that serve it, in pipeline order.
func TestPipelines(t *testing.T) {
	eng, err := engine.New(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	every := []string{"injection.scan", "output.format", "claims.behaviour", "claims.code", "claims.files", "claims.git", "claims.gitops", "claims.plugins", "claims.runs",
		"claims.tests", "test.fixture", "grounding.mentions"}
	with := func(name string) []string { return append(append([]string(nil), every...), name) }
	subtask := slices.Insert(slices.Clone(every), slices.Index(every, "test.fixture"), "claims.work") // work summaries only
	want := map[vouch.Kind][]string{
		vouch.KindSubtask:       subtask,
		vouch.KindAnswer:        every,
		vouch.KindDecomposition: with("plan.structure"),     // level criteria, after grounding
		vouch.KindSynthesis:     with("synthesis.outputs"),  // level grounding, after grounding.mentions
		vouch.KindModeration:    with("moderation.summary"), // likewise
	}
	for _, k := range vouch.Kinds {
		if d := cmp.Diff(want[k], eng.Analyzers(k)); d != "" {
			t.Errorf("pipeline of %s (-want +got):\n%s", k, d)
		}
	}
	if got := eng.Analyzers("review"); got != nil {
		t.Errorf("unknown kind: %v", got)
	}

	// A selection keeps pipeline order whatever the order of the names,
	// and each analyzer runs only for the kinds it serves.
	eng, err = engine.New(engine.Options{Analyzers: []string{"synthesis.outputs", "plan.structure", "output.format"}})
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[vouch.Kind][]string{
		vouch.KindSubtask:       {"output.format"},
		vouch.KindDecomposition: {"output.format", "plan.structure"},
		vouch.KindSynthesis:     {"output.format", "synthesis.outputs"},
	} {
		if d := cmp.Diff(want, eng.Analyzers(k)); d != "" {
			t.Errorf("selected pipeline of %s (-want +got):\n%s", k, d)
		}
	}
	if _, err := engine.New(engine.Options{Analyzers: []string{"nope.none"}}); err == nil || !strings.Contains(err.Error(), "not registered") {
		t.Errorf("unknown analyzer: %v", err)
	}
}

// TestKindOnly checks that a request runs only its kind's analyzers: a
// subtask that carries a plan, agent outputs and a discussion gets none of
// the plan, synthesis or moderation checks; the same request of each of
// those kinds gets its own.
func TestKindOnly(t *testing.T) {
	eng, err := engine.New(engine.Options{Analyzers: []string{"plan.structure", "synthesis.outputs", "moderation.summary"}})
	if err != nil {
		t.Fatal(err)
	}
	req := func(k vouch.Kind) *vouch.Request {
		return &vouch.Request{Kind: k, Task: vouch.Task{Goal: "Decide the queue"},
			Output: vouch.Output{Summary: "Ada will price SQS; the p99 latency is 120 ms."},
			Context: &vouch.Context{
				Plan:       &vouch.Plan{Subgoals: []vouch.Subgoal{{ID: "a", Description: "Price SQS", DependsOn: []string{"a"}}}},
				Outputs:    []vouch.AgentOutput{{ID: "o1", Text: "The p99 latency is 340 ms."}},
				Discussion: []vouch.Utterance{{Speaker: "Ada", Text: "I'll price SQS."}, {Speaker: "Bo", Text: "Agreed, Ada prices SQS."}},
			}}
	}
	prefixes := func(rep *vouch.Report) map[string]bool {
		out := map[string]bool{}
		for _, c := range rep.Checks {
			p, _, _ := strings.Cut(c.Name, ".")
			out[p] = true
		}
		return out
	}
	for _, tt := range []struct {
		kind vouch.Kind
		want string // the only analyzer family with checks
	}{
		{vouch.KindSubtask, ""},
		{vouch.KindAnswer, ""},
		{vouch.KindDecomposition, "plan"},
		{vouch.KindSynthesis, "synthesis"},
		{vouch.KindModeration, "moderation"},
	} {
		rep, err := eng.Verify(context.Background(), req(tt.kind))
		if err != nil {
			t.Fatal(err)
		}
		got := prefixes(rep)
		for _, family := range []string{"plan", "synthesis", "moderation"} {
			if got[family] != (family == tt.want) {
				t.Errorf("%s: checks %v, want only %q among plan, synthesis, moderation", tt.kind, got, tt.want)
			}
		}
	}
}
