package claims

import (
	"context"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
)

// TestWork holds work claimed in plain words (claims.work) against the
// calc workspace: removals, renames, documentation, files and functions
// said to be left alone, and a commit message's imperative.
func TestWork(t *testing.T) {
	renamed := strings.Replace(goBase, "func Sub(", "func Subtract(", 1)
	runDiffCases(t, workAnalyzer{}, []diffCase{
		{"a function removed", map[string]string{"helper.go": "package calc\n"}, "Removed the unused `Helper` function from helper.go.",
			map[string]wantCheck{"claims.removed": {vouch.StatusPass, "defined Helper at the base and no longer does"}}},
		{"a function said removed, still there", map[string]string{"calc.go": strings.Replace(goBase, "a + b", "b + a", 1)}, "Removed the unused `Helper` function from helper.go.",
			map[string]wantCheck{"claims.removed": {vouch.StatusFail, "helper.go still defines Helper"}}},
		// A name written as a plain word is not read as code: the file
		// the work was done in is all the clause names.
		{"a function removed, named in plain words", map[string]string{"helper.go": "package calc\n"}, "Removed the unused Helper function from helper.go.",
			map[string]wantCheck{"claims.git": {vouch.StatusPass, "git shows helper.go changed"}}},
		{"a function renamed", map[string]string{"calc.go": renamed}, "Renamed `Sub` to `Subtract` in calc.go.",
			map[string]wantCheck{"claims.renamed": {vouch.StatusPass, "calc.go defines Subtract and no file defines Sub any more"}}},
		// A class in a file no parser reads: its text says whether it is
		// still defined, now or at the base.
		{"a Ruby class said removed, still there", map[string]string{"lib/app.rb": "class App\nend\n", "lib/legacy.rb": "class LegacyImporter\n  def run; end\nend\n"},
			"Removed the old `LegacyImporter` (lib/legacy.rb) along with its require in lib/app.rb.",
			map[string]wantCheck{"claims.removed": {vouch.StatusFail, "lib/legacy.rb:1 still defines LegacyImporter (its text does"}}},
		// A call the rename missed: the old name, which nothing defines
		// any more, is still called. A string or a comment that names it,
		// or a line that keeps it as an alias, is no call.
		{"a rename that missed a call", map[string]string{"calc.go": renamed, "use.go": "package calc\n\n// Twice calls Sub, the old name.\nfunc Twice(a int) int { return Sub(a, -a) }\n"},
			"Renamed `Sub` to `Subtract` in calc.go.",
			map[string]wantCheck{"claims.renamed": {vouch.StatusFail, "code still calls or imports Sub, which nothing defines: use.go:4"}}},
		{"a rename, the old name in a string", map[string]string{"calc.go": renamed, "use.go": "package calc\n\n// Sub( was the old name.\nvar note = \"use Sub() no more\"\n"},
			"Renamed `Sub` to `Subtract` in calc.go.",
			map[string]wantCheck{"claims.renamed": {vouch.StatusPass, "calc.go defines Subtract and no file defines Sub any more"}}},
		{"a function said renamed, not", map[string]string{"helper.go": "package calc\n\n// Helper helps.\nfunc Helper() int { return 2 }\n"}, "Renamed `Sub` to `Subtract` in calc.go.",
			map[string]wantCheck{"claims.renamed": {vouch.StatusFail, "calc.go still defines Sub and nothing defines Subtract"}}},
		{"a file removed", map[string]string{"calc.go": renamed}, "Removed helper.go.",
			map[string]wantCheck{"claims.deleted": {vouch.StatusFail, "helper.go still exists"}}},
		{"a function documented", map[string]string{"calc.go": strings.Replace(goBase, "// Sub subtracts.", "// Sub subtracts b from a,\n// and may go below zero.", 1)}, "Documented `Sub` better.",
			map[string]wantCheck{"claims.symbol": {vouch.StatusPass, "Sub changed"}}},
		// "Changed `Sub`" is the count claim's to hold (claims.code).
		{"a function left alone", map[string]string{"calc.go": strings.Replace(goBase, "a - b", "a - b - 0", 1)}, "Changed `Sub`; `Add` is untouched.",
			map[string]wantCheck{"claims.kept": {vouch.StatusPass, "no change since the base touches Add"}}},
		{"a function said left alone, touched", map[string]string{"calc.go": strings.Replace(goBase, "a + b", "b + a", 1)}, "Changed `Sub`; `Add` is untouched.",
			map[string]wantCheck{"claims.kept": {vouch.StatusUndecided, "a change since the base touches Add"}}},
		{"a file said unchanged, changed by another", map[string]string{"helper.go": "package calc\n\n// Helper helps.\nfunc Helper() int { return 2 }\n"}, "`helper.go` is unchanged.",
			map[string]wantCheck{"claims.kept": {vouch.StatusUndecided, "but git shows helper.go changed since the base"}}},
		{"a commit message", map[string]string{"calc.go": goBase + "\n// Mul multiplies.\nfunc Mul(a, b int) int { return a * b }\n"}, "Add `Mul` to calc.go",
			map[string]wantCheck{"claims.symbol": {vouch.StatusPass, "Mul added"}}},
		// After a report in the past, an imperative instructs: `Div`,
		// written nowhere, is not held against the work.
		{"an instruction after a report", map[string]string{"calc.go": goBase + "\n// Mul multiplies.\nfunc Mul(a, b int) int { return a * b }\n"}, "Added `Mul` to calc.go. Add `Div` to calc.go next.",
			map[string]wantCheck{}},
	})
}

