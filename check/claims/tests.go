package claims

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/internal/runner"
	"github.com/vouchgate/vouch/text/claimtext"
	"github.com/vouchgate/vouch/text/lex"
	"github.com/vouchgate/vouch/text/plural"
	"github.com/vouchgate/vouch/trace"
	"github.com/vouchgate/vouch/trace/testrun"
)

func init() {
	check.RegisterAnalyzer(check.AnalyzerInfo{
		Name:  "claims.tests",
		Level: vouch.LevelClaims,
		Kinds: check.EveryKind(),
		New:   func() vouch.Analyzer { return testsAnalyzer{} },
	})
}

// testsAnalyzer holds a claimed test result ("testResult: passed") against
// the last run of each test command: in the trace (evidence) or, without a
// trace, in the agent's own commandResults (claims, so light evidence).
type testsAnalyzer struct{}

// testRun is one run of a test command, as its runner reads it (package
// testrun).
type testRun struct {
	run     testrun.Run // its Argv is the test stage's; Alone, whether it runs alone what the line ran
	command string
	failed  bool
	why     string
	// inconclusive says why the run shows nothing of the tests either way:
	// it timed out or was killed, its runner is not installed, it found no
	// test to run. Such a run neither fails nor passes a claim.
	inconclusive string
	source       string // "trace" or "commandResults"
	index        int
}

// newTestRun is the testRun of r, run by the command line cmd: failed
// when its runner says tests failed, inconclusive when the tests did not
// run (the environment stopped them) or nothing says how the run ended.
func newTestRun(r testrun.Run, cmd, source string, index int) testRun {
	t := testRun{run: r, command: cmd, source: source, index: index}
	switch r.Status {
	case testrun.Failed:
		t.failed, t.why = true, r.Why
		if !strings.HasPrefix(r.Why, "exit code") {
			t.why = "its output says " + strconv.Quote(r.Why)
		}
	case testrun.NotRun:
		t.inconclusive = "the tests did not run: " + quoteWhy(r.Why)
	case testrun.Unknown:
		t.inconclusive = "nothing in the evidence says how it ended"
		if r.Why != "" {
			t.inconclusive += " (" + r.Why + ")"
		}
	}
	return t
}

// quoteWhy quotes a runner's line; an exit status is said as it is.
func quoteWhy(why string) string {
	if why == "" || strings.HasPrefix(why, "exit code") {
		return why
	}
	return strconv.Quote(why)
}

