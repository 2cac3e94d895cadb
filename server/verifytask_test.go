package server

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/judge"
	"github.com/vouchgate/vouch/judge/fake"
	"github.com/vouchgate/vouch/judge/openai"
	"github.com/vouchgate/vouch/store"
)

// TestVerifyTaskJudged runs /verify-task in judge mode against the fake
// model through the real OpenAI client: the judge decides the sentence
// criteria, and its tokens and cost are reported.
func TestVerifyTaskJudged(t *testing.T) {
	llm := fake.NewServer(fake.WithResponder(fake.Scored(0.9)))
	t.Cleanup(llm.Close)
	j, err := judge.New(judge.Options{Providers: []judge.Provider{openai.New(openai.Options{BaseURL: llm.URL() + "/v1", APIKey: "k"})},
		Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "v.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	pol := vouch.DefaultPolicy()
	pol.Judge.Models = []string{"openai:gpt-4o"}
	pol.Judge.Cache = false
	srv, err := New(Options{Config: DefaultConfig(), Store: st, Policy: &pol, Judge: j})
	if err != nil {
		t.Fatal(err)
	}
	e := &testEnv{t: t, srv: srv, store: st}
	e.http = newHTTPTest(t, srv)

	body := `{"task_description":"Write a haiku about the sea","success_criteria":["three lines","mentions waves"],"task_output":"Waves fold into foam\nthe tide keeps its own counsel\nsalt on every stone","scoring_mode":"judge","verifier_model":"openai:gpt-4o"}`
	res := e.do("POST", "/verify-task", "", []byte(body))
	if res.status != 200 {
		t.Fatalf("%d %s", res.status, res.body)
	}
	out := decode[api.TaskResult](t, res.body)
	if len(out.CriteriaScores) != 2 {
		t.Fatalf("criteria: %+v", out.CriteriaScores)
	}
	for _, c := range out.CriteriaScores {
		if c.Met == nil || !*c.Met || c.Score == nil || *c.Score != 0.9 {
			t.Errorf("judged criterion: %+v", c)
		}
	}
	if out.TokensUsed == 0 || out.AggregateScore == nil || out.Verdict != "pass" {
		t.Errorf("judged result: verdict %s, score %v, tokens %d", out.Verdict, out.AggregateScore, out.TokensUsed)
	}
	if res := e.do("POST", "/verify-task", "", []byte(`{"task_description":"x","task_output":"y","scoring_mode":"judge","verifier_model":"openai:gpt-5"}`)); res.status != 400 {
		t.Errorf("an unconfigured verifier model: %d %s", res.status, res.body)
	}
	rules := decode[api.TaskResult](t, e.do("POST", "/verify-task", "", []byte(`{"task_description":"y","success_criteria":["z"],"task_output":"y"}`)).body)
	if rules.CriteriaScores[0].Met != nil || rules.TokensUsed != 0 {
		t.Errorf("rules mode asked the judge: %+v", rules)
	}
}
