//go:build unix

package agentcmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFIFOResultFile: an agent that leaves a FIFO as its result file (no
// writer ever opens it) gets an error naming the file as not a regular
// file, at once: the open does not wait for a writer. Before, the open
// blocked until SIGKILL, past the attempt's timeout and SIGTERM.
func TestFIFOResultFile(t *testing.T) {
	c := Command{Argv: sh("mkfifo result.json"), Dir: t.TempDir(), Result: ResultRequest, ResultFile: "result.json"}
	_, err := c.Run(context.Background(), "p", 1)
	if err == nil || !strings.Contains(err.Error(), "result.json is not a regular file") {
		t.Fatalf("Run = %v, want the result file refused as not a regular file", err)
	}
}

// TestFIFOWorkspace: an agent that replaces its own working directory with
// a FIFO gets an error, not a hang, when its result file is read.
func TestFIFOWorkspace(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ws")
	c := Command{Argv: sh(`d=$(pwd) && cd / && rmdir "$d" && mkfifo "$d"`), Dir: dir, Result: ResultRequest, ResultFile: "result.json"}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := c.Run(context.Background(), "p", 1)
	if err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("Run = %v, want the workspace refused as not a directory", err)
	}
}