// Analyze implements vouch.Analyzer.
func (testsAnalyzer) Analyze(ctx context.Context, s *vouch.Subject, f *vouch.Findings) error {
	req := s.Request
	runs, source := testRuns(req, trace.SummaryFor(s))
	// What the summary says about the tests: read only when there is
	// evidence to hold it against (a trace, even one without a test run),
	// or a structured claim to refine.
	var said *claimtext.TestClaim
	var all []claimtext.TestClaim
	if s.Policy.Infer.Counts && (req.Output.TestResult == vouch.TestPassed || len(runs) > 0 || len(req.Trace) > 0) {
		if all = claimtext.TestClaims(req.Output.Summary); len(all) > 0 {
			said = &all[len(all)-1]
		}
	}
	// A clause the claim ledger reads as tests passing that no test claim
	// above is read from ("go test ./... passes") claims it too.
	var more []claimtext.Statement
	if s.Policy.Infer.Counts && (req.Output.TestResult == vouch.TestPassed || len(runs) > 0 || len(req.Trace) > 0) {
		for _, st := range check.Statements(s) {
			if st.Kind == "tests" && st.Action == "pass" && !slices.ContainsFunc(all, func(c claimtext.TestClaim) bool { return c.Sentence == st.Sentence }) {
				more = append(more, st)
			}
		}
	}
	if s.Policy.Infer.Counts && (len(runs) > 0 || len(req.Trace) > 0) {
		if r, ok := ranTests(s, runs, source); ok {
			f.MarkApplicable(vouch.DimClaims)
			f.Checks = append(f.Checks, r)
		}
	}
	claimed := req.Output.TestResult == vouch.TestPassed ||
		req.Output.TestResult == "" && (said != nil && said.Passed || len(more) > 0)
	if !claimed {
		return nil
	}
	f.MarkApplicable(vouch.DimClaims)
	// The check cites every claim that the tests pass.
	var refs []vouch.ClaimRef
	if req.Output.TestResult == vouch.TestPassed {
		refs = append(refs, vouch.ClaimRef{Source: "output.testResult", Text: string(vouch.TestPassed), Kind: vouch.ClaimTests})
	}
	for _, c := range all {
		if c.Passed {
			refs = append(refs, vouch.SummaryRef(vouch.ClaimTests, c.Text, c.Sentence))
		}
	}
	for _, st := range more {
		refs = append(refs, vouch.SummaryRef(vouch.ClaimTests, st.Text, st.Sentence))
	}
	defer func(from int) {
		for i := from; i < len(f.Checks); i++ {
			if f.Checks[i].Claims == nil {
				f.Checks[i].Claims = refs
			}
		}
	}(len(f.Checks))
	strength := vouch.StrengthStrict
	if source == "commandResults" {
		strength = vouch.StrengthLight
	}
	narrowed := ""
	for _, c := range all {
		if w := narrowedBy(c.Sentence); c.Passed && w != "" {
			narrowed = w
		}
	}
	if said == nil && len(more) > 0 && req.Output.TestResult != vouch.TestPassed {
		// "All passed", read by the ledger alone, does not say which runs it
		// speaks of: runs that disagree leave it undecided.
		narrowed = "unnamed"
	}
	if len(runs) == 0 {
		if len(req.Trace) > 0 {
			f.Checks = append(f.Checks, result("claims.tests", noTestRun(s, "the tests passed")))
			return nil
		}
		f.Checks = append(f.Checks, result("claims.tests", vouch.Undecided(vouch.CodeTestNotRun,
			"the output claims the tests passed, but neither a trace nor commandResults (with exit codes) show a test run")))
		return nil
	}
	last := lastRuns(runs)
	if source == "trace" {
		f.Checks = append(f.Checks, testCounts(req, all, lastOfEach(runs))...)
	}
	res := judgeRuns(ctx, s, last, source, strength, narrowed)
	if res.Status == vouch.StatusPass && res.Evidence["source"] != "rerun" {
		res = staleness(trace.SummaryFor(s), last, res)
	}
	f.Checks = append(f.Checks, res)
	return nil
}

// noTestRun decides a claim about a test run (claimed: "the tests
// passed", "it ran the tests") against a trace that holds no test run
// vouch can read. A command vouch cannot read as a test run may have run
// the tests (a project's own runner, a script), and a run started in the
// background may have ended unseen: only a trace that ran nothing but
// reads, edits and inspections refutes the claim (TEST_NOT_RUN).
func noTestRun(s *vouch.Subject, claimed string) vouch.Outcome {
	sum := trace.SummaryFor(s)
	// Another agent, or a tool vouch does not read as a command (an IDE's
	// test runner, a plugin), may have run them.
	if len(sum.Agents) > 0 {
		d := sum.Agents[0]
		o := vouch.Undecided(vouch.CodeTestNotRun, fmt.Sprintf("the output claims %s; no test run vouch can read is in the trace, but a task handed to another agent (%s, call %d) may have run them", claimed, d.Tool, d.Index))
		o.Evidence = map[string]any{"call": d.Index, "tool": d.Tool}
		return o
	}
	if len(sum.Plugins) > 0 {
		p := sum.Plugins[0]
		o := vouch.Undecided(vouch.CodeTestNotRun, fmt.Sprintf("the output claims %s; no test run vouch can read is in the trace, but a tool it does not read (%s, call %d) may have run them", claimed, p.Tool, p.Index))
		o.Evidence = map[string]any{"call": p.Index, "tool": p.Tool}
		return o
	}
	var other []string
	for _, c := range sum.Commands {
		if _, ok := testrun.Command(c.Command); ok && c.Background && c.ExitCode == nil {
			o := vouch.Undecided(vouch.CodeTestNotRun, fmt.Sprintf("the output claims %s; %q was started in the background (call %d) and the trace never shows how it ended", claimed, trace.Excerpt(c.Command, 80), c.Index))
			o.Evidence = map[string]any{"command": c.Command, "call": c.Index}
			return o
		}
		// A command that runs something other than builds and checks, or
		// whose output shows a test run (a git hook's, a find -exec's),
		// may have run them.
		if c.HasResult && (executes(c.Command) && !buildsOnly(c.Command) || testrun.ShowsRun(s.Request.Trace[c.Index].OutputText())) {
			other = append(other, trace.Excerpt(c.Command, 60))
		}
	}
	if len(other) > 0 {
		o := vouch.Undecided(vouch.CodeTestNotRun, fmt.Sprintf("the output claims %s; no command of the trace is a test run vouch can read, but %s ran that may have run them (%s)", claimed, plural.Count(len(other), "other command"), check.List(other, 3)))
		o.Evidence = map[string]any{"commands": check.Cap(other, 10)}
		return o
	}
	return vouch.Fail(vouch.CodeTestNotRun, fmt.Sprintf("the output claims %s, but the trace shows no test command run: only reads, edits and commands that look at files", claimed),
		map[string]any{"traceEntries": len(s.Request.Trace)})
}

