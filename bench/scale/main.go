// Command scale measures how batches on PostgreSQL scale with `vouch
// worker` processes: for each count of workers it posts one batch of -n
// requests to a `vouch serve` and times it until every item is done,
// each count on a fresh schema of the database of -store, with vouch
// built once from ./cmd/vouch (no build tags).
//
//	go run ./bench/scale                            # 100,000 requests; 1, 2 and 4 workers; $VOUCH_TEST_PG_DSN
//	go run ./bench/scale -n 10000 -workers 2 -store postgres://...
//	go run ./bench/scale -keep                      # keep the schemas to look at them after
//
// Each request is a subtask with five text criteria (contains,
// case-insensitive contains, regex, negated contains, length) over a
// summary of about 1 KB, as the other benchmarks use. The workers start
// first and announce themselves, so the server, started after them,
// leaves every job to them; each works as many jobs at once as vouch
// worker does by default (batchWorkers, else four per CPU).
//
// For each count of workers it prints:
//   - wall: from the POST of the batch to its last item done (polled every
//     100 ms), and how long the POST took (the batch, its items and its
//     jobs, a job per run of up to 32 requests, inserted in one
//     transaction);
//   - throughput: requests per second of wall time;
//   - job latency, p50 and p99, from River's river_job rows: finalized_at -
//     created_at (from the job's insert, in the POST's transaction, to its
//     completion), and work time, finalized_at - attempted_at (from its
//     fetch by a worker to its completion);
//   - CPU: the user plus system time of the PostgreSQL server's processes
//     (every local process named postgres, with the time of the backends
//     that ended during the run, which the postmaster collects) and of the
//     vouch processes (the server and the workers), the share of the
//     total that was PostgreSQL's, and the cores each used on average
//     over the wall time. PostgreSQL's work for other clients is counted
//     as the run's, and the CPU time of the machine's other processes is
//     printed when it is over a tenth of a core: run nothing else
//     meanwhile. Without a local PostgreSQL (another machine), its CPU is
//     not measured;
//   - the machine: its cores busy over the run (/proc/stat), and those
//     idle: more workers can make a batch faster only while some are;
//   - the jobs tried more than once, and the transactions committed in
//     the database (pg_stat_database) per request: River's fetches and
//     completions, the items', the server's polls;
//   - store growth: pg_total_relation_size (table, indexes and TOAST) of
//     verification_logs, events, batch_items and river_job, and of every
//     table of the schema, as left by the run (no VACUUM), per verification
//     and extrapolated to 1,000,000 verifications.
//
// While it works, a line on standard error says what it is doing (the
// build, the processes starting, the POST) and draws the batch's progress,
// when standard error is a terminal; otherwise the batch's progress is
// written every 10 s.
//
// Each run is bounded by -timeout. The processes are stopped and the
// schemas dropped (unless -keep) at the end, on an error, and on SIGINT or
// SIGTERM.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vouchgate/vouch/bench/internal/benchreq"
	"github.com/vouchgate/vouch/bench/internal/proccpu"

	"github.com/jackc/pgx/v5"

	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/bench/internal/pgschema"
	"github.com/vouchgate/vouch/text/plural"
)

func main() {
	n := flag.Int("n", 100_000, "requests in the batch")
	workers := flag.String("workers", "1,2,4", "the counts of vouch worker processes, comma-separated: one run each")
	dsn := flag.String("store", os.Getenv("VOUCH_TEST_PG_DSN"), "the PostgreSQL DSN (postgres://...); each run works in a fresh schema of its own (default $VOUCH_TEST_PG_DSN)")
	keep := flag.Bool("keep", false, "keep each run's schema (its name is printed) rather than dropping it")
	timeout := flag.Duration("timeout", 30*time.Minute, "the longest one run may take")
	flag.Parse()
	counts, err := parseCounts(*workers)
	if err == nil && *n < 1 {
		err = fmt.Errorf("-n %d: want at least one request", *n)
	}
	if err == nil && !strings.HasPrefix(*dsn, "postgres://") && !strings.HasPrefix(*dsn, "postgresql://") {
		err = errors.New("-store (or VOUCH_TEST_PG_DSN) must be a postgres:// DSN")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/scale:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second signal ends the command at once
	}()
	if err := run(ctx, *n, counts, *dsn, *keep, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "bench/scale:", err)
		os.Exit(1)
	}
}

