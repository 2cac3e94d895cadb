package server

import (
	"bytes"
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/judge"
	"github.com/vouchgate/vouch/judge/fake"
	"github.com/vouchgate/vouch/judge/openai"
	"github.com/vouchgate/vouch/store"
)

// newJudgedEnv builds a test server whose judge is the fake model (every
// item scored 0.9, the judge's cache off) reached through the real
// OpenAI client, with opts added to the fake's.
func newJudgedEnv(t *testing.T, opts ...fake.Option) *testEnv {
	t.Helper()
	llm := fake.NewServer(append([]fake.Option{fake.WithResponder(fake.Scored(0.9))}, opts...)...)
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
	return e
}

// TestVerifyTaskJudged runs /verify-task in judge mode against the fake
// model through the real OpenAI client: the judge decides the sentence
// criteria, and its tokens and cost are reported.
func TestVerifyTaskJudged(t *testing.T) {
	e := newJudgedEnv(t)

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

// TestReplayWithJudgeAsksOnce: when verifying calls out to a judge, a
// replay is answered from the log before verifying, so the judge is
// asked once however often the request comes.
func TestReplayWithJudgeAsksOnce(t *testing.T) {
	var calls atomic.Int64
	e := newJudgedEnv(t, fake.WithObserver(func(fake.Request) { calls.Add(1) }))

	body := []byte(`{"id":"judged","kind":"answer","task":{"goal":"Explain tides","criteria":[{"id":"c1","text":"names the moon's pull"}]},"output":{"summary":"The moon's gravity pulls the oceans into two bulges."}}`)
	first := e.do("POST", "/v1/verify", "", body)
	asked := calls.Load()
	if first.status != 200 || asked == 0 {
		t.Fatalf("first: %d, %d judge calls: %s", first.status, asked, first.body)
	}
	again := e.do("POST", "/v1/verify", "", body)
	if again.status != 200 || again.header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again.body, first.body) {
		t.Fatalf("replay: %d replayed=%q same=%v", again.status, again.header.Get("Idempotent-Replayed"), bytes.Equal(again.body, first.body))
	}
	if n := calls.Load(); n != asked {
		t.Errorf("the replay asked the judge again: %d calls, then %d", asked, n)
	}
}
