package fs

import (
	"context"
	"fmt"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/git"
)

func init() {
	check.Register(check.Type{
		Name:     "file_changed",
		Strength: vouch.StrengthStrict,
		New:      newFileChanged,
		Params:   "{path}",
		Doc:      "Git shows a change to the file since the request's base (without a base: an uncommitted change; no change is then undecided).",
	})
}

type fileChanged struct{ path string }

func newFileChanged(spec vouch.CheckSpec, _ check.Env) (vouch.Checker, error) {
	var p pathParams
	if err := check.DecodeParams(spec, &p); err != nil {
		return nil, err
	}
	if p.Path == "" {
		return nil, check.Errorf("path", "is required")
	}
	return fileChanged{p.Path}, nil
}

// Check implements vouch.Checker.
func (c fileChanged) Check(ctx context.Context, s *vouch.Subject) vouch.Outcome {
	ev := map[string]any{"path": c.path}
	rel := s.Rel(c.path)
	if rel == "" {
		return vouch.Fail(vouch.CodePathOutsideWorkspace, fmt.Sprintf("%s leads outside the workspace", c.path), ev)
	}
	ch, err := git.ChangesFor(ctx, s)
	switch {
	case ch == nil && err == nil:
		return vouch.Undecided(vouch.CodeNoWorkspace, fmt.Sprintf("%s cannot be looked at: the request has no workspace", c.path))
	case err != nil:
		return vouch.Undecided(vouch.CodeGitUnavailable, fmt.Sprintf("the changes to %s cannot be read from git: %v", c.path, err))
	case !ch.Repo:
		return vouch.Undecided(vouch.CodeGitUnavailable, fmt.Sprintf("the workspace is not a git repository, so changes to %s cannot be seen", c.path))
	}
	if fc := ch.File(rel); fc != nil {
		ev["status"] = string(fc.Status)
		return vouch.Pass(fmt.Sprintf("git shows %s %s", c.path, fc.Status), ev)
	}
	if ch.Base == "" {
		return vouch.Undecided(vouch.CodeNoChange, fmt.Sprintf("%s has no uncommitted change; without a base, committed work cannot be seen", c.path))
	}
	o := vouch.Fail(vouch.CodeNoChange, fmt.Sprintf("git shows no change to %s since the base", c.path), ev)
	o.Fix = []string{c.path}
	return o
}
