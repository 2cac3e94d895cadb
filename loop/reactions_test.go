package loop_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/event"
	"github.com/vouchgate/vouch/judge"
	"github.com/vouchgate/vouch/judge/fake"
	"github.com/vouchgate/vouch/judge/openai"
	"github.com/vouchgate/vouch/loop"
)

// judgePolicy is the built-in policy with one judge model, and failBelow
// low enough (0.2) that the thin notes' score of 0.25 is retried, or
// reformulated when the verifier is unsure, rather than failed.
func judgePolicy() *vouch.Policy {
	p := vouch.DefaultPolicy()
	p.FailBelow = 0.2
	p.Judge.Models = []string{"openai:gpt-4o"}
	return &p
}

// newJudge returns a judge whose one provider is the fake model server,
// answering with responder.
func newJudge(t *testing.T, responder func(*fake.Request) fake.Reply) (*judge.Judge, *fake.Server) {
	t.Helper()
	srv := fake.NewServer(fake.WithResponder(responder))
	t.Cleanup(srv.Close)
	j, err := judge.New(judge.Options{
		Providers: []judge.Provider{openai.New(openai.Options{BaseURL: srv.URL() + "/v1", APIKey: "sk-test"})},
		Sleep:     func(ctx context.Context, _ time.Duration) error { return ctx.Err() },
	})
	if err != nil {
		t.Fatal(err)
	}
	return j, srv
}

// verdictArgs are submit_verification arguments that score completeness
// and name gaps.
func verdictArgs(completeness float64, gaps ...string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		"reasoning":    "fake judge",
		"criteria":     []any{},
		"dimensions":   map[string]any{"completeness": map[string]any{"reasoning": "r", "score": completeness, "reason": "fake"}},
		"completeness": completeness,
		"confidence":   0.8,
		"gaps":         gaps,
	})
	return b
}

// notesVerifier returns the judge that verifies the release notes beside
// the rules: it scores the completeness of the thin notes at 0.25 with
// confidence 0.3 (too unsure to tell what the task wants: a row-3 verdict
// is then a reformulation) and of anything else at 1 with confidence 0.8.
// It is asked for completeness only: the four criteria are decided by rule.
func notesVerifier(t *testing.T) *judge.Judge {
	t.Helper()
	j, _ := newJudge(t, func(r *fake.Request) fake.Reply {
		if r.Tool.Name != "submit_verification" {
			return fake.Reply{Status: 400, ErrorMessage: "unexpected"}
		}
		if strings.Contains(r.Messages[0].Content, notesThin) {
			return fake.Reply{Arguments: completenessArgs(0.25, 0.3)}
		}
		return fake.Reply{Arguments: completenessArgs(1, 0.8)}
	})
	return j
}

// completenessArgs are submit_verification arguments that score
// completeness alone, with the judge's confidence.
func completenessArgs(completeness, confidence float64) json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		"reasoning":    "fake judge",
		"criteria":     []any{},
		"dimensions":   map[string]any{"completeness": map[string]any{"reasoning": "r", "score": completeness, "reason": "fake"}},
		"completeness": completeness,
		"confidence":   confidence,
	})
	return b
}

// The release-notes task: four criteria decided by rule, no workspace.
func notesTask(id string) loop.Task {
	spec := func(typ string, p map[string]any) *vouch.CheckSpec { s := vouch.NewCheckSpec(typ, false, p); return &s }
	return loop.Task{InteractionID: "run-notes", Request: vouch.Request{Task: vouch.Task{ID: id, Goal: "Write the release notes for v2.3",
		Executor: &vouch.Executor{Provider: "anthropic", Model: "claude-haiku-4-5", Tier: "small"},
		Criteria: []vouch.Criterion{
			{ID: "version", Text: "Names the version v2.3", Check: spec("regex", map[string]any{"pattern": `v2\.3`})},
			{ID: "sections", Text: "Has the sections Breaking changes, Highlights and Upgrade", Check: spec("sections", map[string]any{"required": []string{"Breaking changes", "Highlights", "Upgrade"}})},
			{ID: "compat", Text: "Says to use --mode=compat instead of --legacy", Check: spec("contains", map[string]any{"value": "--mode=compat"})},
			{ID: "length", Text: "At least 30 words", Check: spec("length", map[string]any{"minWords": 30})},
		}}}}
}

