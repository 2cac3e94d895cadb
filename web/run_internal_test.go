package web

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
)

// TestMarkLine: the lines that matter in the output of real runners,
// and lines that do not.
func TestMarkLine(t *testing.T) {
	for _, tc := range []struct {
		line, mark string
	}{
		{"============================== 3 passed in 0.12s ===============================", "sum"},
		{"========================= 1 failed, 7 passed in 0.31s =========================", "err"},
		{"1 failed, 7 passed in 0.31s", "err"},
		{"8 passed in 0.29s", "sum"},
		{"ok  \texample.com/shop/internal/api\t0.412s", "sum"},
		{"FAIL\texample.com/shop/internal/api\t0.412s", "err"},
		{"--- FAIL: TestPaginateLastPage (0.00s)", "err"},
		{"Ran 12 tests in 0.004s", "sum"},
		{"FAILED (failures=1)", "err"},
		{"Tests:       4 passed, 4 total", "sum"},
		{"Tests:       1 failed, 11 passed, 12 total", "err"},
		{"  14 passing (31ms)", "sum"},
		{"87 tests, 0 failures", "sum"},
		{"87 tests, 2 failures", "err"},
		{"test result: ok. 9 passed; 0 failed; 0 ignored", "sum"},
		{"Tests run: 31, Failures: 0, Errors: 0, Skipped: 0", "sum"},
		{"Traceback (most recent call last):", "err"},
		{"KeyError: 'email'", "err"},
		{"    TypeError: Cannot read properties of undefined", "err"},
		{"E   AssertionError: assert 0 == 10", "err"},
		{"panic: runtime error: index out of range [3] with length 3", "err"},
		{"error[E0308]: mismatched types", "err"},
		{"fatal: not a git repository", "err"},
		{"  1) test closes the review (SpotterWeb.ProjectReviewLiveTest)", "err"},
		{"** (CompileError) lib/a.ex:3: undefined function foo/0", "err"},
		{"Exit code 2", "err"},
		{"<returncode>1</returncode>", "err"},
		{"Exit code 0", ""},
		{"<returncode>0</returncode>", ""},
		{"  const token = input.slice(0, 3); // the parser's state", ""},
		{"PASS src/parser.test.ts", ""},
		{"handles ErrorBoundary props", ""},
		{"", ""},
	} {
		if got, _ := markLine(tc.line, false); got != tc.mark {
			t.Errorf("markLine(%q) = %q, want %q", tc.line, got, tc.mark)
		}
	}
	// A diff's lines.
	diff := "diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -1,2 +1,2 @@\n-old\n+new\n same"
	var marks []string
	for _, l := range textLines(diff) {
		marks = append(marks, l.Mark)
	}
	if got := strings.Join(marks, ","); got != "hunk,hunk,hunk,hunk,del,add," {
		t.Errorf("the diff's marks: %s", got)
	}
}

// TestTextLinesLong: a long output keeps its start and end, the marked
// lines of its middle, and says what it left out.
func TestTextLinesLong(t *testing.T) {
	var b strings.Builder
	for i := range 1000 {
		if i == 500 {
			b.WriteString("Traceback (most recent call last):\n")
			continue
		}
		fmt.Fprintf(&b, "line %d\n", i)
	}
	lines := textLines(b.String())
	if len(lines) != headLines+tailLines+3 {
		t.Fatalf("%d lines kept", len(lines))
	}
	mid := lines[headLines : headLines+3]
	if mid[0].Mark != "gap" || mid[0].Text != "380 lines not shown" || mid[1].Mark != "err" || mid[2].Text != "379 lines not shown" {
		t.Errorf("the middle: %+v", mid)
	}
	if lines[len(lines)-1].Text != "line 999" {
		t.Errorf("the last line: %q", lines[len(lines)-1].Text)
	}
	long := strings.Repeat("é", maxLineBytes)
	if got := textLines(long)[0].Text; !strings.HasSuffix(got, "… (2000 more bytes)") || len(got) > maxLineBytes+30 {
		t.Errorf("a long line is cut as %q…", got[:20])
	}
	// The key lines: the last summary with counts and the last error.
	key := keyLines(textLines("Exit code 1\n--- FAIL: TestA (0.00s)\nFAIL\nFAIL\tpkg\t0.1s\nFAIL"))
	if len(key) != 2 || key[0].Text != "--- FAIL: TestA (0.00s)" || key[1].Text != "FAIL\tpkg\t0.1s" {
		t.Errorf("key lines: %+v", key)
	}
}

