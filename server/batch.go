package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/wire"
)

// maxBatchItems bounds the requests of one batch.
const maxBatchItems = 1_000_000

func batchStatus(b *store.Batch) api.BatchStatus {
	st := api.BatchStatus{ID: b.ID, State: b.State, Total: b.Total, Done: b.Done, Failed: b.Failed,
		Pending: b.Total - b.Done - b.Failed, CreatedAt: b.CreatedAt.UTC(), Results: "/v1/batches/" + b.ID + "/results"}
	if !b.FinishedAt.IsZero() {
		t := b.FinishedAt.UTC()
		st.FinishedAt = &t
	}
	return st
}

// Chunks of an upload: a batch is stored as its body arrives, up to
// batchChunkItems items or batchChunkBytes bytes of requests at a time,
// whichever comes first, each chunk in a short transaction of its own,
// so that an upload holds no more than a chunk and a line in memory, and
// no write transaction while it reads the client's bytes.
const (
	batchChunkItems = 1000
	batchChunkBytes = 2 << 20
)

// An upload that did not finish (its process ended mid-way) leaves a
// loading batch that nothing shows or works. It is deleted once no chunk
// was written to it for loadingStale, or for twice the longest a request
// may take to read (Timeouts.Read), whichever is longer, so that no live
// upload is taken for one; loading batches are looked for when the
// batch runner starts and every loadingSweepGap.
const (
	loadingStale    = time.Hour
	loadingSweepGap = time.Hour
)

// batchHook, when set (by tests, before the server starts), is called by
// an upload after each chunk it stored ("stored", while it still holds
// the chunk) and after it deleted its unfinished batch ("aborted").
var batchHook func(event, tenant, id string)

// handleCreateBatch takes a batch of requests, as JSONL (one request per
// line) or a JSON array, stores it, and answers 202 with its status; the
// requests are verified in the background. A request that does not decode
// is an item failed from the start, as a bad line of `vouch verify
// --batch` is.
//
// The body is read as it arrives, each request decoded on its own, and
// stored a chunk at a time (see batchChunkItems) in a batch that stays
// loading, shown to no one and worked by nothing, until its last chunk is
// stored; then it turns running in one transaction. A body that fails
// (a read error, over its limit, an array that does not parse) or a store
// that fails mid-way deletes what was stored of it. A batch that fits in
// one chunk is written in one transaction, as a whole.
func (s *Server) handleCreateBatch(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > s.cfg.MaxBatchBytes {
		writeInputError(w, tooLarge(r.ContentLength, s.cfg.MaxBatchBytes))
		return
	}
	up := &batchUpload{s: s, ctx: r.Context(),
		b: &store.Batch{Tenant: tenantOf(r.Context()), ID: newID("b-"), State: store.BatchRunning, CreatedAt: s.now().UTC()}}
	in := newBatchReader(&limitedBody{r: r.Body, left: s.cfg.MaxBatchBytes, max: s.cfg.MaxBatchBytes}, s.cfg.MaxRequestBytes)
	for {
		raw, size, err := in.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			up.abort()
			var ve *vouch.Error
			if !errors.As(err, &ve) {
				err = bodyError(err)
			}
			writeInputError(w, err)
			return
		}
		if up.n == maxBatchItems {
			up.abort()
			writeError(w, http.StatusRequestEntityTooLarge, string(vouch.ErrTooLarge), fmt.Sprintf("the batch holds more than %d requests, the limit", maxBatchItems))
			return
		}
		if err := up.add(raw, size); err != nil {
			up.abort()
			s.writeStoreError(w, "storing the batch", err)
			return
		}
	}
	if up.n == 0 {
		writeError(w, http.StatusBadRequest, string(vouch.ErrMissing), "the batch holds no request")
		return
	}
	saved, err := up.finish()
	if err != nil {
		up.abort()
		s.writeStoreError(w, "storing the batch", err)
		return
	}
	if s.batches != nil {
		s.batches.added(up.pending, saved.Tenant, saved.ID)
	}
	w.Header().Set("Location", "/v1/batches/"+saved.ID)
	writeJSON(w, http.StatusAccepted, batchStatus(saved))
}