// parseCounts reads -workers.
func parseCounts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 {
			return nil, fmt.Errorf("-workers %q: want positive counts separated by commas", s)
		}
		out = append(out, k)
	}
	return out, nil
}

// result is what one run measured.
type result struct {
	workers         int
	post, wall      time.Duration
	latency, work   [2]time.Duration // p50, p99
	pgCPU, vouchCPU time.Duration
	pgMeasured      bool
	sizes           []tableSize
	verifications   int64
	retried         int64
	commits         int64         // transactions committed in the database during the run
	busy            time.Duration // the CPU time of the whole machine during the run
}

// tableSize is the size on disk of a table with its indexes and TOAST.
type tableSize struct {
	name  string
	bytes int64
}

func run(ctx context.Context, n int, counts []int, dsn string, keep bool, timeout time.Duration) error {
	dir, err := os.MkdirTemp("", "vouch-bench-scale-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	st := newStatus()
	defer st.clear()
	bin := filepath.Join(dir, "vouch")
	st.step("building vouch (go build ./cmd/vouch; minutes with a cold cache)")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/vouch")
	var buildOut bytes.Buffer
	build.Stdout, build.Stderr = &buildOut, &buildOut
	if err := build.Run(); err != nil {
		st.clear()
		os.Stderr.Write(buildOut.Bytes())
		return fmt.Errorf("build: %w", err)
	}
	st.step("making the batch of %d requests", n)
	body := batchBody(n)
	st.step("asking PostgreSQL its version")
	version, where := serverVersion(ctx, dsn)
	st.clear()
	fmt.Printf("vouch worker scaling: one batch of %d requests x 5 text criteria (%.1f MB), PostgreSQL %s at %s, %d CPUs\n",
		n, float64(len(body))/(1<<20), version, where, runtime.NumCPU())
	var results []result
	for _, k := range counts {
		r, err := runOnce(ctx, st, bin, dir, dsn, body, n, k, keep, timeout)
		st.clear()
		if err != nil {
			return fmt.Errorf("%d workers: %w", k, err)
		}
		printResult(r, n)
		results = append(results, r)
	}
	if len(results) > 1 {
		printSummary(results, n)
	}
	return nil
}

// runOnce runs the batch with k workers on a fresh schema.
func runOnce(ctx context.Context, st *status, bin, dir, dsn string, body []byte, n, k int, keep bool, timeout time.Duration) (r result, err error) {
	r.workers = k
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// The schema is made and dropped outside ctx: it is dropped after an
	// interrupt too.
	st.step("%s: making a schema", plural.Count(k, "worker"))
	store, drop, err := pgschema.Create(context.Background(), dsn, fmt.Sprintf("vouch_scale_w%d", k))
	if err != nil {
		return r, fmt.Errorf("schema: %w", err)
	}
	if keep {
		defer fmt.Printf("  kept: %s\n", store)
	} else {
		defer drop()
	}
	defer st.clear() // before the lines above print
	var procs []*proc
	defer func() {
		for _, p := range procs {
			p.stop()
		}
	}()
	for i := range k {
		st.step("%s: starting worker %d", plural.Count(k, "worker"), i+1)
		p, err := startProc(bin, filepath.Join(dir, fmt.Sprintf("worker-%d-%d.log", k, i+1)), "worker", "--store", store)
		if err != nil {
			return r, err
		}
		procs = append(procs, p)
		// One at a time: the first migrates the schema.
		if err := p.waitFor(ctx, `"msg":"announced:`, time.Minute); err != nil {
			return r, fmt.Errorf("worker %d: %w", i+1, err)
		}
	}
	st.step("%s: starting the server", plural.Count(k, "worker"))
	serve, err := startProc(bin, filepath.Join(dir, fmt.Sprintf("serve-%d.log", k)), "serve", "--addr", "127.0.0.1:0", "--store", store)
	if err != nil {
		return r, err
	}
	procs = append(procs, serve)
	if err := serve.waitFor(ctx, "listening on ", time.Minute); err != nil {
		return r, fmt.Errorf("serve: %w", err)
	}
	_, rest, _ := strings.Cut(serve.seen("listening on "), "listening on ")
	url, _, _ := strings.Cut(rest, " ")

	pg0, pgOK := proccpu.Postgres()
	busy0 := machineBusy()
	c0, err := commits(ctx, dsn)
	if err != nil {
		return r, err
	}
	v0 := procsCPU(procs)
	st.step("%s: posting the batch (%.1f MB)", plural.Count(k, "worker"), float64(len(body))/(1<<20))
	start := time.Now()
	id, err := postBatch(ctx, url, body)
	if err != nil {
		return r, err
	}
	r.post = time.Since(start)
	if err := waitBatch(ctx, st, url, id, n, k, start); err != nil {
		return r, err
	}
	r.wall = time.Since(start)
	pg1, _ := proccpu.Postgres()
	r.busy = machineBusy() - busy0
	r.pgCPU, r.pgMeasured = pg1-pg0, pgOK
	// The statistics are flushed a second or so after a transaction.
	st.step("%s: measuring", plural.Count(k, "worker"))
	time.Sleep(1500 * time.Millisecond)
	c1, err := commits(ctx, dsn)
	if err != nil {
		return r, err
	}
	r.commits = c1 - c0
	r.vouchCPU = procsCPU(procs) - v0
	if serve.seen(`"msg":"working batch jobs"`) != "" {
		st.clear()
		fmt.Fprintf(os.Stderr, "bench/scale: with %d workers, the server worked jobs too (a worker's announcement was lost?)\n", k)
	}
	if err := measureStore(ctx, store, id, &r); err != nil {
		return r, err
	}
	return r, nil
}

// batchBody is n requests as JSONL (package benchreq).
func batchBody(n int) []byte {
	var b bytes.Buffer
	if err := benchreq.Write(&b, n); err != nil {
		panic(err) // writing to memory
	}
	return b.Bytes()
}

// serverVersion names the PostgreSQL server and where it is.
func serverVersion(ctx context.Context, dsn string) (version, where string) {
	version, where = "?", "?"
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return
	}
	where = fmt.Sprintf("%s:%d", cfg.Host, cfg.Port)
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return
	}
	defer c.Close(ctx)
	c.QueryRow(ctx, `SHOW server_version`).Scan(&version)
	return
}