// nonTestCommands are programs that run something but never a project's
// tests (builds, linters, formatters, installs).
var nonTestCommands = lex.Named("non-test-commands").Set()

// buildsOnly reports a command line every stage of which only reads,
// builds, checks, formats or installs: it cannot have run the tests.
func buildsOnly(line string) bool { return onlyStagesOf(line, inspectCommands, nonTestCommands) }

// ranTests holds the summary's claims that a test command was run ("Ran
// `go test ./...`", "I ran the test suite"), whatever it showed, against
// the test runs of the evidence (runs, read from source): a run of the
// runner the claim names, or of any runner when it names none, verifies
// them; a trace that ran nothing refutes them (see noTestRun); runs of
// other runners only leave them undecided. ok is false when the summary
// makes no such claim.
func ranTests(s *vouch.Subject, runs []testRun, source string) (vouch.CheckResult, bool) {
	var refs []vouch.ClaimRef
	var named []string // the runners the claims name
	for _, st := range check.Statements(s) {
		if st.Action != "run" {
			continue
		}
		var runners []string
		for _, n := range st.Names {
			if r, ok := testrun.Command(n.Text); ok {
				runners = append(runners, r.Runner)
			}
		}
		if st.Kind != "tests" && len(runners) == 0 {
			continue
		}
		refs = append(refs, vouch.SummaryRef(vouch.ClaimKind(st.Kind), st.Text, st.Sentence))
		named = append(named, runners...)
	}
	if len(refs) == 0 {
		return vouch.CheckResult{}, false
	}
	var r vouch.CheckResult
	switch {
	case len(runs) == 0:
		r = result("claims.tests.ran", noTestRun(s, "a test command ran"))
	default:
		var seen []string
		for _, run := range runs {
			if len(named) == 0 || slices.Contains(named, run.run.Runner) || run.run.Inner != "" && slices.Contains(named, run.run.Inner) {
				ev := map[string]any{"command": run.command, "source": source}
				if source == "trace" {
					ev["call"] = run.index
				}
				r = result("claims.tests.ran", vouch.Pass(fmt.Sprintf("%q ran (%s), as the summary says (%q)", trace.Excerpt(run.command, 80), source, refs[0].Text), ev))
				break
			}
			seen = append(seen, trace.Excerpt(run.command, 60))
		}
		if r.Name == "" {
			want := slices.Compact(slices.Sorted(slices.Values(named)))
			o := vouch.Undecided(vouch.CodeTestNotRun, fmt.Sprintf("the summary says %q, but the test runs of the evidence are of other runners (%s), not %s", refs[0].Text, check.List(seen, 3), check.List(want, 3)))
			o.Evidence = map[string]any{"runs": check.Cap(seen, 10), "named": want}
			r = result("claims.tests.ran", o)
		}
	}
	r.Claims = refs
	return r, true
}

// runOutcome is what decides one test command: a run vouch made again, or
// the last run in the evidence.
type runOutcome struct {
	run    testRun
	status vouch.Status
	source string // "rerun", "trace" or "commandResults"
	why    string
	code   string
	ev     map[string]any
}

