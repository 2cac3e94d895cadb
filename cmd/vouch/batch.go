package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/judge"
	"github.com/vouchgate/vouch/text/plural"
	"github.com/vouchgate/vouch/wire"
)

func defaultConcurrency() int { return runtime.GOMAXPROCS(0) }

// job is one line of a batch.
type job struct {
	seq  int // 1-based position among the non-blank lines: the output order
	line int // 1-based line number in the input
	data []byte
}

// result is what a job produced: the encoded line to write, and facts for
// the summary.
type result struct {
	seq     int
	out     []byte
	verdict vouch.Verdict
	bad     bool
	ms      float64
}

// batchStats summarises a batch.
type batchStats struct {
	total, bad int
	verdicts   map[vouch.Verdict]int
	ms         []float64
}

// batchMemoryLimit is the Go runtime's soft memory limit during a batch
// (unless GOMEMLIMIT is set): its heap, stacks and runtime structures.
// The live heap of a batch of ordinary requests is about 5 MB. With each
// report encoded into a buffer used again (see wire.MarshalReport), the
// batch allocates two thirds of what it did, and 20 MiB collects no more
// often than 24 MiB did before (go run ./bench: the same wall and CPU
// time), with 4 MB less resident; at 18 MiB the batch slows.
const batchMemoryLimit = 20 << 20

// runBatch verifies every line of f.batch concurrently and writes the
// reports to f.out in input order. At most a bounded number of lines are in
// flight, so memory stays flat however long the input is.
func runBatch(ctx context.Context, st Streams, f *verifyFlags, pol *vouch.Policy, j *judge.Judge) error {
	in, err := os.Open(f.batch)
	if err != nil {
		return usageErr(fmt.Errorf("cannot read batch: %w", err))
	}
	defer in.Close()
	outFile, err := os.Create(f.out)
	if err != nil {
		return usageErr(fmt.Errorf("cannot write reports: %w", err))
	}
	var jv vouch.Judge
	if j != nil {
		jv = j
	}
	eng, err := newEngine(f, pol, jv, filepath.Dir(f.batch))
	if err != nil {
		return usageErr(err)
	}
	total := -1
	var bar *progress
	if st.showProgress(f.json) {
		total = countLines(f.batch)
		bar = newProgress(st.Err, total)
	}

	// A batch's live heap is small (a bounded window of lines) and its
	// garbage short-lived; at the default GOGC=100 collection takes about a
	// third of the CPU time. Unless GOGC is set, collect less often, and,
	// unless GOMEMLIMIT is set, soon enough to keep the heap near
	// batchMemoryLimit: as fast as GOGC=400 alone, with 20 MB less
	// resident (a batch of very large requests, whose live heap is over
	// the limit, is collected more often: give it a higher GOMEMLIMIT).
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(batchMemoryLimit))
	}

	start := time.Now()
	stats, werr := processBatch(ctx, eng, f, in, outFile, bar)
	if cerr := outFile.Close(); werr == nil {
		werr = cerr
	}
	if bar != nil {
		bar.finish()
	}
	if werr != nil {
		return &exitError{code: exitInput, err: fmt.Errorf("batch stopped: %w", werr)}
	}
	printSummary(st.Err, stats, time.Since(start))
	switch {
	case stats.bad > 0:
		return &exitError{code: exitInput}
	case stats.verdicts[vouch.VerdictRetry]+stats.verdicts[vouch.VerdictFail] > 0:
		return &exitError{code: exitNotOK}
	case stats.verdicts[vouch.VerdictUnverified] > 0:
		return &exitError{code: exitUnverified}
	}
	return nil
}

func processBatch(ctx context.Context, eng *engine.Engine, f *verifyFlags, in io.Reader, out io.Writer, bar *progress) (batchStats, error) {
	stats := batchStats{verdicts: map[vouch.Verdict]int{}}
	n := f.concurrency
	window := 64 * n // lines in flight at most
	jobs := make(chan job, n)
	results := make(chan result, n)
	slots := make(chan struct{}, window)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var readErr error
	go func() {
		defer close(jobs)
		readErr = readLines(ctx, in, f.maxBytes, func(j job) bool {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return false
			}
			select {
			case jobs <- j:
				return true
			case <-ctx.Done():
				return false
			}
		})
	}()

	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				results <- verifyLine(ctx, eng, f, j)
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()

	// Write in input order, holding early results until their turn.
	w := &lineWriter{w: out, max: 64 << 10}
	held := make(map[int]result)
	next := 1
	var writeErr error
	for res := range results {
		held[res.seq] = res
		for {
			r, ok := held[next]
			if !ok {
				break
			}
			delete(held, next)
			next++
			<-slots
			if writeErr == nil {
				if _, err := w.Write(r.out); err != nil {
					writeErr = err
					cancel()
				}
			}
			stats.total++
			if r.bad {
				stats.bad++
			} else {
				stats.verdicts[r.verdict]++
				stats.ms = append(stats.ms, r.ms)
			}
			if bar != nil {
				bar.add(1)
			}
		}
		// Nothing else is ready: what is done goes to disk now.
		if writeErr == nil && len(results) == 0 {
			if err := w.Flush(); err != nil {
				writeErr = err
				cancel()
			}
		}
	}
	if writeErr == nil {
		writeErr = w.Flush()
	}
	if writeErr != nil {
		return stats, writeErr
	}
	if readErr != nil {
		return stats, readErr
	}
	return stats, ctx.Err()
}

