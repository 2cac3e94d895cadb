package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/store/storetest"
)

// clock is a test clock: every reading is a microsecond after the last.
type clock struct{ n atomic.Int64 }

func (c *clock) now() time.Time {
	return time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(c.n.Add(1)) * time.Microsecond)
}

// advance moves the clock on by d.
func (c *clock) advance(d time.Duration) { c.n.Add(int64(d / time.Microsecond)) }

type testEnv struct {
	t     testing.TB
	srv   *Server
	http  *httptest.Server
	store store.Store
	clock *clock
}

// envMaker builds a test server; the tests that matter for the store run
// on SQLite (newEnv) and on PostgreSQL (TestPostgres).
type envMaker func(t testing.TB, mut func(*Config)) *testEnv

// newEnv builds a test server on a SQLite store.
func newEnv(t testing.TB, mut func(*Config)) *testEnv {
	t.Helper()
	return newEnvOn(t, filepath.Join(t.TempDir(), "vouch.db"), mut)
}

// newEnvOn builds a test server on the store at dsn.
func newEnvOn(t testing.TB, dsn string, mut func(*Config)) *testEnv {
	t.Helper()
	return newEnvFull(t, dsn, nil, mut)
}

// newEnvPolicy builds a test server with a policy, on SQLite.
func newEnvPolicy(t testing.TB, pol *vouch.Policy, mut func(*Config)) *testEnv {
	t.Helper()
	return newEnvFull(t, filepath.Join(t.TempDir(), "vouch.db"), pol, mut)
}

