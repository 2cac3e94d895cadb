package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/vouchgate/vouch/server/demo"
	"github.com/vouchgate/vouch/store"
)

// clearLine is what ends a progress line: back to its start, and erase.
const clearLine = "\r\033[K"

// progressStreams are streams whose standard error is a terminal or not,
// with an empty environment.
func progressStreams(terminal bool, errw *bytes.Buffer) Streams {
	return Streams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: errw,
		IsTerminal: func(any) bool { return terminal },
		Getenv:     func(string) string { return "" }}
}

func TestActivity(t *testing.T) {
	if a := startActivity(false, &bytes.Buffer{}, "x"); a != nil {
		t.Errorf("an activity not shown: %v", a)
	}
	var none *activity
	none.stop()

	var b bytes.Buffer
	a := startActivity(true, &b, "vouch x: reading")
	a.stop()
	a.stop() // a second stop does nothing
	got := b.String()
	if !strings.HasPrefix(got, clearLine+"vouch x: reading...") || !strings.HasSuffix(got, clearLine) || strings.Contains(got, "\n") {
		t.Errorf("activity line: %q", got)
	}
}

func TestLabelledProgress(t *testing.T) {
	var b bytes.Buffer
	p := newLabelledProgress(&b, "demo data", 4)
	p.set(1, 4)
	p.set(4, 4)
	p.finish()
	got := b.String()
	for _, want := range []string{"\rdemo data [", "  0% 0/4", " 25% 1/4", "100% 4/4"} {
		if !strings.Contains(got, want) {
			t.Errorf("progress %q lacks %q", got, want)
		}
	}
	if !strings.HasSuffix(got, clearLine) {
		t.Errorf("progress not cleared: %q", got)
	}
	var none *progress
	none.set(1, 2)
	none.add(1)
	none.finish()
}

// TestCalibrateProgress checks that calibrate says what it is doing on a
// terminal, and nothing under --json or off a terminal.
func TestCalibrateProgress(t *testing.T) {
	rp, lp := calibrationFiles(t, t.TempDir())
	for _, tc := range []struct {
		terminal, json bool
		shown          bool
	}{{true, false, true}, {true, true, false}, {false, false, false}} {
		var errb bytes.Buffer
		args := []string{"calibrate", "--reports", rp, "--labels", lp}
		if tc.json {
			args = append(args, "--json")
		}
		if code := Main(context.Background(), args, progressStreams(tc.terminal, &errb)); code != 0 {
			t.Fatalf("calibrate: exit %d: %s", code, errb.String())
		}
		got := errb.String()
		shown := strings.Contains(got, "vouch calibrate: fitting the policy to 200 verifications...")
		if shown != tc.shown || strings.Contains(got, "\r") != tc.shown {
			t.Errorf("terminal %v, --json %v: progress shown %v, want %v: %q", tc.terminal, tc.json, shown, tc.shown, got)
		}
		if tc.shown && !strings.HasSuffix(got, clearLine) {
			t.Errorf("the progress line is not cleared: %q", got)
		}
	}
}

// TestReverifyProgress checks that reverify draws its progress on a
// terminal, and nothing under --json or off a terminal.
func TestReverifyProgress(t *testing.T) {
	dsn := filepath.Join(t.TempDir(), "v.db")
	s, err := store.Open(t.Context(), dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := demo.Seed(t.Context(), s, demo.Options{N: 12, Seed: 3})
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		terminal, json bool
		shown          bool
	}{{true, false, true}, {true, true, false}, {false, false, false}} {
		var errb bytes.Buffer
		args := []string{"reverify", "--store", dsn, "--since", "2000-01-01"}
		if tc.json {
			args = append(args, "--json")
		}
		code := Main(context.Background(), args, progressStreams(tc.terminal, &errb))
		if code != 0 && code != 1 {
			t.Fatalf("reverify: exit %d: %s", code, errb.String())
		}
		got := errb.String()
		bar := strings.Contains(got, "\rvouch reverify [") && strings.Contains(got, "100% ")
		selecting := strings.Contains(got, clearLine+"vouch reverify: selecting the verifications")
		if bar != tc.shown || selecting != tc.shown || strings.Contains(got, "\r") != tc.shown {
			t.Errorf("terminal %v, --json %v: bar %v, selecting %v, want %v: %q", tc.terminal, tc.json, bar, selecting, tc.shown, got)
		}
		if !strings.Contains(got, "to re-verify") {
			t.Errorf("no batch line: %q", got)
		}
		if tc.shown && !strings.Contains(got, "/"+strconv.Itoa(sum.Verifications)) {
			t.Errorf("the bar does not count the %d verifications: %q", sum.Verifications, got)
		}
	}
}

// watchWriter is a goroutine-safe writer that closes seen once what is
// written holds want.
type watchWriter struct {
	mu   sync.Mutex
	b    bytes.Buffer
	want string
	seen chan struct{}
	once sync.Once
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if strings.Contains(w.b.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

func (w *watchWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestServeDemoProgress runs vouch serve --demo in-process with standard
// error as a terminal: the fill draws a bar, cleared before the server
// says where it listens.
func TestServeDemoProgress(t *testing.T) {
	// The server logs "serving" (as text: on a terminal) once it serves:
	// stopped then, it stops cleanly.
	errw := &watchWriter{want: "msg=serving", seen: make(chan struct{})}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	st := Streams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: errw,
		IsTerminal: func(any) bool { return true },
		Getenv:     func(string) string { return "" }}
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--demo", "--demo-n", "6"}, st)
	}()
	select {
	case <-errw.seen:
	case code := <-done:
		t.Fatalf("serve --demo ended (exit %d) before serving: %s", code, errw.String())
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("serve --demo: exit %d: %s", code, errw.String())
	}
	got := errw.String()
	making := strings.Index(got, "vouch serve: making 6 demonstration verifications, then serving them on http://127.0.0.1:")
	bar := strings.Index(got, "\rdemo data [")
	full := strings.Index(got, "100% 6/6"+clearLine)
	listening := strings.Index(got, "vouch serve: listening on")
	if making < 0 || bar < making || full < bar || listening < full {
		t.Errorf("want the bound address, the bar filled and cleared, then the listening line: %q", got)
	}
}

// TestBatchProgressNotUnderJSON checks that verify --batch --json draws
// no bar, even on a terminal.
func TestBatchProgressNotUnderJSON(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte(strings.Repeat(passing+"\n", 3)), 0o644); err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	if code := Main(context.Background(), []string{"verify", "--batch", in, "--out", filepath.Join(dir, "out.jsonl"), "--json"}, progressStreams(true, &errb)); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if strings.Contains(errb.String(), "\r") {
		t.Errorf("a bar under --json: %q", errb.String())
	}
}
