package claims

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vouchgate/vouch"
)

func bash(cmd, out string, isErr bool) vouch.TraceEntry {
	b, _ := json.Marshal(out)
	return vouch.TraceEntry{Tool: "Bash", Input: map[string]any{"command": cmd}, Output: b, IsError: isErr}
}

func runTests(t *testing.T, out vouch.Output, trace []vouch.TraceEntry) []vouch.CheckResult {
	t.Helper()
	pol := vouch.DefaultPolicy()
	s := &vouch.Subject{Request: &vouch.Request{Output: out, Trace: trace}, Policy: &pol}
	var f vouch.Findings
	if err := (testsAnalyzer{}).Analyze(context.Background(), s, &f); err != nil {
		t.Fatal(err)
	}
	return f.Checks
}

func TestTestClaims(t *testing.T) {
	passed := vouch.Output{Summary: "All tests pass.", TestResult: vouch.TestPassed}
	exit := func(n int) *int { return &n }
	for _, tt := range []struct {
		name     string
		out      vouch.Output
		trace    []vouch.TraceEntry
		status   vouch.Status
		code     string
		strength vouch.Strength
	}{
		{"no claim, no check", vouch.Output{Summary: "done"}, []vouch.TraceEntry{bash("go test ./...", "FAIL", true)}, "", "", ""},
		{"last run passed", passed, []vouch.TraceEntry{bash("go test ./...", "ok  \tx\t0.1s", false)}, vouch.StatusPass, "", vouch.StrengthStrict},
		{"fail then pass is fine", passed, []vouch.TraceEntry{
			bash("go test ./...", "--- FAIL: TestX\nFAIL", true),
			bash("go test ./...", "ok  \tx\t0.1s", false)}, vouch.StatusPass, "", vouch.StrengthStrict},
		{"pass then fail contradicts", passed, []vouch.TraceEntry{
			bash("go test ./...", "ok", false),
			bash("go test ./...", "Exit code 1\n--- FAIL: TestX", true)}, vouch.StatusFail, vouch.CodeTestClaimContradicted, vouch.StrengthStrict},
		{"pipe hides exit code, output does not", passed, []vouch.TraceEntry{
			bash("mix test 2>&1 | tail -5", "Finished in 0.4 seconds\n120 tests, 2 failures\n", false)}, vouch.StatusFail, vouch.CodeTestClaimContradicted, vouch.StrengthStrict},
		{"zero failures is a pass", passed, []vouch.TraceEntry{
			bash("mix test 2>&1 | tail -5", "Finished in 0.4 seconds\n120 tests, 0 failures\n", false)}, vouch.StatusPass, "", vouch.StrengthStrict},
		{"targeted failure covered by a later full run", passed, []vouch.TraceEntry{
			bash("mix test test/a_test.exs", "Exit code 2\n1) test a", true),
			bash("mix test", "50 tests, 0 failures", false)}, vouch.StatusPass, "", vouch.StrengthStrict},
		{"a later run of fewer packages does not cover a failed one", passed, []vouch.TraceEntry{
			bash("go test ./a ./b", "ok  \tm/a\nFAIL\tm/b", true),
			bash("go test ./a", "ok  \tm/a\t0.1s", false)}, vouch.StatusFail, vouch.CodeTestClaimContradicted, vouch.StrengthStrict},
		{"a later run that selects tests does not cover a failed one", passed, []vouch.TraceEntry{
			bash("go test ./a", "--- FAIL: TestB\nFAIL", true),
			bash("go test -run TestA ./a", "ok  \tm/a\t0.1s", false)}, vouch.StatusFail, vouch.CodeTestClaimContradicted, vouch.StrengthStrict},
		{"bare go test does not cover ./...", passed, []vouch.TraceEntry{
			bash("go test ./...", "FAIL\tm/b", true),
			bash("go test", "ok  \tm\t0.1s", false)}, vouch.StatusFail, vouch.CodeTestClaimContradicted, vouch.StrengthStrict},
		// A run that names each failed test is covered by later passing
		// runs of every file they are in; not by a run of another file.
		{"failed tests run again in full", passed, []vouch.TraceEntry{
			bash("pytest a/test_x.py a/test_y.py", "FAILED a/test_x.py::test_one - assert 1 == 2\n=== 1 failed, 9 passed in 0.3s ===", true),
			bash("pytest -W ignore a/test_x.py", "=== 5 passed in 0.2s ===", false)}, vouch.StatusPass, "", vouch.StrengthStrict},
		{"failed tests not run again", passed, []vouch.TraceEntry{
			bash("pytest a/test_x.py a/test_y.py", "FAILED a/test_x.py::test_one - assert 1 == 2\n=== 1 failed, 9 passed in 0.3s ===", true),
			bash("pytest a/test_y.py", "=== 4 passed in 0.2s ===", false)}, vouch.StatusFail, vouch.CodeTestClaimContradicted, vouch.StrengthStrict},
		{"a cut summary is not every failure", passed, []vouch.TraceEntry{
			bash("pytest a/test_x.py a/test_y.py", "FAILED a/test_x.py::test_one - assert 1 == 2\n=== 2 failed, 8 passed in 0.3s ===", true),
			bash("pytest a/test_x.py", "=== 5 passed in 0.2s ===", false)}, vouch.StatusFail, vouch.CodeTestClaimContradicted, vouch.StrengthStrict},
		// A run that did not happen is replaced by a later one of its
		// runner that did, whatever its paths; alone, it decides nothing.
		{"a run that did not happen, then one that did", passed, []vouch.TraceEntry{
			bash("python3 -m pytest tests/test_linter.py", "Exit code 1\n/usr/bin/python3: No module named pytest", true),
			bash("pytest tests/lint/test_linter.py", "=== 2 passed in 0.2s ===", false)}, vouch.StatusPass, "", vouch.StrengthStrict},
		{"only a run that did not happen", passed, []vouch.TraceEntry{
			bash("pytest tests/lint/test_linter.py", "=== 2 passed in 0.2s ===", false),
			bash("python3 -m pytest tests/test_linter.py", "Exit code 1\n/usr/bin/python3: No module named pytest", true)}, vouch.StatusUndecided, vouch.CodeTestInconclusive, vouch.StrengthStrict},
		{"the same packages with -v cover a failed run", passed, []vouch.TraceEntry{
			bash("go test ./b ./a", "FAIL\tm/b", true),
			bash("go test -v -count=1 ./a ./b", "ok  \tm/a\t0.1s\nok  \tm/b\t0.2s", false)}, vouch.StatusPass, "", vouch.StrengthStrict},
		{"full run failure not covered by a later targeted run", passed, []vouch.TraceEntry{
			bash("mix test", "Exit code 2\n50 tests, 3 failures", true),
			bash("mix test test/a_test.exs", "3 tests, 0 failures", false)}, vouch.StatusFail, vouch.CodeTestClaimContradicted, vouch.StrengthStrict},
		{"pytest failed line", passed, []vouch.TraceEntry{
			bash("cd app && python -m pytest -q", "FAILED tests/test_a.py::test_x - assert 1 == 2\n1 failed, 9 passed", false)}, vouch.StatusFail, vouch.CodeTestClaimContradicted, vouch.StrengthStrict},
		{"jest summary", passed, []vouch.TraceEntry{
			bash("npm test", "Tests:       1 failed, 41 passed, 42 total", false)}, vouch.StatusFail, vouch.CodeTestClaimContradicted, vouch.StrengthStrict},
		{"no test run in the trace", passed, []vouch.TraceEntry{bash("ls", "a b", false)}, vouch.StatusFail, vouch.CodeTestNotRun, vouch.StrengthStrict},
		{"no evidence at all", passed, nil, vouch.StatusUndecided, vouch.CodeTestNotRun, vouch.StrengthStrict},
		{"claimed results only, failing", vouch.Output{TestResult: vouch.TestPassed, Artifacts: &vouch.Artifacts{CommandResults: []vouch.CommandResult{
			{Command: "go test ./...", ExitCode: exit(1)}}}}, nil, vouch.StatusFail, vouch.CodeTestClaimContradicted, vouch.StrengthLight},
		{"claimed results only, passing", vouch.Output{TestResult: vouch.TestPassed, Artifacts: &vouch.Artifacts{CommandResults: []vouch.CommandResult{
			{Command: "go test ./...", ExitCode: exit(1)}, {Command: "go test ./...", ExitCode: exit(0)}}}}, nil, vouch.StatusPass, "", vouch.StrengthLight},
		{"trace wins over claims", vouch.Output{TestResult: vouch.TestPassed, Artifacts: &vouch.Artifacts{CommandResults: []vouch.CommandResult{
			{Command: "go test ./...", ExitCode: exit(0)}}}}, []vouch.TraceEntry{bash("go test ./...", "Exit code 1\nFAIL", true)}, vouch.StatusFail, vouch.CodeTestClaimContradicted, vouch.StrengthStrict},
		{"unknown exit code is not success", vouch.Output{TestResult: vouch.TestPassed, Artifacts: &vouch.Artifacts{CommandResults: []vouch.CommandResult{
			{Command: "go test ./..."}}}}, nil, vouch.StatusUndecided, vouch.CodeTestNotRun, vouch.StrengthStrict},
	} {
		got := runTests(t, tt.out, tt.trace)
		if tt.status == "" {
			if len(got) != 0 {
				t.Errorf("%s: want no check, got %+v", tt.name, got)
			}
			continue
		}
		if len(got) != 1 {
			t.Errorf("%s: %d checks: %+v", tt.name, len(got), got)
			continue
		}
		g := got[0]
		if g.Status != tt.status || g.Code != tt.code || g.Strength != tt.strength {
			t.Errorf("%s: got %s %s %s (%s), want %s %s %s", tt.name, g.Status, g.Code, g.Strength, g.Reason, tt.status, tt.code, tt.strength)
		}
	}
}

