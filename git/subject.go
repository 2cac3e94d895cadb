package git

import (
	"context"

	"github.com/vouchgate/vouch"
)

// subjectKey memoises this package's work on a vouch.Subject.
type subjectKey struct{}

type subjectChanges struct {
	ch  *Changes
	err error
}

// ChangesFor returns the changes in the workspace of s since its request's
// base, as [Read] gives them, git running in the directory s opened (see
// [vouch.Subject.Dir]). They are read once per verification (memoised
// on s) and shared by every check of it: callers must not modify them. Nil
// changes with a nil error mean s has no workspace; a failed read is kept
// for the verification too, so every check sees the same answer.
func ChangesFor(ctx context.Context, s *vouch.Subject) (*Changes, error) {
	if s.Workspace == nil {
		return nil, nil
	}
	r := s.Memo(subjectKey{}, func() any {
		// Git runs in the directory that was opened (s.Dir), and the new
		// files it lists are read from the same open workspace.
		ch, err := defaultRunner.read(ctx, s.Dir(), s.Workspace, s.Request.Base)
		return subjectChanges{ch, err}
	}).(subjectChanges)
	return r.ch, r.err
}
