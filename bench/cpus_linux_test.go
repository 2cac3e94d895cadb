package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// allowedCPUs lists the CPUs the calling thread may run on.
func allowedCPUs(t *testing.T) []int {
	t.Helper()
	var s unix.CPUSet
	if err := unix.SchedGetaffinity(0, &s); err != nil {
		t.Fatal(err)
	}
	return setCPUs(&s)
}

// cpusAllowed reads the Cpus_allowed_list line of a /proc status file.
func cpusAllowed(t *testing.T, status string) string {
	t.Helper()
	for line := range strings.Lines(status) {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("no Cpus_allowed_list in %q", status)
	return ""
}

func TestStartPinned(t *testing.T) {
	runtime.LockOSThread() // the thread whose mask must come back
	defer runtime.UnlockOSThread()
	before := allowedCPUs(t)
	if len(before) < 2 {
		t.Skip("binding can only be seen with two CPUs or more")
	}
	last := before[len(before)-1:]
	cmd := exec.Command("cat", "/proc/self/status")
	var out strings.Builder
	cmd.Stdout = &out
	if err := startPinned(cmd, last); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if got, want := cpusAllowed(t, out.String()), formatCPUs(last); got != want {
		t.Errorf("the child runs on CPUs %s, want %s", got, want)
	}
	if after := allowedCPUs(t); !slices.Equal(after, before) {
		t.Errorf("the starting thread runs on CPUs %v after the start, want %v as before", after, before)
	}
	if err := startPinned(exec.Command(filepath.Join(t.TempDir(), "missing")), last); err == nil {
		t.Error("starting a missing program: no error")
	}
	if after := allowedCPUs(t); !slices.Equal(after, before) {
		t.Errorf("after a failed start the thread runs on CPUs %v, want %v", after, before)
	}
}

func TestSplitCPUs(t *testing.T) {
	all := allowedCPUs(t)
	rest, err := splitCPUs(all[:1])
	if err != nil || !slices.Equal(rest, all[1:]) {
		t.Errorf("splitCPUs(%v) = %v, %v; want %v", all[:1], rest, err, all[1:])
	}
	if rest, err := splitCPUs(all); err != nil || len(rest) != 0 {
		t.Errorf("splitCPUs(all) = %v, %v; want none left", rest, err)
	}
	if _, err := splitCPUs([]int{all[len(all)-1] + 1}); err == nil {
		t.Error("a CPU this process may not run on: no error")
	}
}

// TestPinSelf binds a process of its own (this test binary again), whose
// threads all report the CPUs they may run on.
func TestPinSelf(t *testing.T) {
	if cpu := os.Getenv("VOUCH_BENCH_PIN_SELF"); cpu != "" {
		cpus, err := parseCPUs(cpu)
		if err == nil {
			err = pinSelf(cpus)
		}
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		tasks, _ := filepath.Glob("/proc/self/task/*/status")
		for _, f := range tasks {
			b, err := os.ReadFile(f)
			if err == nil {
				fmt.Println("thread:", cpusAllowed(t, string(b)))
			}
		}
		fmt.Println("gomaxprocs:", runtime.GOMAXPROCS(0))
		os.Exit(0)
	}
	all := allowedCPUs(t)
	if len(all) < 2 {
		t.Skip("binding can only be seen with two CPUs or more")
	}
	want := formatCPUs(all[:1])
	cmd := exec.Command(os.Args[0], "-test.run=^TestPinSelf$")
	cmd.Env = append(os.Environ(), "VOUCH_BENCH_PIN_SELF="+want)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	threads := 0
	for line := range strings.Lines(string(out)) {
		if v, ok := strings.CutPrefix(line, "thread: "); ok {
			threads++
			if v = strings.TrimSpace(v); v != want {
				t.Errorf("a thread runs on CPUs %s, want %s", v, want)
			}
		}
	}
	if threads < 2 || !strings.Contains(string(out), "gomaxprocs: 1\n") {
		t.Errorf("want every thread (at least 2) bound and GOMAXPROCS 1, got:\n%s", out)
	}
}
