package vouch_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/vouchgate/vouch"
)

// workspace builds a workspace with a file tree and a secret outside it.
func workspace(t *testing.T) *vouch.Subject {
	t.Helper()
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(ws, "src"), 0o755))
	must(os.WriteFile(filepath.Join(base, "secret.txt"), []byte("secret\n"), 0o644))
	must(os.WriteFile(filepath.Join(ws, "src", "a.txt"), []byte("one\ntwo\nthree\n"), 0o644))
	must(os.WriteFile(filepath.Join(ws, "crlf.txt"), []byte("one\r\ntwo\r\nthree"), 0o644))
	must(os.WriteFile(filepath.Join(ws, "big.txt"), []byte(strings.Repeat("x", 100)), 0o644))
	must(os.Symlink(filepath.Join(base, "secret.txt"), filepath.Join(ws, "out-link")))
	must(os.Symlink("src/a.txt", filepath.Join(ws, "in-link")))
	must(syscall.Mkfifo(filepath.Join(ws, "fifo"), 0o644))
	root, err := os.OpenRoot(ws)
	must(err)
	t.Cleanup(func() { root.Close() })
	return &vouch.Subject{Request: &vouch.Request{}, Workspace: root, MaxFileBytes: 64}
}

func TestWorkspaceJail(t *testing.T) {
	s := workspace(t)
	for _, tt := range []struct {
		path string
		want error
	}{
		{"src/a.txt", nil},
		{"in-link", nil},
		{"../secret.txt", vouch.ErrOutsideRoot},
		{"src/../../secret.txt", vouch.ErrOutsideRoot},
		{"/etc/passwd", vouch.ErrOutsideRoot},
		{"out-link", vouch.ErrOutsideRoot},
		{"fifo", vouch.ErrNotRegularFile},
		{"src", vouch.ErrNotRegularFile},
		{"big.txt", vouch.ErrFileTooLarge},
		{"nothere.txt", fs.ErrNotExist},
	} {
		_, err := s.ReadFile(tt.path)
		if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
			t.Errorf("ReadFile(%q) = %v, want %v", tt.path, err, tt.want)
		}
	}
	none := &vouch.Subject{Request: &vouch.Request{}}
	if _, err := none.ReadFile("a"); !errors.Is(err, vouch.ErrNoWorkspace) {
		t.Errorf("no workspace: %v", err)
	}
}

func TestReadLines(t *testing.T) {
	s := workspace(t)
	for _, tt := range []struct {
		path       string
		start, end int
		lines      []string
		n          int
	}{
		{"src/a.txt", 2, 3, []string{"two", "three"}, 3},
		{"src/a.txt", 3, 5, []string{"three"}, 3},
		{"crlf.txt", 1, 3, []string{"one", "two", "three"}, 3},
		{"crlf.txt", 3, 3, []string{"three"}, 3},
		{"src/a.txt", 1, 1, []string{"one"}, 1},
	} {
		lines, n, err := s.ReadLines(tt.path, tt.start, tt.end)
		if err != nil || n != tt.n || strings.Join(lines, "|") != strings.Join(tt.lines, "|") {
			t.Errorf("ReadLines(%s, %d, %d) = %q, %d, %v; want %q, %d", tt.path, tt.start, tt.end, lines, n, err, tt.lines, tt.n)
		}
	}
	if _, _, err := s.ReadLines("fifo", 1, 2); !errors.Is(err, vouch.ErrNotRegularFile) {
		t.Errorf("fifo: %v", err)
	}
	if _, _, err := s.ReadLines("out-link", 1, 2); !errors.Is(err, vouch.ErrOutsideRoot) {
		t.Errorf("escaping link: %v", err)
	}
	if _, _, err := s.ReadLines("src/a.txt", 3, 2); err == nil {
		t.Error("inverted range accepted")
	}
}

func TestCountLines(t *testing.T) {
	for in, want := range map[string]int{"": 0, "a": 1, "a\n": 1, "a\nb": 2, "a\r\nb\r\n": 2, "\n\n": 2, "a\rb": 1} {
		if got := vouch.CountLines([]byte(in)); got != want {
			t.Errorf("CountLines(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestRel(t *testing.T) {
	for _, tt := range []struct{ ws, p, want string }{
		{"/w", "a/b.ts", "a/b.ts"},
		{"/w", "./a/../b.ts", "b.ts"},
		{"/w", "/w/a.ts", "a.ts"},
		{"/w", "/wx/a.ts", ""},
		{"", "/w/a.ts", ""},
		{"/w", "../a.ts", ""},
		{"/w", `a\b.ts`, "a/b.ts"},
		{"/w", ".", ""},
		{"/w", " src/x.go ", "src/x.go"},
	} {
		s := &vouch.Subject{Request: &vouch.Request{Workspace: tt.ws}}
		if got := s.Rel(tt.p); got != tt.want {
			t.Errorf("Rel(%q) in workspace %q = %q, want %q", tt.p, tt.ws, got, tt.want)
		}
	}
	if got := (&vouch.Subject{}).Rel("a.ts"); got != "a.ts" {
		t.Errorf("Rel without a request = %q", got)
	}
}
