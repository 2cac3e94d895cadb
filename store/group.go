package store

import (
	"context"
	"sync"
	"sync/atomic"
)

// Write request states: a committer takes a queued request, or its
// caller gives up on it first; whichever comes first wins.
const (
	reqQueued int32 = iota
	reqTaken
	reqCancelled
)

// writeReq is a write queued for a groupWriter.
type writeReq struct {
	fn    func(ctx context.Context, tx conn) error
	mode  writeMode
	state atomic.Int32
	done  chan error // buffered: a committer never waits for the caller
}

// writerHooks let tests watch a groupWriter.
type writerHooks struct {
	// queued is called after a write was queued.
	queued func()
	// taken is called by a committer after it took the first write of a
	// group, before it gathers the rest.
	taken func()
	// closing is called by close once no write can be queued any more,
	// before it waits for the committers to drain the queue.
	closing func()
}

// groupWriter runs writes in groups. A write is queued; a committer
// goroutine takes the first write queued, gathers every write queued
// meanwhile (up to maxGroup), and hands them to commit, which runs them
// in one transaction and answers each. Under load, many writes share a
// transaction and its commit; alone, a write commits at once.
type groupWriter struct {
	commit func(group []*writeReq)
	hooks  writerHooks

	queue chan *writeReq
	done  chan struct{} // closed when every committer has returned

	mu     sync.RWMutex // guards closed against sends on queue
	closed bool
}

// newGroupWriter starts n committers that hand their groups to commit.
func newGroupWriter(n int, hooks writerHooks, commit func(group []*writeReq)) *groupWriter {
	g := &groupWriter{commit: commit, hooks: hooks,
		queue: make(chan *writeReq, queueDepth), done: make(chan struct{})}
	var running sync.WaitGroup
	for range n {
		running.Go(g.run)
	}
	go func() {
		running.Wait()
		close(g.done)
	}()
	return g
}

// write queues fn and waits for its transaction. A write whose ctx is
// done before a committer takes it is not run and returns ctx.Err();
// once taken, it runs to its end.
func (g *groupWriter) write(ctx context.Context, mode writeMode, fn func(ctx context.Context, tx conn) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r := &writeReq{fn: fn, mode: mode, done: make(chan error, 1)}
	g.mu.RLock()
	if g.closed {
		g.mu.RUnlock()
		return ErrClosed
	}
	select {
	case g.queue <- r:
	case <-ctx.Done():
		g.mu.RUnlock()
		return ctx.Err()
	}
	g.mu.RUnlock()
	if g.hooks.queued != nil {
		g.hooks.queued()
	}
	select {
	case err := <-r.done:
		return err
	case <-ctx.Done():
		if r.state.CompareAndSwap(reqQueued, reqCancelled) {
			return ctx.Err()
		}
		// A committer has it: it completes.
		return <-r.done
	}
}

// run is a committer goroutine.
func (g *groupWriter) run() {
	for {
		first, ok := <-g.queue
		if !ok {
			return
		}
		group := take(nil, first)
		if g.hooks.taken != nil {
			g.hooks.taken()
		}
		open := true
	gather:
		for len(group) < maxGroup {
			select {
			case r, ok := <-g.queue:
				if !ok {
					open = false
					break gather
				}
				group = take(group, r)
			default:
				break gather
			}
		}
		if len(group) > 0 {
			g.commit(group)
		}
		if !open {
			return
		}
	}
}

// take adds r to group unless its caller gave up on it.
func take(group []*writeReq, r *writeReq) []*writeReq {
	if r.state.CompareAndSwap(reqQueued, reqTaken) {
		group = append(group, r)
	}
	return group
}

// close stops taking writes and returns once those queued are committed.
func (g *groupWriter) close() {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return
	}
	g.closed = true
	g.mu.Unlock()
	close(g.queue)
	if g.hooks.closing != nil {
		g.hooks.closing()
	}
	<-g.done
}

// allRerunnable reports whether every write of group is rerunnable.
func allRerunnable(group []*writeReq) bool {
	for _, r := range group {
		if r.mode&rerunnable == 0 {
			return false
		}
	}
	return true
}
