package fs

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
)

func TestFileExists(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	s := &vouch.Subject{Request: &vouch.Request{}, Workspace: root}
	for path, want := range map[string]vouch.Status{
		"a.txt": vouch.StatusPass, "b.txt": vouch.StatusFail, "../x": vouch.StatusFail, "/etc/passwd": vouch.StatusFail,
	} {
		c, err := newFileExists(vouch.NewCheckSpec("file_exists", false, map[string]any{"path": path}), check.Env{})
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Check(context.Background(), s); got.Status != want {
			t.Errorf("file_exists %s = %s (%s), want %s", path, got.Status, got.Reason, want)
		}
	}
	c, _ := newFileExists(vouch.NewCheckSpec("file_exists", false, map[string]any{"path": "a.txt"}), check.Env{})
	if got := c.Check(context.Background(), &vouch.Subject{Request: &vouch.Request{}}); got.Status != vouch.StatusUndecided {
		t.Errorf("no workspace: %s", got.Status)
	}
	if _, err := newFileExists(vouch.NewCheckSpec("file_exists", false, nil), check.Env{}); err == nil {
		t.Error("no path compiled")
	}
}
