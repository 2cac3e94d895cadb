package code

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/vouchgate/vouch"
)

// ErrParseLimit is returned by [FileFor] once the files parsed in one
// verification are over the policy's limits.parseBytes.
var ErrParseLimit = errors.New("code: the files parsed in this verification are over the limit")

// subjectKey memoises this package's work on a vouch.Subject.
type subjectKey struct{ path string }

// budgetKey holds a verification's parse budget.
type budgetKey struct{}

type subjectFile struct {
	file *File
	err  error
}

// FileFor returns the symbols of the workspace file at path (relative to
// the workspace of s), parsing it at most once per verification (memoised on
// s, as the file's contents are) and sharing the File with every check of
// it: callers must not modify it. Errors: the workspace errors of
// [vouch.Subject.ReadFile], [ErrUnsupported] when the build has no parser
// for the language, a *[SyntaxError] (with a partial File) for a file that
// does not parse, [ErrParseLimit] once the files parsed in this
// verification exceed the policy's limits.parseBytes (32 MiB by default),
// and ctx's error when it ends first.
func FileFor(ctx context.Context, s *vouch.Subject, path string) (*File, error) {
	r := s.Memo(subjectKey{path}, func() any {
		if lang, _, ok := ForPath(path); !ok {
			if lang == "" {
				lang = "this kind of file"
			}
			return subjectFile{nil, fmt.Errorf("%w: no parser for %s", ErrUnsupported, lang)}
		}
		src, err := s.ReadFile(path)
		if err != nil {
			return subjectFile{nil, err}
		}
		if !spend(s, len(src)) {
			return subjectFile{nil, fmt.Errorf("%w (limits.parseBytes)", ErrParseLimit)}
		}
		f, err := Parse(ctx, path, src)
		return subjectFile{f, err}
	}).(subjectFile)
	return r.file, r.err
}

// spend takes n bytes from the verification's parse budget, and reports
// whether they were there.
func spend(s *vouch.Subject, n int) bool {
	limit := int64(32 << 20)
	if s.Policy != nil && s.Policy.Limits.ParseBytes > 0 {
		limit = s.Policy.Limits.ParseBytes
	}
	left := s.Memo(budgetKey{}, func() any { v := new(atomic.Int64); v.Store(limit); return v }).(*atomic.Int64)
	if left.Add(-int64(n)) < 0 {
		left.Add(int64(n))
		return false
	}
	return true
}
