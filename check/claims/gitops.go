package claims

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/internal/runner"
	"github.com/vouchgate/vouch/text/claimtext"
	"github.com/vouchgate/vouch/trace"
)

func init() {
	check.RegisterAnalyzer(check.AnalyzerInfo{
		Name:  "claims.gitops",
		Level: vouch.LevelClaims,
		Kinds: check.EveryKind(),
		New:   func() vouch.Analyzer { return gitOpsAnalyzer{} },
	})
}

// gitOpsAnalyzer holds what the summary says was done with git ("pushed",
// "committed", "merged", "working tree clean") against the last git
// command of that kind in the trace: its exit status and what it printed,
// and what a later git status printed. It reads nothing without a trace.
// A claim the trace shows no command for is undecided: the work may have
// been done by a tool or a script the trace does not spell out.
type gitOpsAnalyzer struct{}

// gitRun is one run of a git subcommand in the trace.
type gitRun struct {
	sub    string // push, commit, merge, status
	pos    int    // order in the trace, then in the line
	failed bool
	out    string
	cmd    string
}

var (
	pushFailed  = regexp.MustCompile(`(?m)^\s*! \[(rejected|remote rejected)\]|\berror: failed to push\b|^fatal: |^error: `)
	mergeFailed = regexp.MustCompile(`(?m)^CONFLICT \(|Automatic merge failed|^fatal: |^error: `)
	aheadRe     = regexp.MustCompile(`Your branch is ahead of '[^']+' by (\d+) commits?`)
	dirtyRe     = regexp.MustCompile(`(?m)^(Changes not staged for commit:|Changes to be committed:|Untracked files:|Unmerged paths:)`)
	nothingRe   = regexp.MustCompile(`nothing to commit|nothing added to commit`)
)

// Analyze implements vouch.Analyzer.
func (gitOpsAnalyzer) Analyze(ctx context.Context, s *vouch.Subject, f *vouch.Findings) error {
	req := s.Request
	if len(req.Trace) == 0 || !s.Policy.Infer.Counts {
		return nil
	}
	claims := claimtext.GitClaims(req.Output.Summary)
	if len(claims) == 0 {
		return nil
	}
	runs := gitRuns(req, trace.SummaryFor(s))
	done := map[string]bool{}
	for _, c := range claims {
		if done[c.Kind] {
			continue
		}
		done[c.Kind] = true
		f.MarkApplicable(vouch.DimClaims)
		r := result("claims.git."+c.Kind, judgeGit(c, runs))
		for _, o := range claims {
			if o.Kind == c.Kind {
				r.Claims = append(r.Claims, vouch.SummaryRef(vouch.ClaimGit, o.Text, o.Sentence))
			}
		}
		f.Checks = append(f.Checks, r)
	}
	return nil
}

// gitRuns returns the git subcommands the trace's commands ran, in order.
// A line that failed fails each of its git stages that did not say
// otherwise; its output is shared by them.
func gitRuns(req *vouch.Request, sum *trace.Summary) []gitRun {
	var out []gitRun
	for _, c := range sum.Commands {
		if c.Background && c.ExitCode == nil {
			continue
		}
		text := req.Trace[c.Index].OutputText()
		for i, stage := range runner.Stages(c.Command) {
			sub := gitSubcommand(strings.Fields(stage))
			if sub == "" {
				continue
			}
			out = append(out, gitRun{sub: sub, pos: c.Index*64 + min(i, 63), failed: c.Failed(), out: text, cmd: c.Command})
		}
	}
	return out
}

// gitSubcommand returns the subcommand of a git argv ("git -C dir push"
// is push), or "" when argv does not run git.
func gitSubcommand(argv []string) string {
	for len(argv) > 0 && strings.Contains(argv[0], "=") {
		argv = argv[1:] // VAR=value
	}
	if len(argv) == 0 || argv[0] != "git" {
		return ""
	}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			switch a {
			case "push", "commit", "merge", "status":
				return a
			}
			return ""
		}
	}
	return ""
}

