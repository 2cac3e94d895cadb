package claimtext

import "strings"

// RunClaim is a claim that the agent saw its work run: "I tested the fix
// with the reproduction script", "verified that the fix works", "it now
// raises a clear `ValueError`".
type RunClaim struct {
	// Text is the word or phrase the claim was read from ("tested",
	// "verified", "now raises").
	Text string
	// Sentence is the sentence it is in.
	Sentence string
	// Outcomes are what the sentence says the run showed, as written: the
	// code spans and quoted text after an outcome verb, exception names
	// (ValueError, TypeError), and the number a run returns or prints.
	Outcomes []string
}

// RunClaims returns the claims of an agent's summary that it ran its work
// and saw it behave, at most one a sentence, in order. A claim is
//   - "tested" (done), or "verified", "confirmed", "validated" or "checked"
//     (done) followed in its sentence by what the code does ("works",
//     "now raises", "prints") or by a fix ("the bug is fixed");
//   - an outcome verb after "now": "it now raises ValueError".
//
// that no negation, intention, condition or instruction governs. A
// sentence about tests ("all 40 tests pass", "tested with the test suite")
// is a test claim, read by [TestClaims], not here; questions claim nothing.
// Verifying by looking ("I verified the config has the key") claims no
// run and is not read.
func RunClaims(summary string) []RunClaim {
	sc := newScanner(summary)
	defer sc.release()
	var out []RunClaim
	for sc.next() {
		if sc.question || sc.aboutTests() {
			continue
		}
		if c, ok := sc.runClaim(); ok {
			out = append(out, c)
		}
	}
	return out
}

// aboutTests reports a sentence with a test subject: a test noun, a test
// subject word or a test command in code.
func (sc *scanner) aboutTests() bool {
	for i := range sc.toks {
		t := &sc.toks[i]
		if t.kind == tWord && t.ent() != nil && (t.ent().noun == "test" || t.ent().flags&wTestSubject != 0) || t.kind == tCode && sc.testCommand(t) {
			return true
		}
	}
	return false
}

// runClaim reads the run claim of the current sentence.
func (sc *scanner) runClaim() (RunClaim, bool) {
	for k := range sc.toks {
		t := &sc.toks[k]
		e := t.ent()
		if t.kind != tWord || e == nil {
			continue
		}
		var text string
		outcomeAt := -1
		switch {
		case e.outcome && k > 0 && strings.EqualFold(sc.toks[k-1].text(sc.s), "now"):
			text, outcomeAt = sc.s[sc.toks[k-1].start:t.end], k
		case e.form == formDone && e.verb == "test":
			text = t.text(sc.s)
			outcomeAt = sc.outcomeAfter(k)
		case e.form == formDone && e.verb == "verify":
			if outcomeAt = sc.outcomeAfter(k); outcomeAt < 0 && !sc.fixAfter(k) {
				continue
			}
			text = t.text(sc.s)
		default:
			continue
		}
		if b := sc.before(k); b.excluded || b.neg || sc.negAfter(k) {
			continue
		}
		c := RunClaim{Text: text, Sentence: sc.s}
		if outcomeAt >= 0 {
			c.Outcomes = sc.outcomes(outcomeAt)
		}
		return c, true
	}
	return RunClaim{}, false
}

// outcomeAfter returns the index of the first outcome verb after token k,
// -1 if none.
func (sc *scanner) outcomeAfter(k int) int {
	for j := k + 1; j < len(sc.toks); j++ {
		if t := &sc.toks[j]; t.kind == tWord && t.ent() != nil && t.ent().outcome {
			return j
		}
	}
	return -1
}

// fixAfter reports a verb of fixing after token k: "verified that the bug
// is fixed", "confirmed it resolves the crash".
func (sc *scanner) fixAfter(k int) bool {
	for j := k + 1; j < len(sc.toks); j++ {
		if t := &sc.toks[j]; t.kind == tWord && t.ent() != nil && t.ent().verb == "fix" {
			return true
		}
	}
	return false
}

// outcomes returns what the clause after the outcome verb at k says the
// run showed: code spans, quoted text, exception names and numbers.
func (sc *scanner) outcomes(k int) []string {
	var out []string
	add := func(s string, min int) {
		if s = strings.TrimSpace(s); len(s) >= min {
			out = append(out, s)
		}
	}
	quote := -1
	for j := k + 1; j < len(sc.toks); j++ {
		t := &sc.toks[j]
		switch t.kind {
		case tPunct:
			switch {
			case t.punct == '"' && quote < 0:
				quote = j
			case t.punct == '"':
				add(sc.s[sc.toks[quote].end:t.start], 2)
				quote = -1
			case quote < 0 && (t.punct == ';' || t.punct == '('):
				return out
			}
		case tCode:
			if quote < 0 {
				add(codeText(sc.s, t), 2)
			}
		case tNum:
			if quote < 0 && len(out) == 0 {
				add(t.text(sc.s), 1)
			}
		case tWord, tIdent:
			if quote < 0 && (t.is(wNeg) || sc.insteadAt(j)) {
				return out // "instead of a TypeError", "not a crash"
			}
			if w := t.text(sc.s); quote < 0 && isExceptionName(w) {
				add(w, 2)
			}
		}
	}
	return out
}

// insteadAt reports "instead" or "rather" at token j: what follows is
// what the run no longer shows.
func (sc *scanner) insteadAt(j int) bool {
	w := sc.toks[j].text(sc.s)
	return strings.EqualFold(w, "instead") || strings.EqualFold(w, "rather")
}

// isExceptionName reports a name written like an exception class:
// ValueError, IllegalArgumentException, KeyError.
func isExceptionName(w string) bool {
	if w == "" || w[0] < 'A' || w[0] > 'Z' {
		return false
	}
	for _, suf := range [...]string{"Error", "Exception"} {
		if len(w) > len(suf) && strings.HasSuffix(w, suf) {
			return true
		}
	}
	return false
}
