package pr

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	_ "github.com/vouchgate/vouch/check/all"
	"github.com/vouchgate/vouch/code/treesitter"
	"github.com/vouchgate/vouch/internal/testws"
	"github.com/vouchgate/vouch/pr/testreport"
)

const (
	parseGo = `package timeutil

// Parse returns the length of s.
func Parse(s string) int { return len(s) }
`
	parseGoHead = parseGo + `
// ParseDuration parses a duration in seconds.
func ParseDuration(s string) int { return 2 * len(s) }
`
	parseTestHead = `package timeutil

import "testing"

func TestParseDuration(t *testing.T) {
	if ParseDuration("ab") != 4 {
		t.Fatal("ParseDuration")
	}
}

func TestParseDurationEmpty(t *testing.T) {
	if ParseDuration("") != 0 {
		t.Fatal("ParseDuration")
	}
}
`
	configGo = `package m

// loadConfig loads the configuration.
func loadConfig() int { return 1 }

// other does something else.
func other() int { return 2 }
`
	configTest = `package m

import "testing"

func TestLoadConfig(t *testing.T) {
	if loadConfig() == 0 {
		t.Fatal("loadConfig")
	}
}
`
)

// prRepo builds a repository whose branch feature is an honest pull
// request into main: it adds ParseDuration and two tests of it, and
// changes loadConfig. After feature branched off, main moved on: it
// changed the README and other, so a diff from main's tip rather than
// from the merge base would show changes feature did not make.
func prRepo(t *testing.T) *testws.Repo {
	t.Helper()
	r := testws.NewRepo(t)
	r.Write(map[string]string{
		"go.mod":            "module example.com/m\n\ngo 1.22\n",
		"timeutil/parse.go": parseGo,
		"config.go":         configGo,
		"config_test.go":    configTest,
		"README.md":         "# m\n",
	})
	r.Commit("base")
	r.Git("checkout", "-q", "-b", "feature")
	r.Write(map[string]string{
		"timeutil/parse.go":      parseGoHead,
		"timeutil/parse_test.go": parseTestHead,
		"config.go":              strings.Replace(configGo, "return 1", "return 3", 1),
	})
	r.Commit("Add ParseDuration")
	r.Git("checkout", "-q", "main")
	r.Write(map[string]string{
		"README.md": "# m\n\nNow documented.\n",
		"config.go": strings.Replace(configGo, "return 2", "return 20", 1),
	})
	r.Commit("main moves on")
	return r
}

// goReport is a go test -json stream of the feature branch's tests;
// failing makes TestParseDurationEmpty fail.
func goReport(t *testing.T, failing bool) TestReport {
	t.Helper()
	last := "pass"
	if failing {
		last = "fail"
	}
	stream := `{"Action":"run","Package":"example.com/m","Test":"TestLoadConfig"}
{"Action":"pass","Package":"example.com/m","Test":"TestLoadConfig"}
{"Action":"pass","Package":"example.com/m"}
{"Action":"run","Package":"example.com/m/timeutil","Test":"TestParseDuration"}
{"Action":"pass","Package":"example.com/m/timeutil","Test":"TestParseDuration"}
{"Action":"run","Package":"example.com/m/timeutil","Test":"TestParseDurationEmpty"}
{"Action":"output","Package":"example.com/m/timeutil","Test":"TestParseDurationEmpty","Output":"    parse_test.go:12: ParseDuration\n"}
{"Action":"` + last + `","Package":"example.com/m/timeutil","Test":"TestParseDurationEmpty"}
{"Action":"` + last + `","Package":"example.com/m/timeutil"}
`
	rep, err := testreport.Parse([]byte(stream))
	if err != nil {
		t.Fatal(err)
	}
	return TestReport{Name: "test.json", Report: rep}
}

func junitReport(t *testing.T) TestReport {
	t.Helper()
	rep, err := testreport.Parse([]byte(`<testsuites><testsuite name="example.com/m/timeutil" tests="2" failures="0">
<testcase classname="timeutil" name="TestParseDuration"/><testcase classname="timeutil" name="TestParseDurationEmpty"/>
</testsuite><testsuite name="example.com/m" tests="1"><testcase classname="m" name="TestLoadConfig"/></testsuite></testsuites>`))
	if err != nil {
		t.Fatal(err)
	}
	return TestReport{Name: "junit.xml", Report: rep}
}