const (
	notesThin = "Release notes for v2.3 are ready."
	notesFull = "# Release notes for v2.3\n\n## Breaking changes\n- The --legacy flag is gone: use --mode=compat instead.\n\n" +
		"## Highlights\n- Startup is twice as fast.\n- A dark theme.\n\n## Upgrade\nReplace --legacy with --mode=compat in your scripts, then run the tool once to migrate the config."
)

func say(summary string) step {
	return func(*loop.Input) (*loop.Reply, error) {
		return &loop.Reply{Output: vouch.Output{Summary: summary}}, nil
	}
}

// A thin first attempt (score 0.25, verified at confidence 0.3) is
// reformulated by the rules around the unmet criteria (the loop has no
// judge of its own); verification still holds the second to the task as
// given, and it passes.
func TestReformulateByRules(t *testing.T) {
	eng := newEngine(t, judgePolicy(), notesVerifier(t))
	a := script(say(notesThin), say(notesFull))
	rec, em := newRecorder()
	res, err := loop.Run(context.Background(), eng, notesTask("notes-1"), a, loop.Options{Events: em})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != loop.Accepted || !slices.Equal(reactions(res), []loop.Reaction{loop.ReactReformulate, loop.ReactAccept}) {
		t.Fatalf("outcome %s, reactions %v", res.Outcome, reactions(res))
	}
	in := a.calls()[1]
	rf := in.Reformulation
	if rf == nil || rf.By != "rules" || len(rf.Steps) != 3 || !strings.Contains(rf.Steps[0], "Has the sections") || !strings.Contains(rf.Task, "score 0.25") {
		t.Fatalf("reformulation %+v", rf)
	}
	if !strings.Contains(in.Prompt, "# How to approach it this time") || !strings.Contains(in.Prompt, "3. Meet the criterion \"At least 30 words\"") {
		t.Errorf("prompt:\n%s", in.Prompt)
	}
	// The request verified is the task as given, not the restatement.
	if res.Report.Attempt != 2 || res.Attempts[1].Task != rf.Task || res.Attempts[0].Task != "Write the release notes for v2.3" {
		t.Errorf("attempt tasks %q, %q", res.Attempts[0].Task, res.Attempts[1].Task)
	}
	if ev := rec.of(event.VerificationRetry); len(ev) != 1 || ev[0].Data.(*event.Retry).Action != vouch.ActionReformulate {
		t.Errorf("retry events %+v", ev)
	}
}

// When a verification unsure of the thin notes asks to reformulate and
// the loop has a judge, the judge model rewrites the task; when it
// cannot, the rules do, and the result says so.
func TestReformulateByJudge(t *testing.T) {
	rewrite := json.RawMessage(`{"reasoning": "three sections and the flag change are missing", "goal": "Write the v2.3 release notes with the sections Breaking changes, Highlights and Upgrade; say that --legacy is replaced by --mode=compat.", "steps": ["Write the Breaking changes section", "Write Highlights", "Write Upgrade with the --mode=compat step"]}`)
	j, srv := newJudge(t, func(r *fake.Request) fake.Reply {
		if r.Tool.Name == "submit_reformulation" {
			return fake.Reply{Arguments: rewrite}
		}
		return fake.Reply{Status: 400, ErrorMessage: "unexpected"}
	})
	// Verification has its own judge, unsure of the thin notes (confidence
	// 0.3): the loop's judge j only rewrites the task.
	eng := newEngine(t, judgePolicy(), notesVerifier(t))
	a := script(say(notesThin), say(notesFull))
	res, err := loop.Run(context.Background(), eng, notesTask("notes-2"), a, loop.Options{Judge: j})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != loop.Accepted || len(res.Attempts) != 2 {
		t.Fatalf("outcome %s, reactions %v", res.Outcome, reactions(res))
	}
	rf := a.calls()[1].Reformulation
	if rf == nil || rf.By != "judge openai:gpt-4o" || !strings.HasPrefix(rf.Task, "Write the v2.3 release notes with the sections") || len(rf.Steps) != 3 {
		t.Fatalf("reformulation %+v", rf)
	}
	if srv.Count() != 1 {
		t.Fatalf("%d calls to the model", srv.Count())
	}
	sent := srv.Requests()[0]
	if sent.Model != "gpt-4o" || !strings.Contains(sent.Messages[0].Content, notesThin) || !strings.Contains(sent.Messages[0].Content, "<<<DATA ") {
		t.Errorf("request to the model: %+v", sent)
	}

	// The model refuses: the rules rewrite the task, and a warning says why.
	j, _ = newJudge(t, func(*fake.Request) fake.Reply { return fake.Reply{Refusal: "no"} })
	a = script(say(notesThin), say(notesFull))
	res, err = loop.Run(context.Background(), eng, notesTask("notes-3"), a, loop.Options{Judge: j})
	if err != nil {
		t.Fatal(err)
	}
	rf = a.calls()[1].Reformulation
	if res.Outcome != loop.Accepted || rf.By != "rules" || !strings.Contains(rf.Note, "refused") || len(res.Warnings) != 1 {
		t.Errorf("fallback: outcome %s, reformulation %+v, warnings %q", res.Outcome, rf, res.Warnings)
	}
}

