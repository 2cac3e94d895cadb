package testrun

import "strings"

func init() {
	register(runner{
		name:   "swift",
		cmds:   []string{"swift test"},
		noRun:  []string{"--list-tests", "-l", "list"},
		result: func(l string) bool { _, ok := xctestExecuted(l); _, ok2 := swiftTestingRun(l); return ok || ok2 },
		read:   readSwift,
		args: argSpec{
			values: []string{"--filter", "--skip", "-c", "--configuration", "--package-path", "--num-workers", "-j",
				"--jobs", "--xunit-output", "--build-path", "--scratch-path", "--sanitize", "-Xswiftc", "-Xcc", "-Xlinker"},
			pass: with("--parallel", "--enable-code-coverage", "--skip-build", "--disable-sandbox", "-c",
				"--configuration", "--num-workers", "-j", "--jobs", "--xunit-output", "--build-path", "--scratch-path",
				"--enable-testable-imports", "--enable-swift-testing", "--enable-xctest", "--disable-swift-testing",
				"--disable-xctest", "--sanitize", "-Xswiftc", "-Xcc", "-Xlinker", "--experimental-*"),
		},
	})
}

// xctestExecuted reads XCTest's count, "Executed 10 tests, with 1
// failure (0 unexpected) in 0.5 (0.6) seconds", "Executed 10 tests, with
// 2 tests skipped and 0 failures (0 unexpected) in ..."; ok is false for
// any other line.
func xctestExecuted(l string) (tally, bool) {
	s, ok := strings.CutPrefix(strings.TrimSpace(l), "Executed ")
	if !ok {
		return nil, false
	}
	n, w, ok := count(s)
	if !ok {
		return nil, false
	}
	w, ok = strings.CutPrefix(w, "test")
	w = strings.TrimPrefix(w, "s")
	w, ok2 := strings.CutPrefix(w, ", with ")
	if !ok || !ok2 {
		return nil, false
	}
	t := tally{"executed": n}
	if k, rest, found := strings.Cut(w, " skipped and "); found {
		sk, _, _ := count(k)
		t["skipped"] = sk
		w = rest
	}
	f, rest, ok := count(w)
	if !ok || !strings.HasPrefix(rest, "failure") {
		return nil, false
	}
	t["failures"] = f
	t["unexpected"] = f
	if _, u, found := strings.Cut(rest, "("); found {
		if n, r, ok := leadingInt(u); ok && strings.HasPrefix(r, " unexpected") {
			t["unexpected"] = n
		}
	}
	return t, true
}

// swiftTestingRun reads Swift Testing's verdict, "✔ Test run with 5
// tests passed after 0.001 seconds." or "✘ Test run with 5 tests failed
// after 0.002 seconds with 1 issue." ("with 5 tests in 2 suites"); ok is
// false for any other line.
func swiftTestingRun(l string) (tally, bool) {
	_, s, ok := strings.Cut(l, "Test run with ")
	if !ok {
		return nil, false
	}
	n, w, ok := count(s)
	if !ok || !strings.HasPrefix(w, "test") {
		return nil, false
	}
	t := tally{"tests": n}
	switch {
	case strings.Contains(w, " passed after "):
	case strings.Contains(w, " failed after "):
		t["failed"] = 1
		if _, issues, found := strings.Cut(w, " seconds with "); found {
			if k, _, ok := count(issues); ok {
				t["failed"] = k
			}
		}
	default:
		return nil, false
	}
	return t, true
}

// readSwift reads swift test's output: XCTest's last "Executed" line
// (its "All tests" suite) and Swift Testing's last "Test run with" line
// both count. Unexpected failures, or a failed Swift Testing run, are
// Failed (XCTest counts failed assertions, so Failed is the failures it
// states and Passed the tests less those, at least 0); no test is NotRun;
// "error: no tests found" is NotRun.
func readSwift(o *output, r *Run) {
	var xc, st tally
	var xcLine, stLine, noTests string
	for _, l := range o.lines {
		if t, ok := xctestExecuted(l); ok {
			xc, xcLine = t, l
		} else if t, ok := swiftTestingRun(l); ok {
			st, stLine = t, l
		} else if strings.Contains(l, "error: no tests found") {
			noTests = l
		}
	}
	if xc == nil && st == nil {
		if noTests != "" {
			r.Status, r.Why = NotRun, noTests
		}
		return
	}
	tests := xc["executed"] + st["tests"]
	failed := xc["failures"] + st["failed"]
	r.set(tests-failed-xc["skipped"], failed, 0, xc["skipped"])
	switch {
	case xc["unexpected"] > 0:
		r.Status, r.Why = Failed, xcLine
	case st["failed"] > 0:
		r.Status, r.Why = Failed, stLine
	case tests-xc["skipped"] <= 0:
		r.Status, r.Why = NotRun, firstOf(stLine, xcLine)
	default:
		r.Status, r.Why = Passed, firstOf(stLine, xcLine)
	}
}
