package claimtext

// TestClaim is a claim about test results: "all tests pass", "tests are
// green", "12 tests passed", "the test suite passes", "no failures", "2 tests
// failed", "10 of 12 pass".
type TestClaim struct {
	// Text is the phrase the claim was read from.
	Text string
	// Sentence is the sentence it is in, with markdown markers removed.
	Sentence string
	// Passed says the agent claims the tests pass: it speaks of passing and
	// of no failure.
	Passed bool
	// Count is the number of tests claimed to pass, 0 when not said. Counts
	// joined by "+" add up ("65 tests + 14 doctests"); of several others the
	// largest is taken ("127 tests + 14 doctests ... = 157 total tests").
	Count int
	// Failed is the number of tests claimed to fail, 0 when none or not said
	// ("10 of 12 pass": 2).
	Failed int
	// Scope holds the words that narrow the counted tests to part of a
	// suite, as written: names the lexicon does not know, code spans and
	// capitalised words between the count and its noun ("all 15
	// SessionLive tests": SessionLive). It is empty for a count without
	// them and for counts joined by "+".
	Scope []string
	// Qualified is set when any word narrows the count, known to the
	// lexicon or not ("all 12 new tests", "5 unit tests"): such a count
	// may be of part of a run. Words that only total ("157 total tests",
	// "410 passing tests") do not qualify it.
	Qualified bool
}

// TestClaims returns the test-result claims of an agent's summary, at most
// one per sentence, in order; the last one is the agent's final word. A
// sentence claims a test result when it speaks of tests (a test noun, "the
// suite", "CI", "all green") and of passing or failing. Intentions ("I'll
// make sure all tests pass"), questions, conditions, instructions and results
// put before the work ("tests were failing before the change") are not
// claims. Negation turns a result around: "no tests failed" passes, "not all
// tests pass" fails.
func TestClaims(summary string) []TestClaim {
	sc := newScanner(summary)
	defer sc.release()
	var out []TestClaim
	for sc.next() {
		if !sc.question {
			sc.findCands()
			if tc, ok := sc.testClaim(); ok {
				out = append(out, tc)
			}
		}
		sc.lastNoun()
	}
	return out
}

// testClaim reads the test claim of the current sentence.
func (sc *scanner) testClaim() (TestClaim, bool) {
	toks := sc.toks
	subject := false
	for i := range toks {
		t := &toks[i]
		if t.kind == tWord && t.ent() != nil && (t.ent().noun == "test" || t.ent().flags&wTestSubject != 0) || t.kind == tCode && sc.testCommand(t) {
			subject = true
			break
		}
	}
	for i := range sc.cands {
		if c := &sc.cands[i]; !c.excluded && c.noun == "test" {
			subject = true
		}
	}
	if !subject {
		return TestClaim{}, false
	}
	pass, fail := false, false
	lo, hi := -1, -1
	grow := func(a, b int) {
		if lo < 0 || a < lo {
			lo = a
		}
		if b > hi {
			hi = b
		}
	}
	failed, cur, best, prevEnd := 0, 0, 0, -1
	var scope, bestScope []string
	joined, qual, bestQual := false, false, false
	for i := range sc.cands {
		c := &sc.cands[i]
		if c.excluded || c.noun != "test" || !resultClasses[c.action] {
			continue
		}
		if sc.historic(c.start) {
			continue
		}
		grow(c.spanLo, c.spanHi)
		switch c.action {
		case "pass":
			if c.neg {
				fail = true
				continue
			}
			pass = true
			if c.num > 0 {
				if prevEnd >= 0 && sc.plusJoined(prevEnd, c.start) {
					cur += c.num
					joined = true
				} else {
					if cur > best {
						best, bestScope, bestQual = cur, scope, qual
					}
					scope, qual = sc.scopeOf(c)
					cur, joined = c.num, false
				}
				if joined {
					scope, qual = nil, true
				}
				prevEnd = c.end
			}
			if c.total > c.num {
				fail = true
				failed += c.total - c.num
			}
		case "fail":
			if c.neg || c.hasNum && c.num == 0 {
				pass = true
			} else {
				fail = true
				failed += c.num
			}
		}
	}
	if cur > best {
		best, bestScope, bestQual = cur, scope, qual
	}
	for k := range toks {
		sig := signal(&toks[k])
		if sig == 0 || sc.inCand(k) || sc.attributive(k) {
			continue
		}
		if !sc.subjectNear(k) && !(k > 0 && sc.toks[k-1].is(wQuant|wPronoun)) {
			continue // "all pass" speaks of the tests of the sentence
		}
		excluded, neg := sc.signalContext(k)
		if excluded || sc.historic(k) {
			continue
		}
		if neg {
			sig = -sig
		}
		if sig > 0 {
			pass = true
		} else {
			fail = true
		}
		grow(k, k)
	}
	if !pass && !fail {
		return TestClaim{}, false
	}
	return TestClaim{
		Text:      sc.span(lo, hi),
		Sentence:  sc.s,
		Passed:    pass && !fail,
		Count:     best,
		Failed:    failed,
		Scope:     bestScope,
		Qualified: bestQual,
	}, true
}