// judgeRuns decides the claim that the tests passed from the last run of
// each test command. A command the policy's allow-list names is run again
// in the sandbox and its new run decides; one the list does not name is
// decided by its last run in the evidence. A re-run that is refused (a flag
// its rule does not list, a line that needs a shell), times out or is
// killed leaves its command undecided: an older run never decides in its
// place. Any failed run fails the claim; else any undecided one leaves it
// undecided.
func judgeRuns(ctx context.Context, s *vouch.Subject, last []testRun, source string, strength vouch.Strength, narrowed string) vouch.CheckResult {
	outs := make([]runOutcome, 0, len(last))
	reran, nReran := false, 0
	for _, r := range last {
		o, ok := rerun(ctx, s, r)
		if !ok {
			o = runOutcome{run: r, status: vouch.StatusPass, source: r.source}
			switch {
			case r.inconclusive != "":
				o.status, o.code = vouch.StatusUndecided, vouch.CodeTestInconclusive
				o.why = fmt.Sprintf("the last run of %q shows nothing either way: %s", r.command, r.inconclusive)
			case r.failed:
				o.status, o.why = vouch.StatusFail, r.why
			}
		}
		if o.source == "rerun" {
			reran, nReran = true, nReran+1
		}
		outs = append(outs, o)
	}
	var failed, undecided []runOutcome
	for _, o := range outs {
		switch o.status {
		case vouch.StatusFail:
			failed = append(failed, o)
		case vouch.StatusUndecided:
			undecided = append(undecided, o)
		}
	}
	ev := map[string]any{"runs": len(last), "source": source}
	if len(last) == 1 && last[0].source == "trace" {
		ev["call"] = last[0].index // the run that decides, for a reader of the trace
	}
	if reran {
		ev["source"] = "rerun"
		var runs []map[string]any
		for _, o := range outs {
			if o.ev != nil {
				runs = append(runs, o.ev)
			}
		}
		ev["rerun"] = runs
	}
	passed := len(outs) - len(failed) - len(undecided)
	var out vouch.Outcome
	switch {
	case len(failed) > 0 && narrowed != "" && passed > 0:
		// "All relevant tests pass" beside runs that disagree: which of
		// them the claim speaks of is not said.
		cmds := make([]string, len(failed))
		for i, o := range failed {
			cmds[i] = o.run.command
		}
		ev["failedCommands"] = cmds
		out = vouch.Undecided(vouch.CodeTestInconclusive, fmt.Sprintf("the output claims that tests passed (%q narrows them); of the last runs %d passed and %d failed (%s), and which of them the claim speaks of is not said",
			narrowed, passed, len(failed), check.List(cmds, 3)))
		out.Evidence = ev
	case len(failed) > 0:
		cmds := make([]string, len(failed))
		for i, o := range failed {
			cmds[i] = o.run.command
		}
		ev["failedCommands"] = cmds
		f := failed[0]
		if f.source == "trace" {
			ev["call"] = f.run.index // the run that shows it, for a reader of the trace
		}
		msg := fmt.Sprintf("the output claims the tests passed, but the last run of %q failed: %s", f.run.command, f.why)
		if f.source == "rerun" {
			msg = fmt.Sprintf("the output claims the tests passed, but vouch ran %q again and it failed: %s", f.run.command, f.why)
		}
		out = vouch.Fail(vouch.CodeTestClaimContradicted, msg, ev)
		out.Fix = cmds
	case len(undecided) > 0:
		u := undecided[0]
		out = vouch.Undecided(u.code, fmt.Sprintf("the output claims the tests passed; %s", u.why))
		out.Evidence = ev
	case nReran == len(last):
		out = vouch.Pass(fmt.Sprintf("vouch ran the %s again and %s passed", plural.Count(nReran, "allowed test command"), plural.Pick(nReran, "it", "they")), ev)
	case reran:
		out = vouch.Pass(fmt.Sprintf("vouch ran %d of the %s again and %s passed; the last run of the others passed (%s)", nReran, plural.Count(len(last), "test command"), plural.Pick(nReran, "it", "they"), source), ev)
	default:
		out = vouch.Pass(fmt.Sprintf("the last run of each of %s passed (%s)", plural.Count(len(last), "test command"), source), ev)
	}
	res := result("claims.tests", out)
	if !reran {
		res.Strength = strength
		if out.Status != vouch.StatusUndecided {
			res.Confidence = strength.Weight()
		}
	}
	return res
}