// TestRerun checks that allow-listed test commands are run again and that
// their result decides, over the trace.
func TestRerun(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not installed")
	}
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	var timeout time.Duration
	run := func(allow []vouch.CommandRule, trace []vouch.TraceEntry) vouch.CheckResult {
		pol := vouch.DefaultPolicy()
		pol.Commands.Allow = allow
		pol.Commands.Timeout = vouch.Duration(20 * time.Second)
		if timeout != 0 {
			pol.Commands.Timeout = vouch.Duration(timeout)
		}
		s := &vouch.Subject{Request: &vouch.Request{Output: vouch.Output{TestResult: vouch.TestPassed}, Trace: trace}, Policy: &pol, Workspace: root}
		var f vouch.Findings
		if err := (testsAnalyzer{}).Analyze(context.Background(), s, &f); err != nil {
			t.Fatal(err)
		}
		if len(f.Checks) != 1 {
			t.Fatalf("%d checks", len(f.Checks))
		}
		return f.Checks[0]
	}
	// "make test" fails here: the re-run contradicts a trace that says it
	// passed.
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte("test:\n\t@echo 1 test failed; exit 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	passed := []vouch.TraceEntry{bash("make test", "ok", false)}
	if c := run([]vouch.CommandRule{vouch.NewCommandRule("make", "test")}, passed); c.Status != vouch.StatusFail || c.Evidence["source"] != "rerun" {
		t.Errorf("failing re-run: %+v", c)
	}
	// Not allow-listed: the trace decides.
	if c := run(nil, passed); c.Status != vouch.StatusPass || c.Evidence["source"] != "trace" {
		t.Errorf("no re-run: %+v", c)
	}
	// A re-run that passes decides over a stale failing trace.
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte("test:\n\t@echo ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	failed := []vouch.TraceEntry{bash("make test", "Exit code 2\nFAIL", true)}
	makeTest := []vouch.CommandRule{vouch.NewCommandRule("make", "test")}
	if c := run(makeTest, failed); c.Status != vouch.StatusPass || c.Evidence["source"] != "rerun" {
		t.Errorf("passing re-run: %+v", c)
	}
	// The test stage alone is run again when nothing before it changes
	// what it runs.
	piped := []vouch.TraceEntry{bash("make test 2>&1 | tail -3", "ok", false)}
	if c := run(makeTest, piped); c.Status != vouch.StatusPass || c.Evidence["source"] != "rerun" {
		t.Errorf("piped line, stage re-run: %+v", c)
	}
	// A command the allow-list names but whose flags or arguments it does
	// not permit is refused, and the claim stays undecided: the older
	// passing run does not decide.
	// "make -n" prints what it would run and runs no test.
	if c := run(makeTest, []vouch.TraceEntry{bash("make test -n", "ok", false)}); c.Status != vouch.StatusUndecided || c.Code != vouch.CodeTestNotRun {
		t.Errorf("make test -n: %s %s %s", c.Status, c.Code, c.Reason)
	}
	for _, cmd := range []string{"make test TESTS=", "cd sub && make test"} {
		c := run(makeTest, []vouch.TraceEntry{bash(cmd, "ok", false)})
		if c.Status != vouch.StatusUndecided || c.Code != vouch.CodeCommandNotAllowed {
			t.Errorf("%q: refused re-run: %s %s %s", cmd, c.Status, c.Code, c.Reason)
		}
	}
	// A re-run that times out leaves the claim undecided, over a passing
	// trace.
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte("test:\n\t@sleep 30\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	timeout = 200 * time.Millisecond
	if c := run(makeTest, passed); c.Status != vouch.StatusUndecided || c.Code != vouch.CodeCommandTimedOut {
		t.Errorf("timed-out re-run: %s %s %s", c.Status, c.Code, c.Reason)
	}
	timeout = 0
	// Commands the list does not name are decided by their last run: a
	// failing one fails the claim even when a re-run of another passed.
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte("test:\n\t@echo ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mixed := []vouch.TraceEntry{bash("make test", "ok", false), bash("pytest", "1 failed in 0.05s", true)}
	if c := run(makeTest, mixed); c.Status != vouch.StatusFail || c.Code != vouch.CodeTestClaimContradicted {
		t.Errorf("mixed: %s %s %s", c.Status, c.Code, c.Reason)
	}
}

// TestRerunGoExec: with go test allowed, a trace whose last test run was
// "go test -exec /bin/true ./..." (which runs no test) does not pass the
// claim: the re-run is refused and the claim stays undecided.
func TestRerunGoExec(t *testing.T) {
	root, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	pol := vouch.DefaultPolicy()
	pol.Commands.Allow = []vouch.CommandRule{vouch.NewCommandRule("go", "test", "-v")}
	trace := []vouch.TraceEntry{bash("go test -exec /bin/true ./...", "ok  \texample.com/x\t0.01s", false)}
	s := &vouch.Subject{Request: &vouch.Request{Output: vouch.Output{TestResult: vouch.TestPassed}, Trace: trace}, Policy: &pol, Workspace: root}
	var f vouch.Findings
	if err := (testsAnalyzer{}).Analyze(context.Background(), s, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Checks) != 1 || f.Checks[0].Status != vouch.StatusUndecided || !strings.Contains(f.Checks[0].Reason, "-exec") {
		t.Fatalf("got %+v", f.Checks)
	}
}

// TestTestClaimsFromSummary reads the claim from the summary when the
// output has no testResult, and holds a claimed count against the runner.
func TestTestClaimsFromSummary(t *testing.T) {
	for _, tt := range []struct {
		name    string
		summary string
		cmd     string
		out     string
		want    string
	}{
		{"count holds", "Fixed the parser. All 12 tests pass.", "pytest -q 2>&1 | tail -20", "============ 12 passed in 0.31s ============", "pass: pass:"},
		{"count short", "Fixed the parser. All 12 tests pass.", "pytest -q 2>&1 | tail -20", "============ 9 passed in 0.31s ============", "fail:COUNT_MISMATCH pass:"},
		{"exunit count", "All 120 tests pass.", "mix test 2>&1 | tail -20", "Finished in 1.2 seconds\n120 tests, 0 failures", "pass: pass:"},
		{"go -v count short", "All 3 tests pass.", "go test -v ./... 2>&1 | tail -20", "=== RUN TestA\n--- PASS: TestA (0.00s)\n=== RUN TestB\n--- PASS: TestB (0.00s)\nPASS\nok  \tx\t0.1s", "fail:COUNT_MISMATCH pass:"},
		{"no claim in the summary", "Refactored the parser.", "go test -v ./... 2>&1 | tail -20", "FAIL", ""},
		{"claimed in words, contradicted", "Done, and the test suite passes.", "go test -v ./... 2>&1 | tail -20", "--- FAIL: TestA\nFAIL", "fail:TEST_CLAIM_CONTRADICTED"},
	} {
		got := runTests(t, vouch.Output{Summary: tt.summary}, []vouch.TraceEntry{bash(tt.cmd, tt.out, false)})
		var b []string
		for _, c := range got {
			b = append(b, string(c.Status)+":"+c.Code)
		}
		if s := strings.Join(b, " "); s != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, s, tt.want)
		}
	}
}

// TestTestRunsInBackground checks that a test run started in the
// background counts by the exit status a later poll reported; before one
// did, how it ended is not known, so the claim is undecided.
func TestTestRunsInBackground(t *testing.T) {
	passed := vouch.Output{Summary: "All tests pass.", TestResult: vouch.TestPassed}
	start := vouch.TraceEntry{Tool: "Bash", Input: map[string]any{"command": "go test ./...", "run_in_background": true},
		Output: json.RawMessage(`"Command running in background with ID: b1. Output is being written to: /tmp/b1.output"`)}
	poll := func(code string) vouch.TraceEntry {
		out, _ := json.Marshal("<task_id>b1</task_id>\n<status>completed</status>\n<exit_code>" + code + "</exit_code>\n<output>\nFAIL\n</output>")
		return vouch.TraceEntry{Tool: "TaskOutput", Input: map[string]any{"task_id": "b1"}, Output: out}
	}
	for _, tt := range []struct {
		name   string
		trace  []vouch.TraceEntry
		status vouch.Status
		code   string
	}{
		{"never polled", []vouch.TraceEntry{start}, vouch.StatusUndecided, vouch.CodeTestNotRun},
		{"polled, failed", []vouch.TraceEntry{start, poll("1")}, vouch.StatusFail, vouch.CodeTestClaimContradicted},
		{"polled, passed", []vouch.TraceEntry{start, poll("0")}, vouch.StatusPass, ""},
	} {
		c := byName(runTests(t, passed, tt.trace), "claims.tests")
		if c == nil || c.Status != tt.status || c.Code != tt.code {
			t.Errorf("%s: %+v, want %s %s", tt.name, c, tt.status, tt.code)
		}
	}
}

// TestTestRunsExitStatuses checks the exit statuses read from the outputs
// of frameworks other than Claude Code.
func TestTestRunsExitStatuses(t *testing.T) {
	passed := vouch.Output{Summary: "All tests pass.", TestResult: vouch.TestPassed}
	for _, tt := range []struct {
		name   string
		entry  vouch.TraceEntry
		status vouch.Status
	}{
		{"mini-swe-agent", vouch.TraceEntry{Tool: "shell:exec", Input: map[string]any{"command": "pytest -q"},
			Output: json.RawMessage(`"<returncode>1</returncode>\n<output>\n</output>"`)}, vouch.StatusFail},
		{"JSON object", vouch.TraceEntry{Tool: "run_shell_command", Input: map[string]any{"command": "npm test"},
			Output: json.RawMessage(`{"exit_code": 2, "stdout": ""}`)}, vouch.StatusFail},
		{"argv command", vouch.TraceEntry{Tool: "exec", Input: map[string]any{"cmd": []any{"go", "test", "./..."}},
			Output: json.RawMessage(`{"exitCode": 0, "stdout": "ok  example.com/m 0.1s"}`)}, vouch.StatusPass},
		{"MCP shell", vouch.TraceEntry{Tool: "mcp__desktop__execute_command", Input: map[string]any{"command": "cargo test"},
			Output: json.RawMessage(`"test result: FAILED. 1 passed; 1 failed"`)}, vouch.StatusFail},
	} {
		c := byName(runTests(t, passed, []vouch.TraceEntry{tt.entry}), "claims.tests")
		if c == nil || c.Status != tt.status {
			t.Errorf("%s: %+v, want %s", tt.name, c, tt.status)
		}
	}
}

// TestTestCountAttribution holds a claimed count against the run it is
// about: the same runner and scope, exactly; a count vouch can tie to no
// single run is undecided, never compared with a sum of unrelated runs.
func TestTestCountAttribution(t *testing.T) {
	full := bash("mix test 2>&1 | tail -5", "Finished in 3.1 seconds\n14 doctests, 127 tests, 0 failures", false)
	live := func(n int) vouch.TraceEntry {
		return bash("mix test test/app_web/live/session_live_test.exs", fmt.Sprintf("%d tests, 0 failures", n), false)
	}
	several := bash("mix test test/app_web/live/session_live_test.exs test/app_web/live/subagent_live_test.exs", "84 tests, 0 failures", false)
	vitest := bash("npx vitest run 2>&1 | tail -5", " Test Files  2 passed (2)\n      Tests  16 passed (16)", false)
	vitestLong := bash("npx vitest run 2>&1", "<persisted-output>\nOutput too large (141KB).\n</persisted-output>", false)
	gofull := bash("go test -v ./...", "--- PASS: TestA (0.00s)\n--- PASS: TestB (0.00s)\nok  x 0.1s", false)
	gosub := bash("go test -v ./...", "--- PASS: TestA (0.00s)\n    --- PASS: TestA/x (0.00s)\n    --- PASS: TestA/y (0.00s)\n--- PASS: TestB (0.00s)\nok  x 0.1s", false)
	for _, tt := range []struct {
		name    string
		summary string
		trace   []vouch.TraceEntry
		want    string // the claims.count statuses, in order
	}{
		{"scoped, its run agrees", "All 15 SessionLive tests pass.", []vouch.TraceEntry{live(15), full}, "pass"},
		{"scoped, its run disagrees", "All 15 SessionLive tests pass.", []vouch.TraceEntry{live(12), full}, "fail"},
		{"scoped, inflated", "All 40 SessionLive tests pass.", []vouch.TraceEntry{live(15), full}, "fail"},
		{"scoped, only a wider run", "All 15 SessionLive tests pass.", []vouch.TraceEntry{several, full}, "undecided"},
		{"scoped, no run of it", "All 15 Parser tests pass.", []vouch.TraceEntry{full}, "undecided"},
		{"doctests counted in", "All 141 tests pass.", []vouch.TraceEntry{full}, "pass"},
		{"doctests left out", "All 127 tests pass.", []vouch.TraceEntry{full}, "pass"},
		{"two runners together", "All 157 tests pass.", []vouch.TraceEntry{full, vitest}, "pass"},
		{"a runner printed no count", "All 157 tests pass.", []vouch.TraceEntry{full, vitestLong}, "undecided"},
		{"a part of the runs", "All 12 tests pass.", []vouch.TraceEntry{full, vitest}, "undecided"},
		{"more than all runs show", "All 400 tests pass.", []vouch.TraceEntry{full, vitest}, "fail"},
		{"the runner named", "All 16 Vitest tests pass.", []vouch.TraceEntry{full, vitest}, "pass"},
		{"one run, claimed more", "All 3 tests pass.", []vouch.TraceEntry{gofull}, "fail"},
		{"Go tests without their subtests", "All 2 tests pass.", []vouch.TraceEntry{gosub}, "pass"},
		{"Go tests with their subtests", "All 4 tests pass.", []vouch.TraceEntry{gosub}, "pass"},
		{"Go tests, claimed more", "All 5 tests pass.", []vouch.TraceEntry{gosub}, "fail"},
		{"one runner's full suite, claimed another number", "All 97 tests pass.", []vouch.TraceEntry{live(15), full}, "fail"},
		{"a qualified count may be of a part", "All 12 new tests pass.", []vouch.TraceEntry{live(15), full}, "undecided"},
		{"a wider run does not bound a full one", "All 130 tests pass.", []vouch.TraceEntry{several, full}, "fail"},
		{"each count checked", "All 12 SessionLive tests pass. All 141 tests pass.", []vouch.TraceEntry{live(12), full}, "pass pass"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range runTests(t, vouch.Output{Summary: tt.summary}, tt.trace) {
				if c.Name == "claims.count" {
					got = append(got, string(c.Status))
					if c.Status == vouch.StatusPass && c.Evidence["found"] != c.Evidence["claimed"] {
						t.Errorf("passed with found %v for claimed %v", c.Evidence["found"], c.Evidence["claimed"])
					}
				}
			}
			if s := strings.Join(got, " "); s != tt.want {
				t.Errorf("claims.count %q, want %q", s, tt.want)
			}
		})
	}
}

