package store

import (
	"context"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
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
	// ctx is its caller's: a write whose caller gave up before its
	// commit began is not run (see take and pgEngine.commitGroup).
	ctx  context.Context
	fn   func(ctx context.Context, tx conn) error
	mode writeMode
	// ins, when set, is the insertion fn writes, which a group may write
	// with the others' instead (see pgEngine.groupTx).
	ins   *insertion
	state atomic.Int32
	done  chan error // buffered: a committer never waits for the caller
}

// writerHooks let tests watch a groupWriter.
type writerHooks struct {
	// queued is called after a write was queued.
	queued func()
	// taken is called by a committer after it took the first write of a
	// group, before it gathers the rest, and by a write that commits
	// itself (see inlining).
	taken func()
	// closing is called by close once no write can be queued any more,
	// before it waits for the committers to drain the queue.
	closing func()
	// busy, when set, replaces the runtime's report of goroutines
	// waiting for a processor, and pause the wait of a step, when a
	// committer lingers (see groupWriter.linger).
	busy  func() bool
	pause func()
}

// groupWriter runs writes in groups. A write is queued; a committer
// goroutine takes the first write queued, gathers every write queued
// meanwhile (up to maxGroup), and hands them to commit, which runs them
// in one transaction and answers each. Under load, many writes share a
// transaction and its commit; alone, a write commits at once.
//
// How a group is gathered is its writerStyle.
type groupWriter struct {
	commit func(group []*writeReq)
	hooks  writerHooks
	style  writerStyle
	// places holds a token per group being committed: at most one per
	// committer, whoever commits it.
	places chan struct{}

	queue chan *writeReq
	done  chan struct{} // closed when every committer has returned

	mu     sync.RWMutex // guards closed against sends on queue
	closed bool
}

// writerStyle is how a groupWriter gathers its groups.
type writerStyle int

const (
	// yielding: every write is queued for a committer, and a committer
	// that takes a write with none queued behind it yields its processor
	// once before it gathers the rest, so that the goroutines ready to
	// run first queue the writes they are about to make. For SQLite's
	// writer, whose commit holds its thread in system calls (the writes
	// and sync of the log): with GOMAXPROCS=1, the committer, woken by
	// each write, ran before anything else and committed its writes one
	// at a time (1.1 a commit in `go run ./bench -serve -server-procs 1`,
	// 1,500 verifications/s and 550 µs of CPU each); yielding, 15.7 a
	// commit, 3,600-3,900/s and 250 µs. With 2 it changes nothing.
	//
	// Then, when the write is an insertion (one verification's) and the
	// process has more work than its processors can run (see saturated),
	// the committer lingers (see groupWriter.linger), up to maxLinger: a
	// commit and its sync, paid once for every write of its group, cost
	// less the more writes they carry, and when the CPU is the bound the
	// wait costs no processor. With 2 processors and 32 clients of `bench
	// -serve` the committer had written 5-6 writes a commit, as many as
	// arrived during one; lingering, 13-14, and it gave 4,860-5,240
	// verifications/s, p99 12.5-14 ms, 280-306 µs of CPU each, against
	// 4,220-4,610/s, p99 14-16 ms, 322-349 µs; with 8 clients 3,290-3,650
	// against 2,790-3,280/s; with 2, and with one processor, unchanged
	// within spread. A committer that always waited 1 ms made 2 and 8
	// clients 37 % and 20 % slower. A batch's write completes up to 32
	// verifications at once, its commit already shared: lingering for it
	// made `bench -serve-batch` 3 % slower, so it does not.
	yielding writerStyle = iota
	// inlining: a write that finds the queue empty and a committer's
	// place free commits itself, in its caller's goroutine: handing it to
	// a committer and its answer back cost PostgreSQL's lone writes 170 µs
	// of waking goroutines on 2 cores. A PostgreSQL commit waits on the
	// network, which frees its processor: yielding there made `bench
	// -serve` 3-8 % slower.
	inlining
)