// rerun runs r's test command again in the workspace when the policy's
// allow-list names it, and says what the new run decides; ok is false when
// the list does not name it (or there is no workspace), so that its last
// run in the evidence decides.
func rerun(ctx context.Context, s *vouch.Subject, r testRun) (o runOutcome, ok bool) {
	if s.Workspace == nil || len(s.Policy.Commands.Allow) == 0 {
		return o, false
	}
	o = runOutcome{run: r, source: "rerun", status: vouch.StatusUndecided}
	argv, err := rerunArgv(s.Policy, r)
	switch {
	case errors.Is(err, runner.ErrNotAllowed):
		return o, false
	case err != nil:
		o.code, o.why = vouch.CodeCommandNotAllowed, fmt.Sprintf("vouch may not run %q again: %s", r.command, runner.Reason(err))
		return o, true
	}
	res, err := runner.Run(ctx, s.Dir(), argv, s.Policy)
	s.MarkRan()
	o.ev = map[string]any{"command": argv, "exitCode": res.ExitCode, "durationMs": res.Duration.Milliseconds(), "sandbox": runner.Sandboxed(res)}
	if err != nil {
		o.code, o.why = vouch.CodeCheckUnavailable, fmt.Sprintf("vouch could not run %q again: %v", r.command, err)
		return o, true
	}
	if code, why := runner.Describe(res, time.Duration(s.Policy.Commands.Timeout)); why != "" {
		o.code, o.why = code, fmt.Sprintf("vouch ran %q again and it %s", r.command, why)
		return o, true
	}
	// The new run is read as the old one was: by its runner's lines
	// first, then its exit status.
	exit := res.ExitCode
	again, _ := testrun.Read(strings.Join(argv, " "), &exit, false, res.Stdout+res.Stderr)
	if again.Runner == "" {
		again, _ = testrun.Read(r.command, &exit, false, res.Stdout+res.Stderr)
	}
	failedWhy := ""
	switch {
	case again.Status == testrun.NotRun:
		o.ev["output"] = runner.Tail(res)
		o.code, o.why = vouch.CodeTestInconclusive, fmt.Sprintf("vouch ran %q again and the tests did not run: %s", r.command, quoteWhy(again.Why))
		return o, true
	case again.Status == testrun.Failed && !strings.HasPrefix(again.Why, "exit code"):
		failedWhy = "its output says " + strconv.Quote(again.Why)
	case res.ExitCode != 0 && again.Status != testrun.Passed:
		failedWhy = fmt.Sprintf("exit code %d", res.ExitCode)
		if res.Signal != "" {
			failedWhy = res.Signal
		}
	}
	if failedWhy == "" {
		o.status = vouch.StatusPass
		return o, true
	}
	o.ev["output"] = runner.Tail(res)
	if line := runner.EnvironmentFailure(res); line != "" {
		o.code, o.why = vouch.CodeCheckUnavailable, fmt.Sprintf("vouch ran %q again and it failed for want of the network, which the sandbox denies: %s", r.command, line)
		return o, true
	}
	o.status, o.why = vouch.StatusFail, failedWhy
	return o, true
}

// rerunArgv returns what to run again for r: its command line when the
// policy allows it whole, else its test stage alone when nothing before
// that stage could change what it runs ("go test ./... 2>&1 | tail -5"
// runs go test ./...). The error is runner.ErrNotAllowed when the
// allow-list does not name the test program at all.
func rerunArgv(p *vouch.Policy, r testRun) ([]string, error) {
	argv, err := runner.Check(p, nil, r.command)
	if err == nil {
		return argv, nil
	}
	_, stageErr := runner.Check(p, r.run.Argv, "")
	switch {
	case errors.Is(stageErr, runner.ErrNotAllowed):
		return nil, runner.ErrNotAllowed
	case stageErr != nil:
		return nil, stageErr
	case r.run.Alone:
		return r.run.Argv, nil
	case errors.Is(err, runner.ErrNotAllowed):
		return nil, fmt.Errorf("its line runs more than the test command, and not all of it is on the allow-list")
	}
	return nil, err
}

