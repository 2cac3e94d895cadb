package server

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/store/storetest"
)

func init() {
	// A check that crashes: the poison of the job queue's tests.
	check.Register(check.Type{Name: "test.crash", Strength: vouch.StrengthStrict, Doc: "panics",
		New: func(vouch.CheckSpec, check.Env) (vouch.Checker, error) { return crashChecker{}, nil }})
	check.Register(check.Type{Name: "test.block", Strength: vouch.StrengthStrict, Doc: "blocks its first run until cancelled",
		New: func(vouch.CheckSpec, check.Env) (vouch.Checker, error) { return blockChecker{}, nil }})
}

type crashChecker struct{}

func (crashChecker) Check(context.Context, *vouch.Subject) vouch.Outcome { panic("poison") }

// blocking is the state of the test.block check: the first verification
// that runs it signals entered and waits until its context is done; the
// others pass at once.
var blocking = struct {
	once    atomic.Bool
	entered chan struct{}
}{entered: make(chan struct{})}

type blockChecker struct{}

func (blockChecker) Check(ctx context.Context, _ *vouch.Subject) vouch.Outcome {
	if blocking.once.CompareAndSwap(false, true) {
		close(blocking.entered)
		<-ctx.Done()
	}
	return vouch.Pass("went on", nil)
}

// blockRequest is a request whose check blocks (see blocking).
func blockRequest(id string) []byte {
	return fmt.Appendf(nil, `{"id":%q,"task":{"goal":"g","criteria":[{"id":"c","check":{"type":"test.block"}}]},"output":{"summary":"DONE"}}`, id)
}

// crashRequest is a request one of whose checks crashes.
func crashRequest(id string) []byte {
	return fmt.Appendf(nil, `{"id":%q,"task":{"goal":"g","criteria":[{"id":"c","check":{"type":"test.crash"}}]},"output":{"summary":"DONE"}}`, id)
}

// queueEnv is a test server on a PostgreSQL schema of its own.
func queueEnv(t *testing.T, mut func(*Config)) (*testEnv, string) {
	t.Helper()
	dsn := storetest.PostgresSchema(t, storetest.PostgresServer(t))
	return newEnvOn(t, dsn, mut), dsn
}

// settledJobStates stops the server's job queue, which waits for River
// to write the completions of the jobs it worked (it writes them after
// the items', a batch at a time), and counts the jobs of one item each
// by state.
func settledJobStates(t *testing.T, e *testEnv) map[string]int {
	t.Helper()
	e.srv.jobs.drain(t.Context())
	return jobStates(t, e.store, itemArgs{}.Kind())
}

// jobStates counts the jobs of a kind in a store by state.
func jobStates(t *testing.T, st store.Store, kind string) map[string]int {
	t.Helper()
	rows, err := st.(store.Queue).Pool().Query(t.Context(), `SELECT state, count(*) FROM river_job WHERE kind = $1 GROUP BY state`, kind)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			t.Fatal(err)
		}
		out[s] = n
	}
	return out
}

