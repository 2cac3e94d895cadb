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

// backupExts are the extensions of backup and scratch copies of a file
// (a.py.bak, a.py.orig): no code runs them. (Kept short; a longer list
// belongs in text/lex/words.)
var backupExts = map[string]bool{"bak": true, "orig": true, "rej": true, "backup": true, "old": true, "swp": true, "tmp": true}

// isBackupPath reports a path of a backup or scratch copy that is not
// the work: a.py.bak, a.py.orig, a.py~, or a file under /tmp.
func isBackupPath(p string) bool {
	return strings.HasSuffix(p, "~") || backupExts[strings.TrimPrefix(strings.ToLower(path.Ext(p)), ".")] ||
		strings.HasPrefix(p, "/tmp/") || strings.HasPrefix(p, "/var/tmp/")
}

// removals maps each file a command of the trace removed (rm, git rm) or
// moved away (mv), and did not fail, to the last call that did, paths
// cleaned.
func removals(sum *trace.Summary) map[string]int {
	out := map[string]int{}
	for _, c := range sum.Commands {
		if c.Failed() || !strings.Contains(c.Command, "rm") && !strings.Contains(c.Command, "mv") {
			continue
		}
		for _, st := range runner.Stages(c.Command) {
			f := strings.Fields(st)
			if len(f) > 1 && f[0] == "git" {
				f = f[1:]
			}
			if len(f) < 2 || f[0] != "rm" && f[0] != "mv" {
				continue
			}
			ops := f[1:]
			if f[0] == "mv" {
				ops = ops[:len(ops)-1] // the destination stays
			}
			for _, a := range ops {
				if !strings.HasPrefix(a, "-") {
					out[path.Clean(strings.TrimPrefix(a, "./"))] = c.Index
				}
			}
		}
	}
	return out
}

// sourceFiles returns the files the trace wrote without an error, each
// once: not prose documents, backups, or files a later command removed.
func sourceFiles(sum *trace.Summary) []string {
	last := map[string]int{}
	var order []string
	for _, w := range sum.Writes {
		if w.IsError || isDocPath(w.Path) || isBackupPath(w.Path) {
			continue
		}
		if _, ok := last[w.Path]; !ok {
			order = append(order, w.Path)
		}
		last[w.Path] = w.Index
	}
	gone := removals(sum)
	out := order[:0]
	for _, p := range order {
		if gone[path.Clean(strings.TrimPrefix(p, "./"))] <= last[p] {
			out = append(out, p)
		}
	}
	return out
}

// drift is how the files a trace wrote at its end compare with what they
// held just after one call: the worst answer over the files, with the
// file and the call that decide it.
type drift struct {
	same trace.Sameness
	file string
	call int
}

// driftSince compares the files at the end of the trace with their
// content just after call i: ChangedContent as soon as one surely
// changed, else UnknownContent if a write vouch cannot replay leaves one
// open, else SameContent.
func driftSince(sum *trace.Summary, files []string, i int) drift {
	d := drift{same: trace.SameContent, call: -1}
	for _, p := range files {
		switch same, call := sum.Versions.Compare(p, i); same {
		case trace.ChangedContent:
			return drift{same: same, file: p, call: call}
		case trace.UnknownContent:
			if d.same == trace.SameContent {
				d = drift{same: same, file: p, call: call}
			}
		}
	}
	return d
}

// staleness holds a passing test verdict against the writes that came
// after the last test run: a test file changed after it did not run as it
// is now, so the claim fails (TEST_STALE); another source file changed
// after it leaves the claim undecided (the change may not touch what the
// tests cover: a lint fix, a type annotation). Documents and backups do
// not count, nor do files the trace removed again (a scratch script), nor
// writes that undid each other: a file counts only when its content at
// the end differs from what the last test run ran on (see
// [trace.Versions.Compare]). A file a write vouch cannot replay leaves
// open is undecided, never a failure.
func staleness(sum *trace.Summary, last []testRun, res vouch.CheckResult) vouch.CheckResult {
	if res.Status != vouch.StatusPass || len(last) == 0 || last[0].source != "trace" {
		return res
	}
	latest := -1
	for _, r := range last {
		latest = max(latest, r.index)
	}
	var tests, sources, open []string
	openCall := -1
	gone := removals(sum)
	for _, w := range sum.Writes {
		if w.Index <= latest || w.IsError || isDocPath(w.Path) || isBackupPath(w.Path) {
			continue
		}
		if slices.Contains(tests, w.Path) || slices.Contains(sources, w.Path) || slices.Contains(open, w.Path) {
			continue
		}
		if gone[path.Clean(strings.TrimPrefix(w.Path, "./"))] > w.Index {
			continue // a scratch file the agent removed again
		}
		switch same, call := sum.Versions.Compare(w.Path, latest); {
		case same == trace.SameContent:
			// Written after the run, but back to what the run ran on.
		case same == trace.UnknownContent:
			open = append(open, w.Path)
			if openCall < 0 {
				openCall = call
			}
		case isTestPath(w.Path):
			tests = append(tests, w.Path)
		default:
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
		if len(open) > 0 {
			ev["unreplayed"] = open
		}
		o := vouch.Undecided(vouch.CodeTestStale, fmt.Sprintf("the last test runs passed, but %s changed after them and no test ran since", check.List(sources, 5)))
		o.Evidence = ev
		r := result("claims.tests", o)
		r.Strength = res.Strength
		return r
	case len(open) > 0:
		ev["unreplayed"] = open
		o := vouch.Undecided(vouch.CodeTestStale, fmt.Sprintf("the last test runs passed, but %s was written after them (call %d) in a way vouch cannot replay, so whether the tests ran on it as it is now is unknown", check.List(open, 5), openCall))
		o.Evidence = ev
		r := result("claims.tests", o)
		r.Strength = res.Strength
		return r
	}
	return res
}