// batchUpload is a batch being stored as its body is read.
type batchUpload struct {
	s   *Server
	ctx context.Context
	b   *store.Batch
	// begun: the batch is stored, loading, with the chunks written so
	// far.
	begun bool
	// chunk holds the items not yet written, bytes the size of their
	// requests and errors.
	chunk []store.BatchItem
	bytes int
	// n counts the items, pending those born pending.
	n, pending int
}

// add makes the next item of the batch from a request (nil for one over
// the limit, of the given size), writing the chunk when it is full.
func (u *batchUpload) add(raw []byte, size int64) error {
	max := u.s.cfg.MaxRequestBytes
	it := store.BatchItem{Tenant: u.b.Tenant, BatchID: u.b.ID, Index: u.n, State: store.ItemPending}
	if raw == nil {
		it.State, it.Error = store.ItemError, wire.ErrorLine(u.n+1, tooLarge(size, max))
	} else {
		it.Request = bytes.Clone(raw)
		if _, err := wire.DecodeRequest(raw, wire.Options{MaxBytes: max, Name: fmt.Sprintf("line %d", u.n+1)}); err != nil {
			it.State, it.Error = store.ItemError, wire.ErrorLine(u.n+1, err)
		} else {
			u.pending++
		}
	}
	u.chunk = append(u.chunk, it)
	u.bytes += len(it.Request) + len(it.Error)
	u.n++
	if len(u.chunk) >= batchChunkItems || u.bytes >= batchChunkBytes {
		return u.flush()
	}
	return nil
}

// flush writes the chunk to the loading batch, beginning it first when
// this is the first chunk.
func (u *batchUpload) flush() error {
	st := u.s.st
	if !u.begun {
		if err := st.BeginBatch(u.ctx, u.b); err != nil {
			return err
		}
		u.begun = true
	}
	if err := st.AppendItems(u.ctx, u.b.Tenant, u.b.ID, u.chunk); err != nil {
		return err
	}
	if batchHook != nil {
		batchHook("stored", u.b.Tenant, u.b.ID)
	}
	clear(u.chunk) // let go of the requests
	u.chunk, u.bytes = u.chunk[:0], 0
	return nil
}

// finish stores what is left of the batch and makes it visible, to be
// worked, returning it with its counts.
func (u *batchUpload) finish() (*store.Batch, error) {
	s := u.s
	if !u.begun {
		// All in one chunk: one transaction, the jobs with it.
		var err error
		if s.jobs != nil {
			err = s.jobs.createBatch(u.ctx, u.b, u.chunk)
		} else {
			err = s.st.CreateBatch(u.ctx, u.b, u.chunk)
		}
		if err != nil {
			return nil, err
		}
		if saved, err := s.st.Batch(u.ctx, u.b.Tenant, u.b.ID); err == nil {
			return saved, nil
		}
		return u.b, nil
	}
	if len(u.chunk) > 0 {
		if err := u.flush(); err != nil {
			return nil, err
		}
	}
	if s.jobs != nil {
		return s.jobs.commitBatch(u.ctx, u.b.Tenant, u.b.ID)
	}
	return s.st.CommitBatch(u.ctx, u.b.Tenant, u.b.ID)
}

// abort deletes what was stored of an upload that failed. The client
// may be gone: the deletion does not depend on its request. Should it
// fail, the batch stays loading, unseen, until the sweep of loading
// batches deletes it.
func (u *batchUpload) abort() {
	if !u.begun {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(u.ctx), storeTimeout)
	defer cancel()
	if err := u.s.st.AbortBatch(ctx, u.b.Tenant, u.b.ID); err != nil {
		u.s.log.Error("store: deleting an unfinished batch", "batch", u.b.ID, "err", err)
		return
	}
	if batchHook != nil {
		batchHook("aborted", u.b.Tenant, u.b.ID)
	}
}