var client = &http.Client{Timeout: 10 * time.Minute}

// postBatch posts the batch and returns its id.
func postBatch(ctx context.Context, url string, body []byte) (string, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", url+"/v1/batches", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/jsonl")
	res, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("POST /v1/batches: %w", err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var st api.BatchStatus
	if res.StatusCode != http.StatusAccepted || json.Unmarshal(b, &st) != nil || st.ID == "" {
		return "", fmt.Errorf("POST /v1/batches: %d %s", res.StatusCode, bytes.TrimSpace(b))
	}
	return st.ID, nil
}

// waitBatch polls the batch every 100 ms until no item is pending,
// drawing its progress on st (a terminal), or else writing it on stderr
// every 10 s.
func waitBatch(ctx context.Context, line *status, url, id string, n, k int, start time.Time) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("batch %s: %w", id, context.Cause(ctx))
		case <-tick.C:
		}
		req, err := http.NewRequestWithContext(ctx, "GET", url+"/v1/batches/"+id, nil)
		if err != nil {
			return err
		}
		res, err := client.Do(req)
		if err != nil {
			return fmt.Errorf("GET the batch: %w", err)
		}
		var st api.BatchStatus
		err = json.NewDecoder(res.Body).Decode(&st)
		res.Body.Close()
		if res.StatusCode == http.StatusServiceUnavailable {
			continue // the store failed once: poll again
		}
		if err != nil || res.StatusCode != http.StatusOK {
			return fmt.Errorf("GET the batch: %d %v", res.StatusCode, err)
		}
		if st.State != "running" {
			if st.Done != n || st.Failed != 0 {
				return fmt.Errorf("batch ended with %d done and %d failed of %d", st.Done, st.Failed, n)
			}
			return nil
		}
		if line != nil {
			line.batch(k, st.Done, n, time.Since(start))
			continue
		}
		if time.Since(last) >= 10*time.Second {
			last = time.Now()
			el := time.Since(start)
			fmt.Fprintf(os.Stderr, "  %d workers: %d/%d done after %s (%.0f/s)\n", k, st.Done, n, el.Round(time.Second), float64(st.Done)/el.Seconds())
		}
	}
}

// commits is the count of transactions committed in dsn's database so
// far (pg_stat_database), by every client: the run's, and any other.
func commits(ctx context.Context, dsn string) (int64, error) {
	var n int64
	err := pgschema.Row(ctx, dsn, `SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()`, &n)
	return n, err
}

