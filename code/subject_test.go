package code_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/code"
)

// subject returns a verification over a workspace holding files, with a
// parse budget of parseBytes (0: the default).
func subject(t *testing.T, files map[string]string, parseBytes int64) *vouch.Subject {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	pol := vouch.DefaultPolicy()
	pol.Limits.ParseBytes = parseBytes
	return &vouch.Subject{Request: &vouch.Request{}, Policy: &pol, Workspace: root}
}

func TestFileFor(t *testing.T) {
	ctx := context.Background()
	a := "package a\n\n// A is documented.\nfunc A() {}\n"
	b := "package b\n\nfunc B() {}\n"
	s := subject(t, map[string]string{"a.go": a, "b.go": b, "notes.txt": "x"}, int64(len(a)+len(b)/2))

	f, err := code.FileFor(ctx, s, "a.go")
	if err != nil || len(f.Lookup("A")) != 1 || !f.Lookup("A")[0].HasDoc {
		t.Fatalf("a.go: %+v, %v", f, err)
	}
	if again, _ := code.FileFor(ctx, s, "a.go"); again != f {
		t.Error("a.go parsed twice in one verification")
	}
	// The budget is spent by a.go: b.go is not parsed.
	if _, err := code.FileFor(ctx, s, "b.go"); !errors.Is(err, code.ErrParseLimit) {
		t.Errorf("b.go over the budget: %v", err)
	}
	if _, err := code.FileFor(ctx, s, "notes.txt"); !errors.Is(err, code.ErrUnsupported) {
		t.Errorf("notes.txt: %v", err)
	}
	if _, err := code.FileFor(ctx, s, "gone.go"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("gone.go: %v", err)
	}
	if _, err := code.FileFor(ctx, s, "../a.go"); !errors.Is(err, vouch.ErrOutsideRoot) {
		t.Errorf("../a.go: %v", err)
	}
	// Another verification has its own budget.
	s2 := subject(t, map[string]string{"b.go": b}, 0)
	if f, err := code.FileFor(ctx, s2, "b.go"); err != nil || len(f.Lookup("B")) != 1 {
		t.Errorf("b.go in another verification: %+v, %v", f, err)
	}
	if _, err := code.FileFor(ctx, &vouch.Subject{Request: &vouch.Request{}}, "a.go"); !errors.Is(err, vouch.ErrNoWorkspace) {
		t.Errorf("no workspace: %v", err)
	}
}