// loadingAge is how long a loading batch goes without a chunk written
// before it is taken for one whose upload will never finish.
func (s *Server) loadingAge() time.Duration {
	return max(loadingStale, 2*time.Duration(s.cfg.Timeouts.Read))
}

// sweepLoading deletes the loading batches not written to for age: those
// of uploads whose process ended before they finished.
func (s *Server) sweepLoading(ctx context.Context, age time.Duration) {
	n, err := s.st.PruneLoading(ctx, age)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Error("store: deleting the batches of unfinished uploads", "err", err)
		}
		return
	}
	if n > 0 {
		s.log.Info("deleted the batches of uploads that never finished", "batches", n)
	}
}

// sweepLoadingEvery runs sweepLoading at once, then every
// loadingSweepGap until ctx is done.
func (s *Server) sweepLoadingEvery(ctx context.Context) {
	tick := time.NewTicker(loadingSweepGap)
	defer tick.Stop()
	for {
		s.sweepLoading(ctx, s.loadingAge())
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func (s *Server) handleGetBatch(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("format") == "jsonl" || strings.Contains(r.Header.Get("Accept"), "application/jsonl") {
		s.handleBatchResults(w, r)
		return
	}
	b, ok := s.findBatch(w, r)
	if ok {
		writeJSON(w, http.StatusOK, batchStatus(b))
	}
}

func (s *Server) findBatch(w http.ResponseWriter, r *http.Request) (*store.Batch, bool) {
	b, err := s.st.Batch(r.Context(), tenantOf(r.Context()), r.PathValue("id"))
	if errors.Is(err, store.ErrNotFound) {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no batch %q", truncate(r.PathValue("id"), 80)))
		return nil, false
	}
	if err != nil {
		s.writeStoreError(w, "reading the batch", err)
		return nil, false
	}
	return b, true
}

// handleBatchResults streams a batch's results as JSONL in input order:
// the report of each verified item, {"line": N, "error": {...}} for a
// failed one, and {"line": N, "pending": true} for one not yet verified.
func (s *Server) handleBatchResults(w http.ResponseWriter, r *http.Request) {
	b, ok := s.findBatch(w, r)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "application/jsonl")
	w.Header().Set("X-Batch-State", b.State)
	bw := bufio.NewWriterSize(w, 64<<10)
	err := s.st.BatchResults(r.Context(), b.Tenant, b.ID, func(it store.BatchItem, result []byte) error {
		if result == nil {
			result = fmt.Appendf(nil, `{"line":%d,"pending":true}`, it.Index+1)
		}
		bw.Write(result)
		return bw.WriteByte('\n')
	})
	if err != nil && r.Context().Err() == nil {
		s.log.Error("store: reading batch results", "batch", b.ID, "err", err)
		return // the body is cut short; the client sees fewer lines than total
	}
	bw.Flush()
}

// batchPool verifies pending batch items in the background with a bounded
// number of workers. Items are read back from the store, so a batch
// survives a restart: what was pending is verified after it.
type batchPool struct {
	s       *Server
	workers int
	// jobs carries runs of pending items to the workers (see poolRun).
	jobs  chan []store.BatchItem
	wakeC chan struct{}

	mu       sync.Mutex
	inFlight map[itemKey]bool
	// own holds the batches this process made and that have pending
	// items: only theirs are verified in runs (see dispatch).
	own   map[batchKey]bool
	stopC chan struct{}
	wg    sync.WaitGroup
	// busy counts the items handed to workers and not yet finished.
	busy sync.WaitGroup
	// queued counts the items made pending by this process and not yet
	// completed: the queue-depth gauge. Items a previous run left pending
	// are verified but not counted (the gauge never goes below zero).
	queued atomic.Int64
}

// dequeued counts a completed item off the queue-depth gauge.
func (p *batchPool) dequeued() {
	for {
		n := p.queued.Load()
		if n == 0 {
			return
		}
		if p.queued.CompareAndSwap(n, n-1) {
			p.s.metrics.queueDepth.Set(float64(n - 1))
			return
		}
	}
}

type itemKey struct {
	tenant, batch string
	index         int
}

// batchKey names a batch.
type batchKey struct{ tenant, id string }

func newBatchPool(s *Server, workers int) *batchPool {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return &batchPool{s: s, workers: workers, jobs: make(chan []store.BatchItem), wakeC: make(chan struct{}, 1),
		inFlight: map[itemKey]bool{}, own: map[batchKey]bool{}, stopC: make(chan struct{})}
}

// added notes the new pending items of a batch this process made, and
// wakes the dispatcher.
func (p *batchPool) added(n int, tenant, id string) {
	p.mu.Lock()
	p.own[batchKey{tenant, id}] = true
	p.mu.Unlock()
	p.s.metrics.queueDepth.Set(float64(p.queued.Add(int64(n))))
	p.wake()
}

// forgetDone drops from own the batches none of whose items is pending,
// given every pending item (a page shorter than dispatchPage); p.mu is
// held.
func (p *batchPool) forgetDone(pending []store.BatchItem) {
	left := map[batchKey]bool{}
	for _, it := range pending {
		left[batchKey{it.Tenant, it.BatchID}] = true
	}
	for b := range p.own {
		if !left[b] {
			delete(p.own, b)
		}
	}
}

// hold counts n items handed to the workers as busy, unless drain has
// begun: drain closes stopC under mu, so no count is added once it may be
// waiting for busy to reach zero.
func (p *batchPool) hold(n int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopping() {
		return false
	}
	p.busy.Add(n)
	return true
}

// stopping reports whether drain has begun.
func (p *batchPool) stopping() bool {
	select {
	case <-p.stopC:
		return true
	default:
		return false
	}
}

func (p *batchPool) wake() {
	select {
	case p.wakeC <- struct{}{}:
	default:
	}
}

// start runs the dispatcher and the workers, and sweeps the batches of
// unfinished uploads, until ctx is done.
func (p *batchPool) start(ctx context.Context) {
	p.wg.Add(2 + p.workers)
	go p.dispatch(ctx)
	go func() {
		defer p.wg.Done()
		p.s.sweepLoadingEvery(ctx)
	}()
	for range p.workers {
		go p.work(ctx)
	}
	p.wake() // resume what a previous run left pending
}

// drain stops dispatching, and waits until the items being verified are
// done or ctx is done.
func (p *batchPool) drain(ctx context.Context) {
	// Under mu, so that no hold counts an item once busy may be waited on.
	p.mu.Lock()
	close(p.stopC)
	p.mu.Unlock()
	idle := make(chan struct{})
	go func() {
		p.busy.Wait()
		close(idle)
	}()
	select {
	case <-idle:
	case <-ctx.Done():
	}
}

func (p *batchPool) wait() { p.wg.Wait() }

// dispatchPage is how many pending items the dispatcher reads at once.
const dispatchPage = 256

// rescanGap is how often the dispatcher looks for pending items unasked:
// items whose completion failed (the store was down) are retried then.
const rescanGap = 10 * time.Second

func (p *batchPool) dispatch(ctx context.Context) {
	defer p.wg.Done()
	defer close(p.jobs)
	rescan := time.NewTicker(rescanGap)
	defer rescan.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.stopC:
			return
		case <-p.wakeC:
		case <-rescan.C:
		}
		for {
			items, err := p.s.st.PendingItems(ctx, dispatchPage)
			if err != nil {
				if ctx.Err() == nil {
					p.s.log.Error("store: reading pending batch items", "err", err)
				}
				break
			}
			// The items of batches this process made go in runs; those
			// left pending by an earlier process go one at a time, each
			// completed on its own: one of them may be a request that
			// ends the process, and a run's items are completed together
			// at its end, so its run would be lost, and run again, on
			// every restart, and the batch make no progress.
			var fresh, alone []store.BatchItem
			p.mu.Lock()
			for _, it := range items {
				if k := (itemKey{it.Tenant, it.BatchID, it.Index}); !p.inFlight[k] {
					p.inFlight[k] = true
					if p.own[batchKey{it.Tenant, it.BatchID}] {
						fresh = append(fresh, it)
					} else {
						alone = append(alone, it)
					}
				}
			}
			if len(items) < dispatchPage {
				p.forgetDone(items)
			}
			p.mu.Unlock()
			if len(fresh) == 0 && len(alone) == 0 {
				break // all pending items are being verified; a completion wakes us
			}
			var runs [][]store.BatchItem
			for _, it := range alone {
				runs = append(runs, []store.BatchItem{it})
			}
			for per := poolRun(len(fresh), p.workers); len(fresh) > 0; fresh = fresh[min(per, len(fresh)):] {
				runs = append(runs, fresh[:min(per, len(fresh))])
			}
			for k, run := range runs {
				held := p.hold(len(run))
				if held {
					select {
					case p.jobs <- run:
						continue
					case <-ctx.Done():
					case <-p.stopC:
					}
				}
				for _, left := range runs[k:] {
					p.release(left)
				}
				if held {
					for range run {
						p.busy.Done()
					}
				}
				return
			}
		}
	}
}