// measureStore reads the jobs' latencies and the tables' sizes.
func measureStore(ctx context.Context, dsn, id string, r *result) error {
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	var lat, work [2]float64
	err = c.QueryRow(ctx, `SELECT
			percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM finalized_at - created_at)),
			percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM finalized_at - created_at)),
			percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM finalized_at - attempted_at)),
			percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM finalized_at - attempted_at)),
			count(*) FILTER (WHERE attempt > 1)
		FROM river_job WHERE state = 'completed' AND args->>'batch' = $1`, id).
		Scan(&lat[0], &lat[1], &work[0], &work[1], &r.retried)
	if err != nil {
		return fmt.Errorf("job latencies: %w", err)
	}
	for i := range 2 {
		r.latency[i] = time.Duration(lat[i] * float64(time.Second))
		r.work[i] = time.Duration(work[i] * float64(time.Second))
	}
	if err := c.QueryRow(ctx, `SELECT count(*) FROM verification_logs`).Scan(&r.verifications); err != nil {
		return err
	}
	for _, t := range []string{"verification_logs", "events", "batch_items", "river_job"} {
		var b int64
		if err := c.QueryRow(ctx, `SELECT pg_total_relation_size(to_regclass($1))`, t).Scan(&b); err != nil {
			return fmt.Errorf("size of %s: %w", t, err)
		}
		r.sizes = append(r.sizes, tableSize{t, b})
	}
	var total int64
	err = c.QueryRow(ctx, `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
		JOIN pg_namespace s ON s.oid = c.relnamespace
		WHERE s.nspname = current_schema() AND c.relkind IN ('r', 'm')`).Scan(&total)
	if err != nil {
		return fmt.Errorf("size of the schema: %w", err)
	}
	r.sizes = append(r.sizes, tableSize{"schema", total})
	return nil
}

func printResult(r result, n int) {
	fmt.Printf("\n%d worker(s):\n", r.workers)
	fmt.Printf("  wall %s from POST to done (the POST itself: %s); %.0f requests/s\n",
		r.wall.Round(10*time.Millisecond), r.post.Round(10*time.Millisecond), float64(n)/r.wall.Seconds())
	fmt.Printf("  job latency (insert to completion) p50 %s, p99 %s; work time (fetch to completion) p50 %s, p99 %s\n",
		round(r.latency[0]), round(r.latency[1]), round(r.work[0]), round(r.work[1]))
	fmt.Printf("  %d jobs tried more than once; %d transactions committed in the database (%.1f per request)\n",
		r.retried, r.commits, float64(r.commits)/float64(n))
	vouchCores := r.vouchCPU.Seconds() / r.wall.Seconds()
	if r.pgMeasured {
		total := r.pgCPU + r.vouchCPU
		fmt.Printf("  CPU: PostgreSQL %s (%.2f cores), vouch %s (%.2f cores): PostgreSQL %.0f%% of %s\n",
			r.pgCPU.Round(10*time.Millisecond), r.pgCPU.Seconds()/r.wall.Seconds(), r.vouchCPU.Round(10*time.Millisecond), vouchCores,
			100*r.pgCPU.Seconds()/total.Seconds(), total.Round(10*time.Millisecond))
	} else {
		fmt.Printf("  CPU: vouch %s (%.2f cores); PostgreSQL not measured (no local postgres process)\n", r.vouchCPU.Round(10*time.Millisecond), vouchCores)
	}
	if r.busy > 0 {
		fmt.Printf("  the machine: %.2f of its %d cores busy over the run, %.2f idle\n",
			r.busy.Seconds()/r.wall.Seconds(), runtime.NumCPU(), idleCores(r))
	}
	if other := r.busy - r.pgCPU - r.vouchCPU; r.busy > 0 && other.Seconds()/r.wall.Seconds() > 0.1 {
		fmt.Printf("  the machine's other processes used %.2f cores meanwhile (of %.2f busy): the figures are not those of a quiet machine\n",
			other.Seconds()/r.wall.Seconds(), r.busy.Seconds()/r.wall.Seconds())
	}
	fmt.Printf("  store after %d verifications: size, per verification, per 1,000,000\n", r.verifications)
	for _, s := range r.sizes {
		per := float64(s.bytes) / float64(max(r.verifications, 1))
		fmt.Printf("    %-18s %10s %8.0f B %10s\n", s.name, mib(float64(s.bytes)), per, gib(per*1e6))
	}
}

// idleCores is how many of the machine's cores were idle, on average,
// over a run: more workers can only be faster while some are.
func idleCores(r result) float64 {
	return max(0, float64(runtime.NumCPU())-r.busy.Seconds()/r.wall.Seconds())
}

