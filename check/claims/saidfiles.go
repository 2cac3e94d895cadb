package claims

import (
	"fmt"
	"path"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/git"
	"github.com/vouchgate/vouch/text/claimtext"
	"github.com/vouchgate/vouch/trace"
)

// changeActions are the action classes by which a summary says it changed
// a file that exists: "Updated X", "Modified X", "Refactored X", "Fixed X".
var changeActions = map[string]bool{"modify": true, "update": true, "refactor": true, "fix": true}

// saidChanges holds the files the summary says it changed ("Updated
// lib/foo.ex", "Refactored `parser.ts`") against the changes since the
// base. A file is held only when vouch is sure which file is meant: the
// path exists in the workspace as written, or it names exactly one
// changed file (a base name, or a path's tail). It fails when git shows no
// change to that file since the base and no call of the trace wrote it;
// a file the trace wrote and git shows unchanged (ignored by git, or
// written back as it was) is undecided. Files the output's created or
// modified fields already claim are left to those checks.
func saidChanges(s *vouch.Subject, ch *git.Changes, structured map[string]bool) []vouch.CheckResult {
	var out []vouch.CheckResult
	seen := map[string]bool{}
	written := traceWrites(s)
	for _, c := range summaryCounts(s) {
		if c.Negated || c.Noun != "file" || !changeActions[c.Action] {
			continue
		}
		for _, item := range c.Items {
			rel, changed := resolveSaid(s, ch, item)
			if rel == "" || seen[rel] || structured[rel] {
				continue
			}
			seen[rel] = true
			ref := vouch.SummaryRef(vouch.ClaimFile, c.Text, c.Sentence)
			ref.Partial = c.Action == "fix" // a fix is more than a change to the file
			out = append(out, saidFile(ch, written, rel, changed, c.Text, ref))
		}
	}
	return out
}

// traceWrites lists the paths the trace wrote without an error, cleaned.
func traceWrites(s *vouch.Subject) []string {
	var written []string
	for _, w := range trace.SummaryFor(s).Writes {
		if !w.IsError {
			written = append(written, strings.TrimPrefix(path.Clean(w.Path), "./"))
		}
	}
	return written
}

// saidFile holds a summary's claim text that it changed the workspace file
// rel against the changes since the base: it passes when git shows rel
// changed; it fails when git shows no change to it and no call of the
// trace wrote it; a file the trace wrote and git shows unchanged (ignored
// by git, or written back as it was) is undecided. The check cites ref.
func saidFile(ch *git.Changes, written []string, rel string, changed bool, text string, ref vouch.ClaimRef) vouch.CheckResult {
	ev := map[string]any{"file": rel, "claim": text, "base": ch.Base}
	var r vouch.CheckResult
	switch {
	case changed:
		r = result("claims.git", vouch.Pass(fmt.Sprintf("git shows %s changed, as the summary says (%q)", rel, text), ev))
	case wroteFile(written, rel):
		o := vouch.Undecided(vouch.CodeNoChange, fmt.Sprintf("the summary says %q and the trace wrote %s, but git shows no change to it since the base (ignored, or written back as it was)", text, rel))
		o.Evidence = ev
		r = result("claims.git", o)
	default:
		o := vouch.Fail(vouch.CodeNoChange, fmt.Sprintf("the summary says %q, but git shows no change to %s since the base and no call of the trace wrote it", text, rel), ev)
		o.Fix = []string{rel}
		r = result("claims.git", o)
	}
	r.Claims = []vouch.ClaimRef{ref}
	return r
}

// resolveSaid finds the file a summary names: a changed file whose path
// is the name or ends with "/"+name, when exactly one does, else the
// name itself when it exists in the workspace. rel is "" when vouch
// cannot tell which file is meant.
func resolveSaid(s *vouch.Subject, ch *git.Changes, name string) (rel string, changed bool) {
	name = strings.TrimPrefix(path.Clean(strings.TrimSpace(name)), "./")
	if name == "" || name == "." || strings.HasPrefix(name, "../") || path.IsAbs(name) {
		return "", false
	}
	switch p, n := changedPath(ch, name); {
	case n == 1:
		return p, true
	case n > 1:
		return "", false // several changed files end so: which one is meant?
	}
	r := s.Rel(name)
	if r == "" {
		return "", false
	}
	if fi, err := s.Stat(r); err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	return r, false
}

// changedPath returns the changed file whose path is name or ends with
// "/"+name when exactly one does, and how many do.
func changedPath(ch *git.Changes, name string) (string, int) {
	var match string
	n := 0
	for _, p := range ch.Paths() {
		if p == name || strings.HasSuffix(p, "/"+name) {
			match, n = p, n+1
		}
	}
	return match, n
}

// countsKey memoises the count claims of a subject's summary.
type countsKey struct{}

// summaryCounts returns the count claims of the summary, read once per
// verification and shared by the checks that hold them.
func summaryCounts(s *vouch.Subject) []claimtext.CountClaim {
	return s.Memo(countsKey{}, func() any { return claimtext.Counts(s.Request.Output.Summary) }).([]claimtext.CountClaim)
}

// wroteFile reports whether a trace write names rel: the same path, or an
// absolute or longer path that ends with it.
func wroteFile(written []string, rel string) bool {
	for _, w := range written {
		if w == rel || strings.HasSuffix(w, "/"+rel) {
			return true
		}
	}
	return false
}