// poolRun is how many items one of a pool's workers verifies and
// completes together, of n fresh ones: up to maxRunItems, so that their
// completions share a transaction (on SQLite a sync of its log, where
// each item's own had capped a batch at about 1,100 items a second), and
// few enough that every worker has runs to verify.
func poolRun(n, workers int) int { return max(1, min(maxRunItems, n/(4*max(workers, 1)))) }

// release gives back items handed to the workers and not verified: no
// longer in flight, and found pending again by the dispatcher's next
// look.
func (p *batchPool) release(items []store.BatchItem) {
	p.mu.Lock()
	for _, it := range items {
		delete(p.inFlight, itemKey{it.Tenant, it.BatchID, it.Index})
	}
	p.mu.Unlock()
}

func (p *batchPool) work(ctx context.Context) {
	defer p.wg.Done()
	for run := range p.jobs {
		ok := p.verifyRun(ctx, run)
		p.release(run)
		for range run {
			p.busy.Done()
		}
		if ok {
			p.wake()
		}
	}
}

// itemOutcome is what verifying a batch item came to: a row to store
// (with its events, and the report when it is new), or the item's error.
type itemOutcome struct {
	row    *store.Verification
	events []store.Event
	report *vouch.Report
	err    []byte
	// result is the result of an item of a re-verification batch.
	result []byte
	// panic is set when the verification panicked, or a check crashed
	// (CHECK_PANICKED); a job queue may try again, and crashed makes it
	// the item's error.
	panic string
}

