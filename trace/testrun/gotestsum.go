package testrun

import (
	"slices"
	"strings"
)

func init() {
	register(runner{
		name:   "gotestsum",
		cmds:   []string{"gotestsum"},
		result: func(l string) bool { _, ok := gotestsumDone(l); return ok },
		read:   readGotestsum,
		args: argSpec{
			values: append([]string{"--format", "-f", "--junitfile", "--jsonfile", "--packages", "--rerun-fails-max-failures",
				"--rerun-fails-report", "--format-icons", "--post-run-command", "--junitfile-testsuite-name",
				"--junitfile-testcase-classname"}, goArgs.values...),
			pass: append([]string{"--format", "-f", "--junitfile", "--jsonfile", "--rerun-fails*", "--hide-summary",
				"--format-hide-empty-pkg", "--format-icons", "--no-color", "--debug", "--post-run-command",
				"--junitfile-*"}, goArgs.pass...),
			// gotestsum alone tests ./...
			all: func(paths []string) bool { return len(paths) == 0 || slices.Contains(paths, "./...") },
		},
	})
}

// gotestsumDone reads gotestsum's summary, "DONE 10 tests, 1 skipped, 2
// failures, 1 error in 1.234s" ("DONE 2 runs, 12 tests in 0.5s" with
// --rerun-fails); ok is false for any other line.
func gotestsumDone(l string) (tally, bool) {
	s, ok := strings.CutPrefix(strings.TrimSpace(l), "DONE ")
	if !ok {
		return nil, false
	}
	i := strings.LastIndex(s, " in ")
	if i < 0 || !duration(s[i+4:]) {
		return nil, false
	}
	its, ok := items(s[:i], ", ")
	if !ok {
		return nil, false
	}
	return tallyOf(its, map[string]string{"test": "tests", "tests": "tests", "skipped": "skipped",
		"failure": "failures", "failures": "failures", "error": "errors", "errors": "errors"})
}

// readGotestsum reads gotestsum's output: its "DONE" line decides and
// counts (failures or errors, which include packages that did not build,
// are Failed; no test is NotRun); without it, the go test lines it
// prints do (see readGo).
func readGotestsum(o *output, r *Run) {
	var done tally
	var doneLine string
	for _, l := range o.lines {
		if t, ok := gotestsumDone(l); ok {
			done, doneLine = t, l
		}
	}
	if done == nil {
		readGo(o, r)
		return
	}
	r.set(done["tests"]-done["failures"]-done["skipped"], done["failures"], done["errors"], done["skipped"])
	r.Why = doneLine
	switch {
	case done["failures"]+done["errors"] > 0:
		r.Status = Failed
	case done["tests"] == 0:
		r.Status = NotRun
	default:
		r.Status = Passed
	}
}
