package vouch

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// TestReadIsWhatWasOpened: a file swapped for a FIFO or a huge sparse file
// once vouch has opened it changes nothing: what is checked and read is the
// open file, never the path again.
func TestReadIsWhatWasOpened(t *testing.T) {
	ws := t.TempDir()
	p := filepath.Join(ws, "a.txt")
	if err := os.WriteFile(p, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	afterOpen = func(string) {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	defer func() { afterOpen = nil }()
	s := &Subject{Request: &Request{}, Workspace: root}
	data, err := s.ReadFile("a.txt")
	if err != nil || string(data) != "one\ntwo\n" {
		t.Fatalf("ReadFile = %q, %v; want the file that was opened", data, err)
	}
	// And the FIFO itself, opened afresh, is refused at once.
	afterOpen = nil
	s2 := &Subject{Request: &Request{}, Workspace: root}
	if _, err := s2.ReadFile("a.txt"); !errors.Is(err, ErrNotRegularFile) {
		t.Fatalf("FIFO: %v", err)
	}
}

// TestHugeFileReadThroughLimit: a 2 GB sparse file is read up to the limit
// only: a region inside it is answered, one past it is ErrFileTooLarge
// (never a short line count), and memory stays near the limit.
func TestHugeFileReadThroughLimit(t *testing.T) {
	ws := t.TempDir()
	p := filepath.Join(ws, "huge.log")
	if err := os.WriteFile(p, []byte(strings.Repeat("line\n", 10)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, 2<<30); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	s := &Subject{Request: &Request{}, Workspace: root, MaxFileBytes: 1 << 20}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	lines, n, err := s.ReadLines("huge.log", 2, 3)
	runtime.ReadMemStats(&after)
	if err != nil || n != 3 || strings.Join(lines, "|") != "line|line" {
		t.Fatalf("ReadLines(2, 3) = %q, %d, %v", lines, n, err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
		t.Errorf("reading a 2 GB file allocated %d bytes", grew)
	}
	if _, _, err := s.ReadLines("huge.log", 5, 5_000_000); !errors.Is(err, ErrFileTooLarge) {
		t.Errorf("a region past the limit: %v, want ErrFileTooLarge", err)
	}
	if _, err := s.ReadFile("huge.log"); !errors.Is(err, ErrFileTooLarge) {
		t.Errorf("ReadFile: %v", err)
	}
}

// TestManyRegionsOneRead: many regions of a file without newlines cost one
// read of the file, not one a region.
func TestManyRegionsOneRead(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "one-line.min.js"), []byte(strings.Repeat("x", 3<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	opens := 0
	afterOpen = func(string) { opens++ }
	defer func() { afterOpen = nil }()
	s := &Subject{Request: &Request{}, Workspace: root}
	for i := 1; i <= 1000; i++ {
		if _, n, err := s.ReadLines("one-line.min.js", i, i+1); err != nil || n != 1 {
			t.Fatalf("region %d: n %d, %v", i, n, err)
		}
	}
	if opens != 1 {
		t.Errorf("1000 regions opened the file %d times", opens)
	}
}