// lineWriter gathers whole lines and writes them in one call of Write each
// time they would pass max bytes, or when flushed: vouch never leaves a
// part of a line for a later write to complete. A process killed at any
// moment (kill -9) leaves whole lines behind, except that the kernel may
// end the write it was in short (it checks for a fatal signal between
// pages), leaving a part of the last line with no newline after it.
// (A bufio.Writer writes whenever its buffer fills, cutting lines in two
// even without a kill.)
type lineWriter struct {
	w   io.Writer
	buf []byte
	max int
}

// Write adds one or more whole lines.
func (l *lineWriter) Write(p []byte) (int, error) {
	if len(l.buf) > 0 && len(l.buf)+len(p) > l.max {
		if err := l.Flush(); err != nil {
			return 0, err
		}
	}
	l.buf = append(l.buf, p...)
	return len(p), nil
}

// Flush writes the lines gathered so far in one call.
func (l *lineWriter) Flush() error {
	if len(l.buf) == 0 {
		return nil
	}
	_, err := l.w.Write(l.buf)
	l.buf = l.buf[:0]
	return err
}

// readLines calls fn for each non-blank line (1-based numbers). A line over
// max bytes is passed on truncated to max+1 bytes, so that decoding reports
// it as too large without holding it whole.
func readLines(ctx context.Context, in io.Reader, max int64, fn func(job) bool) error {
	r := bufio.NewReaderSize(in, 256<<10)
	line, seq := 0, 0
	for {
		if ctx.Err() != nil {
			return nil
		}
		data, err := readLine(r, max)
		if len(data) > 0 || err == nil {
			line++
			if len(bytes.TrimSpace(data)) > 0 {
				seq++
				if !fn(job{seq: seq, line: line, data: data}) {
					return nil
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readLine reads one line without its newline, keeping at most max+1 bytes.
func readLine(r *bufio.Reader, max int64) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if int64(len(buf)) <= max {
			keep := chunk
			if room := max + 1 - int64(len(buf)); int64(len(keep)) > room {
				keep = keep[:room]
			}
			buf = append(buf, keep...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		buf = bytes.TrimRight(buf, "\r\n")
		return buf, err
	}
}

// verifyLine verifies one line and encodes its output line.
func verifyLine(ctx context.Context, eng *engine.Engine, f *verifyFlags, j job) result {
	opt := wire.Options{MaxBytes: f.maxBytes, Name: fmt.Sprintf("line %d", j.line)}
	req, err := wire.DecodeRequest(j.data, opt)
	var rep *vouch.Report
	if err == nil {
		if f.base != "" {
			req.Base = f.base
		}
		rep, err = eng.Verify(ctx, req)
	}
	if err != nil {
		// A bad line is decoded again with the engine's check, off the
		// path of good lines, to list every problem it has, each with
		// its position.
		opt.Check = eng.Check
		if _, all := wire.DecodeRequest(j.data, opt); all != nil {
			err = all
		}
		return result{seq: j.seq, bad: true, out: append(wire.ErrorLine(j.line, err), '\n')}
	}
	out, merr := wire.MarshalReport(rep)
	if merr != nil {
		return result{seq: j.seq, bad: true, out: append(wire.ErrorLine(j.line, merr), '\n')}
	}
	return result{seq: j.seq, out: append(out, '\n'), verdict: rep.Verdict, ms: rep.DurationMs}
}

func printSummary(w io.Writer, s batchStats, elapsed time.Duration) {
	fmt.Fprintf(w, "%s in %v: %d pass, %d retry, %d fail, %d unverified, %d bad",
		plural.Count(s.total, "request"), elapsed.Round(time.Millisecond), s.verdicts[vouch.VerdictPass], s.verdicts[vouch.VerdictRetry], s.verdicts[vouch.VerdictFail],
		s.verdicts[vouch.VerdictUnverified], s.bad)
	if len(s.ms) > 0 {
		slices.Sort(s.ms)
		fmt.Fprintf(w, "; verification p50 %.3fms, p99 %.3fms", quantile(s.ms, 0.50), quantile(s.ms, 0.99))
	}
	fmt.Fprintln(w)
}

// quantile returns the q-quantile of sorted xs (nearest rank).
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	i := int(q*float64(len(xs))+0.999999) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(xs) {
		i = len(xs) - 1
	}
	return xs[i]
}

func countLines(path string) int {
	fh, err := os.Open(path)
	if err != nil {
		return -1
	}
	defer fh.Close()
	n := 0
	buf := make([]byte, 256<<10)
	for {
		k, err := fh.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if err != nil {
			return n
		}
	}
}
