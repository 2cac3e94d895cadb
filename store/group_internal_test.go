package store

import (
	"context"
	"runtime"
	"sync"
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