func verify(t *testing.T, r *testws.Repo, desc string, tests ...TestReport) *Result {
	t.Helper()
	res, err := Verify(context.Background(), Options{Repo: r.Dir, Base: "main", Head: "feature", Description: desc, Tests: tests})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// describe lists a report's failed and undecided checks, for messages.
func describe(rep *vouch.Report) string {
	var b strings.Builder
	b.WriteString(string(rep.Verdict) + ": " + rep.Reason + "\n")
	for _, c := range rep.Checks {
		b.WriteString("  " + string(c.Status) + " " + c.Name + " " + c.Code + ": " + c.Reason + "\n")
	}
	for _, m := range rep.Mentions.Unverified {
		b.WriteString("  unverified " + string(m.Kind) + " " + m.Text + "\n")
	}
	for _, c := range rep.Claims {
		b.WriteString("  claim " + c.ID + " " + string(c.State) + " " + string(c.Kind) + " " + strconv.Quote(c.Text) + ": " + c.Reason + "\n")
	}
	return b.String()
}

// TestHonestDescriptions checks that descriptions that say truly what the
// pull request does are never sent back (the worst a gate can do is send
// back honest work), and that every claim the diff and the test run can
// show is verified: a description passes when all its claims are, and is
// unverified when it says what only a test or a judge could show (what a
// function returns, tests passing with no run given).
func TestHonestDescriptions(t *testing.T) {
	r := prRepo(t)
	for _, tt := range []struct {
		name  string
		desc  string
		tests []TestReport
		// unverified is the number of mentions no evidence can show
		// (grounding then scores less, and the verdict must still pass).
		unverified int
		// open are the claims (a part of their text) that stay
		// unverified: what only a test or a judge could show. Every other
		// claim must be verified.
		open []string
	}{
		{"summary and tests", `## Summary
- Added ` + "`ParseDuration`" + ` to ` + "`timeutil/parse.go`" + `
- Updated ` + "`loadConfig`" + ` in ` + "`config.go`" + ` to read the new timeout

## Tests
- Added 2 tests: ` + "`TestParseDuration`" + ` and ` + "`TestParseDurationEmpty`" + `
- All tests pass (` + "`go test ./...`" + `)
`, []TestReport{goReport(t, false)}, 0, nil},
		{"an agent's prose", `I've implemented duration parsing.

### Changes
* ` + "`timeutil/parse.go`" + `: new ` + "`ParseDuration`" + ` function that returns the duration in seconds
* ` + "`config.go`" + `: ` + "`loadConfig`" + ` now returns the new default

### Testing
Ran ` + "`go test ./...`" + ` and all 3 tests pass. Added 2 new tests in ` + "`timeutil/parse_test.go`" + `.

Closes #12.`, []TestReport{goReport(t, false)}, 0, []string{"implemented duration parsing", "returns the duration in seconds", "now returns the new default"}},
		{"a template", `<!-- Describe your changes. Make sure all 40 tests pass and update CHANGELOG.md! -->
## What
Adds duration parsing to the timeutil package.

## Checklist
- [x] Tests added
- [ ] Updated ` + "`docs/guide.md`" + `
- [x] All tests pass
`, []TestReport{junitReport(t)}, 0, nil},
		{"terse", "Fix the timeout default in config.go and add ParseDuration.", nil, 0, []string{"Fix the timeout default"}},
		{"a conventional commit", "feat(timeutil): add ParseDuration\n\n- new function `ParseDuration`\n- tests for the empty string and a two-letter input\n- bump the `loadConfig` default", nil, 0, nil},
		{"a numbered summary", "Summary of changes:\n1. Added `ParseDuration` function in `timeutil/parse.go` (returns 2x the length)\n2. Modified `config.go`: `loadConfig()` returns 3\n" +
			"3. Created `timeutil/parse_test.go` with 2 test cases\n\nVerification: ran `go test ./...`, 3 tests passed, 0 failed.", []TestReport{goReport(t, false)}, 0, []string{"returns 2x the length", "returns 3"}},
		{"a generated footer", "## Summary\n- add `ParseDuration`, following the pattern of `TestLoadConfig` for its tests\n- change `loadConfig` default; `Parse` and `other()` are untouched\n\n" +
			"## Test plan\n- [x] `go test ./...`\n\n🤖 Generated with [Claude Code](https://claude.com/claude-code)\n\nCo-authored-by: Claude <noreply@anthropic.com>", []TestReport{goReport(t, false)}, 0, nil},
		{"references", "Added `ParseDuration` to `timeutil/parse.go`; removed nothing (the old `timeutil/legacy.go` was removed in #8).\n\n" +
			"## References\n- Issue: https://github.com/example/m/issues/41\n- Design: [durations](https://github.com/example/m/wiki/Durations)\n" +
			"- Go docs: https://pkg.go.dev/time#ParseDuration\n- CI: <https://ci.example.com/runs/123>\n", nil, 1, nil},
		{"tests claimed, no report given", "Added `ParseDuration` with tests; all tests pass.", nil, 0, []string{"all tests pass"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := verify(t, r, tt.desc, tt.tests...)
			want := vouch.VerdictPass
			if len(tt.open) > 0 {
				want = vouch.VerdictUnverified
			}
			if res.Report.Verdict != want {
				t.Errorf("an honest description was %s, want %s:\n%s", res.Report.Verdict, want, describe(res.Report))
			}
			open := map[string]bool{}
			for _, c := range res.Report.Claims {
				i := slices.IndexFunc(tt.open, func(o string) bool { return strings.Contains(c.Text, o) })
				switch {
				case i >= 0 && c.State == vouch.ClaimUnverified:
					open[tt.open[i]] = true
				case c.State != vouch.ClaimVerified:
					t.Errorf("claim %q is %s: %s", c.Text, c.State, c.Reason)
				}
			}
			for _, o := range tt.open {
				if !open[o] {
					t.Errorf("no unverified claim says %q:\n%s", o, describe(res.Report))
				}
			}
			for _, c := range res.Report.Checks {
				if c.Status == vouch.StatusFail && !(c.Name == "grounding.mentions" && tt.unverified > 0) {
					t.Errorf("failed check on an honest description: %s %s", c.Name, c.Reason)
				}
			}
			if n := len(res.Report.Mentions.Unverified); n != tt.unverified {
				t.Errorf("%d unverified mentions, want %d:\n%s", n, tt.unverified, describe(res.Report))
			}
		})
	}
}

// TestDescriptionsThatClaimMore checks that each way a description can
// claim more than its diff and test run show is caught, by the check that
// should catch it.
func TestDescriptionsThatClaimMore(t *testing.T) {
	r := prRepo(t)
	for _, tt := range []struct {
		name  string
		desc  string
		tests []TestReport
		check string // the check that must fail
		code  string
		says  string // a part of its reason
	}{
		{"a file not changed", "- Added `ParseDuration` to `timeutil/parse.go`\n- Updated `README.md` with usage", nil,
			"claims.git", vouch.CodeNoChange, "README.md"},
		{"a function not touched", "- Added `ParseDuration`\n- Refactored `other` in config.go to share the parser", nil,
			"claims.symbol", vouch.CodeSymbolUnchanged, "other is defined at config.go"},
		{"more tests than added", "Added `ParseDuration`. Added 3 tests for it.", nil,
			"claims.count", vouch.CodeCountMismatch, "add 2 test functions"},
		{"tests pass, but one fails", "Added `ParseDuration` and its tests. All tests pass.", []TestReport{goReport(t, true)},
			"claims.tests", vouch.CodeTestClaimContradicted, "failed"},
		{"no behaviour change, but the logic changed", "Added doc comments. No behaviour change.", nil,
			"claims.behaviour", vouch.CodeBehaviourChanged, "config.go:4, in loadConfig"},
		{"a function written nowhere", "Added `ParseDuration` and `FormatDuration` to `timeutil/parse.go`.", nil,
			"claims.symbol", vouch.CodeSymbolMissing, "no parsed file defines FormatDuration"},
		{"more tests pass than ran", "Added `ParseDuration`; all 5 tests pass.", []TestReport{goReport(t, false)},
			"claims.count", vouch.CodeCountMismatch, "shows 3 passing"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := verify(t, r, tt.desc, tt.tests...)
			rep := res.Report
			if rep.Verdict == vouch.VerdictPass {
				t.Errorf("a description that claims more than its diff passed:\n%s", describe(rep))
			}
			found := false
			for _, c := range rep.Checks {
				if c.Name == tt.check && c.Status == vouch.StatusFail && c.Code == tt.code && strings.Contains(c.Reason, tt.says) {
					found = true
				}
			}
			if !found {
				t.Errorf("no failed %s check (%s) saying %q:\n%s", tt.check, tt.code, tt.says, describe(rep))
			}
		})
	}
}

