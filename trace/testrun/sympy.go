package testrun

import "strings"

func init() {
	sympyArgs := argSpec{
		values: []string{"-k", "--seed", "--timeout", "--split", "--subprocess", "--rerun"},
		pass: with("-C", "--no-cache", "--seed", "--timeout", "--no-subprocess", "--subprocess", "--durations",
			"--slow", "--force-colors", "-E", "--enhance-asserts", "--rerun", "--tb"),
	}
	register(runner{
		name:   "sympy",
		cmds:   []string{"bin/test", "python bin/test"},
		result: func(l string) bool { _, ok := sympySummary(l); return ok },
		read:   readSympy,
		args:   sympyArgs,
	})
	register(runner{
		name: "sympy-doctest",
		cmds: []string{"bin/doctest", "python bin/doctest"},
		read: readSympy, // found by output as "sympy": the same result line
		args: sympyArgs,
	})
}

// sympyWords are the words of sympy's summary, by the name Run counts
// them by.
var sympyWords = map[string]string{"passed": "passed", "failed": "failed", "skipped": "skipped",
	"exceptions": "errors", "exception": "errors", "expected to fail": "xfailed",
	"expected to fail but passed": "xpassed"}

// sympySummary reads the summary of sympy's test runner, "======= tests
// finished: 42 passed, 1 failed, 2 skipped, 1 expected to fail, 3
// exceptions, in 3.20 seconds =======", whose end a narrow terminal may
// have put on the next line. ok is false for any other line.
func sympySummary(l string) (tally, bool) {
	s := strings.TrimSpace(strings.Trim(strings.TrimSpace(l), "="))
	s, ok := strings.CutPrefix(s, "tests finished: ")
	if !ok {
		return nil, false
	}
	if i := strings.LastIndex(s, ", in "); i >= 0 {
		s = s[:i]
	}
	its, ok := items(strings.TrimSuffix(strings.TrimSpace(s), ","), ", ")
	if !ok {
		return nil, false
	}
	return tallyOf(its, sympyWords)
}

// readSympy reads the output of sympy's bin/test and bin/doctest: the
// last "tests finished:" line decides. Failures or exceptions are
// Failed, as is "DO *NOT* COMMIT!" (sympy's word for a failed run) with
// no summary; nothing passed and nothing failed ("tests finished: 0
// passed") is NotRun. Errors are the exceptions raised inside tests.
func readSympy(o *output, r *Run) {
	var sum tally
	var sumLine, noCommit, importLine string
	for _, l := range o.lines {
		if t, ok := sympySummary(l); ok {
			sum, sumLine = t, l
			continue
		}
		switch {
		case strings.Contains(l, "DO *NOT* COMMIT!"):
			noCommit = l
		case hasPrefixes(l, "ImportError: ", "ModuleNotFoundError: "):
			importLine = firstOf(importLine, l)
		}
	}
	switch {
	case sum != nil:
		r.set(sum["passed"], sum["failed"], sum["errors"], sum["skipped"])
		r.Why = sumLine
		switch {
		case sum["failed"]+sum["errors"] > 0:
			r.Status = Failed
		case sum["passed"]+sum["xfailed"]+sum["xpassed"] == 0:
			r.Status = NotRun
		default:
			r.Status = Passed
		}
	case noCommit != "":
		r.Status, r.Why = Failed, noCommit
	case importLine != "":
		r.Status, r.Why = NotRun, importLine
	}
}
