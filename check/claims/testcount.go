package claims

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/text/claimtext"
	"github.com/vouchgate/vouch/trace/testrun"
)

// countedRun is a last test run with what it printed about passing tests.
type countedRun struct {
	run      testRun
	n, extra int
	what     string // what the extra are: "doctests", "subtests"
	known    bool
}

// totals returns the totals a reader may take from the run: its tests,
// and its tests with its doctests (or subtests).
func (c countedRun) totals() []int {
	if c.extra > 0 {
		return []int{c.n, c.n + c.extra}
	}
	return []int{c.n}
}

// testCounts holds each claimed number of passing tests ("all 12 tests
// pass", "all 15 SessionLive tests pass") against the run or runs it is
// about; see testCount.
func testCounts(req *vouch.Request, claims []claimtext.TestClaim, last []testRun) []vouch.CheckResult {
	runs := make([]countedRun, len(last))
	for i, r := range last {
		runs[i] = countedRun{run: r, n: r.run.Passed, extra: r.run.Extra, what: r.run.ExtraWhat, known: r.run.Counted}
	}
	if !slices.ContainsFunc(runs, func(r countedRun) bool { return r.known }) {
		return nil
	}
	var out []vouch.CheckResult
	seen := map[string]bool{}
	for i := range claims {
		c := &claims[i]
		key := strconv.Itoa(c.Count) + "\x00" + strings.Join(c.Scope, "\x00")
		if !c.Passed || c.Count <= 0 || seen[key] {
			continue
		}
		seen[key] = true
		r := testCount(c, runs)
		r.Claims = []vouch.ClaimRef{vouch.SummaryRef(vouch.ClaimTests, c.Text, c.Sentence)}
		out = append(out, r)
	}
	return out
}

// testCount holds one claimed count against the runs it is about: those
// its scope names ("SessionLive" names a run of session_live_test.exs or
// a runner called so), or, without a scope, every last run. The claim
// holds when one of those runs, or the full-suite runs together, show
// exactly the claimed number passing. It fails only on a mismatch vouch
// is sure of: the scope names exactly one run and that run shows another
// number, or the claim is more than all the runs it can be about show
// together. Anything else (a run that printed no count, a count vouch can
// attribute only in part) leaves it undecided: a runner's count is
// compared with the runs of that runner and scope, never with a sum of
// unrelated ones.
func testCount(c *claimtext.TestClaim, runs []countedRun) vouch.CheckResult {
	about := runs
	if len(c.Scope) > 0 {
		about = nil
		for _, r := range runs {
			if scopeNames(c.Scope, r.run.run) {
				about = append(about, r)
			}
		}
	}
	ev := map[string]any{"claim": c.Text, "claimed": c.Count}
	if len(c.Scope) > 0 {
		ev["scope"] = strings.Join(c.Scope, " ")
	}
	var shown []string
	for _, r := range about {
		if r.known {
			shown = append(shown, fmt.Sprintf("%s: %s", r.run.command, showTotals(r)))
		}
	}
	if len(shown) > 0 {
		ev["runs"] = shown
	}
	// One run, or the full-suite runs together, show the claimed number.
	for _, r := range about {
		if r.known && slices.Contains(r.totals(), c.Count) {
			ev["found"] = c.Count
			return result("claims.count", vouch.Pass(fmt.Sprintf("the claim %q holds: the last run of %q shows %d passing", c.Text, r.run.command, c.Count), ev))
		}
	}
	su := summarize(about)
	if slices.Contains(su.sums, c.Count) {
		ev["found"] = c.Count
		return result("claims.count", vouch.Pass(fmt.Sprintf("the claim %q holds: the full-suite runs together show %d passing", c.Text, c.Count), ev))
	}
	undecided := func(why string) vouch.CheckResult {
		o := vouch.Undecided(vouch.CodeCountMismatch, fmt.Sprintf("the claim %q cannot be tied to one test run: %s", c.Text, why))
		o.Evidence = ev
		return result("claims.count", o)
	}
	if len(about) == 0 {
		return undecided(fmt.Sprintf("no test run is of %q", strings.Join(c.Scope, " ")))
	}
	most, full := su.most, su.full
	tied := len(about) == 1 && (len(c.Scope) > 0 || len(runs) == 1)
	if !tied && full != nil && full.known && !c.Qualified {
		// An unqualified count ("all 97 tests pass") of a project whose
		// one runner ran its whole suite is a count of that run, which
		// holds the runner's other runs.
		about, tied = []countedRun{*full}, true
	}
	if !tied && su.unknown {
		return undecided("a run it may be about printed no count")
	}
	if tied && !about[0].known {
		return undecided("the run it is about printed no count")
	}
	if !tied && c.Count <= most {
		return undecided(fmt.Sprintf("the runs it may be about show %s passing, and it may count a part of them", strings.Join(shown, "; ")))
	}
	if tied {
		ev["found"] = about[0].n
		o := vouch.Outcome{Status: vouch.StatusFail, Score: ratio(about[0].n, c.Count), Code: vouch.CodeCountMismatch,
			Reason: fmt.Sprintf("the summary claims %q, but the last run of %q shows %s passing", c.Text, about[0].run.command, showTotals(about[0])), Evidence: ev}
		return result("claims.count", o)
	}
	ev["found"] = most
	o := vouch.Outcome{Status: vouch.StatusFail, Score: ratio(most, c.Count), Code: vouch.CodeCountMismatch,
		Reason: fmt.Sprintf("the summary claims %q, but all the test runs it may be about show at most %d passing together", c.Text, most), Evidence: ev}
	return result("claims.count", o)
}

