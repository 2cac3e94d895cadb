// Package sharedtest locates, for tests, the shared material that lives
// beside the repository's checkout (../shared): real agent sessions and
// trajectories, and labelled data nobody here wrote.
//
// A test that reads it is skipped, and says so, when it is absent. With
// VOUCH_TEST_SHARED_REQUIRED set (CI sets it) such a test fails instead,
// so that a suite cannot pass, or quietly shrink, without reading it.
package sharedtest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// RequiredEnv names the variable that turns a missing shared file from a
// skip into a failure.
const RequiredEnv = "VOUCH_TEST_SHARED_REQUIRED"

// Dir returns the shared material's directory: shared, beside the
// repository's root.
func Dir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return filepath.Join("..", "shared")
	}
	// file is ROOT/internal/sharedtest/sharedtest.go.
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "shared")
}

// missing skips tb, or fails it when the shared material is required.
func missing(tb testing.TB, what string) {
	tb.Helper()
	if os.Getenv(RequiredEnv) != "" {
		tb.Fatalf("%s: %s is set, and the shared material is not beside the checkout", what, RequiredEnv)
	}
	tb.Skipf("%s: not beside the checkout (skipped; %s makes this a failure)", what, RequiredEnv)
}

// Path returns the path of parts under Dir, and skips tb (or fails it)
// when nothing is there.
func Path(tb testing.TB, parts ...string) string {
	tb.Helper()
	p := filepath.Join(append([]string{Dir()}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		missing(tb, filepath.Join(append([]string{"shared"}, parts...)...))
	}
	return p
}

// Glob returns the files matching pattern (a path under Dir), and skips
// tb (or fails it) when none matches.
func Glob(tb testing.TB, pattern string) []string {
	tb.Helper()
	files := Optional(tb, pattern)
	if len(files) == 0 {
		missing(tb, filepath.Join("shared", pattern))
	}
	return files
}

// Optional returns the files matching pattern (a path under Dir) for a
// test that also runs without them: none is no skip, but a failure when
// the shared material is required.
func Optional(tb testing.TB, pattern string) []string {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join(Dir(), pattern))
	if len(files) == 0 && os.Getenv(RequiredEnv) != "" {
		tb.Fatalf("no shared/%s: %s is set, and the shared material is not beside the checkout", pattern, RequiredEnv)
	}
	return files
}
