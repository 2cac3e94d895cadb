package claims

import (
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/code/treesitter"
)

const calcTest = `package calc

import "testing"

func TestAdd(t *testing.T) {
	if Add(1, 2) != 3 {
		t.Fatal("Add")
	}
}
`

// diffCase is a change to the calc workspace and a summary of it.
type diffCase struct {
	name    string
	files   map[string]string
	summary string
	// want maps a check name to the status of its check whose reason
	// holds the given text; a name not in it must not appear.
	want map[string]wantCheck
}

type wantCheck struct {
	status vouch.Status
	reason string
}

// runDiffCases runs analyzer a on each case, with the calc workspace
// committed as the base and the case's files as the work.
func runDiffCases(t *testing.T, a vouch.Analyzer, cases []diffCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t)
			r.write("calc.go", goBase)
			r.write("helper.go", "package calc\n\n// Helper helps.\nfunc Helper() int { return 1 }\n")
			r.write("calc_test.go", calcTest)
			base := r.commit("base")
			for name, body := range tt.files {
				r.write(name, body)
			}
			r.commit("work")
			f := analyzeWith(t, a, r.dir, base, tt.summary)
			got := map[string][]vouch.CheckResult{}
			for _, c := range f.Checks {
				got[c.Name] = append(got[c.Name], c)
			}
			for name, w := range tt.want {
				found := false
				for _, c := range got[name] {
					if strings.Contains(c.Reason, w.reason) {
						found = true
						if c.Status != w.status {
							t.Errorf("%s: %s %q; want %s", name, c.Status, c.Reason, w.status)
						}
					}
				}
				if !found {
					t.Errorf("no %s check says %q: %+v", name, w.reason, got[name])
				}
			}
			for name, cs := range got {
				if _, ok := tt.want[name]; !ok {
					t.Errorf("unexpected %s checks: %+v", name, cs)
				}
			}
		})
	}
}

func TestSaidSymbols(t *testing.T) {
	subFixed := strings.Replace(goBase, "return a - b", "return a - b + 0", 1)
	runDiffCases(t, codeAnalyzer{}, []diffCase{
		{"changed as said", map[string]string{"calc.go": subFixed}, "Fixed `Sub` so it handles overflow.",
			map[string]wantCheck{"claims.symbol": {vouch.StatusPass, "git shows Sub changed at calc.go:8-11"}}},
		{"another function changed", map[string]string{"calc.go": strings.Replace(goBase, "return a + b", "return a + b + 0", 1)}, "Updated `Sub` so it handles overflow.",
			map[string]wantCheck{"claims.symbol": {vouch.StatusFail, "Sub is defined at calc.go:8-11 and no change since the base touches it"}}},
		{"a fix in what it calls", map[string]string{"calc.go": strings.Replace(goBase, "return a + b", "return a + b + 0", 1)}, "Fixed `Sub` so it handles overflow.",
			map[string]wantCheck{"claims.symbol": {vouch.StatusUndecided, "a fix may be made in code it calls"}}},
		{"said changed in an unchanged file", map[string]string{"calc.go": subFixed}, "Refactored `Helper` and updated `Sub`.",
			map[string]wantCheck{"claims.symbol": {vouch.StatusFail, "Helper is defined at helper.go:3-4"}}},
		{"a caller changed", map[string]string{"calc.go": strings.Replace(goBase, "return a - b", "return a - b + Helper() - 1", 1)}, "Updated `Helper`.",
			map[string]wantCheck{"claims.symbol": {vouch.StatusUndecided, "name it"}}},
		{"added as said", map[string]string{"mul.go": "package calc\n\n// Mul multiplies.\nfunc Mul(a, b int) int { return a * b }\n"}, "Added `Mul()` to mul.go.",
			map[string]wantCheck{"claims.symbol": {vouch.StatusPass, "git shows Mul added"}}},
		{"said added, there before", map[string]string{"mul.go": "package calc\n\nfunc Mul(a, b int) int { return a * b }\n"}, "Added `Mul` and `Add`.",
			map[string]wantCheck{"claims.symbol": {vouch.StatusFail, "Add was already defined at the base (calc.go:3-6)"}}},
		{"names no parser defines", map[string]string{"calc.go": subFixed}, "Fixed `--verbose` and updated `MAX_RETRIES` and `nosuchthing`.",
			map[string]wantCheck{}},
		{"said added, written nowhere", map[string]string{"mul.go": "package calc\n\nfunc Mul(a, b int) int { return a * b }\n", "config.yaml": "max_retries: 3\n"},
			"Added `Mul`, `FormatDuration` and the `MaxRetries` setting; implemented `LRU` eviction.",
			map[string]wantCheck{"claims.symbol": {vouch.StatusFail, "no parsed file defines FormatDuration"}}},
		{"a doc comment is part of the symbol", map[string]string{"calc.go": strings.Replace(goBase, "// Sub subtracts.", "// Sub subtracts b from a.", 1)}, "Updated `Sub`.",
			map[string]wantCheck{"claims.symbol": {vouch.StatusPass, "Sub changed"}}},
	})
}

