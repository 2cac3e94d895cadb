package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// maxCPUs bounds the CPU numbers a list may name (0 to 1023), as the
// kernel's CPU sets that bind processes do.
const maxCPUs = 1024

// parseCPUs reads a list of CPU numbers in the form taskset -c and
// /proc/*/status use: numbers and ranges joined by commas ("0-7",
// "0,2,4-6"). The CPUs come back sorted, each once.
func parseCPUs(s string) ([]int, error) {
	var cpus []int
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		first, err := strconv.Atoi(lo)
		if err != nil || first < 0 {
			return nil, fmt.Errorf("CPU list %q: %q is not a CPU number or a range of them (such as 0-3)", s, part)
		}
		last := first
		if isRange {
			if last, err = strconv.Atoi(hi); err != nil || last < first {
				return nil, fmt.Errorf("CPU list %q: %q is not a range from a lower CPU number to a higher one", s, part)
			}
		}
		if last >= maxCPUs {
			return nil, fmt.Errorf("CPU list %q: %q names a CPU past %d", s, part, maxCPUs-1)
		}
		for c := first; c <= last; c++ {
			cpus = append(cpus, c)
		}
	}
	slices.Sort(cpus)
	return slices.Compact(cpus), nil
}

// formatCPUs writes sorted CPU numbers as parseCPUs reads them, runs as
// ranges.
func formatCPUs(cpus []int) string {
	var b strings.Builder
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(cpus[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(cpus[j]))
		}
		i = j + 1
	}
	return b.String()
}
