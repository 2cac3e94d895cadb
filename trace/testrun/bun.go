package testrun

import "strings"

func init() {
	register(runner{
		name:   "bun",
		cmds:   []string{"bun test"},
		result: func(l string) bool { _, ok := bunRan(l); return ok },
		read:   readBun,
		args: argSpec{
			values: []string{"-t", "--test-name-pattern", "--timeout", "--preload", "--rerun-each", "--coverage-reporter",
				"--coverage-dir", "--reporter", "--reporter-outfile", "--bail"},
			pass: with("--coverage", "--bail", "--timeout", "--preload", "--rerun-each", "--coverage-reporter",
				"--coverage-dir", "--reporter", "--reporter-outfile", "--update-snapshots", "-u"),
		},
	})
}

// bunRan reads bun test's last line, "Ran 11 tests across 2 files.
// [12.00ms]"; ok is false for any other line.
func bunRan(l string) (int, bool) {
	s, ok := strings.CutPrefix(strings.TrimSpace(l), "Ran ")
	if !ok {
		return 0, false
	}
	n, w, ok := count(s)
	return n, ok && (strings.HasPrefix(w, "tests across ") || strings.HasPrefix(w, "test across "))
}

// readBun reads bun test's totals, " 10 pass", " 1 fail", " 2 skip", " 1
// todo", and its "Ran N tests across M files." line: a failed test is
// Failed, no test ("Ran 0 tests", "No tests found!") is NotRun.
func readBun(o *output, r *Run) {
	t := tally{}
	ran := -1
	var ranLine, failLine, passLine, noTests string
	for _, l := range o.lines {
		if n, ok := bunRan(l); ok {
			ran, ranLine = n, l
			continue
		}
		s := strings.TrimSpace(l)
		if strings.HasPrefix(s, "No tests found") || strings.Contains(s, "had no matches") {
			noTests = l
			continue
		}
		n, w, ok := count(s)
		if !ok || len(l) == len(s) {
			continue // bun indents its totals
		}
		switch w {
		case "pass", "fail", "skip", "todo":
			t[w] = n
			if w == "fail" {
				failLine = l
			} else if w == "pass" {
				passLine = l
			}
		}
	}
	if ran < 0 && len(t) == 0 {
		if noTests != "" {
			r.Status, r.Why = NotRun, noTests
		}
		return
	}
	r.set(t["pass"], t["fail"], 0, t["skip"]+t["todo"])
	switch {
	case t["fail"] > 0:
		r.Status, r.Why = Failed, failLine
	case ran == 0 || t["pass"] == 0:
		r.Status, r.Why = NotRun, firstOf(ranLine, passLine)
	default:
		r.Status, r.Why = Passed, firstOf(ranLine, passLine)
	}
}
