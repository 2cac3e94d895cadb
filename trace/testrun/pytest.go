package testrun

import "strings"

func init() {
	register(runner{
		name:   "pytest",
		cmds:   []string{"pytest", "py.test", "pytest-3", "python -m pytest", "python -m py.test"},
		noRun:  []string{"--co", "--collect-only", "--fixtures", "--fixtures-per-test", "--markers", "-V", "--setup-plan"},
		result: func(l string) bool { _, ok := pytestSummary(l); return ok },
		read:   readPytest,
		exit:   pytestExit,
		args: argSpec{
			values: []string{"-k", "-m", "-p", "-c", "-o", "-W", "-n", "-r", "--tb", "--rootdir", "--maxfail",
				"--deselect", "--ignore", "--ignore-glob", "--durations", "--junitxml", "--junit-xml", "--basetemp",
				"--confcutdir", "--cov", "--cov-report", "--log-level", "--capture", "--import-mode", "--timeout",
				"--reruns", "--dist", "--html", "--override-ini", "--show-capture"},
			pass: with("-s", "-x", "-l", "--exitfirst", "--showlocals", "-r*", "--tb*", "--no-header", "--no-summary",
				"--disable-warnings", "--disable-pytest-warnings", "-p*", "-W*", "-n*", "--numprocesses", "--maxfail",
				"--durations*", "--junitxml", "--junit-xml", "--capture", "--cov*", "--no-cov*", "--timeout",
				"--import-mode", "--basetemp", "--log-*", "-o", "--override-ini", "--runxfail", "--strict*", "--pdb",
				"--full-trace", "--setup-show", "--ff", "--failed-first", "--nf", "--new-first", "--cache-clear",
				"--reruns", "--dist", "--html", "--self-contained-html", "--show-capture", "--no-cov", "--assert",
				"--doctest-modules", "--benchmark-disable", "-rA", "--force-sugar", "--code-highlight"),
			cluster: "vqsxl",
		},
	})
}

// pytestWords are the words of pytest's summary that count tests, by the
// name Run counts them by.
var pytestWords = map[string]string{"passed": "passed", "failed": "failed", "error": "errors", "errors": "errors",
	"skipped": "skipped", "deselected": "deselected", "xfailed": "xfailed", "xpassed": "xpassed"}

// pytestSummary reads pytest's summary line, with or without its frame
// of "=" (-q): "=== 3 failed, 10 passed, 2 skipped, 1 error in 1.20s
// ===", "10 passed in 0.5s", "no tests ran in 0.01s", "1 passed in 65.43s
// (0:01:05)", pytest 3's "in 0.12 seconds". ok is false for any other
// line.
func pytestSummary(l string) (tally, bool) {
	s := strings.TrimSpace(strings.Trim(strings.TrimSpace(l), "="))
	i := strings.LastIndex(s, " in ")
	if i < 0 || !duration(s[i+4:]) {
		return nil, false
	}
	head := s[:i]
	if head == "no tests ran" {
		return tally{}, true
	}
	its, ok := items(head, ", ")
	if !ok {
		return nil, false
	}
	for _, it := range its {
		for _, c := range it.word {
			if (c < 'a' || c > 'z') && c != '-' && c != ' ' {
				return nil, false
			}
		}
	}
	return tallyOf(its, pytestWords)
}

// duration reports a time as pytest prints it after its counts: "0.12s",
// "65.43s (0:01:05)", "0.12 seconds".
func duration(s string) bool {
	_, rest, ok := leadingInt(s)
	if !ok {
		return false
	}
	if strings.HasPrefix(rest, ".") {
		if _, rest, ok = leadingInt(rest[1:]); !ok {
			return false
		}
	}
	return rest == "s" || strings.HasPrefix(rest, "s (") || rest == " seconds" || rest == " second"
}

// readPytest reads pytest's output. Its last summary line decides: tests
// failed (Failed); errors with no failure are NotRun when a test file
// could not be collected ("ERROR collecting", "Interrupted: 1 error during
// collection"), Failed when they are errors in tests (at setup or
// teardown, or beside tests that ran), and NotRun when nothing shows what
// they were; only skipped or
// deselected tests, or none, are NotRun ("no tests ran"); else Passed. A
// run interrupted (KeyboardInterrupt) is NotRun. Without a summary (the
// output cut), its short summary's "FAILED path::test" lines are
// Failed, and a collection error, a usage error ("ERROR: file or
// directory not found") or an internal error is NotRun.
func readPytest(o *output, r *Run) {
	var (
		sum                            tally
		sumLine                        string
		failedLine, collected, stopped string
		usage, internal, noTests       string
		setupErr                       bool
	)
	for _, l := range o.lines {
		if t, ok := pytestSummary(l); ok {
			sum, sumLine = t, l
			continue
		}
		switch {
		case strings.Contains(l, "ERROR collecting ") || strings.HasPrefix(l, "ImportError while loading conftest") ||
			strings.Contains(l, "Interrupted: ") && strings.Contains(l, "during collection"):
			collected = firstOf(collected, l)
		case strings.HasPrefix(l, "!!!") && strings.Contains(l, "KeyboardInterrupt"):
			stopped = l
		case strings.HasPrefix(l, "INTERNALERROR>"):
			internal = firstOf(internal, l)
		case hasPrefixes(l, "ERROR: usage:", "ERROR: file or directory not found:", "ERROR: not found:",
			"ERROR: Wrong expression passed to", "ERROR: Unknown config option"), strings.Contains(l, "error: unrecognized arguments"):
			usage = firstOf(usage, l)
		case strings.HasPrefix(l, "FAILED ") && strings.Contains(l, "::"):
			failedLine = firstOf(failedLine, l)
			r.addFailedID(l[len("FAILED "):])
		case strings.Contains(l, "ERROR at setup of ") || strings.Contains(l, "ERROR at teardown of ") ||
			strings.HasPrefix(l, "ERROR ") && strings.Contains(l, "::"):
			setupErr = true
			if strings.HasPrefix(l, "ERROR ") {
				r.addFailedID(l[len("ERROR "):])
			}
		case strings.HasPrefix(l, "collected 0 items"):
			noTests = l
		}
	}
	if sum != nil {
		r.set(sum["passed"], sum["failed"], sum["errors"], sum["skipped"])
		r.Why = sumLine
		ran := sum["passed"] + sum["xfailed"] + sum["xpassed"]
		switch {
		case stopped != "":
			r.Status = NotRun
		case sum["failed"] > 0:
			r.Status = Failed
		case sum["errors"] > 0 && collected == "" && (setupErr || ran > 0):
			r.Status = Failed
		case sum["errors"] > 0:
			r.Status = NotRun
		case ran > 0:
			r.Status = Passed
		default:
			r.Status = NotRun
		}
		return
	}
	switch {
	case stopped != "":
		r.Status, r.Why = NotRun, stopped
	case failedLine != "":
		r.Status, r.Why = Failed, failedLine
	case collected != "":
		r.Status, r.Why = NotRun, collected
	case usage != "":
		r.Status, r.Why = NotRun, usage
	case internal != "":
		r.Status, r.Why = NotRun, internal
	case noTests != "":
		r.Status, r.Why = NotRun, noTests
	}
}

// pytestExit maps pytest's exit statuses: 2 interrupted (a collection
// error), 3 internal error, 4 usage error, 5 no tests collected are
// NotRun.
func pytestExit(code int) (Status, bool) {
	switch code {
	case 2, 3, 4, 5:
		return NotRun, true
	}
	return Unknown, false
}
