package loop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vouchgate/vouch"
	_ "github.com/vouchgate/vouch/check/all"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/event"
	"github.com/vouchgate/vouch/internal/testws"
	"github.com/vouchgate/vouch/loop"
)

func ptr[T any](v T) *T { return &v }

// newEngine builds a real engine with the given policy (nil: built-in) and
// judge (nil: none).
func newEngine(t testing.TB, pol *vouch.Policy, j vouch.Judge) *engine.Engine {
	t.Helper()
	eng, err := engine.New(engine.Options{Policy: pol, Judge: j})
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// The doc-comment task of most tests: two exported functions in calc.go.
const docGoal = "Add doc comments to the exported functions Parse and Format in calc.go"

func calcSource(documented ...string) string {
	var b strings.Builder
	b.WriteString("package calc\n")
	for _, fn := range []struct{ name, sig string }{{"Parse", "(s string) int { return len(s) }"}, {"Format", "(n int) string { return \"\" }"}} {
		b.WriteString("\n")
		if slices.Contains(documented, fn.name) {
			fmt.Fprintf(&b, "// %s does its job.\n", fn.name)
		}
		fmt.Fprintf(&b, "func %s%s\n", fn.name, fn.sig)
	}
	return b.String()
}

// docTask returns the doc-comment task over a fresh workspace.
func docTask(t testing.TB, id, interaction string) (loop.Task, string) {
	dir := testws.Dir(t, map[string]string{"calc.go": calcSource()})
	return loop.Task{InteractionID: interaction, Request: vouch.Request{Task: vouch.Task{ID: id, Goal: docGoal}, Workspace: dir}}, dir
}

// step is one scripted attempt.
type step func(in *loop.Input) (*loop.Reply, error)

// agent is a scripted executor: its i-th call runs steps[i] (the last step
// from then on) and records the input it was given.
type agent struct {
	mu     sync.Mutex
	steps  []step
	inputs []*loop.Input
}

func script(steps ...step) *agent { return &agent{steps: steps} }

func (a *agent) Execute(_ context.Context, in *loop.Input) (*loop.Reply, error) {
	a.mu.Lock()
	i := min(len(a.inputs), len(a.steps)-1)
	a.inputs = append(a.inputs, in)
	a.mu.Unlock()
	return a.steps[i](in)
}

func (a *agent) calls() []*loop.Input {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.inputs)
}

// readEdit is the trace of an agent that read a file and edited it.
func readEdit(file, body string) []vouch.TraceEntry {
	out, _ := json.Marshal(body)
	return []vouch.TraceEntry{
		{ID: "1", Tool: "Read", Input: map[string]any{"file_path": file}, Output: out},
		{ID: "2", Tool: "Edit", Input: map[string]any{"file_path": file}, Output: json.RawMessage(`"ok"`)},
	}
}

// document writes calc.go with the given functions documented and reports
// summary, as an agent would.
func document(dir, summary string, documented ...string) step {
	return func(in *loop.Input) (*loop.Reply, error) {
		body := calcSource(documented...)
		if err := os.WriteFile(filepath.Join(dir, "calc.go"), []byte(body), 0o644); err != nil {
			return nil, err
		}
		return &loop.Reply{Output: vouch.Output{Summary: summary, Modified: []string{"calc.go"}}, Trace: readEdit("calc.go", body)}, nil
	}
}

// Summaries of the doc task.
const (
	claimBoth  = "Added doc comments to both exported functions, Parse and Format, in calc.go."
	inventMore = "Added doc comments to Parse and Format in calc.go; also updated helpers.go, strings_util.go, fmt_extra.go and parse_test_utils.go with ParseAll and FormatAll."
)

// recorder collects emitted events.
type recorder struct {
	mu     sync.Mutex
	events []event.Event
}

func (r *recorder) Send(ev *event.Event, _ []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, *ev)
	return nil
}

func (r *recorder) types() []event.Type {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]event.Type, len(r.events))
	for i, e := range r.events {
		out[i] = e.Type
	}
	return out
}

func (r *recorder) of(typ event.Type) []event.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []event.Event
	for _, e := range r.events {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

func newRecorder() (*recorder, *event.Emitter) {
	r := &recorder{}
	return r, event.NewEmitter(event.Options{Tenant: "t", Now: func() time.Time { return time.Unix(1_800_000_000, 0) }}, r)
}

func reactions(res *loop.Result) []loop.Reaction {
	out := make([]loop.Reaction, len(res.Attempts))
	for i, a := range res.Attempts {
		out[i] = a.Reaction
	}
	return out
}