// TestReferencesOld: the lines that still call or import a renamed
// symbol's old name.
func TestReferencesOld(t *testing.T) {
	for line, want := range map[string]int{
		`  const user = getUserById(id);`:                    refCall,
		`import { getUserById, removeUser } from "./users";`: refImport,
		`  const user = getUserByIdOrNull(id);`:              refNone,
		`  // getUserById(id) was the old name`:              refNone,
		`  log("getUserById(id) is gone");`:                  refNone,
		`export { findUser as getUserById };`:                refNone, // an alias keeps it on purpose
		`  const f = getUserById;`:                           refNone, // no call
		"  x := `getUserById(` + y":                          refNone,
		`  return getUserById (id)`:                          refCall,
		`  a = "x"; getUserById(1)`:                          refCall,
		`const { getUserById } = require("./users");`:        refImport,
		`  defer store.getUserById(1)`:                       refNone, // a method of another value
	} {
		if got := referencesOld(line, "getUserById", "findUser"); got != want {
			t.Errorf("referencesOld(%q) = %v, want %v", line, got, want)
		}
	}
}

// TestWorkWithoutBase holds a file claimed changed against the trace's
// writes when there is no base: a write that stays is the change; writes
// that undid each other, or none at all, decide nothing.
func TestWorkWithoutBase(t *testing.T) {
	sed := func(expr string) vouch.TraceEntry {
		return bash("sed -i '"+expr+"' lib/matplotlib/text.py", "", false)
	}
	for _, tt := range []struct {
		name    string
		summary string
		trace   []vouch.TraceEntry
		want    vouch.Status // "" for no check
	}{
		{"a write that stays", "Modified `lib/matplotlib/text.py`: convert `xy` to a tuple.",
			[]vouch.TraceEntry{sed("s/self.xy = xy/self.xy = tuple(xy)/")}, vouch.StatusPass},
		{"named by its base name", "Fixed the bug in text.py.",
			[]vouch.TraceEntry{sed("s/self.xy = xy/self.xy = tuple(xy)/")}, vouch.StatusPass},
		{"writes that undid each other", "Modified `lib/matplotlib/text.py`.",
			[]vouch.TraceEntry{sed("s/self.xy = xy/self.xy = tuple(xy)/"), sed("s/self.xy = tuple(xy)/self.xy = xy/")}, vouch.StatusUndecided},
		{"a file the trace never wrote", "Modified `lib/matplotlib/offsetbox.py`.",
			[]vouch.TraceEntry{sed("s/self.xy = xy/self.xy = tuple(xy)/")}, ""},
	} {
		pol := vouch.DefaultPolicy()
		s := &vouch.Subject{Request: &vouch.Request{Output: vouch.Output{Summary: tt.summary}, Trace: tt.trace}, Policy: &pol}
		var f vouch.Findings
		if err := (workAnalyzer{}).Analyze(context.Background(), s, &f); err != nil {
			t.Fatal(err)
		}
		var got vouch.Status
		for _, c := range f.Checks {
			got = c.Status
		}
		if got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}
