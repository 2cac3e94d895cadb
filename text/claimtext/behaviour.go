package claimtext

import (
	"slices"
	"strings"

	"github.com/vouchgate/vouch/text/lex"
)

// BehaviourClaim is a claim that the work does not change what the code
// does: "No behaviour change.", "no functional changes", "behavior is
// unchanged", "without changing any behaviour".
type BehaviourClaim struct {
	// Text is the phrase the claim was read from.
	Text string
	// Sentence is the sentence it is in, with markdown markers removed.
	Sentence string
	// Qualified is set when the sentence narrows the claim after the
	// phrase ("no behaviour change for existing callers", "no functional
	// change except the new flag"): the claim is then about part of the
	// code, which a reader cannot tell.
	Qualified bool
}

// behaviourNouns are the words "no ... change" speaks of when it claims
// the code does the same.
var behaviourNouns = lex.Named("behaviour-nouns").Set()

// sameWords say that behaviour is kept: "behaviour is unchanged".
var sameWords = map[string]bool{"unchanged": true, "preserved": true, "identical": true, "unaffected": true}

// hedges before the phrase make it no claim: "there should be no
// behaviour change", "I expect no functional change".
var hedges = lex.Named("behaviour-hedges").Set()

// unqualifying words after the phrase do not narrow it: "no behaviour
// change at all".
var unqualifying = map[string]bool{"at": true, "all": true, "whatsoever": true, "here": true}

// narrowing words before the phrase, anywhere in its sentence, make it
// speak of the rest of the work only: "Fixes the off-by-one; otherwise no
// behaviour change", "Apart from the fix, ...", "Other than the new log
// line, ...", "For existing callers, ...".
var narrowing = lex.Named("behaviour-narrowing").Set()

// The word lists BehaviourClaims reads, built once.
var (
	bModals  = lex.Named("modals").Set()
	bConds   = lex.Named("conditionals").Set()
	bFuture  = lex.Named("future-markers").Set()
	bIntent  = lex.Named("intent-before").Set()
	bNegates = lex.Named("negations").Set()
)

// behaviourStems are in every phrase BehaviourClaims reads: a summary
// without any holds no claim.
var behaviourStems = []string{"behavio", "functional", "logic", "semantic", "runtime", "cosmetic"}

// BehaviourClaims returns the claims of an agent's summary that its work
// keeps the code's behaviour, at most one a sentence, in order. A claim is
// one of the phrases
//
//   - "no behaviour change(s)", "no behavioral/functional/logic/semantic/
//     runtime change(s)", "no change(s) in/to (the) behaviour", "no
//     non-test code change" is not one (it speaks of code, not behaviour);
//   - "behaviour/functionality is (left) unchanged/preserved/identical",
//     "behaviour stays the same";
//   - "does not change (the/any) behaviour", "without changing (the/any)
//     behaviour/functionality/logic";
//   - "non-functional change", "purely cosmetic";
//
// that no modal, hedge, condition, future marker or intention before it
// governs ("should be no behaviour change", "if there is no behaviour
// change", "to make sure behaviour is unchanged"), in a sentence that is
// not a question. British and American spellings are both read. A claim
// narrowed by what comes after it ("no behaviour change for callers",
// "... intended") or by a word before it in its sentence ("otherwise",
// "apart from", "other than", "for existing users") is Qualified.
func BehaviourClaims(summary string) []BehaviourClaim {
	if !slices.ContainsFunc(behaviourStems, func(stem string) bool { return containsFold(summary, stem) }) {
		return nil
	}
	it := sentences{m: lexicon(), text: cleanMarkdown(summary)}
	modal, cond, future, intent, neg := bModals, bConds, bFuture, bIntent, bNegates
	var out []BehaviourClaim
	for {
		s, question, ok := it.next()
		if !ok {
			return out
		}
		if question {
			continue
		}
		words := behaviourWords(s)
		lo, hi := matchBehaviour(words)
		if lo < 0 {
			continue
		}
		governed := false
		for _, w := range words[:lo] {
			t := w.lower
			if modal[t] || cond[t] || future[t] || intent[t] || hedges[t] || neg[t] {
				governed = true
			}
			if w.stop {
				governed = false // a new clause
			}
		}
		if governed {
			continue
		}
		c := BehaviourClaim{Text: s[words[lo].start:words[hi-1].end], Sentence: s}
		c.Qualified = slices.ContainsFunc(words[:lo], func(w bword) bool { return narrowing[w.lower] })
		if !c.Qualified && !words[hi-1].stop {
			for _, w := range words[hi:] {
				if !unqualifying[w.lower] {
					c.Qualified = true
					break
				}
				if w.stop {
					break
				}
			}
		}
		out = append(out, c)
	}
}

