package testrun

import "strings"

func init() {
	register(runner{
		name:   "mix",
		cmds:   []string{"mix test"},
		result: func(l string) bool { _, ok := mixSummary(l); return ok },
		read:   readMix,
		args: argSpec{
			values: []string{"--only", "--exclude", "--include", "--seed", "--max-failures", "--max-cases",
				"--formatter", "--partitions", "--repeat-until-failure", "--timeout", "--slowest", "--slowest-modules",
				"--export-coverage", "--color"},
			pass: with("--seed", "--max-failures", "--max-cases", "--formatter", "--repeat-until-failure", "--timeout",
				"--slowest", "--slowest-modules", "--export-coverage", "--trace", "--cover", "--warnings-as-errors",
				"--no-compile", "--no-deps-check", "--no-archives-check", "--raise", "--preload-modules",
				"--no-elixir-version-check", "--force", "--breakpoints"),
		},
	})
}

// mixWords are the words of ExUnit's summary, by the name Run counts
// them by.
var mixWords = map[string]string{"doctest": "doctests", "doctests": "doctests", "property": "properties",
	"properties": "properties", "test": "tests", "tests": "tests", "failure": "failures", "failures": "failures",
	"excluded": "excluded", "skipped": "skipped", "invalid": "invalid"}

// mixSummary reads ExUnit's summary, "10 tests, 0 failures", "14
// doctests, 65 tests, 0 failures", "10 tests, 0 failures, 1 excluded",
// "5 properties, 10 tests, 1 failure, 2 skipped", "1 test, 0 failures, 1
// invalid"; every word must be one of these and "failures" must be there.
// ok is false for any other line.
func mixSummary(l string) (tally, bool) {
	its, ok := items(strings.TrimSpace(l), ", ")
	if !ok {
		return nil, false
	}
	for _, it := range its {
		if _, known := mixWords[it.word]; !known {
			return nil, false
		}
	}
	t, _ := tallyOf(its, mixWords)
	if _, ok := t["failures"]; !ok {
		return nil, false
	}
	return t, true
}

// readMix reads mix test's output: ExUnit's last summary decides.
// Failures, or tests invalid because their setup_all failed, are Failed;
// no test run (all excluded, "There are no tests to run") is NotRun. Code
// under test that does not compile ("== Compilation error", "**
// (CompileError)") is Failed; mix that could not run the tests (a
// dependency that does not compile or is not fetched, a path that
// matches no test: "** (Mix) ...") is NotRun. Passed is the tests less
// failures, invalid, skipped and excluded ones; doctests are Extra.
func readMix(o *output, r *Run) {
	var sum tally
	var sumLine, compileLine, mixLine, noTests string
	for _, l := range o.lines {
		if t, ok := mixSummary(l); ok {
			sum, sumLine = t, l
			continue
		}
		switch {
		case strings.HasPrefix(l, "== Compilation error") || strings.Contains(l, "** (CompileError)") ||
			strings.Contains(l, "** (SyntaxError)") || strings.Contains(l, "** (TokenMissingError)"):
			compileLine = firstOf(compileLine, l)
		case strings.HasPrefix(l, "** (Mix) ") || strings.HasPrefix(l, "Unchecked dependencies") ||
			strings.HasPrefix(l, "Paths given to \"mix test\" did not match"):
			mixLine = firstOf(mixLine, l)
		case strings.HasPrefix(l, "There are no tests to run"):
			noTests = l
		}
	}
	switch {
	case sum != nil:
		ran := sum["tests"] - sum["excluded"] - sum["skipped"]
		r.set(sum["tests"]-sum["failures"]-sum["invalid"]-sum["skipped"]-sum["excluded"], sum["failures"], sum["invalid"], sum["skipped"]+sum["excluded"])
		if sum["doctests"] > 0 {
			r.Extra, r.ExtraWhat = sum["doctests"], "doctests"
		}
		r.Why = sumLine
		switch {
		case sum["failures"]+sum["invalid"] > 0:
			r.Status = Failed
		case ran+sum["doctests"]+sum["properties"] <= 0:
			r.Status = NotRun
		default:
			r.Status = Passed
		}
	case compileLine != "":
		r.Status, r.Why = Failed, compileLine
	case mixLine != "":
		r.Status, r.Why = NotRun, mixLine
	case noTests != "":
		r.Status, r.Why = NotRun, noTests
	}
}
