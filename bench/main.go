// Command bench measures vouch as a whole process: it writes a JSONL batch of
// requests, builds the vouch binary and times `vouch verify --batch` over it,
// printing the wall time and the peak resident memory of each run.
//
//	go run ./bench [-n 2000] [-runs 5] [-concurrency 0]
//
// Each request carries five text criteria (contains, case-insensitive
// contains, regex, negated contains, length) over a summary of about 1 KB;
// validation is included, as it is in every real run.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-json-experiment/json"
)

func main() {
	n := flag.Int("n", 2000, "requests in the batch")
	runs := flag.Int("runs", 5, "timed runs")
	conc := flag.Int("concurrency", 0, "--concurrency for vouch (0: its default)")
	flag.Parse()
	if err := run(*n, *runs, *conc); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(n, runs, conc int) error {
	dir, err := os.MkdirTemp("", "vouch-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "vouch")
	build := exec.Command("go", "build", "-o", bin, "./cmd/vouch")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("build: %w", err)
	}
	in := filepath.Join(dir, "in.jsonl")
	if err := writeBatch(in, n); err != nil {
		return err
	}
	fi, _ := os.Stat(in)
	fmt.Printf("batch: %d requests x 5 text criteria, %.1f KB input\n", n, float64(fi.Size())/1024)

	var walls, cpus []time.Duration
	var rss []int64
	for i := 0; i <= runs; i++ {
		args := []string{"verify", "--batch", in, "--out", filepath.Join(dir, "out.jsonl")}
		if conc > 0 {
			args = append(args, "--concurrency", strconv.Itoa(conc))
		}
		cmd := exec.Command(bin, args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		start := time.Now()
		err := cmd.Run()
		wall := time.Since(start)
		if code := cmd.ProcessState.ExitCode(); err != nil && code != 1 {
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
	}
	slices.Sort(walls)
	slices.Sort(rss)
	slices.Sort(cpus)
	fmt.Printf("wall time over %d runs: min %v, median %v, max %v\n", runs, walls[0].Round(time.Microsecond*100), walls[len(walls)/2].Round(time.Microsecond*100), walls[len(walls)-1].Round(time.Microsecond*100))
	fmt.Printf("CPU time (user+sys) over %d runs: min %v, median %v\n", runs, cpus[0].Round(time.Microsecond*100), cpus[len(cpus)/2].Round(time.Microsecond*100))
	fmt.Printf("peak RSS: median %.1f MB, max %.1f MB\n", float64(rss[len(rss)/2])/1024, float64(rss[len(rss)-1])/1024)
	return nil
}

var words = strings.Fields(`the parser now reports errors with line and column numbers and the
tokenizer handles unicode identifiers correctly while the formatter keeps comments in place
and the validator rejects duplicate keys before any evaluation happens in the pipeline`)

// writeBatch writes n requests with varied summaries: most pass, some miss
// a required word, some contain a forbidden one.
func writeBatch(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		var sb strings.Builder
		for sb.Len() < 1000 {
			sb.WriteString(words[r.IntN(len(words))])
			sb.WriteByte(' ')
		}
		if r.IntN(10) > 0 {
			sb.WriteString("Status: DONE. Version v1.")
			sb.WriteString(strconv.Itoa(i % 50))
		}
		if r.IntN(20) == 0 {
			sb.WriteString(" TODO: finish the docs")
		}
		req := map[string]any{
			"id":   fmt.Sprintf("req-%05d", i),
			"kind": "subtask",
			"task": map[string]any{
				"goal": "Improve the parser's error reporting",
				"criteria": []any{
					map[string]any{"id": "done", "must": true, "check": map[string]any{"type": "contains", "value": "DONE"}},
					map[string]any{"id": "parser", "check": map[string]any{"type": "contains", "value": "PARSER", "ignoreCase": true}},
					map[string]any{"id": "version", "check": map[string]any{"type": "regex", "pattern": `v\d+\.\d+`}},
					map[string]any{"id": "notodo", "check": map[string]any{"type": "contains", "value": "TODO", "not": true}},
					map[string]any{"id": "length", "check": map[string]any{"type": "length", "minWords": 50, "maxChars": 4000}},
				},
			},
			"output": map[string]any{"summary": sb.String()},
		}
		b, err := json.Marshal(req, json.Deterministic(true))
		if err != nil {
			return err
		}
		w.Write(b)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}
