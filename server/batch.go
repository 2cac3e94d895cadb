package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// handleCreateBatch takes a batch of requests, as JSONL (one request per
// line) or a JSON array, stores it, and answers 202 with its status; the
// requests are verified in the background. A request that does not decode
// is an item failed from the start, as a bad line of `vouch verify
// --batch` is.
func (s *Server) handleCreateBatch(w http.ResponseWriter, r *http.Request) {
	tenant := tenantOf(r.Context())
	body, err := readBody(r, s.cfg.MaxBatchBytes)
	if err != nil {
		writeInputError(w, err)
		return
	}
	raws, err := splitBatch(body)
	if err != nil {
		writeInputError(w, err)
		return
	}
	if len(raws) == 0 {
		writeError(w, http.StatusBadRequest, string(vouch.ErrMissing), "the batch holds no request")
		return
	}
	if len(raws) > maxBatchItems {
		writeError(w, http.StatusRequestEntityTooLarge, string(vouch.ErrTooLarge), fmt.Sprintf("the batch holds %d requests, over the limit of %d", len(raws), maxBatchItems))
		return
	}
	now := s.now().UTC()
	b := &store.Batch{Tenant: tenant, ID: newID("b-"), State: store.BatchRunning, Total: len(raws), CreatedAt: now}
	items := make([]store.BatchItem, len(raws))
	pending := 0
	for i, raw := range raws {
		it := store.BatchItem{Tenant: tenant, BatchID: b.ID, Index: i, State: store.ItemPending, Request: raw}
		if int64(len(raw)) > s.cfg.MaxRequestBytes {
			it.State, it.Request, it.Error = store.ItemError, nil, wire.ErrorLine(i+1, tooLarge(int64(len(raw)), s.cfg.MaxRequestBytes))
		} else if _, err := wire.DecodeRequest(raw, wire.Options{MaxBytes: s.cfg.MaxRequestBytes, Name: fmt.Sprintf("line %d", i+1)}); err != nil {
			it.State, it.Error = store.ItemError, wire.ErrorLine(i+1, err)
		} else {
			pending++
		}
		items[i] = it
	}
	if s.jobs != nil {
		err = s.jobs.createBatch(r.Context(), b, items)
	} else {
		err = s.st.CreateBatch(r.Context(), b, items)
	}
	if err != nil {
		s.writeStoreError(w, "storing the batch", err)
		return
	}
	if s.batches != nil {
		s.batches.added(pending)
	}
	saved, err := s.st.Batch(r.Context(), tenant, b.ID)
	if err != nil {
		saved = b
	}
	w.Header().Set("Location", "/v1/batches/"+b.ID)
	writeJSON(w, http.StatusAccepted, batchStatus(saved))
}

// splitBatch splits a batch body into its requests: the elements of a
// JSON array, or the non-blank lines of JSONL.
func splitBatch(body []byte) ([][]byte, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var elems []json.RawMessage
		if err := json.Unmarshal(trimmed, &elems); err != nil {
			return nil, &vouch.Error{Code: vouch.ErrSyntax, Message: "the batch is not a valid JSON array: " + err.Error()}
		}
		out := make([][]byte, len(elems))
		for i, e := range elems {
			out[i] = []byte(e)
		}
		return out, nil
	}
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, len(body)+1)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		out = append(out, bytes.Clone(line))
	}
	return out, sc.Err()
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
	jobs    chan store.BatchItem
	wakeC   chan struct{}

	mu       sync.Mutex
	inFlight map[itemKey]bool
	stopC    chan struct{}
	wg       sync.WaitGroup
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

func newBatchPool(s *Server, workers int) *batchPool {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return &batchPool{s: s, workers: workers, jobs: make(chan store.BatchItem), wakeC: make(chan struct{}, 1),
		inFlight: map[itemKey]bool{}, stopC: make(chan struct{})}
}

// added notes new pending items and wakes the dispatcher.
func (p *batchPool) added(n int) {
	p.s.metrics.queueDepth.Set(float64(p.queued.Add(int64(n))))
	p.wake()
}

func (p *batchPool) wake() {
	select {
	case p.wakeC <- struct{}{}:
	default:
	}
}

// start runs the dispatcher and the workers until ctx is done.
func (p *batchPool) start(ctx context.Context) {
	p.wg.Add(1 + p.workers)
	go p.dispatch(ctx)
	for range p.workers {
		go p.work(ctx)
	}
	p.wake() // resume what a previous run left pending
}

