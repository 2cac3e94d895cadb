//go:build unix

package hook

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFIFOTranscript: a session log that is a FIFO (no writer ever opens
// it) is refused at once as not a regular file: the hook never waits on
// it.
func TestFIFOTranscript(t *testing.T) {
	p := filepath.Join(t.TempDir(), "session.jsonl")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := request(p, 0); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("request(FIFO) = %v, want it refused as not a regular file", err)
	}
}
