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

// Of reads a process's CPU time from /proc/PID/stat: its own user and
// system time, and that of its children it has waited for (for
// PostgreSQL's postmaster, the backends that ended). The name is the
// command's; ok is false when the process cannot be read.
func Of(pid int) (name string, cpu time.Duration, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, false
	}
	open, end := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
	if open < 0 || end < open || end+2 > len(data) {
		return "", 0, false
	}
	f := strings.Fields(string(data[end+2:]))
	if len(f) < 15 {
		return "", 0, false
	}
	var t float64
	for _, i := range []int{11, 12, 13, 14} { // utime, stime, cutime, cstime
		v, _ := strconv.ParseFloat(f[i], 64)
		t += v
	}
	return string(data[open+1 : end]), time.Duration(t / Ticks() * float64(time.Second)), true
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
