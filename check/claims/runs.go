package claims

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/internal/runner"
	"github.com/vouchgate/vouch/text/claimtext"
	"github.com/vouchgate/vouch/text/lex"
	"github.com/vouchgate/vouch/text/plural"
	"github.com/vouchgate/vouch/trace"
)

func init() {
	check.RegisterAnalyzer(check.AnalyzerInfo{
		Name:  "claims.runs",
		Level: vouch.LevelClaims,
		Kinds: check.EveryKind(),
		New:   func() vouch.Analyzer { return runsAnalyzer{} },
	})
}

// runsAnalyzer holds what the summary says a run of the work showed ("I
// tested the fix", "verified that it works", "it now raises ValueError")
// against the calls of the trace that ran the code as it ends: those after
// the last change to a source file, or, when nothing ran after it, the
// earlier runs after which every change was undone (a fix reverted to
// show a failure was there before, then applied again; see
// [trace.Versions]):
//   - no run ran that code (only reads, edits and commands that look at
//     files, such as cat, grep or git diff, came after the change, and
//     the runs before it ran other code): the run it speaks of came
//     before the change or never happened, VERIFY_NOT_RUN; when a write
//     vouch cannot replay leaves open whether an earlier run ran the same
//     code, the claim is undecided;
//   - the claim quotes an outcome (an exception, a message, a value) that
//     no run after the change printed, and the last of those runs failed
//     with another exception: VERIFY_CONTRADICTED.
//
// A quoted outcome one of those runs printed passes. A claim whose runs
// neither show nor contradict it is left to the judge (no check): the run
// may have printed it in another form. A task handed to another agent
// after the change may have run it, so that claim is undecided. Claims
// about tests are claims.tests'; the analyzer reads nothing without a
// trace.
type runsAnalyzer struct{}

var (
	inspectCommands = lex.Named("inspect-commands").Set()
	// exceptionRe finds exception names in a run's output; the last one
	// is the exception a traceback ends with.
	exceptionRe = regexp.MustCompile(`\b[A-Z][A-Za-z0-9_]*(?:Error|Exception)\b`)
)

