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

// newModelsEnv is newJudgedEnv with the judge models given.
func newModelsEnv(t *testing.T, models ...string) *testEnv {
	t.Helper()
	e := newJudgedEnv(t)
	p := e.srv.policy
	p.Judge.Models = models
	srv, err := New(Options{Config: DefaultConfig(), Store: e.store, Policy: &p, Judge: e.srv.judge})
	if err != nil {
		t.Fatal(err)
	}
	e.srv = srv
	e.http = newHTTPTest(t, srv)
	return e
}

// Every scoring mode answers 200 and decides in its own way; each mode
// of one task is its own stored report, and one mode sent twice replays.
func TestVerifyTaskModes(t *testing.T) {
	e := newJudgedEnv(t)
	task := `"task_description":"Write a haiku about the sea","success_criteria":["mentions waves","has 3 lines"],"task_output":"Waves fold into foam\nthe tide keeps its own counsel\nsalt on 3 stones"`
	ids := map[string]string{}
	for _, mode := range []string{"rules", "judge", "rubric", "binary", "criteria_match"} {
		body := []byte(`{` + task + `,"scoring_mode":"` + mode + `"}`)
		res := e.do("POST", "/verify-task", "", body)
		if res.status != 200 {
			t.Fatalf("%s: %d %s", mode, res.status, res.body)
		}
		out := decode[api.TaskResult](t, res.body)
		if out.ScoringMode != mode {
			t.Errorf("%s: scoring_mode %q", mode, out.ScoringMode)
		}
		if prev, dup := ids[out.ID]; dup {
			t.Errorf("%s answered with %s's stored report %s", mode, prev, out.ID)
		}
		ids[out.ID] = mode
		c := out.CriteriaScores[0]
		switch mode {
		case "rules":
			if c.Met != nil || out.TokensUsed != 0 || out.Verdict != "unverified" {
				t.Errorf("rules: %+v", out)
			}
		case "judge":
			if c.Score == nil || *c.Score != 0.9 || out.TokensUsed == 0 || c.RubricScore != nil {
				t.Errorf("judge: %+v tokens %d", c, out.TokensUsed)
			}
		case "rubric":
			// The fake answers 0.9 as 5 on the 1 to 5 scale: 1 in the aggregate.
			if c.RubricScore == nil || *c.RubricScore != 5 || c.Score == nil || *c.Score != 1 || out.TokensUsed == 0 {
				t.Errorf("rubric: %+v tokens %d", c, out.TokensUsed)
			}
		case "binary":
			if c.Met == nil || !*c.Met || c.Score == nil || *c.Score != 1 || c.RubricScore != nil || out.TokensUsed == 0 {
				t.Errorf("binary: %+v tokens %d", c, out.TokensUsed)
			}
		case "criteria_match":
			if out.TokensUsed != 0 || len(out.JudgeModels) != 0 || c.Match == nil || c.Met == nil || !*c.Met {
				t.Errorf("criteria_match: %+v %+v", out, c)
			}
			if m := c.Match; m != nil && (len(m.MatchedWords) != 1 || m.MatchedWords[0] != "waves") {
				t.Errorf("criteria_match words: %+v", m)
			}
			// "3" is in the output but "lines" is not: every number and
			// not more than half of the words is unmet.
			c1 := out.CriteriaScores[1]
			if m := c1.Match; m == nil || len(m.MatchedNumbers) != 1 || m.MatchedNumbers[0] != "3" || len(m.UnmatchedWords) != 1 || c1.Met == nil || *c1.Met {
				t.Errorf("criteria_match numbers: %+v %+v", c1, m)
			}
		}
		again := e.do("POST", "/verify-task", "", body)
		if again.status != 200 || again.header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again.body, res.body) {
			t.Errorf("%s twice: %d replayed %q same %v", mode, again.status, again.header.Get("Idempotent-Replayed"), bytes.Equal(again.body, res.body))
		}
	}
	// With one Idempotency-Key, another mode is another request: a conflict.
	task = `"task_description":"Name a colour","success_criteria":["names blue"],"task_output":"Blue."`
	if res := e.do2("judge", "k1", task); res.status != 200 {
		t.Fatalf("keyed: %d %s", res.status, res.body)
	}
	if res := e.do2("rubric", "k1", task); res.status != 409 || !bytes.Contains(res.body, []byte("idempotency_conflict")) {
		t.Errorf("one key, another mode: %d %s", res.status, res.body)
	}
}

