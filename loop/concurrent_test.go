package loop_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/vouchgate/vouch/event"
	"github.com/vouchgate/vouch/loop"
	"github.com/vouchgate/vouch/memory"
)

// Subtasks of one interaction run concurrently over one engine, one
// file-backed memory and one JSONL event file: every event is a whole line
// and every subtask's records are kept.
func TestConcurrentSubtasks(t *testing.T) {
	eng := newEngine(t, nil, nil)
	dir := t.TempDir()
	store, err := memory.OpenFile(filepath.Join(dir, "memory.json"))
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.New(store, memory.Options{})
	jl, err := event.OpenJSONL(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	em := event.NewEmitter(event.Options{}, jl)
	const n = 6
	results := make([]*loop.Result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			task, ws := docTask(t, fmt.Sprintf("docs-%d", i), "run-par")
			invent := fmt.Sprintf("Added doc comments to Parse and Format in calc.go, and to helper%d.go.", i)
			a := script(document(ws, invent, "Parse"), document(ws, claimBoth, "Parse", "Format"))
			res, err := loop.Run(context.Background(), eng, task, a, loop.Options{Memory: mem, Events: em})
			if err != nil {
				t.Error(err)
			}
			results[i] = res
		})
	}
	wg.Wait()
	if err := em.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i, res := range results {
		if res == nil || res.Outcome != loop.Accepted || len(res.Attempts) != 2 || len(res.Warnings) != 0 {
			t.Fatalf("subtask %d: %+v", i, res)
		}
	}
	f, err := os.Open(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	evs, err := event.ReadJSONL(f)
	if err != nil {
		t.Fatal(err)
	}
	byType := map[event.Type]int{}
	for _, ev := range evs {
		byType[ev.Type]++
	}
	if byType[event.VerificationComplete] != 2*n || byType[event.VerificationRetry] != n || len(evs) != 3*n {
		t.Errorf("events by type %v", byType)
	}
	c, err := mem.Context(context.Background(), memory.Scope{InteractionID: "run-par"})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Hallucinations) != n || len(c.Facts) != 1 {
		t.Errorf("memory: %d hallucinations, %d facts", len(c.Hallucinations), len(c.Facts))
	}
	// Each subtask's own hallucination is kept, recorded by it.
	for _, h := range c.Hallucinations {
		var i int
		if _, err := fmt.Sscanf(h.Text, "helper%d.go", &i); err != nil || h.TaskID != fmt.Sprintf("docs-%d", i) {
			t.Errorf("hallucination %+v", h)
		}
	}
}
