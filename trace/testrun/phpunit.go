package testrun

import "strings"

func init() {
	register(runner{
		name:   "phpunit",
		cmds:   []string{"phpunit", "vendor/bin/phpunit", "php vendor/bin/phpunit", "bin/phpunit", "php bin/phpunit", "php phpunit"},
		noRun:  []string{"--list-tests*", "--list-groups", "--list-suites", "--list-test-files", "--check-version", "--generate-configuration", "--migrate-configuration"},
		result: func(l string) bool { return phpunitResult(l) },
		read:   readPhpunit,
		args: argSpec{
			values: []string{"--filter", "--group", "--exclude-group", "--testsuite", "--exclude-testsuite", "-c",
				"--configuration", "--bootstrap", "--log-junit", "--coverage-*", "--order-by", "--cache-directory",
				"--covers", "--uses", "-d"},
			pass: with("--testdox", "--no-coverage", "--stop-on-*", "--debug", "--display-*", "--fail-on-*", "-c",
				"--configuration", "--bootstrap", "--log-junit", "--coverage-*", "--cache-result", "--do-not-cache-result",
				"--no-progress", "--no-results", "--no-output", "--order-by", "--cache-directory", "--teamcity",
				"--strict-*", "--disallow-*", "--enforce-time-limit", "--default-time-limit", "-d", "--path-coverage",
				"--random-order*", "--process-isolation", "--no-configuration", "--no-extensions", "--no-logging"),
		},
	})
}

// phpunitResult reports PHPUnit's result lines strict enough to find a
// run by its output: "OK (10 tests, 20 assertions)" and "Tests: 10,
// Assertions: 20, Failures: 2.".
func phpunitResult(l string) bool {
	_, ok := phpunitOK(l)
	if !ok {
		_, ok = phpunitTotals(l)
	}
	return ok
}

// phpunitOK reads "OK (10 tests, 20 assertions)"; ok is false for any
// other line.
func phpunitOK(l string) (int, bool) {
	s, ok := strings.CutPrefix(strings.TrimSpace(l), "OK (")
	if !ok || !strings.HasSuffix(s, ")") {
		return 0, false
	}
	its, ok := items(strings.TrimSuffix(s, ")"), ", ")
	if !ok || len(its) != 2 || !strings.HasPrefix(its[0].word, "test") || !strings.HasPrefix(its[1].word, "assertion") {
		return 0, false
	}
	return its[0].n, true
}

// phpunitTotals reads "Tests: 10, Assertions: 20, Failures: 2, Errors: 1,
// Skipped: 1." (PHPUnit's totals when the run was not plainly OK); ok is
// false for any other line.
func phpunitTotals(l string) (tally, bool) {
	s, ok := strings.CutPrefix(strings.TrimSpace(l), "Tests: ")
	if !ok {
		return nil, false
	}
	s = "Tests: " + strings.TrimSuffix(s, ".")
	t := tally{}
	for _, part := range strings.Split(s, ", ") {
		k, v, found := strings.Cut(part, ": ")
		n, ok := atoi(v)
		if !found || !ok {
			return nil, false
		}
		t[strings.ToLower(k)] = n
	}
	_, ok = t["assertions"]
	return t, ok
}

// readPhpunit reads PHPUnit's result: "FAILURES!" or "ERRORS!" and their
// totals are Failed; "OK (N tests, ...)", or totals with no failure and
// no error ("OK, but some tests were skipped!"), are Passed; no test
// ("No tests executed!", 0 tests) is NotRun.
func readPhpunit(o *output, r *Run) {
	var totals tally
	okTests := -1
	var line, failWord, noTests string
	for _, l := range o.lines {
		if n, ok := phpunitOK(l); ok {
			okTests, line, totals, failWord = n, l, nil, ""
		} else if t, ok := phpunitTotals(l); ok {
			totals, line, okTests = t, l, -1
		} else if s := strings.TrimSpace(l); s == "FAILURES!" || s == "ERRORS!" {
			failWord = s
		} else if strings.HasPrefix(s, "No tests executed") {
			noTests = l
		}
	}
	switch {
	case okTests >= 0:
		r.set(okTests, 0, 0, 0)
		r.Status, r.Why = Passed, line
		if okTests == 0 {
			r.Status = NotRun
		}
	case totals != nil:
		skipped := totals["skipped"] + totals["incomplete"]
		r.set(totals["tests"]-totals["failures"]-totals["errors"]-skipped, totals["failures"], totals["errors"], skipped)
		r.Why = line
		switch {
		case totals["failures"]+totals["errors"] > 0 || failWord != "":
			r.Status = Failed
		case totals["tests"] == 0 || r.Passed == 0:
			r.Status = NotRun
		default:
			r.Status = Passed
		}
	case noTests != "":
		r.Status, r.Why = NotRun, noTests
	case failWord != "":
		r.Status, r.Why = Failed, failWord
	}
}