// TestQueueBatch: on PostgreSQL a batch is one job per pending item,
// inserted with it, and each item's report is written once.
func TestQueueBatch(t *testing.T) {
	e, _ := queueEnv(t, func(c *Config) { c.BatchWorkers = 3 })
	if e.srv.jobs == nil {
		t.Fatal("a server on PostgreSQL has no job queue")
	}
	var body strings.Builder
	for i := range 20 {
		fmt.Fprintf(&body, "%s\n", request(fmt.Sprintf("q%d", i), 1, "DONE"))
	}
	body.WriteString("{not json\n")
	res := e.do("POST", "/v1/batches", "", []byte(body.String()))
	if res.status != 202 {
		t.Fatalf("%d %s", res.status, res.body)
	}
	st := e.waitBatch(DefaultTenant, "", decode[api.BatchStatus](t, res.body).ID)
	if st.Done != 20 || st.Failed != 1 {
		t.Fatalf("batch: %+v", st)
	}
	if got := settledJobStates(t, e); got["completed"] != 20 || len(got) != 1 {
		t.Errorf("jobs by state: %v, want 20 completed (the bad line has none)", got)
	}
	page, err := e.store.List(t.Context(), DefaultTenant, store.Filter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 20 {
		t.Errorf("%d reports stored, want 20", len(page.Items))
	}
}

// TestQueuePoison: a request that crashes its verification is tried
// Queue.Attempts times, then ends as its item's error; the batch ends.
func TestQueuePoison(t *testing.T) {
	e, _ := queueEnv(t, func(c *Config) {
		c.Queue.Attempts = 3
		c.Queue.RetryBackoff = vouch.Duration(time.Millisecond)
	})
	body := fmt.Appendf(nil, "%s\n%s\n%s\n", request("ok1", 1, "DONE"), crashRequest("poison"), request("ok2", 1, "DONE"))
	res := e.do("POST", "/v1/batches", "", body)
	if res.status != 202 {
		t.Fatalf("%d %s", res.status, res.body)
	}
	id := decode[api.BatchStatus](t, res.body).ID
	st := e.waitBatch(DefaultTenant, "", id)
	if st.Done != 2 || st.Failed != 1 {
		t.Fatalf("batch: %+v", st)
	}
	lines := strings.Split(strings.TrimSpace(string(e.do("GET", "/v1/batches/"+id+"/results", "", nil).body)), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], `"line":2`) || !strings.Contains(lines[1], "crashed on each of 3 attempts") {
		t.Errorf("results:\n%s", strings.Join(lines, "\n"))
	}
	if got := settledJobStates(t, e); got["completed"] != 3 || len(got) != 1 {
		t.Errorf("jobs by state: %v, want 3 completed", got)
	}
	var attempts int
	if err := e.store.(store.Queue).Pool().QueryRow(t.Context(), `SELECT attempt FROM river_job WHERE args->>'index' = '1'`).Scan(&attempts); err != nil || attempts != 3 {
		t.Errorf("the poison's job was tried %d times (%v), want 3", attempts, err)
	}
}

// checkJobs stops the server's job queue (see settledJobStates) and
// checks that runs jobs of runs of items and items jobs of one item were
// inserted, and all completed.
func checkJobs(t *testing.T, e *testEnv, runs, items int) {
	t.Helper()
	e.srv.jobs.drain(t.Context())
	for _, c := range []struct {
		kind string
		want int
	}{{runArgs{}.Kind(), runs}, {itemArgs{}.Kind(), items}} {
		got := jobStates(t, e.store, c.kind)
		if c.want == 0 && len(got) == 0 {
			continue
		}
		if got["completed"] != c.want || len(got) != 1 {
			t.Errorf("%s jobs by state: %v, want %d completed", c.kind, got, c.want)
		}
	}
}

// postBatchOf posts the requests as a batch and waits until it is done.
func postBatchOf(e *testEnv, reqs ...[]byte) api.BatchStatus {
	e.t.Helper()
	var body []byte
	for _, r := range reqs {
		body = append(append(body, r...), '\n')
	}
	res := e.do("POST", "/v1/batches", "", body)
	if res.status != 202 {
		e.t.Fatalf("%d %s", res.status, res.body)
	}
	return e.waitBatch(DefaultTenant, "", decode[api.BatchStatus](e.t, res.body).ID)
}

// requests returns n requests, with ids prefix0, prefix1...
func requests(prefix string, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = request(fmt.Sprintf("%s%d", prefix, i), 1, "DONE")
	}
	return out
}

// checkReportsOnce fails unless the store holds n verifications, each
// once.
func checkReportsOnce(t *testing.T, st store.Store, n int) {
	t.Helper()
	var rows, ids int
	if err := st.(store.Queue).Pool().QueryRow(t.Context(), `SELECT count(*), count(DISTINCT id) FROM verification_logs`).Scan(&rows, &ids); err != nil {
		t.Fatal(err)
	}
	if rows != n || ids != n {
		t.Errorf("%d verification rows of %d requests, want %d of %d", rows, ids, n, n)
	}
}