// TestTestStale: a passing run counts for the code as it was when it ran.
// A test file changed after the last run did not run as it is now (fail);
// another source file changed after it leaves the claim undecided; a
// document changed after it does not matter.
func TestTestStale(t *testing.T) {
	passed := vouch.Output{Summary: "All tests pass.", TestResult: vouch.TestPassed}
	edit := func(p string) vouch.TraceEntry {
		return vouch.TraceEntry{Tool: "Edit", Input: map[string]any{"file_path": p, "old_string": "a", "new_string": "b"}, Output: json.RawMessage(`"ok"`)}
	}
	run := bash("go test ./...", "ok  \tx\t0.1s", false)
	for _, tt := range []struct {
		name  string
		trace []vouch.TraceEntry
		want  string
	}{
		{"ran after the edits", []vouch.TraceEntry{edit("/w/parser.go"), edit("/w/parser_test.go"), run}, "pass:"},
		{"a test file changed after", []vouch.TraceEntry{edit("/w/parser.go"), run, edit("/w/parser_test.go")}, "fail:TEST_STALE"},
		{"a test under tests/ changed after", []vouch.TraceEntry{run, edit("/w/tests/parser.py")}, "fail:TEST_STALE"},
		{"a source file changed after", []vouch.TraceEntry{run, edit("/w/lib/summary.ex")}, "undecided:TEST_STALE"},
		{"a document changed after", []vouch.TraceEntry{run, edit("/w/README.md")}, "pass:"},
	} {
		got := runTests(t, passed, tt.trace)
		if len(got) != 1 || string(got[0].Status)+":"+got[0].Code != tt.want {
			t.Errorf("%s: %+v, want %s", tt.name, got, tt.want)
		}
	}
}

