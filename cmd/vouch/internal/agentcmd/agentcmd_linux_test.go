package agentcmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestTimeoutKillsTheGroup(t *testing.T) {
	dir := t.TempDir()
	// The agent starts a child that holds its stdout open, then hangs.
	c := Command{Argv: sh("sleep 60 & echo $! > child.pid; sleep 60"), Dir: dir, Timeout: 300 * time.Millisecond}
	res, err := c.Run(context.Background(), "p", 1)
	if !errors.Is(err, ErrTimedOut) || !res.TimedOut {
		t.Fatalf("%+v, %v; want a timeout", res, err)
	}
	pid, err := os.ReadFile(filepath.Join(dir, "child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	// The child was killed with the group: wait for its exit (a pidfd
	// becomes readable when the process ends), at most 10 s.
	n, err := strconv.Atoi(strings.TrimSpace(string(pid)))
	if err != nil {
		t.Fatal(err)
	}
	fd, err := unix.PidfdOpen(n, 0)
	if err != nil {
		return // already gone and reaped
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	if k, err := unix.Poll(fds, 10000); err != nil || k != 1 {
		t.Errorf("the agent's child still runs 10 s after the timeout (poll %d, %v)", k, err)
	}
}
