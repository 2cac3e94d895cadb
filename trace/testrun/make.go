package testrun

import "strings"

func init() {
	register(runner{
		name:     "make",
		match:    makeTest,
		programs: []string{"make", "gmake"},
		noRun:    []string{"-n", "--dry-run", "--just-print", "--recon", "-q", "--question", "-p", "--print-data-base"},
		read:     readMake,
		wraps:    true,
		quiet:    true,
		echo:     func(l string) (string, bool) { return l, true }, // make echoes its recipes' lines
		args: argSpec{
			custom: makeArgs,
			all:    func([]string) bool { return false }, // targets are compared, never "everything"
		},
	})
}

// makeTarget reports a target that runs tests: test, tests, check,
// unittest, test-unit, unit-test, test_all, check-go...
func makeTarget(t string) bool {
	switch t {
	case "test", "tests", "check", "unittest", "unittests", "unit-test", "unit-tests", "test-all", "testall":
		return true
	}
	return hasPrefixes(t, "test-", "test_", "tests-", "check-", "test.") ||
		strings.HasSuffix(t, "-test") || strings.HasSuffix(t, "-tests") || strings.HasSuffix(t, "_test") || strings.HasSuffix(t, "_tests")
}

// makeValues are make's flags that take the next word as their value.
var makeValues = []string{"-C", "--directory", "-f", "--file", "--makefile", "-I", "--include-dir", "-o",
	"--old-file", "-W", "--what-if", "-l", "--load-average", "-O", "--output-sync"}

// makeTest matches make (gmake) with a target that runs tests: it
// returns 1 (the targets are its arguments), or 0.
func makeTest(argv []string) int {
	if p := program(argv); p != "make" && p != "gmake" {
		return 0
	}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case matchFlag(makeValues, a) && i+1 < len(argv):
			i++
		case a == "-j" && i+1 < len(argv) && countWord(argv[i+1]):
			i++
		case isFlag(a) || isAssignment(a):
		case makeTarget(a):
			return 1
		}
	}
	return 0
}

// makeArgs reads make's arguments: its targets are the paths (two runs
// cover each other only with the same targets); a variable, -C or -f
// narrows (another directory, another makefile, other settings); -j, -k,
// -s and the flags of output do not.
func makeArgs(args []string) (paths, narrow []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, inline := strings.Cut(a, "=")
		switch {
		case isAssignment(a):
			narrow = append(narrow, a)
		case !isFlag(a):
			paths = append(paths, a)
		case name == "-j" || name == "--jobs" || strings.HasPrefix(a, "-j"):
			if a == "-j" && i+1 < len(args) && countWord(args[i+1]) {
				i++
			}
		case matchFlag([]string{"-k", "--keep-going", "-s", "--silent", "--quiet", "-w", "--print-directory",
			"--no-print-directory", "-O*", "--output-sync*", "-l*", "--load-average*", "-B", "--always-make"}, name):
			if (name == "-l" || name == "-O") && !inline && i+1 < len(args) && !isFlag(args[i+1]) && !makeTarget(args[i+1]) {
				i++
			}
		default:
			if matchFlag(makeValues, name) && !inline && i+1 < len(args) {
				i++
				a += " " + args[i]
			}
			narrow = append(narrow, a)
		}
	}
	return paths, narrow
}

// readMake reads make's own lines: a recipe that failed ("make: ***
// [Makefile:12: test] Error 1") is Failed, unless its command was not
// found or could not run (Error 127, 126) or was killed (Error 124, 137,
// 143), which is NotRun; no rule to make the target, or nothing to be
// done for it, is NotRun. The runner inside reads the rest (see
// readRun); an exit status of 0 with no result line is Passed (a recipe
// may print nothing).
func readMake(o *output, r *Run) {
	var fail, env string
	for _, l := range o.lines {
		s := strings.TrimSpace(l)
		if !strings.HasPrefix(s, "make") || !strings.Contains(s, ": ") {
			continue
		}
		_, msg, _ := strings.Cut(s, ": ")
		switch {
		case strings.HasPrefix(msg, "*** No rule to make target") || strings.HasPrefix(msg, "Nothing to be done for") ||
			strings.HasSuffix(msg, "is up to date."):
			env = firstOf(env, l)
		case strings.HasPrefix(msg, "*** ") && containsAny(msg, "Error 127", "Error 126", "Error 124", "Error 137", "Error 143", "Killed"):
			env = firstOf(env, l)
		case strings.HasPrefix(msg, "*** ") && strings.Contains(msg, "Error "):
			fail = firstOf(fail, l)
		}
	}
	switch {
	case env != "":
		r.Status, r.Why = NotRun, env
	case fail != "":
		r.Status, r.Why = Failed, fail
	}
}
