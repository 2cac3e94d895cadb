package testrun

import "strings"

func init() {
	register(runner{
		name:   "jest",
		cmds:   []string{"jest", "npx jest", "yarn jest", "pnpm jest", "pnpm exec jest", "bunx jest", "npx --yes jest"},
		noRun:  []string{"--listTests", "--showConfig", "--init", "--clearCache"},
		result: func(l string) bool { _, ok := jestCounts(l, "Tests:"); return ok },
		read:   readJest,
		args: argSpec{
			values: []string{"-t", "--testNamePattern", "-c", "--config", "--reporters", "--coverageReporters",
				"--maxWorkers", "-w", "--testPathPattern", "--testPathIgnorePatterns", "--selectProjects", "--shard",
				"--testTimeout", "--outputFile", "--rootDir", "--coverageDirectory"},
			pass: with("--ci", "--coverage", "--runInBand", "-i", "--watchAll", "--forceExit", "--detectOpenHandles",
				"--maxWorkers", "-w", "--testTimeout", "--bail", "-b", "--passWithNoTests", "--reporters", "--json",
				"--outputFile", "--no-cache", "--useStderr", "--logHeapUsage", "--coverageReporters",
				"--coverageDirectory", "--no-watchman", "--errorOnDeprecated", "--expand", "-e", "--noStackTrace",
				"--silent", "--verbose"),
		},
	})
}

// jestWords are the words of jest's counts, by the name Run counts them
// by.
var jestWords = map[string]string{"passed": "passed", "failed": "failed", "skipped": "skipped",
	"todo": "todo", "total": "total", "obsolete": "obsolete", "written": "written", "updated": "updated"}

// jestCounts reads one of jest's summary lines, "Tests:       1 failed, 10
// passed, 11 total" (label "Tests:") or "Test Suites: 1 failed, 2 passed,
// 3 total" (label "Test Suites:"); a "total" must be among its counts. ok
// is false for any other line.
func jestCounts(l, label string) (tally, bool) {
	s, ok := strings.CutPrefix(strings.TrimSpace(l), label)
	if !ok {
		return nil, false
	}
	its, ok := items(strings.TrimSpace(s), ", ")
	if !ok {
		return nil, false
	}
	t, _ := tallyOf(its, jestWords)
	if its[len(its)-1].word != "total" {
		return nil, false
	}
	return t, true
}

// readJest reads jest's summary: its last "Tests:" line counts and
// decides (a failed test is Failed; no test, or only skipped ones, is
// NotRun). A test suite that failed to run (it did not load: a syntax
// error, a missing module of the code under test) is Failed, unless it
// could not find a package, which is the environment (NotRun). "No tests
// found" is NotRun.
func readJest(o *output, r *Run) {
	var tests, suites tally
	var testsLine, suitesLine, noTests, missing string
	for _, l := range o.lines {
		if t, ok := jestCounts(l, "Tests:"); ok {
			tests, testsLine = t, l
		} else if t, ok := jestCounts(l, "Test Suites:"); ok {
			suites, suitesLine = t, l
		} else if strings.HasPrefix(strings.TrimSpace(l), "No tests found") {
			noTests = l
		} else if bare := jestMissingPackage(l); bare {
			missing = firstOf(missing, l)
		}
	}
	settleJS(r, jsSummary{tests: tests, testsLine: testsLine, files: suites, filesLine: suitesLine, missing: missing, noTests: noTests})
}

// jsSummary is what a JavaScript runner's summary said: its counts of
// tests and of test files (jest's suites), the lines they were read
// from, the line of errors it counted (vitest), the first line of a
// package it could not find, and its line saying there was no test.
type jsSummary struct {
	tests, files                                       tally
	testsLine, filesLine, errorsLine, missing, noTests string
}

// settleJS decides a JavaScript runner's run from its summary: a failed
// test, or a counted error, is Failed; a test file that failed to load
// is Failed, unless a package could not be found (the environment:
// NotRun); passed tests are Passed; no test is NotRun.
func settleJS(r *Run, s jsSummary) {
	if s.tests != nil {
		r.set(s.tests["passed"], s.tests["failed"], s.tests["errors"], s.tests["skipped"])
	}
	switch {
	case s.tests["failed"] > 0:
		r.Status, r.Why = Failed, s.testsLine
	case s.errorsLine != "":
		r.Status, r.Why = Failed, s.errorsLine
	case s.files["failed"] > 0 && s.missing != "":
		r.Status, r.Why = NotRun, s.missing
	case s.files["failed"] > 0:
		r.Status, r.Why = Failed, s.filesLine
	case s.tests != nil && s.tests["passed"] > 0:
		r.Status, r.Why = Passed, s.testsLine
	case s.tests != nil:
		r.Status, r.Why = NotRun, s.testsLine
	case s.noTests != "":
		r.Status, r.Why = NotRun, s.noTests
	}
}

// jestMissingPackage reports "Cannot find module 'x' from 'y'" for a
// package (not a relative path): a dependency that is not installed.
func jestMissingPackage(l string) bool {
	_, m, ok := strings.Cut(l, "Cannot find module '")
	return ok && m != "" && m[0] != '.' && m[0] != '/'
}
