package main

// The failure tests of the job queue, with processes: `vouch serve` and
// `vouch worker` built with the tag vouchfault (the check kind "fault",
// cmd/vouch/internal/fault), on a PostgreSQL schema of each test's own, on
// loopback. A worker is killed, the database restarted, a request
// crashes its verification or its process, and each batch still ends
// with every item's report written exactly once.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/store/storetest"
)

// faultBuild is the vouch binary built with -tags vouchfault, once per
// run of the tests; TestMain removes its directory.
var faultBuild struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// faultBinary returns the path of vouch built with -tags vouchfault,
// building it at the first call.
func faultBinary(t *testing.T) string {
	t.Helper()
	faultBuild.once.Do(func() {
		dir, err := os.MkdirTemp("", "vouch-fault-")
		if err != nil {
			faultBuild.err = err
			return
		}
		faultBuild.dir = dir
		bin := filepath.Join(dir, "vouch")
		// The package under test is the working directory.
		out, err := exec.Command("go", "build", "-tags", "vouchfault", "-o", bin, ".").CombinedOutput()
		if err != nil {
			faultBuild.err = fmt.Errorf("go build -tags vouchfault: %v\n%s", err, out)
			return
		}
		faultBuild.bin = bin
	})
	if faultBuild.err != nil {
		t.Fatal(faultBuild.err)
	}
	return faultBuild.bin
}

// removeFaultBinary removes the vouchfault binary's directory, if one was
// built.
func removeFaultBinary() {
	if faultBuild.dir != "" {
		os.RemoveAll(faultBuild.dir)
	}
}

// proc is a process started by a test, killed when the test ends: its
// output (standard output and error) is kept, and its end is known.
type proc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has ended
	err  error         // what cmd.Wait returned, once done is closed

	mu  sync.Mutex
	out bytes.Buffer
}

// Write implements io.Writer: the process's output.
func (p *proc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// exited reports whether the process has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// startProc starts bin with args; the test's cleanup kills it and, when
// the test failed, logs the end of its output.
func startProc(t *testing.T, name, bin string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, cmd: exec.Command(bin, args...), done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), "VOUCH_CACHE=off")
	p.cmd.Stdout, p.cmd.Stderr = p, p
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("%s (pid %d) wrote:\n%s", p.name, p.cmd.Process.Pid, lastLines(p.output(), 30))
		}
	})
	return p
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}

// waitFor polls cond until it holds, failing the test after timeout.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not %s within %s", what, timeout)
		}
		time.Sleep(20 * time.Millisecond) // polling a condition, not synchronising
	}
}

// waitOutput waits until the process has written want n times, failing
// the test when it ends first or after timeout.
func (p *proc) waitOutput(t *testing.T, want string, n int, timeout time.Duration) {
	t.Helper()
	waitFor(t, timeout, fmt.Sprintf("%q written %d times by %s", want, n, p.name), func() bool {
		if p.exited() {
			t.Fatalf("%s ended (%v) before writing %q %d times", p.name, p.err, want, n)
		}
		return strings.Count(p.output(), want) >= n
	})
}

// announcedLine is what a worker logs when it has announced itself, so
// that the servers leave the jobs to the workers.
const announcedLine = `"msg":"announced:`

// queueEnv is a store on a PostgreSQL schema of the test's own, and a
// configuration with short timeouts, for serve and worker processes of
// the vouchfault binary.
type queueEnv struct {
	t      *testing.T
	bin    string
	dsn    string
	config string
}

