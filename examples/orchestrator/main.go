// Command orchestrator is a Go orchestrator built on package loop: it
// prepares a release with four scripted agents, each verified by the real
// engine, a fake judge model (package judge/fake, on loopback) standing in
// for a real one, a file-backed memory, and events printed as they come
// (a sink of its own) and sent to a Go channel, a JSONL file and a signed
// webhook. It shows every reaction of the loop:
//
//   - docs: the agent claims two doc comments and wrote one; the feedback
//     names the missing one, the retry passes;
//   - notes: the release notes fall far short; the judge model rewrites
//     the task around what is missing (reformulate), the retry passes;
//   - guide: accepted with gaps (completeness 0.5), so two follow-up
//     subtasks are made and run; its prompt carries the memory, where the
//     docs agent's invented helpers.go is a known hallucination;
//   - bench: the agent keeps claiming a file it never writes; after the
//     retries it is escalated with a structured error;
//   - the answer: a synthesis over the results, with the escalated task as
//     a known gap, ends in orchestrator:answer.
//
// Run it with `go run ./examples/orchestrator` (or `bash examples/run.sh
// orchestrator`); it needs no network and no API key.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/vouchgate/vouch"
	_ "github.com/vouchgate/vouch/check/all"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/event"
	"github.com/vouchgate/vouch/judge"
	"github.com/vouchgate/vouch/judge/fake"
	"github.com/vouchgate/vouch/judge/openai"
	"github.com/vouchgate/vouch/loop"
	"github.com/vouchgate/vouch/memory"
)

func main() {
	if _, err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "orchestrator:", err)
		os.Exit(1)
	}
}

// outcome is what a run did, for the test.
type outcome struct {
	results map[string]*loop.Result
	answer  *loop.Answer
	events  []event.Event
	// prompts are the prompts each agent was given, by task id.
	prompts map[string][]string
	webhook event.WebhookStats
	// badSignatures counts webhook deliveries whose signature failed.
	badSignatures atomic.Int32
}

const interaction = "release-2.3"

func run(ctx context.Context, w io.Writer) (*outcome, error) {
	out := &outcome{results: map[string]*loop.Result{}, prompts: map[string][]string{}}
	tmp, err := os.MkdirTemp("", "vouch-orchestrator-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	ws := filepath.Join(tmp, "workspace")
	if err := writeFiles(ws, map[string]string{"calc.go": calc(false, false), "README.md": "# calc\n\nA small calculator library.\n"}); err != nil {
		return nil, err
	}

	// The judge: a fake model server on loopback, through the real
	// OpenAI-compatible client.
	srv := fake.NewServer(fake.WithResponder(fakeModel))
	defer srv.Close()
	j, err := judge.New(judge.Options{Providers: []judge.Provider{openai.New(openai.Options{BaseURL: srv.URL() + "/v1", APIKey: "sk-fake"})}})
	if err != nil {
		return nil, err
	}
	pol := vouch.DefaultPolicy()
	pol.Judge.Models = []string{"openai:gpt-4o"}
	pol.FailBelow = 0.2 // a score under 0.4 is reformulated, not failed outright
	eng, err := engine.New(engine.Options{Policy: &pol, Judge: j})
	if err != nil {
		return nil, err
	}

	// Memory in a file; events to a channel, a JSONL file and a signed
	// webhook whose receiver checks every signature.
	store, err := memory.OpenFile(filepath.Join(tmp, "state", "memory.json"))
	if err != nil {
		return nil, err
	}
	mem := memory.New(store, memory.Options{PromoteAfter: pol.Memory.PromoteAfter})
	secret := []byte("whsec-example")
	hook := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if event.VerifySignature(secret, r.Header, body, time.Now(), 0) != nil {
			out.badSignatures.Add(1)
			http.Error(rw, "bad signature", http.StatusUnauthorized)
		}
	}))
	defer hook.Close()
	wh, err := event.NewWebhook(event.WebhookOptions{URL: hook.URL, Secret: secret})
	if err != nil {
		return nil, err
	}
	jl, err := event.OpenJSONL(filepath.Join(tmp, "events.jsonl"))
	if err != nil {
		return nil, err
	}
	ch := make(chan event.Event, 256) // read once the run is over
	em := event.NewEmitter(event.Options{Tenant: "acme"}, printer{w}, event.NewChannel(ch), jl, wh)

	opts := loop.Options{Memory: mem, Events: em, Judge: j, RunFollowUps: true}
	agent := func(id string, behave func(in *loop.Input) (*loop.Reply, error)) loop.Executor {
		return loop.ExecutorFunc(func(ctx context.Context, in *loop.Input) (*loop.Reply, error) {
			out.prompts[in.TaskID] = append(out.prompts[in.TaskID], in.Prompt)
			r, err := behave(in)
			if r != nil {
				// Each run costs enough for the judge to be asked
				// (judge.maxCostShare: judging may cost 30 % of the task).
				r.Executor = &vouch.Executor{Provider: "anthropic", Model: "claude-haiku-4-5", Tier: "small", CostUSD: ptr(0.05)}
			}
			return r, err
		})
	}
	task := func(id, goal string, criteria ...vouch.Criterion) loop.Task {
		return loop.Task{InteractionID: interaction, Request: vouch.Request{Workspace: ws,
			Task: vouch.Task{ID: id, Goal: goal, Criteria: criteria, Executor: &vouch.Executor{Provider: "anthropic", Model: "claude-haiku-4-5", Tier: "small"}}}}
	}

	subtasks := []struct {
		task  loop.Task
		agent loop.Executor
	}{
		{task("docs", "Add doc comments to the exported functions Parse and Format in calc.go"), agent("docs", docsAgent(ws))},
		{notesTask(task("notes", "Write the release notes for v2.3")), agent("notes", notesAgent)},
		{task("guide", "Write docs/upgrade.md, the upgrade guide from v2.2 to v2.3"), agent("guide", guideAgent(ws))},
		{task("bench", "Run the benchmarks and write bench/results.md"), agent("bench", benchAgent)},
	}
	var results []*loop.Result
	for _, st := range subtasks {
		fmt.Fprintf(w, "\n== subtask %s: %s\n", st.task.ID(), st.task.Request.Task.Goal)
		res, err := loop.Run(ctx, eng, st.task, st.agent, opts)
		if err != nil {
			return nil, err
		}
		out.results[st.task.ID()] = res
		results = append(results, res)
		report(w, res, "")
		if st.task.ID() == "guide" {
			// The memory carried the docs agent's invention to this
			// subtask's prompt.
			fmt.Fprintf(w, "   its prompt's memory: %s\n", knownHallucinations(out.prompts["guide"][0]))
		}
	}

	fmt.Fprintf(w, "\n== the answer\n")
	syn := loop.Task{InteractionID: interaction, Request: vouch.Request{Task: vouch.Task{ID: "answer", Goal: "Summarise the v2.3 release work for the user",
		Executor: &vouch.Executor{Provider: "anthropic", Model: "claude-haiku-4-5", Tier: "small"}}}}
	ans, err := loop.Synthesize(ctx, eng, syn, agent("answer", synthesizer), results, opts)
	if err != nil {
		return nil, err
	}
	out.answer = ans
	q := ans.Quality
	fmt.Fprintf(w, "%s\n  confidence %.2f, fell back %v, needs review %v, known gaps: %s\n", indent(ans.Text), q.Confidence, q.FellBack, q.NeedsReview, strings.Join(q.Gaps, "; "))

	// Deliver what is queued, then stop printing.
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := em.Close(cctx); err != nil {
		return nil, err
	}
	close(ch)
	for ev := range ch {
		out.events = append(out.events, ev)
	}
	out.webhook = wh.Stats()
	fmt.Fprintf(w, "\nwebhook: %d delivered, %d failed, %d dropped; %d bad signatures\n", out.webhook.Delivered, out.webhook.Failed, out.webhook.Dropped, out.badSignatures.Load())
	for _, b := range loop.Bias(results...) {
		fmt.Fprintf(w, "self-assessment bias of %s: claimed %.2f, verified %.2f (%+.2f over %d attempts)\n", b.Executor, b.Self, b.Verified, b.Bias, b.N)
	}
	return out, nil
}

