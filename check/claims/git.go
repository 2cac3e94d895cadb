package claims

import (
	"context"
	"fmt"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/git"
	"github.com/vouchgate/vouch/text/plural"
)

func init() {
	check.RegisterAnalyzer(check.AnalyzerInfo{
		Name:  "claims.git",
		Level: vouch.LevelClaims,
		Kinds: check.EveryKind(),
		New:   func() vouch.Analyzer { return gitAnalyzer{} },
	})
}

// gitAnalyzer holds the claimed changes against git when the workspace is
// a repository: the changes since the request's base (commits after it and
// the working tree, untracked files as created). With a base it also holds
// the files the summary says it changed (see saidChanges). Without a base only
// uncommitted changes are evidence, so a claimed change git cannot see is
// undecided rather than failed: committed work and missing work look alike.
type gitAnalyzer struct{}

// Analyze implements vouch.Analyzer.
func (gitAnalyzer) Analyze(ctx context.Context, s *vouch.Subject, f *vouch.Findings) error {
	if s.Workspace == nil {
		return nil
	}
	ch, err := git.ChangesFor(ctx, s)
	if err != nil {
		if vouch.Code(err) == vouch.ErrInvalid {
			// A base that does not resolve is the caller's mistake: say so
			// on the claims it leaves unchecked.
			f.MarkApplicable(vouch.DimClaims)
			o := vouch.Undecided(vouch.CodeGitUnavailable, "the changes cannot be read from git: "+err.Error())
			f.Checks = append(f.Checks, result("claims.git", o))
			return nil
		}
		return err
	}
	if !ch.Repo {
		return nil
	}
	files := gather(s)
	withBase := ch.Base != ""
	claimed := map[string]bool{}
	for _, c := range files {
		if c.rel == "" {
			continue
		}
		claimed[c.rel] = true
		from := len(f.Checks)
		c.checkGit(f, ch, withBase)
		for i := from; i < len(f.Checks); i++ {
			if f.Checks[i].Claims == nil {
				f.Checks[i].Claims = c.refs
			}
		}
	}
	if withBase && s.Policy.Infer.Counts {
		said := saidChanges(s, ch, claimed)
		if len(said) > 0 {
			f.MarkApplicable(vouch.DimClaims)
			f.Checks = append(f.Checks, said...)
		}
	}
	var unclaimed []string
	for _, p := range ch.Paths() {
		if fc := ch.Files[p]; !claimed[p] && !(fc.OldPath != "" && claimed[fc.OldPath]) {
			unclaimed = append(unclaimed, p)
		}
	}
	if len(unclaimed) > 0 && len(files) > 0 {
		f.Warnings = append(f.Warnings, vouch.Warning{
			Code:    vouch.CodeUnclaimedChange,
			Message: fmt.Sprintf("%s %s not among the claimed changes: %s", plural.Count(len(unclaimed), "changed file"), plural.Pick(len(unclaimed), "is", "are"), check.List(unclaimed, 8)),
			Details: map[string]any{"files": unclaimed},
		})
	}
	return nil
}

// checkGit adds the checks of one claimed file against the changes to f.
func (c *claimedFile) checkGit(f *vouch.Findings, ch *git.Changes, withBase bool) {
	if c.deleted && !c.created && !c.edited {
		return // existence is checked by claims.files
	}
	fc := ch.File(c.rel)
	verb := "modified"
	if c.created {
		verb = "created"
	}
	f.MarkApplicable(vouch.DimClaims)
	if fc == nil || fc.Status == git.Deleted {
		ev := map[string]any{"file": c.path, "base": ch.Base}
		if withBase {
			o := vouch.Fail(vouch.CodeNoChange, fmt.Sprintf("%s is claimed %s, but git shows no change to it since the base", c.path, verb), ev)
			o.Fix = []string{c.path}
			f.Checks = append(f.Checks, result("claims.git", o))
		} else {
			o := vouch.Undecided(vouch.CodeNoChange, fmt.Sprintf("%s is claimed %s and has no uncommitted change; without a base, committed work cannot be told from missing work", c.path, verb))
			o.Evidence = ev
			f.Checks = append(f.Checks, result("claims.git", o))
		}
		return
	}
	if len(c.regions) == 0 {
		f.Checks = append(f.Checks, result("claims.git", vouch.Pass(fmt.Sprintf("git shows %s %s", c.path, fc.Status), map[string]any{"file": c.path, "status": string(fc.Status)})))
		return
	}
	for _, fe := range c.regions {
		r := fe.EditedRegion
		if r == nil {
			continue
		}
		ev := map[string]any{"file": c.path, "start": r.Start, "end": r.End, "hunks": hunks(fc)}
		var o vouch.Outcome
		switch {
		case fc.Touches(r.Start, r.End) || fc.Binary:
			o = vouch.Pass(fmt.Sprintf("git shows changes in lines %d-%d of %s", r.Start, r.End, c.path), ev)
		case fc.TooLarge:
			o = vouch.Undecided(vouch.CodeInputTooLarge, fmt.Sprintf("%s is new and too large for its lines to be counted, so the claimed edit at lines %d-%d cannot be checked", c.path, r.Start, r.End))
			o.Evidence = ev
		case withBase || !fc.Committed:
			o = vouch.Fail(vouch.CodeRegionUnchanged, fmt.Sprintf("the claimed edit of %s at lines %d-%d is not in any change git shows", c.path, r.Start, r.End), ev)
			o.Fix = []string{fmt.Sprintf("%s:%d-%d", c.path, r.Start, r.End)}
		default:
			o = vouch.Undecided(vouch.CodeRegionUnchanged, fmt.Sprintf("lines %d-%d of %s show no uncommitted change; without a base, committed edits are invisible", r.Start, r.End, c.path))
			o.Evidence = ev
		}
		res := result("claims.region.changed", o)
		res.Claims = editRef(fe)
		f.Checks = append(f.Checks, res)
	}
}

func hunks(fc *git.FileChange) []string {
	out := make([]string, 0, len(fc.Hunks))
	for _, h := range fc.Hunks {
		if h.Empty() {
			out = append(out, fmt.Sprintf("deletion after %d", h.End))
		} else {
			out = append(out, fmt.Sprintf("%d-%d", h.Start, h.End))
		}
	}
	return out
}
