package claimtext

import (
	"fmt"
	"strings"
	"testing"
)

// stmt writes a statement as the table of TestStatements gives it:
// "kind action: text".
func stmt(st Statement) string { return fmt.Sprintf("%s %s: %s", st.Kind, st.Action, st.Text) }

// TestStatements reads summaries of work (an agent's report, a pull
// request's description, a commit message) into the claims the ledger
// lists: what each clause claims, of which kind, by which action.
func TestStatements(t *testing.T) {
	for _, tt := range []struct {
		summary string
		want    []string
	}{
		{"Added ParseRange to ranges.py. All tests pass.", []string{"symbol add: Added ParseRange to ranges.py", "tests pass: All tests pass"}},
		// A change and what it makes the code do is behaviour.
		{"I've updated config.go so that Load reads the timeout from the SVC_TIMEOUT environment variable.", []string{
			"behaviour update: I've updated config.go so that Load reads the timeout from the SVC_TIMEOUT environment variable"}},
		{"mean now returns 0 for an empty list.\nAll 2 tests pass.", []string{"behaviour : mean now returns 0 for an empty list", "tests pass: All 2 tests pass"}},
		{"Fixed Abs in abs.go for negative inputs, and go test ./... is green.", []string{"behaviour fix: Fixed Abs in abs.go for negative inputs", "tests pass: go test ./... is green"}},
		{"Removed the deprecated old_parse helper from utils.py; nothing called it any more.", []string{"symbol delete: Removed the deprecated old_parse helper from utils.py"}},
		{"Renamed src/utils.js to src/helpers.js and updated the import in src/main.js.", []string{"file rename: Renamed src/utils.js to src/helpers.js", "file update: updated the import in src/main.js"}},
		{"The test suite is green now (2 passed) after the change to slug.py.", []string{"tests pass: The test suite is green now (2 passed) after the change to slug.py"}},
		{"Words in wc.go now uses strings.Fields. I ran the tests and they all pass.", []string{
			"behaviour : Words in wc.go now uses strings.Fields", "tests run: I ran the tests", "tests pass: they all pass"}},
		{"Everything looks correct. I'm ready to submit.", []string{"completion : Everything looks correct", "completion : I'm ready to submit"}},
		{"Committed and pushed to origin/main. The working tree is clean.", []string{"git commit: Committed", "git commit: pushed to origin/main", "git : The working tree is clean"}},
		{"Done!", []string{"completion complete: Done"}},
		// A completion word says the work is done only as the clause's
		// complement: "in place" after a verb with an object says what
		// code does.
		{"The fix is in place. It now keeps blank lines in place. Status: done.", []string{
			"completion : The fix is in place", "behaviour : It now keeps blank lines in place", "completion complete: done"}},
		// Intentions, conditions, instructions, gaps and denials claim
		// nothing; nor does a lead that speaks of the text.
		{"## Summary of changes\n- Added `parse` to parser.go\n- Let me know if you need anything else.\n\nI will add docs next.", []string{"symbol add: Added `parse` to parser.go"}},
		{"If the tests fail, run make clean. Run `go test ./...` to check.", nil},
		{"3 methods remain undocumented. I could not run the tests because the network is down.", nil},
		{"Added X to a.go. Add `FOO=1` to your env to try it.", []string{"file add: Added X to a.go"}},
		{"Next steps:\n- add docs to `b.go`", nil},
		// A heading or a label is no claim.
		{"### Testing\nRan `go test ./...` and all 3 tests pass.", []string{"command run: Ran `go test ./...`", "tests pass: all 3 tests pass"}},
		{"Running the tests now.", nil},
		// A text written wholly in the imperative, as commit messages and
		// pull requests are, claims by it.
		{"Fix the timeout default in config.go and add ParseDuration.", []string{"behaviour fix: Fix the timeout default in config.go and add ParseDuration"}},
		{"feat(timeutil): add ParseDuration\n\n- new function `ParseDuration`", []string{"symbol add: add ParseDuration", "symbol add: new function `ParseDuration`"}},
		{"Rename calc_total to order_total\n\nUpdated the only caller (src/main.rs). Add a changelog entry next.", []string{
			"symbol rename: Rename calc_total to order_total", "file update: Updated the only caller (src/main.rs"}},
		// Left alone is a claim of no change; a change cited from another
		// pull request, or a denial, claims nothing.
		{"change `loadConfig` default; `other()` is untouched", []string{"symbol modify: change `loadConfig` default", "symbol keep: `other()` is untouched"}},
		{"Added `ParseDuration`; removed nothing (the old `legacy.go` was removed in #8).", []string{"symbol add: Added `ParseDuration`"}},
		{"Generated with Claude Code", nil},
		// What the code now does, with a verb the lexicon does not know,
		// and a subject that is also a verb.
		{"The parser now rejects empty input. Parse now returns 0 for them.", []string{
			"behaviour : The parser now rejects empty input", "behaviour : Parse now returns 0 for them"}},
		// A feature in words, with no name, is behaviour; a count of things
		// is not.
		{"I've implemented duration parsing.", []string{"behaviour implement: I've implemented duration parsing"}},
		{"Added `parse`, following the pattern of its tests.", []string{"symbol add: Added `parse`, following the pattern of its tests"}},
	} {
		var got []string
		for _, st := range Statements(tt.summary) {
			got = append(got, stmt(st))
			if st.Sentence[st.Start:st.End] != st.Text {
				t.Errorf("%q: Text %q is not Sentence[%d:%d]", tt.summary, st.Text, st.Start, st.End)
			}
		}
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%q:\n got %q\nwant %q", tt.summary, got, tt.want)
		}
	}
}

// TestStatementNames: the names a clause holds, which of them the work
// was done to, and which only describe.
func TestStatementNames(t *testing.T) {
	sts := Statements("Added `ParseRange` to ranges.py, which calls `splitRange`.")
	if len(sts) != 1 {
		t.Fatalf("%d statements", len(sts))
	}
	var got []string
	for _, n := range sts[0].Names {
		got = append(got, fmt.Sprintf("%s file=%v after=%q aside=%v object=%v", n.Text, n.File, n.After, n.Aside, n.Object))
	}
	want := []string{`ParseRange file=false after="" aside=false object=true`, `ranges.py file=true after="to" aside=false object=false`,
		`splitRange file=false after="" aside=true object=false`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("names:\n got %q\nwant %q", got, want)
	}
}

// FuzzStatements: any text reads without a panic, and every statement's
// text is the part of its sentence its offsets say.
func FuzzStatements(f *testing.F) {
	for _, s := range []string{
		"Added ParseRange to ranges.py. All tests pass.",
		"## Summary\n- add `ParseDuration`; `Parse` is untouched\n- [x] Tests added",
		"Next steps:\n- fix `parse`", "Renamed `a` to `b` (the old `c.go` was removed in #8).",
		"`config.go`: added a field; it now rejects empty input, which was failing before.",
		"```\ncode\n```", "((((", "Fixed: ", "I'm ready. Status: done!",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, st := range Statements(s) {
			if st.Start < 0 || st.End > len(st.Sentence) || st.Start > st.End || st.Sentence[st.Start:st.End] != st.Text {
				t.Fatalf("%q: statement %+v", s, st)
			}
		}
	})
}
