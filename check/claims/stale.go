package claims

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/internal/runner"
	"github.com/vouchgate/vouch/text/lex"
	"github.com/vouchgate/vouch/trace"
)

var (
	testPathParts = lex.Named("test-path-parts").Words()
	docExts       = lex.Named("doc-file-exts").Set()
)

// isTestPath reports a path that names a test file.
func isTestPath(p string) bool {
	p = "/" + strings.ToLower(strings.TrimPrefix(p, "./"))
	for _, part := range testPathParts {
		if strings.Contains(p, part) {
			return true
		}
	}
	return false
}

// isDocPath reports a path of a prose document (README.md, notes.txt).
func isDocPath(p string) bool {
	return docExts[strings.TrimPrefix(strings.ToLower(path.Ext(p)), ".")]
}

// removedLater reports whether a command of the trace after call index
// removed the file p with rm (or git rm), and did not fail.
func removedLater(sum *trace.Summary, p string, index int) bool {
	p = path.Clean(strings.TrimPrefix(p, "./"))
	for _, c := range sum.Commands {
		if c.Index <= index || c.Failed() {
			continue
		}
		for _, st := range runner.Stages(c.Command) {
			f := strings.Fields(st)
			if len(f) > 1 && f[0] == "git" {
				f = f[1:]
			}
			if len(f) < 2 || f[0] != "rm" {
				continue
			}
			for _, a := range f[1:] {
				if !strings.HasPrefix(a, "-") && path.Clean(strings.TrimPrefix(a, "./")) == p {
					return true
				}
			}
		}
	}
	return false
}

// staleness holds a passing test verdict against the writes that came
// after the last test run: a test file changed after it did not run as it
// is now, so the claim fails (TEST_STALE); another source file changed
// after it leaves the claim undecided (the change may not touch what the
// tests cover: a lint fix, a type annotation). Documents do not count,
// nor do files the trace removed again (a scratch script).
func staleness(sum *trace.Summary, last []testRun, res vouch.CheckResult) vouch.CheckResult {
	if res.Status != vouch.StatusPass || len(last) == 0 || last[0].source != "trace" {
		return res
	}
	latest := -1
	for _, r := range last {
		latest = max(latest, r.index)
	}
	var tests, sources []string
	for _, w := range sum.Writes {
		if w.Index <= latest || w.IsError || isDocPath(w.Path) {
			continue
		}
		if removedLater(sum, w.Path, w.Index) {
			continue // a scratch file the agent removed again
		}
		if isTestPath(w.Path) {
			if !slices.Contains(tests, w.Path) {
				tests = append(tests, w.Path)
			}
		} else if !slices.Contains(sources, w.Path) {
			sources = append(sources, w.Path)
		}
	}
	ev := map[string]any{"lastTestRun": latest}
	switch {
	case len(tests) > 0:
		ev["changedAfter"] = tests
		o := vouch.Fail(vouch.CodeTestStale, fmt.Sprintf("the output claims the tests passed, but %s changed after the last test run, so it did not run as it is now", check.List(tests, 5)), ev)
		o.Fix = tests
		r := result("claims.tests", o)
		r.Strength, r.Confidence = res.Strength, res.Strength.Weight()
		return r
	case len(sources) > 0:
		ev["changedAfter"] = sources
		o := vouch.Undecided(vouch.CodeTestStale, fmt.Sprintf("the last test runs passed, but %s changed after them and no test ran since", check.List(sources, 5)))
		o.Evidence = ev
		r := result("claims.tests", o)
		r.Strength = res.Strength
		return r
	}
	return res
}
