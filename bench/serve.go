package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // the store's size while it runs

	"github.com/vouchgate/vouch/bench/internal/pgschema"
	"github.com/vouchgate/vouch/bench/internal/proccpu"
)

// serveOptions are the settings of serveBench.
type serveOptions struct {
	// n is the requests of the text batch, conc the clients, rounds the
	// timed passes.
	n, conc, rounds int
	// dsn is the store ("": a fresh SQLite file).
	dsn string
	// procs is the server's GOMAXPROCS (0: the runtime's default).
	procs int
	// cpus is a list of CPUs (such as "0-7") the server is bound to, the
	// load generator taking the others ("": neither is bound).
	cpus string
	// profileDir receives the server's profiles ("": none are taken).
	profileDir string
}

// serveBench measures `vouch serve`: it starts the server (a separate
// process, built from ./cmd/vouch) on loopback with the given store (a
// fresh SQLite file when dsn is ""), drives POST /v1/verify with the
// deterministic text batch at the given concurrency for rounds passes
// (each pass with fresh ids, so every request is verified and logged, none
// replayed), and prints throughput, latency percentiles, and the server's
// peak RSS and CPU time. The load generator runs on the same machine and
// takes its share of the cores.
//
// With procs > 0 the server runs with GOMAXPROCS=procs (the load
// generator keeps the machine's). With cpus set, the server is bound to
// those CPUs and the load generator to the others. With profileDir set,
// the server serves its profiles on a loopback debug address, and the
// CPU profile of the timed passes, then the mutex and block profiles, are
// written there.
func serveBench(o serveOptions) error {
	n, conc, rounds, dsn, procs, profileDir := o.n, o.conc, o.rounds, o.dsn, o.procs, o.profileDir
	var serverCPUs, loadCPUs []int
	if o.cpus != "" {
		var err error
		if serverCPUs, err = parseCPUs(o.cpus); err != nil {
			return err
		}
		if loadCPUs, err = splitCPUs(serverCPUs); err != nil {
			return err
		}
	}
	dir, bin, lines, cleanup, err := buildWithBatch("vouch-bench-serve-", n)
	if err != nil {
		return err
	}
	defer cleanup()
	store := dsn
	// size is what the store holds after the run, in bytes; used is what
	// its tables and indexes hold while it runs, to measure what the
	// timed passes add (after the warm-up pass, whose first 1,000 reports
	// are compressed before the store has a dictionary).
	pgStore := strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
	var size, used func() (int64, error)
	// dicts counts the kinds of blob the store has a dictionary for.
	var dicts func() (int, error)
	if store == "" {
		store = filepath.Join(dir, "vouch.db")
		size = func() (int64, error) { return fileSizes(store, store+"-wal") }
		used = func() (int64, error) { return sqliteUsed(store) }
		dicts = func() (int, error) { return sqliteDictKinds(store) }
	} else if pgStore {
		// An empty store of its own: the requests' ids are the same on
		// every run, so in a store that has them they would be replays.
		schemaDSN, drop, err := pgschema.Create(context.Background(), dsn, "vouch_bench_serve")
		if err != nil {
			return err
		}
		defer drop()
		store = schemaDSN
		size = func() (int64, error) { return pgschema.Size(context.Background(), schemaDSN) }
		used = size
		dicts = func() (int, error) { return pgschema.DictKinds(context.Background(), schemaDSN) }
	}
	args := []string{"--store", store}
	env := []string{"VOUCH_LOG_LEVEL=warn", fmt.Sprintf("VOUCH_MAX_IN_FLIGHT=%d", 4*conc)}
	if procs > 0 {
		env = append(env, fmt.Sprintf("GOMAXPROCS=%d", procs))
	}
	if profileDir != "" {
		args = append(args, "--debug-addr", "127.0.0.1:0")
	}
	url, pid, stop, err := startServe(bin, os.Stderr, serverCPUs, args, env...)
	if err != nil {
		return err
	}
	defer stop()
	if len(loadCPUs) > 0 {
		// The load generator runs on the CPUs the server is not bound to
		// (a PostgreSQL on this machine is left unbound).
		if err := pinSelf(loadCPUs); err != nil {
			return err
		}
	}
	debugURL := ""
	if profileDir != "" {
		if debugURL = debugAddrOf(pid); debugURL == "" {
			return fmt.Errorf("the server did not say where its profiles are")
		}
		if err := os.MkdirAll(profileDir, 0o755); err != nil {
			return err
		}
	}
	kind := "a fresh SQLite file (synchronous=FULL, group commit)"
	switch {
	case strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://"):
		kind = "PostgreSQL"
	case dsn != "":
		kind = "SQLite " + dsn
	}
	var placed []string
	if len(serverCPUs) > 0 {
		load := "the load generator shares them: no CPU is left for it alone"
		if len(loadCPUs) > 0 {
			load = "the load generator to " + formatCPUs(loadCPUs)
		}
		placed = append(placed, fmt.Sprintf("bound to CPUs %s (%s)", formatCPUs(serverCPUs), load))
	}
	if procs > 0 {
		placed = append(placed, fmt.Sprintf("GOMAXPROCS=%d", procs))
	}
	serverProcs := "all the machine's cores"
	if len(placed) > 0 {
		serverProcs = strings.Join(placed, ", ")
	}
	fmt.Printf("vouch serve with %s: %d requests x 5 text criteria, %d passes, %d clients; server %s, %d cores on the machine\n",
		kind, n, rounds, conc, serverProcs, runtime.NumCPU())

	tr := &http.Transport{MaxIdleConnsPerHost: conc, MaxConnsPerHost: conc}
	client := &http.Client{Transport: tr}
	run := func(pass int) ([]time.Duration, time.Duration, error) {
		lat := make([]time.Duration, len(lines))
		var next int
		var mu sync.Mutex
		var firstErr error
		var wg sync.WaitGroup
		start := time.Now()
		for range conc {
			wg.Go(func() {
				for {
					mu.Lock()
					i := next
					next++
					mu.Unlock()
					if i >= len(lines) {
						return
					}
					body := bytes.Replace(lines[i], []byte(`"id":"req-`), fmt.Appendf(nil, `"id":"p%d-req-`, pass), 1)
					t0 := time.Now()
					res, err := client.Post(url+"/v1/verify", "application/json", bytes.NewReader(body))
					if err == nil {
						io.Copy(io.Discard, res.Body)
						res.Body.Close()
						if res.StatusCode != 200 {
							err = fmt.Errorf("status %d", res.StatusCode)
						}
					}
					lat[i] = time.Since(t0)
					if err != nil {
						mu.Lock()
						if firstErr == nil {
							firstErr = err
						}
						mu.Unlock()
						return
					}
				}
			})
		}
		wg.Wait()
		return lat, time.Since(start), firstErr
	}
	if _, _, err := run(0); err != nil { // warm-up: connections, caches
		return fmt.Errorf("warm-up: %w", err)
	}
	if dicts != nil {
		// A fresh store trains its compression dictionaries once, in the
		// background, from the first 1,000 blobs of each kind (the
		// warm-up's): a second or two of CPU that a long-running server
		// spends once. The timed passes begin after it.
		if err := awaitDicts(dicts, dictKinds, dictWait); err != nil {
			return err
		}
	}
	var all []time.Duration
	var wall time.Duration
	profiled := make(chan error, 1)
	if debugURL != "" {
		// The CPU profile spans the timed passes, give or take: it is
		// asked for a whole number of seconds, their estimate.
		secs := max(1, int(float64(rounds*n)/3000))
		go func() {
			profiled <- fetch(debugURL+fmt.Sprintf("/debug/pprof/profile?seconds=%d", secs), filepath.Join(profileDir, "cpu.pprof"))
		}()
	}
	var used0 int64
	if used != nil {
		if used0, err = used(); err != nil {
			return fmt.Errorf("the store's size: %w", err)
		}
	}
	w0, err := storeWrites(url)
	if err != nil {
		return err
	}
	_, cpu0, ok := proccpu.Of(pid)
	if !ok {
		return fmt.Errorf("the server's CPU time: /proc/%d/stat cannot be read", pid)
	}
	_, gen0, genOK := proccpu.Of(os.Getpid())
	pg0, pgLocal := proccpu.Postgres()
	for p := 1; p <= rounds; p++ {
		lat, w, err := run(p)
		if err != nil {
			return err
		}
		all = append(all, lat...)
		wall += w
	}
	_, cpu1, ok := proccpu.Of(pid)
	if !ok {
		return fmt.Errorf("the server's CPU time: /proc/%d/stat cannot be read", pid)
	}
	_, gen1, genOK1 := proccpu.Of(os.Getpid())
	pg1, _ := proccpu.Postgres()
	w1, err := storeWrites(url)
	if err != nil {
		return err
	}
	slices.Sort(all)
	q := func(p float64) time.Duration { return all[min(len(all)-1, int(p*float64(len(all))))] }
	fmt.Printf("throughput: %.0f verifications/s (%d in %v)\n", float64(len(all))/wall.Seconds(), len(all), wall.Round(time.Millisecond))
	fmt.Printf("latency: p50 %v, p99 %v, p99.9 %v, max %v\n", q(.50).Round(time.Microsecond), q(.99).Round(time.Microsecond), q(.999).Round(time.Microsecond), all[len(all)-1].Round(time.Microsecond))
	if st, err := procStatus(pid); err == nil {
		fmt.Printf("server: peak RSS %s, CPU %s\n", st["VmHWM"], serverCPU(pid))
	}
	perV := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(len(all)) }
	fmt.Printf("server CPU per verification: %.0f µs (user + system over the timed passes)\n", perV(cpu1-cpu0))
	if genOK && genOK1 {
		// What the clients cost tells whether they, not the server, held
		// the rate back: past about 80 % of the CPUs they run on, they did.
		gen := gen1 - gen0
		genCPUs := runtime.GOMAXPROCS(0)
		fmt.Printf("load generator CPU per request: %.0f µs (this process over the timed passes, %.0f %% of its %d CPUs)\n",
			perV(gen), 100*gen.Seconds()/wall.Seconds()/float64(genCPUs), genCPUs)
	}
	if pgStore && pgLocal {
		fmt.Printf("PostgreSQL CPU per verification: %.0f µs (every postgres process of this machine over the timed passes)\n", perV(pg1-pg0))
	}
	if commits := w1.commits - w0.commits; commits > 0 {
		synced := "on SQLite with synchronous=FULL, each a sync of the write-ahead log"
		if pgStore {
			synced = "on PostgreSQL, each a flush of its WAL"
		}
		fmt.Printf("store commits: %.0f a second over the timed passes, %.1f writes each (%s)\n",
			commits/wall.Seconds(), (w1.writes-w0.writes)/commits, synced)
	}
	if debugURL != "" {
		if err := <-profiled; err != nil {
			return err
		}
		for _, p := range []string{"mutex", "block"} {
			if err := fetch(debugURL+"/debug/pprof/"+p, filepath.Join(profileDir, p+".pprof")); err != nil {
				return err
			}
		}
		fmt.Printf("profiles: %s/{cpu,mutex,block}.pprof (go tool pprof -top FILE)\n", profileDir)
	}
	var used1 int64
	if used != nil {
		if used1, err = used(); err != nil {
			return fmt.Errorf("the store's size: %w", err)
		}
	}
	if size != nil {
		// Measured once the server has stopped and checkpointed, over
		// every verification of the run (the warm-up pass too).
		stop()
		b, err := size()
		if err != nil {
			return fmt.Errorf("the store's size: %w", err)
		}
		stored := (rounds + 1) * n
		fmt.Printf("store: %.1f MiB for %d verifications, %.2f KiB each, %.2f GiB per million\n",
			float64(b)/(1<<20), stored, float64(b)/float64(stored)/1024, float64(b)/float64(stored)*1e6/(1<<30))
		grown := float64(used1-used0) / float64(rounds*n)
		fmt.Printf("store growth over the timed passes (tables and indexes, the dictionaries trained): %.0f bytes a verification, %.2f GiB per million\n",
			grown, grown*1e6/(1<<30))
	}
	return nil
}