func newEnvFull(t testing.TB, dsn string, pol *vouch.Policy, mut func(*Config)) *testEnv {
	t.Helper()
	st, err := store.Open(t.Context(), dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cfg := DefaultConfig()
	if mut != nil {
		mut(&cfg)
	}
	c := &clock{}
	srv, err := New(Options{Config: cfg, Store: st, Now: c.now, Policy: pol})
	if err != nil {
		t.Fatal(err)
	}
	return &testEnv{t: t, srv: srv, http: newHTTPTest(t, srv), store: st, clock: c}
}

// newHTTPTest serves srv on a loopback test server with its background
// work running, both stopped when the test ends.
func newHTTPTest(t testing.TB, srv *Server) *httptest.Server {
	hs, stop := startHTTPTest(srv)
	t.Cleanup(stop)
	return hs
}

// startHTTPTest serves srv on a loopback test server with its background
// work running, until stop.
func startHTTPTest(srv *Server) (hs *httptest.Server, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	srv.background(ctx)
	hs = httptest.NewServer(srv.Handler())
	return hs, func() {
		hs.Close()
		srv.stop()
		cancel()
		srv.runner().wait()
	}
}

// request is a small subtask request: its must-pass criterion is met when
// the summary says DONE.
func request(id string, attempt int, summary string) []byte {
	return fmt.Appendf(nil, `{"id":%q,"attempt":%d,"interactionId":"run-1","target":"writer","task":{"id":"t-%s","goal":"say done","executor":{"provider":"openai","model":"gpt-4o-mini"},"criteria":[{"id":"c1","text":"says DONE","must":true,"check":{"type":"contains","value":"DONE"}}]},"output":{"summary":%q}}`,
		id, attempt, id, summary)
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (e *testEnv) do(method, path, key string, body []byte, header ...string) response {
	e.t.Helper()
	req, err := http.NewRequest(method, e.http.URL+path, bytes.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != nil && key == "" {
		// What every client sends; a keyless request without it is
		// refused (auth_test.go).
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	res, err := e.http.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return response{res.StatusCode, res.Header, b}
}

func decode[T any](t testing.TB, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
	return v
}

func TestVerifyStoresAndReads(t *testing.T) { testVerifyStoresAndReads(t, newEnv) }

func testVerifyStoresAndReads(t *testing.T, newEnv envMaker) {
	e := newEnv(t, nil)
	res := e.do("POST", "/v1/verify", "", request("r1", 1, "All DONE."))
	if res.status != 200 {
		t.Fatalf("status %d: %s", res.status, res.body)
	}
	rep := decode[vouch.Report](t, res.body)
	if rep.ID != "r1" || rep.Verdict != vouch.VerdictPass {
		t.Fatalf("report id %q verdict %q", rep.ID, rep.Verdict)
	}
	got := e.do("GET", "/v1/verifications/r1", "", nil)
	if got.status != 200 || !bytes.Equal(got.body, res.body) {
		t.Fatalf("GET: status %d, body differs from the answered report:\n%s\n%s", got.status, got.body, res.body)
	}
	v, err := e.store.Get(t.Context(), DefaultTenant, "r1", 1)
	if err != nil {
		t.Fatal(err)
	}
	if v.InteractionID != "run-1" || v.TargetID != "writer" || v.TaskID != "t-r1" || v.VerificationType != "agent" ||
		v.ExecutorModel != "openai:gpt-4o-mini" || v.Verdict != vouch.VerdictPass || v.Criticality != "normal" || !bytes.Equal(v.Request, request("r1", 1, "All DONE.")) {
		t.Errorf("stored row: %+v", v)
	}

	// A second attempt, failing, is another verification of the same id.
	res = e.do("POST", "/v1/verify", "", request("r1", 2, "not yet"))
	if res.status != 200 {
		t.Fatalf("attempt 2: %d %s", res.status, res.body)
	}
	if rep := decode[vouch.Report](t, res.body); rep.Verdict == vouch.VerdictPass || rep.Attempt != 2 {
		t.Fatalf("attempt 2: verdict %s attempt %d", rep.Verdict, rep.Attempt)
	}
	latest := decode[vouch.Report](t, e.do("GET", "/v1/verifications/r1", "", nil).body)
	first := decode[vouch.Report](t, e.do("GET", "/v1/verifications/r1?attempt=1", "", nil).body)
	if latest.Attempt != 2 || first.Attempt != 1 {
		t.Errorf("GET picks attempt %d (want 2), ?attempt=1 picks %d", latest.Attempt, first.Attempt)
	}
	if res := e.do("GET", "/v1/verifications/nope", "", nil); res.status != 404 {
		t.Errorf("unknown id: status %d", res.status)
	}

	list := decode[api.List](t, e.do("GET", "/v1/verifications?taskId=t-r1&verdict=pass", "", nil).body)
	if len(list.Items) != 1 || list.Items[0].Attempt != 1 || list.Items[0].InteractionID != "run-1" {
		t.Errorf("filtered list: %+v", list)
	}
	if res := e.do("GET", "/v1/verifications?verdict=maybe&colour=red", "", nil); res.status != 400 || !bytes.Contains(res.body, []byte("colour")) {
		t.Errorf("bad filters: %d %s", res.status, res.body)
	}
}

func TestIdempotency(t *testing.T) { testIdempotency(t, newEnv) }

func testIdempotency(t *testing.T, newEnv envMaker) {
	e := newEnv(t, nil)
	body := request("r1", 1, "DONE")
	first := e.do("POST", "/v1/verify", "", body)
	again := e.do("POST", "/v1/verify", "", body)
	if first.status != 200 || again.status != 200 || !bytes.Equal(first.body, again.body) {
		t.Fatalf("replay: %d %d, same body %v", first.status, again.status, bytes.Equal(first.body, again.body))
	}
	if again.header.Get("Idempotent-Replayed") != "true" || first.header.Get("Idempotent-Replayed") != "" {
		t.Errorf("Idempotent-Replayed: first %q, again %q", first.header.Get("Idempotent-Replayed"), again.header.Get("Idempotent-Replayed"))
	}
	// The same id and attempt with another body is a conflict.
	if res := e.do("POST", "/v1/verify", "", request("r1", 1, "DONE, really")); res.status != 409 {
		t.Errorf("same id and attempt, other body: %d %s", res.status, res.body)
	}
	// An Idempotency-Key header is a key of its own.
	k1 := e.do("POST", "/v1/verify", "", request("r2", 1, "DONE"), "Idempotency-Key", "k-1")
	k2 := e.do("POST", "/v1/verify", "", request("r2", 1, "DONE"), "Idempotency-Key", "k-1")
	if k1.status != 200 || k2.status != 200 || k2.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("header key replay: %d %d %q", k1.status, k2.status, k2.header.Get("Idempotent-Replayed"))
	}
	if res := e.do("POST", "/v1/verify", "", request("r3", 1, "DONE"), "Idempotency-Key", "k-1"); res.status != 409 {
		t.Errorf("same header key, other body: %d %s", res.status, res.body)
	}
	page, err := e.store.List(t.Context(), DefaultTenant, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 2 {
		t.Errorf("%d verifications stored, want 2 (r1 and r2)", len(page.Items))
	}
}

func TestConcurrentSameKeyVerifiesOnce(t *testing.T) { testConcurrentSameKeyVerifiesOnce(t, newEnv) }

func testConcurrentSameKeyVerifiesOnce(t *testing.T, newEnv envMaker) {
	e := newEnv(t, nil)
	body := request("r1", 1, "DONE")
	var wg sync.WaitGroup
	bodies := make([][]byte, 16)
	for i := range bodies {
		wg.Go(func() {
			res := e.do("POST", "/v1/verify", "", body)
			if res.status != 200 {
				t.Errorf("status %d: %s", res.status, res.body)
			}
			bodies[i] = res.body
		})
	}
	wg.Wait()
	for _, b := range bodies[1:] {
		if !bytes.Equal(b, bodies[0]) {
			t.Fatal("concurrent requests with one key got different reports")
		}
	}
	page, _ := e.store.List(t.Context(), DefaultTenant, store.Filter{})
	if len(page.Items) != 1 {
		t.Errorf("%d rows, want 1", len(page.Items))
	}
}

func TestBadInput(t *testing.T) {
	e := newEnv(t, func(c *Config) {
		c.MaxRequestBytes = 4096
		c.Workspaces = map[string]string{"repo": t.TempDir()}
	})
	for _, tc := range []struct {
		name, body string
		status     int
		want       string
	}{
		{"syntax", `{"task": `, 400, `"syntax"`},
		{"unknown field", `{"task":{},"output":{},"colour":1}`, 400, `"unknown_field"`},
		{"too large", `{"task":{"goal":"` + strings.Repeat("x", 5000) + `"},"output":{}}`, 413, `"too_large"`},
		{"workspace path", `{"task":{},"output":{"summary":""},"workspace":"/etc"}`, 400, `unknown workspace \"/etc\"`},
		{"workspace escape", `{"task":{},"output":{"summary":""},"workspace":"../repo"}`, 400, `names one of the server's workspaces (repo)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := e.do("POST", "/v1/verify", "", []byte(tc.body))
			if res.status != tc.status || !bytes.Contains(res.body, []byte(tc.want)) {
				t.Errorf("status %d body %s; want %d with %s", res.status, res.body, tc.status, tc.want)
			}
		})
	}
	if res := e.do("POST", "/v1/verify", "", request("ok", 1, "DONE")); res.status != 200 {
		t.Errorf("a good request after bad ones: %d", res.status)
	}
	if res := e.do("POST", "/v1/verify", "", []byte(`{"task":{},"output":{"summary":""},"workspace":"repo"}`)); res.status != 200 {
		t.Errorf("a named workspace: %d %s", res.status, res.body)
	}
	if res := e.do("DELETE", "/v1/verify", "", nil); res.status != 405 || res.header.Get("Allow") != "POST" {
		t.Errorf("DELETE: %d, Allow %q", res.status, res.header.Get("Allow"))
	}
}

func TestVerifyTask(t *testing.T) { testVerifyTask(t, newEnv) }

func testVerifyTask(t *testing.T, newEnv envMaker) {
	e := newEnv(t, nil)
	body := []byte(`{"task_description":"Write a haiku about the sea","success_criteria":["three lines","mentions waves"],"task_output":"Waves fold into foam\nthe tide keeps its own counsel\nsalt on every stone"}`)
	res := e.do("POST", "/verify-task", "", body)
	if res.status != 200 {
		t.Fatalf("%d %s", res.status, res.body)
	}
	var out map[string]any
	if err := json.Unmarshal(res.body, &out); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"verdict", "confidence", "aggregate_score", "criteria_scores", "quality_scores", "tokens_used", "cost"} {
		if _, ok := out[k]; !ok {
			t.Errorf("no %s in %s", k, res.body)
		}
	}
	// No rule reads the criteria and no judge is asked: nothing is found
	// false and nothing decided, which is unverified, never a fail.
	if v := out["verdict"]; v != "unverified" {
		t.Errorf("verdict %v", v)
	}
	q := out["quality_scores"].(map[string]any)
	if q["clarity"] != nil || q["relevance"] != nil {
		t.Errorf("clarity and relevance scored with no judge: %v", q)
	}
	crit := out["criteria_scores"].([]any)
	if len(crit) != 2 {
		t.Fatalf("criteria_scores: %v", crit)
	}
	for _, c := range crit {
		c := c.(map[string]any)
		// Sentences with no rule and no judge stay undecided: null, never
		// a made-up score.
		if c["score"] != nil || c["met"] != nil {
			t.Errorf("criterion decided with no rule or judge: %v", c)
		}
	}
	// It is in the log, under the id it answered.
	id, _ := out["id"].(string)
	if res := e.do("GET", "/v1/verifications/"+id, "", nil); res.status != 200 {
		t.Errorf("stored verify-task: %d", res.status)
	}
	for _, tc := range []struct{ body, want string }{
		{`{"task_description":"x","task_output":"y","verifier_model":"openai:gpt-5"}`, "no judge model is configured"},
		{`{"task_description":"x","task_output":"y","scoring_mode":"judge"}`, "needs a judge"},
		{`{"task_description":"x","task_output":"y","scoring_mode":"vibes"}`, "want rules, judge, rubric, binary, criteria_match"},
		{`{"task_description":"x","task_output":"y","extra":1}`, "unknown field"},
	} {
		if res := e.do("POST", "/verify-task", "", []byte(tc.body)); res.status != 400 || !bytes.Contains(res.body, []byte(tc.want)) {
			t.Errorf("%s: %d %s", tc.body, res.status, res.body)
		}
	}
}

// waitBatch waits, without sleeping, until a batch has no pending item:
// each completed item wakes the tenant's subscribers.
func (e *testEnv) waitBatch(tenant, key, id string) api.BatchStatus {
	e.t.Helper()
	wake := e.srv.hub.subscribe(tenant)
	defer e.srv.hub.unsubscribe(tenant, wake)
	deadline := time.After(30 * time.Second)
	for {
		res := e.do("GET", "/v1/batches/"+id, key, nil)
		if res.status != 200 {
			e.t.Fatalf("batch status: %d %s", res.status, res.body)
		}
		st := decode[api.BatchStatus](e.t, res.body)
		if st.State == store.BatchDone {
			return st
		}
		select {
		case <-wake:
		case <-time.After(50 * time.Millisecond): // polling: another process may work the batch
		case <-deadline:
			e.t.Fatalf("batch %s not done: %+v", id, st)
		}
	}
}

func TestBatch(t *testing.T) { testBatch(t, newEnv) }

func testBatch(t *testing.T, newEnv envMaker) {
	e := newEnv(t, func(c *Config) { c.BatchWorkers = 2 })
	var body bytes.Buffer
	for i := range 5 {
		body.Write(request(fmt.Sprintf("b%d", i), 1, "DONE"))
		body.WriteString("\n")
		if i == 2 {
			body.WriteString("{\"task\": \n\n")
		}
	}
	res := e.do("POST", "/v1/batches", "", body.Bytes())
	if res.status != 202 {
		t.Fatalf("%d %s", res.status, res.body)
	}
	st := decode[api.BatchStatus](t, res.body)
	if st.Total != 6 || res.header.Get("Location") != "/v1/batches/"+st.ID {
		t.Fatalf("created: %+v, Location %q", st, res.header.Get("Location"))
	}
	st = e.waitBatch(DefaultTenant, "", st.ID)
	if st.Done != 5 || st.Failed != 1 || st.Pending != 0 || st.FinishedAt == nil {
		t.Errorf("finished: %+v", st)
	}
	out := e.do("GET", "/v1/batches/"+st.ID+"/results", "", nil)
	lines := strings.Split(strings.TrimSpace(string(out.body)), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d result lines:\n%s", len(lines), out.body)
	}
	if !strings.Contains(lines[3], `"line":4`) || !strings.Contains(lines[3], `"syntax"`) {
		t.Errorf("line 4 is not the bad line's error: %s", lines[3])
	}
	for i, want := range []string{"b0", "b1", "b2", "", "b3", "b4"} {
		if want != "" && !strings.Contains(lines[i], `"id":"`+want+`"`) {
			t.Errorf("line %d: want report %s, got %.80s", i+1, want, lines[i])
		}
	}
	if alt := e.do("GET", "/v1/batches/"+st.ID+"?format=jsonl", "", nil); !bytes.Equal(alt.body, out.body) {
		t.Error("?format=jsonl differs from /results")
	}
	// An item with the id and attempt of a logged verification is not
	// verified again; with another body it is a conflict.
	res = e.do("POST", "/v1/batches", "", fmt.Appendf(nil, "%s\n%s\n", request("b0", 1, "DONE"), request("b1", 1, "changed")))
	st = e.waitBatch(DefaultTenant, "", decode[api.BatchStatus](t, res.body).ID)
	again := strings.Split(strings.TrimSpace(string(e.do("GET", "/v1/batches/"+st.ID+"/results", "", nil).body)), "\n")
	if st.Done != 1 || st.Failed != 1 || again[0] != lines[0] || !strings.Contains(again[1], "idempotency_conflict") {
		t.Errorf("a batch of logged ids: %+v\n%s", st, strings.Join(again, "\n"))
	}
	// A JSON array works too.
	arr := fmt.Appendf(nil, "[%s,%s]", request("a0", 1, "DONE"), request("a1", 1, "no"))
	res = e.do("POST", "/v1/batches", "", arr)
	if res.status != 202 {
		t.Fatalf("array: %d %s", res.status, res.body)
	}
	if st := e.waitBatch(DefaultTenant, "", decode[api.BatchStatus](t, res.body).ID); st.Done != 2 {
		t.Errorf("array batch: %+v", st)
	}
	if res := e.do("POST", "/v1/batches", "", []byte("\n\n")); res.status != 400 {
		t.Errorf("empty batch: %d", res.status)
	}
}

// readEvents reads SSE events from a stream until n have come.
func readEvents(t *testing.T, r io.Reader, n int) (ids []string, types []string) {
	t.Helper()
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for len(types) < n && sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			ids = append(ids, strings.TrimPrefix(line, "id: "))
		case strings.HasPrefix(line, "event: "):
			types = append(types, strings.TrimPrefix(line, "event: "))
		}
	}
	return ids, types
}

func TestEventsResume(t *testing.T) { testEventsResume(t, newEnv) }

func testEventsResume(t *testing.T, newEnv envMaker) {
	e := newEnv(t, nil)
	e.do("POST", "/v1/verify", "", request("e1", 1, "DONE"))
	e.do("POST", "/v1/verify", "", request("e2", 1, "nope"))
	req, _ := http.NewRequestWithContext(t.Context(), "GET", e.http.URL+"/v1/events", nil)
	req.Header.Set("Last-Event-ID", "0")
	res, err := e.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	// e1 passes (complete); e2 is sent back (complete, retry).
	ids, types := readEvents(t, res.Body, 3)
	if strings.Join(types, ",") != "verification:complete,verification:complete,verification:retry" {
		t.Fatalf("types %v", types)
	}
	// Resuming after the first event gives the other two, and then a new
	// one as it is stored.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, _ = http.NewRequestWithContext(ctx, "GET", e.http.URL+"/v1/events", nil)
	req.Header.Set("Last-Event-ID", ids[0])
	res2, err := e.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res2.Body.Close()
	got := make(chan []string, 1)
	go func() {
		ids2, _ := readEvents(t, res2.Body, 3)
		got <- ids2
	}()
	e.do("POST", "/v1/verify", "", request("e3", 1, "DONE"))
	ids2 := <-got
	if len(ids2) != 3 || ids2[0] != ids[1] || ids2[1] != ids[2] {
		t.Errorf("resumed ids %v after %s, first stream %v", ids2, ids[0], ids)
	}
}

func TestHealthAndMetrics(t *testing.T) {
	e := newEnv(t, nil)
	if res := e.do("GET", "/healthz", "", nil); res.status != 200 {
		t.Errorf("healthz %d", res.status)
	}
	if res := e.do("GET", "/readyz", "", nil); res.status != 200 {
		t.Errorf("readyz %d", res.status)
	}
	e.do("POST", "/v1/verify", "", request("m1", 1, "DONE"))
	res := e.do("GET", "/metrics", "", nil)
	for _, want := range []string{
		`vouch_verifications_total{kind="subtask",verdict="pass"} 1`,
		`vouch_http_requests_total{code="200",route="POST /v1/verify"} 1`,
		`vouch_store_duration_seconds_count{op="insert"} 1`,
		`vouch_http_request_duration_seconds_bucket{code="200",route="POST /v1/verify"`,
		"vouch_batch_queue_depth 0",
	} {
		if !bytes.Contains(res.body, []byte(want)) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// The verification's commit, and its write in it.
	for _, name := range []string{"vouch_store_commits_total", "vouch_store_writes_total"} {
		if n, ok := metricValue(t, res.body, name); !ok || n < 1 {
			t.Errorf("%s = %v (given: %v), want at least 1", name, n, ok)
		}
	}
	if res := e.do("GET", "/openapi.json", "", nil); res.status != 200 || !json.Valid(res.body) {
		t.Errorf("openapi.json: %d", res.status)
	}
}

func TestInFlightLimit(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxInFlight = 1 })
	// Another caller holds the only slot.
	if full := e.srv.slots.enter("addr:192.0.2.1"); full != "" {
		t.Fatalf("taking the only slot: %s", full)
	}
	res := e.do("POST", "/v1/verify", "", request("x", 1, "DONE"))
	if res.status != 429 || res.header.Get("Retry-After") == "" || !bytes.Contains(res.body, []byte("server's limit")) {
		t.Fatalf("second request: %d, Retry-After %q: %s", res.status, res.header.Get("Retry-After"), res.body)
	}
	// The dashboard's pages count too; its static files do not.
	if res := e.do("GET", "/calibration", "", nil); res.status != 429 {
		t.Errorf("a dashboard page past the limit: %d", res.status)
	}
	if res := e.do("GET", "/static/style.css", "", nil); res.status != 200 {
		t.Errorf("a static file past the limit: %d", res.status)
	}
	if res := e.do("GET", "/healthz", "", nil); res.status != 200 {
		t.Errorf("healthz is not limited: %d", res.status)
	}
	e.srv.slots.leave("addr:192.0.2.1")
	if res := e.do("POST", "/v1/verify", "", request("x", 1, "DONE")); res.status != 200 {
		t.Errorf("with the slot given back: %d %s", res.status, res.body)
	}
}

// addrListener is a listener that claims an address it does not have.
type addrListener struct {
	net.Listener
	addr net.Addr
}

func (l addrListener) Addr() net.Addr { return l.addr }

func TestRefusesPublicAddressWithoutKeys(t *testing.T) {
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "v.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Options{Config: DefaultConfig(), Store: st})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	err = srv.Run(t.Context(), addrListener{ln, &net.TCPAddr{IP: net.IPv4(10, 1, 2, 3), Port: 8080}})
	if err == nil || !strings.Contains(err.Error(), "only listens on loopback") {
		t.Fatalf("Run on a public address without keys: %v", err)
	}
}

func TestGracefulShutdown(t *testing.T) {
	dsn := filepath.Join(t.TempDir(), "v.db")
	st, err := store.Open(t.Context(), dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Options{Config: DefaultConfig(), Store: st})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	ran := make(chan error, 1)
	go func() { ran <- srv.Run(ctx, ln) }()
	url := "http://" + ln.Addr().String()
	// A request in flight when shutdown begins is answered.
	pr, pw := io.Pipe()
	answered := make(chan int, 1)
	go func() {
		res, err := http.Post(url+"/v1/verify", "application/json", pr)
		if err != nil {
			answered <- 0
			return
		}
		res.Body.Close()
		answered <- res.StatusCode
	}()
	pw.Write(request("g1", 1, "DONE")[:10])
	// Wait until the server is reading its body.
	for srv.bodies.inUse() == 0 {
		runtime.Gosched()
	}
	cancel()
	pw.Write(request("g1", 1, "DONE")[10:])
	pw.Close()
	if code := <-answered; code != 200 {
		t.Errorf("in-flight request: %d", code)
	}
	if err := <-ran; err != nil {
		t.Fatalf("Run: %v", err)
	}
	st2, err := store.Open(t.Context(), dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	if _, err := st2.Get(t.Context(), DefaultTenant, "g1", 1); err != nil {
		t.Errorf("the drained request is not in the log: %v", err)
	}
}

// TestPostgres runs the server's store-bound tests on PostgreSQL (when
// VOUCH_TEST_PG_DSN is set), each on a schema of its own.
func TestPostgres(t *testing.T) {
	server := storetest.PostgresServer(t)
	pgEnv := func(t testing.TB, mut func(*Config)) *testEnv {
		return newEnvOn(t, storetest.PostgresSchema(t, server), mut)
	}
	for name, test := range map[string]func(*testing.T, envMaker){
		"VerifyStoresAndReads":          testVerifyStoresAndReads,
		"Idempotency":                   testIdempotency,
		"ConcurrentSameKeyVerifiesOnce": testConcurrentSameKeyVerifiesOnce,
		"Batch":                         testBatch,
		"EventsResume":                  testEventsResume,
		"VerifyTask":                    testVerifyTask,
		"AuthAndScopes":                 testAuthAndScopes,
		"TenantIsolation":               testTenantIsolation,
		"QualityLoop":                   testQualityLoop,
		"Alerts":                        testAlerts,
		"Reverify":                      testReverify,
	} {
		t.Run(name, func(t *testing.T) { test(t, pgEnv) })
	}
}

// downStore is a store whose Ping fails as pgx's does, naming its user,
// host and database.
type downStore struct{ store.Store }

func (downStore) Ping(context.Context) error {
	return errors.New(`failed to connect to user=vouch_admin database=vouch_prod: 10.1.2.3:5432 (db.internal): dial error`)
}

// TestReadyStoreDown: /readyz says the store is unavailable and no more;
// the details go to the log.
func TestReadyStoreDown(t *testing.T) {
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "v.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvStore(t, downStore{st})
	res := e.do("GET", "/readyz", "", nil)
	if res.status != 503 || !bytes.Contains(res.body, []byte("store_unavailable")) {
		t.Fatalf("readyz with the store down: %d %s", res.status, res.body)
	}
	for _, secret := range []string{"vouch_admin", "vouch_prod", "10.1.2.3", "db.internal"} {
		if bytes.Contains(res.body, []byte(secret)) {
			t.Errorf("readyz tells anyone %q: %s", secret, res.body)
		}
	}
}

// TestCompletedCountsWhatItWrote: a batch item's verification is counted
// in the metrics only when its completion wrote it (the store gave it a
// Seq), not when another try of the job completed the item first.
func TestCompletedCountsWhatItWrote(t *testing.T) {
	e := newEnv(t, nil)
	rep := &vouch.Report{Kind: vouch.KindSubtask, Verdict: vouch.VerdictPass}
	const series = `vouch_verifications_total{kind="subtask",verdict="pass"}`
	for _, c := range []struct {
		seq  int64
		want float64
	}{{0, 0}, {7, 1}} { // wrote nothing; then wrote its verification
		e.srv.completed(DefaultTenant, itemOutcome{report: rep, row: &store.Verification{Seq: c.seq}})
		if n, ok := metricValue(t, e.do("GET", "/metrics", "", nil).body, series); !ok || n != c.want {
			t.Errorf("after a completion that gave Seq %d: %s = %v (given: %v), want %v", c.seq, series, n, ok, c.want)
		}
	}
}

// metricValue is the value /metrics gives series (a name, with its
// labels if any); ok is false when it gives none.
func metricValue(t *testing.T, body []byte, series string) (float64, bool) {
	t.Helper()
	for line := range strings.SplitSeq(string(body), "\n") {
		if v, found := strings.CutPrefix(line, series+" "); found {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("/metrics: %s: %v", line, err)
			}
			return n, true
		}
	}
	return 0, false
}
