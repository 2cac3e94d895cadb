package claims

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/code"
	"github.com/vouchgate/vouch/git"
	"github.com/vouchgate/vouch/text/claimtext"
	"github.com/vouchgate/vouch/text/lex"
	"github.com/vouchgate/vouch/text/plural"
)

func init() {
	check.RegisterAnalyzer(check.AnalyzerInfo{
		Name:  "claims.behaviour",
		Level: vouch.LevelClaims,
		Kinds: check.EveryKind(),
		New:   func() vouch.Analyzer { return behaviourAnalyzer{} },
	})
}

// behaviourAnalyzer holds "no behaviour change" (see
// claimtext.BehaviourClaims) against the code the work changed since the
// request's base. Prose documents and test files do not count; every other
// changed file is compared, base against workspace, by its code tokens
// (package code's Tokens: comments, docstrings and layout left out):
//
//   - no file's code changed: the claim holds;
//   - a file's code changed, and the claim is unqualified and the summary
//     does not say the work refactors (renames, moves, extracts,
//     simplifies...): the claim fails (BEHAVIOUR_CHANGED), naming the file,
//     the line and the symbol where the code first differs;
//   - a file's code changed, but the claim is qualified ("no behaviour
//     change for existing callers") or the work is a refactor, which
//     changes code by design and may well keep behaviour: undecided;
//   - no code changed that vouch could compare, but a file could not be
//     compared (a language without a parser in this build, a file that
//     does not parse, configuration, a binary): undecided.
//
// Without a base or a repository nothing is held: undecided.
type behaviourAnalyzer struct{}

// refactorWords, in a summary, say its work restructures code: the code
// changes, and whether behaviour is kept is what no diff shows.
var refactorWords = lex.Named("refactor-words").Set()

// maxCompared bounds the changed files whose code is compared.
const maxCompared = 500

// Analyze implements vouch.Analyzer.
func (behaviourAnalyzer) Analyze(ctx context.Context, s *vouch.Subject, f *vouch.Findings) error {
	if s.Workspace == nil || !s.Policy.Infer.Counts {
		return nil
	}
	claims := claimtext.BehaviourClaims(s.Request.Output.Summary)
	if len(claims) == 0 {
		return nil
	}
	c := claims[0]
	for _, cl := range claims {
		if !cl.Qualified {
			c = cl // an unqualified claim says the most
			break
		}
	}
	f.MarkApplicable(vouch.DimClaims)
	defer func(from int) {
		for i := from; i < len(f.Checks); i++ {
			for _, cl := range claims {
				f.Checks[i].Claims = append(f.Checks[i].Claims, vouch.SummaryRef(vouch.ClaimBehaviour, cl.Text, cl.Sentence))
			}
		}
	}(len(f.Checks))
	ev := map[string]any{"claim": c.Text}
	undecided := func(why string) {
		o := vouch.Undecided(vouch.CodeBehaviourChanged, fmt.Sprintf("the summary says %q, but %s", c.Text, why))
		o.Evidence = ev
		f.Checks = append(f.Checks, result("claims.behaviour", o))
	}
	if s.Request.Base == "" {
		undecided("the request names no base, so what the work changed cannot be told from what was there")
		return nil
	}
	ch, err := git.ChangesFor(ctx, s)
	if err != nil || ch == nil || !ch.Repo {
		undecided("the changes since the base cannot be read from git")
		return nil
	}
	ev["base"] = ch.Base
	cmp := compareCode(ctx, s, ch)
	if err := ctx.Err(); err != nil {
		return err
	}
	ev["compared"] = len(cmp.same) + len(cmp.changed)
	if len(cmp.changed) > 0 {
		var where []string
		for _, d := range cmp.changed {
			where = append(where, d.String())
		}
		ev["changed"] = check.Cap(where, 50)
		first := cmp.changed[0]
		if refactor := refactorIn(s.Request.Output.Summary); c.Qualified || refactor != "" {
			why := fmt.Sprintf("%q narrows the claim to part of the code", c.Sentence)
			if !c.Qualified {
				why = fmt.Sprintf("the summary says the work is a refactor (%q), which changes code by design", refactor)
			}
			undecided(fmt.Sprintf("the code of %s changed (first %s), and %s: whether behaviour is kept is for a reader to judge", plural.Count(len(cmp.changed), "file"), first, why))
			return nil
		}
		o := vouch.Fail(vouch.CodeBehaviourChanged, fmt.Sprintf("the summary says %q, but the code of %s changed since the base, not only comments, documents or tests: first %s", c.Text, plural.Count(len(cmp.changed), "file"), first), ev)
		for _, d := range cmp.changed {
			o.Fix = append(o.Fix, d.String())
		}
		o.Fix = check.Cap(o.Fix, 50)
		f.Checks = append(f.Checks, result("claims.behaviour", o))
		return nil
	}
	if len(cmp.unknown) > 0 {
		ev["uncompared"] = check.Cap(cmp.unknown, 50)
		undecided(fmt.Sprintf("%s cannot be compared as code: %s", plural.Count(len(cmp.unknown), "changed file"), check.List(cmp.unknown, 10)))
		return nil
	}
	ev["skipped"] = check.Cap(cmp.skipped, 50)
	msg := fmt.Sprintf("the code is the same as at the base: %s %s only in comments, doc strings or layout", plural.Count(len(cmp.same), "changed file"), plural.Pick(len(cmp.same), "differs", "differ"))
	if len(cmp.same) == 0 {
		msg = "no code changed since the base"
	}
	if len(cmp.skipped) > 0 {
		msg += fmt.Sprintf("; %d %s changed (%s)", len(cmp.skipped), plural.Pick(len(cmp.skipped), "document or test", "documents and tests"), check.List(cmp.skipped, 10))
	}
	f.Checks = append(f.Checks, result("claims.behaviour", vouch.Pass(msg, ev)))
	return nil
}