// newGroupWriter starts n committers that hand their groups to commit,
// gathered in style.
func newGroupWriter(n int, style writerStyle, hooks writerHooks, commit func(group []*writeReq)) *groupWriter {
	g := &groupWriter{commit: commit, hooks: hooks, style: style, places: make(chan struct{}, n),
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

// write queues fn, which writes in when not nil, and waits for its
// transaction. A write whose ctx is done before a committer takes it is
// not run and returns ctx.Err(); once taken, it runs to its end.
func (g *groupWriter) write(ctx context.Context, mode writeMode, in *insertion, fn func(ctx context.Context, tx conn) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r := &writeReq{ctx: ctx, fn: fn, mode: mode, ins: in, done: make(chan error, 1)}
	inlined, err := g.enqueue(ctx, r)
	if err != nil {
		return err
	}
	if inlined {
		return <-r.done
	}
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

// enqueue queues r, or commits it at once when the writer is inlining and
// nothing waits, under the read lock that close takes to stop the writes
// (so close waits for an inline commit, as for the queue's).
func (g *groupWriter) enqueue(ctx context.Context, r *writeReq) (inlined bool, err error) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.closed {
		return false, ErrClosed
	}
	if g.style == inlining && len(g.queue) == 0 && g.commitInline(r) {
		return true, nil
	}
	select {
	case g.queue <- r:
		return false, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// commitInline commits r in its caller's goroutine if a committer's
// place is free, and reports whether it did.
func (g *groupWriter) commitInline(r *writeReq) bool {
	select {
	case g.places <- struct{}{}:
	default:
		return false
	}
	defer func() { <-g.places }()
	r.state.Store(reqTaken)
	if g.hooks.taken != nil {
		g.hooks.taken()
	}
	g.commit([]*writeReq{r})
	return true
}

// Lingering, the wait of a yielding committer for a larger group.
const (
	// maxLinger bounds the wait: a write waits at most this much more
	// for its commit than it would have.
	maxLinger = time.Millisecond
	// lingerStep is how long the committer sleeps before it looks again.
	lingerStep = 100 * time.Microsecond
)

// run is a committer goroutine.
func (g *groupWriter) run() {
	busy, pause := g.lingerProbes()
	for {
		first, ok := <-g.queue
		if !ok {
			return
		}
		group := take(nil, first)
		if g.hooks.taken != nil {
			g.hooks.taken()
		}
		if g.style == yielding {
			if len(g.queue) == 0 {
				runtime.Gosched()
			}
			if first.ins != nil {
				g.linger(busy, pause)
			}
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
			g.places <- struct{}{}
			g.commit(group)
			<-g.places
		}
		if !open {
			return
		}
	}
}

// lingerProbes returns how a committer tells that the process has more
// work than its processors can run (see saturated), and how it waits a
// step of lingerStep: the runtime's, unless the hooks replace them.
func (g *groupWriter) lingerProbes() (busy func() bool, pause func()) {
	busy, pause = g.hooks.busy, g.hooks.pause
	if busy == nil {
		sched := []metrics.Sample{{Name: "/sched/goroutines/runnable:goroutines"}, {Name: "/sched/gomaxprocs:threads"}}
		busy = func() bool { return saturated(sched) }
	}
	if pause == nil {
		pause = func() { time.Sleep(lingerStep) }
	}
	return busy, pause
}

// linger holds back a committer that has taken the first write of a
// group, a step (pause) at a time, while the process is busy, until
// maxLinger has passed or a group's worth of writes is queued. The writes
// queued meanwhile stay in the queue for the gathering that follows: the
// committer is not woken by each. Otherwise the CPU has room for the
// commit and the writes still to come, and the committer does not wait.
// The steps are counted as well as timed: a sleep may overshoot its step
// on a busy machine, and a test's pause takes no time.
func (g *groupWriter) linger(busy func() bool, pause func()) {
	deadline := time.Now().Add(maxLinger)
	for step := time.Duration(0); step < maxLinger; step += lingerStep {
		if len(g.queue) >= maxGroup-1 || !busy() || !time.Now().Before(deadline) {
			return
		}
		pause()
	}
}

// saturated reports whether at least twice as many goroutines wait for
// a processor as there are processors, from the runtime's approximate
// counts (sched holds the samples of the runnable goroutines and of
// GOMAXPROCS). With a bar of one waiting goroutine, which was common
// with 8 clients of `bench -serve` on 2 processors, they were 5 % slower
// in one of two rounds, and faster in the other; at twice the processors
// they were faster in both, and with 32 clients the groups grew as much.
func saturated(sched []metrics.Sample) bool {
	metrics.Read(sched)
	if sched[0].Value.Kind() != metrics.KindUint64 || sched[1].Value.Kind() != metrics.KindUint64 {
		return false
	}
	return sched[0].Value.Uint64() >= 2*max(1, sched[1].Value.Uint64())
}

// take adds r to group unless its caller gave up on it: a write whose
// caller's context has ended is answered with its error, not run.
func take(group []*writeReq, r *writeReq) []*writeReq {
	if err := r.ctx.Err(); err != nil {
		if r.state.CompareAndSwap(reqQueued, reqCancelled) {
			r.done <- err
		}
		return group
	}
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

// allInsertions reports whether every write of group is an insertion.
func allInsertions(group []*writeReq) bool {
	for _, r := range group {
		if r.ins == nil {
			return false
		}
	}
	return true
}