// dictKinds is how many kinds of blob a store compresses with a
// dictionary of its own (reports, requests and events), and dictWait how
// long the bench waits for a fresh store to train them.
const (
	dictKinds = 3
	dictWait  = time.Minute
)

// awaitDicts waits until the store has a dictionary of each kind (count
// reads how many it has), or wait has passed, and says which.
func awaitDicts(count func() (int, error), kinds int, wait time.Duration) error {
	start := time.Now()
	for {
		n, err := count()
		if err != nil {
			return fmt.Errorf("the store's dictionaries: %w", err)
		}
		if n >= kinds {
			fmt.Printf("dictionaries: all %d kinds trained %v after the warm-up\n", kinds, time.Since(start).Round(10*time.Millisecond))
			return nil
		}
		if time.Since(start) > wait {
			fmt.Printf("dictionaries: %d of %d kinds trained %v after the warm-up; the timed passes begin without the others\n", n, kinds, wait)
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// sqliteDictKinds counts the kinds of blob the SQLite store at path has
// a dictionary for.
func sqliteDictKinds(path string) (int, error) {
	var n int
	err := sqliteRow(path, `SELECT COUNT(DISTINCT kind) FROM pack_dicts`, &n)
	return n, err
}

// sqliteUsed returns the bytes of an SQLite database's pages in use, as a
// reader sees it (its write-ahead log included), through a read-only
// connection of its own.
func sqliteUsed(path string) (int64, error) {
	var pages, free, size int64
	if err := sqliteRow(path, `SELECT p.page_count, f.freelist_count, s.page_size
		FROM pragma_page_count() p, pragma_freelist_count() f, pragma_page_size() s`, &pages, &free, &size); err != nil {
		return 0, err
	}
	return (pages - free) * size, nil
}

// sqliteRow reads the one row query gives from the SQLite database at
// path into dest, through a read-only connection of its own.
func sqliteRow(path, query string, dest ...any) error {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return err
	}
	defer db.Close()
	return db.QueryRow(query).Scan(dest...)
}

// fileSizes adds up the sizes of the files that exist of those named.
func fileSizes(names ...string) (int64, error) {
	var n int64
	for _, name := range names {
		fi, err := os.Stat(name)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, err
		}
		n += fi.Size()
	}
	return n, nil
}

// writeCounts are the store's commits and writes a server's /metrics
// gives (vouch_store_commits_total, vouch_store_writes_total).
type writeCounts struct{ commits, writes float64 }

// storeWrites reads the store's write counts from the server at url.
func storeWrites(url string) (writeCounts, error) {
	res, err := http.Get(url + "/metrics")
	if err != nil {
		return writeCounts{}, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return writeCounts{}, fmt.Errorf("GET /metrics: %s", res.Status)
	}
	var w writeCounts
	found := 0
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		name, value, _ := strings.Cut(sc.Text(), " ")
		var dst *float64
		switch name {
		case "vouch_store_commits_total":
			dst = &w.commits
		case "vouch_store_writes_total":
			dst = &w.writes
		default:
			continue
		}
		if *dst, err = strconv.ParseFloat(value, 64); err != nil {
			return writeCounts{}, fmt.Errorf("/metrics: %s: %w", name, err)
		}
		found++
	}
	if err := sc.Err(); err != nil {
		return writeCounts{}, fmt.Errorf("/metrics: %w", err)
	}
	if found != 2 {
		return writeCounts{}, errors.New("/metrics gives no vouch_store_commits_total and vouch_store_writes_total")
	}
	return w, nil
}