// TestQueueRuns: a large batch is cut into jobs of runs of items, each
// run's items verified by one job and completed together.
func TestQueueRuns(t *testing.T) {
	e, _ := queueEnv(t, func(c *Config) { c.Queue.runItems = func(int) int { return 4 } })
	reqs := append(requests("r", 19), []byte("{not json"), request("r19", 1, "DONE"))
	st := postBatchOf(e, reqs...)
	if st.Done != 20 || st.Failed != 1 {
		t.Fatalf("batch: %+v", st)
	}
	// The pending items are 0-18 and 20: five runs, the last [16, 21).
	checkJobs(t, e, 5, 0)
	checkReportsOnce(t, e.store, 20)
	// Each item done points at its verification, which holds its request
	// from then on.
	var kept, linked int
	if err := e.store.(store.Queue).Pool().QueryRow(t.Context(), `SELECT count(*) FILTER (WHERE i.request IS NOT NULL), count(v.id)
		FROM batch_items i LEFT JOIN verification_logs v ON v.tenant = i.tenant AND v.id = i.verification_id AND v.attempt = i.attempt
		WHERE i.state = 'done'`).Scan(&kept, &linked); err != nil || kept != 0 || linked != 20 {
		t.Errorf("of the items done, %d keep their request and %d point at their verification (%v); want 0 and 20", kept, linked, err)
	}
	// The metrics count each verification once.
	var counted float64
	for line := range strings.SplitSeq(string(e.do("GET", "/metrics", "", nil).body), "\n") {
		if series, v, ok := strings.Cut(line, " "); ok && strings.HasPrefix(series, "vouch_verifications_total{") {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			counted += n
		}
	}
	if counted != 20 {
		t.Errorf("vouch_verifications_total sums to %v, want 20", counted)
	}
	// Each run's reads and completion are timed as store operations.
	metrics := e.do("GET", "/metrics", "", nil).body
	for _, op := range []string{"pending_range", "by_keys", "complete_items"} {
		if n, _ := metricValue(t, metrics, `vouch_store_duration_seconds_count{op="`+op+`"}`); n < 5 {
			t.Errorf("%v %s operations timed, want one a run at least (5)", n, op)
		}
	}
}