// suites is what the runs a count may be about show together.
type suites struct {
	// most is the most tests they can show passing: per runner, its
	// full-suite run (which holds its other runs), else the sum of its
	// runs, each with its doctests.
	most int
	// full is the full-suite run when the runs are of one runner that ran
	// its whole suite, else nil.
	full *countedRun
	// sums are the full-suite runs (no paths, no selecting flags) of two
	// or more runners added up, without and with doctests; nil when there
	// are fewer or one printed no count.
	sums []int
	// unknown is set when a run printed no count.
	unknown bool
}

func summarize(runs []countedRun) suites {
	type perRunner struct {
		sum  int
		full *countedRun
	}
	var su suites
	by := map[string]*perRunner{}
	var order []string
	for i := range runs {
		r := &runs[i]
		su.unknown = su.unknown || !r.known
		name := r.run.run.Runner
		p := by[name]
		if p == nil {
			p = &perRunner{}
			by[name] = p
			order = append(order, name)
		}
		p.sum += r.n + r.extra
		if len(r.run.run.Scope) == 0 {
			p.full = r // a run of the whole suite
		}
	}
	plain, all, fulls, complete := 0, 0, 0, true
	for _, name := range order {
		p := by[name]
		if p.full == nil {
			su.most += p.sum
			continue
		}
		su.most += p.full.n + p.full.extra
		plain += p.full.n
		all += p.full.n + p.full.extra
		fulls++
		complete = complete && p.full.known
	}
	if len(order) == 1 {
		su.full = by[order[0]].full
	}
	if fulls >= 2 && complete {
		su.sums = []int{plain, all}
	}
	return su
}

func showTotals(r countedRun) string {
	if r.extra > 0 {
		return fmt.Sprintf("%d (and %d %s)", r.n, r.extra, r.what)
	}
	return strconv.Itoa(r.n)
}

func ratio(found, claimed int) float64 {
	if claimed <= 0 || found >= claimed {
		return 0
	}
	return float64(max(found, 0)) / float64(claimed)
}

// scopeNames reports whether a run is of the scope a count names: the
// runner's own name ("Vitest"), or paths that all name it ("SessionLive"
// names test/live/session_live_test.exs). Names are compared in lower
// case with separators dropped.
func scopeNames(scope []string, r testrun.Run) bool {
	runner := squash(strings.Join(r.Argv[:min(r.Prefix, len(r.Argv))], " ") + " " + r.Runner)
	var paths []string
	for _, p := range r.Scope {
		if !strings.HasPrefix(p, "-") {
			paths = append(paths, p)
		}
	}
	for _, w := range scope {
		w = squash(w)
		if len(w) < 3 {
			continue
		}
		if strings.Contains(runner, w) {
			return true
		}
		if len(paths) == 0 {
			continue
		}
		every := true
		for _, p := range paths {
			if !strings.Contains(squash(p), w) {
				every = false
				break
			}
		}
		if every {
			return true
		}
	}
	return false
}

// squash lowers s and keeps only its letters and digits.
func squash(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 {
			b.WriteRune(r)
		}
	}
	return b.String()
}