// Analyze implements vouch.Analyzer.
func (runsAnalyzer) Analyze(_ context.Context, s *vouch.Subject, f *vouch.Findings) error {
	req := s.Request
	if len(req.Trace) == 0 || !s.Policy.Infer.Counts {
		return nil
	}
	claims := claimtext.RunClaims(req.Output.Summary)
	if len(claims) == 0 {
		return nil
	}
	sum := trace.SummaryFor(s)
	w := lastSourceWrite(sum)
	after := w.Index
	if w.Path == "" {
		after = -1
	}
	runs, delegated := runsAfter(req, sum, after)
	// Nothing ran after the last change: an earlier run may have run the
	// same code, when the writes after it undid each other.
	undoneAfter, open := -1, drift{call: -1}
	if len(runs) == 0 && w.Path != "" {
		var same []trace.CommandRun
		if same, open = finalCodeRuns(req, sum); len(same) > 0 {
			runs, undoneAfter = same, same[len(same)-1].Index
		}
	}
	c := claims[0]
	for _, cl := range claims {
		if len(cl.Outcomes) > 0 {
			c = cl // a claim that quotes an outcome says the most
			break
		}
	}
	f.MarkApplicable(vouch.DimClaims)
	// The check cites every claim of a run; one that shows only that
	// something ran after the change, not what it showed, settles part of
	// them.
	defer func(from int) {
		for i := from; i < len(f.Checks); i++ {
			r := &f.Checks[i]
			partial := r.Status == vouch.StatusPass && r.Evidence["run"] == nil
			for _, cl := range claims {
				ref := vouch.SummaryRef(vouch.ClaimCommand, cl.Text, cl.Sentence)
				ref.Partial = partial
				r.Claims = append(r.Claims, ref)
			}
		}
	}(len(f.Checks))
	ev := map[string]any{"claim": c.Sentence}
	if w.Path != "" {
		ev["lastChange"] = map[string]any{"file": w.Path, "call": w.Index}
	}
	if undoneAfter >= 0 {
		ev["undoneAfter"] = undoneAfter
	}
	if len(runs) == 0 {
		where := "in the trace"
		if w.Path != "" {
			where = fmt.Sprintf("after the last change (%s, call %d)", w.Path, w.Index)
		}
		if delegated >= 0 {
			o := vouch.Undecided(vouch.CodeVerifyNotRun, fmt.Sprintf("the summary says %q; no command ran %s, but a task handed to another agent (call %d) may have run it", c.Text, where, delegated))
			o.Evidence = ev
			f.Checks = append(f.Checks, result("claims.runs", o))
			return nil
		}
		if open.call >= 0 {
			ev["unreplayed"] = map[string]any{"file": open.file, "call": open.call}
			o := vouch.Undecided(vouch.CodeVerifyNotRun, fmt.Sprintf("the summary says %q; nothing ran %s, and whether an earlier run ran the code as it ends is unknown: vouch cannot replay the write of %s at call %d", c.Text, where, open.file, open.call))
			o.Evidence = ev
			f.Checks = append(f.Checks, result("claims.runs", o))
			return nil
		}
		o := vouch.Fail(vouch.CodeVerifyNotRun, fmt.Sprintf("the summary says %q, but nothing ran %s: only reads, edits and commands that look at files", c.Text, where), ev)
		// What to run again: the last run before the change, else the
		// changed file.
		if before, _ := runsAfter(req, sum, -1); len(before) > 0 {
			o.Fix = []string{before[len(before)-1].Command}
		} else if w.Path != "" {
			o.Fix = []string{w.Path}
		}
		f.Checks = append(f.Checks, result("claims.runs", o))
		return nil
	}
	if len(c.Outcomes) == 0 {
		ev["runs"] = len(runs)
		why := fmt.Sprintf("%s ran after the last change, as %q needs", plural.Count(len(runs), "command"), c.Text)
		if undoneAfter >= 0 {
			why = fmt.Sprintf("the writes after the run at call %d undid each other, so the code it ran is the code the trace ends with (last change: %s, call %d): %s ran it, as %q needs", undoneAfter, w.Path, w.Index, plural.Count(len(runs), "command"), c.Text)
		}
		f.Checks = append(f.Checks, result("claims.runs", vouch.Pass(why, ev)))
		return nil
	}
	for _, r := range runs {
		out := req.Trace[r.Index].OutputText()
		for _, o := range c.Outcomes {
			if holds(out, o) {
				ev["run"] = map[string]any{"call": r.Index, "command": r.Command}
				f.Checks = append(f.Checks, result("claims.runs", vouch.Pass(fmt.Sprintf("the run at call %d printed %q, as the summary says", r.Index, o), ev)))
				return nil
			}
		}
	}
	last := runs[len(runs)-1]
	got := lastException(req.Trace[last.Index].OutputText())
	want := claimedExceptions(c.Outcomes)
	if last.Failed() && got != "" && len(want) > 0 && !want[got] {
		ev["run"] = map[string]any{"call": last.Index, "command": last.Command, "exception": got}
		which := "the last run after the last change"
		if undoneAfter >= 0 {
			which = "the last run of the code as the trace ends it"
		}
		o := vouch.Fail(vouch.CodeVerifyContradicted, fmt.Sprintf("the summary says %q, but %s (call %d: %s) failed with %s", strings.TrimSpace(c.Sentence), which, last.Index, trace.Excerpt(last.Command, 80), got), ev)
		o.Fix = []string{last.Command}
		f.Checks = append(f.Checks, result("claims.runs", o))
	}
	return nil
}

// lastSourceWrite returns the last successful write of a file that is not
// a prose document or a backup copy; its Path is "" when there is none.
func lastSourceWrite(sum *trace.Summary) trace.File {
	for i := len(sum.Writes) - 1; i >= 0; i-- {
		if w := sum.Writes[i]; !w.IsError && !isDocPath(w.Path) && !isBackupPath(w.Path) {
			return w
		}
	}
	return trace.File{Index: -1}
}

// maxFinalRuns bounds the runs finalCodeRuns compares, the latest first:
// each costs a comparison per file the trace wrote.
const maxFinalRuns = 64

