package store

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// TestYieldingGathersOnOneProcessor holds the yielding writer to its
// purpose: with one processor, writes made at once by goroutines that are
// all ready to run share commits. The committer, woken by the first
// write, runs before the others; without its yield it committed that
// write alone, and then each of the others alone.
func TestYieldingGathersOnOneProcessor(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const writers = 32
	var (
		mu     sync.Mutex
		groups []int
	)
	g := newGroupWriter(1, yielding, writerHooks{}, func(group []*writeReq) {
		mu.Lock()
		groups = append(groups, len(group))
		mu.Unlock()
		for _, r := range group {
			r.done <- nil
		}
	})
	defer g.close()
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			<-start
			if err := g.write(context.Background(), 0, nil, nil); err != nil {
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(groups) > writers/4 {
		t.Errorf("%d writes made at once were committed in %d groups %v; want at most %d", writers, len(groups), groups, writers/4)
	}
}

// lingerWriter starts a yielding writer with the busy and pause hooks
// given, that records the size of each group it commits; queued receives
// a value for each write queued.
func lingerWriter(t *testing.T, busy func() bool, pause func()) (g *groupWriter, queued <-chan struct{}, groups func() []int) {
	t.Helper()
	var (
		mu    sync.Mutex
		sizes []int
	)
	q := make(chan struct{}, 2*maxGroup)
	g = newGroupWriter(1, yielding, writerHooks{busy: busy, pause: pause, queued: func() { q <- struct{}{} }}, func(group []*writeReq) {
		mu.Lock()
		sizes = append(sizes, len(group))
		mu.Unlock()
		for _, r := range group {
			r.done <- nil
		}
	})
	t.Cleanup(g.close)
	return g, q, func() []int {
		mu.Lock()
		defer mu.Unlock()
		return append([]int(nil), sizes...)
	}
}

// goWrite makes an insertion's write in a goroutine of its own and
// returns where its result comes.
func goWrite(g *groupWriter) <-chan error {
	done := make(chan error, 1)
	go func() { done <- g.write(context.Background(), 0, &insertion{}, nil) }()
	return done
}

// writeAll starts n writes and waits until each is queued.
func writeAll(g *groupWriter, queued <-chan struct{}, n int) []<-chan error {
	var dones []<-chan error
	for range n {
		dones = append(dones, goWrite(g))
	}
	for range n {
		<-queued
	}
	return dones
}

// awaitPause waits until the committer pauses, and fails the test if it
// commits the first write instead.
func awaitPause(t *testing.T, paused <-chan struct{}, first <-chan error) {
	t.Helper()
	select {
	case <-paused:
	case err := <-first:
		t.Fatalf("the first write was committed (%v) without the committer lingering", err)
	}
}

// TestLingerGathersWhileBusy: while goroutines wait for a processor, the
// committer that took a write waits, and the writes queued meanwhile
// share its commit.
func TestLingerGathersWhileBusy(t *testing.T) {
	const more = 4
	var released atomic.Bool
	paused, resume := make(chan struct{}), make(chan struct{})
	var once sync.Once
	g, queued, groups := lingerWriter(t, func() bool { return !released.Load() }, func() {
		once.Do(func() {
			close(paused)
			<-resume
			released.Store(true)
		})
	})
	first := goWrite(g)
	<-queued
	awaitPause(t, paused, first)
	rest := writeAll(g, queued, more)
	close(resume)
	for _, done := range append(rest, first) {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if got := groups(); len(got) != 1 || got[0] != more+1 {
		t.Errorf("groups %v, want one of %d", got, more+1)
	}
}

// TestLingerNot: the committer commits at once with no goroutine waiting
// for a processor, and for a write that is not one verification's
// insertion (a batch's, which completes many), however busy the process.
func TestLingerNot(t *testing.T) {
	for _, c := range []struct {
		name string
		busy bool
		in   *insertion
	}{
		{"idle", false, &insertion{}},
		{"not an insertion", true, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var pauses atomic.Int32
			g, _, groups := lingerWriter(t, func() bool { return c.busy }, func() { pauses.Add(1) })
			if err := g.write(t.Context(), 0, c.in, nil); err != nil {
				t.Fatal(err)
			}
			if n := pauses.Load(); n != 0 {
				t.Errorf("the committer paused %d times", n)
			}
			if got := groups(); len(got) != 1 || got[0] != 1 {
				t.Errorf("groups %v, want one of 1", got)
			}
		})
	}
}

// TestLingerBounded: however busy the process stays, the committer
// lingers at most maxLinger (in steps).
func TestLingerBounded(t *testing.T) {
	var pauses atomic.Int32
	g, _, _ := lingerWriter(t, func() bool { return true }, func() { pauses.Add(1) })
	if err := <-goWrite(g); err != nil {
		t.Fatal(err)
	}
	if n, most := pauses.Load(), int32(maxLinger/lingerStep); n < 1 || n > most {
		t.Errorf("always busy: %d pauses, want 1 to %d", n, most)
	}
}

// TestLingerStopsAtAFullGroup: the committer lingers no longer once a
// group's worth of writes waits.
func TestLingerStopsAtAFullGroup(t *testing.T) {
	var pauses atomic.Int32
	paused, resume := make(chan struct{}), make(chan struct{})
	var once sync.Once
	g, queued, groups := lingerWriter(t, func() bool { return true }, func() {
		pauses.Add(1)
		once.Do(func() {
			close(paused)
			<-resume
		})
	})
	first := goWrite(g)
	<-queued
	awaitPause(t, paused, first)
	full := writeAll(g, queued, maxGroup-1)
	close(resume)
	for _, done := range append(full, first) {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if n := pauses.Load(); n != 1 {
		t.Errorf("a full group queued during the first pause: %d pauses, want 1", n)
	}
	if got := groups(); len(got) != 1 || got[0] != maxGroup {
		t.Errorf("groups %v, want one of %d", got, maxGroup)
	}
}
