package judge_test

import (
	"context"
	"fmt"

	"github.com/vouchgate/vouch"
	_ "github.com/vouchgate/vouch/check/all"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/judge"
	"github.com/vouchgate/vouch/judge/fake"
	"github.com/vouchgate/vouch/judge/openai"
)

// A whole judged verification: the rules decide what they can, and the
// one criterion no rule can decide goes to a judge model, here the fake
// server speaking the OpenAI protocol.
func Example() {
	srv := fake.NewServer(fake.WithRules(fake.Rule{Reply: fake.Reply{
		Arguments: []byte(`{"reasoning": "The notes open with the removed flag and explain the upgrade.",
			"criteria": [{"id": "order", "reasoning": "Breaking changes are the first section.", "score": 0.9, "reason": "the first section is Breaking changes"}],
			"dimensions": {"completeness": {"reasoning": "Covers every change in the task.", "score": 0.8, "reason": "all five changes are listed"}},
			"completeness": 0.8, "confidence": 0.85}`),
		InputTokens: 1200, OutputTokens: 150,
	}}))
	defer srv.Close()

	j, err := judge.New(judge.Options{Providers: []judge.Provider{
		openai.New(openai.Options{BaseURL: srv.URL() + "/v1", APIKey: "sk-example"}),
	}})
	if err != nil {
		panic(err)
	}
	pol := vouch.DefaultPolicy()
	pol.Judge.Models = []string{"openai:gpt-4o"}
	eng, err := engine.New(engine.Options{Policy: &pol, Judge: j})
	if err != nil {
		panic(err)
	}
	rep, err := eng.VerifyBytes(context.Background(), []byte(`
task:
  goal: Write the release notes for v2.3
  executor: {provider: anthropic, model: claude-haiku-4-5}
  criteria:
    - {id: mentions-flag, text: names the removed --legacy flag, check: {type: contains, value: "--legacy"}}
    - {id: order, text: breaking changes come first}
output:
  summary: "Breaking changes: the --legacy flag is gone. New: faster startup, a dark theme."
`))
	if err != nil {
		panic(err)
	}
	for _, c := range rep.Criteria {
		fmt.Printf("%s: %s by %s\n", c.ID, c.Status, c.DecidedBy)
	}
	fmt.Printf("verdict %s, judge calls %d, $%.4f\n", rep.Verdict, rep.Cost.JudgeCalls, rep.Cost.USD)
	// Output:
	// mentions-flag: met by rule
	// order: met by judge
	// verdict pass, judge calls 1, $0.0045
}