// TestNoBehaviourChange checks "no behaviour change" on pull requests
// that change comments and tests only (pass), and code vouch cannot parse
// (undecided, never failed).
func TestNoBehaviourChange(t *testing.T) {
	r := testws.NewRepo(t)
	r.Write(map[string]string{"config.go": configGo, "config_test.go": configTest, "lib/app.ex": "defmodule App do\nend\n", "README.md": "# m\n"})
	r.Commit("base")
	r.Git("checkout", "-q", "-b", "docs")
	r.Write(map[string]string{
		"config.go":      strings.Replace(configGo, "// loadConfig loads the configuration.", "// loadConfig loads the configuration from the\n// environment, with defaults.", 1),
		"config_test.go": configTest + "\nfunc TestOther(t *testing.T) {\n\tif other() != 2 {\n\t\tt.Fatal(\"other\")\n\t}\n}\n",
		"README.md":      "# m\n\nConfiguration comes from the environment.\n",
	})
	r.Commit("docs")
	r.Git("checkout", "-q", "-b", "elixir")
	r.Write(map[string]string{"lib/app.ex": "defmodule App do\n  def hi, do: :hi\nend\n"})
	r.Commit("elixir")

	res, err := Verify(context.Background(), Options{Repo: r.Dir, Base: "main", Head: "docs",
		Description: "Documented `loadConfig` better, added `TestOther` and a README note. No behaviour change."})
	if err != nil {
		t.Fatal(err)
	}
	if c := find(res.Report, "claims.behaviour"); c == nil || c.Status != vouch.StatusPass {
		t.Errorf("comments and tests only: %v\n%s", c, describe(res.Report))
	}
	if res.Report.Verdict != vouch.VerdictPass {
		t.Errorf("verdict %s:\n%s", res.Report.Verdict, describe(res.Report))
	}

	res, err = Verify(context.Background(), Options{Repo: r.Dir, Base: "docs", Head: "elixir", Description: "Tidy `App`: no behaviour change."})
	if err != nil {
		t.Fatal(err)
	}
	if c := find(res.Report, "claims.behaviour"); c == nil || c.Status != vouch.StatusUndecided || !strings.Contains(c.Reason, "lib/app.ex") {
		t.Errorf("code no parser reads: %v\n%s", c, describe(res.Report))
	}
}

