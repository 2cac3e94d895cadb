package testrun

import "strings"

func init() {
	register(runner{
		name:   "unittest",
		cmds:   []string{"python -m unittest", "python -m nose", "nosetests"},
		result: func(l string) bool { _, ok := ranTests(l); return ok },
		read:   func(o *output, r *Run) { readUnittest(o, r, false) },
		exit:   unittestExit,
		quiet:  true, // its report goes to stderr, which a trace may not hold
		args: argSpec{
			values: []string{"-k", "-s", "-p", "-t", "--start-directory", "--pattern", "--top-level-directory", "--durations"},
			pass:   with("-f", "--failfast", "-b", "--buffer", "-c", "--catch", "--locals", "--durations"),
			all:    func(paths []string) bool { return len(paths) == 0 || len(paths) == 1 && paths[0] == "discover" },
		},
	})
}

// ranTests reads unittest's count line, "Ran 140 tests in 2.345s" ("Ran
// 1 test in 0.001s"); ok is false for any other line.
func ranTests(l string) (int, bool) {
	s, ok := strings.CutPrefix(strings.TrimSpace(l), "Ran ")
	if !ok {
		return 0, false
	}
	n, w, ok := count(s)
	if !ok {
		return 0, false
	}
	w, ok = strings.CutPrefix(w, "test")
	w = strings.TrimPrefix(w, "s")
	if !ok || !strings.HasPrefix(w, " in ") {
		return 0, false
	}
	d := w[len(" in "):]
	_, rest, ok := leadingInt(d)
	return n, ok && strings.HasSuffix(rest, "s") && !strings.Contains(rest, " ")
}

// verdict reads unittest's verdict line after its count line: "OK", "OK
// (skipped=3)", "FAILED (failures=2, errors=1)", "NO TESTS RAN". word is
// "OK", "FAILED" or "NO TESTS RAN"; ok is false for another line.
func verdict(l string) (word string, t tally, ok bool) {
	s := strings.TrimSpace(l)
	for _, w := range []string{"NO TESTS RAN", "FAILED", "OK"} {
		rest, found := strings.CutPrefix(s, w)
		if !found {
			continue
		}
		rest = strings.TrimSpace(rest)
		t = tally{}
		if rest == "" {
			return w, t, true
		}
		inner, found := strings.CutPrefix(rest, "(")
		inner, closed := strings.CutSuffix(inner, ")")
		if !found || !closed {
			return "", nil, false
		}
		for _, kv := range strings.Split(inner, ", ") {
			k, v, _ := strings.Cut(kv, "=")
			n, ok := atoi(v)
			if !ok {
				return "", nil, false
			}
			t[strings.TrimSpace(k)] += n
		}
		return w, t, true
	}
	return "", nil, false
}

// readUnittest reads the output of unittest's text runner, which
// Django's test runner prints too: "Ran N tests in Xs", then "OK", "OK
// (skipped=3)" or "FAILED (failures=2, errors=1)". The last such pair
// decides. Ran 0 tests, "NO TESTS RAN", or every test skipped is NotRun;
// a run whose only errors are test modules that failed to import
// (unittest.loader._FailedTest) is NotRun. Without a count line, a "FAIL:
// test_x (module.Class)" line is Failed, and an ImportError or
// ModuleNotFoundError (the tests could not be loaded) or a usage error is
// NotRun. With django set, a failed system check, a bad configuration or
// "Found 0 test(s)." is NotRun too.
//
// Passed is what ran less failures, errors and skipped tests; expected
// failures count as passed, as unittest's "OK" does.
func readUnittest(o *output, r *Run, django bool) {
	ran := -1
	var (
		ranLine, word, verdictLine string
		t                          tally
		failLine, importLine       string
		failedImport               string
		nFailedImport              int
		notRun                     string
	)
	for i, l := range o.lines {
		if n, ok := ranTests(l); ok {
			ran, ranLine, word, verdictLine, t = n, l, "", "", nil
			// The verdict follows, after a blank line.
			for _, v := range o.lines[i+1 : min(i+4, len(o.lines))] {
				if strings.TrimSpace(v) == "" {
					continue
				}
				if w, vt, ok := verdict(v); ok {
					word, t, verdictLine = w, vt, v
				}
				break
			}
			continue
		}
		switch {
		case hasPrefixes(l, "ERROR: ", "FAIL: ") && containsAny(l, "unittest.loader._FailedTest", "unittest.loader.ModuleImportFailure"):
			nFailedImport++
			failedImport = firstOf(failedImport, l)
		case hasPrefixes(l, "FAIL: ", "ERROR: ") && strings.Contains(l, " ("):
			failLine = firstOf(failLine, l)
		case hasPrefixes(l, "ImportError: ", "ModuleNotFoundError: "):
			importLine = firstOf(importLine, l)
		case strings.Contains(l, "error: unrecognized arguments") || strings.HasPrefix(l, "error: argument "):
			notRun = firstOf(notRun, l)
		case django && (hasPrefixes(l, "SystemCheckError: ", "django.core.exceptions.ImproperlyConfigured") ||
			strings.TrimSpace(l) == "Found 0 test(s)."):
			notRun = firstOf(notRun, l)
		}
	}
	if ran >= 0 && word != "" {
		r.set(ran-t["failures"]-t["errors"]-t["skipped"]-t["unexpected successes"], t["failures"], t["errors"], t["skipped"])
		r.Why = verdictLine
		switch {
		case word == "FAILED" && t["failures"] == 0 && t["errors"] > 0 && nFailedImport >= t["errors"]:
			r.Status, r.Why = NotRun, failedImport
		case word == "FAILED":
			r.Status = Failed
		case word == "NO TESTS RAN" || ran == 0:
			r.Status, r.Why = NotRun, ranLine
		case t["skipped"] >= ran:
			r.Status = NotRun
		default:
			r.Status = Passed
			if strings.TrimSpace(verdictLine) == "OK" {
				r.Why = strings.TrimSpace(ranLine) + ": OK"
			}
		}
		return
	}
	switch {
	case ran == 0:
		r.Status, r.Why = NotRun, ranLine
	case failLine != "":
		r.Status, r.Why = Failed, failLine
	case ran > 0:
		// A count line without its verdict: the output was cut.
	case notRun != "":
		r.Status, r.Why = NotRun, notRun
	case importLine != "":
		r.Status, r.Why = NotRun, importLine
	}
}

// unittestExit maps unittest's exit status 5 (no tests ran, Python 3.12)
// to NotRun.
func unittestExit(code int) (Status, bool) {
	if code == 5 {
		return NotRun, true
	}
	return Unknown, false
}