// finalCodeRuns returns the runs of the trace (see runsAfter), in trace
// order, that ran the code the trace ends with: after each, every source
// file the trace wrote (see sourceFiles) holds at the end what it held
// then. Only the latest maxFinalRuns runs are compared. When none did,
// open is the latest run for which a write vouch cannot replay leaves
// that unknown, with the file and the call; its call is -1 when every run
// surely ran other code.
func finalCodeRuns(req *vouch.Request, sum *trace.Summary) (same []trace.CommandRun, open drift) {
	open.call = -1
	all, _ := runsAfter(req, sum, -1)
	slices.SortStableFunc(all, func(a, b trace.CommandRun) int { return a.Index - b.Index })
	all = all[max(0, len(all)-maxFinalRuns):]
	files := sourceFiles(sum)
	for k := len(all) - 1; k >= 0; k-- {
		switch d := driftSince(sum, files, all[k].Index); {
		case d.same == trace.SameContent:
			same = append(same, all[k])
		case d.same == trace.UnknownContent && open.call < 0:
			open = d
		}
	}
	if len(same) > 0 {
		open = drift{call: -1}
	}
	slices.Reverse(same)
	return same, open
}

// runsAfter returns the commands of the trace from call index after on
// that ran something (not only inspect commands: a command that runs the
// code and writes its output to a file, "python repro.py | tee log",
// writes and runs at once), and the index of the first
// task delegated after it, -1 if none. A plugin call ran something too
// (a browser, an API), but it prints nothing a claim can be held to, so
// it counts only as a run.
func runsAfter(req *vouch.Request, sum *trace.Summary, after int) (runs []trace.CommandRun, delegated int) {
	delegated = -1
	for _, c := range sum.Commands {
		if c.Index >= after && c.HasResult && executes(c.Command) {
			runs = append(runs, c)
		}
	}
	for _, p := range sum.Plugins {
		if p.Index > after && !p.IsError {
			runs = append(runs, trace.CommandRun{Command: p.Tool, Tool: p.Tool, Index: p.Index})
		}
	}
	for _, a := range sum.Agents {
		if a.Index > after && delegated < 0 {
			delegated = a.Index
		}
	}
	return runs, delegated
}

// executes reports a command line with a stage that runs something other
// than an inspect command.
func executes(line string) bool { return !onlyStagesOf(line, inspectCommands) }

// onlyStagesOf reports whether every stage of a command line runs a
// program (or a program and its subcommand: "git diff") of one of the
// lists, and none of them runs commands of its own (see runsOthers).
// Variable assignments before a program are skipped.
func onlyStagesOf(line string, lists ...map[string]bool) bool {
	for _, st := range runner.Stages(line) {
		f := strings.Fields(st)
		for len(f) > 0 && strings.Contains(f[0], "=") && !strings.HasPrefix(f[0], "=") {
			f = f[1:] // VAR=value before the program
		}
		if len(f) == 0 {
			continue
		}
		prog := strings.ToLower(path.Base(f[0]))
		two := ""
		if len(f) > 1 {
			two = prog + " " + strings.ToLower(f[1])
		}
		listed := false
		for _, l := range lists {
			listed = listed || l[prog] || two != "" && l[two]
		}
		if !listed || runsOthers(f) {
			return false
		}
	}
	return true
}

// runsOthers reports a command that looks at files but runs commands of
// its own: find with -exec, -execdir, -ok or -okdir.
func runsOthers(argv []string) bool {
	if len(argv) == 0 || !strings.EqualFold(path.Base(argv[0]), "find") {
		return false
	}
	for _, a := range argv[1:] {
		switch a {
		case "-exec", "-execdir", "-ok", "-okdir":
			return true
		}
	}
	return false
}

// holds reports whether a run's output shows an outcome: an exception
// name as a whole word, any other text as written, spaces folded.
func holds(out, outcome string) bool {
	if isException(outcome) {
		for _, m := range exceptionRe.FindAllString(out, -1) {
			if m == outcome {
				return true
			}
		}
		return false
	}
	return strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(outcome), " "))
}

func isException(s string) bool {
	return exceptionRe.FindString(s) == s
}

// lastException returns the last exception name a run's output names.
func lastException(out string) string {
	m := exceptionRe.FindAllString(out, -1)
	if len(m) == 0 {
		return ""
	}
	return m[len(m)-1]
}

// claimedExceptions returns the exception names the outcomes name.
func claimedExceptions(outcomes []string) map[string]bool {
	out := map[string]bool{}
	for _, o := range outcomes {
		for _, m := range exceptionRe.FindAllString(o, -1) {
			out[m] = true
		}
	}
	return out
}
