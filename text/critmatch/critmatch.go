// Package critmatch matches a success criterion, written as a sentence,
// against an output by its words and numbers, with no model: the
// criteria_match scoring mode of POST /verify-task.
//
// A criterion's numbers must appear in the output as numbers: 5 matches
// "5" or "5.0" but not "15", "5.5" or "v5a". Its content words (words of
// two letters or more that are neither common function words nor the
// verbs a criterion points at the output with, such as "mentions") match the
// output's words case-insensitively, after a light stemming that strips
// common English endings ("tests", "tested" and "testing" all match
// "test"). A criterion is met when every one of its numbers and more than
// half of its content words match; one with neither words nor numbers
// cannot be matched and stays undecided.
package critmatch

import (
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/vouchgate/vouch/text/lex"
)

// Result is how one criterion matched an output.
type Result struct {
	// Words are the criterion's content words, lower-cased, in order,
	// each once; Numbers its numbers as written.
	MatchedWords   []string
	UnmatchedWords []string
	MatchedNumbers []string
	// UnmatchedNumbers are the numbers the output does not hold.
	UnmatchedNumbers []string
}

// Decidable reports whether the criterion had anything to match.
func (r *Result) Decidable() bool { return r.total() > 0 }

func (r *Result) total() int {
	return len(r.MatchedWords) + len(r.UnmatchedWords) + len(r.MatchedNumbers) + len(r.UnmatchedNumbers)
}

// Met reports whether every number and more than half of the content
// words matched; false when nothing could be matched.
func (r *Result) Met() bool {
	if !r.Decidable() || len(r.UnmatchedNumbers) > 0 {
		return false
	}
	words := len(r.MatchedWords) + len(r.UnmatchedWords)
	return words == 0 || 2*len(r.MatchedWords) > words
}

// Score is the share of the criterion's words and numbers that matched,
// 0 when it has none.
func (r *Result) Score() float64 {
	if !r.Decidable() {
		return 0
	}
	return float64(len(r.MatchedWords)+len(r.MatchedNumbers)) / float64(r.total())
}

// Reason says in one sentence what matched and what did not.
func (r *Result) Reason() string {
	if !r.Decidable() {
		return "the criterion has no content word or number to match"
	}
	var b strings.Builder
	list := func(what string, xs []string) {
		if len(xs) > 0 {
			if b.Len() > 0 {
				b.WriteString("; ")
			}
			b.WriteString(what + ": " + strings.Join(xs, ", "))
		}
	}
	list("matched words", r.MatchedWords)
	list("unmatched words", r.UnmatchedWords)
	list("matched numbers", r.MatchedNumbers)
	list("unmatched numbers", r.UnmatchedNumbers)
	return b.String()
}

// Index is an output's words (stemmed) and numbers, ready to match
// criteria against.
type Index struct {
	stems   map[string]bool
	numbers []float64
}

// NewIndex indexes an output.
func NewIndex(output string) *Index {
	ix := &Index{stems: map[string]bool{}}
	words, numbers := tokens(output)
	for _, w := range words {
		ix.stems[lex.Stem(w)] = true
	}
	for _, n := range numbers {
		if v, err := strconv.ParseFloat(n, 64); err == nil {
			ix.numbers = append(ix.numbers, v)
		}
	}
	return ix
}

// Match matches one criterion against the indexed output.
func (ix *Index) Match(criterion string) Result {
	var r Result
	words, numbers := tokens(criterion)
	var seen []string
	for _, w := range words {
		if len(w) < 2 || isStopWord(w) || slices.Contains(seen, w) {
			continue
		}
		seen = append(seen, w)
		if ix.stems[lex.Stem(w)] {
			r.MatchedWords = append(r.MatchedWords, w)
		} else {
			r.UnmatchedWords = append(r.UnmatchedWords, w)
		}
	}
	seen = nil
	for _, n := range numbers {
		if slices.Contains(seen, n) {
			continue
		}
		seen = append(seen, n)
		v, err := strconv.ParseFloat(n, 64)
		if err == nil && slices.Contains(ix.numbers, v) {
			r.MatchedNumbers = append(r.MatchedNumbers, n)
		} else {
			r.UnmatchedNumbers = append(r.UnmatchedNumbers, n)
		}
	}
	return r
}

// tokens splits text into lower-cased words and numbers, reading words
// with lex.Scan: a word is a run of letters (apostrophes inside it are
// dropped), a number a run of digits with at most one decimal point between
// digits (thousands separators are not read: "20,000" is 20 and 000, and
// "1.2.3" is 1.2 and 3). A run of letters and digits together ("v5a",
// "h2o", "v1.5") is neither: it is a name, not a number or a word.
func tokens(text string) (words, numbers []string) {
	lex.Scan(text, lex.Options{Apostrophes: true, Numbers: true}, func(start, end int) {
		tok := text[start:end]
		letters, digits := false, false
		for _, r := range tok {
			switch {
			case r == '.' || r == ',' || r == '\'' || r == '’':
			case unicode.IsDigit(r):
				digits = true
			default: // any other rune of a word is a letter
				letters = true
			}
		}
		switch {
		case letters && !digits:
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "'", ""), "’", "")
			words = append(words, strings.ToLower(tok))
		case digits && !letters:
			numbers = append(numbers, splitNumber(tok)...)
		}
	})
	return words, numbers
}

// splitNumber splits a run of digits joined by dots and commas into
// numbers: at every comma, and after every second run of digits joined
// by dots ("5.5.1" is 5.5 and 1).
func splitNumber(tok string) []string {
	if !strings.ContainsAny(tok, ".,") {
		return []string{tok}
	}
	var out []string
	for _, part := range strings.Split(tok, ",") {
		runs := strings.Split(part, ".")
		for len(runs) >= 2 {
			out = append(out, runs[0]+"."+runs[1])
			runs = runs[2:]
		}
		out = append(out, runs...)
	}
	return out
}

// stopWords are the function words, and the verbs a criterion points at
// the output with, that a criterion's content words leave out.
var stopWords = lex.Named("criterion-stop-words")

// isStopWord reports whether the lower-cased word w is one of stopWords.
func isStopWord(w string) bool { return lex.Lookup(w).In(stopWords) }