// testRuns returns the test runs in the trace, or, when there is no trace,
// in commandResults, each read by its runner (package testrun: by its
// command, or by its output when the command is a script that ran
// tests). The commands of the trace are those of its summary sum: the
// calls the policy's tool table maps to exec. A run started in the
// background counts only once a later poll of its task reported its exit
// status.
func testRuns(req *vouch.Request, sum *trace.Summary) ([]testRun, string) {
	var runs []testRun
	if len(req.Trace) > 0 {
		for _, c := range sum.Commands {
			if c.Background && c.ExitCode == nil {
				continue
			}
			out := ""
			if !c.Background {
				out = trace.CommandOutput(&req.Trace[c.Index])
			}
			exit := c.ExitCode
			if exit == nil && c.HasResult && !c.IsError && !c.Background {
				// A tool that flags a failed command (Claude Code's Bash
				// flags every non-zero exit) says, by not flagging one,
				// that it exited 0.
				exit = new(int)
			}
			r, ok := testrun.Read(c.Command, exit, c.IsError, out)
			if !ok {
				continue
			}
			runs = append(runs, newTestRun(r, c.Command, "trace", c.Index))
		}
		return runs, "trace"
	}
	if a := req.Output.Artifacts; a != nil {
		for i, cr := range a.CommandResults {
			if cr.ExitCode == nil {
				// A run without an exit code tells nothing either way.
				continue
			}
			r, ok := testrun.Read(cr.Command, cr.ExitCode, false, "")
			if !ok {
				continue
			}
			runs = append(runs, newTestRun(r, cr.Command, "commandResults", i))
		}
	}
	return runs, "commandResults"
}

// lastRuns keeps the last run of each test command, and drops a failed run
// that later passing runs cover (see testrun.Covers: "go test ./..."
// after "go test ./pkg"), or whose failures they all ran again: a run
// that named each of its failed tests is covered by later passing runs
// of the same runner that test every file of them ("pytest a.py" after
// "pytest a.py b.py" failed in a.py only). A later run that tests only
// part of what failed ("go test ./a" after "go test ./a ./b" failed in
// ./b) does not cover it: the failed run stays. A run that did not
// happen is dropped once a later run of its runner did run.
func lastRuns(runs []testRun) []testRun {
	var out []testRun
	for i, r := range runs {
		superseded := false
		for _, later := range runs[i+1:] {
			if slices.Equal(later.run.Argv, r.run.Argv) || (passes(later) && testrun.Covers(later.run, r.run)) {
				superseded = true
				break
			}
		}
		if !superseded && r.failed {
			superseded = rerunFailures(r, runs[i+1:])
		}
		if !superseded && r.run.Status == testrun.NotRun {
			// A run that did not happen (the runner called from the wrong
			// interpreter, a path that is not there) shows nothing; a
			// later run of that runner that did run is what the agent
			// ran instead.
			superseded = slices.ContainsFunc(runs[i+1:], func(l testRun) bool {
				return l.run.Runner == r.run.Runner && l.run.Status != testrun.NotRun
			})
		}
		if !superseded {
			out = append(out, r)
		}
	}
	return out
}

func passes(r testRun) bool { return !r.failed && r.inconclusive == "" }

// rerunFailures reports whether every file of the failed tests r names
// was tested again, in full, by a passing run among later, of r's runner.
func rerunFailures(r testRun, later []testRun) bool {
	files, all := r.run.FailedFiles()
	if !all {
		return false
	}
	for _, f := range files {
		if !slices.ContainsFunc(later, func(l testRun) bool {
			return passes(l) && l.run.Runner == r.run.Runner && testrun.CoversFile(l.run, f)
		}) {
			return false
		}
	}
	return true
}

// lastOfEach keeps the last run of each test command: a count is about
// the run of its own scope, even when a later run covered more.
func lastOfEach(runs []testRun) []testRun {
	var out []testRun
	for i, r := range runs {
		if !slices.ContainsFunc(runs[i+1:], func(later testRun) bool { return slices.Equal(later.run.Argv, r.run.Argv) }) {
			out = append(out, r)
		}
	}
	return out
}

// testNarrowers, before "tests", say a claim is about some tests only.
var testNarrowers = lex.Named("test-narrowers").Set()

// narrowedBy returns the word that narrows a sentence's claim about tests
// to some of them ("all relevant tests pass": relevant), or "".
func narrowedBy(sentence string) string {
	words := lex.Words(sentence, lex.Options{})
	for i, w := range words {
		if lw := strings.ToLower(w); lw != "tests" && lw != "test" {
			continue
		}
		for j := max(0, i-2); j < i; j++ {
			if lw := strings.ToLower(words[j]); testNarrowers[lw] {
				return lw
			}
		}
	}
	return ""
}
