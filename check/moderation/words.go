package moderation

import (
	"strings"

	"github.com/vouchgate/vouch/text/lex"
	"github.com/vouchgate/vouch/text/support"
)

// termSet is a set of stems.
type termSet map[string]bool

// terms returns the stems of the content words of text: lower-cased words
// that are no stop word and no word of talk ("agreed", "okay", "think"),
// stemmed (see stem). Numbers are kept as written, without thousands
// separators ("20,000" is "20000"; "2.4.1" stays whole).
func terms(text string) []string {
	var out []string
	words(text, func(w string) {
		if isNumber(w) {
			out = append(out, strings.ReplaceAll(w, ",", ""))
			return
		}
		if len(w) < 2 || support.StopWord(w) || talkWords[w] {
			return
		}
		if st := lex.Stem(w); !talkWords[st] {
			out = append(out, st)
		}
	})
	return out
}

// set returns the terms of text as a set.
func set(text string) termSet {
	s := termSet{}
	for _, t := range terms(text) {
		s[t] = true
	}
	return s
}

// words calls emit for each lower-cased word of text (see [lex.Scan]): a
// run of letters and digits, with the dots and commas inside a number
// ("2.4.1", "20,000"). An apostrophe ends a word ("I'll" is "i" and "ll").
func words(text string, emit func(string)) {
	lex.Scan(text, lex.Options{Numbers: true}, func(start, end int) {
		emit(strings.ToLower(text[start:end]))
	})
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isNumber(w string) bool { return w != "" && isDigit(w[0]) }

// talkWords are words of conversation that carry no point of their own.
var talkWords = lex.Named("talk-words").Set()

// holdsHalf reports whether set holds at least half of want (and at least
// one of them).
func holdsHalf(set termSet, want []string) bool {
	n := 0
	for _, w := range want {
		if set[w] {
			n++
		}
	}
	return n > 0 && 2*n >= len(want)
}

// share returns the share of want that set holds.
func share(set termSet, want []string) float64 {
	if len(want) == 0 {
		return 0
	}
	n := 0
	for _, w := range want {
		if set[w] {
			n++
		}
	}
	return float64(n) / float64(len(want))
}

// unique returns the terms in order without repeats.
func unique(ts []string) []string {
	seen := map[string]bool{}
	out := ts[:0:0]
	for _, t := range ts {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}
