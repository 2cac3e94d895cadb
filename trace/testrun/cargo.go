package testrun

import "strings"

// cargoArgs are cargo test's arguments: cargo's own, then after "--" the
// test binary's. Words that are not flags are test name filters.
var cargoArgs = argSpec{
	values: []string{"-p", "--package", "--test", "--bench", "--bin", "--example", "--features", "-F", "--target",
		"--manifest-path", "-j", "--jobs", "--exclude", "--profile", "--message-format", "--target-dir",
		"--config", "-Z", "--test-threads", "--skip", "--color", "--format", "--logfile", "--report-time"},
	pass: with("--release", "-r", "--message-format", "--nocapture", "--no-capture", "--show-output",
		"--test-threads", "-j", "--jobs", "--no-fail-fast", "--all-features", "--locked", "--offline", "--frozen",
		"--target-dir", "--workspace", "--all", "--include-ignored", "--config", "--format", "--logfile",
		"--report-time", "--timings*", "--future-incompat-report", "--keep-going", "--target", "--profile"),
}

func init() {
	register(runner{
		name:     "cargo",
		cmds:     []string{"cargo test", "cargo t"},
		match:    func(argv []string) int { return cargoToolchain(argv, "test", "t") },
		programs: []string{"cargo"},
		noRun:    []string{"--no-run", "--list"},
		result:   func(l string) bool { _, _, ok := cargoResult(l); return ok },
		read:     readCargo,
		args:     cargoArgs,
	})
}

// cargoToolchain matches "cargo +nightly <sub>" for one of subs: it
// returns 3, or 0.
func cargoToolchain(argv []string, subs ...string) int {
	if len(argv) < 3 || program(argv) != "cargo" || !strings.HasPrefix(argv[1], "+") {
		return 0
	}
	for _, s := range subs {
		if argv[2] == s {
			return 3
		}
	}
	return 0
}

// cargoResult reads the result line of one test binary: "test result:
// ok. 12 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out;
// finished in 0.00s" ("FAILED." when a test failed). ok is false for any
// other line.
func cargoResult(l string) (t tally, failed, ok bool) {
	s, found := strings.CutPrefix(strings.TrimSpace(l), "test result: ")
	if !found {
		return nil, false, false
	}
	word, s, _ := strings.Cut(s, ". ")
	if word != "ok" && word != "FAILED" {
		return nil, false, false
	}
	t = tally{}
	for _, part := range strings.Split(s, "; ") {
		n, w, ok := count(part)
		if !ok {
			continue // "finished in 0.00s"
		}
		t[w] += n
	}
	return t, word == "FAILED", true
}

// cargoBuild reports the lines of a build that failed: the code under
// test does not compile, which is a failure of the run.
func cargoBuild(l string) bool {
	return strings.HasPrefix(l, "error[E") || strings.HasPrefix(l, "error: could not compile")
}

// cargoEnvironment reports what cargo prints when it could not fetch or
// find what it builds.
func cargoEnvironment(l string) bool {
	return hasPrefixes(l, "error: no such command", "error: could not find `Cargo.toml`", "error: failed to get",
		"error: failed to download", "error: failed to select a version", "error: no matching package named",
		"error: failed to load source for dependency", "error: failed to load manifest", "error: no test target named",
		"error: failed to parse manifest", "error: toolchain ") ||
		strings.Contains(l, "failed to download from")
}

// readCargo reads cargo test's output: it prints a "test result:" line
// for each test binary and for the doc-tests, all of which count (the
// doc-tests' passes as Extra "doctests": those after a "Doc-tests"
// header, or whose tests are named "path - item (line N)", as when
// stdout and stderr were kept apart). Why is the last result line that
// counted a pass. A failed test, or code that does
// not compile (error[E...], "could not compile"), is Failed; cargo that
// could not fetch or find what it builds is NotRun; no test run at all is
// NotRun.
func readCargo(o *output, r *Run) {
	var failedLine, okLine, buildLine, envLine, testFailed string
	seen := false
	docs := false    // after a "Doc-tests" header
	docTest := false // the last test line named a doc-test: "test src/lib.rs - add (line 3) ... ok"
	passed, failed, ignored, doctests := 0, 0, 0, 0
	for _, l := range o.lines {
		if t, f, ok := cargoResult(l); ok {
			seen = true
			if docs || docTest {
				doctests += t["passed"]
			} else {
				passed += t["passed"]
			}
			failed += t["failed"]
			ignored += t["ignored"]
			if f {
				failedLine = firstOf(failedLine, l)
			} else if t["passed"] > 0 || okLine == "" {
				okLine = l
			}
			docTest = false
			continue
		}
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "test ") && strings.Contains(t, " ... "):
			name, _, _ := strings.Cut(t, " ... ")
			docTest = strings.Contains(name, " - ") && strings.Contains(name, "(line ")
		case strings.HasPrefix(t, "Doc-tests "):
			docs = true
		case strings.HasPrefix(t, "Running ") || strings.HasPrefix(t, "Running\t"):
			docs = false
		case cargoBuild(l):
			buildLine = firstOf(buildLine, l)
		case cargoEnvironment(l):
			envLine = firstOf(envLine, l)
		case strings.HasPrefix(l, "error: test failed") || strings.HasPrefix(l, "error: ") && strings.Contains(l, "target failed"):
			testFailed = firstOf(testFailed, l)
		}
	}
	if seen {
		r.set(passed, failed, 0, ignored)
		if doctests > 0 {
			r.Extra, r.ExtraWhat = doctests, "doctests"
		}
	}
	switch {
	case failed > 0 || failedLine != "":
		r.Status, r.Why = Failed, failedLine
	case buildLine != "":
		r.Status, r.Why = Failed, buildLine
	case envLine != "":
		r.Status, r.Why = NotRun, envLine
	case testFailed != "":
		r.Status, r.Why = Failed, testFailed
	case seen && passed+doctests == 0:
		r.Status, r.Why = NotRun, okLine
	case seen:
		r.Status, r.Why = Passed, okLine
	}
}