// drain stops dispatching, and waits until the items being verified are
// done or ctx is done.
func (p *batchPool) drain(ctx context.Context) {
	close(p.stopC)
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
			sent := 0
			for _, it := range items {
				k := itemKey{it.Tenant, it.BatchID, it.Index}
				p.mu.Lock()
				busy := p.inFlight[k]
				if !busy {
					p.inFlight[k] = true
				}
				p.mu.Unlock()
				if busy {
					continue
				}
				p.busy.Add(1)
				select {
				case p.jobs <- it:
					sent++
				case <-ctx.Done():
					p.busy.Done()
					return
				case <-p.stopC:
					p.done(k)
					p.busy.Done()
					return
				}
			}
			if sent == 0 {
				break // all pending items are being verified; a completion wakes us
			}
		}
	}
}

func (p *batchPool) done(k itemKey) {
	p.mu.Lock()
	delete(p.inFlight, k)
	p.mu.Unlock()
}

func (p *batchPool) work(ctx context.Context) {
	defer p.wg.Done()
	for it := range p.jobs {
		ok := p.verifyItem(ctx, it)
		p.done(itemKey{it.Tenant, it.BatchID, it.Index})
		p.busy.Done()
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
func (s *Server) verifyBatchItem(ctx context.Context, it store.BatchItem) (out itemOutcome) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("batch item panicked", "batch", it.BatchID, "index", it.Index, "panic", r)
			out = itemOutcome{panic: fmt.Sprint(r)}
		}
	}()
	if it.RefID != "" {
		return s.reverifyItem(ctx, it)
	}
	return s.verifyRequestItem(ctx, it)
}

// verifyRequestItem verifies the request a batch item carries.
func (s *Server) verifyRequestItem(ctx context.Context, it store.BatchItem) (out itemOutcome) {
	req, err := wire.DecodeRequest(it.Request, wire.Options{MaxBytes: s.cfg.MaxRequestBytes, Name: fmt.Sprintf("line %d", it.Index+1)})
	if err != nil {
		return itemOutcome{err: wire.ErrorLine(it.Index+1, err)}
	}
	// As for POST /v1/verify, the request's id and attempt are its key:
	// one already logged with this body is not verified again, and one
	// logged with another body is this item's error.
	key, hash := idempotencyKey("", req), hashBody(it.Request)
	if v, err := s.st.ByKey(ctx, it.Tenant, key); err == nil {
		if v.RequestHash != hash {
			return itemOutcome{err: wire.ErrorLine(it.Index+1, &vouch.Error{Code: "idempotency_conflict",
				Message: fmt.Sprintf("verification %s attempt %d is already stored for another request body", v.ID, v.Attempt)})}
		}
		return itemOutcome{row: v}
	}
	rep, err := s.verify(ctx, s.engineFor(req), req)
	if err == nil {
		out.report = rep
		out.row, out.events, err = s.record(it.Tenant, key, hash, it.Request, req, rep)
	}
	if err != nil {
		return itemOutcome{err: wire.ErrorLine(it.Index+1, err)}
	}
	if msg := crashedCheck(rep); msg != "" {
		out.panic = msg
	}
	return out
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

// verifyItem verifies one batch item and completes it in the store,
// reporting whether it did. The pool tries an item once: one that
// crashed is its error.
func (p *batchPool) verifyItem(ctx context.Context, it store.BatchItem) bool {
	s := p.s
	out := s.verifyBatchItem(ctx, it)
	if out.panic != "" {
		out.crashed(it.Index, 1)
	}
	if ctx.Err() != nil {
		return false // cut short by shutdown: the item stays pending
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	if err := out.complete(wctx, s.st, it); err != nil {
		s.log.Error("store: completing a batch item", "batch", it.BatchID, "index", it.Index, "err", err)
		return false // stays pending; the dispatcher's next rescan retries it
	}
	p.dequeued()
	s.completed(it.Tenant, out)
	return true
}

// complete writes the outcome of an item.
func (out *itemOutcome) complete(ctx context.Context, st store.Store, it store.BatchItem) error {
	if out.result != nil {
		return st.CompleteItemResult(ctx, it.Tenant, it.BatchID, it.Index, out.result)
	}
	return st.CompleteItem(ctx, it.Tenant, it.BatchID, it.Index, out.row, out.events, out.err)
}

// completed is what follows a batch item's completion: the metrics of a
// new verification and the wake-up of the event streams.
func (s *Server) completed(tenant string, out itemOutcome) {
	if out.report != nil && out.row != nil {
		s.stored(tenant, out.report)
	} else {
		s.hub.notify(tenant)
	}
}
