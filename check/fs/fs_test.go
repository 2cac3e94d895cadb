package fs

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/internal/testws"
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

func TestFileChanged(t *testing.T) {
	r := testws.NewRepo(t)
	r.Write(map[string]string{"a.txt": "a.txt", "b.txt": "b.txt"})
	base := r.Commit("base")
	r.Write(map[string]string{"a.txt": "changed"})
	r.Git("commit", "-q", "-am", "agent")
	root, err := os.OpenRoot(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, tt := range []struct {
		path, base string
		want       vouch.Status
	}{
		{"a.txt", base, vouch.StatusPass},
		{"b.txt", base, vouch.StatusFail},
		{"a.txt", "", vouch.StatusUndecided}, // committed, and no base to see it
		{"../x", base, vouch.StatusFail},
	} {
		c, err := newFileChanged(vouch.NewCheckSpec("file_changed", false, map[string]any{"path": tt.path}), check.Env{})
		if err != nil {
			t.Fatal(err)
		}
		s := &vouch.Subject{Request: &vouch.Request{Base: tt.base}, Workspace: root}
		if got := c.Check(context.Background(), s); got.Status != tt.want {
			t.Errorf("file_changed %s (base %q) = %s (%s), want %s", tt.path, tt.base, got.Status, got.Reason, tt.want)
		}
	}
}