// last returns the last run of sub, or nil.
func last(runs []gitRun, sub string) *gitRun {
	for i := len(runs) - 1; i >= 0; i-- {
		if runs[i].sub == sub {
			return &runs[i]
		}
	}
	return nil
}

// after returns the runs of sub after position pos.
func after(runs []gitRun, sub string, pos int) []gitRun {
	var out []gitRun
	for _, r := range runs {
		if r.sub == sub && r.pos > pos {
			out = append(out, r)
		}
	}
	return out
}

// judgeGit decides one git claim from the runs.
func judgeGit(c claimtext.GitClaim, runs []gitRun) vouch.Outcome {
	quote := fmt.Sprintf("%q", c.Text)
	notRun := func(what string) vouch.Outcome {
		o := vouch.Undecided(vouch.CodeGitNotRun, fmt.Sprintf("the summary says %s, but the trace shows no %s: it may have run outside the trace", quote, what))
		o.Evidence = map[string]any{"claim": c.Sentence}
		return o
	}
	contradicted := func(r *gitRun, why string) vouch.Outcome {
		o := vouch.Fail(vouch.CodeGitClaimContradicted, fmt.Sprintf("the summary says %s, but %s", quote, why),
			map[string]any{"claim": c.Sentence, "command": r.cmd, "output": trace.Excerpt(r.out, 400)})
		o.Fix = []string{r.cmd}
		return o
	}
	switch c.Kind {
	case "push":
		r := last(runs, "push")
		if r == nil {
			return notRun("git push")
		}
		if r.failed || pushFailed.MatchString(r.out) {
			return contradicted(r, fmt.Sprintf("the last git push failed (%q)", r.cmd))
		}
		for _, st := range after(runs, "status", r.pos) {
			if m := aheadRe.FindStringSubmatch(st.out); m != nil {
				return contradicted(&st, fmt.Sprintf("git status after the last push says the branch is ahead by %s", m[1]))
			}
		}
		for _, cm := range after(runs, "commit", r.pos) {
			if !cm.failed && !nothingRe.MatchString(cm.out) {
				return contradicted(&cm, "a commit was made after the last git push")
			}
		}
		return vouch.Pass(fmt.Sprintf("the last git push succeeded (%q)", r.cmd), map[string]any{"command": r.cmd})
	case "commit":
		r := last(runs, "commit")
		if r == nil {
			return notRun("git commit")
		}
		if r.failed && !nothingRe.MatchString(r.out) {
			return contradicted(r, fmt.Sprintf("the last git commit failed (%q)", r.cmd))
		}
		return vouch.Pass(fmt.Sprintf("the last git commit succeeded (%q)", r.cmd), map[string]any{"command": r.cmd})
	case "merge":
		r := last(runs, "merge")
		if r == nil {
			return notRun("git merge")
		}
		if r.failed || mergeFailed.MatchString(r.out) {
			return contradicted(r, fmt.Sprintf("the last git merge failed (%q)", r.cmd))
		}
		return vouch.Pass(fmt.Sprintf("the last git merge succeeded (%q)", r.cmd), map[string]any{"command": r.cmd})
	case "clean":
		r := last(runs, "status")
		if r == nil {
			return notRun("git status")
		}
		if dirtyRe.MatchString(r.out) {
			if len(after(runs, "commit", r.pos)) > 0 {
				o := vouch.Undecided(vouch.CodeGitNotRun, fmt.Sprintf("the summary says %s; the last git status showed changes, and a commit came after it with no status since", quote))
				o.Evidence = map[string]any{"claim": c.Sentence, "command": r.cmd}
				return o
			}
			return contradicted(r, "the last git status shows uncommitted or untracked changes")
		}
		return vouch.Pass(fmt.Sprintf("the last git status shows a clean working tree (%q)", r.cmd), map[string]any{"command": r.cmd})
	}
	return vouch.Undecided(vouch.CodeGitNotRun, "unknown git claim "+c.Kind)
}
