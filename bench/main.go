// Command bench measures vouch as a whole process: it writes a JSONL batch of
// requests, builds the vouch binary and times `vouch verify --batch` over it,
// printing the wall time and the peak resident memory of each run.
//
//	go run ./bench [-n 2000] [-runs 5] [-concurrency 0]
//	go run ./bench -answers text/support/testdata/answers/rows.jsonl
//	go run ./bench -eval-data ../shared/eval-data
//	go run ./bench -real ../shared [-runs 5]
//	go run ./bench -claims ../shared [-corpus testdata/plainclaims] [-runs 3]
//	go run ./bench -loop [-runs 5]
//	go run ./bench -serve [-store DSN] [-c 32] [-passes 5]
//
// Each request carries five text criteria (contains, case-insensitive
// contains, regex, negated contains, length) over a summary of about 1 KB;
// validation is included, as it is in every real run.
//
// With -answers, the batch is instead one `answer` request per labelled row
// of a grounding evaluation set (JSONL of {id, sources, answer, label:
// supported|hallucinated}), and besides the timings the run prints the
// response-level precision, recall and balanced accuracy of the verdicts
// (hallucinated is positive; a verdict other than pass flags a row).
//
// With -eval-data, the public labelled sets in that directory (RAGTruth's
// ragtruth-dev.jsonl, by task type, and each summedits_*.json) are turned
// into such rows and scored one set at a time, without the timings:
// flagged counted twice, by the verdict alone and by the verdict or an
// unverified mention (what a user sees as a warning).
//
// With -real, the real agent sessions of the shared material are read and
// verified in-process against their workspaces (rebuilt by the material's
// make-workspace.sh, base HEAD~1), each honest session -runs times for the
// timings and each faulty variant (one minimal edit of a real log) once;
// the command prints each verdict, the false alarms on honest sessions, the
// catch rate by family of fault, the p50, p99 and slowest read + verify,
// and then the scores of the labelled sets as with -eval-data.
//
// With -claims, the figures of claim-first verdicts, rules only, in
// process: the lies and honest twins of the plain-claim corpus
// (internal/claimcorpus) over their git workspaces; the shared real
// sessions as with -real; the SWE-bench runs of the shared material
// without workspaces, against the harness's outcomes; and the labelled
// answer sets. Each is counted as an orchestrator meets it: passed, sent
// back (retry or fail) or unverified, which is neither.
//
// With -loop, the loop's scripted corpus (agents that act on feedback and
// agents that cannot be fixed, loop/looptest) runs -runs times in
// process against the real engine, alone and with memory and events; the
// command prints the retry success rate by group, attempts and cost per
// accepted task, whether any unfixable agent was accepted, and the loop's
// overhead per attempt beside the verification.
//
// With -serve, `vouch serve` runs as its own process with a durable log (a
// fresh SQLite file, or -store postgres://...), and -c clients drive POST
// /v1/verify with the text batch, -passes times with fresh ids; the command
// prints throughput, p50 / p99 / p99.9 latency and the server's peak RSS
// and CPU time.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/vouchgate/vouch/bench/internal/benchreq"
	"github.com/vouchgate/vouch/engine"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/vouchgate/vouch/internal/evalstat"
)