// TestQueueRunStored: a run's requests logged already are looked up
// together: one with the same body is its stored verification, not
// verified again; one with another body is its item's
// idempotency_conflict.
func TestQueueRunStored(t *testing.T) {
	e, _ := queueEnv(t, func(c *Config) { c.Queue.runItems = func(n int) int { return max(1, n) } })
	if st := postBatchOf(e, request("seen", 1, "DONE")); st.Done != 1 {
		t.Fatalf("first batch: %+v", st)
	}
	st := postBatchOf(e, request("seen", 1, "DONE"), request("new", 1, "DONE"), request("seen", 1, "DONE, said otherwise"))
	if st.Done != 2 || st.Failed != 1 {
		t.Fatalf("batch: %+v", st)
	}
	lines := strings.Split(strings.TrimSpace(string(e.do("GET", "/v1/batches/"+st.ID+"/results", "", nil).body)), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"seen"`) || !strings.Contains(lines[2], "idempotency_conflict") {
		t.Errorf("results:\n%s", strings.Join(lines, "\n"))
	}
	// The first batch's item, the second batch's run.
	checkJobs(t, e, 1, 1)
	checkReportsOnce(t, e.store, 2)
}

// TestQueueRunTwins: two requests of one run with one id and attempt
// but different bodies: the second, written after the first, is its
// item's idempotency_conflict, not pointed at the first's report.
func TestQueueRunTwins(t *testing.T) {
	e, _ := queueEnv(t, func(c *Config) { c.Queue.runItems = func(n int) int { return max(1, n) } })
	st := postBatchOf(e, request("twin", 1, "DONE"), request("twin", 1, "DONE, said otherwise"), request("other", 1, "DONE"))
	if st.Done != 2 || st.Failed != 1 {
		t.Fatalf("batch: %+v", st)
	}
	lines := strings.Split(strings.TrimSpace(string(e.do("GET", "/v1/batches/"+st.ID+"/results", "", nil).body)), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], "idempotency_conflict") {
		t.Errorf("results:\n%s", strings.Join(lines, "\n"))
	}
	// The run's job alone.
	checkJobs(t, e, 1, 0)
	checkReportsOnce(t, e.store, 2)
}

// TestQueueRunSlice: a run's job takes no new item after its slice, and
// leaves the rest of its run to a job of their own.
func TestQueueRunSlice(t *testing.T) {
	e, _ := queueEnv(t, func(c *Config) {
		c.Queue.runItems = func(int) int { return 5 }
		c.Queue.runSlice = time.Nanosecond // one item a job
	})
	if st := postBatchOf(e, requests("s", 10)...); st.Done != 10 || st.Failed != 0 {
		t.Fatalf("batch: %+v", st)
	}
	// Two runs of five, each verified a job an item: ten jobs.
	checkJobs(t, e, 10, 0)
	checkReportsOnce(t, e.store, 10)
}

// TestQueueRunPoison: an item whose verification crashes is left to a
// job of its own, tried Queue.Attempts times in all (its crash in the
// run's job among them), and ends as its item's error, which counts
// them; the rest of its run is verified by the run's job.
func TestQueueRunPoison(t *testing.T) {
	e, _ := queueEnv(t, func(c *Config) {
		c.Queue.runItems = func(int) int { return 3 }
		c.Queue.Attempts = 3
		c.Queue.RetryBackoff = vouch.Duration(time.Millisecond)
	})
	st := postBatchOf(e, request("ok1", 1, "DONE"), crashRequest("poison"), request("ok2", 1, "DONE"))
	if st.Done != 2 || st.Failed != 1 {
		t.Fatalf("batch: %+v", st)
	}
	lines := strings.Split(strings.TrimSpace(string(e.do("GET", "/v1/batches/"+st.ID+"/results", "", nil).body)), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], `"line":2`) || !strings.Contains(lines[1], "crashed on each of 3 attempts") {
		t.Errorf("results:\n%s", strings.Join(lines, "\n"))
	}
	checkJobs(t, e, 1, 1)
	var attempts int
	if err := e.store.(store.Queue).Pool().QueryRow(t.Context(), `SELECT attempt FROM river_job WHERE kind = $1 AND args->>'index' = '1'`,
		itemArgs{}.Kind()).Scan(&attempts); err != nil || attempts != 2 {
		t.Errorf("the poison's own job was tried %d times (%v), want 2 (and once in its run)", attempts, err)
	}
	checkReportsOnce(t, e.store, 2)
}

// TestQueueRunCutShort: a run's job cut short (its process stopping
// hard) after one of its items crashed hands the crashed item and the
// one under way to jobs of their own, and the items it did not reach to
// a run's job: the batch ends once the queue works again.
func TestQueueRunCutShort(t *testing.T) {
	blocking.once.Store(false)
	blocking.entered = make(chan struct{})
	e, _ := queueEnv(t, func(c *Config) {
		c.Queue.runItems = func(int) int { return 4 }
		c.Queue.Attempts = 2
		c.Queue.RetryBackoff = vouch.Duration(time.Millisecond)
	})
	body := fmt.Appendf(nil, "%s\n%s\n%s\n%s\n", crashRequest("c0"), blockRequest("b1"), request("ok2", 1, "DONE"), request("ok3", 1, "DONE"))
	res := e.do("POST", "/v1/batches", "", body)
	if res.status != 202 {
		t.Fatalf("%d %s", res.status, res.body)
	}
	id := decode[api.BatchStatus](t, res.body).ID
	<-blocking.entered
	e.srv.jobs.stopWorking(t.Context(), true) // cancels the job at b1
	if err := e.srv.jobs.startWorking(t.Context()); err != nil {
		t.Fatal(err)
	}
	st := e.waitBatch(DefaultTenant, "", id)
	if st.Done != 3 || st.Failed != 1 {
		t.Fatalf("batch: %+v", st)
	}
	// The first run's job, and the run's job of the items it did not
	// reach (ok2 on); c0's and b1's own jobs.
	checkJobs(t, e, 2, 2)
	checkReportsOnce(t, e.store, 3)
}

// TestQueueSweepRuns: the sweep ends as errors the pending items of a
// run's job River discarded, but not one a job not yet finished covers.
func TestQueueSweepRuns(t *testing.T) {
	e, _ := queueEnv(t, nil)
	ctx := t.Context()
	items := make([]store.BatchItem, 3)
	for i := range items {
		items[i].Request = request(fmt.Sprintf("sw%d", i), 1, "DONE")
	}
	// Written by the store alone: no job of the queue's.
	if err := e.store.CreateBatch(ctx, &store.Batch{Tenant: DefaultTenant, ID: "swept"}, items); err != nil {
		t.Fatal(err)
	}
	// Both jobs in one transaction, so that the server's own sweep (every
	// two seconds) sees both or neither.
	tx, err := e.store.(store.Queue).Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `INSERT INTO river_job (kind, args, queue, max_attempts, attempt, state, attempted_at, finalized_at, errors)
		VALUES ($1, '{"tenant":"default","batch":"swept","from":0,"to":3}', $2, 2, 2, 'discarded', now(), now(), ARRAY['{"error":"the process died","attempt":2}'::jsonb])`,
		runArgs{}.Kind(), queueName); err != nil {
		t.Fatal(err)
	}
	// Item 2 is another job's, one that has not run yet.
	if _, err := tx.Exec(ctx, `INSERT INTO river_job (kind, args, queue, max_attempts, state, scheduled_at)
		VALUES ($1, '{"tenant":"default","batch":"swept","index":2}', $2, 2, 'scheduled', now() + interval '1 hour')`,
		itemArgs{}.Kind(), queueName); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	e.srv.jobs.sweep(ctx)
	for i, want := range []string{store.ItemError, store.ItemError, store.ItemPending} {
		it, err := e.store.(store.Queue).Item(ctx, DefaultTenant, "swept", i)
		if err != nil {
			t.Fatal(err)
		}
		if it.State != want || want == store.ItemError && !strings.Contains(string(it.Error), "did not finish in 2 attempts") {
			t.Errorf("item %d: %s %s, want %s", i, it.State, it.Error, want)
		}
	}
}

// failFirstCompletions is a store whose first n completions of runs
// fail.
type failFirstCompletions struct {
	store.Queue
	n atomic.Int32
}

func (f *failFirstCompletions) CompleteItemsTx(ctx context.Context, cs []store.Completion, then store.TxFunc) error {
	if f.n.Add(-1) >= 0 {
		return errors.New("the store is down")
	}
	return f.Queue.CompleteItemsTx(ctx, cs, then)
}

// TestQueueRunRetried: a run's job tried again leaves each of its pending
// items to a job of its own, and each item's report is written once.
func TestQueueRunRetried(t *testing.T) {
	dsn := storetest.PostgresSchema(t, storetest.PostgresServer(t))
	st, err := store.Open(t.Context(), dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	failing := &failFirstCompletions{Queue: st.(store.Queue)}
	failing.n.Store(1)
	cfg := DefaultConfig()
	cfg.Queue.runItems = func(int) int { return 4 }
	cfg.Queue.RetryBackoff = vouch.Duration(time.Millisecond)
	srv, err := New(Options{Config: cfg, Store: failing})
	if err != nil {
		t.Fatal(err)
	}
	e := &testEnv{t: t, srv: srv, http: newHTTPTest(t, srv), store: st, clock: &clock{}}
	if st := postBatchOf(e, requests("t", 8)...); st.Done != 8 || st.Failed != 0 {
		t.Fatalf("batch: %+v", st)
	}
	// The run whose completion failed: its four items, a job each.
	checkJobs(t, e, 2, 4)
	checkReportsOnce(t, e.store, 8)
}

// TestQueueWorkerPresence: a server works the jobs while no worker is
// running, leaves them to a worker that starts, and takes them again
// when it stops.
func TestQueueWorkerPresence(t *testing.T) {
	e, dsn := queueEnv(t, nil)
	working := func(q *jobQueue) bool {
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.running != nil
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("not %s within 30s", what)
			}
			time.Sleep(20 * time.Millisecond) // polling a condition, not synchronising
		}
	}
	waitFor("working without a worker", func() bool { return working(e.srv.jobs) })

	wst, err := store.Open(t.Context(), dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := New(Options{Config: DefaultConfig(), Store: wst, Worker: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stopWorker := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- w.Work(ctx) }()
	waitFor("leaving the jobs to the worker", func() bool { return !working(e.srv.jobs) })
	if n, err := e.srv.jobs.announced(t.Context()); err != nil || n != 1 {
		t.Fatalf("%d workers announced (%v), want 1", n, err)
	}
	res := e.do("POST", "/v1/batches", "", fmt.Appendf(nil, "%s\n%s\n", request("w1", 1, "DONE"), request("w2", 1, "DONE")))
	if st := e.waitBatch(DefaultTenant, "", decode[api.BatchStatus](t, res.body).ID); st.Done != 2 {
		t.Fatalf("batch worked by the worker: %+v", st)
	}
	if working(e.srv.jobs) {
		t.Error("the server worked jobs while a worker ran")
	}
	stopWorker()
	if err := <-done; err != nil {
		t.Fatalf("worker: %v", err)
	}
	waitFor("working again after the worker stopped", func() bool { return working(e.srv.jobs) })
	res = e.do("POST", "/v1/batches", "", fmt.Appendf(nil, "%s\n", request("w3", 1, "DONE")))
	if st := e.waitBatch(DefaultTenant, "", decode[api.BatchStatus](t, res.body).ID); st.Done != 1 {
		t.Fatalf("batch after the worker: %+v", st)
	}
}

// TestWorkerNeedsPostgres: a worker on SQLite is refused with the reason.
func TestWorkerNeedsPostgres(t *testing.T) {
	st, err := store.Open(t.Context(), t.TempDir()+"/v.db", store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := New(Options{Config: DefaultConfig(), Store: st, Worker: true}); err == nil || !strings.Contains(err.Error(), "PostgreSQL") {
		t.Fatalf("worker on SQLite: %v", err)
	}
}
