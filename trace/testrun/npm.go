package testrun

import "strings"

func init() {
	for _, pm := range []string{"npm", "yarn", "pnpm"} {
		register(runner{
			name:     pm,
			match:    func(argv []string) int { return scriptTest(pm, argv) },
			programs: []string{pm},
			echo:     echoScript,
			read:     readNpm,
			wraps:    true,
			quiet:    true, // a test script may print nothing
			args:     npmArgs,
			target:   func(argv []string) string { return script(argv) },
		})
	}
}

// echoScript reads the command a package manager echoes before it runs
// a script: "> jest test/" (npm, pnpm), "$ jest" (yarn).
func echoScript(l string) (string, bool) {
	if c, ok := strings.CutPrefix(l, "> "); ok {
		return c, true
	}
	return strings.CutPrefix(l, "$ ")
}

// npmArgs are the arguments of a test script run: the package manager's
// own flags, then, after "--", the script's.
var npmArgs = argSpec{
	values: []string{"-w", "--workspace", "--prefix", "-C", "--dir", "--filter", "-F", "-t", "--testNamePattern", "-g",
		"--grep", "--reporter"},
	pass: with("-s", "--if-present", "--ignore-scripts", "--ci", "--coverage", "--runInBand", "-i", "--reporter",
		"--watchAll", "--watch", "--run", "--passWithNoTests", "--forceExit", "--detectOpenHandles", "--bail"),
}

// testScript reports a script that runs tests: test, test:unit,
// test-unit, test_ci.
func testScript(s string) bool {
	return s == "test" || hasPrefixes(s, "test:", "test-", "test_")
}

// scriptTest matches "npm test", "npm t", "npm run test", "npm
// run-script test:unit", "yarn test", "yarn run test", "pnpm test",
// "pnpm run test" for the package manager pm: it returns how many words
// name the script, or 0.
func scriptTest(pm string, argv []string) int {
	if program(argv) != pm || len(argv) < 2 {
		return 0
	}
	switch a := argv[1]; {
	case a == "test" || a == "t" || a == "tst" || a == "it" || a == "install-test" || pm != "npm" && testScript(a):
		return 2
	case (a == "run" || a == "run-script" || a == "run-s") && len(argv) > 2 && testScript(argv[2]):
		return 3
	}
	return 0
}

// script returns the script a run of a package manager runs ("test" for
// "npm t").
func script(argv []string) string {
	if len(argv) < 2 {
		return ""
	}
	s := argv[1]
	if (s == "run" || s == "run-script" || s == "run-s") && len(argv) > 2 {
		s = argv[2]
	}
	switch s {
	case "t", "tst", "it", "install-test":
		s = "test"
	}
	return s
}

// readNpm reads the lines of npm, yarn and pnpm about the script they
// ran: it failed ("npm ERR! Test failed", "npm error code 1", "error
// Command failed with exit code 1.", "ELIFECYCLE") is Failed; there is no
// such script ("Missing script", npm init's "Error: no test specified"),
// or its program is not there ("sh: 1: jest: not found"), is NotRun. The
// runner inside reads the rest (see readRun).
func readNpm(o *output, r *Run) {
	var fail, env string
	for _, l := range o.lines {
		s := strings.TrimSpace(l)
		switch {
		case strings.Contains(s, "Missing script") || s == "Error: no test specified" ||
			strings.Contains(s, "Couldn't find a script named") || strings.Contains(s, "ERR_PNPM_NO_SCRIPT") ||
			strings.HasPrefix(s, "error Command \"") && strings.HasSuffix(s, "\" not found."):
			env = firstOf(env, l)
		case hasPrefixes(s, "npm ERR! Test failed", "npm ERR! code ELIFECYCLE", "npm error code ELIFECYCLE",
			"npm ERR! Lifecycle script", "npm error Lifecycle script", "error Command failed with exit code") ||
			strings.Contains(s, "ELIFECYCLE") || strings.Contains(s, "ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL"):
			fail = firstOf(fail, l)
		case hasPrefixes(s, "npm ERR! code ", "npm error code "):
			if strings.HasSuffix(s, " 127") || strings.HasSuffix(s, " 126") {
				env = firstOf(env, l)
			} else {
				fail = firstOf(fail, l)
			}
		}
	}
	switch {
	case env != "":
		r.Status, r.Why = NotRun, env
	case fail != "":
		r.Status, r.Why = Failed, fail
	}
}