// An accepted output with gaps (completeness 0.5, judged) gets at most two
// follow-up subtasks, linked to their parent; run, they are tasks of their
// own, with their own retries.
func TestFollowUps(t *testing.T) {
	j, _ := newJudge(t, func(r *fake.Request) fake.Reply {
		if strings.Contains(r.Messages[0].Content, "Follow-up to task") {
			return fake.Reply{Arguments: verdictArgs(0.9)}
		}
		return fake.Reply{Arguments: verdictArgs(0.5, "no tests for Format", "no example in the README", "no changelog entry")}
	})
	pol := judgePolicy()
	eng := newEngine(t, pol, j)
	for _, run := range []bool{false, true} {
		task, dir := docTask(t, "docs-fu", "run-fu")
		task.Request.Task.Executor = &vouch.Executor{Provider: "anthropic", Model: "claude-haiku-4-5", Tier: "small"}
		a := script(document(dir, claimBoth, "Parse", "Format"))
		rec, em := newRecorder()
		res, err := loop.Run(context.Background(), eng, task, a, loop.Options{Events: em, RunFollowUps: run})
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != loop.Accepted || res.Report.Action != vouch.ActionFollowUp || len(res.FollowUps) != 2 {
			t.Fatalf("run %v: outcome %s, action %s, %d follow-ups", run, res.Outcome, res.Report.Action, len(res.FollowUps))
		}
		for i, fu := range res.FollowUps {
			if fu.Task.ParentID != "docs-fu" || fu.Task.InteractionID != "run-fu" || fu.Task.ID() != "docs-fu/followup-"+string(rune('1'+i)) ||
				!strings.Contains(fu.Task.Request.Task.Goal, fu.Gap) || fu.Task.Request.Workspace != dir {
				t.Errorf("follow-up %d: %+v", i, fu.Task)
			}
			if (fu.Result != nil) != run {
				t.Errorf("run %v: follow-up result %+v", run, fu.Result)
			}
			if run && (fu.Result.Outcome != loop.Accepted || fu.Result.ParentID != "docs-fu" || len(fu.Result.FollowUps) != 0) {
				t.Errorf("follow-up %d result: %s, parent %q", i, fu.Result.Outcome, fu.Result.ParentID)
			}
		}
		if gaps := []string{res.FollowUps[0].Gap, res.FollowUps[1].Gap}; !slices.Equal(gaps, []string{"no tests for Format", "no example in the README"}) {
			t.Errorf("gaps %q", gaps)
		}
		evs := rec.of(event.SubtaskFollowUp)
		if len(evs) != 2 || evs[0].Data.(*event.FollowUp).ParentID != "docs-fu" || evs[1].TaskID != "docs-fu/followup-2" ||
			evs[1].Data.(*event.FollowUp).Gap != "no example in the README" {
			t.Errorf("follow-up events %+v", evs)
		}
		if run {
			// The follow-up's prompt quotes the gap inside a fence.
			p := a.calls()[1].Prompt
			if !strings.Contains(p, "# The gap to close") || a.calls()[1].ParentID != "docs-fu" {
				t.Errorf("follow-up prompt:\n%s", p)
			}
		}
	}
}