func find(rep *vouch.Report, name string) *vouch.CheckResult {
	for i := range rep.Checks {
		if rep.Checks[i].Name == name {
			return &rep.Checks[i]
		}
	}
	return nil
}

// TestVerifyInputs checks the inputs Verify refuses, and that the
// checkout is removed whatever happens.
func TestVerifyInputs(t *testing.T) {
	r := prRepo(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		opts Options
		path string // of the *vouch.Error
	}{
		{"no base", Options{Repo: r.Dir, Description: "x"}, "base"},
		{"an option as base", Options{Repo: r.Dir, Base: "--output=/tmp/pwned", Description: "x"}, "base"},
		{"an unknown head", Options{Repo: r.Dir, Base: "main", Head: "nosuch", Description: "x"}, "head"},
		{"a head of two lines", Options{Repo: r.Dir, Base: "main", Head: "feature\nmain", Description: "x"}, "head"},
		{"an empty description", Options{Repo: r.Dir, Base: "main", Description: "  \n"}, "description"},
		{"only a comment", Options{Repo: r.Dir, Base: "main", Description: "<!-- fill me in -->\n- [ ] tests pass\n"}, "description"},
		{"too long a description", Options{Repo: r.Dir, Base: "main", Description: strings.Repeat("x", MaxDescriptionBytes+1)}, "description"},
	} {
		_, err := Verify(ctx, tt.opts)
		var ve *vouch.Error
		if !asError(err, &ve) || ve.Path != tt.path {
			t.Errorf("%s: %v, want an input error at %q", tt.name, err, tt.path)
		}
	}
	if _, err := os.Stat("/tmp/pwned"); err == nil {
		t.Error("a ref reached git as an option")
	}
	// Head defaults to HEAD (main here): main's own changes since the
	// merge base with itself are none.
	res, err := Verify(ctx, Options{Repo: r.Dir, Base: "main", Description: "Nothing changed."})
	if err != nil || res.Head != res.Base || len(res.Files) != 0 {
		t.Errorf("head HEAD: %+v, %v", res, err)
	}
	// A cancelled verification fails and leaves nothing behind.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Verify(cctx, Options{Repo: r.Dir, Base: "main", Head: "feature", Description: "x"}); err == nil {
		t.Error("a cancelled verification succeeded")
	}
	verify(t, r, "Added `ParseDuration`.")
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left in the temporary directory: %v", left)
	}
}

