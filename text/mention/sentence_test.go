package mention

import (
	"strings"
	"testing"
)

func TestSentences(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"One. Two! Three? Four", []string{"One.", "Two!", "Three?", "Four"}},
		{"Use tools, e.g. grep, i.e. search. Then stop.", []string{"Use tools, e.g. grep, i.e. search.", "Then stop."}},
		{"Compare A vs. B and see Dr. Smith in the U.S. office.", []string{"Compare A vs. B and see Dr. Smith in the U.S. office."}},
		{"Pi is 3.14 in parser.ts at v1.2.3. Next one.", []string{"Pi is 3.14 in parser.ts at v1.2.3.", "Next one."}},
		{"See https://x.com/a.b?c=1. Then go.", []string{"See https://x.com/a.b?c=1.", "Then go."}},
		{"Run `a. B` now. Done.", []string{"Run `a. B` now.", "Done."}},
		{"J. K. Rowling wrote it. Fine.", []string{"J. K. Rowling wrote it.", "Fine."}},
		{"It took 10 ms. Then it ended.", []string{"It took 10 ms.", "Then it ended."}},
		{"He said \"stop.\" Then left.", []string{"He said \"stop.\"", "Then left."}},
		{"**Done.** Next.", []string{"**Done.**", "Next."}},
		{"wait... then it went. Ok", []string{"wait... then it went.", "Ok"}},
		{"# Title\nText here.\n## Sub\n- item one. item two\n- item three\n1. first\n2) second\n* [x] done task", []string{"Title", "Text here.", "Sub", "item one. item two", "item three", "first", "second", "done task"}},
		{"A line\nwrapped here.\n\nNew para.", []string{"A line\nwrapped here.", "New para."}},
		{"> quoted text.\n> more\n\nafter", []string{"quoted text.", "more", "after"}},
		{"| a | b |\n|---|---|\n| c | d |", []string{"a | b", "c | d"}},
		{"Intro:\n\n```go\nx := 1. y\n```\n\nAfter.", []string{"Intro:", "```go\nx := 1. y\n```", "After."}},
		{"~~~\ncode\n~~~\nnext", []string{"~~~\ncode\n~~~", "next"}},
		{"open fence\n```\nnever closed. Really.\n", []string{"open fence", "```\nnever closed. Really."}},
		{"---\n***\nText", []string{"Text"}},
		{"", nil},
		{"   \n\n  ", nil},
		{"Title\n=====\nBody.", []string{"Title", "Body."}},
		{"Costs $5. Next etc. Then", []string{"Costs $5.", "Next etc.", "Then"}},
	}
	for _, c := range cases {
		var got []string
		for _, s := range Sentences(c.text) {
			if c.text[s.Start:s.End] != s.Text {
				t.Errorf("Sentences(%q): span %d:%d is not %q", c.text, s.Start, s.End, s.Text)
			}
			got = append(got, s.Text)
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("Sentences(%q):\n got  %q\n want %q", c.text, got, c.want)
		}
	}
}
