package claims

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	claimtext "github.com/vouchgate/vouch/claims"
	"github.com/vouchgate/vouch/internal/runner"
	"github.com/vouchgate/vouch/trace"
)

func init() {
	check.RegisterAnalyzer(check.AnalyzerInfo{
		Name:  "claims.tests",
		Level: vouch.LevelClaims,
		New:   func() vouch.Analyzer { return testsAnalyzer{} },
	})
}

// testsAnalyzer holds a claimed test result ("testResult: passed") against
// the last run of each test command: in the trace (evidence) or, without a
// trace, in the agent's own commandResults (claims, so light evidence).
type testsAnalyzer struct{}

// testRunners are argv prefixes that run tests. A command runs tests when one
// of its pipeline stages starts with one of them.
var testRunners = [][]string{
	{"go", "test"}, {"gotestsum"}, {"npm", "test"}, {"npm", "run", "test"}, {"npm", "t"},
	{"yarn", "test"}, {"pnpm", "test"}, {"npx", "jest"}, {"npx", "vitest"}, {"jest"}, {"vitest"},
	{"pytest"}, {"python", "-m", "pytest"}, {"python3", "-m", "pytest"}, {"tox"},
	{"python", "-m", "unittest"}, {"python3", "-m", "unittest"}, {"mix", "test"}, {"cargo", "test"},
	{"cargo", "nextest"}, {"mvn", "test"}, {"mvn", "verify"}, {"gradle", "test"}, {"./gradlew", "test"},
	{"make", "test"}, {"make", "check"}, {"rspec"}, {"bundle", "exec", "rspec"}, {"phpunit"},
	{"dotnet", "test"}, {"ctest"}, {"bun", "test"}, {"deno", "test"}, {"swift", "test"},
}

// failureOutput matches what test runners print when tests fail; a run
// whose output matches failed, whatever its exit code (a pipe into tail
// hides the runner's exit code).
var failureOutput = []*regexp.Regexp{
	regexp.MustCompile(`(?m)^(--- )?FAIL\b`),                                  // go test
	regexp.MustCompile(`(?m)^FAILED\b`),                                       // pytest, cargo
	regexp.MustCompile(`\b[1-9]\d* (failed|failing|failures?|errored)\b`),     // pytest, mocha, ExUnit, rspec
	regexp.MustCompile(`(?i)\bTests?:\s+[1-9]\d* failed\b`),                   // jest, vitest
	regexp.MustCompile(`\btest result: FAILED\b`),                             // cargo
	regexp.MustCompile(`(?m)^npm ERR! (Test failed|code ELIFECYCLE)`),         // npm
	regexp.MustCompile(`\bTests run: \d+, Failures: [1-9]`),                   // surefire
	regexp.MustCompile(`(?m)^ERROR: .*(test|Test).* failed`),                  // tox, bazel
	regexp.MustCompile(`(?i)\b[1-9]\d* tests? failed\b`),                      // generic
	regexp.MustCompile(`(?m)^(\d+ tests?, )?[1-9]\d* failures?(, \d+ \w+)*$`), // ExUnit summary line
}

// testRun is one run of a test command.
type testRun struct {
	command string
	argv    []string // of the test stage
	failed  bool
	why     string
	source  string // "trace" or "commandResults"
	index   int
}

// Analyze implements vouch.Analyzer.
func (testsAnalyzer) Analyze(ctx context.Context, s *vouch.Subject, f *vouch.Findings) error {
	req := s.Request
	runs, source := testRuns(req, trace.SummaryFor(s))
	// What the summary says about the tests: read only when there is
	// evidence to hold it against, or a structured claim to refine.
	var said *claimtext.TestClaim
	if s.Policy.Infer.Counts && (req.Output.TestResult == vouch.TestPassed || len(runs) > 0) {
		if tc := claimtext.TestClaims(req.Output.Summary); len(tc) > 0 {
			said = &tc[len(tc)-1]
		}
	}
	claimed := req.Output.TestResult == vouch.TestPassed ||
		req.Output.TestResult == "" && said != nil && said.Passed
	if !claimed {
		return nil
	}
	f.MarkApplicable(vouch.DimClaims)
	strength := vouch.StrengthStrict
	if source == "commandResults" {
		strength = vouch.StrengthLight
	}
	if len(runs) == 0 {
		if len(req.Trace) > 0 {
			out := vouch.Fail(vouch.CodeTestNotRun, "the output claims the tests passed, but the trace shows no test command run", map[string]any{"traceEntries": len(req.Trace)})
			f.Checks = append(f.Checks, result("claims.tests", out))
			return nil
		}
		f.Checks = append(f.Checks, result("claims.tests", vouch.Undecided(vouch.CodeTestNotRun,
			"the output claims the tests passed, but neither a trace nor commandResults (with exit codes) show a test run")))
		return nil
	}
	last := lastRuns(runs)
	if said != nil && said.Passed && said.Count > 0 && source == "trace" {
		if c, ok := testCount(req, said, last); ok {
			f.Checks = append(f.Checks, c)
		}
	}
	if r, ok := rerun(ctx, s, last); ok {
		f.Checks = append(f.Checks, r)
		return nil
	}
	var bad []testRun
	for _, r := range last {
		if r.failed {
			bad = append(bad, r)
		}
	}
	var out vouch.Outcome
	if len(bad) == 0 {
		out = vouch.Pass(fmt.Sprintf("the last run of each of %d test commands passed (%s)", len(last), source), map[string]any{"runs": len(runs), "source": source})
	} else {
		cmds := make([]string, len(bad))
		for i, r := range bad {
			cmds[i] = r.command
		}
		out = vouch.Fail(vouch.CodeTestClaimContradicted,
			fmt.Sprintf("the output claims the tests passed, but the last run of %q failed: %s", bad[0].command, bad[0].why),
			map[string]any{"failedCommands": cmds, "source": source})
		out.Fix = cmds
	}
	r := result("claims.tests", out)
	r.Strength = strength
	if out.Status != vouch.StatusUndecided {
		r.Confidence = strength.Weight()
	}
	f.Checks = append(f.Checks, r)
	return nil
}