// scopeOf returns the words of a count phrase that name what it counts:
// between its number and its noun, the code spans, identifiers and words
// the lexicon does not know or that are capitalised ("15 SessionLive
// tests", "3 `parser` tests"); qualified is set when any word there
// narrows the count (see TestClaim.Qualified).
func (sc *scanner) scopeOf(c *cand) (scope []string, qualified bool) {
	for k := c.start; k < c.head && k < len(sc.toks); k++ {
		t := &sc.toks[k]
		switch t.kind {
		case tCode:
			scope = append(scope, codeText(sc.s, t))
		case tIdent, tOther:
			scope = append(scope, t.text(sc.s))
		case tWord:
			e := t.ent()
			if e == nil || t.camel || (t.upper && k > 0 && sc.toks[k-1].kind != tPunct) {
				scope = append(scope, t.text(sc.s))
			} else if e.flags&(wDet|wQuant|wNumber|wQFiller|wCountTotal) != 0 {
				continue
			}
			qualified = true
		}
	}
	return scope, qualified || len(scope) > 0
}

// subjectNear reports a test subject in the clause segment of token k: "the
// suite passes", "no tests failed", "all green".
func (sc *scanner) subjectNear(k int) bool {
	isSubject := func(j int) bool {
		t := &sc.toks[j]
		if t.kind == tCode {
			return sc.testCommand(t)
		}
		return t.kind == tWord && t.ent() != nil && (t.ent().noun == "test" || t.ent().flags&wTestSubject != 0)
	}
	for j := k; j >= 0; j-- {
		if isSubject(j) {
			return true
		}
		if j != k && sc.segmentEnd(j) {
			break
		}
	}
	for j := k + 1; j < len(sc.toks) && !sc.segmentEnd(j); j++ {
		if isSubject(j) {
			return true
		}
	}
	return false
}

// testCommand reports a code span that runs tests: "`go test ./...`",
// "`npm test`", "`pytest -q`".
func (sc *scanner) testCommand(t *token) bool {
	code := codeText(sc.s, t)
	for len(code) > 0 {
		i := 0
		for i < len(code) && (byteClass[code[i]]&(cLower|cUpper) != 0) {
			i++
		}
		if i > 0 {
			if e := sc.m.lookup(code[:i]); e != nil && (e.noun == "test" || e.flags&wTestSubject != 0) {
				return true
			}
		} else {
			i = 1
		}
		code = code[i:]
	}
	return false
}

// signal is +1 for a word of passing, -1 for one of failing, else 0.
func signal(t *token) int {
	e := t.ent()
	if t.kind != tWord || e == nil {
		return 0
	}
	switch {
	case e.flags&wPassSignal != 0, e.verb == "pass", e.flags&wPassWord != 0:
		return 1
	case e.verb == "fail", e.flags&wFailWord != 0, e.implies == "fail":
		return -1
	}
	return 0
}

// inCand reports a token inside a resolved candidate.
func (sc *scanner) inCand(k int) bool {
	for i := range sc.cands {
		c := &sc.cands[i]
		if !c.excluded && c.action != "" && k >= c.spanLo && k <= c.spanHi {
			return true
		}
	}
	return false
}

// plusJoined reports that a "+" stands between tokens a and b, and nothing
// but commas, parentheses and conjunctions.
func (sc *scanner) plusJoined(a, b int) bool {
	plus := false
	for k := a; k < b; k++ {
		if sc.punctIs(k, '+') || sc.wordHas(k, wSum) {
			plus = true
		}
	}
	return plus && sc.coordinated(a, b)
}

// signalContext reads the clause of a result word: excluded for an intention,
// a condition or an instruction; neg for a negation ("not all tests pass",
// "no tests failed").
func (sc *scanner) signalContext(k int) (excluded, neg bool) {
	b := sc.before(k)
	neg = b.neg
	for j := k - 1; j >= b.segStart; j-- {
		if sc.wordHas(j, wResultNeg) {
			neg = true
		}
	}
	return b.excluded, neg
}

// historic reports a historic marker in the clause of token k: "tests were
// failing before the change".
func (sc *scanner) historic(k int) bool {
	toks := sc.toks
	for j := k; j >= 0; j-- {
		if sc.segmentEnd(j) && j != k {
			break
		}
		if toks[j].is(wHistoric) {
			return true
		}
	}
	for j := k + 1; j < len(toks); j++ {
		if sc.segmentEnd(j) {
			break
		}
		if toks[j].is(wHistoric) {
			return true
		}
	}
	return false
}

// segmentEnd reports a token that ends a clause segment.
func (sc *scanner) segmentEnd(j int) bool {
	t := &sc.toks[j]
	if t.kind == tPunct {
		switch t.punct {
		case ',', ';', '-', '|', '(', ')', '!', '?':
			return true
		}
		return false
	}
	return t.is(wBreak)
}