// newQueueEnv makes the schema and the configuration: verifications
// bounded at 2s, so a job taken by a worker that died is rescued after
// 13s; a crashed job tried attempts times, 50ms apart.
func newQueueEnv(t *testing.T, attempts int) *queueEnv {
	t.Helper()
	dsn := storetest.PostgresSchema(t, storetest.PostgresServer(t))
	e := &queueEnv{t: t, bin: faultBinary(t), dsn: dsn, config: filepath.Join(t.TempDir(), "vouch.yaml")}
	cfg := fmt.Sprintf("timeouts: {verify: 2s, shutdown: 5s}\nqueue: {attempts: %d, retryBackoff: 50ms, rescueAfter: 13s}\n", attempts)
	if err := os.WriteFile(e.config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return e
}

// worker starts a `vouch worker` (with more args, if any) and waits
// until it has announced itself.
func (e *queueEnv) worker(name string, args ...string) *proc {
	e.t.Helper()
	p := startProc(e.t, name, e.bin, append([]string{"worker", "--store", e.dsn, "--config", e.config}, args...)...)
	p.waitOutput(e.t, announcedLine, 1, time.Minute)
	return p
}

// serve starts a `vouch serve` on loopback and returns it with its base
// URL once it listens. Started after the workers have announced
// themselves, it never works a job.
func (e *queueEnv) serve() (*proc, string) {
	e.t.Helper()
	p := startProc(e.t, "serve", e.bin, "serve", "--addr", "127.0.0.1:0", "--store", e.dsn, "--config", e.config)
	p.waitOutput(e.t, "listening on ", 1, time.Minute)
	_, rest, _ := strings.Cut(p.output(), "listening on ")
	url, _, _ := strings.Cut(rest, " ")
	return p, url
}

var httpClient = &http.Client{Timeout: 30 * time.Second}

// postBatch posts a batch of JSONL requests and returns its id.
func postBatch(t *testing.T, url string, lines []string) string {
	t.Helper()
	res, err := httpClient.Post(url+"/v1/batches", "application/jsonl", strings.NewReader(strings.Join(lines, "\n")+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var st api.BatchStatus
	if err := json.NewDecoder(res.Body).Decode(&st); err != nil || res.StatusCode != http.StatusAccepted || st.ID == "" {
		t.Fatalf("POST /v1/batches: %d %+v %v", res.StatusCode, st, err)
	}
	return st.ID
}

// batchStatus reads a batch's status; false when the server answered
// 503 (the store failed: retry).
func batchStatus(t *testing.T, url, id string) (api.BatchStatus, bool) {
	t.Helper()
	res, err := httpClient.Get(url + "/v1/batches/" + id)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var st api.BatchStatus
	if res.StatusCode == http.StatusServiceUnavailable {
		b, _ := io.ReadAll(res.Body)
		t.Logf("GET /v1/batches/%s: 503 %s", id, bytes.TrimSpace(b))
		return st, false
	}
	if err := json.NewDecoder(res.Body).Decode(&st); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/batches/%s: %d %v", id, res.StatusCode, err)
	}
	return st, true
}

// waitBatch polls a batch until it is done, calling each (when not nil)
// with every status read, and returns the last.
func waitBatch(t *testing.T, url, id string, timeout time.Duration, each func(api.BatchStatus)) api.BatchStatus {
	t.Helper()
	var st api.BatchStatus
	waitFor(t, timeout, "batch "+id+" done", func() bool {
		var ok bool
		if st, ok = batchStatus(t, url, id); !ok {
			return false
		}
		if each != nil {
			each(st)
		}
		return st.State != "running"
	})
	return st
}

// killMidBatch waits until between 10% and 90% of the batch is done and
// does act, then waits for the batch to be done.
func killMidBatch(t *testing.T, url, id string, ready func() bool, act func(api.BatchStatus)) api.BatchStatus {
	t.Helper()
	acted := false
	st := waitBatch(t, url, id, 3*time.Minute, func(st api.BatchStatus) {
		if acted || st.Done < st.Total/10 || ready != nil && !ready() {
			return
		}
		if st.Done > st.Total*9/10 {
			t.Fatalf("the batch was %d/%d done before the test could act mid-way: make it bigger", st.Done, st.Total)
		}
		acted = true
		act(st)
	})
	if !acted {
		t.Fatalf("the batch ended before the test acted: %+v", st)
	}
	return st
}

// subtasks are n small subtask requests, each with a contains criterion
// its summary meets.
func subtasks(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(`{"id":"%s-%d","kind":"subtask","task":{"goal":"say done","criteria":[{"id":"done","must":true,"check":{"type":"contains","value":"DONE"}}]},"output":{"summary":"DONE %d"}}`, prefix, i, i)
	}
	return out
}

// db connects to the test's schema.
func (e *queueEnv) db() *pgx.Conn {
	e.t.Helper()
	c, err := pgx.Connect(context.Background(), e.dsn)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// count runs a query returning one number.
func count(t *testing.T, c *pgx.Conn, query string, args ...any) int {
	t.Helper()
	var n int
	if err := c.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// checkExactlyOnce checks that each of a batch's total items is done with
// its report, written once, and that no job of the batch is left
// unfinished. The schema holds this batch alone.
func (e *queueEnv) checkExactlyOnce(id string, total int) {
	t := e.t
	t.Helper()
	c := e.db()
	ctx := context.Background()
	rows, err := c.Query(ctx, `SELECT id, count(*) FROM verification_logs GROUP BY id HAVING count(*) > 1 ORDER BY id LIMIT 5`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var rid string
		var n int
		if err := rows.Scan(&rid, &n); err != nil {
			t.Fatal(err)
		}
		t.Errorf("request %s has %d verification rows, want 1", rid, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n := count(t, c, `SELECT count(*) FROM verification_logs`); n != total {
		t.Errorf("%d verification rows, want %d", n, total)
	}
	if n := count(t, c, `SELECT count(*) FROM batch_items i JOIN verification_logs v
			ON v.tenant = i.tenant AND v.id = i.verification_id AND v.attempt = i.attempt
		WHERE i.batch_id = $1 AND i.state = 'done'`, id); n != total {
		t.Errorf("%d items done with their verification, want %d", n, total)
	}
	// River completes a job after its item, a batch of jobs at a time; a
	// completion lost with its process (killed, or cut from PostgreSQL)
	// waits for the job's rescue (queue.rescueAfter, then River's rescuer
	// runs every 30s) and retry, which finds the item done.
	waitFor(t, 2*time.Minute, "every job of the batch completed", func() bool {
		return count(t, c, `SELECT count(*) FROM river_job WHERE args->>'batch' = $1 AND state <> 'completed'`, id) == 0
	})
	// Each item was some job's: its own, or its run's.
	if n := count(t, c, `SELECT count(*) FROM batch_items i WHERE i.batch_id = $1 AND NOT EXISTS (
			SELECT 1 FROM river_job j WHERE j.args->>'batch' = $1
				AND i.idx >= COALESCE((j.args->>'from')::int, (j.args->>'index')::int)
				AND i.idx < COALESCE((j.args->>'to')::int, (j.args->>'index')::int + 1))`, id); n != 0 {
		t.Errorf("%d items of the batch had no job", n)
	}
}

// rescued counts the jobs of a batch that River's rescuer took from a
// worker that stopped working them.
func (e *queueEnv) rescued(id string) int {
	return count(e.t, e.db(), `SELECT count(*) FROM river_job WHERE args->>'batch' = $1
		AND EXISTS (SELECT 1 FROM unnest(errors) e WHERE e->>'error' LIKE 'Stuck job rescued%')`, id)
}

// TestWorkerKill9: a worker killed with SIGKILL mid-batch loses no item
// and duplicates none. The other worker works the rest, and the jobs the
// dead one held once River's rescuer has made them available again.
func TestWorkerKill9(t *testing.T) {
	t.Parallel()
	e := newQueueEnv(t, 3)
	w1, w2 := e.worker("worker 1", "--workers", "8"), e.worker("worker 2", "--workers", "8")
	serve, url := e.serve()
	const total = 3000
	id := postBatch(t, url, subtasks("k", total))
	start := time.Now()
	// Each worker works 8 jobs at once: with more than 8 running, worker 1
	// holds some when it is killed (on a busy machine it may not yet have
	// fetched any at a tenth of the batch).
	running := e.db()
	st := killMidBatch(t, url, id, func() bool {
		return count(t, running, `SELECT count(*) FROM river_job WHERE args->>'batch' = $1 AND state = 'running'`, id) > 8
	}, func(st api.BatchStatus) {
		w1.cmd.Process.Kill()
		t.Logf("killed worker 1 at %d/%d done, %s after the batch was posted", st.Done, st.Total, time.Since(start).Round(time.Millisecond))
	})
	t.Logf("batch done %s after it was posted", time.Since(start).Round(time.Millisecond))
	if st.State != "done" || st.Done != total || st.Failed != 0 {
		t.Fatalf("batch: %+v", st)
	}
	e.checkExactlyOnce(id, total)
	if n := e.rescued(id); n == 0 {
		t.Error("no job was rescued from the killed worker: the kill landed while it held none")
	} else {
		t.Logf("%d jobs rescued from the killed worker", n)
	}
	if w2.exited() || serve.exited() {
		t.Errorf("a process ended: worker 2 %v, serve %v", w2.exited(), serve.exited())
	}
}

// TestWorkerPostgresRestart: PostgreSQL restarted mid-batch (every
// connection cut) loses no item and duplicates none; the server and the
// worker outlive it, and the worker announces itself again. It restarts
// the server of VOUCH_TEST_PG_DSN with the command in
// VOUCH_TEST_PG_RESTART, so it must not run beside other tests on that
// server.
func TestWorkerPostgresRestart(t *testing.T) {
	storetest.PostgresServer(t) // skips, or fails, without one
	restart := os.Getenv("VOUCH_TEST_PG_RESTART")
	if restart == "" {
		if os.Getenv("VOUCH_TEST_PG_REQUIRED") != "" {
			t.Fatal("VOUCH_TEST_PG_REQUIRED is set but VOUCH_TEST_PG_RESTART is not: the PostgreSQL restart test cannot be skipped here")
		}
		t.Skip("VOUCH_TEST_PG_RESTART is not set: set it to a shell command that restarts the PostgreSQL server of " +
			"VOUCH_TEST_PG_DSN and waits until it accepts connections (pg_ctl ... -w -m fast restart) to run this test; " +
			"it cuts every connection to that server, so run it alone: go test -run TestWorkerPostgresRestart ./cmd/vouch")
	}
	e := newQueueEnv(t, 3)
	w := e.worker("worker")
	serve, url := e.serve()
	const total = 3000
	id := postBatch(t, url, subtasks("r", total))
	start := time.Now()
	st := killMidBatch(t, url, id, nil, func(st api.BatchStatus) {
		t.Logf("restarting PostgreSQL at %d/%d done", st.Done, st.Total)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, "sh", "-c", restart).CombinedOutput()
		if err != nil {
			t.Fatalf("VOUCH_TEST_PG_RESTART (%s): %v\n%s", restart, err, out)
		}
		t.Logf("PostgreSQL restarted %s after the batch was posted", time.Since(start).Round(time.Millisecond))
	})
	t.Logf("batch done %s after it was posted", time.Since(start).Round(time.Millisecond))
	if st.State != "done" || st.Done != total || st.Failed != 0 {
		t.Fatalf("batch: %+v", st)
	}
	e.checkExactlyOnce(id, total)
	w.waitOutput(t, announcedLine, 2, 30*time.Second)
	// The server takes a batch again, and the worker works it.
	id = postBatch(t, url, subtasks("after", 10))
	if st := waitBatch(t, url, id, time.Minute, nil); st.State != "done" || st.Done != 10 {
		t.Errorf("a batch after the restart: %+v", st)
	}
	if w.exited() || serve.exited() {
		t.Errorf("a process ended: worker %v, serve %v", w.exited(), serve.exited())
	}
}

// batchResults reads a batch's results, one JSON line per request in
// input order.
func batchResults(t *testing.T, url, id string) []string {
	t.Helper()
	res, err := httpClient.Get(url + "/v1/batches/" + id + "/results")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET results: %d %v", res.StatusCode, err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// checkPoisonResults checks a batch's results: the line of the poison
// (at index poison) is an error whose message holds want, the others are
// reports of their requests.
func checkPoisonResults(t *testing.T, lines []string, ids []string, poison int, want string) {
	t.Helper()
	if len(lines) != len(ids) {
		t.Fatalf("%d result lines, want %d:\n%s", len(lines), len(ids), strings.Join(lines, "\n"))
	}
	for i, line := range lines {
		var r struct {
			ID      string `json:"id"`
			Verdict string `json:"verdict"`
			Line    int    `json:"line"`
			Error   *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("result %d %q: %v", i+1, line, err)
		}
		switch {
		case i == poison && (r.Error == nil || r.Line != i+1 || !strings.Contains(r.Error.Message, want)):
			t.Errorf("result %d, the poison's: %s; want an error saying %q", i+1, line, want)
		case i != poison && (r.Error != nil || r.ID != ids[i] || r.Verdict != "pass"):
			t.Errorf("result %d: %s; want the passing report of %s", i+1, line, ids[i])
		}
	}
}

// poisonBatch is a batch of good requests with one whose check is
// fault, with the given parameters, at index 2.
func poisonBatch(fault string) (lines, ids []string) {
	lines = subtasks("good", 5)
	lines[2] = `{"id":"poison","kind":"subtask","task":{"goal":"say done","criteria":[{"id":"f","check":{"type":"fault",` + fault + `}}]},"output":{"summary":"DONE"}}`
	for _, l := range lines {
		var r struct{ ID string }
		json.Unmarshal([]byte(l), &r)
		ids = append(ids, r.ID)
	}
	return lines, ids
}

// TestWorkerPoisonPanic: a request whose check panics is tried
// queue.attempts times, then its item is an error that says so; the
// rest of the batch is verified, and no process ends.
func TestWorkerPoisonPanic(t *testing.T) {
	t.Parallel()
	const attempts = 3
	e := newQueueEnv(t, attempts)
	w := e.worker("worker")
	serve, url := e.serve()
	lines, ids := poisonBatch(`"panic":"poison"`)
	id := postBatch(t, url, lines)
	st := waitBatch(t, url, id, time.Minute, nil)
	if st.State != "done" || st.Done != len(lines)-1 || st.Failed != 1 {
		t.Fatalf("batch: %+v", st)
	}
	checkPoisonResults(t, batchResults(t, url, id), ids, 2, fmt.Sprintf("crashed on each of %d attempts", attempts))
	if n := count(t, e.db(), `SELECT attempt FROM river_job WHERE args->>'batch' = $1 AND args->>'index' = '2'`, id); n != attempts {
		t.Errorf("the poison's job was tried %d times, want %d", n, attempts)
	}
	if w.exited() || serve.exited() {
		t.Errorf("a process ended: worker %v, serve %v", w.exited(), serve.exited())
	}
}

// TestWorkerPoisonExit: a request whose verification ends its process
// (os.Exit, as a crash of the runtime or the kernel's OOM killer would)
// kills a worker at each attempt. The test restarts workers as a
// supervisor would; River's rescuer takes the job from each dead worker,
// for a retry while attempts remain and then discarding it, and a
// worker's sweep ends the item as an error; the rest of the batch is
// verified. Each rescue waits for the rescuer's run, every 30s (fixed in
// River) once the job is older than queue.rescueAfter: about a minute
// with two attempts.
//
// The workers work one job at a time (--workers 1): a process that dies
// takes down every job it was working, and each of those loses an
// attempt, so a good request worked beside the poison at each of its
// attempts would end as an error too.
func TestWorkerPoisonExit(t *testing.T) {
	t.Parallel()
	const attempts = 2
	e := newQueueEnv(t, attempts)
	worker := func(n int) *proc { return e.worker(fmt.Sprintf("worker %d", n), "--workers", "1") }
	workers := []*proc{worker(1), worker(2)}
	serve, url := e.serve()
	lines, ids := poisonBatch(`"exit":3`)
	start := time.Now()
	id := postBatch(t, url, lines)
	exits, started := 0, len(workers)
	st := waitBatch(t, url, id, 4*time.Minute, func(api.BatchStatus) {
		// The supervisor: a worker that ended is replaced, a bounded
		// number of times.
		for i, w := range workers {
			if !w.exited() {
				continue
			}
			exits++
			if code := w.cmd.ProcessState.ExitCode(); code != 3 {
				t.Fatalf("%s ended with status %d, want 3 (the fault's)", w.name, code)
			}
			if exits > attempts {
				t.Fatalf("%d workers ended, for a request tried %d times", exits, attempts)
			}
			t.Logf("%s ended %s after the batch was posted: starting another", w.name, time.Since(start).Round(time.Millisecond))
			started++
			workers[i] = worker(started)
		}
	})
	t.Logf("batch done %s after it was posted", time.Since(start).Round(time.Millisecond))
	if st.State != "done" || st.Done != len(lines)-1 || st.Failed != 1 {
		t.Fatalf("batch: %+v", st)
	}
	if exits != attempts {
		t.Errorf("%d workers ended, want %d (one per attempt)", exits, attempts)
	}
	checkPoisonResults(t, batchResults(t, url, id), ids, 2, fmt.Sprintf("did not finish in %d attempts", attempts))
	var state string
	var tried int
	if err := e.db().QueryRow(context.Background(), `SELECT state, attempt FROM river_job WHERE args->>'batch' = $1 AND args->>'index' = '2'`, id).Scan(&state, &tried); err != nil {
		t.Fatal(err)
	}
	if state != "discarded" || tried != attempts {
		t.Errorf("the poison's job: %s after %d attempts, want discarded after %d", state, tried, attempts)
	}
	if serve.exited() {
		t.Errorf("serve ended: %v", serve.err)
	}
}