func main() {
	n := flag.Int("n", 2000, "requests in the batch")
	runs := flag.Int("runs", 5, "timed runs")
	conc := flag.Int("concurrency", 0, "--concurrency for vouch (0: its default)")
	answers := flag.String("answers", "", "labelled answer rows (JSONL) to verify instead of the text batch")
	evalData := flag.String("eval-data", "", "a directory of public labelled sets (RAGTruth, SummEdits) to score")
	real := flag.String("real", "", "the shared material directory: verify its real sessions, honest and faulty, and score its labelled sets")
	claims := flag.String("claims", "", "the shared material directory: the figures of claim-first verdicts (lies and twins of testdata/plainclaims, real sessions, SWE-bench runs, labelled answers): what passes, what is sent back, what is unverified")
	swebench := flag.String("swebench", "", "a directory of mini-swe-agent runs with their outcomes (outcomes.jsonl, trajs/ID.traj.json), such as the shared eval-data/swebench: verify each with rules only and hold the verdicts against the outcomes")
	flag.StringVar(&showWarning, "show-warning", "", "with -swebench, print each warning of this code (UNVERIFIED_SYMBOL, ...) with its run")
	corpus := flag.String("corpus", "testdata/plainclaims", "with -claims, the plain-claim corpus")
	flag.BoolVar(&corpusOnly, "corpus-only", false, "with -claims, verify the plain-claim corpus alone")
	flag.BoolVar(&showLedger, "ledger", false, "with -claims or -real, print the claim ledger of each honest session, and of both sides of each plain-claim case; with -swebench, of each unresolved run that claims success and is not sent back")
	serve := flag.Bool("serve", false, "drive POST /v1/verify of vouch serve with the text batch (see -store, -c, -passes)")
	storeDSN := flag.String("store", "", "with -serve, the store DSN (default: a fresh SQLite file; postgres://... for PostgreSQL)")
	clients := flag.Int("c", 32, "with -serve, requests in flight at once")
	passes := flag.Int("passes", 5, "with -serve, timed passes over the batch")
	serveBatch := flag.Bool("serve-batch", false, "post the text batch (-n requests) to vouch serve as one batch (POST /v1/batches) and time it until done, on a fresh SQLite file or -store postgres://... (the server working the jobs)")
	serverProcs := flag.Int("server-procs", 0, "with -serve, the server's GOMAXPROCS (0: the machine's cores)")
	serverCPUs := flag.String("server-cpus", "", "with -serve, bind the server to these CPUs (a list such as 0-7 or 0,2,4) and the load generator to the others; the server's GOMAXPROCS is then their count unless -server-procs says otherwise")
	serverProfile := flag.String("server-profile", "", "with -serve, write the server's CPU profile of the timed passes and its mutex and block profiles into `DIR`")
	mcpMode := flag.Bool("mcp", false, "time verify_output of the JSDoc example over MCP (stdio and HTTP) beside vouch verify; -n round trips (default 2000: give -n 200)")
	loopMode := flag.Bool("loop", false, "run the loop's scripted corpus: retry success, attempts and cost per accepted task, loop overhead")
	attack := flag.Bool("attack", false, "run normal traffic against vouch serve alone, then beside a hostile caller's slow bodies and batch uploads, and print its p99 in both (see -n, -c, -attack-batches, -attack-batch-mib)")
	attackBatches := flag.Int("attack-batches", 4, "with -attack, batch uploads at a time")
	attackBatchMiB := flag.Int("attack-batch-mib", 64, "with -attack, the size of each batch upload in MiB")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the bench process to `FILE`")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	var err error
	if *mcpMode {
		err = mcpBench(*n)
	} else if *serveBatch {
		err = serveBatchBench(*n, *storeDSN)
	} else if *serve {
		err = serveBench(serveOptions{n: *n, conc: *clients, rounds: *passes, dsn: *storeDSN, procs: *serverProcs, cpus: *serverCPUs, profileDir: *serverProfile})
	} else if *attack {
		err = attackBench(*n, *clients, *attackBatches, *attackBatchMiB)
	} else if *loopMode {
		err = loopCorpus(*runs)
	} else if *swebench != "" {
		var eng *engine.Engine
		if eng, err = engine.New(engine.Options{}); err == nil {
			err = swebenchFigures(eng, *swebench)
		}
	} else if *claims != "" {
		err = claimFigures(*corpus, *claims, *runs)
	} else if *real != "" {
		err = realMaterial(*real, *runs, true)
	} else if *evalData != "" {
		err = evalSets(*evalData)
	} else {
		err = run(*n, *runs, *conc, *answers)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(n, runs, conc int, answers string) error {
	dir, bin, cleanup, err := buildInTemp("vouch-bench-")
	if err != nil {
		return err
	}
	defer cleanup()
	in := filepath.Join(dir, "in.jsonl")
	var labels []bool // hallucinated, by line, with -answers
	if answers != "" {
		if labels, err = writeAnswers(in, answers); err != nil {
			return err
		}
		fi, _ := os.Stat(in)
		fmt.Printf("batch: %d answer requests from %s, %.1f KB input\n", len(labels), answers, float64(fi.Size())/1024)
	} else {
		if err := writeBatch(in, n); err != nil {
			return err
		}
		fi, _ := os.Stat(in)
		fmt.Printf("batch: %d requests x 5 text criteria, %.1f KB input\n", n, float64(fi.Size())/1024)
	}

	var walls, cpus []time.Duration
	var rss, anon, file []int64
	for i := 0; i <= runs; i++ {
		args := []string{"verify", "--batch", in, "--out", filepath.Join(dir, "out.jsonl")}
		if conc > 0 {
			args = append(args, "--concurrency", strconv.Itoa(conc))
		}
		cmd := exec.Command(bin, args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		start := time.Now()
		err := cmd.Start()
		var peak rssPeak
		if err == nil {
			stop := make(chan struct{})
			sampled := make(chan rssPeak)
			go func() { sampled <- sampleRSS(cmd.Process.Pid, stop) }()
			err = cmd.Wait()
			close(stop)
			peak = <-sampled
		}
		wall := time.Since(start)
		if cmd.ProcessState == nil {
			return fmt.Errorf("vouch: %v", err)
		}
		if code := cmd.ProcessState.ExitCode(); err != nil && code != 1 && code != 3 {
			return fmt.Errorf("vouch exited %d: %v\n%s", code, err, stderr.String())
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		if i == 0 {
			fmt.Printf("warm-up: %s", stderr.String())
			continue // the first run warms the page cache
		}
		walls = append(walls, wall)
		cpus = append(cpus, time.Duration(ru.Utime.Nano()+ru.Stime.Nano()))
		rss = append(rss, ru.Maxrss) // KiB on Linux
		anon, file = append(anon, peak.anon), append(file, peak.file)
	}
	slices.Sort(walls)
	slices.Sort(rss)
	slices.Sort(cpus)
	fmt.Printf("wall time over %d runs: min %v, median %v, max %v\n", runs, walls[0].Round(time.Microsecond*100), walls[len(walls)/2].Round(time.Microsecond*100), walls[len(walls)-1].Round(time.Microsecond*100))
	fmt.Printf("CPU time (user+sys) over %d runs: min %v, median %v\n", runs, cpus[0].Round(time.Microsecond*100), cpus[len(cpus)/2].Round(time.Microsecond*100))
	fmt.Printf("peak RSS: median %.1f MB, max %.1f MB\n", float64(rss[len(rss)/2])/1024, float64(rss[len(rss)-1])/1024)
	slices.Sort(anon)
	slices.Sort(file)
	fmt.Printf("  sampled every millisecond, median of the peaks: the process's own memory (anonymous) %.1f MB, the binary's pages (file-backed) %.1f MB\n",
		float64(anon[len(anon)/2])/1024, float64(file[len(file)/2])/1024)
	if labels != nil {
		return score(filepath.Join(dir, "out.jsonl"), labels)
	}
	return nil
}

// rssPeak is the most resident memory seen of a process, in KiB: its own
// (anonymous: heap, stacks) and its mapped files' (the binary's pages,
// which the kernel maps in by the folio: more of them for a binary just
// written than for one read back from disk).
type rssPeak struct{ anon, file int64 }

// sampleRSS reads /proc/PID/status every millisecond until stop is
// closed (or the process is gone), and returns the peaks it saw: a lower
// bound of the true peaks, close to them for a heap that grows and stays.
func sampleRSS(pid int, stop <-chan struct{}) rssPeak {
	var p rssPeak
	path := fmt.Sprintf("/proc/%d/status", pid)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		b, err := os.ReadFile(path)
		if err != nil {
			return p
		}
		for line := range strings.Lines(string(b)) {
			name, v, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			switch name {
			case "RssAnon":
				p.anon = max(p.anon, kb)
			case "RssFile":
				p.file = max(p.file, kb)
			}
		}
		select {
		case <-stop:
			return p
		case <-tick.C:
		}
	}
}

// buildVouch builds the vouch binary into dir.
// buildInTemp makes a temporary directory named from prefix and builds
// vouch into it; cleanup removes the directory.
func buildInTemp(prefix string) (dir, bin string, cleanup func(), err error) {
	dir, err = os.MkdirTemp("", prefix)
	if err != nil {
		return "", "", nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	if bin, err = buildVouch(dir); err != nil {
		cleanup()
		return "", "", nil, err
	}
	return dir, bin, cleanup, nil
}

func buildVouch(dir string) (string, error) {
	bin := filepath.Join(dir, "vouch")
	build := exec.Command("go", "build", "-o", bin, "./cmd/vouch")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("build: %w", err)
	}
	if err := evictPages(bin); err != nil {
		return "", fmt.Errorf("evict the binary from the page cache: %w", err)
	}
	return bin, nil
}

// answerRow is one labelled row of a grounding evaluation set.
type answerRow struct {
	ID      string           `json:"id"`
	Sources []jsontext.Value `json:"sources"`
	Answer  string           `json:"answer"`
	Label   string           `json:"label"`
}

// writeAnswers turns labelled rows into answer requests and returns the
// labels (true: hallucinated) in order.
func writeAnswers(path, rowsPath string) ([]bool, error) {
	data, err := os.ReadFile(rowsPath)
	if err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriter(f)
	var labels []bool
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var row answerRow
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", rowsPath, i+1, err)
		}
		if row.Label != "supported" && row.Label != "hallucinated" {
			return nil, fmt.Errorf("%s:%d: label %q, want supported or hallucinated", rowsPath, i+1, row.Label)
		}
		labels = append(labels, row.Label == "hallucinated")
		req := map[string]any{
			"id":      row.ID,
			"kind":    "answer",
			"task":    map[string]any{"goal": "Answer from the sources"},
			"output":  map[string]any{"summary": row.Answer},
			"context": map[string]any{"sources": row.Sources},
		}
		b, err := json.Marshal(req, json.Deterministic(true))
		if err != nil {
			return nil, err
		}
		w.Write(b)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	return labels, f.Close()
}

// score reads the reports of an answer batch and prints precision, recall
// and balanced accuracy against the labels.
func score(out string, labels []bool) error {
	data, err := os.ReadFile(out)
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != len(labels) {
		return fmt.Errorf("%d reports for %d rows", len(lines), len(labels))
	}
	// A row is sent back (retry or fail), passed, or left unverified,
	// which is neither: "flagged" is sent back.
	var back evalstat.Confusion
	var passed, passedFaithful, unver, unverHallucinated int
	// Rows sent back by the row of the verdict table that decided, for the
	// hallucinated [0] and the supported [1] rows.
	var byRow [2][8]int
	for i, line := range lines {
		var rep struct {
			VerdictRow int    `json:"verdictRow"`
			Verdict    string `json:"verdict"`
		}
		if err := json.Unmarshal([]byte(line), &rep, json.RejectUnknownMembers(false)); err != nil || rep.Verdict == "" {
			return fmt.Errorf("report %d: %v %s", i+1, err, line)
		}
		sent := rep.Verdict == "retry" || rep.Verdict == "fail"
		back.Add(sent, labels[i])
		switch {
		case rep.Verdict == "pass":
			passed++
			if !labels[i] {
				passedFaithful++
			}
		case rep.Verdict == "unverified":
			unver++
			if labels[i] {
				unverHallucinated++
			}
		}
		if sent && rep.VerdictRow >= 0 && rep.VerdictRow < len(byRow[0]) {
			l := 1
			if labels[i] {
				l = 0
			}
			byRow[l][rep.VerdictRow]++
		}
	}
	printConfusion("sent back (retry or fail)", back)
	share := func(n, of int) string {
		if of == 0 {
			return "-"
		}
		return fmt.Sprintf("%.3f", float64(n)/float64(of))
	}
	fmt.Printf("passed: %d, of them faithful %s; unverified: %d (%s of the rows; %d hallucinated)\n",
		passed, share(passedFaithful, passed), unver, share(unver, len(labels)), unverHallucinated)
	fmt.Print("  sent back by verdict row (hallucinated/supported):")
	for r := range byRow[0] {
		if byRow[0][r]+byRow[1][r] > 0 {
			fmt.Printf(" row %d: %d/%d", r, byRow[0][r], byRow[1][r])
		}
	}
	fmt.Println()
	return nil
}

// printConfusion prints what a confusion says of one way of flagging.
func printConfusion(what string, c evalstat.Confusion) {
	fmt.Printf("%s: %d hallucinated rows of %d, %d supported rows of %d\n", what, c.TP, c.TP+c.FN, c.FP, c.FP+c.TN)
	precision := "-" // nothing flagged: no precision to speak of
	if c.TP+c.FP > 0 {
		precision = fmt.Sprintf("%.3f", c.Precision())
	}
	fmt.Printf("  precision %s, recall %.3f, balanced accuracy %.3f\n", precision, c.Recall(), c.Balanced())
}

// writeBatch writes n requests (package benchreq) to path.
func writeBatch(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := benchreq.Write(f, n); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
