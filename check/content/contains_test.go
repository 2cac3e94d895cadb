package content

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
)

func TestContains(t *testing.T) {
	cases := []tc{
		{name: "found", spec: `{"type":"contains","value":"DONE"}`, summary: "work is DONE now",
			status: vouch.StatusPass, reason: `output.summary contains "DONE"`,
			evidence: map[string]any{"value": "DONE", "target": "output.summary", "line": 1}},
		{name: "found on line 3", spec: `{"type":"contains","value":"DONE"}`, summary: "a\nb\nDONE",
			status: vouch.StatusPass, evidence: map[string]any{"line": 3}},
		{name: "missing", spec: `{"type":"contains","value":"DONE"}`, summary: "work is finished",
			status: vouch.StatusFail, code: vouch.CodeTextMissing, reason: `output.summary does not contain "DONE"`,
			evidence: map[string]any{"value": "DONE", "target": "output.summary"}},
		{name: "case differs", spec: `{"type":"contains","value":"DONE"}`, summary: "work is done",
			status: vouch.StatusFail, code: vouch.CodeTextMissing, reason: `it contains "done", which differs in case`},
		{name: "ignore case ascii", spec: `{"type":"contains","value":"DONE","ignoreCase":true}`, summary: "work is dOnE",
			status: vouch.StatusPass, reason: "(ignoring case)", evidence: map[string]any{"ignoreCase": true}},
		{name: "ignore case ascii missing", spec: `{"type":"contains","value":"DONE","ignoreCase":true}`, summary: "work is DON E",
			status: vouch.StatusFail, code: vouch.CodeTextMissing},
		{name: "ignore case unicode text", spec: `{"type":"contains","value":"STRASSE","ignoreCase":true}`, summary: "Die Größe der Straße: STRASSE",
			status: vouch.StatusPass},
		{name: "ignore case unicode needle", spec: `{"type":"contains","value":"ÉTÉ","ignoreCase":true}`, summary: "un bel été",
			status: vouch.StatusPass},
		{name: "ignore case unicode missing", spec: `{"type":"contains","value":"hiver","ignoreCase":true}`, summary: "un bel été",
			status: vouch.StatusFail, code: vouch.CodeTextMissing},
		{name: "ignore case kelvin sign", spec: `{"type":"contains","value":"KELVIN","ignoreCase":true}`, summary: "in \u212Aelvin",
			status: vouch.StatusPass},
		{name: "ignore case dotted capital i", spec: `{"type":"contains","value":"dig","ignoreCase":true}`, summary: "D\u0130G",
			status: vouch.StatusPass},
		{name: "ignore case non-ascii text ascii needle", spec: `{"type":"contains","value":"straße","ignoreCase":true}`, summary: "Größe der STRAßE",
			status: vouch.StatusPass},
		{name: "empty summary", spec: `{"type":"contains","value":"x"}`, summary: "",
			status: vouch.StatusFail, code: vouch.CodeTextMissing},
		{name: "file target", spec: `{"type":"contains","value":"## Usage","target":"README.md"}`,
			files: map[string]string{"README.md": "# Tool\n\n## Usage\n"}, status: vouch.StatusPass,
			reason: `file "README.md" contains`, evidence: map[string]any{"target": "README.md", "line": 3}},
		{name: "file target missing text", spec: `{"type":"contains","value":"## Usage","target":"README.md"}`,
			files: map[string]string{"README.md": "# Tool\n"}, status: vouch.StatusFail, code: vouch.CodeTextMissing},
		{name: "not flag is ignored by the checker", spec: `{"type":"contains","value":"DONE","not":true}`, summary: "DONE",
			status: vouch.StatusPass},
	}
	cases = append(cases, targetCases("contains", `,"value":"x"`)...)
	runCases(t, cases)
}