// TestDiffLines: a line diff of two texts, its changes with context,
// long runs of unchanged lines folded, and its bounds.
func TestDiffLines(t *testing.T) {
	a := strings.Split("a b c d e f g h i j", " ")
	b := strings.Split("a b X d e f g h i j k", " ")
	d := diffLines(a, b)
	var got []string
	for _, l := range d.Lines {
		got = append(got, l.Op+l.Text)
	}
	if want := " a, b,-c,+X, d, e,…3 unchanged lines, i, j,+k"; strings.Join(got, ",") != want {
		t.Errorf("diff:\n got %s\nwant %s", strings.Join(got, ","), want)
	}
	if d.Added != 2 || d.Removed != 1 {
		t.Errorf("%d added, %d removed", d.Added, d.Removed)
	}
	if d := diffLines(a, a); len(d.Lines) != 0 || d.Note != "The two texts are the same." {
		t.Errorf("the same texts: %+v", d)
	}
	big := make([]string, maxDiffLines+1)
	for i := range big {
		big[i] = fmt.Sprint(i)
	}
	if d := diffLines(big, nil); len(d.Lines) != 0 || !strings.Contains(d.Note, "too many to compare") {
		t.Errorf("a diff past the bounds: %d lines, %q", len(d.Lines), d.Note)
	}
	// Prose is compared by its sentences.
	if got := diffUnits("One. " + strings.Repeat("Two is long ", 10) + ". Three?"); len(got) != 3 {
		t.Errorf("the sentences: %q", got)
	}
}

// TestWords: evidence keys in words.
func TestWords(t *testing.T) {
	for k, want := range map[string]string{"failedCommands": "failed commands", "traceEntries": "trace entries", "exit_code": "exit code",
		"lastURL": "last URL", "HTTPStatus": "HTTP status", "call": "call", "a.b": "a.b", "": ""} {
		if got := words(k); got != want {
			t.Errorf("words(%q) = %q, want %q", k, got, want)
		}
	}
}

// TestEvidenceTree: evidence drawn for people: nested objects and lists,
// numbers without exponents, and calls linked by their index, their
// entry's id or their command.
func TestEvidenceTree(t *testing.T) {
	entries := []vouch.TraceEntry{
		{ID: "t0", Tool: "Bash", Input: map[string]any{"command": "go test ./..."}, Output: []byte(`"Exit code 1\nFAIL"`), IsError: true},
		{ID: "t1", Tool: "Read", Input: map[string]any{"file_path": "a.go"}},
	}
	rv := newRunView(entries, "/verifications/x?attempt=1", 1, timelineQuery{})
	rv.filter()
	tree := evidenceTree(map[string]any{
		"run":        map[string]any{"call": 0.0, "command": "go test ./..."},
		"lastChange": map[string]any{"file": "a.go", "call": "t1"},
		"runs":       []any{"go test ./...: 3 passed, 1 failed", "make lint: ok"},
		"found":      1e6,
		"score":      0.123456,
		"ok":         false,
		"none":       []any{},
		"diff":       "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y",
		"call":       7.0, // no such call: a number
		"where":      "trace[1] Read",
		"at":         "trace[9] Read", // no such call: text
	}, rv)
	var b strings.Builder
	var show func(ns []evNode, depth int)
	show = func(ns []evNode, depth int) {
		for _, n := range ns {
			fmt.Fprintf(&b, "%s%s=%s", strings.Repeat(" ", depth), n.Key, n.Text)
			if n.Call != nil {
				fmt.Fprintf(&b, "[call %d %s %s]", n.Call.Index, n.Call.URL, n.Call.Digest)
			}
			if n.Lines != nil {
				fmt.Fprintf(&b, "(%d lines)", len(n.Lines))
			}
			b.WriteByte('\n')
			show(n.Items, depth+1)
		}
	}
	show(tree, 0)
	want := `at=trace[9] Read
call=7
diff=(5 lines)
found=1000000
last change=
 call=[call 1 #call-1 a.go]
 file=a.go
none=none
ok=no
run=
 call=[call 0 #call-0 $ go test ./...]
 command=go test ./...
runs=
 =go test ./...: 3 passed, 1 failed[call 0 #call-0 $ go test ./...]
 =make lint: ok
score=0.1235
where=[call 1 #call-1 a.go]
`
	if b.String() != want {
		t.Errorf("the tree:\n%s\nwant:\n%s", b.String(), want)
	}
	// The calls the evidence cites, by index, id and command.
	var cited []string
	citedCalls(map[string]any{"run": map[string]any{"call": 0.0}, "lastChange": map[string]any{"call": "t1"}, "failedCommands": []any{"go test ./..."}, "call": 9.0},
		rv, func(i int, byCommand bool) { cited = append(cited, fmt.Sprint(i, byCommand)) })
	if got := strings.Join(sortedCopy(cited), " "); got != "0 false 0 true 1 false" {
		t.Errorf("cited calls: %s", got)
	}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
