// Package testws builds workspaces for tests: a temporary directory
// holding the files a test names.
package testws

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir writes files (slash-separated paths relative to the directory, and
// their contents) into a new temporary directory, removed when the test
// ends, and returns the directory.
func Dir(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
