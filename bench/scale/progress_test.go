package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestBatchLine(t *testing.T) {
	for _, tc := range []struct {
		done, n int
		want    string
	}{
		{0, 1000, "2 workers [                              ]   0% 0/1000 0/s 10s"},
		{500, 1000, "2 workers [===============               ]  50% 500/1000 50/s 10s"},
		{1000, 1000, "2 workers [==============================] 100% 1000/1000 100/s 10s"},
		{5, 0, "2 workers [                              ]   0% 5/0 0/s 10s"},
	} {
		if got := batchLine(2, tc.done, tc.n, 10*time.Second); got != tc.want {
			t.Errorf("batchLine(%d of %d) = %q, want %q", tc.done, tc.n, got, tc.want)
		}
	}
}

// TestStatusRedrawsOneLine checks that the status line is redrawn in
// place and cleared, and that a nil status (off a terminal) draws
// nothing.
func TestStatusRedrawsOneLine(t *testing.T) {
	var b bytes.Buffer
	s := &status{w: &b}
	s.step("building %s", "vouch")
	s.batch(1, 3, 4, 2*time.Second)
	s.clear()
	got := b.String()
	if strings.Contains(got, "\n") || !strings.Contains(got, "\r\033[Kbuilding vouch...") ||
		!strings.Contains(got, "\r\033[K1 worker [") || !strings.HasSuffix(got, "\r\033[K") {
		t.Errorf("status line: %q", got)
	}
	var none *status
	none.step("x")
	none.batch(1, 1, 1, time.Second)
	none.clear()
}
