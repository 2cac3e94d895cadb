package claims

import (
	"encoding/json"
	"testing"

	"github.com/vouchgate/vouch"
)

// TestTestStaleByContent: a passing run counts for the code it ran on.
// Writes after it that undo each other leave it standing; a write vouch
// cannot replay leaves it undecided, never failed; a real change to a
// test file after it still fails.
func TestTestStaleByContent(t *testing.T) {
	passed := vouch.Output{Summary: "All tests pass.", TestResult: vouch.TestPassed}
	edit := func(p, old, new string) vouch.TraceEntry {
		return vouch.TraceEntry{Tool: "Edit", Input: map[string]any{"file_path": p, "old_string": old, "new_string": new}, Output: json.RawMessage(`"ok"`)}
	}
	run := bash("go test ./...", "ok  \tx\t0.1s", false)
	const (
		debug   = `sed -i 's/want := 3/want := 3; t.Log("debug")/' /w/parser_test.go`
		undebug = `sed -i 's/want := 3; t.Log("debug")/want := 3/' /w/parser_test.go`
	)
	for _, tt := range []struct {
		name  string
		trace []vouch.TraceEntry
		want  string
	}{
		{"a test file changed after and changed back", []vouch.TraceEntry{edit("/w/parser.go", "a", "b"), run, bash(debug, "", false), bash(undebug, "", false)}, "pass:"},
		{"a test file edited and edited back", []vouch.TraceEntry{run, edit("/w/parser_test.go", "x := 1", "x := 2"), edit("/w/parser_test.go", "x := 2", "x := 1")}, "pass:"},
		{"a test file changed after, changed back, changed again", []vouch.TraceEntry{run, bash(debug, "", false), bash(undebug, "", false), edit("/w/parser_test.go", "x := 1", "x := 2")}, "fail:TEST_STALE"},
		{"a test file changed after by another edit", []vouch.TraceEntry{run, bash(debug, "", false), bash(`sed -i 's/want := 3; t.Log("debug")/want := 4/' /w/parser_test.go`, "", false)}, "fail:TEST_STALE"},
		{"a test file restored with git checkout", []vouch.TraceEntry{run, bash(debug, "", false), bash("git checkout /w/parser_test.go", "", false)}, "pass:"},
		{"a test file changed back by a script", []vouch.TraceEntry{run, bash(debug, "", false),
			bash("python3 -c \"p='/w/parser_test.go'; s=open(p).read(); open(p,'w').write(s.replace('; t.Log(\\\"debug\\\")', ''))\"", "", false)}, "undecided:TEST_STALE"},
		{"a source file changed after and changed back", []vouch.TraceEntry{run, edit("/w/lib/summary.ex", "a", "b"), edit("/w/lib/summary.ex", "b", "a")}, "pass:"},
		{"a backup of a test file", []vouch.TraceEntry{run, bash("cp /w/parser_test.go /w/parser_test.go.bak", "", false)}, "pass:"},
		{"a test file moved away", []vouch.TraceEntry{run, bash("cat > /w/tmp_test.go <<'EOF'\npackage w\nEOF", "", false), bash("mv /w/tmp_test.go /tmp/", "", false)}, "pass:"},
	} {
		got := runTests(t, passed, tt.trace)
		if len(got) != 1 || string(got[0].Status)+":"+got[0].Code != tt.want {
			t.Errorf("%s: %+v, want %s", tt.name, got, tt.want)
		}
	}
}
