package sharedtest

import (
	"os"
	"path/filepath"
	"testing"
)

// fakeTB records what a test helper does to its test.
type fakeTB struct {
	testing.TB
	skipped, failed bool
}

func (f *fakeTB) Helper()               {}
func (f *fakeTB) Skipf(string, ...any)  { f.skipped = true; panic(f) }
func (f *fakeTB) Fatalf(string, ...any) { f.failed = true; panic(f) }

// run calls fn with a fakeTB and returns it after fn skipped, failed or
// returned.
func run(fn func(tb testing.TB)) (f *fakeTB) {
	f = &fakeTB{}
	defer func() {
		if r := recover(); r != nil && r != f {
			panic(r)
		}
	}()
	fn(f)
	return f
}

func TestMissing(t *testing.T) {
	for _, required := range []bool{false, true} {
		if required {
			t.Setenv(RequiredEnv, "1")
		} else {
			t.Setenv(RequiredEnv, "")
		}
		for name, fn := range map[string]func(testing.TB){
			"Path":     func(tb testing.TB) { Path(tb, "no-such-dir-here", "x") },
			"Glob":     func(tb testing.TB) { Glob(tb, "no-such-dir-here/*.jsonl") },
			"Optional": func(tb testing.TB) { Optional(tb, "no-such-dir-here/*.jsonl") },
		} {
			f := run(fn)
			wantSkip := !required && name != "Optional"
			if f.skipped != wantSkip || f.failed != required {
				t.Errorf("%s, required %v: skipped %v, failed %v", name, required, f.skipped, f.failed)
			}
		}
	}
}

func TestDir(t *testing.T) {
	// Dir is beside the repository's root, whichever package asks.
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if got := filepath.Clean(Dir()); got != filepath.Join(filepath.Dir(root), "shared") {
		t.Errorf("Dir() = %s, want shared beside %s", got, root)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Errorf("%s is not the repository's root: %v", root, err)
	}
}
