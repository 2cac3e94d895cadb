package testrun

import "strings"

func init() {
	var cmds []string
	for _, launcher := range []string{"", "npx ", "yarn ", "pnpm ", "pnpm exec ", "bunx "} {
		cmds = append(cmds, launcher+"vitest", launcher+"vitest run")
	}
	register(runner{
		name:   "vitest",
		cmds:   cmds,
		noRun:  []string{"list", "bench", "init"},
		result: func(l string) bool { _, ok := vitestCounts(l, "Tests"); return ok },
		read:   readVitest,
		args: argSpec{
			values: []string{"-t", "--testNamePattern", "--config", "-c", "--reporter", "--project", "--shard",
				"--environment", "--dir", "--root", "-r", "--pool", "--maxWorkers", "--minWorkers", "--outputFile",
				"--testTimeout", "--mode"},
			pass: with("--reporter", "--coverage*", "--run", "--watch", "--passWithNoTests", "--bail", "--pool",
				"--maxWorkers", "--minWorkers", "--no-file-parallelism", "--outputFile", "--testTimeout",
				"--silent", "--hideSkippedTests", "--no-isolate", "--logHeapUsage", "--clearScreen"),
		},
	})
}

// vitestWords are the words of vitest's counts, by the name Run counts
// them by.
var vitestWords = map[string]string{"passed": "passed", "failed": "failed", "skipped": "skipped",
	"todo": "todo", "error": "errors", "errors": "errors"}

// vitestCounts reads one of vitest's summary lines, "Tests  1 failed | 9
// passed (10)" (label "Tests") or "Test Files  1 failed | 2 passed (3)"
// (label "Test Files"), "Tests  no tests"; ok is false for any other
// line.
func vitestCounts(l, label string) (tally, bool) {
	s, ok := strings.CutPrefix(strings.TrimSpace(l), label+"  ")
	if !ok {
		return nil, false
	}
	s = strings.TrimSpace(s)
	if s == "no tests" {
		return tally{}, true
	}
	i := strings.LastIndex(s, " (")
	if i < 0 || !strings.HasSuffix(s, ")") {
		return nil, false
	}
	its, ok := items(s[:i], " | ")
	if !ok {
		return nil, false
	}
	return tallyOf(its, vitestWords)
}

// readVitest reads vitest's summary: its last "Tests" line counts and
// decides (a failed test, or an error vitest counted in its "Errors"
// line, is Failed; no test is NotRun). A test file that failed to load is
// Failed, as for jest; "No test files found" is NotRun.
func readVitest(o *output, r *Run) {
	var tests, files tally
	var testsLine, filesLine, errorsLine, noTests, missing string
	for _, l := range o.lines {
		t := strings.TrimSpace(l)
		if c, ok := vitestCounts(l, "Tests"); ok {
			tests, testsLine = c, l
		} else if c, ok := vitestCounts(l, "Test Files"); ok {
			files, filesLine = c, l
		} else if strings.HasPrefix(t, "Errors  ") {
			errorsLine = l
		} else if strings.HasPrefix(t, "No test files found") || strings.HasPrefix(t, "No test suite found") {
			noTests = l
		} else if jestMissingPackage(l) || strings.Contains(l, "Failed to load url ") && !strings.Contains(l, "url .") {
			missing = firstOf(missing, l)
		}
	}
	settleJS(r, jsSummary{tests: tests, testsLine: testsLine, files: files, filesLine: filesLine, errorsLine: errorsLine, missing: missing, noTests: noTests})
}