func asError(err error, target **vouch.Error) bool {
	if err == nil {
		return false
	}
	e, ok := err.(*vouch.Error)
	if ok {
		*target = e
	}
	return ok
}

// TestUnrelatedHistories checks that a base with no merge base is an
// error, not a diff of everything.
func TestUnrelatedHistories(t *testing.T) {
	r := prRepo(t)
	r.Git("checkout", "-q", "--orphan", "other")
	r.Git("rm", "-rq", "--cached", ".")
	r.Commit("unrelated")
	_, err := Verify(context.Background(), Options{Repo: r.Dir, Base: "main", Head: "other", Description: "Added things."})
	if err == nil || !strings.Contains(err.Error(), "no common ancestor") {
		t.Errorf("unrelated histories: %v", err)
	}
}

// TestPythonPullRequest checks a Python pull request with a pytest JUnit
// report: the honest description passes; one that claims more tests and
// no behaviour change is sent back. In a build without the Python parser
// (no cgo) those two checks stay undecided rather than fail.
func TestPythonPullRequest(t *testing.T) {
	r := testws.NewRepo(t)
	r.Write(map[string]string{
		"timeutil.py":            "\"\"\"Time helpers.\"\"\"\n\n\ndef parse(s):\n    \"\"\"Length of s.\"\"\"\n    return len(s)\n",
		"tests/test_timeutil.py": "from timeutil import parse\n\n\ndef test_parse():\n    assert parse(\"ab\") == 2\n",
	})
	r.Commit("base")
	r.Git("checkout", "-q", "-b", "feature")
	r.Write(map[string]string{
		"timeutil.py": "\"\"\"Time helpers.\"\"\"\n\n\ndef parse(s):\n    \"\"\"Length of s.\"\"\"\n    return len(s)\n\n\ndef parse_duration(s):\n    \"\"\"Twice the length of s.\"\"\"\n    return 2 * len(s)\n",
		"tests/test_timeutil.py": "from timeutil import parse, parse_duration\n\n\ndef test_parse():\n    assert parse(\"ab\") == 2\n\n\n" +
			"def test_parse_duration():\n    assert parse_duration(\"ab\") == 4\n\n\ndef test_parse_duration_empty():\n    assert parse_duration(\"\") == 0\n",
	})
	r.Commit("parse_duration")
	rep, err := testreport.Parse([]byte(`<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0" failures="0" skipped="0" tests="3">
<testcase classname="tests.test_timeutil" name="test_parse" time="0.001"/>
<testcase classname="tests.test_timeutil" name="test_parse_duration" time="0.001"/>
<testcase classname="tests.test_timeutil" name="test_parse_duration_empty" time="0.001"/></testsuite></testsuites>`))
	if err != nil {
		t.Fatal(err)
	}
	report := TestReport{Name: "junit.xml", Report: rep}
	run := func(desc string) *vouch.Report {
		t.Helper()
		res, err := Verify(context.Background(), Options{Repo: r.Dir, Base: "main", Head: "feature", Description: desc, Tests: []TestReport{report}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Report
	}
	honest := run("## Summary\n- Added `parse_duration` to `timeutil.py`\n- Added 2 tests in `tests/test_timeutil.py`\n\nAll 3 tests pass (`pytest`).")
	if honest.Verdict != vouch.VerdictPass {
		t.Errorf("the honest description was sent back:\n%s", describe(honest))
	}
	lie := run("Added `parse_duration` and 4 tests. All tests pass. No behaviour change.")
	if treesitter.Available && lie.Verdict == vouch.VerdictPass {
		t.Errorf("a description that claims more than its diff passed:\n%s", describe(lie))
	}
	beh, count := find(lie, "claims.behaviour"), (*vouch.CheckResult)(nil)
	for i := range lie.Checks {
		if lie.Checks[i].Name == "claims.count" {
			count = &lie.Checks[i]
		}
	}
	if beh == nil || count == nil {
		t.Fatalf("no behaviour or count check:\n%s", describe(lie))
	}
	want := vouch.StatusFail
	if !treesitter.Available {
		want = vouch.StatusUndecided
	}
	if beh.Status != want || count.Status != want {
		t.Errorf("behaviour %s, count %s; want %s:\n%s", beh.Status, count.Status, want, describe(lie))
	}
}
