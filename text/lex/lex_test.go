package lex

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestLists holds every word list to the format: a comment header, a name
// in kebab case, no empty or repeated word, and phrases found from their
// first word.
func TestLists(t *testing.T) {
	name := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	if len(Lists()) < 50 {
		t.Fatalf("only %d lists", len(Lists()))
	}
	for _, n := range Lists() {
		l := Named(n)
		if !name.MatchString(n) {
			t.Errorf("%s: not a kebab-case name", n)
		}
		if strings.TrimSpace(l.Doc()) == "" {
			t.Errorf("%s: no comment header", n)
		}
		seen := map[string]bool{}
		for _, ln := range l.Lines() {
			if ln.Word == "" || strings.TrimSpace(ln.Word) != ln.Word {
				t.Errorf("%s: bad word %q", n, ln.Word)
			}
			if seen[ln.Word] {
				t.Errorf("%s: %q twice", n, ln.Word)
			}
			seen[ln.Word] = true
			e := Lookup(ln.Word)
			if f := strings.Fields(ln.Word); len(f) > 1 {
				first := Lookup(f[0])
				if !slices.ContainsFunc(first.Phrases(), func(p Phrase) bool { return p.Entry.Key() == Fold(ln.Word) }) {
					t.Errorf("%s: phrase %q not found from %q", n, ln.Word, f[0])
				}
				continue
			}
			if len(ln.Word) <= MaxWordBytes && !e.In(l) {
				t.Errorf("%s: Lookup(%q) is not in the list", n, ln.Word)
			}
		}
	}
}

// TestNoListTwice fails when two lists hold the same words: one of them is
// a copy.
func TestNoListTwice(t *testing.T) {
	byWords := map[string]string{}
	for _, n := range Lists() {
		words := Named(n).Words()
		for i, w := range words {
			words[i] = Fold(w)
		}
		slices.Sort(words)
		key := strings.Join(words, "\n")
		if other, ok := byWords[key]; ok {
			t.Errorf("%s and %s hold the same words", other, n)
		}
		byWords[key] = n
	}
}

func TestLookup(t *testing.T) {
	months, abbrev := Named("months"), Named("abbreviations")
	for _, tt := range []struct {
		word string
		list List
		in   bool
	}{
		{"January", months, true},
		{"JANUARY", months, true},
		{"e.g", abbrev, true},
		{"E.G", abbrev, true},
		{"january2", months, false},
		{"", months, false},
		{strings.Repeat("a", MaxWordBytes+1), months, false},
	} {
		if got := Lookup(tt.word).In(tt.list); got != tt.in {
			t.Errorf("Lookup(%q).In(%s) = %v, want %v", tt.word, tt.list.Name(), got, tt.in)
		}
	}
	// ’ reads as an apostrophe, and both spellings are the same entry.
	neg := Named("negation-aux")
	if a, b := Lookup("didn't"), Lookup("didn’t"); a.ID() == 0 || a != b || !a.In(neg) {
		t.Errorf("didn't and didn’t: %d, %d", a.ID(), b.ID())
	}
	if v, ok := Lookup("March").Value(months); !ok || v != "3" {
		t.Errorf("March = %q, %v", v, ok)
	}
	if e := Lookup("no-such-word-here"); e.ID() != 0 || len(e.Lists()) != 0 || e != ByID(0) {
		t.Errorf("unknown word: %+v", e)
	}
	if LookupHash("March", Hash("march")) != Lookup("march") {
		t.Error("LookupHash differs from Lookup")
	}
	// Phrases: longest first.
	ps := Lookup("was").Phrases()
	for i := 1; i < len(ps); i++ {
		if len(ps[i].Rest) > len(ps[i-1].Rest) {
			t.Fatalf("phrases of was not longest first: %v", ps)
		}
	}
	if len(ps) == 0 || !slices.ContainsFunc(ps, func(p Phrase) bool { return strings.Join(p.Rest, " ") == "not able to" }) {
		t.Errorf("phrases of was: %v", ps)
	}
}

func TestLookupAllocs(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { Lookup("Documented") }); n != 0 {
		t.Errorf("Lookup allocates %v times", n)
	}
}

func TestParseList(t *testing.T) {
	for _, tt := range []struct{ data, err string }{
		{"word\n", "no comment header"},
		{"# doc\n = 3\n", "no word"},
		{"# doc\nword = 1\nother\n", ""},
	} {
		_, err := parseList("x", tt.data)
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("parseList(%q) = %v, want %q", tt.data, err, tt.err)
		}
	}
}

func TestWords(t *testing.T) {
	for _, tt := range []struct {
		text string
		o    Options
		want string
	}{
		{"Hello, world!", Options{}, "Hello|world"},
		{"couldn't — I'll 'quoted'", Options{}, "couldn|t|I|ll|quoted"},
		{"couldn't — I’ll 'quoted'", Options{Apostrophes: true}, "couldn't|I’ll|quoted"},
		{"v2.4.1 and 20,000 items, 3. Then", Options{Numbers: true}, "v2.4.1|and|20,000|items|3|Then"},
		{"v2.4.1", Options{}, "v2|4|1"},
		{"writeTests for HTTPServer", Options{Camel: true}, "write|Tests|for|HTTPServer"},
		{"naïve café 東京", Options{}, "naïve|café|東京"},
		{"", Options{}, ""},
	} {
		if got := strings.Join(Words(tt.text, tt.o), "|"); got != tt.want {
			t.Errorf("Words(%q, %+v) = %q, want %q", tt.text, tt.o, got, tt.want)
		}
	}
}
