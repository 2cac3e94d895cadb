package testrun

import "strings"

func init() {
	register(runner{
		name:     "node",
		match:    nodeTest,
		programs: []string{"node", "nodejs"},
		result:   func(l string) bool { k, _, ok := nodeCount(l); return ok && (k == "pass" || k == "fail") },
		read:     readNode,
		args: argSpec{
			values: []string{"--test-name-pattern", "--test-skip-pattern", "--test-reporter",
				"--test-reporter-destination", "--test-concurrency", "--test-timeout", "--import", "--require", "-r",
				"--loader", "--experimental-loader", "--test-shard", "--env-file"},
			pass: with("--test", "--test-reporter*", "--test-concurrency", "--test-timeout", "--import", "--require",
				"-r", "--loader", "--experimental-*", "--no-experimental-*", "--enable-source-maps", "--no-warnings",
				"--trace-*", "--test-force-exit", "--test-coverage-*", "--expose-gc", "--stack-trace-limit",
				"--unhandled-rejections", "--max-old-space-size", "--env-file"),
		},
	})
}

// nodeTest matches node's test runner, "node --test [files]": it returns
// 2 when --test comes first, 1 when other flags come before it, 0 when
// node runs a script instead.
func nodeTest(argv []string) int {
	if p := program(argv); p != "node" && p != "nodejs" {
		return 0
	}
	for i, a := range argv[1:] {
		if !isFlag(a) {
			return 0
		}
		if a == "--test" {
			if i == 0 {
				return 2
			}
			return 1
		}
	}
	return 0
}

// nodeCount reads one of the totals of node's test runner: "# pass 9"
// (TAP reporter) or "ℹ pass 9" (spec reporter); the key is "tests",
// "suites", "pass", "fail", "cancelled", "skipped", "todo". ok is false
// for any other line.
func nodeCount(l string) (key string, n int, ok bool) {
	s := strings.TrimSpace(l)
	s, ok = strings.CutPrefix(s, "# ")
	if !ok {
		s, ok = strings.CutPrefix(s, "ℹ ")
	}
	if !ok {
		return "", 0, false
	}
	key, v, _ := strings.Cut(s, " ")
	switch key {
	case "tests", "suites", "pass", "fail", "cancelled", "skipped", "todo":
		n, ok = atoi(v)
		return key, n, ok
	}
	return "", 0, false
}

// readNode reads the totals of node's test runner (and of other TAP
// producers that print "# pass N" and "# fail N"): a failed or cancelled
// test is Failed (cancelled tests are Errors), no test is NotRun. node
// --test with a file that does not exist ("Could not find") is NotRun.
func readNode(o *output, r *Run) {
	t := tally{}
	seen := false
	var failLine, passLine, testsLine, missing string
	for _, l := range o.lines {
		k, n, ok := nodeCount(l)
		if !ok {
			if strings.HasPrefix(l, "Could not find '") {
				missing = firstOf(missing, l)
			}
			continue
		}
		seen = true
		t[k] = n
		switch k {
		case "fail":
			failLine = l
		case "pass":
			passLine = l
		case "tests":
			testsLine = l
		}
	}
	if !seen {
		if missing != "" {
			r.Status, r.Why = NotRun, missing
		}
		return
	}
	r.set(t["pass"], t["fail"], t["cancelled"], t["skipped"]+t["todo"])
	switch {
	case t["fail"]+t["cancelled"] > 0:
		r.Status, r.Why = Failed, failLine
	case t["pass"] == 0:
		r.Status, r.Why = NotRun, firstOf(testsLine, passLine)
	default:
		r.Status, r.Why = Passed, passLine
	}
}
