package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// splitCPUs checks that the CPUs a server is to run on are among those
// this process may run on, and returns the others, where the load
// generator runs (none when the server takes them all).
func splitCPUs(server []int) (rest []int, err error) {
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		return nil, fmt.Errorf("this process's CPUs: %w", err)
	}
	for _, c := range server {
		if !allowed.IsSet(c) {
			return nil, fmt.Errorf("CPU %d is not one this process may run on (%s)", c, formatCPUs(setCPUs(&allowed)))
		}
	}
	own := cpuSet(server)
	for _, c := range setCPUs(&allowed) {
		if !own.IsSet(c) {
			rest = append(rest, c)
		}
	}
	return rest, nil
}

// setCPUs lists the CPUs of a set, sorted.
func setCPUs(s *unix.CPUSet) []int {
	var cpus []int
	for c := range maxCPUs {
		if s.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus
}

// cpuSet makes a set of the CPUs given.
func cpuSet(cpus []int) *unix.CPUSet {
	var s unix.CPUSet
	for _, c := range cpus {
		s.Set(c)
	}
	return &s
}

// startPinned starts cmd bound to the CPUs given: the thread that forks
// it is bound to them for the moment of the fork, and the child inherits
// its mask (a Go child then sizes GOMAXPROCS by it, unless its
// environment says otherwise).
func startPinned(cmd *exec.Cmd, cpus []int) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var was unix.CPUSet
	if err := unix.SchedGetaffinity(0, &was); err != nil {
		return err
	}
	if err := unix.SchedSetaffinity(0, cpuSet(cpus)); err != nil {
		return fmt.Errorf("binding to CPUs %s: %w", formatCPUs(cpus), err)
	}
	startErr := cmd.Start()
	if err := unix.SchedSetaffinity(0, &was); err != nil {
		// This thread stays bound: it must not go back to the pool.
		runtime.LockOSThread()
		if startErr == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
		return fmt.Errorf("unbinding from CPUs %s: %w", formatCPUs(cpus), err)
	}
	return startErr
}

// pinSelf binds every thread of this process to the CPUs given, and
// GOMAXPROCS to their count. A thread started later inherits the mask of
// the thread that starts it; one started while the threads are listed is
// bound on the next look, which is taken until it finds none new.
func pinSelf(cpus []int) error {
	set := cpuSet(cpus)
	bound := map[int]bool{}
	for {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return err
		}
		fresh := 0
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil || bound[tid] {
				continue
			}
			fresh++
			if err := unix.SchedSetaffinity(tid, set); err != nil && err != unix.ESRCH {
				return fmt.Errorf("binding thread %d to CPUs %s: %w", tid, formatCPUs(cpus), err)
			}
			bound[tid] = true
		}
		if fresh == 0 {
			break
		}
	}
	runtime.GOMAXPROCS(len(cpus))
	return nil
}