// bword is a word of a sentence, lower-cased, with its place; stop marks
// a clause boundary after it (",", ";", ":", a dash, a parenthesis).
type bword struct {
	lower      string
	start, end int
	stop       bool
}

// behaviourWords splits a sentence into words (lex.Scan, apostrophes
// inside words: "doesn't"; a hyphen joins nothing: "non-functional" is two
// words) and marks where clauses end.
func behaviourWords(s string) []bword {
	var out []bword
	lex.Scan(s, lex.Options{Apostrophes: true}, func(start, end int) {
		if len(out) > 0 && strings.ContainsAny(s[out[len(out)-1].end:start], ",;:()—–") {
			out[len(out)-1].stop = true
		}
		out = append(out, bword{lower: strings.ToLower(s[start:end]), start: start, end: end})
	})
	if len(out) > 0 && strings.ContainsAny(s[out[len(out)-1].end:], ",;:()—–") {
		out[len(out)-1].stop = true
	}
	return out
}

// matchBehaviour finds the first behaviour phrase in words and returns its
// word range, or -1, -1.
func matchBehaviour(words []bword) (lo, hi int) {
	w := func(i int) string {
		if i < len(words) {
			return strings.ReplaceAll(words[i].lower, "’", "'")
		}
		return ""
	}
	change := func(i int) bool { return w(i) == "change" || w(i) == "changes" }
	for i := range words {
		switch w(i) {
		case "no":
			j := i + 1
			if behaviourNouns[w(j)] && change(j+1) {
				return i, j + 2
			}
			// "no change(s) in/to (the) behaviour"
			if change(j) && (w(j+1) == "in" || w(j+1) == "to") {
				k := j + 2
				if w(k) == "the" || w(k) == "any" || w(k) == "existing" {
					k++
				}
				if behaviourNouns[w(k)] {
					return i, k + 1
				}
			}
		case "behaviour", "behavior", "functionality", "semantics":
			j := i + 1
			for w(j) == "is" || w(j) == "are" || w(j) == "remains" || w(j) == "remain" || w(j) == "stays" || w(j) == "stay" || w(j) == "left" || w(j) == "was" || w(j) == "kept" {
				j++
			}
			if j > i+1 && sameWords[w(j)] {
				return i, j + 1
			}
			if j > i+1 && w(j) == "the" && w(j+1) == "same" {
				return i, j + 2
			}
		case "does", "do", "did":
			if (w(i+1) == "not" || w(i+1) == "n't") && w(i+2) == "change" {
				if k := behaviourObject(w, i+3); k > 0 {
					return i, k
				}
			}
		case "doesn't", "don't", "didn't":
			if w(i+1) == "change" {
				if k := behaviourObject(w, i+2); k > 0 {
					return i, k
				}
			}
		case "without":
			if w(i+1) == "changing" {
				if k := behaviourObject(w, i+2); k > 0 {
					return i, k
				}
			}
			if w(i+1) == "any" && behaviourNouns[w(i+2)] && change(i+3) {
				return i, i + 4
			}
		case "non":
			if w(i+1) == "functional" && change(i+2) {
				return i, i + 3
			}
		case "purely":
			if w(i+1) == "cosmetic" {
				return i, i + 2
			}
		}
	}
	return -1, -1
}

// behaviourObject reads "(the/any) behaviour" from word i and returns the
// index after it, or 0.
func behaviourObject(w func(int) string, i int) int {
	if w(i) == "the" || w(i) == "any" || w(i) == "existing" {
		i++
	}
	switch w(i) {
	case "behaviour", "behavior", "functionality", "semantics", "logic":
		return i + 1
	}
	return 0
}

// containsFold reports whether s holds the lower-case ASCII sub, in any
// case.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}
