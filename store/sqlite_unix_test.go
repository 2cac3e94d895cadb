//go:build unix

package store_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/vouchgate/vouch/store"
)

// TestSQLiteFileModes: the database and its -wal and -shm files are
// readable by their owner only, whatever the umask.
func TestSQLiteFileModes(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	path := filepath.Join(t.TempDir(), "v.db")
	st, err := store.Open(t.Context(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.ActiveKeys(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if m := fi.Mode().Perm(); m != 0o600 {
			t.Errorf("%s: mode %v, want -rw-------", filepath.Base(p), m)
		}
	}
}