// Outputs that contradict each other stop the synthesis with a
// clarification that names both sides; the answer falls back to the
// outputs. Stating both sides is accepted.
func TestContradictionAndSynthesis(t *testing.T) {
	eng := newEngine(t, nil, nil)
	results := subtaskResults(t, eng)
	for _, tt := range []struct {
		name, answer string
		outcome      loop.Outcome
	}{
		{"picks a side", "The p99 latency of /search is 120 ms. The rebuilt index is 31 GB.", loop.NeedsClarification},
		{"states both", "The two p99 latency runs of /search disagree: 340 ms and 120 ms. The rebuilt index is 31 GB.", loop.Accepted},
	} {
		rec, em := newRecorder()
		a := script(say(tt.answer))
		task := loop.Task{InteractionID: "run-s", Request: vouch.Request{Task: vouch.Task{ID: "answer", Goal: "Summarise the search performance work"}}}
		ans, err := loop.Synthesize(context.Background(), eng, task, a, results, loop.Options{Events: em})
		if err != nil {
			t.Fatal(err)
		}
		if ans.Result.Outcome != tt.outcome {
			t.Fatalf("%s: outcome %s, reactions %v", tt.name, ans.Result.Outcome, reactions(ans.Result))
		}
		in := a.calls()[0]
		if in.Synthesis == nil || len(in.Synthesis.Reliable) != 3 || !strings.Contains(in.Prompt, "# Subtask results to build the answer from") {
			t.Fatalf("%s: synthesis input %+v", tt.name, in.Synthesis)
		}
		answers := rec.of(event.OrchestratorAnswer)
		if len(answers) != 1 {
			t.Fatalf("%s: answer events %v", tt.name, rec.types())
		}
		q := answers[0].Data.(*event.Answer)
		if tt.outcome == loop.Accepted {
			if ans.FellBack || ans.Text != tt.answer || q.FellBack || q.Confidence != ans.Result.Report.Confidence {
				t.Errorf("%s: answer %+v", tt.name, q)
			}
			continue
		}
		c := ans.Result.Clarification
		if c == nil || len(c.Conflicts) != 1 || c.Conflicts[0].Sides[0].Says != "340 ms" || c.Conflicts[0].Sides[1].Says != "120 ms" ||
			c.Conflicts[0].Sides[0].Source != "bench-1" || c.Conflicts[0].Sides[1].Source != "bench-2" || !strings.Contains(c.Question, `bench-1 says "340 ms"`) {
			t.Fatalf("clarification %+v", c)
		}
		if ev := rec.of(event.SubtaskClarify); len(ev) != 1 || ev[0].Data.(*event.Clarify).Conflicts[0].Subject == "" {
			t.Errorf("clarify events %+v", ev)
		}
		if !ans.FellBack || !q.FellBack || !q.NeedsReview || !strings.Contains(ans.Text, "340 ms") || !strings.Contains(ans.Text, "120 ms") ||
			!strings.Contains(ans.Text, "Open question") || len(a.calls()) != 1 {
			t.Errorf("fallback answer %q, quality %+v, %d attempts", ans.Text, q, len(a.calls()))
		}
	}
}