// fetch writes what GET url answers into file.
func fetch(url, file string) error {
	res, err := http.Get(url)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, res.Status)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, res.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// debugAddrs are the debug addresses the servers started said they
// serve their profiles on, by process id.
var debugAddrs sync.Map

// debugAddrOf returns the base URL of a server's profiles, "" when it
// serves none.
func debugAddrOf(pid int) string {
	v, _ := debugAddrs.Load(pid)
	s, _ := v.(string)
	return s
}

// textBatch writes the deterministic text batch of n requests into dir
// and returns its lines.
// buildWithBatch builds vouch into a temporary directory named from
// prefix (see buildInTemp) and writes the text batch of n requests
// there, returning its lines.
func buildWithBatch(prefix string, n int) (dir, bin string, lines [][]byte, cleanup func(), err error) {
	if dir, bin, cleanup, err = buildInTemp(prefix); err != nil {
		return "", "", nil, nil, err
	}
	if lines, err = textBatch(dir, n); err != nil {
		cleanup()
		return "", "", nil, nil, err
	}
	return dir, bin, lines, cleanup, nil
}

func textBatch(dir string, n int) ([][]byte, error) {
	in := filepath.Join(dir, "in.jsonl")
	if err := writeBatch(in, n); err != nil {
		return nil, err
	}
	return readLines(in)
}