// verifyBatchItem verifies one batch item: the request it carries, or
// in a re-verification batch the stored verification it names. A panic
// is the outcome's, never the process's end.
func (s *Server) verifyBatchItem(ctx context.Context, it store.BatchItem) itemOutcome {
	return s.verifyItemWith(ctx, it, nil)
}

// verifyItemWith is verifyBatchItem of an item whose request was decoded
// and its key looked up already (pre), with others' (a run's); nil: not
// yet.
func (s *Server) verifyItemWith(ctx context.Context, it store.BatchItem, pre *itemRequest) (out itemOutcome) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("batch item panicked", "batch", it.BatchID, "index", it.Index, "panic", r)
			out = itemOutcome{panic: fmt.Sprint(r)}
		}
	}()
	if it.RefID != "" {
		return s.reverifyItem(ctx, it)
	}
	if pre == nil {
		d := s.decodeItem(it)
		if d.out == nil {
			d.stored, _ = s.st.ByKey(ctx, it.Tenant, d.key)
		}
		pre = &d
	}
	return s.verifyRequestItem(ctx, it, pre)
}

// itemRequest is the request of a batch item, decoded, with its
// idempotency key and hash and the verification stored under its key
// (nil: none, or the lookup failed; one stored after the lookup is found
// by the write, which makes it the item's report, or its
// idempotency_conflict when it is another request's: see completion);
// or, for a request that does not decode, the item's outcome.
type itemRequest struct {
	req       *vouch.Request
	key, hash string
	stored    *store.Verification
	out       *itemOutcome
}