// passedCounts read how many tests a runner says passed.
var passedCounts = []struct {
	re        *regexp.Regexp
	minusNext bool // the second group counts failures to subtract
}{
	{regexp.MustCompile(`(?i)\bTests:\s+(?:\d+ failed, )?(\d+) passed`), false}, // jest, vitest
	{regexp.MustCompile(`\btest result: \w+\. (\d+) passed`), false},            // cargo
	{regexp.MustCompile(`\b(\d+) passed\b`), false},                             // pytest
	{regexp.MustCompile(`\b(\d+) passing\b`), false},                            // mocha
	{regexp.MustCompile(`\b(\d+) tests?, (\d+) failures?`), true},               // ExUnit
	{regexp.MustCompile(`\b(\d+) examples?, (\d+) failures?`), true},            // rspec
}

var goPass = regexp.MustCompile(`(?m)^\s*--- PASS: `)

// passed returns how many tests a runner's output says passed.
func passed(out string) (int, bool) {
	for _, p := range passedCounts {
		m := p.re.FindAllStringSubmatch(out, -1)
		if len(m) == 0 {
			continue
		}
		last := m[len(m)-1]
		n, _ := strconv.Atoi(last[1])
		if p.minusNext {
			k, _ := strconv.Atoi(last[2])
			n -= k
		}
		return n, true
	}
	if n := len(goPass.FindAllStringIndex(out, -1)); n > 0 {
		return n, true
	}
	return 0, false
}

// testCount holds a claimed number of passing tests ("all 12 tests pass")
// against what the last runs printed.
func testCount(req *vouch.Request, said *claimtext.TestClaim, last []testRun) (vouch.CheckResult, bool) {
	found, known := 0, false
	for _, r := range last {
		if n, ok := passed(req.Trace[r.index].OutputText()); ok {
			found += n
			known = true
		}
	}
	if !known {
		return vouch.CheckResult{}, false
	}
	ev := map[string]any{"claim": said.Text, "claimed": said.Count, "found": found}
	if found >= said.Count {
		return result("claims.count", vouch.Pass(fmt.Sprintf("the claim %q holds: the last runs show %d passing", said.Text, found), ev)), true
	}
	o := vouch.Outcome{Status: vouch.StatusFail, Score: float64(found) / float64(said.Count), Code: vouch.CodeCountMismatch,
		Reason: fmt.Sprintf("the summary claims %q, but the last runs show %d passing", said.Text, found), Evidence: ev}
	return result("claims.count", o), true
}

// rerun runs again, in the workspace, the test commands of the last runs
// that the policy allow-lists: what they say now is the strongest evidence,
// and decides the claim. It reports false when none may run.
func rerun(ctx context.Context, s *vouch.Subject, last []testRun) (vouch.CheckResult, bool) {
	if s.Workspace == nil || len(s.Policy.Commands.Allow) == 0 {
		return vouch.CheckResult{}, false
	}
	ran := 0
	var failed []string
	why := ""
	for _, r := range last {
		argv, err := runner.Check(s.Policy, nil, r.command)
		if err != nil {
			continue
		}
		res, err := runner.Run(ctx, s.Workspace.Name(), argv, time.Duration(s.Policy.Commands.Timeout))
		if err != nil || res.TimedOut {
			continue
		}
		ran++
		if res.ExitCode != 0 {
			failed = append(failed, r.command)
			why = fmt.Sprintf("exit code %d", res.ExitCode)
		} else if said := failureIn(res.Stdout + res.Stderr); said != "" {
			failed = append(failed, r.command)
			why = "its output says " + strconv.Quote(said)
		}
	}
	if ran == 0 {
		return vouch.CheckResult{}, false
	}
	ev := map[string]any{"source": "rerun", "rerun": ran}
	if len(failed) == 0 {
		return result("claims.tests", vouch.Pass(fmt.Sprintf("vouch ran the %d allowed test commands again and they passed", ran), ev)), true
	}
	ev["failedCommands"] = failed
	o := vouch.Fail(vouch.CodeTestClaimContradicted, fmt.Sprintf("the output claims the tests passed, but vouch ran %q again and it failed: %s", failed[0], why), ev)
	o.Fix = failed
	return result("claims.tests", o), true
}

