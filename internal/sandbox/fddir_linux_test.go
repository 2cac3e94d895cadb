package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRunInOpenDirectory: a run given /proc/self/fd/N of an open
// directory as its Dir starts in that directory, whatever was done to its
// path after it was opened: renamed, with a symlink to another directory
// in its place. It reads the opened directory's files, and what it writes
// (where Landlock confines writes to the directory the run started in)
// lands there too.
func TestRunInOpenDirectory(t *testing.T) {
	base, other := t.TempDir(), t.TempDir()
	ws := filepath.Join(base, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	for dir, mark := range map[string]string{ws: "opened", other: "other"} {
		if err := os.WriteFile(filepath.Join(dir, "mark"), []byte(mark+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := os.Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	moved := ws + ".moved"
	if err := os.Rename(ws, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, ws); err != nil {
		t.Fatal(err)
	}
	dir := "/proc/self/fd/" + strconv.Itoa(int(d.Fd()))
	res := runIn(t, Config{Argv: []string{"sh", "-c", "cat mark && pwd -P && echo written > made"}, Dir: dir})
	if res.ExitCode != 0 {
		t.Fatalf("exit %d: %s%s (%+v)", res.ExitCode, res.Stdout, res.Stderr, res.Confinement)
	}
	if lines := strings.Split(strings.TrimSpace(res.Stdout), "\n"); len(lines) != 2 || lines[0] != "opened" || lines[1] != moved {
		t.Errorf("the run printed %q, want the opened directory's mark and path %s", res.Stdout, moved)
	}
	if data, err := os.ReadFile(filepath.Join(moved, "made")); err != nil || string(data) != "written\n" {
		t.Errorf("the run's file in the opened directory: %q, %v (Landlock ABI %d)", data, err, res.Confinement.Landlock)
	}
	if _, err := os.Stat(filepath.Join(other, "made")); err == nil {
		t.Error("the run wrote in the directory the path names now")
	}
	t.Logf("confinement: %+v", res.Confinement)
}

// TestNoDir: a run without a directory is refused, never started in
// vouch's own working directory.
func TestNoDir(t *testing.T) {
	if _, err := Run(context.Background(), Config{Argv: []string{"true"}, Timeout: time.Minute}); !errors.Is(err, ErrNoDir) {
		t.Errorf("Run without Dir = %v, want ErrNoDir", err)
	}
}
