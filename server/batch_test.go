package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/store/storetest"
)

// hookBatches sets the uploads' hook for the test. Call it before the
// test's server is made: the hook is reset after the server stopped.
func hookBatches(t *testing.T, fn func(event, tenant, id string)) {
	t.Helper()
	batchHook = fn
	t.Cleanup(func() { batchHook = nil })
}

// uploads records the uploads' hook calls, by batch id, and hands each
// to its channel.
type uploads struct {
	mu     sync.Mutex
	events map[string][]string
	c      chan string // "event id", when not nil
}

func (u *uploads) hook(event, tenant, id string) {
	u.mu.Lock()
	if u.events == nil {
		u.events = map[string][]string{}
	}
	u.events[id] = append(u.events[id], event)
	u.mu.Unlock()
	if u.c != nil {
		u.c <- event + " " + id
	}
}

// all returns the batches the hook heard of, and what it heard of each.
func (u *uploads) all() map[string][]string {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := map[string][]string{}
	for id, evs := range u.events {
		out[id] = append([]string(nil), evs...)
	}
	return out
}

// status is the status code of a GET, or the error that stopped it.
func (e *testEnv) status(path string) string {
	res, err := e.http.Client().Get(e.http.URL + path)
	if err != nil {
		return err.Error()
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return fmt.Sprint(res.StatusCode)
}

// post posts body (of unknown length, sent chunked, when it is not a
// *strings.Reader) to /v1/batches; the error is the transport's.
func (e *testEnv) post(body io.Reader) (response, error) {
	req, err := http.NewRequest("POST", e.http.URL+"/v1/batches", body)
	if err != nil {
		return response{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := e.http.Client().Do(req)
	if err != nil {
		return response{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return response{res.StatusCode, res.Header, b}, err
}

// gone checks that nothing is left of an upload's batch: no batch
// loading under its id (a commit finds none), none to prune.
func (e *testEnv) gone(id string) {
	e.t.Helper()
	if b, err := e.store.CommitBatch(context.Background(), DefaultTenant, id); !errors.Is(err, store.ErrNotFound) {
		e.t.Errorf("the batch %s of a failed upload is still there: %+v, %v", id, b, err)
	}
	if n, err := e.store.PruneLoading(context.Background(), 0); err != nil || n != 0 {
		e.t.Errorf("PruneLoading after a failed upload = %d, %v; want none left", n, err)
	}
}

// chunkedItems is a batch of 2,345 requests (three chunks), mostly of
// cheap failures: every hundredth (from the eighth) a request to verify,
// the 1,501st over a MaxRequestBytes of 64 KiB, the others JSON that is
// not a request.
func chunkedItems() []string {
	items := make([]string, 2345)
	for i := range items {
		switch {
		case i%100 == 7:
			items[i] = string(request(fmt.Sprintf("c%d", i), 1, "DONE"))
		case i == 1500:
			items[i] = `{"output":"` + strings.Repeat("a", 70<<10) + `"}`
		default:
			items[i] = fmt.Sprintf(`{"n":%d}`, i)
		}
	}
	return items
}

func TestBatchChunks(t *testing.T) { testBatchChunks(t, newEnv) }

// testBatchChunks: a batch of more than a chunk, as JSONL and as a JSON
// array, is stored a chunk at a time; while it loads, no read shows it,
// nothing works it and (on PostgreSQL) it has no job; then it is answered
// as a batch written whole is, and worked to its end.
func testBatchChunks(t *testing.T, newEnv envMaker) {
	var e *testEnv
	var stored atomic.Int32
	hookBatches(t, func(event, tenant, id string) {
		if event != "stored" {
			return
		}
		stored.Add(1)
		// In the upload, between two chunks.
		if b, err := e.store.Batch(context.Background(), tenant, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Batch of a loading batch = %+v, %v; want ErrNotFound", b, err)
		}
		for _, path := range []string{"/v1/batches/" + id, "/v1/batches/" + id + "/results"} {
			if got := e.status(path); got != "404" {
				t.Errorf("GET %s of a loading batch: %s, want 404", path, got)
			}
		}
		pending, err := e.store.PendingItems(context.Background(), 10_000)
		if err != nil {
			t.Errorf("PendingItems: %v", err)
		}
		for _, it := range pending {
			if it.BatchID == id {
				t.Errorf("PendingItems returns item %d of a loading batch", it.Index)
				break
			}
		}
		if e.srv.jobs != nil {
			var n int
			err := e.store.(store.Queue).Pool().QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE args->>'batch' = $1`, id).Scan(&n)
			if err != nil || n != 0 {
				t.Errorf("a loading batch has %d jobs (%v), want none", n, err)
			}
		}
	})
	e = newEnv(t, func(c *Config) {
		c.BatchWorkers = 2
		c.MaxRequestBytes = 64 << 10
	})
	items := chunkedItems()
	var jsonl strings.Builder
	for i, it := range items {
		jsonl.WriteString(it + "\n")
		if i%500 == 3 {
			jsonl.WriteString("\n  \r\n") // blank lines are no items
		}
	}
	for name, body := range map[string]string{
		"jsonl": jsonl.String(),
		"array": "[\n" + strings.Join(items, ",\n") + "\n]",
	} {
		stored.Store(0)
		res, err := e.post(io.MultiReader(strings.NewReader(body))) // of unknown length
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.status != 202 {
			t.Fatalf("%s: %d %s", name, res.status, res.body)
		}
		if n := stored.Load(); n != 3 {
			t.Errorf("%s: the batch was stored in %d chunks, want 3", name, n)
		}
		st := decode[api.BatchStatus](t, res.body)
		if st.Total != 2345 || st.State != store.BatchRunning || res.header.Get("Location") != "/v1/batches/"+st.ID {
			t.Errorf("%s: answered %+v, Location %q", name, st, res.header.Get("Location"))
		}
		st = e.waitBatch(DefaultTenant, "", st.ID)
		if st.Done != 24 || st.Failed != 2321 || st.Pending != 0 {
			t.Errorf("%s: finished %+v, want 24 done and 2,321 failed", name, st)
		}
		out := e.do("GET", "/v1/batches/"+st.ID+"/results", "", nil)
		lines := strings.Split(strings.TrimSpace(string(out.body)), "\n")
		if len(lines) != 2345 {
			t.Fatalf("%s: %d result lines, want 2,345", name, len(lines))
		}
		for _, c := range []struct {
			i    int
			want []string
		}{
			{0, []string{`"line":1,`}},
			{7, []string{`"id":"c7"`}},
			{1007, []string{`"id":"c1007"`}},
			{1500, []string{`"line":1501`, `"too_large"`, fmt.Sprintf("%d bytes", 70<<10+len(`{"output":""}`))}},
			{2307, []string{`"id":"c2307"`}},
			{2344, []string{`"line":2345,`}},
		} {
			for _, want := range c.want {
				if !strings.Contains(lines[c.i], want) {
					t.Errorf("%s: result %d does not say %s: %.200s", name, c.i+1, want, lines[c.i])
				}
			}
		}
	}
}

// lines is a JSONL body of n cheap failures (JSON that is no request) of
// about 100 bytes each.
func lines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "{\"n\":%d,\"pad\":%q}\n", i, strings.Repeat("p", 80))
	}
	return b.String()
}

// failAfter reads r, then, once stored says a chunk was stored, fails
// as a client that went away.
type failAfter struct {
	r      io.Reader
	stored chan struct{}
}

func (f *failAfter) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		<-f.stored
		return n, errors.New("the client went away")
	}
	return n, err
}

func TestBatchAborts(t *testing.T) { testBatchAborts(t, newEnv) }

// testBatchAborts: an upload that fails after chunks were stored (a body
// over its limit, an array that does not parse, a client gone) deletes
// them, and the client gets the error it got before; so does a batch
// over its limit told by its Content-Length, before anything is stored.
func testBatchAborts(t *testing.T, newEnv envMaker) {
	u := &uploads{c: make(chan string, 16)}
	hookBatches(t, u.hook)
	e := newEnv(t, func(c *Config) { c.MaxBatchBytes = 150 << 10 })
	// next returns the hook's next call, failing the test after a minute.
	next := func() string {
		t.Helper()
		select {
		case ev := <-u.c:
			return ev
		case <-time.After(time.Minute):
			t.Fatal("no upload stored or aborted a batch within a minute")
			return ""
		}
	}
	for _, tc := range []struct {
		name, body string
		status     int
		code       string
	}{
		{"over its limit", lines(1600), 413, "too_large"},
		{"a bad array", "[" + strings.Repeat(`{"n":1},`, 1200) + `{"n":2}}]`, 400, "syntax"},
	} {
		res, err := e.post(io.MultiReader(strings.NewReader(tc.body)))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if res.status != tc.status || !strings.Contains(string(res.body), `"code":"`+tc.code+`"`) {
			t.Errorf("%s: %d %s, want %d %s", tc.name, res.status, res.body, tc.status, tc.code)
		}
		ev := next()
		id := strings.TrimPrefix(ev, "stored ")
		if ev == id {
			t.Fatalf("%s: the hook heard %q, want a chunk stored", tc.name, ev)
		}
		if ev := next(); ev != "aborted "+id {
			t.Fatalf("%s: the hook heard %q, want the batch aborted", tc.name, ev)
		}
		e.gone(id)
	}

	// A client that goes away mid-way gets no answer; what it sent is
	// deleted.
	stored := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := e.post(&failAfter{r: strings.NewReader(lines(1200)), stored: stored})
		done <- err
	}()
	ev := next()
	id := strings.TrimPrefix(ev, "stored ")
	if ev == id {
		t.Fatalf("a client going away: the hook heard %q, want a chunk stored", ev)
	}
	close(stored)
	if err := <-done; err == nil {
		t.Error("a client whose body failed got an answer")
	}
	if ev := next(); ev != "aborted "+id {
		t.Fatalf("a client going away: the hook heard %q, want the batch aborted", ev)
	}
	e.gone(id)

	// Told by its Content-Length, a body over the limit is refused before
	// a byte of it is read; a batch of nothing is refused as ever.
	for _, tc := range []struct {
		body   string
		status int
	}{{lines(1600), 413}, {"", 400}, {"\n \n", 400}, {" [ ] ", 400}} {
		if res := e.do("POST", "/v1/batches", "", []byte(tc.body)); res.status != tc.status {
			t.Errorf("a body of %d bytes: %d %s, want %d", len(tc.body), res.status, res.body, tc.status)
		}
	}
	select {
	case ev := <-u.c:
		t.Errorf("a refused body stored something: %s", ev)
	default:
	}
}

// failingStore fails the given call of AppendItems.
type failingStore struct {
	store.Store
	failAt int32
	calls  atomic.Int32
}

func (s *failingStore) AppendItems(ctx context.Context, tenant, id string, items []store.BatchItem) error {
	if s.calls.Add(1) == s.failAt {
		return errors.New("disk I/O error")
	}
	return s.Store.AppendItems(ctx, tenant, id, items)
}

// TestBatchStoreFails: a store that fails mid-upload is answered 503, and
// the chunks stored before are deleted.
func TestBatchStoreFails(t *testing.T) {
	u := &uploads{}
	hookBatches(t, u.hook)
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "v.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvStore(t, &failingStore{Store: st, failAt: 2})
	res, err := e.post(strings.NewReader(lines(2500)))
	if err != nil {
		t.Fatal(err)
	}
	if res.status != 503 || !strings.Contains(string(res.body), "store_unavailable") || res.header.Get("Retry-After") == "" {
		t.Errorf("a store failing mid-upload: %d %s", res.status, res.body)
	}
	all := u.all()
	if len(all) != 1 {
		t.Fatalf("the hook heard of %d batches, want 1: %v", len(all), all)
	}
	for id, evs := range all {
		if strings.Join(evs, " ") != "stored aborted" {
			t.Errorf("the hook heard %v, want a chunk stored, then the batch aborted", evs)
		}
		e.gone(id)
	}
}

// storeClock is a clock a test sets.
type storeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *storeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *storeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// heard is a log handler that signals on c when msg is logged.
type heard struct {
	msg string
	c   chan struct{}
}

func (h heard) Enabled(context.Context, slog.Level) bool { return true }

func (h heard) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		select {
		case h.c <- struct{}{}:
		default:
		}
	}
	return nil
}

func (h heard) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h heard) WithGroup(string) slog.Handler      { return h }

func TestBatchLeftovers(t *testing.T) {
	testBatchLeftovers(t, filepath.Join(t.TempDir(), "v.db"))
}

// testBatchLeftovers: the loading batches an upload left when its process
// ended are never shown or worked; those not written to for an hour are
// deleted when the server starts, the others kept.
func testBatchLeftovers(t *testing.T, dsn string) {
	ctx := t.Context()
	sc := &storeClock{t: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)}
	st, err := store.Open(ctx, dsn, store.Options{Now: sc.now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	leave := func(id string) {
		t.Helper()
		if err := st.BeginBatch(ctx, &store.Batch{Tenant: DefaultTenant, ID: id}); err != nil {
			t.Fatal(err)
		}
		items := []store.BatchItem{{Request: request(id+"-0", 1, "DONE")}, {Request: request(id+"-1", 1, "DONE")}}
		if err := st.AppendItems(ctx, DefaultTenant, id, items); err != nil {
			t.Fatal(err)
		}
	}
	leave("b-stale")
	sc.advance(2 * time.Hour)
	leave("b-recent")
	sc.advance(59 * time.Minute)

	swept := heard{msg: "deleted the batches of uploads that never finished", c: make(chan struct{}, 1)}
	srv, err := New(Options{Config: DefaultConfig(), Store: st, Now: (&clock{}).now, Logger: slog.New(swept)})
	if err != nil {
		t.Fatal(err)
	}
	e := &testEnv{t: t, srv: srv, http: newHTTPTest(t, srv), store: st}
	select {
	case <-swept.c:
	case <-time.After(time.Minute):
		t.Fatal("the server did not sweep the loading batches within a minute of its start")
	}
	if b, err := st.CommitBatch(ctx, DefaultTenant, "b-stale"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the stale loading batch is still there: %+v, %v", b, err)
	}
	if got := e.status("/v1/batches/b-recent"); got != "404" {
		t.Errorf("GET a loading batch: %s, want 404", got)
	}
	// A batch posted after it is worked to its end; the loading one,
	// older, would have been worked first had it been pending.
	res := e.do("POST", "/v1/batches", "", request("after", 1, "DONE"))
	if res.status != 202 {
		t.Fatalf("%d %s", res.status, res.body)
	}
	if st := e.waitBatch(DefaultTenant, "", decode[api.BatchStatus](t, res.body).ID); st.Done != 1 {
		t.Fatalf("the batch posted: %+v", st)
	}
	// Committed as an upload would (on PostgreSQL with its jobs).
	var b *store.Batch
	if srv.jobs != nil {
		b, err = srv.jobs.commitBatch(ctx, DefaultTenant, "b-recent")
	} else {
		b, err = st.CommitBatch(ctx, DefaultTenant, "b-recent")
		srv.batches.wake()
	}
	if err != nil {
		t.Fatalf("the recent loading batch was not kept: %v", err)
	}
	if b.Done != 0 || b.Total != 2 {
		t.Errorf("the recent loading batch was worked while it loaded: %+v", b)
	}
	if st := e.waitBatch(DefaultTenant, "", "b-recent"); st.Done != 2 {
		t.Errorf("the recent batch, once committed: %+v", st)
	}
}

// TestBatchPostgres runs the uploads' tests on PostgreSQL, where the jobs
// of a batch are inserted with its commit.
func TestBatchPostgres(t *testing.T) {
	server := storetest.PostgresServer(t)
	pgEnv := func(t testing.TB, mut func(*Config)) *testEnv {
		return newEnvOn(t, storetest.PostgresSchema(t, server), mut)
	}
	t.Run("Chunks", func(t *testing.T) { testBatchChunks(t, pgEnv) })
	t.Run("Aborts", func(t *testing.T) { testBatchAborts(t, pgEnv) })
	t.Run("Leftovers", func(t *testing.T) { testBatchLeftovers(t, storetest.PostgresSchema(t, server)) })
}

// TestBatchPoolRuns: on SQLite the pool verifies a batch's items in runs
// and completes each run in one transaction: far fewer commits than
// items, each item's report written once.
func TestBatchPoolRuns(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.BatchWorkers = 1 })
	commits := func() float64 {
		t.Helper()
		n, ok := metricValue(t, e.do("GET", "/metrics", "", nil).body, "vouch_store_commits_total")
		if !ok {
			t.Fatal("no vouch_store_commits_total")
		}
		return n
	}
	const n = 64 // runs of 16 (see poolRun)
	var body []byte
	for i := range n {
		body = append(append(body, request(fmt.Sprintf("p%d", i), 1, "DONE")...), '\n')
	}
	before := commits()
	res := e.do("POST", "/v1/batches", "", body)
	if res.status != 202 {
		t.Fatalf("%d %s", res.status, res.body)
	}
	if st := e.waitBatch(DefaultTenant, "", decode[api.BatchStatus](t, res.body).ID); st.Done != n || st.Failed != 0 {
		t.Fatalf("batch: %+v", st)
	}
	// The batch's creation, a commit per run, and the batch's end.
	if got := commits() - before; got > n/4 {
		t.Errorf("%v commits for a batch of %d, want at most %d", got, n, n/4)
	}
	page, err := e.store.List(t.Context(), DefaultTenant, store.Filter{Limit: 2 * n})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != n {
		t.Errorf("%d reports stored, want %d", len(page.Items), n)
	}
	// Each item's key was looked up and not found: an answer, not a
	// failure of the store.
	if n, ok := metricValue(t, e.do("GET", "/metrics", "", nil).body, `vouch_store_errors_total{op="by_key"}`); ok && n != 0 {
		t.Errorf("%v by_key lookups counted as store errors, want none", n)
	}
}

// TestBatchPoolRunTwins: two requests of one run with one id and
// attempt but different bodies: the second, written after the first, is
// its item's idempotency_conflict.
func TestBatchPoolRunTwins(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.BatchWorkers = 1 })
	body := fmt.Appendf(nil, "%s\n%s\n", request("twin", 1, "DONE"), request("twin", 1, "DONE, said otherwise"))
	for i := range 30 {
		body = append(append(body, request(fmt.Sprintf("t%d", i), 1, "DONE")...), '\n')
	}
	res := e.do("POST", "/v1/batches", "", body)
	if res.status != 202 {
		t.Fatalf("%d %s", res.status, res.body)
	}
	id := decode[api.BatchStatus](t, res.body).ID
	if st := e.waitBatch(DefaultTenant, "", id); st.Done != 31 || st.Failed != 1 {
		t.Fatalf("batch: %+v", st)
	}
	lines := strings.Split(strings.TrimSpace(string(e.do("GET", "/v1/batches/"+id+"/results", "", nil).body)), "\n")
	if len(lines) != 32 || !strings.Contains(lines[1], "idempotency_conflict") {
		t.Errorf("the twin's line: %.200s", lines[1])
	}
}

// TestBatchPoolResumesAlone: the items of a batch this process did not
// make (left pending by an earlier one) are verified and completed one at
// a time, so that a request that ends the process takes no run of others
// with it on every restart.
func TestBatchPoolResumesAlone(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.BatchWorkers = 1 })
	const n = 20
	items := make([]store.BatchItem, n)
	for i := range items {
		items[i].Request = request(fmt.Sprintf("left%d", i), 1, "DONE")
	}
	before, _ := metricValue(t, e.do("GET", "/metrics", "", nil).body, "vouch_store_commits_total")
	if err := e.store.CreateBatch(t.Context(), &store.Batch{Tenant: DefaultTenant, ID: "left"}, items); err != nil {
		t.Fatal(err)
	}
	e.srv.batches.wake()
	if st := e.waitBatch(DefaultTenant, "", "left"); st.Done != n {
		t.Fatalf("batch: %+v", st)
	}
	after, _ := metricValue(t, e.do("GET", "/metrics", "", nil).body, "vouch_store_commits_total")
	if got := after - before; got < n {
		t.Errorf("%v commits for %d items left by an earlier process, want one an item at least", got, n)
	}
}

// TestBatchPoolDrainWhileDispatching: drain begun while the dispatcher
// hands out runs returns once the runs handed out are done, hands out
// none after, and leaves every item either done or pending. (The race
// that hold closes, a count of busy items added from zero as drain waits,
// needs an interleaving this test does not force.)
func TestBatchPoolDrainWhileDispatching(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.BatchWorkers = 1 })
	const n = 300
	var body []byte
	for i := range n {
		body = append(append(body, request(fmt.Sprintf("d%d", i), 1, "DONE")...), '\n')
	}
	res := e.do("POST", "/v1/batches", "", body)
	if res.status != 202 {
		t.Fatalf("%d %s", res.status, res.body)
	}
	id := decode[api.BatchStatus](t, res.body).ID
	p := e.srv.batches
	p.drain(t.Context())
	p.mu.Lock()
	left := len(p.inFlight)
	p.mu.Unlock()
	if left != 0 {
		t.Errorf("%d items still in flight after drain", left)
	}
	b, err := e.store.Batch(t.Context(), DefaultTenant, id)
	if err != nil {
		t.Fatal(err)
	}
	pending, err := e.store.PendingItems(t.Context(), 2*n)
	if err != nil {
		t.Fatal(err)
	}
	if b.Done+len(pending) != n {
		t.Errorf("after drain: %d done and %d pending of %d", b.Done, len(pending), n)
	}
}
