package server

import (
	"context"
	"fmt"
	"strings"
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
}

type crashChecker struct{}

func (crashChecker) Check(context.Context, *vouch.Subject) vouch.Outcome { panic("poison") }

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
// the items', a batch at a time), and counts the verification jobs by
// state.
func settledJobStates(t *testing.T, e *testEnv) map[string]int {
	t.Helper()
	e.srv.jobs.drain(t.Context())
	return jobStates(t, e.store)
}

// jobStates counts the verification jobs of a store by state.
func jobStates(t *testing.T, st store.Store) map[string]int {
	t.Helper()
	rows, err := st.(store.Queue).Pool().Query(t.Context(), `SELECT state, count(*) FROM river_job WHERE kind = $1 GROUP BY state`, itemArgs{}.Kind())
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