// do2 posts a task in a mode under an Idempotency-Key.
func (e *testEnv) do2(mode, key, task string) response {
	e.t.Helper()
	return e.do("POST", "/verify-task", "", []byte(`{`+task+`,"scoring_mode":"`+mode+`"}`), "Idempotency-Key", key)
}

// A bare model name resolves to the one configured model it names, and
// is reported; one that names several is a 400 naming them.
func TestVerifyTaskModelNames(t *testing.T) {
	e := newModelsEnv(t, "openai:gpt-4o", "openai:gpt-4o-mini", "other:gpt-4o-mini")
	res := e.do("POST", "/verify-task", "", []byte(`{"task_description":"x","success_criteria":["y"],"task_output":"y","scoring_mode":"judge","verifier_model":"gpt-4o"}`))
	if res.status != 200 {
		t.Fatalf("%d %s", res.status, res.body)
	}
	if out := decode[api.TaskResult](t, res.body); out.VerifierModel != "openai:gpt-4o" || len(out.JudgeModels) != 1 || out.JudgeModels[0] != "openai:gpt-4o" {
		t.Errorf("resolved %q, asked %v", out.VerifierModel, out.JudgeModels)
	}
	res = e.do("POST", "/verify-task", "", []byte(`{"task_description":"x","task_output":"y","scoring_mode":"judge","verifier_model":"gpt-4o-mini"}`))
	if res.status != 400 || !bytes.Contains(res.body, []byte("ambiguous")) || !bytes.Contains(res.body, []byte("openai:gpt-4o-mini, other:gpt-4o-mini")) {
		t.Errorf("ambiguous: %d %s", res.status, res.body)
	}
	for _, body := range []string{
		`{"task_description":"x","task_output":"y","scoring_mode":"judge","verifier_model":"gpt-5"}`,
		`{"task_description":"x","task_output":"y","scoring_mode":"judge","verifier_model":"openai:gpt-5"}`,
		`{"task_description":"x","task_output":"y","scoring_mode":"criteria_match","verifier_model":"gpt-4o"}`,
	} {
		if res := e.do("POST", "/verify-task", "", []byte(body)); res.status != 400 {
			t.Errorf("%s: %d %s", body, res.status, res.body)
		}
	}
}

// A report nothing decided is answered unverified, with no score, never
// a fail: criteria_match with a criterion that has nothing to match.
func TestVerifyTaskUnverified(t *testing.T) {
	e := newJudgedEnv(t)
	res := e.do("POST", "/verify-task", "", []byte(`{"task_description":"x","success_criteria":["is it?"],"task_output":"y","scoring_mode":"criteria_match"}`))
	out := decode[api.TaskResult](t, res.body)
	if res.status != 200 || out.Verdict != "unverified" || out.CriteriaScores[0].Met != nil {
		t.Errorf("%d %+v", res.status, out)
	}
}

// /v1/verify: the same id and attempt replays under the same policy, and
// is a 409 with another body or under another policy.
func TestVerifyReplayPolicy(t *testing.T) {
	e := newJudgedEnv(t)
	body := []byte(`{"id":"p1","task":{"goal":"g"},"output":{"summary":"s"}}`)
	if res := e.do("POST", "/v1/verify", "", body); res.status != 200 {
		t.Fatalf("%d %s", res.status, res.body)
	}
	if res := e.do("POST", "/v1/verify", "", body); res.status != 200 || res.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay: %d %s", res.status, res.body)
	}
	if res := e.do("POST", "/v1/verify", "", []byte(`{"id":"p1","task":{"goal":"g"},"output":{"summary":"other"}}`)); res.status != 409 {
		t.Errorf("another body: %d %s", res.status, res.body)
	}
	p := e.srv.policy
	p.PassAt = 0.95
	srv, err := New(Options{Config: DefaultConfig(), Store: e.store, Policy: &p, Judge: e.srv.judge})
	if err != nil {
		t.Fatal(err)
	}
	e.srv, e.http = srv, newHTTPTest(t, srv)
	if res := e.do("POST", "/v1/verify", "", body); res.status != 409 || !bytes.Contains(res.body, []byte("another server policy")) {
		t.Errorf("another policy: %d %s", res.status, res.body)
	}
}