// decodeItem decodes a batch item's request.
func (s *Server) decodeItem(it store.BatchItem) itemRequest {
	req, err := wire.DecodeRequest(it.Request, wire.Options{MaxBytes: s.cfg.MaxRequestBytes, Name: fmt.Sprintf("line %d", it.Index+1)})
	if err != nil {
		return itemRequest{out: &itemOutcome{err: wire.ErrorLine(it.Index+1, err)}}
	}
	// As for POST /v1/verify, the request's id and attempt are its key:
	// one already logged with this body under this policy is not verified
	// again, and one logged with another body, or under another policy,
	// is this item's error.
	return itemRequest{req: req, key: idempotencyKey("", req), hash: s.requestHash(it.Request)}
}

// decodeItemSafely is decodeItem, nil should the decoder crash.
func (s *Server) decodeItemSafely(it store.BatchItem) (d *itemRequest) {
	defer func() {
		if recover() != nil {
			d = nil
		}
	}()
	r := s.decodeItem(it)
	return &r
}

// verifyRequestItem verifies the request a batch item carries, decoded
// and looked up.
func (s *Server) verifyRequestItem(ctx context.Context, it store.BatchItem, d *itemRequest) (out itemOutcome) {
	if d.out != nil {
		return *d.out
	}
	if v := d.stored; v != nil {
		if line := conflictLine(it.Index, v, d.hash); line != nil {
			return itemOutcome{err: line}
		}
		return itemOutcome{row: v}
	}
	rep, err := s.verify(ctx, s.engineFor(d.req), d.req)
	if err == nil {
		out.report = rep
		out.row, out.events, err = s.record(it.Tenant, d.key, d.hash, it.Request, d.req, rep)
	}
	if err != nil {
		return itemOutcome{err: wire.ErrorLine(it.Index+1, err)}
	}
	if msg := crashedCheck(rep); msg != "" {
		out.panic = msg
	}
	return out
}

// conflictLine is the error line of the batch item at index when v,
// stored under its key, is another request's than the one hashed hash
// (its idempotency_conflict); nil when v is its replay.
func conflictLine(index int, v *store.Verification, hash string) []byte {
	if _, err := replay(v, hash); err != nil {
		return wire.ErrorLine(index+1, &vouch.Error{Code: "idempotency_conflict", Message: err.Error()})
	}
	return nil
}

// crashedCheck returns the message of a check of rep that crashed
// (CHECK_PANICKED), "" when none did.
func crashedCheck(rep *vouch.Report) string {
	for _, c := range rep.Checks {
		if c.Code == vouch.CodeCheckPanicked {
			return c.Reason
		}
	}
	return ""
}

// crashed turns an outcome whose verification crashed into the item's
// error, after the given number of attempts: a batch item that crashed
// is not a report (its verdict would rest on a check that never ran) but
// a failure an operator sees in the batch's counts.
func (out *itemOutcome) crashed(index, attempts int) {
	msg := fmt.Sprintf("the verification crashed: %s", out.panic)
	if attempts > 1 {
		msg = fmt.Sprintf("the verification crashed on each of %d attempts, the last with: %s", attempts, out.panic)
	}
	*out = itemOutcome{panic: out.panic, err: wire.ErrorLine(index+1, &vouch.Error{Code: vouch.ErrInternal, Message: msg})}
}