func printSummary(rs []result, n int) {
	fmt.Printf("\n%-8s %10s %10s %12s %12s %11s %11s %8s %10s %10s\n", "workers", "wall", "req/s", "latency p50", "latency p99", "work p50", "work p99", "PG share", "PG cores", "idle cores")
	for _, r := range rs {
		share, cores, idle := "-", "-", "-"
		if r.pgMeasured {
			share = fmt.Sprintf("%.0f%%", 100*r.pgCPU.Seconds()/(r.pgCPU+r.vouchCPU).Seconds())
			cores = fmt.Sprintf("%.2f", r.pgCPU.Seconds()/r.wall.Seconds())
		}
		if r.busy > 0 {
			idle = fmt.Sprintf("%.2f", idleCores(r))
		}
		fmt.Printf("%-8d %10s %10.0f %12s %12s %11s %11s %8s %10s %10s\n", r.workers, r.wall.Round(10*time.Millisecond), float64(n)/r.wall.Seconds(),
			round(r.latency[0]), round(r.latency[1]), round(r.work[0]), round(r.work[1]), share, cores, idle)
	}
}

// round rounds a duration to three significant digits or so, for
// printing.
func round(d time.Duration) time.Duration {
	switch {
	case d >= 10*time.Second:
		return d.Round(100 * time.Millisecond)
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= 10*time.Millisecond:
		return d.Round(100 * time.Microsecond)
	default:
		return d.Round(10 * time.Microsecond)
	}
}

func mib(b float64) string { return fmt.Sprintf("%.1f MiB", b/(1<<20)) }
func gib(b float64) string { return fmt.Sprintf("%.2f GiB", b/(1<<30)) }

// proc is a vouch process of a run, its output in a log file.
type proc struct {
	cmd  *exec.Cmd
	log  string        // the log file's path
	done chan struct{} // closed when it has ended

	mu    sync.Mutex
	lines []string // the lines of its output holding one of watched
}

// watched are the lines a run waits for or looks for in a process's
// output.
var watched = []string{`"msg":"announced:`, "listening on ", `"msg":"working batch jobs"`}

// startProc starts bin with args, its output to logPath.
func startProc(bin, logPath string, args ...string) (*proc, error) {
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	p := &proc{cmd: exec.Command(bin, args...), log: logPath, done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), "VOUCH_CACHE=off")
	out, err := p.cmd.StderrPipe()
	if err != nil {
		logf.Close()
		return nil, err
	}
	p.cmd.Stdout = logf
	if err := p.cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(logf, line)
			for _, w := range watched {
				if strings.Contains(line, w) {
					p.mu.Lock()
					p.lines = append(p.lines, line)
					p.mu.Unlock()
				}
			}
		}
		io.Copy(logf, out) // after a line too long to scan
		p.cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	return p, nil
}

// seen returns the first line of the output holding s, or "".
func (p *proc) seen(s string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.lines {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// waitFor waits until the process has written a line holding s.
func (p *proc) waitFor(ctx context.Context, s string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for p.seen(s) == "" {
		select {
		case <-ctx.Done():
			return fmt.Errorf("no %q written: %w", s, context.Cause(ctx))
		case <-p.done:
			if p.seen(s) != "" {
				return nil
			}
			return fmt.Errorf("ended before writing %q: %s", s, lastLines(p.log, 10))
		case <-tick.C:
		}
	}
	return nil
}

// lastLines is the end of a log file.
func lastLines(path string, n int) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}

// stop interrupts the process, and kills it if it has not ended 10 s
// later.
func (p *proc) stop() {
	p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// machineBusy is the CPU time all processes of the machine have used
// since it started (/proc/stat: user, nice, system, irq, softirq,
// steal); 0 when it cannot be read.
func machineBusy() time.Duration {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0
	}
	var ticks float64
	for _, i := range []int{1, 2, 3, 6, 7, 8} {
		v, _ := strconv.ParseFloat(f[i], 64)
		ticks += v
	}
	return time.Duration(ticks / proccpu.Ticks() * float64(time.Second))
}

// procsCPU sums the CPU time of the run's vouch processes.
func procsCPU(ps []*proc) time.Duration {
	var sum time.Duration
	for _, p := range ps {
		if _, cpu, ok := proccpu.Of(p.cmd.Process.Pid); ok {
			sum += cpu
		}
	}
	return sum
}