// refactorIn returns the first word of summary that says the work
// restructures code, or "".
func refactorIn(summary string) string {
	for _, w := range strings.FieldsFunc(strings.ToLower(summary), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r == '-')
	}) {
		if refactorWords[strings.Trim(w, "-")] {
			return w
		}
	}
	return ""
}

// codeChange is where a changed file's code first differs.
type codeChange struct {
	file   string
	line   int    // in the workspace's version; 0 when the file is gone
	symbol string // the symbol around that line, when one is
	what   string // "added", "deleted" or ""
}

func (d codeChange) String() string {
	switch {
	case d.what == "deleted":
		return d.file + " (deleted)"
	case d.what == "added":
		return d.file + " (added)"
	case d.symbol != "":
		return fmt.Sprintf("%s:%d, in %s", d.file, d.line, d.symbol)
	}
	return fmt.Sprintf("%s:%d", d.file, d.line)
}

// codeComparison sorts the changed files of the work.
type codeComparison struct {
	changed []codeChange
	same    []string // code files whose code is the same
	skipped []string // documents and tests
	unknown []string // files that could not be compared, each with why
}

// compareCode compares each changed file with its version at the base.
func compareCode(ctx context.Context, s *vouch.Subject, ch *git.Changes) codeComparison {
	var out codeComparison
	type pair struct {
		fc   *git.FileChange
		from string // its path at the base; "" when new
	}
	var pairs []pair
	var atBase []string
	for _, p := range ch.Paths() {
		fc := ch.Files[p]
		from := p
		if fc.OldPath != "" {
			from = fc.OldPath
		}
		if fc.Status == git.Added || fc.Status == git.Untracked {
			from = ""
		}
		if isDocPath(p) && (from == "" || isDocPath(from)) || isTestPath(p) && (from == "" || isTestPath(from)) {
			out.skipped = append(out.skipped, p)
			continue
		}
		if fc.Binary || fc.TooLarge {
			out.unknown = append(out.unknown, p+" (binary or too large)")
			continue
		}
		if _, _, ok := code.ForPath(p); !ok {
			out.unknown = append(out.unknown, p+" (no parser for it)")
			continue
		}
		if len(pairs) >= maxCompared {
			out.unknown = append(out.unknown, p+" (over the files compared)")
			continue
		}
		pairs = append(pairs, pair{fc, from})
		if from != "" {
			atBase = append(atBase, from)
		}
	}
	var base map[string][]byte
	var skipped map[string]error
	if len(atBase) > 0 {
		var err error
		base, skipped, err = git.ReadAt(ctx, s.Dir(), ch.Base, atBase)
		if err != nil {
			for _, pr := range pairs {
				out.unknown = append(out.unknown, pr.fc.Path+" (its version at the base cannot be read)")
			}
			return out
		}
	}
	for _, pr := range pairs {
		if ctx.Err() != nil {
			return out
		}
		p := pr.fc.Path
		var before, after []code.Token
		var err error
		if pr.from != "" {
			if skipped[pr.from] != nil {
				out.unknown = append(out.unknown, p+" (its version at the base cannot be read)")
				continue
			}
			if src := base[pr.from]; src != nil {
				if before, err = code.Tokens(ctx, pr.from, src); err != nil {
					out.unknown = append(out.unknown, fmt.Sprintf("%s (at the base: %s)", p, tokenError(err)))
					continue
				}
			}
		}
		if pr.fc.Status != git.Deleted {
			src, rerr := s.ReadFile(p)
			if rerr != nil {
				out.unknown = append(out.unknown, p+" (cannot be read)")
				continue
			}
			if after, err = code.Tokens(ctx, p, src); err != nil {
				out.unknown = append(out.unknown, fmt.Sprintf("%s (%s)", p, tokenError(err)))
				continue
			}
		}
		i := code.FirstDifference(before, after)
		if i < 0 {
			out.same = append(out.same, p)
			continue
		}
		d := codeChange{file: p}
		switch {
		case pr.fc.Status == git.Deleted:
			d.what = "deleted"
		case pr.from == "" || base[pr.from] == nil:
			d.what = "added"
		case i < len(after):
			d.line = after[i].Line
		case len(after) > 0:
			d.line = after[len(after)-1].Line
		}
		if d.line > 0 {
			if pf, err := code.FileFor(ctx, s, p); pf != nil && err == nil {
				if syms := pf.InRegion(d.line, d.line); len(syms) > 0 {
					d.symbol = syms[len(syms)-1].QualifiedName()
				}
			}
		}
		out.changed = append(out.changed, d)
	}
	return out
}

// tokenError says briefly why a file's tokens could not be read.
func tokenError(err error) string {
	switch {
	case errors.Is(err, code.ErrSyntax):
		return "it does not parse"
	case errors.Is(err, code.ErrUnsupported):
		return "no parser for it in this build"
	}
	return err.Error()
}
