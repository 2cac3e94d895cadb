package engine_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/engine"
)

// gitRepo makes dir a repository with one commit of marker.txt (holding
// mark) and an untracked file named untracked.
func gitRepo(t *testing.T, dir, mark, untracked string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "marker.txt"), []byte(mark+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"init", "-q"}, {"add", "marker.txt"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "one"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, untracked), []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestProcessesRunInTheOpenedWorkspace: git and an allowed command run in
// the directory that was opened, not in whatever its path names by the
// time they start. The workspace is opened, then renamed, and a symlink
// to another repository put in its place: git still lists the opened
// repository's untracked file and not the other's, a command reads the
// opened directory's file, and what a command writes lands there. (Before,
// git and commands were started in the workspace's path.)
func TestProcessesRunInTheOpenedWorkspace(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	if runtime.GOOS != "linux" {
		t.Skip("a child starts in the open directory only on Linux; elsewhere in its path")
	}
	base, outside := t.TempDir(), t.TempDir()
	ws := filepath.Join(base, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	gitRepo(t, ws, "INSIDE-MARK", "inside-new.txt")
	gitRepo(t, outside, "OUTSIDE-MARK", "outside-new.txt")

	opened, err := engine.OpenDir(ws)
	if err != nil {
		t.Fatal(err)
	}
	moved := ws + ".moved"
	if err := os.Rename(ws, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, ws); err != nil {
		t.Fatal(err)
	}

	pol := vouch.DefaultPolicy()
	pol.Commands.Allow = []vouch.CommandRule{vouch.NewCommandRule("cat"), vouch.NewCommandRule("touch")}
	eng, err := engine.New(engine.Options{Policy: &pol, Workspace: func(*vouch.Request) (*os.Root, error) { return opened, nil }})
	if err != nil {
		t.Fatal(err)
	}
	req := decode(t, `{"task":{"goal":"g","criteria":[
		{"id":"inside-changed","check":{"type":"file_changed","path":"inside-new.txt"}},
		{"id":"outside-changed","check":{"type":"file_changed","path":"outside-new.txt"}},
		{"id":"cat","check":{"type":"command","run":["cat","marker.txt"]}},
		{"id":"touch","check":{"type":"command","run":["touch","made.txt"]}}]},
		"output":{"summary":"done"}}`)
	req.Workspace = ws
	rep, err := eng.Verify(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]vouch.CriterionStatus{}
	for _, c := range rep.Criteria {
		status[c.ID] = c.Status
	}
	if status["inside-changed"] != vouch.CriterionMet || status["outside-changed"] == vouch.CriterionMet {
		t.Errorf("git: criteria %v: want the opened repository's changes (inside-new.txt), not the other's", status)
	}
	if status["cat"] != vouch.CriterionMet || status["touch"] != vouch.CriterionMet {
		t.Errorf("commands: criteria %v, want both met", status)
	}
	var outputs []string
	for _, c := range rep.Checks {
		if out, ok := c.Evidence["output"].(string); ok {
			outputs = append(outputs, out)
		}
	}
	all := strings.Join(outputs, "\n")
	if !strings.Contains(all, "INSIDE-MARK") || strings.Contains(all, "OUTSIDE-MARK") {
		t.Errorf("the command read %q, want the opened directory's marker.txt", all)
	}
	if _, err := os.Stat(filepath.Join(moved, "made.txt")); err != nil {
		t.Errorf("the command's file is not in the opened directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "made.txt")); err == nil {
		t.Error("the command wrote in the directory the path names now")
	}
}

// TestWorkspaceRootIsClosed: the engine closes the root a
// resolver returns, whether the verification succeeds or the workspace is
// refused.
func TestWorkspaceRootIsClosed(t *testing.T) {
	for _, dir := range []string{t.TempDir(), "/proc/self"} {
		var got *os.Root
		eng, err := engine.New(engine.Options{Workspace: func(*vouch.Request) (*os.Root, error) {
			r, err := engine.OpenDir(dir)
			got = r
			return r, err
		}})
		if err != nil {
			t.Fatal(err)
		}
		req := decode(t, `{"task":{"goal":"g"},"output":{"summary":"done"}}`)
		_, _ = eng.Verify(context.Background(), req)
		if got == nil {
			t.Fatalf("%s: the resolver opened nothing", dir)
		}
		if _, err := got.Stat("."); err == nil {
			t.Errorf("%s: the workspace root is still open after Verify", dir)
		}
	}
}