// testRuns returns the test runs in the trace, or, when there is no trace,
// in commandResults. The commands of the trace are those of its summary
// sum: the calls the policy's tool table maps to exec. A run started in
// the background counts only once a later poll of its task reported its
// exit status.
func testRuns(req *vouch.Request, sum *trace.Summary) ([]testRun, string) {
	var runs []testRun
	if len(req.Trace) > 0 {
		for _, c := range sum.Commands {
			argv, ok := testStage(c.Command)
			if !ok || (c.Background && c.ExitCode == nil) {
				continue
			}
			r := testRun{command: c.Command, argv: argv, source: "trace", index: c.Index}
			if c.ExitCode != nil && *c.ExitCode != 0 {
				r.failed, r.why = true, "exit code "+strconv.Itoa(*c.ExitCode)
			} else if c.IsError {
				r.failed, r.why = true, "the tool reported an error"
			} else if why := failureIn(req.Trace[c.Index].OutputText()); why != "" && !c.Background {
				r.failed, r.why = true, "its output says "+strconv.Quote(why)
			}
			runs = append(runs, r)
		}
		return runs, "trace"
	}
	if a := req.Output.Artifacts; a != nil {
		for i, cr := range a.CommandResults {
			argv, ok := testStage(cr.Command)
			if !ok || cr.ExitCode == nil {
				// A run without an exit code tells nothing either way.
				continue
			}
			r := testRun{command: cr.Command, argv: argv, source: "commandResults", index: i}
			if *cr.ExitCode != 0 {
				r.failed, r.why = true, fmt.Sprintf("exit code %d", *cr.ExitCode)
			}
			runs = append(runs, r)
		}
	}
	return runs, "commandResults"
}

// lastRuns keeps the last run of each test command, and drops a failed run
// that a later passing run covers (the same runner with fewer arguments:
// "go test ./..." after "go test ./pkg").
func lastRuns(runs []testRun) []testRun {
	var out []testRun
	for i, r := range runs {
		superseded := false
		for _, later := range runs[i+1:] {
			if sameArgv(later.argv, r.argv) || (!later.failed && covers(later.argv, r.argv)) {
				superseded = true
				break
			}
		}
		if !superseded {
			out = append(out, r)
		}
	}
	return out
}

// covers reports whether a run of a covers a run of b: a is b's runner
// with a prefix of its arguments, or runs everything ("./...").
func covers(a, b []string) bool {
	n := runnerLen(a)
	if n == 0 || n > len(b) || !sameArgv(a[:n], b[:n]) {
		return false
	}
	rest := a[n:]
	if len(rest) == 0 || (len(rest) == 1 && rest[0] == "./...") {
		return true
	}
	return len(rest) <= len(b)-n && sameArgv(rest, b[n:n+len(rest)])
}

func runnerLen(argv []string) int {
	for _, r := range testRunners {
		if hasPrefix(argv, r) {
			return len(r)
		}
	}
	return 0
}

func sameArgv(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func hasPrefix(argv, prefix []string) bool {
	return len(argv) >= len(prefix) && sameArgv(argv[:len(prefix)], prefix)
}

// testStage finds the stage of a shell command line that runs tests and
// returns its argv (without redirections and environment assignments).
func testStage(cmd string) ([]string, bool) {
	for _, stage := range runner.Stages(strings.NewReplacer("(", ";", ")", ";").Replace(cmd)) {
		argv := strings.Fields(stage)
		// Drop leading VAR=value assignments and redirections.
		for len(argv) > 0 && strings.Contains(argv[0], "=") && !strings.HasPrefix(argv[0], "-") {
			argv = argv[1:]
		}
		clean := argv[:0:0]
		for _, a := range argv {
			if strings.HasPrefix(a, "2>") || strings.HasPrefix(a, ">") || strings.HasPrefix(a, "1>") || a == "&>" {
				continue
			}
			clean = append(clean, a)
		}
		if runnerLen(clean) > 0 {
			return clean, true
		}
	}
	return nil, false
}

func failureIn(text string) string {
	for _, re := range failureOutput {
		if m := re.FindString(text); m != "" {
			return strings.TrimSpace(m)
		}
	}
	return ""
}
