package loop_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/vouchgate/vouch"
	_ "github.com/vouchgate/vouch/check/all"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/loop"
	"github.com/vouchgate/vouch/memory"
)

// Run an agent until its output is accepted. The first attempt misses a
// must-pass criterion; the feedback names it, and the second attempt,
// given that feedback in its prompt, is accepted.
func ExampleRun() {
	eng, err := engine.New(engine.Options{}) // once; safe for concurrent use
	if err != nil {
		panic(err)
	}
	flag := vouch.NewCheckSpec("contains", false, map[string]any{"value": "--mode=compat"})
	task := loop.Task{InteractionID: "release-2.3", Request: vouch.Request{Task: vouch.Task{
		ID:       "notes",
		Goal:     "Write the release notes for v2.3",
		Criteria: []vouch.Criterion{{ID: "flag", Text: "Says to use --mode=compat instead of --legacy", Must: true, Check: &flag}},
	}}}
	agent := loop.ExecutorFunc(func(ctx context.Context, in *loop.Input) (*loop.Reply, error) {
		// A real executor hands in.Prompt to the agent.
		summary := "v2.3: the --legacy flag is gone."
		if strings.Contains(in.Prompt, "--mode=compat") && in.Feedback != nil {
			summary = "v2.3: the --legacy flag is gone; use --mode=compat instead."
		}
		return &loop.Reply{Output: vouch.Output{Summary: summary}}, nil
	})
	mem := memory.New(memory.NewMem(), memory.Options{})
	res, err := loop.Run(context.Background(), eng, task, agent, loop.Options{Memory: mem})
	if err != nil {
		panic(err)
	}
	for _, a := range res.Attempts {
		fmt.Println(a.Number, a.Report.Verdict, a.Reaction)
	}
	fmt.Println(res.Outcome, res.Output.Summary)
	// Output:
	// 1 retry retry
	// 2 pass accept
	// accepted v2.3: the --legacy flag is gone; use --mode=compat instead.
}

// Decide is the reaction to one report, for a loop run elsewhere (a hook
// that sees one attempt at a time).
func ExampleDecide() {
	pol := vouch.DefaultPolicy() // maxRetries 2
	score := 0.55
	rep := &vouch.Report{Verdict: vouch.VerdictRetry, Action: vouch.ActionRetry, VerdictRow: 4, Score: &score}
	for attempt := 1; attempt <= 3; attempt++ {
		d := loop.Decide(rep, &pol, attempt)
		fmt.Println(attempt, d.Reaction)
	}
	// Output:
	// 1 retry
	// 2 retry
	// 3 escalate
}
