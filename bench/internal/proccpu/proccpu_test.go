package proccpu

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestOf reads this process's CPU time: its command's name, and a time
// that grows as it works.
func TestOf(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here")
	}
	name, before, ok := Of(os.Getpid())
	if !ok {
		t.Fatal("this process's /proc/PID/stat could not be read")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The kernel keeps the first 15 bytes of the name.
	if want := filepath.Base(exe); len(want) > 15 && name != want[:15] || len(want) <= 15 && name != want {
		t.Errorf("name %q, want %q", name, want)
	}
	// The kernel charges CPU time a tick at a time, to user or system time
	// by where the tick finds the process: work until both readings show
	// user time.
	for deadline := time.Now().Add(10 * time.Second); ; {
		x := 0
		for i := range 10_000_000 {
			x += i
		}
		_, after, _ := Of(os.Getpid())
		st, ok := Stat(os.Getpid())
		if !ok || st.Name != name {
			t.Fatalf("Stat of this process: %+v, %v; want its name %q", st, ok, name)
		}
		if after > before && st.User > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s of work (%d), CPU time %v (was %v), Stat %+v", x, after, before, st)
		}
	}
	if _, _, ok := Of(-1); ok {
		t.Error("a process that cannot exist was read")
	}
}