// verifyRun verifies a run of batch items, one after another, and
// completes those it verified in the store in one transaction (each on
// its own should that fail), reporting whether it completed any. After
// runSlice, or once the pool is draining, it takes no new item: those
// left stay pending, for the dispatcher's next look. The pool tries an
// item once: one that crashed is its error. Two items of a run with one
// key are written in turn, and the second is the first's replay or its
// idempotency_conflict (see completion).
func (p *batchPool) verifyRun(ctx context.Context, run []store.BatchItem) bool {
	s := p.s
	var (
		outs []itemOutcome
		cs   []store.Completion
		of   []store.BatchItem
	)
	stop := time.Now().Add(runSlice)
	for k, it := range run {
		if k > 0 && (time.Now().After(stop) || p.stopping()) {
			break
		}
		var pre *itemRequest
		if it.RefID == "" {
			if pre = s.decodeItemSafely(it); pre != nil && pre.out == nil {
				pre.stored, _ = s.st.ByKey(ctx, it.Tenant, pre.key)
			}
		}
		out := s.verifyItemWith(ctx, it, pre)
		if out.panic != "" {
			out.crashed(it.Index, 1)
		}
		if ctx.Err() != nil {
			break // cut short by shutdown: the item stays pending
		}
		outs, of = append(outs, out), append(of, it)
		cs = append(cs, out.completion(it.Tenant, it.BatchID, it.Index))
	}
	if len(cs) == 0 {
		return false
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	done := make([]bool, len(cs))
	if err := s.st.CompleteItems(wctx, cs); err == nil {
		for k := range done {
			done[k] = true
		}
	} else {
		s.log.Error("store: completing batch items", "batch", of[0].BatchID, "first", of[0].Index, "items", len(cs), "err", err)
		// One item the store refuses must not hold back the rest: each
		// on its own, then. Those that fail stay pending; the
		// dispatcher's next rescan retries them.
		for k := range cs {
			if len(cs) > 1 {
				if err := s.st.CompleteItems(wctx, cs[k:k+1]); err != nil {
					s.log.Error("store: completing a batch item", "batch", of[k].BatchID, "index", of[k].Index, "err", err)
				} else {
					done[k] = true
				}
			}
		}
	}
	wrote := false
	for k, out := range outs {
		if done[k] {
			p.dequeued()
			s.completed(of[k].Tenant, out)
			wrote = true
		}
	}
	return wrote
}

// completion is the store's completion of an item with this outcome: a
// re-verification's result, else the verification or the error.
func (out *itemOutcome) completion(tenant, batchID string, index int) store.Completion {
	c := store.Completion{Tenant: tenant, BatchID: batchID, Index: index}
	if out.result != nil {
		c.Result = out.result
	} else {
		c.Verification, c.Events, c.Error = out.row, out.events, out.err
	}
	if out.report != nil && out.row != nil {
		// A new verification whose key the write finds stored (a copy
		// of the request verified at the same time): another request's
		// is this item's idempotency_conflict, as for POST /v1/verify.
		hash := out.row.RequestHash
		c.Conflict = func(stored *store.Verification) []byte { return conflictLine(index, stored, hash) }
	}
	return c
}

// completed is what follows a batch item's completion: the metrics of a
// new verification and the wake-up of the event streams. A verification
// the completion did not write (its Seq still 0: another try of the job
// completed the item first, or it was stored already) is not counted
// again.
func (s *Server) completed(tenant string, out itemOutcome) {
	if out.report != nil && out.row != nil && out.row.Seq != 0 {
		s.stored(tenant, out.report)
	} else {
		s.hub.notify(tenant)
	}
}