// TestRanTests holds claims that a test command ran, whatever it showed,
// against the runs of the trace (claims.tests.ran).
func TestRanTests(t *testing.T) {
	for _, tt := range []struct {
		name    string
		summary string
		trace   []vouch.TraceEntry
		status  vouch.Status // "" for no check
		says    string
	}{
		{"the named runner ran, and failed", "Ran `go test ./...`; 2 tests still fail.", []vouch.TraceEntry{bash("go test ./pkg/...", "--- FAIL: TestX\nFAIL", true)},
			vouch.StatusPass, `"go test ./pkg/..." ran (trace)`},
		{"the tests, no runner named", "I ran the test suite.", []vouch.TraceEntry{bash("python -m pytest -q", "3 passed", false)},
			vouch.StatusPass, `"python -m pytest -q" ran`},
		{"nothing ran", "I ran the tests.", []vouch.TraceEntry{bash("cat a.go", "package a", false)},
			vouch.StatusFail, "the trace shows no test command run"},
		{"another runner ran", "Ran `pytest`.", []vouch.TraceEntry{bash("go test ./...", "ok  \tx\t0.1s", false)},
			vouch.StatusUndecided, "of other runners"},
		{"a script may have run them", "I ran the tests.", []vouch.TraceEntry{bash("./ci.sh", "all good", false)},
			vouch.StatusUndecided, "may have run them"},
		{"a run that is no test run", "Ran `make build`.", []vouch.TraceEntry{bash("make build", "ok", false)}, "", ""},
	} {
		var ran []vouch.CheckResult
		for _, c := range runTests(t, vouch.Output{Summary: tt.summary}, tt.trace) {
			if c.Name == "claims.tests.ran" {
				ran = append(ran, c)
			}
		}
		switch {
		case tt.status == "" && len(ran) != 0:
			t.Errorf("%s: want no check, got %+v", tt.name, ran)
		case tt.status == "":
		case len(ran) != 1:
			t.Errorf("%s: %d checks: %+v", tt.name, len(ran), ran)
		case ran[0].Status != tt.status || !strings.Contains(ran[0].Reason, tt.says) || len(ran[0].Claims) == 0:
			t.Errorf("%s: %s %q (claims %v), want %s saying %q", tt.name, ran[0].Status, ran[0].Reason, ran[0].Claims, tt.status, tt.says)
		}
	}
}

// TestBuildsOnly: a trace that only built, vetted, linted or formatted
// the code ran no test.
func TestBuildsOnly(t *testing.T) {
	for line, want := range map[string]bool{
		"gofmt -l . && go vet ./... && go build ./...": true,
		"cargo clippy 2>&1 | tail -5":                  true,
		"npx tsc --noEmit":                             false, // npx runs whatever it is given
		"cat a.go | grep Foo":                          true,
		"make":                                         false,
		"go build ./... && ./bin/app --selftest":       false,
		"mvn package":                                  false,
	} {
		if got := buildsOnly(line); got != want {
			t.Errorf("buildsOnly(%q) = %v, want %v", line, got, want)
		}
	}
	got := runTests(t, vouch.Output{Summary: "All tests pass."}, []vouch.TraceEntry{bash("gofmt -l . && go vet ./... && go build ./...", "", false)})
	if len(got) != 1 || got[0].Status != vouch.StatusFail || got[0].Code != vouch.CodeTestNotRun {
		t.Errorf("a trace that only built: %+v", got)
	}
}
