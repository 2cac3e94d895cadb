package mention

import (
	"os"
	"testing"
	"unicode/utf8"
)

// checkDoc asserts the invariants of a parse.
func checkDoc(t *testing.T, text string, d *Doc) {
	t.Helper()
	if d.Text != text {
		t.Fatalf("Doc.Text differs")
	}
	end := 0
	for i, s := range d.Sentences {
		if s.Start < end || s.End <= s.Start || s.End > len(text) {
			t.Fatalf("sentence %d [%d,%d) out of order or bounds (prev end %d, len %d)", i, s.Start, s.End, end, len(text))
		}
		if text[s.Start:s.End] != s.Text {
			t.Fatalf("sentence %d text %q != %q", i, s.Text, text[s.Start:s.End])
		}
		end = s.End
	}
	end = 0
	for i, m := range d.Mentions {
		if m.Start < end || m.End <= m.Start || m.End > len(text) {
			t.Fatalf("mention %d %+v out of order, overlapping or out of bounds", i, m)
		}
		if text[m.Start:m.End] != m.Text {
			t.Fatalf("mention %d text %q != %q", i, m.Text, text[m.Start:m.End])
		}
		if m.Sentence < 0 || m.Sentence >= len(d.Sentences) {
			t.Fatalf("mention %d sentence %d of %d", i, m.Sentence, len(d.Sentences))
		}
		if s := d.Sentences[m.Sentence]; m.Start < s.Start || m.End > s.End {
			t.Fatalf("mention %d %+v outside its sentence %+v", i, m, s)
		}
		if m.Norm == "" || m.Kind == "" {
			t.Fatalf("mention %d %+v has no norm or kind", i, m)
		}
		if utf8.ValidString(text) && !utf8.ValidString(m.Text) {
			t.Fatalf("mention %d %q cuts a rune", i, m.Text)
		}
		end = m.End
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "a", "`", "```", "http://", "1,", "$", "€1", "-", "#", "|", "> ", "- ",
		"Edited src/parser.ts:45 and `go.mod`.", "Raised $1.5M on March 5, 2024.",
		"Marie Curie won 2 prizes in 1903 (see https://x.com/a_(b)).",
		"npm install @scope/pkg express", "`from a.b import c` and `parse(a, b)`",
		"| a | b |\n|---|---|\n| Paris | 3 files |", "1. first\n2) second\n# Head\n```\ncode\n```",
		"2019-2021 and 10-40ms and 03/05/2024 and Q3 2023 and 5th March",
		"John F. Kennedy and U.S. and e.g. and Dr. Who.", "’s 's ''' ...", "a\u00a0b 1\u202f500",
	} {
		f.Add(s)
	}
	if b, err := os.ReadFile("testdata/agent.md"); err == nil {
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkDoc(t, text, Parse(text))
		ss := Sentences(text)
		d := Parse(text)
		if len(ss) != len(d.Sentences) {
			t.Fatalf("Sentences and Parse disagree: %d vs %d", len(ss), len(d.Sentences))
		}
	})
}
