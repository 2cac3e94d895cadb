package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/vouchgate/vouch/text/plural"
)

// status shows what the benchmark is doing on one line of a terminal,
// redrawn in place: the step it is at, and a bar while a batch is
// worked. Off a terminal it draws nothing (the batch's progress is then
// a line every 10 s, which a log keeps). A nil *status draws nothing.
type status struct {
	w io.Writer
}

// newStatus returns the status line of standard error when it is a
// terminal, nil otherwise.
func newStatus() *status {
	if !term.IsTerminal(int(os.Stderr.Fd())) {
		return nil
	}
	return &status{w: os.Stderr}
}

// step shows what the benchmark does now.
func (s *status) step(format string, args ...any) {
	if s == nil {
		return
	}
	fmt.Fprintf(s.w, "\r\033[K%s...", fmt.Sprintf(format, args...))
}

// batch shows the progress of a batch worked by k workers.
func (s *status) batch(k, done, n int, elapsed time.Duration) {
	if s == nil {
		return
	}
	fmt.Fprint(s.w, "\r\033[K"+batchLine(k, done, n, elapsed))
}

// clear clears the line, before the benchmark prints its results.
func (s *status) clear() {
	if s == nil {
		return
	}
	fmt.Fprint(s.w, "\r\033[K")
}

// batchLine is the status line of a batch: a bar, the items done of n,
// the rate and the time so far.
func batchLine(k, done, n int, elapsed time.Duration) string {
	const width = 30
	per := 0
	if n > 0 {
		per = min(done*100/n, 100)
	}
	fill := per * width / 100
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(done) / s
	}
	return fmt.Sprintf("%s [%s%s] %3d%% %d/%d %.0f/s %s", plural.Count(k, "worker"),
		strings.Repeat("=", fill), strings.Repeat(" ", width-fill), per, done, n, rate, elapsed.Round(time.Second))
}
