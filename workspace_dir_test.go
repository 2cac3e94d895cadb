//go:build unix

package vouch_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
)

// TestSubjectDir: the directory a child process is given is the workspace
// that was opened: on Linux, after the workspace is renamed and a symlink
// to another directory put in its place, Dir still leads to the opened
// one. Close releases it.
func TestSubjectDir(t *testing.T) {
	s := workspace(t)
	ws := s.Workspace.Name() // the path workspace opened it by
	dir := s.Dir()
	if dir == "" {
		t.Fatal("Dir is empty")
	}
	if runtime.GOOS == "linux" {
		other := t.TempDir()
		if err := os.MkdirAll(filepath.Join(other, "src"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(other, "src", "a.txt"), []byte("other\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(ws, ws+".moved"); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(other, ws); err != nil {
			t.Fatal(err)
		}
		if dir == ws {
			t.Errorf("Dir = %s, the workspace's path, want a name of the open directory", dir)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "src", "a.txt"))
	if err != nil || string(data) != "one\ntwo\nthree\n" {
		t.Errorf("through Dir %s: %q, %v; want the opened workspace's file", dir, data, err)
	}
	if again := s.Dir(); again != dir {
		t.Errorf("Dir changed from %s to %s", dir, again)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := s.Dir(); got != "" {
		t.Errorf("Dir after Close = %q, want empty", got)
	}
	if got := (&vouch.Subject{}).Dir(); got != "" {
		t.Errorf("Dir without a workspace = %q, want empty", got)
	}
}

// TestSubjectFS: walking the workspace sees its entries; a FIFO is
// refused at once when opened; without a workspace the walk fails.
func TestSubjectFS(t *testing.T) {
	s := workspace(t)
	var names []string
	if err := fs.WalkDir(s.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		names = append(names, p)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(names, " "), ". big.txt crlf.txt fifo in-link out-link src src/a.txt"; got != want {
		t.Errorf("walked %s, want %s", got, want)
	}
	if _, err := s.FS().Open("fifo"); err == nil {
		t.Error("the FIFO was opened")
	}
	none := &vouch.Subject{}
	if err := fs.WalkDir(none.FS(), ".", func(string, fs.DirEntry, error) error { return errors.New("stop") }); err == nil {
		t.Error("a walk without a workspace succeeded")
	}
	if _, err := none.FS().Open("a"); !errors.Is(err, vouch.ErrNoWorkspace) {
		t.Errorf("Open without a workspace = %v, want ErrNoWorkspace", err)
	}
}