// subtaskResults runs three subtasks that are accepted: two benchmark runs
// that disagree and an index report.
func subtaskResults(t *testing.T, eng loop.Verifier) []*loop.Result {
	var out []*loop.Result
	for _, s := range []struct{ id, text string }{
		{"bench-1", "k6 at 300 rps: the p99 latency of /search is 340 ms."},
		{"bench-2", "Benchmark rerun: the p99 latency of /search is 120 ms."},
		{"index", "The rebuilt index is 31 GB."},
	} {
		task := loop.Task{InteractionID: "run-s", Request: vouch.Request{Kind: vouch.KindAnswer, Task: vouch.Task{ID: s.id, Goal: "Report the measurement"},
			Context: &vouch.Context{Sources: []json.RawMessage{json.RawMessage(mustJSON(s.text))}}}}
		res, err := loop.Run(context.Background(), eng, task, script(say(s.text)), loop.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != loop.Accepted {
			t.Fatalf("subtask %s: %s %+v", s.id, res.Outcome, res.Report)
		}
		out = append(out, res)
	}
	return out
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestSynthesisInput(t *testing.T) {
	rep := func(conf float64, unverified int, gaps ...string) *vouch.Report {
		r := &vouch.Report{Verdict: vouch.VerdictPass, Confidence: conf, Score: ptr(0.9), Gaps: gaps}
		for range unverified {
			r.Mentions.Unverified = append(r.Mentions.Unverified, vouch.UnverifiedMention{Text: "ghost.go", Kind: vouch.MentionFile})
		}
		return r
	}
	accepted := func(id string, r *vouch.Report) *loop.Result {
		return &loop.Result{TaskID: id, Outcome: loop.Accepted, Output: &vouch.Output{Summary: id + " output"}, Report: r}
	}
	results := []*loop.Result{
		accepted("a", rep(0.9, 2, "no tests")),
		accepted("b", rep(0.49, 0)),
		accepted("c", rep(0.8, 3)),
		{TaskID: "d", Outcome: loop.Escalated, Escalation: event.NewEscalation("retries used up", nil)},
		nil,
	}
	results[1].Report.Warnings = []vouch.Warning{{Code: vouch.CodeUnclaimedChange, Message: "go.mod changed"}}
	s := loop.SynthesisInput(results)
	if len(s.Reliable) != 1 || s.Reliable[0].TaskID != "a" || len(s.Uncertain) != 2 {
		t.Fatalf("reliable %+v uncertain %+v", s.Reliable, s.Uncertain)
	}
	if w := s.Uncertain[0].Warnings; len(w) != 2 || !strings.Contains(w[0], "confidence 0.49") || !strings.Contains(w[1], "UNCLAIMED_CHANGE") {
		t.Errorf("b warnings %q", w)
	}
	if w := s.Uncertain[1].Warnings; len(w) != 1 || !strings.Contains(w[0], "3 mentions are unverified") {
		t.Errorf("c warnings %q", w)
	}
	if !slices.Equal(s.Gaps, []string{"no tests", "task d was not accepted (escalated: retries used up)"}) {
		t.Errorf("gaps %q", s.Gaps)
	}
	// A follow-up that was run and accepted closes its gap and adds its
	// output; one not run leaves its gap open.
	parent := accepted("p", rep(0.9, 0, "no rollback steps", "no config notes"))
	parent.FollowUps = []loop.FollowUp{
		{Gap: "no rollback steps", Result: accepted("p/followup-1", rep(0.9, 0))},
		{Gap: "no config notes"},
	}
	fs := loop.SynthesisInput([]*loop.Result{parent})
	if len(fs.Reliable) != 2 || fs.Reliable[1].TaskID != "p/followup-1" || !slices.Equal(fs.Gaps, []string{"no config notes"}) {
		t.Errorf("with follow-ups: reliable %+v, gaps %q", fs.Reliable, fs.Gaps)
	}
	for _, want := range []string{"Reliable results", "[a] confidence 0.90\na output", "Uncertain results", "[b] confidence 0.49; warnings:", "Known gaps", "- no tests"} {
		if !strings.Contains(s.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, s.Text)
		}
	}
}

// A retry goes to the next tier of the cascade; each request says which
// tier ran it, and the retry event names the tier the retry goes to.
func TestCascade(t *testing.T) {
	eng := &spy{v: newEngine(t, nil, nil)}
	task, dir := docTask(t, "docs-c", "run-c")
	task.Request.Task.Executor = &vouch.Executor{Provider: "anthropic", Model: "claude-haiku-4-5", Tier: "small"}
	small := script(document(dir, claimBoth, "Parse"))
	medium := script(document(dir, claimBoth, "Parse"))
	large := script(func(in *loop.Input) (*loop.Reply, error) {
		r, err := document(dir, claimBoth, "Parse", "Format")(in)
		if r != nil {
			r.Executor = &vouch.Executor{Provider: "openai", Model: "gpt-5", CostUSD: ptr(0.25)}
		}
		return r, err
	})
	rec, em := newRecorder()
	res, err := loop.Run(context.Background(), eng, task, small, loop.Options{Events: em,
		Cascade: []loop.Tier{{Name: "medium", Executor: medium}, {Name: "large", Executor: large}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != loop.Accepted || len(small.calls()) != 1 || len(medium.calls()) != 1 || len(large.calls()) != 1 {
		t.Fatalf("outcome %s, calls %d %d %d", res.Outcome, len(small.calls()), len(medium.calls()), len(large.calls()))
	}
	var tiers []string
	for _, req := range eng.requests() {
		tiers = append(tiers, req.Task.Executor.Tier)
	}
	if !slices.Equal(tiers, []string{"small", "medium", "large"}) || medium.calls()[0].Tier != "medium" {
		t.Errorf("tiers %v", tiers)
	}
	if e := eng.requests()[0].Task.Executor; e.Model != "claude-haiku-4-5" {
		t.Errorf("first executor %+v", e)
	}
	if e := eng.requests()[2].Task.Executor; e.Model != "gpt-5" || e.Tier != "large" || res.Cost.ExecutorUSD != 0.25 {
		t.Errorf("last executor %+v, cost %+v", e, res.Cost)
	}
	var next []string
	for _, ev := range rec.of(event.VerificationRetry) {
		next = append(next, ev.Data.(*event.Retry).Tier)
	}
	if !slices.Equal(next, []string{"medium", "large"}) {
		t.Errorf("retry tiers %v", next)
	}
}

// spy is a verifier that records the requests it verifies.
type spy struct {
	v   loop.Verifier
	mu  sync.Mutex
	got []*vouch.Request
}

func (s *spy) Verify(ctx context.Context, req *vouch.Request) (*vouch.Report, error) {
	s.mu.Lock()
	s.got = append(s.got, req)
	s.mu.Unlock()
	return s.v.Verify(ctx, req)
}

func (s *spy) requests() []*vouch.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.got)
}

// An attempt cut off by the attempt timeout is not taken, even if the
// executor returns something after it; the retry is. Time passes on a fake
// clock: nothing sleeps.
func TestAttemptTimeout(t *testing.T) {
	eng := newEngine(t, nil, nil)
	task, dir := docTask(t, "docs-t", "run-t")
	clock := &fakeClock{}
	a := script(func(in *loop.Input) (*loop.Reply, error) {
		clock.elapse() // the attempt outlasts its timeout
		return document(dir, claimBoth, "Parse", "Format")(in)
	}, document(dir, claimBoth, "Parse", "Format"))
	res, err := loop.Run(context.Background(), eng, task, a, loop.Options{AttemptTimeout: 30 * time.Second, AfterFunc: clock.AfterFunc})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != loop.Accepted || len(res.Attempts) != 2 || res.Attempts[0].Error != "the attempt timed out after 30s" || res.Attempts[0].Report != nil {
		t.Fatalf("outcome %s, attempts %+v", res.Outcome, res.Attempts)
	}
	// An executor that waits for its context is released by the timeout,
	// and its attempt retried.
	task, dir = docTask(t, "docs-t2", "run-t")
	clock = &fakeClock{}
	var causes []error
	blocked := loop.ExecutorFunc(func(ctx context.Context, in *loop.Input) (*loop.Reply, error) {
		if in.Attempt == 1 {
			clock.elapse()
			<-ctx.Done()
			causes = append(causes, context.Cause(ctx))
			return nil, ctx.Err()
		}
		return document(dir, claimBoth, "Parse", "Format")(in)
	})
	res, err = loop.Run(context.Background(), eng, task, blocked, loop.Options{AttemptTimeout: time.Minute, AfterFunc: clock.AfterFunc})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != loop.Accepted || res.Attempts[0].Error != "the attempt timed out after 1m0s" || len(causes) != 1 || !strings.Contains(causes[0].Error(), "timed out") {
		t.Errorf("outcome %s, attempts %+v, causes %v", res.Outcome, res.Attempts, causes)
	}
}

// The agent's own confidence is recorded beside the verified confidence
// and score, and its bias (against the score) gathered by executor: an
// agent that claims 0.95 for a lie is overconfident.
func TestSelfAssessmentBias(t *testing.T) {
	eng := newEngine(t, nil, nil)
	task, dir := docTask(t, "docs-b", "run-b")
	claim := func(documented ...string) step {
		return func(in *loop.Input) (*loop.Reply, error) {
			r, err := document(dir, claimBoth, documented...)(in)
			if r != nil {
				r.Output.SelfAssessment = &vouch.SelfAssessment{Confidence: ptr(0.95)}
				r.Executor = &vouch.Executor{Provider: "anthropic", Model: "claude-haiku-4-5"}
			}
			return r, err
		}
	}
	rec, em := newRecorder()
	res, err := loop.Run(context.Background(), eng, task, script(claim("Parse"), claim("Parse", "Format")), loop.Options{Events: em})
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range res.Attempts {
		sa := a.SelfAssessment
		if sa == nil || *sa.Confidence != 0.95 || sa.VerifiedConfidence != a.Report.Confidence || *sa.VerifiedScore != *a.Report.Score || *sa.Bias != 0.95-*a.Report.Score {
			t.Errorf("attempt %d: %+v", i+1, sa)
		}
	}
	ev := rec.of(event.VerificationComplete)
	if len(ev) != 2 || ev[0].Data.(*event.Complete).SelfAssessment == nil {
		t.Errorf("complete events %+v", ev)
	}
	b := loop.Bias(res)
	mean := (*res.Attempts[0].Report.Score + *res.Attempts[1].Report.Score) / 2
	if len(b) != 1 || b[0].Executor != "anthropic:claude-haiku-4-5" || b[0].N != 2 || b[0].Self != 0.95 ||
		b[0].Verified != mean || b[0].Bias != 0.95-mean || *res.Attempts[0].SelfAssessment.Bias <= 0.2 {
		t.Errorf("bias %+v", b)
	}
}