func readLines(path string) ([][]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		out = append(out, l)
	}
	return out, nil
}

// procStatus reads /proc/PID/status.
func procStatus(pid int) (map[string]string, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m, nil
}

// serverCPU gives the user and system time of a process so far.
func serverCPU(pid int) string {
	t, ok := proccpu.Stat(pid)
	if !ok {
		return "?"
	}
	return fmt.Sprintf("%.1fs user + %.1fs system", t.User.Seconds(), t.System.Seconds())
}

// startServe starts `vouch serve` on a free loopback port with args and
// env added, and returns its URL (from the line it logs when listening)
// and process id, and a function that stops it. Its log after that line
// goes to logs.
func startServe(bin string, logs io.Writer, cpus []int, args []string, env ...string) (url string, pid int, stop func(), err error) {
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", 0, nil, err
	}
	start := cmd.Start
	if len(cpus) > 0 {
		start = func() error { return startPinned(cmd, cpus) }
	}
	if err := start(); err != nil {
		return "", 0, nil, err
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cmd.Process.Signal(os.Interrupt)
			cmd.Wait()
		})
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), "profiles at "); ok {
			u, _, _ := strings.Cut(rest, "/debug/pprof/")
			debugAddrs.Store(cmd.Process.Pid, u)
		}
		if _, rest, ok := strings.Cut(sc.Text(), "listening on "); ok {
			url, _, _ = strings.Cut(rest, " ")
			break
		}
	}
	if url == "" {
		stop()
		return "", 0, nil, fmt.Errorf("vouch serve did not start")
	}
	go io.Copy(logs, stderr)
	return url, cmd.Process.Pid, stop, nil
}
