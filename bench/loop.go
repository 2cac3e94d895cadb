package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/event"
	"github.com/vouchgate/vouch/loop"
	"github.com/vouchgate/vouch/loop/looptest"
	"github.com/vouchgate/vouch/memory"
)

// loopCorpus runs the loop's scripted corpus (loop/looptest) in
// process against the real engine, runs times, in three settings: the
// loop alone; with an in-memory memory and a channel for events; with a
// file memory, a JSONL event file (each event synced to disk), and both.
// It
// prints the retry success rate, attempts and cost per accepted task, and
// the loop's overhead per attempt beside the verification.
func loopCorpus(runs int) error {
	pol := looptest.Policy()
	eng, err := engine.New(engine.Options{Policy: &pol})
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "vouch-bench-loop-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ch := make(chan event.Event, 1<<16)
	settings := []struct {
		name string
		opts func() (loop.Options, func(), error)
	}{
		{"loop alone (no memory, no events)", func() (loop.Options, func(), error) { return loop.Options{}, func() {}, nil }},
		{"in-memory memory, events to a Go channel", func() (loop.Options, func(), error) {
			em := event.NewEmitter(event.Options{}, event.NewChannel(ch))
			drain := func() {
				for len(ch) > 0 {
					<-ch
				}
			}
			return loop.Options{Memory: memory.New(memory.NewMem(), memory.Options{}), Events: em}, drain, nil
		}},
		{"file memory, no events", func() (loop.Options, func(), error) {
			store, err := memory.OpenFile(filepath.Join(dir, "memory-only.json"))
			if err != nil {
				return loop.Options{}, nil, err
			}
			return loop.Options{Memory: memory.New(store, memory.Options{})}, func() {}, nil
		}},
		{"no memory, events to a JSONL file (synced)", func() (loop.Options, func(), error) {
			jl, err := event.OpenJSONL(filepath.Join(dir, "events-only.jsonl"))
			if err != nil {
				return loop.Options{}, nil, err
			}
			em := event.NewEmitter(event.Options{}, jl)
			return loop.Options{Events: em}, func() { em.Close(context.Background()) }, nil
		}},
		{"file memory, events to a JSONL file (synced)", func() (loop.Options, func(), error) {
			store, err := memory.OpenFile(filepath.Join(dir, "memory.json"))
			if err != nil {
				return loop.Options{}, nil, err
			}
			jl, err := event.OpenJSONL(filepath.Join(dir, "events.jsonl"))
			if err != nil {
				return loop.Options{}, nil, err
			}
			em := event.NewEmitter(event.Options{}, jl)
			return loop.Options{Memory: memory.New(store, memory.Options{}), Events: em}, func() { em.Close(context.Background()) }, nil
		}},
	}
	// A warm-up run, untimed, so that the first setting does not pay for
	// the page cache and the engine's caches.
	if _, err := looptest.Measure(context.Background(), eng, looptest.Options{}); err != nil {
		return err
	}
	for _, s := range settings {
		opts, done, err := s.opts()
		if err != nil {
			return err
		}
		f, err := looptest.Measure(context.Background(), eng, looptest.Options{Runs: runs, Loop: opts})
		done()
		if err != nil {
			return err
		}
		fmt.Printf("== %s\n", s.name)
		f.Print(os.Stdout)
		fmt.Println()
	}
	return nil
}
