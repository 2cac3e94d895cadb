package testrun

import "strings"

func init() {
	register(runner{
		name:   "mocha",
		cmds:   []string{"mocha", "_mocha", "npx mocha", "yarn mocha", "pnpm mocha", "pnpm exec mocha", "bunx mocha"},
		noRun:  []string{"--list-files", "--list-reporters", "--list-interfaces", "init"},
		result: func(l string) bool { w, _, ok := mochaCount(l); return ok && w == "passing" },
		read:   readMocha,
		args: argSpec{
			values: []string{"-g", "--grep", "-f", "--fgrep", "-R", "--reporter", "-t", "--timeout", "-r", "--require",
				"--config", "--spec", "--ui", "-u", "--extension", "--ignore", "--exclude", "--slow", "-s", "--retries",
				"--jobs", "-j", "-O", "--reporter-option", "--reporter-options", "--package", "--file"},
			pass: with("-R", "--reporter", "-t", "--timeout", "--no-timeout", "-r", "--require", "--recursive", "--exit",
				"--bail", "-b", "-c", "--parallel", "-p", "--jobs", "-j", "--slow", "-s", "--retries", "--full-trace",
				"--check-leaks", "--ui", "-u", "--extension", "--config", "--reporter-option", "--reporter-options",
				"-O", "--no-config", "--inline-diffs", "--diff", "--sort", "-S", "--async-only", "-A", "--allow-uncaught",
				"--forbid-only", "--forbid-pending", "--file"),
		},
	})
}

// mochaCount reads one of mocha's summary lines: "10 passing (2s)", "2
// failing", "1 pending". ok is false for any other line.
func mochaCount(l string) (word string, n int, ok bool) {
	n, w, ok := count(strings.TrimSpace(l))
	if !ok {
		return "", 0, false
	}
	switch {
	case strings.HasPrefix(w, "passing (") && strings.HasSuffix(w, ")"):
		return "passing", n, true
	case w == "failing" || w == "pending":
		return w, n, true
	}
	return "", 0, false
}

// readMocha reads mocha's summary: "N passing (time)", then "N pending"
// and "N failing" when there are any. A failing test is Failed; "0
// passing" with none failing, or "No test files found", is NotRun.
func readMocha(o *output, r *Run) {
	var passing, failing, pending = -1, 0, 0
	var passLine, failLine, noTests string
	for _, l := range o.lines {
		w, n, ok := mochaCount(l)
		switch {
		case !ok:
			if strings.Contains(l, "No test files found") {
				noTests = l
			}
		case w == "passing":
			passing, passLine, failing, failLine, pending = n, l, 0, "", 0
		case w == "failing":
			failing, failLine = n, l
		case w == "pending":
			pending = n
		}
	}
	switch {
	case passing < 0 && noTests != "":
		r.Status, r.Why = NotRun, noTests
	case passing < 0:
	case failing > 0:
		r.set(passing, failing, 0, pending)
		r.Status, r.Why = Failed, failLine
	default:
		r.set(passing, failing, 0, pending)
		r.Status, r.Why = Passed, passLine
		if passing == 0 {
			r.Status = NotRun
		}
	}
}
