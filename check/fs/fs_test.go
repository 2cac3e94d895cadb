package fs

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

func TestFileChanged(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	g := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	g("init", "-q", "-b", "main")
	for _, f := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g("add", "-A")
	g("commit", "-q", "-m", "base")
	base := g("rev-parse", "HEAD")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	g("commit", "-q", "-am", "agent")
	root, err := os.OpenRoot(dir)
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