// report prints how a task went.
func report(w io.Writer, res *loop.Result, pad string) {
	fmt.Fprintf(w, "%s-> %s after %d attempt(s):", pad, res.Outcome, len(res.Attempts))
	for _, a := range res.Attempts {
		v := "no report"
		if a.Report != nil {
			v = fmt.Sprintf("%s/%s", a.Report.Verdict, a.Report.Action)
		}
		fmt.Fprintf(w, " [%d %s -> %s]", a.Number, v, a.Reaction)
	}
	fmt.Fprintln(w)
	if res.Escalation != nil {
		b, _ := json.Marshal(res.Escalation)
		fmt.Fprintf(w, "%s   escalation: %s\n", pad, b)
	}
	for _, fu := range res.FollowUps {
		fmt.Fprintf(w, "%s   follow-up %s for the gap %q\n", pad, fu.Task.ID(), fu.Gap)
		if fu.Result != nil {
			report(w, fu.Result, pad+"     ")
		}
	}
}

// printer is a sink of its own: it prints each event as it is emitted.
type printer struct{ w io.Writer }

func (p printer) Send(ev *event.Event, _ []byte) error {
	_, err := fmt.Fprintf(p.w, "  event %-22s task=%-18s attempt=%d %s\n", ev.Type, ev.TaskID, ev.Attempt, summary(ev))
	return err
}

func summary(ev *event.Event) string {
	switch d := ev.Data.(type) {
	case *event.Complete:
		return fmt.Sprintf("%s/%s", d.Report.Verdict, d.Report.Action)
	case *event.Retry:
		return string(d.Action)
	case *event.FollowUp:
		return fmt.Sprintf("parent=%s gap=%q", d.ParentID, d.Gap)
	case *event.Escalation:
		return d.Error
	case *event.Clarify:
		return d.Question
	case *event.Answer:
		return fmt.Sprintf("confidence=%.2f gaps=%d", d.Confidence, len(d.Gaps))
	}
	return ""
}

// knownHallucinations returns the known-hallucination lines of a prompt.
func knownHallucinations(prompt string) string {
	_, rest, ok := strings.Cut(prompt, "Known hallucinations")
	if !ok {
		return "no known hallucinations"
	}
	var items []string
	for _, line := range strings.Split(rest, "\n") {
		if strings.HasPrefix(line, "<<<END") {
			break
		}
		if strings.HasPrefix(line, "- ") {
			items = append(items, strings.TrimPrefix(line, "- "))
		}
	}
	return "do not reference " + strings.Join(items, ", ")
}

func indent(s string) string { return "  " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n  ") }

func ptr[T any](v T) *T { return &v }

func writeFiles(dir string, files map[string]string) error {
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}
