// Package proccpu reads the CPU time of processes from Linux's /proc, for
// the benchmarks that report what a run cost the server and the database.
package proccpu

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ticks is the kernel's clock ticks per second, in which /proc counts
// CPU time.
var ticks = sync.OnceValue(func() float64 {
	out, err := exec.Command("getconf", "CLK_TCK").Output()
	if err == nil {
		if v, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64); err == nil && v > 0 {
			return v
		}
	}
	return 100
})

// Ticks returns the kernel's clock ticks per second.
func Ticks() float64 { return ticks() }

// Times is a process's CPU time as /proc/PID/stat counts it.
type Times struct {
	// Name is the command's.
	Name string
	// User and System are the process's own; Children those of its
	// children it has waited for (for PostgreSQL's postmaster, the
	// backends that ended), user and system together.
	User, System, Children time.Duration
}

// Stat reads a process's CPU time from /proc/PID/stat; ok is false when
// the process cannot be read.
func Stat(pid int) (t Times, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Times{}, false
	}
	open, end := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
	if open < 0 || end < open || end+2 > len(data) {
		return Times{}, false
	}
	f := strings.Fields(string(data[end+2:]))
	if len(f) < 15 {
		return Times{}, false
	}
	d := func(fields ...int) time.Duration { // utime 11, stime 12, cutime 13, cstime 14
		var n float64
		for _, i := range fields {
			v, _ := strconv.ParseFloat(f[i], 64)
			n += v
		}
		return time.Duration(n / Ticks() * float64(time.Second))
	}
	return Times{Name: string(data[open+1 : end]), User: d(11), System: d(12), Children: d(13, 14)}, true
}

// Of reads a process's CPU time: its own user and system time, and that
// of its children it has waited for (see Times). The name is the
// command's; ok is false when the process cannot be read.
func Of(pid int) (name string, cpu time.Duration, ok bool) {
	t, ok := Stat(pid)
	return t.Name, t.User + t.System + t.Children, ok
}

// Postgres sums the CPU time of every process of this machine named
// postgres (the postmaster, with the backends that ended, and those
// running); ok is false when there is none.
func Postgres() (cpu time.Duration, ok bool) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if name, c, found := Of(pid); found && name == "postgres" {
			cpu += c
			ok = true
		}
	}
	return cpu, ok
}