func TestNotContains(t *testing.T) {
	cases := []tc{
		{name: "absent", spec: `{"type":"not_contains","value":"TODO"}`, summary: "all finished",
			status: vouch.StatusPass, reason: `output.summary does not contain "TODO"`},
		{name: "present", spec: `{"type":"not_contains","value":"TODO"}`, summary: "line one\n  fix: TODO later, TODO again",
			status: vouch.StatusFail, code: vouch.CodeTextPresent, reason: `output.summary contains "TODO" at line 2`,
			evidence: map[string]any{"value": "TODO", "line": 2, "column": 8, "count": 2, "excerpt": "fix: TODO later, TODO again"}},
		{name: "present ignoring case", spec: `{"type":"not_contains","value":"todo","ignoreCase":true}`, summary: "x\ny\nzz ToDo",
			status: vouch.StatusFail, code: vouch.CodeTextPresent, evidence: map[string]any{"line": 3, "column": 4, "excerpt": "zz ToDo"}},
		{name: "present ignoring case unicode", spec: `{"type":"not_contains","value":"ÉTÉ","ignoreCase":true}`, summary: "Ça\nun bel Été ici",
			status: vouch.StatusFail, code: vouch.CodeTextPresent, evidence: map[string]any{"line": 2, "column": 8, "excerpt": "un bel Été ici", "count": 1}},
		{name: "present ignoring case after kelvin sign", spec: `{"type":"not_contains","value":"kb","ignoreCase":true}`, summary: "\u212Aa é\n10 KB",
			status: vouch.StatusFail, code: vouch.CodeTextPresent, evidence: map[string]any{"line": 2, "column": 4, "excerpt": "10 KB", "count": 1}},
		{name: "present as kelvin sign", spec: `{"type":"not_contains","value":"kb","ignoreCase":true}`, summary: "é 10 \u212AB",
			status: vouch.StatusFail, code: vouch.CodeTextPresent, evidence: map[string]any{"line": 1, "column": 6, "excerpt": "é 10 \u212AB"}},
		{name: "case differs is absent", spec: `{"type":"not_contains","value":"TODO"}`, summary: "todo",
			status: vouch.StatusPass},
		{name: "long line excerpt", spec: `{"type":"not_contains","value":"SECRET"}`,
			summary: strings.Repeat("a", 100) + "SECRET" + strings.Repeat("b", 100), status: vouch.StatusFail, code: vouch.CodeTextPresent,
			evidence: map[string]any{"excerpt": "…" + strings.Repeat("a", 40) + "SECRET" + strings.Repeat("b", 40) + "…"}},
	}
	cases = append(cases, targetCases("not_contains", `,"value":"x"`)...)
	runCases(t, cases)
}

func TestContainsCompileErrors(t *testing.T) {
	for _, kind := range []string{"contains", "not_contains"} {
		t.Run(kind, func(t *testing.T) {
			cases := []errCase{
				{name: "missing value", spec: `{"type":"` + kind + `"}`, path: "value", code: vouch.ErrCriterion, msg: "is required"},
				{name: "empty value", spec: `{"type":"` + kind + `","value":""}`, path: "value", code: vouch.ErrCriterion},
				{name: "value wrong type", spec: `{"type":"` + kind + `","value":3}`, path: "value", code: vouch.ErrType},
				{name: "ignoreCase wrong type", spec: `{"type":"` + kind + `","value":"x","ignoreCase":"yes"}`, path: "ignoreCase", code: vouch.ErrType},
			}
			cases = append(cases, commonErrCases(kind, `,"value":"x"`)...)
			runErrCases(t, cases)
		})
	}
}

func TestIndexFoldASCII(t *testing.T) {
	for _, c := range []struct {
		s, sub string
		want   int
	}{
		{"hello world", "world", 6},
		{"hello WORLD", "world", 6},
		{"hello WoRlD", "world", 6},
		{"wwwworld", "world", 3},
		{"WWWWorld", "world", 3},
		{"world", "worlds", -1},
		{"", "a", -1},
		{"abc", "abc", 0},
		{"xAbC", "abc", 1},
		{"a1b2", "1b", 1},
		{"a-b-", "b-", 2},
		{"aaab", "aab", 1},
		{"AaAb", "aab", 1},
		{"[x]", "]", 2},
	} {
		for rare := range len(c.sub) {
			if got := indexFoldASCII(c.s, c.sub, rare); got != c.want {
				t.Errorf("indexFoldASCII(%q, %q, %d) = %d, want %d", c.s, c.sub, rare, got, c.want)
			}
		}
		if got, want := indexFoldASCII(c.s, c.sub, rareByte(c.sub, true)), strings.Index(strings.ToLower(c.s), c.sub); got != want {
			t.Errorf("indexFoldASCII(%q, %q) = %d, strings.Index of lowered = %d", c.s, c.sub, got, want)
		}
	}
}

func FuzzIndexFoldASCII(f *testing.F) {
	f.Add("Hello World", "world", uint8(0))
	f.Add("aAaAb", "aab", uint8(2))
	f.Fuzz(func(t *testing.T, s, sub string, rare uint8) {
		sub = strings.ToLower(sub)
		if sub == "" || !isASCII(s) || !isASCII(sub) {
			return
		}
		r := int(rare) % len(sub)
		if got, want := indexFoldASCII(s, sub, r), strings.Index(strings.ToLower(s), sub); got != want {
			t.Errorf("indexFoldASCII(%q, %q, %d) = %d, want %d", s, sub, r, got, want)
		}
	})
}

