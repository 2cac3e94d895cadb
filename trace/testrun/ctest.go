package testrun

import "strings"

func init() {
	register(runner{
		name:   "ctest",
		cmds:   []string{"ctest"},
		noRun:  []string{"-N", "--show-only*", "--print-labels"},
		result: func(l string) bool { _, _, ok := ctestSummary(l); return ok },
		read:   readCtest,
		args: argSpec{
			values: []string{"-R", "--tests-regex", "-E", "--exclude-regex", "-L", "--label-regex", "-LE",
				"--label-exclude", "-I", "--tests-information", "--test-dir", "-j", "--parallel", "-C",
				"--build-config", "--timeout", "--output-log", "-O", "--repeat", "--output-junit", "-T", "-D", "-M"},
			pass: with("-V", "-VV", "--extra-verbose", "--output-on-failure", "-Q", "--progress", "--stop-on-failure",
				"--schedule-random", "--no-tests", "--test-dir", "-j*", "--parallel", "-C", "--build-config",
				"--timeout", "--output-log", "-O", "--repeat", "--output-junit", "--force-new-ctest-process",
				"--no-compress-output", "--debug", "--test-output-size-*", "--timeout"),
		},
	})
}

// ctestSummary reads ctest's summary, "90% tests passed, 1 tests failed
// out of 10"; ok is false for any other line.
func ctestSummary(l string) (failed, total int, ok bool) {
	s := strings.TrimSpace(l)
	_, rest, ok := leadingInt(s)
	if !ok {
		return 0, 0, false
	}
	rest, ok = strings.CutPrefix(rest, "% tests passed, ")
	if !ok {
		return 0, 0, false
	}
	failed, rest, ok = leadingInt(rest)
	if !ok {
		return 0, 0, false
	}
	rest, ok = strings.CutPrefix(rest, " tests failed out of ")
	if !ok {
		rest, ok = strings.CutPrefix(rest, " test failed out of ")
	}
	if !ok {
		return 0, 0, false
	}
	total, ok = atoi(rest)
	return failed, total, ok
}

// readCtest reads ctest's summary: failed tests are Failed; "No tests
// were found!!!" or none out of 0 are NotRun. Tests listed as not run
// because skipped or disabled ("The following tests did not run:" ...
// "(Skipped)") count as Skipped, not Passed.
func readCtest(o *output, r *Run) {
	failed, total := -1, 0
	skipped := 0
	var sumLine, noTests string
	for _, l := range o.lines {
		if f, t, ok := ctestSummary(l); ok {
			failed, total, sumLine, skipped = f, t, l, 0
			continue
		}
		s := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(s, "No tests were found"):
			noTests = l
		case strings.HasSuffix(s, "(Skipped)") || strings.HasSuffix(s, "(Disabled)"):
			skipped++
		}
	}
	switch {
	case failed >= 0:
		r.set(total-failed-skipped, failed, 0, skipped)
		r.Why = sumLine
		switch {
		case failed > 0:
			r.Status = Failed
		case total-skipped <= 0:
			r.Status = NotRun
		default:
			r.Status = Passed
		}
	case noTests != "":
		r.Status, r.Why = NotRun, noTests
	}
}
