package claims

import (
	"strings"

	"github.com/vouchgate/vouch/text/lex"
)

// Error words are matched on word boundaries, and a match is a false alarm
// when its neighbours show the text talks about errors rather than reports
// one: "added error handling", "no errors", "fixed the failing test". The
// tables are the one place these phrasings live.
var (
	// benignBefore are words that, among the two words before an error
	// word, make it benign.
	benignBefore = lex.Named("error-benign-before").Set()
	// benignAfter are words that, right after an error word, make it a
	// noun modifier: "error handling", "failure modes".
	benignAfter = lex.Named("error-benign-after").Set()
)

// ErrorWords returns the phrases of text in which one of the error words
// (case-insensitive, whole words; a word may be several, "timed out")
// reports a failure, skipping mentions that only talk about errors.
func ErrorWords(text string, words []string) []string {
	toks := tokens(strings.ToLower(text))
	var hits []string
	for _, w := range words {
		wt := tokens(strings.ToLower(w))
		if len(wt) == 0 {
			continue
		}
		for i := 0; i+len(wt) <= len(toks); i++ {
			if !match(toks[i:i+len(wt)], wt) {
				continue
			}
			if benign(toks, i, i+len(wt)) {
				continue
			}
			hits = append(hits, phrase(toks, i, i+len(wt)))
		}
	}
	return hits
}

func match(a, b []string) bool {
	for i := range b {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func benign(toks []string, start, end int) bool {
	for j := max(0, start-2); j < start; j++ {
		if benignBefore[toks[j]] {
			return true
		}
	}
	return end < len(toks) && benignAfter[toks[end]]
}

// phrase returns the match with a word of context on each side.
func phrase(toks []string, start, end int) string {
	return strings.Join(toks[max(0, start-1):min(len(toks), end+2)], " ")
}

// tokens splits lowered text into words (see [lex.Words]); an apostrophe
// between letters stays inside a word ("couldn't").
func tokens(s string) []string {
	return lex.Words(s, lex.Options{Apostrophes: true})
}
