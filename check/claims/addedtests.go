package claims

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/code"
	"github.com/vouchgate/vouch/git"
	"github.com/vouchgate/vouch/text/claimtext"
	"github.com/vouchgate/vouch/text/plural"
)

// diffClaims holds the count claims of a summary that only the changes
// since the request's base can decide: the symbols it says it added or
// changed (see saidSymbol) and the number of tests it says it added (see
// addedTests). Without a base, or outside a repository, it holds nothing.
func diffClaims(ctx context.Context, s *vouch.Subject, counts []claimtext.CountClaim) []vouch.CheckResult {
	var syms, tests []claimtext.CountClaim
	for _, c := range counts {
		switch {
		case symbolClaim(c):
			syms = append(syms, c)
		case testsAddedClaim(c):
			tests = append(tests, c)
		}
	}
	// A clause that says tests were added without a count ("Tests added",
	// "Added `parse` with tests") claims at least one.
	var some []claimtext.Statement
	for _, st := range check.Statements(s) {
		if st.Kind == "tests" && workOp(st.Action) == "add" &&
			!slices.ContainsFunc(tests, func(c claimtext.CountClaim) bool { return c.Sentence == st.Sentence }) {
			some = append(some, st)
		}
	}
	if len(syms)+len(tests)+len(some) == 0 || s.Request.Base == "" {
		return nil
	}
	ch, err := git.ChangesFor(ctx, s)
	if err != nil || ch == nil || !ch.Repo || ch.Base == "" {
		return nil
	}
	var out []vouch.CheckResult
	if len(syms) > 0 {
		var names []string
		for _, c := range syms {
			for _, n := range symbolNames(c) {
				if n = lastPart(n); !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
		}
		files := sync.OnceValue(func() map[string][]string { return symbolFiles(ctx, s, names) })
		for _, c := range syms {
			out = append(out, saidSymbol(ctx, s, ch, c, files)...)
		}
	}
	if len(tests)+len(some) > 0 {
		tc := countTests(ctx, s, ch)
		for _, st := range some {
			r := someTestsAdded(st, tc)
			r.Claims = []vouch.ClaimRef{vouch.SummaryRef(vouch.ClaimTests, st.Text, st.Sentence)}
			out = append(out, r)
		}
		seen := map[int]bool{}
		for _, c := range tests {
			if n := max(c.Number, len(c.Items)); n > 0 && !seen[n] {
				seen[n] = true
				r := addedTests(c, n, tc)
				r.Claims = []vouch.ClaimRef{countRef(c)}
				out = append(out, r)
			}
		}
	}
	return out
}

// someTestsAdded holds a claim that tests were added, with no count
// ("Tests added", "Added `parse` with tests"): a test function the changes
// add shows it. Without one it is undecided, never refuted: tests come in
// more shapes than functions (cases added to a table, examples, golden
// files, doctests, helpers), and a claim with no count names none.
func someTestsAdded(st claimtext.Statement, tc addedCount) vouch.CheckResult {
	ev := map[string]any{"claim": st.Text, "found": len(tc.added), "added": nonNil(check.Cap(tc.added, 50))}
	if len(tc.added) > 0 {
		return result("claims.count", vouch.Pass(fmt.Sprintf("the claim %q holds: the changes add %s (%s)", st.Text, plural.Count(len(tc.added), "test function"), check.List(tc.added, 10)), ev))
	}
	o := vouch.Undecided(vouch.CodeCountUndecided, fmt.Sprintf("the summary says %q, and the changes add no test function vouch counts; tests in other shapes (cases in a table, examples, golden files, doctests) it cannot count", st.Text))
	o.Evidence = ev
	return result("claims.count", o)
}

// testsAddedClaim reports a claim that a number of tests were added:
// "Added 3 tests", "Wrote 2 new unit tests", "4 new tests".
func testsAddedClaim(c claimtext.CountClaim) bool {
	return !c.Negated && c.Noun == "test" && (c.Action == "add" || c.Action == "create" || c.Action == "implement") &&
		(c.Number > 0 || len(c.Items) > 0)
}

// addedCount is what the changes since the base show of tests.
type addedCount struct {
	added    []string // test functions new since the base, "file:Name"
	modified []string // test functions that were there and were changed
	// uncountable are changed test files whose tests cannot be counted as
	// functions: a language without a parser, a file that does not parse,
	// tests written as calls (it("..."), test("...")).
	uncountable []string
	// tables are changed test files whose added lines hold subtests,
	// parametrised tests or tables of cases, which one function can hold
	// many of.
	tables []string
	// unknown are changed files vouch does not take for test files whose
	// path says "test" (Django's tests.py, C#'s FooTests.cs, a Go
	// testutil package): they may hold tests it does not count.
	unknown []string
}

// inlineTests are the extensions of languages whose tests may live in any
// source file, not only in test files.
var inlineTests = map[string]bool{".rs": true, ".zig": true, ".d": true, ".ex": true, ".exs": true}

// tableMarks, in a line a change adds to a test file, mean one test
// function may hold several tests.
var tableMarks = regexp.MustCompile(`\bt\.Run\(|\brange\b|\[\]struct\s*\{|parametrize|subTest\(|\bit\(|\btest\(|\.each\b|\bcases\b|\btests\s*:?=|\bexamples\b`)

// countTests finds the test functions the work added and changed since the
// base, in the changed files that hold tests: Go's Test and Fuzz functions
// in _test.go files, Python's test functions and methods (names starting
// with "test") in test files.
func countTests(ctx context.Context, s *vouch.Subject, ch *git.Changes) addedCount {
	var tc addedCount
	var files, atBase []string
	for _, p := range ch.Paths() {
		fc := ch.Files[p]
		if fc.Status == git.Deleted || isDocPath(p) || strings.Contains(p, "/testdata/") || strings.HasPrefix(p, "testdata/") {
			continue
		}
		if !isTestPath(p) {
			switch {
			case inlineTests[strings.ToLower(path.Ext(p))]:
				// Rust's #[test] functions, Zig's and D's test blocks,
				// Elixir's doctests live beside the code.
				tc.uncountable = append(tc.uncountable, p)
			case strings.Contains(strings.ToLower(p), "test"):
				tc.unknown = append(tc.unknown, p)
			}
			continue
		}
		lang, _, ok := code.ForPath(p)
		if !ok || lang != code.LangGo && lang != code.LangPython {
			tc.uncountable = append(tc.uncountable, p)
			continue
		}
		files = append(files, p)
		if fc.Status != git.Added && fc.Status != git.Untracked {
			from := p
			if fc.OldPath != "" {
				from = fc.OldPath
			}
			atBase = append(atBase, from)
		}
	}
	var base map[string][]byte
	if len(atBase) > 0 {
		var err error
		if base, _, err = git.ReadAt(ctx, s.Dir(), ch.Base, atBase); err != nil {
			tc.uncountable = append(tc.uncountable, files...)
			return tc
		}
	}
	for _, p := range files {
		fc := ch.Files[p]
		head, err := code.FileFor(ctx, s, p)
		if err != nil {
			tc.uncountable = append(tc.uncountable, p)
			continue
		}
		from := p
		if fc.OldPath != "" {
			from = fc.OldPath
		}
		before := map[string]bool{}
		if src, ok := base[from]; ok && src != nil {
			bf, err := code.Parse(ctx, from, src)
			if err != nil {
				tc.uncountable = append(tc.uncountable, p)
				continue
			}
			for _, sym := range bf.Symbols {
				if isTestFunc(head.Lang, sym) {
					before[sym.QualifiedName()] = true
				}
			}
		} else if _, asked := base[from]; !asked && fc.Status != git.Added && fc.Status != git.Untracked {
			tc.uncountable = append(tc.uncountable, p)
			continue
		}
		for _, sym := range head.Symbols {
			if !isTestFunc(head.Lang, sym) {
				continue
			}
			q := sym.QualifiedName()
			start, end := sym.Extent()
			switch {
			case !before[q]:
				tc.added = append(tc.added, p+":"+q)
			case fc.Touches(start, end):
				tc.modified = append(tc.modified, p+":"+q)
			}
		}
		if addsTable(s, p, fc) {
			tc.tables = append(tc.tables, p)
		}
	}
	return tc
}

// isTestFunc reports a function a test runner runs as a test.
func isTestFunc(lang string, sym code.Symbol) bool {
	switch lang {
	case code.LangGo:
		// Methods too: the tests of a testify suite.
		if sym.Kind != code.KindFunction && sym.Kind != code.KindMethod {
			return false
		}
		for _, p := range []string{"Test", "Fuzz"} {
			if rest, ok := strings.CutPrefix(sym.Name, p); ok && (rest == "" || !(rest[0] >= 'a' && rest[0] <= 'z')) {
				return true
			}
		}
	case code.LangPython:
		return (sym.Kind == code.KindFunction || sym.Kind == code.KindMethod) && strings.HasPrefix(sym.Name, "test")
	}
	return false
}

// addsTable reports whether the lines a change adds to the file p hold a
// mark of subtests or tables of cases (see tableMarks).
func addsTable(s *vouch.Subject, p string, fc *git.FileChange) bool {
	data, err := s.ReadFile(p)
	if err != nil {
		return true
	}
	lines := strings.Split(string(data), "\n")
	for _, h := range fc.Hunks {
		for i := h.Start; i <= h.End && i <= len(lines); i++ {
			if i >= 1 && tableMarks.MatchString(lines[i-1]) {
				return true
			}
		}
	}
	return false
}

// addedTests holds a claim that n tests were added against the test
// functions the changes add. It passes when they add n or more; it fails
// (COUNT_MISMATCH) only when they add fewer and vouch sees every test
// they could have added: every changed test file counted, no existing
// test function changed, no subtest or table of cases added (each of which
// may hold several tests), no changed file named for tests in a layout it
// does not know; else it is undecided.
func addedTests(c claimtext.CountClaim, n int, tc addedCount) vouch.CheckResult {
	ev := map[string]any{"claim": c.Text, "claimed": n, "found": len(tc.added), "added": nonNil(check.Cap(tc.added, 50))}
	if len(tc.added) >= n {
		return result("claims.count", vouch.Pass(fmt.Sprintf("the claim %q holds: the changes add %s (%s)", c.Text, plural.Count(len(tc.added), "test function"), check.List(tc.added, 10)), ev))
	}
	var why []string
	if len(tc.uncountable) > 0 {
		ev["uncounted"] = check.Cap(tc.uncountable, 50)
		why = append(why, fmt.Sprintf("the tests of %s cannot be counted as functions", check.List(tc.uncountable, 5)))
	}
	if len(tc.unknown) > 0 {
		ev["unknown"] = check.Cap(tc.unknown, 50)
		why = append(why, fmt.Sprintf("%s may hold tests in a layout vouch does not count", check.List(tc.unknown, 5)))
	}
	if len(tc.modified) > 0 {
		ev["modified"] = check.Cap(tc.modified, 50)
		why = append(why, fmt.Sprintf("the existing tests %s changed and may have gained cases", check.List(tc.modified, 5)))
	}
	if len(tc.tables) > 0 {
		ev["tables"] = check.Cap(tc.tables, 50)
		why = append(why, fmt.Sprintf("%s gained subtests or tables of cases", check.List(tc.tables, 5)))
	}
	if len(why) > 0 {
		o := vouch.Undecided(vouch.CodeCountUndecided, fmt.Sprintf("the claim %q cannot be checked: the changes add %s, but %s", c.Text, plural.Count(len(tc.added), "test function"), strings.Join(why, "; ")))
		o.Evidence = ev
		return result("claims.count", o)
	}
	msg := fmt.Sprintf("the summary claims %q, but the changes since the base add %s", c.Text, plural.Count(len(tc.added), "test function"))
	if len(tc.added) > 0 {
		msg += " (" + check.List(tc.added, 10) + ")"
	}
	o := vouch.Outcome{Status: vouch.StatusFail, Score: float64(len(tc.added)) / float64(n), Code: vouch.CodeCountMismatch, Reason: msg, Evidence: ev}
	return result("claims.count", o)
}
