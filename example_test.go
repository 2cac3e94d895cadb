package vouch_test

import (
	"context"
	"fmt"

	"github.com/vouchgate/vouch"
	_ "github.com/vouchgate/vouch/check/all"
	"github.com/vouchgate/vouch/engine"
)

// The main flow: build an engine once, then verify each agent output before
// building on it. Here the agent says it is done, but a must-pass criterion
// fails, so the orchestrator is told to retry with the feedback.
func Example() {
	eng, err := engine.New(engine.Options{}) // built-in policy, no judge
	if err != nil {
		panic(err)
	}
	done := vouch.NewCheckSpec("contains", false, map[string]any{"value": "All tests pass"})
	noTodo := vouch.NewCheckSpec("contains", true, map[string]any{"value": "TODO"})
	req := &vouch.Request{
		Kind: vouch.KindSubtask,
		Task: vouch.Task{
			Goal: "Fix the flaky date test and report the test run",
			Criteria: []vouch.Criterion{
				{ID: "tests", Text: "reports the passing test run", Must: true, Check: &done},
				{ID: "no-todo", Text: "leaves no TODO", Check: &noTodo},
			},
		},
		Output: vouch.Output{Summary: "Fixed the timezone bug in the date test. TODO: rerun the suite."},
	}
	rep, err := eng.Verify(context.Background(), req)
	if err != nil {
		panic(err) // invalid input: a bad criterion, a widening task.policy
	}
	fmt.Println(rep.Verdict, rep.Action)
	for _, c := range rep.Criteria {
		fmt.Println(c.ID, c.Status)
	}
	// Output:
	// retry retry
	// tests unmet
	// no-todo unmet
}

// A criterion that no rule can decide stays undecided without a judge; if it
// is must-pass, the gate fails closed rather than guess.
func Example_undecided() {
	eng, _ := engine.New(engine.Options{})
	rep, _ := eng.Verify(context.Background(), &vouch.Request{
		Task: vouch.Task{Criteria: []vouch.Criterion{
			{ID: "secure", Text: "introduces no injection flaw", Must: true},
		}},
		Output: vouch.Output{Summary: "Refactored the query builder."},
	})
	fmt.Println(rep.Verdict, rep.Action, rep.NeedsReview, rep.Score == nil)
	for _, w := range rep.Warnings {
		fmt.Println(w.Code)
	}
	// Output:
	// fail escalate true true
	// NO_JUDGE
	// MUST_UNDECIDED
	// NOTHING_DECIDED
	// LOW_CONFIDENCE
}

// A claim no rule can check, and nothing found false: the verdict is
// unverified, never pass, and the ledger says which claims held and which
// could not be checked. The built-in onUnverified (accept) lets the work
// go on, marked so.
func Example_unverified() {
	eng, _ := engine.New(engine.Options{})
	done := vouch.NewCheckSpec("contains", false, map[string]any{"value": "v2.3"})
	rep, _ := eng.Verify(context.Background(), &vouch.Request{
		Task: vouch.Task{Goal: "Write the v2.3 release notes", Criteria: []vouch.Criterion{
			{ID: "version", Text: "names the version", Check: &done},
		}},
		Output: vouch.Output{Summary: "The v2.3 notes are done. The parser now reports the column of each error."},
	})
	fmt.Println(rep.Verdict, rep.Action, rep.VerdictRow)
	for _, c := range rep.Claims {
		fmt.Printf("%s %s %s: %q\n", c.ID, c.State, c.Kind, c.Text)
	}
	// Output:
	// unverified accept 6
	// c1 verified completion: "The v2.3 notes are done"
	// c2 unverified behaviour: "The parser now reports the column of each error"
}
