package content

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vouchgate/vouch"
)

func TestCountText(t *testing.T) {
	for _, s := range []string{
		"",
		"one",
		"  two  words ",
		"tabs\tand\nnew\r\nlines\v\f",
		"héllo wörld",
		"日本語のテキスト",
		"emoji 👍🏽 here",
		"nbsp\u00a0separated\u2003em space\u3000ideographic",
		"\u0085next line",
		"bad \xff utf8\xfe",
		"e\u0301 combining",
	} {
		chars, words := countText(s)
		if want := utf8.RuneCountInString(s); chars != want {
			t.Errorf("countText(%q) chars = %d, want %d", s, chars, want)
		}
		if want := len(strings.Fields(s)); words != want {
			t.Errorf("countText(%q) words = %d, want %d", s, words, want)
		}
	}
	// Random ASCII-heavy strings exercise the eight-byte path and its edges.
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{" ", "\t", "\n", "\v", "\f", "\r", "\x08", "\x0e", "\x1f", "!", "a", "Z", "\x7f", "é", "\u00a0", "\u2003", "\xff"}
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := b.String()
		chars, words := countText(s)
		if chars != utf8.RuneCountInString(s) || words != len(strings.Fields(s)) {
			t.Fatalf("countText(%q) = %d, %d; want %d, %d", s, chars, words, utf8.RuneCountInString(s), len(strings.Fields(s)))
		}
	}
}

func TestLength(t *testing.T) {
	cases := []tc{
		{name: "within", spec: `{"type":"length","minChars":5,"maxChars":20,"minWords":2,"maxWords":4}`, summary: "three short words",
			status: vouch.StatusPass, reason: "within the length limits (5 to 20 characters, 2 to 4 words)",
			evidence: map[string]any{"chars": 17, "words": 3, "minChars": 5, "maxChars": 20, "minWords": 2, "maxWords": 4, "target": "output.summary"}},
		{name: "unicode counted as code points", spec: `{"type":"length","maxChars":5}`, summary: "日本語です",
			status: vouch.StatusPass, evidence: map[string]any{"chars": 5, "words": 1}},
		{name: "unicode over", spec: `{"type":"length","maxChars":4}`, summary: "日本語です",
			status: vouch.StatusFail, code: vouch.CodeLengthOutOfRange, reason: "has 5 characters, more than the maximum of 4",
			evidence: map[string]any{"chars": 5, "maxChars": 4}},
		{name: "emoji with modifier is two code points", spec: `{"type":"length","minChars":2,"maxChars":2}`, summary: "👍🏽",
			status: vouch.StatusPass, evidence: map[string]any{"chars": 2}},
		{name: "too few words", spec: `{"type":"length","minWords":10}`, summary: "just four words here",
			status: vouch.StatusFail, code: vouch.CodeLengthOutOfRange, reason: "has 4 words, fewer than the minimum of 10",
			evidence: map[string]any{"words": 4, "minWords": 10, "chars": 20}},
		{name: "two problems", spec: `{"type":"length","minChars":100,"maxWords":1}`, summary: "two words",
			status: vouch.StatusFail, code: vouch.CodeLengthOutOfRange,
			reason: "has 9 characters, fewer than the minimum of 100 and 2 words, more than the maximum of 1"},
		{name: "zero max on empty", spec: `{"type":"length","maxChars":0}`, summary: "",
			status: vouch.StatusPass, evidence: map[string]any{"chars": 0, "words": 0}},
		{name: "empty under min", spec: `{"type":"length","minChars":1}`, summary: "",
			status: vouch.StatusFail, code: vouch.CodeLengthOutOfRange},
		{name: "file target", spec: `{"type":"length","maxWords":3,"target":"a.txt"}`,
			files: map[string]string{"a.txt": "one two three four"}, status: vouch.StatusFail, code: vouch.CodeLengthOutOfRange,
			reason: `file "a.txt" has 4 words`},
	}
	cases = append(cases, targetCases("length", `,"maxChars":1`)...)
	runCases(t, cases)
}

func TestLengthCompileErrors(t *testing.T) {
	cases := []errCase{
		{name: "no bound", spec: `{"type":"length"}`, path: "", code: vouch.ErrCriterion, msg: "at least one of"},
		{name: "negative", spec: `{"type":"length","minWords":-1}`, path: "minWords", code: vouch.ErrCriterion},
		{name: "min over max chars", spec: `{"type":"length","minChars":10,"maxChars":5}`, path: "maxChars", code: vouch.ErrCriterion},
		{name: "min over max words", spec: `{"type":"length","minWords":10,"maxWords":5}`, path: "maxWords", code: vouch.ErrCriterion},
		{name: "wrong type", spec: `{"type":"length","maxChars":"10"}`, path: "maxChars", code: vouch.ErrType},
		// A fraction where an integer is wanted is a wrong type.
		{name: "fraction", spec: `{"type":"length","maxChars":1.5}`, path: "maxChars", code: vouch.ErrType},
	}
	cases = append(cases, commonErrCases("length", `,"maxChars":1`)...)
	runErrCases(t, cases)
}

func FuzzCountText(f *testing.F) {
	f.Add("two  words")
	f.Add("a\tb\nc\vd\fe\rf g\u00a0h\u3000i")
	f.Add("0123456789abcdef ghijklmnopqrstuv\x1f\x08\x0e\x0d!")
	f.Fuzz(func(t *testing.T, s string) {
		chars, words := countText(s)
		if want := utf8.RuneCountInString(s); chars != want {
			t.Errorf("countText(%q) chars = %d, want %d", s, chars, want)
		}
		if want := len(strings.Fields(s)); words != want {
			t.Errorf("countText(%q) words = %d, want %d", s, words, want)
		}
	})
}