func TestAddedTests(t *testing.T) {
	oneMore := calcTest + "\nfunc TestSub(t *testing.T) {\n\tif Sub(3, 2) != 1 {\n\t\tt.Fatal(\"Sub\")\n\t}\n}\n"
	twoMore := oneMore + "\nfunc TestSubZero(t *testing.T) {\n\tif Sub(0, 0) != 0 {\n\t\tt.Fatal(\"Sub\")\n\t}\n}\n"
	runDiffCases(t, codeAnalyzer{}, []diffCase{
		{"as many as said", map[string]string{"calc_test.go": twoMore}, "Added 2 tests for `Sub`.",
			map[string]wantCheck{"claims.count": {vouch.StatusPass, "add 2 test functions"}}},
		{"fewer than said", map[string]string{"calc_test.go": oneMore}, "Added 3 new tests.",
			map[string]wantCheck{"claims.count": {vouch.StatusFail, "add 1 test function (calc_test.go:TestSub)"}}},
		{"a new test file", map[string]string{"sub_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestSub(t *testing.T) {}\n"}, "Wrote 2 tests.",
			map[string]wantCheck{"claims.count": {vouch.StatusFail, "add 1 test function"}}},
		{"subtests", map[string]string{"calc_test.go": calcTest + "\nfunc TestSub(t *testing.T) {\n\tt.Run(\"a\", func(t *testing.T) {})\n\tt.Run(\"b\", func(t *testing.T) {})\n}\n"}, "Added 3 tests.",
			map[string]wantCheck{"claims.count": {vouch.StatusUndecided, "subtests or tables"}}},
		{"an existing test changed", map[string]string{"calc_test.go": strings.Replace(oneMore, "Add(1, 2) != 3", "Add(1, 2) != 3 || Add(2, 2) != 4", 1)}, "Added 2 tests.",
			map[string]wantCheck{"claims.count": {vouch.StatusUndecided, "TestAdd changed"}}},
		{"Python", map[string]string{"tests/test_calc.py": "def test_add():\n    assert 1 + 1 == 2\n\n\nclass TestSub:\n    def test_sub(self):\n        assert 2 - 1 == 1\n"}, "Added 3 tests.",
			map[string]wantCheck{"claims.count": python(wantCheck{vouch.StatusFail, "add 2 test functions"})}},
		{"tests beside the code", map[string]string{"calc_test.go": oneMore, "src/lib.rs": "#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {}\n}\n"}, "Added 3 tests.",
			map[string]wantCheck{"claims.count": {vouch.StatusUndecided, "src/lib.rs cannot be counted"}}},
		{"tests written as calls", map[string]string{"web/calc.test.js": "test('adds', () => {});\n"}, "Added 3 tests.",
			map[string]wantCheck{"claims.count": {vouch.StatusUndecided, "cannot be counted"}}},
		{"a test layout vouch does not know (Django)", map[string]string{"app/tests.py": "from django.test import TestCase\n\nclass LoginTests(TestCase):\n    def test_ok(self):\n        pass\n\n    def test_bad(self):\n        pass\n"}, "Added 2 tests for the login view.",
			map[string]wantCheck{"claims.count": {vouch.StatusUndecided, "app/tests.py may hold tests"}}},
		{"no test file at all", map[string]string{"calc.go": strings.Replace(goBase, "a + b", "a - b + b + a - a", 1)}, "Added 2 tests.",
			map[string]wantCheck{"claims.count": {vouch.StatusFail, "add 0 test functions"}}},
		// Tests said added without a count: at least one.
		{"tests added, no count", map[string]string{"calc_test.go": oneMore}, "- [x] Tests added",
			map[string]wantCheck{"claims.count": {vouch.StatusPass, "the claim \"Tests added\" holds: the changes add 1 test function"}}},
		// Without a count, no test function added leaves the claim
		// undecided: tests come in shapes vouch does not count.
		{"tests added, none written", map[string]string{"calc.go": strings.Replace(goBase, "a + b", "b + a", 1)}, "Changed `Add` and added tests for it.",
			map[string]wantCheck{"claims.count": {vouch.StatusUndecided, "add no test function vouch counts"}, "claims.symbol": {vouch.StatusPass, "Add changed"}}},
	})
}

// python returns w, or, in a build without the Python parser (no cgo),
// the undecided check that a file no parser reads leaves.
func python(w wantCheck) wantCheck {
	if !treesitter.Available {
		return wantCheck{vouch.StatusUndecided, "cannot be counted as functions"}
	}
	return w
}

// TestDiffClaimsNeedABase checks that without a base nothing is held.
func TestDiffClaimsNeedABase(t *testing.T) {
	r := newRepo(t)
	r.write("calc.go", goBase)
	r.commit("base")
	r.write("calc.go", strings.Replace(goBase, "a + b", "a * b", 1))
	f := analyzeWith(t, codeAnalyzer{}, r.dir, "", "Fixed `Sub`. Added 3 tests.")
	if len(f.Checks) != 0 {
		t.Errorf("checks without a base: %+v", f.Checks)
	}
}

// TestAddedNowhereLeniency checks the names a summary says it added that
// are not held against the changes: one the changes hold in another case
// or with separators, and one under four characters.
func TestAddedNowhereLeniency(t *testing.T) {
	r := newRepo(t)
	r.write("calc.go", goBase)
	base := r.commit("base")
	r.write("config.yaml", "max_retries: 3\nlru_size: 10\n")
	r.commit("work")
	f := analyzeWith(t, codeAnalyzer{}, r.dir, base, "Added the `MaxRetries` setting and `LRUSize`; implemented `LRU` eviction.")
	for _, c := range f.Checks {
		if c.Status == vouch.StatusFail {
			t.Errorf("failed: %s %s", c.Name, c.Reason)
		}
	}
}