func TestIndexRare(t *testing.T) {
	texts := []string{"", "a", "tests passed", "the tests, tests passed, all tests passed", strings.Repeat("ab", 300) + "abc" + strings.Repeat("ab", 10)}
	subs := []string{"a", "abc", "tests passed", "passed", "ba", "zz", "ab", strings.Repeat("ab", 20) + "c"}
	for _, s := range texts {
		for _, sub := range subs {
			for rare := range len(sub) {
				if got, want := indexRare(s, sub, rare), strings.Index(s, sub); got != want {
					t.Errorf("indexRare(%.20q, %q, %d) = %d, want %d", s, sub, rare, got, want)
				}
			}
		}
	}
}

func FuzzIndexRare(f *testing.F) {
	f.Add("the tests passed", "passed", uint8(3))
	f.Fuzz(func(t *testing.T, s, sub string, rare uint8) {
		if sub == "" {
			return
		}
		r := int(rare) % len(sub)
		if got, want := indexRare(s, sub, r), strings.Index(s, sub); got != want {
			t.Errorf("indexRare(%q, %q, %d) = %d, want %d", s, sub, r, got, want)
		}
	})
}

func TestRareByte(t *testing.T) {
	for _, c := range []struct {
		s    string
		fold bool
		want byte
	}{
		{"tests passed", false, 'p'},
		{"the Q", false, 'Q'},
		{"a@b", false, '@'},
		{"zebra", true, 'z'},
	} {
		if got := c.s[rareByte(c.s, c.fold)]; got != c.want {
			t.Errorf("rareByte(%q) picks %q, want %q", c.s, got, c.want)
		}
	}
}

func TestIsASCII(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"", true},
		{"abc", true},
		{"abcdefghijklmnop", true},
		{"abcdefgh\x80", false},
		{"\xffabcdefgh", false},
		{"abcdefghijé", false},
	} {
		if got := isASCII(c.s); got != c.want {
			t.Errorf("isASCII(%q) = %v, want %v", c.s, got, c.want)
		}
	}
}

// TestLowerMemo checks that ignoreCase lowers a non-ASCII text once per
// verification, whatever the number of checks, and not at all for ASCII.
func TestLowerMemo(t *testing.T) {
	a := mustCompile(t, `{"type":"contains","value":"été","ignoreCase":true}`, check.Env{})
	b := mustCompile(t, `{"type":"not_contains","value":"printemps","ignoreCase":true}`, check.Env{})

	s := &vouch.Subject{Request: &vouch.Request{Output: vouch.Output{Summary: "Été et HIVER"}}}
	for _, c := range []vouch.Checker{a, b, a} {
		if o := c.Check(t.Context(), s); o.Status != vouch.StatusPass {
			t.Errorf("got %s: %s", o.Status, o.Reason)
		}
	}
	got := s.Memo(lowerKey(""), func() any { t.Error("lowered text not memoised"); return "" })
	if got != "été et hiver" {
		t.Errorf("memoised %q", got)
	}

	ascii := &vouch.Subject{Request: &vouch.Request{Output: vouch.Output{Summary: "ETE et HIVER"}}}
	c := mustCompile(t, `{"type":"contains","value":"hiver","ignoreCase":true}`, check.Env{})
	if o := c.Check(t.Context(), ascii); o.Status != vouch.StatusPass {
		t.Errorf("got %s: %s", o.Status, o.Reason)
	}
	ascii.Memo(lowerKey(""), func() any { return nil }) // must compute: nothing was memoised
	if got := ascii.Memo(lowerKey(""), func() any { return "x" }); got != nil {
		t.Errorf("ASCII path lowered the text: %v", got)
	}
}

// TestTargetSymlinkOutside checks that a target that is a symbolic link out
// of the workspace is not read.
func TestTargetSymlinkOutside(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("DONE"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := workspace(t, map[string]string{"ok.md": "DONE"})
	if err := os.Symlink(outside, filepath.Join(root.Name(), "link.md")); err != nil {
		t.Skip("no symlinks:", err)
	}
	c := mustCompile(t, `{"type":"contains","value":"DONE","target":"link.md"}`, check.Env{})
	s := &vouch.Subject{Request: &vouch.Request{}, Workspace: root}
	o := c.Check(t.Context(), s)
	if o.Status != vouch.StatusUndecided || o.Code != vouch.CodeTargetUnreadable {
		t.Errorf("got %s %q (%s), want undecided %s", o.Status, o.Code, o.Reason, vouch.CodeTargetUnreadable)
	}
}
