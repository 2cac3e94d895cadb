package claimtext

import (
	"strings"
	"sync"
)

// scanner holds the state of one reading of a text: its sentences, the
// tokens of the current one and the candidates found in it. Scanners are
// pooled; nothing in one outlives a call.
type scanner struct {
	m        lexView
	it       sentences
	s        string // the current sentence
	question bool
	toks     []token
	cands    []cand
	items    []int  // token indices of listed items; cands hold ranges of it
	prevNoun string // the last noun class of the sentences before
	approxOK bool   // approximate counts are counts ("at least 3 tests" in a goal)
}

var scannerPool = sync.Pool{New: func() any {
	return &scanner{toks: make([]token, 0, 64), cands: make([]cand, 0, 8), items: make([]int, 0, 16)}
}}

func newScanner(text string) *scanner {
	sc := scannerPool.Get().(*scanner)
	sc.m = lexicon()
	sc.it = sentences{m: sc.m, text: cleanMarkdown(text)}
	sc.prevNoun = ""
	sc.approxOK = false
	return sc
}

func (sc *scanner) release() {
	sc.it = sentences{}
	sc.s = ""
	scannerPool.Put(sc)
}

// next moves to the next sentence and tokenizes it.
func (sc *scanner) next() bool {
	s, q, ok := sc.it.next()
	if !ok {
		return false
	}
	sc.s, sc.question = s, q
	sc.toks = applyPhrases(s, tokenize(sc.m, s, sc.toks[:0]))
	sc.cands = sc.cands[:0]
	sc.items = sc.items[:0]
	return true
}

// cand is a candidate count claim in the current sentence.
type cand struct {
	start, end int // token range of the count phrase: [start, end)
	num, total int
	hasNum     bool
	all        bool
	noun       string
	head       int // token of the noun; -1 when elided or none
	elided     bool
	itemLo     int // range of sc.items
	itemHi     int
	needAfter  bool // only a verb after it can make it a claim
	verbless   bool // its clause has no verb

	action   string
	neg      bool
	excluded bool // future, question, condition, instruction
	spanLo   int  // token range of the whole claim, for Text
	spanHi   int
}

// wordHas reports a word token k whose lexicon entry has one of the flags f.
func (sc *scanner) wordHas(k int, f wflag) bool {
	return k >= 0 && k < len(sc.toks) && sc.toks[k].kind == tWord && sc.toks[k].is(f)
}

func (sc *scanner) punctIs(k int, p byte) bool {
	return k >= 0 && k < len(sc.toks) && sc.toks[k].kind == tPunct && sc.toks[k].punct == p
}

// findCands fills sc.cands with the candidate claims of the sentence,
// resolved.
func (sc *scanner) findCands() {
	n := len(sc.toks)
	var c cand
	for i := 0; i < n; i++ {
		ok := false
		t := &sc.toks[i]
		switch {
		case t.kind == tWord && t.is(wQuant):
			ok = sc.parseQuant(i, &c)
		case t.kind == tNum:
			ok = sc.parseNum(i, &c)
		default:
			ok = sc.parseList(i, &c)
		}
		if !ok {
			continue
		}
		sc.resolve(&c)
		sc.cands = append(sc.cands, c)
		i = c.end - 1
	}
	sc.postResolve()
}

// parseQuant reads "all 4 methods", "each of the 4", "every exported
// function", "both files", "both parse and tokenize".
func (sc *scanner) parseQuant(i int, out *cand) bool {
	toks := sc.toks
	n := len(toks)
	c := out
	*c = cand{start: i, all: true, head: -1}
	k := i + 1
	for k < n {
		u := &toks[k]
		if u.kind == tNum && u.val == 1 && sc.wordHas(k+1, wOf) {
			k += 2
			continue
		}
		if u.kind != tWord || !u.is(wQFiller) {
			break
		}
		k++
	}
	if k < n && toks[k].kind == tNum && !sc.numBlocked(k) {
		c.num, c.hasNum = toks[k].val, true
		k++
		if sc.wordHas(k, wOf) {
			k++
			for k < n && toks[k].is(wDet) {
				k++
			}
		}
	} else if toks[i].ent().num == 2 {
		c.num, c.hasNum = 2, true
	}
	if head, end := sc.nounRun(k); head >= 0 {
		c.head, c.noun, c.end = head, toks[head].ent().noun, end
		if c.noun == "" {
			c.head, c.elided = -1, true
			return c.hasNum
		}
		sc.attachItems(c)
		return true
	}
	lo := len(sc.items)
	if cnt, next, plain := sc.parseItems(k); cnt > 0 && (!plain || cnt > 1) {
		c.itemLo, c.itemHi = lo, len(sc.items)
		if !c.hasNum {
			c.num, c.hasNum = cnt, true
		}
		c.end = next
		if next < n && toks[next].ent() != nil && symbolClasses[toks[next].ent().noun] {
			c.head, c.noun = next, toks[next].ent().noun
			c.end = next + 1
		} else {
			c.noun = sc.listNoun(lo)
		}
		return true
	}
	sc.items = sc.items[:lo]
	if c.hasNum && sc.elidable(k) {
		c.elided = true
		c.end = k
		if k < n && toks[k].is(wPronoun) {
			c.end = k + 1 // "both of them"
		}
		return true
	}
	return false
}

// numBlocked reports a number that a label, an approximation or its shape
// makes no count: "line 4", "Python 3", "about 10", "N=0", "Phase 1 of 3".
func (sc *scanner) numBlocked(i int) bool {
	if i == 0 {
		return false
	}
	p := &sc.toks[i-1]
	switch p.kind {
	case tOther, tNum, tIdent:
		return true
	case tPunct:
		switch p.punct {
		case '=', '<', '>':
			return p.end == sc.toks[i].start // "N=0", but not "= 157 total tests"
		case '/', '#':
			return true
		}
		return false
	}
	if p.is(wLabel) || p.is(wApprox) && !sc.approxOK {
		return true
	}
	if i >= 2 && p.is(wOf) && (sc.toks[i-2].kind == tNum || sc.toks[i-2].kind == tOther) {
		return true
	}
	// "half of the 8 tests"
	for j := i - 1; j >= 0 && j >= i-3; j-- {
		u := &sc.toks[j]
		if u.is(wFraction) {
			return true
		}
		if !u.is(wDet | wOf) {
			break
		}
	}
	return false
}

// elidable reports that what follows a count at k lets its noun be elided:
// the end, punctuation, or a verb ("12 passed", "the other 2 are still
// undocumented", "both of them"); not a word that is the unknown noun of the
// count ("3 network calls", "120 insertions").
func (sc *scanner) elidable(k int) bool {
	if k >= len(sc.toks) {
		return true
	}
	u := &sc.toks[k]
	switch u.kind {
	case tPunct:
		return true
	case tWord:
	default:
		return false
	}
	e := u.ent()
	if e == nil {
		return false
	}
	if e.verb != "" && e.noun == "" {
		return true
	}
	const ok = wAux | wAdverb | wGap | wNeg | wModal | wFuture | wNew | wPrep | wConj | wBreak | wRelative | wPronoun
	return e.flags&ok != 0 || e.flags&wOtherVerb != 0 && e.flags&wGap != 0
}

// afterOf reads what follows the "of" at token j of "N of [the] M": k
// is the first token past the determiners, det whether there were any,
// and total the number M when token k is one (ok).
func (sc *scanner) afterOf(j int) (total, k int, det, ok bool) {
	k = j + 1
	for k < len(sc.toks) && sc.toks[k].is(wDet) {
		k++
		det = true
	}
	if k < len(sc.toks) && sc.toks[k].kind == tNum {
		return sc.toks[k].val, k, det, true
	}
	return 0, k, det, false
}

// parseNum reads "4 methods", "4 of 4 methods", "12/12 tests", "1 of the 4
// methods", "3 of them", "12 passed" (noun elided).
func (sc *scanner) parseNum(i int, out *cand) bool {
	toks := sc.toks
	n := len(toks)
	if sc.numBlocked(i) {
		return false
	}
	c := out
	*c = cand{start: i, num: toks[i].val, hasNum: true, head: -1}
	k := i + 1
	switch {
	case sc.punctIs(k, '/') && k+1 < n && toks[k+1].kind == tNum:
		c.total = toks[k+1].val
		k += 2
	case sc.wordHas(k, wOf):
		total, k2, det, ok := sc.afterOf(k)
		switch {
		case ok:
			c.total, k = total, k2+1
		case sc.wordHas(k2, wPronoun):
			c.end = k2 + 1
			c.elided = true
			return true
		case det:
			k = k2
		}
	}
	if c.total > 0 && c.total == c.num {
		c.all = true
	}
	if c.num >= 100 && c.num <= 599 && k < n && toks[k].is(wHTTPNoun) {
		return false
	}
	if head, end := sc.nounRun(k); head >= 0 {
		c.head, c.noun, c.end = head, toks[head].ent().noun, end
		if c.noun == "" {
			c.head, c.elided = -1, true
			return true
		}
		sc.attachItems(c)
		return true
	}
	if !sc.elidable(k) {
		return false
	}
	c.elided = true
	c.end = k
	return true
}

// runStops end a noun phrase.
const runStops = wAux | wOtherVerb | wModal | wFuture | wNeg | wPrep | wConj | wDet | wQuant | wBreak | wRelative | wCond

// nounRun finds the head noun of the phrase starting at k: up to five
// modifiers and nouns ("4 exported functions", "9 renderer edge cases", "3
// test files"); the head is the last noun before the phrase ends.
func (sc *scanner) nounRun(k int) (head, end int) {
	head = -1
	toks := sc.toks
	for j := k; j < len(toks) && j < k+5; j++ {
		u := &toks[j]
		switch u.kind {
		case tPunct, tNum:
			return head, head + 1
		case tCode, tIdent, tOther:
			continue
		}
		e := u.ent()
		if e == nil {
			continue
		}
		if e.noun != "" {
			head = j
			continue
		}
		if e.flags&wProNoun != 0 {
			return j, j + 1 // "2 existing ones": the caller finds the noun
		}
		if e.flags&wOtherVerb != 0 && e.flags&(runStops&^wOtherVerb) == 0 && strings.HasSuffix(u.text(sc.s), "ed") {
			continue // "4 affected files", "3 required fields"
		}
		if e.flags&runStops != 0 {
			break
		}
		if e.verb != "" && (e.form == formBase || e.form == formS) {
			break
		}
	}
	return head, head + 1
}

// attachItems attaches a list of items that follows a counted noun: "3 files:
// a.go, b.go and c.go", "4 methods (parse, tokenize, ...)", "the functions
// parse, tokenize".
func (sc *scanner) attachItems(c *cand) {
	toks := sc.toks
	k := c.end
	var open byte
	if k < len(toks) && toks[k].kind == tPunct && (toks[k].punct == ':' || toks[k].punct == '(' || toks[k].punct == '-') {
		open = toks[k].punct
		k++
	}
	lo := len(sc.items)
	cnt, next, plain := sc.parseItems(k)
	if cnt == 0 || plain && !symbolClasses[c.noun] || cnt == 1 && open == 0 && plain {
		sc.items = sc.items[:lo]
		return
	}
	if open == '(' {
		if !sc.punctIs(next, ')') {
			sc.items = sc.items[:lo]
			return
		}
		next++
	}
	if sc.punctIs(next, ':') || sc.wordHas(next, wPair) {
		// "Renamed 2 files: `a.go` → `b.go` ...": pairs, not a list.
		sc.items = sc.items[:lo]
		return
	}
	c.itemLo, c.itemHi = lo, len(sc.items)
	c.end = next
}

// isItem reports a token that can be a listed item, and whether it is a plain
// word (not code, a path or an identifier).
func (sc *scanner) isItem(k int) (ok, plain bool) {
	u := &sc.toks[k]
	switch u.kind {
	case tCode:
		t := codeText(sc.s, u)
		return t != "" && strings.IndexByte(t, ' ') < 0, false
	case tIdent:
		return true, false
	case tWord:
		if u.call {
			return true, false
		}
		e := u.ent()
		w := u.text(sc.s)
		if len(w) < 2 || strings.HasSuffix(w, "ing") || strings.ContainsRune(w, '\'') {
			return false, true
		}
		if e == nil {
			return true, true
		}
		if e.flags == wCommon && u.named() && k > 0 && e.noun == "" && e.verb == "" {
			return true, true // "the Parser class"
		}
		if e.flags != 0 || e.noun != "" || len(e.phrases) > 0 && e.verb == "" {
			return false, true
		}
		return e.verb != "" && e.form != formDone, true
	}
	return false, false
}

// parseItems reads a list of items at k ("parse, tokenize and format",
// "`a.go` and `b.go`") into sc.items, returning their number, the token after
// the list, and whether any item is a plain word.
func (sc *scanner) parseItems(k int) (cnt, next int, plain bool) {
	toks := sc.toks
	n := len(toks)
	j := k
	next = k
	for j < n {
		ok, p := sc.isItem(j)
		if !ok {
			break
		}
		sc.items = append(sc.items, j)
		cnt++
		plain = plain || p
		j++
		next = j
		switch {
		case sc.punctIs(j, ','):
			if sc.wordHas(j+1, wJoin) || sc.punctIs(j+1, '&') {
				j += 2
			} else {
				j++
			}
		case sc.wordHas(j, wJoin) || sc.punctIs(j, '&'):
			j++
		default:
			return cnt, next, plain
		}
	}
	return cnt, next, plain
}

// parseList reads a list of items without a count, as the object of a
// verb that says the work is done ("Documented parse, tokenize and format",
// "Added JSDoc to `parse`", "Updated `a.go` and `b.go`") or before a symbol
// noun ("the parse and tokenize functions"). The list must open its phrase
// (see listOpener): in "Merged `A` into `B` JS hook" no list starts at JS.
func (sc *scanner) parseList(i int, out *cand) bool {
	if i > 0 && !sc.listOpener(i-1) {
		return false
	}
	ok, _ := sc.isItem(i)
	if !ok {
		return false
	}
	toks := sc.toks
	n := len(toks)
	lo := len(sc.items)
	cnt, next, plain := sc.parseItems(i)
	fail := func() bool {
		sc.items = sc.items[:lo]
		return false
	}
	c := out
	*c = cand{start: i, end: next, head: -1, itemLo: lo, itemHi: len(sc.items), num: cnt, hasNum: true}
	if next < n && toks[next].ent() != nil && symbolClasses[toks[next].ent().noun] {
		c.head, c.noun = next, toks[next].ent().noun
		c.end = next + 1
	}
	// The way back to the verb may pass only over determiners, doc and test
	// objects, symbol nouns, "to", "for", "on" and "both".
	verb := -1
	nounBefore := ""
	prep, obj := false, false
	for k := i - 1; k >= 0; k-- {
		u := &toks[k]
		if u.kind == tPunct && u.punct == ':' {
			continue
		}
		e := u.ent()
		if u.kind != tWord || e == nil {
			break
		}
		if e.verb != "" && e.form == formDone && e.noun == "" {
			if prep && !obj {
				// "added to `parser_test.go`": the place, not the object.
				break
			}
			verb = k
			break
		}
		switch {
		case e.flags&(wDoc|wTestObj) != 0:
			obj = true
		case e.flags&(wDet|wAdverb) != 0:
		case e.flags&wObjPrep != 0:
			prep, obj = true, false
		case e.flags&wQuant != 0 && e.num == 2:
			c.all = true
		case symbolClasses[e.noun]:
			nounBefore = e.noun
		default:
			k = -1
		}
	}
	single := cnt == 1
	if verb < 0 {
		// "The parse and tokenize functions are now documented", "`validate`
		// still needs a docstring": the verb must come after.
		c.needAfter = true
	}
	switch {
	case verb < 0 && c.head < 0 && (plain || !sc.after(next).neg):
		return fail()
	case single && plain && !(c.head >= 0 && (toks[i].named() || verb >= 0 && toks[i-1].is(wDet))):
		// "the Parser class"; "Added JSDoc to the parse function"; not "The
		// pre-commit hook".
		return fail()
	case plain && c.head < 0 && nounBefore == "" && !(verb >= 0 && toks[verb].ent().verb == "document"):
		return fail()
	}
	if plain {
		for _, k := range sc.items[lo:] {
			if u := &toks[k]; u.kind == tWord && !u.call && u.ent().has(wCommon) {
				return fail()
			}
		}
	}
	switch {
	case c.noun != "":
	case nounBefore != "":
		c.noun = nounBefore
	default:
		c.noun = sc.listNoun(lo)
	}
	return true
}

// listNoun is the noun class of the items sc.items[lo:] when no noun is
// written: "file" when all are paths, else "symbol".
func (sc *scanner) listNoun(lo int) string {
	for _, k := range sc.items[lo:] {
		if !looksLikeFile(sc.m, sc.itemText(k)) {
			return "symbol"
		}
	}
	return "file"
}

// listOpener reports a token after which a list before a symbol noun can
// start: a determiner, "both", "to", "for", "on", a doc or test object, a verb,
// or punctuation that opens a clause.
func (sc *scanner) listOpener(k int) bool {
	u := &sc.toks[k]
	if u.kind == tPunct {
		switch u.punct {
		case ':', ';', ',', '-', '|', '(':
			return true
		}
		return false
	}
	e := u.ent()
	if u.kind != tWord || e == nil {
		return false
	}
	if e.verb != "" || e.flags&(wDet|wQuant|wDoc|wTestObj|wAux|wOtherVerb) != 0 {
		return true
	}
	return e.flags&wObjPrep != 0
}

// itemText is the text of an item token: code without its backticks, and
// without a trailing "()".
func (sc *scanner) itemText(k int) string {
	u := &sc.toks[k]
	t := u.text(sc.s)
	if u.kind == tCode {
		t = codeText(sc.s, u)
	}
	return strings.TrimSuffix(t, "()")
}

// codeText is the content of a code token.
func codeText(s string, u *token) string {
	return strings.TrimSpace(strings.Trim(s[u.start:u.end], "`"))
}

// beforeInfo is what the clause before a count says.
type beforeInfo struct {
	verb     int // nearest verb, -1 if none
	action   string
	done     bool // the verb says the work is done
	neg      bool
	excluded bool // future, modal, condition, instruction
	docObj   bool // a doc object between the verb and the count
	testObj  bool
	adjacent bool // only determiners and adverbs between the verb and the count
	segStart int
	// unknownVerb: an unknown word in -ed stands before the count; it may be
	// an adjective ("detailed JSDoc") and does not stop the search for the
	// verb, but the clause is not verbless.
	unknownVerb bool
}

// before reads the clause before token start: its nearest verb, and the
// markers of intent, condition, instruction and negation.
func (sc *scanner) before(start int) beforeInfo {
	toks := sc.toks
	b := beforeInfo{verb: -1, adjacent: true}
	ingVerb := -1
	k := start - 1
walk:
	for ; k >= 0; k-- {
		u := &toks[k]
		switch u.kind {
		case tPunct:
			switch u.punct {
			case ')':
				depth := 0
				for ; k >= 0; k-- {
					if sc.punctIs(k, ')') {
						depth++
					} else if sc.punctIs(k, '(') {
						depth--
						if depth == 0 {
							break
						}
					}
				}
				if k < 0 {
					break walk
				}
				b.adjacent = false
				continue
			case ':':
				continue
			case '"', '+', '&', '/', '=', '<', '>', '[', ']':
				b.adjacent = false
				continue
			}
			break walk
		case tNum:
			if b.verb < 0 {
				break walk
			}
			continue
		case tCode, tIdent, tOther:
			if b.verb < 0 {
				b.adjacent = false
			}
			continue
		}
		e := u.ent()
		if e == nil {
			if b.verb < 0 {
				b.adjacent = false
				if strings.HasSuffix(u.text(sc.s), "ed") {
					// An unknown past form ("Released"): no action, but the
					// clause has a verb.
					b.unknownVerb = true
				}
			}
			continue
		}
		if e.flags&wBreak != 0 {
			break walk
		}
		if e.flags&(wFuture|wCond) != 0 || e.flags&wModal != 0 && !sc.negAfter(k) {
			b.excluded = true
		}
		if e.flags&wNeg != 0 {
			b.neg = true
		}
		if b.verb >= 0 {
			if ingVerb >= 0 && e.verb != "" && e.form == formDone && e.noun == "" {
				// "Added unit tests covering all 6 edge cases": the -ing verb
				// shares the completed verb's time.
				b.action, b.done = sc.toks[ingVerb].ent().verb, true
				ingVerb = -1
			}
			continue
		}
		switch {
		case e.verb != "" && (e.noun == "" || e.form == formDone || e.form == formBase && k > 0 && sc.toks[k-1].is(wNegAux|wEnabler|wIntentBefore|wModal|wFuture)):
			if e.form == formIng && !resultClasses[e.verb] {
				ingVerb = k
			}
			b.verb = k
			sc.judgeVerb(&b, k)
			continue
		case e.flags&(wOtherVerb|wAux) != 0 && e.noun == "":
			b.verb = k
			continue
		case e.flags&wDoc != 0:
			b.docObj = true
		case e.flags&wTestObj != 0:
			b.testObj = true
		}
		if e.flags&(wDet|wAdverb|wQuant) == 0 {
			b.adjacent = false
		}
	}
	b.segStart = k + 1
	if sc.imperative(b.segStart) {
		b.excluded = true
	}
	return b
}

// negAfter reports a negation right after token k: "could not".
func (sc *scanner) negAfter(k int) bool {
	return k+1 < len(sc.toks) && sc.toks[k+1].is(wNeg)
}

// judgeVerb decides whether the verb at k says the work is done.
func (sc *scanner) judgeVerb(b *beforeInfo, k int) {
	e := sc.toks[k].ent()
	var p *lexEntry
	if k > 0 {
		p = sc.toks[k-1].ent()
	}
	switch {
	case e.flags&wUnPart != 0:
		b.action, b.done, b.neg = e.verb, true, true
	case resultClasses[e.verb]:
		b.action, b.done = e.verb, true // "Tests passing: 31/31"
	case e.form == formDone:
		b.action, b.done = e.verb, true
	case e.form == formBase && p.has(wNegAux):
		b.action, b.done, b.neg = e.verb, true, true
	case e.form == formBase && p.has(wEnabler):
		b.action, b.done = e.verb, true
	case e.form == formIng && sc.wordHas(k-1, wSequence):
		b.action, b.done = e.verb, true
	case e.form == formBase && p.has(wIntentBefore):
		b.excluded = true
	}
}

// imperative reports a clause that starts with a verb in its base form: "Run
// all 12 tests", "Now add 3 tests", "Make sure all 4 methods have JSDoc".
func (sc *scanner) imperative(k int) bool {
	toks := sc.toks
	for k < len(toks) && (toks[k].is(wFiller) || toks[k].kind == tPunct) {
		k++
	}
	if k >= len(toks) || toks[k].kind != tWord || toks[k].ent() == nil {
		return false
	}
	e := toks[k].ent()
	if e.form != formBase && e.flags&wImperative == 0 {
		return false
	}
	if e.form == formBase && e.verb == "" && e.flags&wImperative == 0 {
		return false
	}
	if k+1 >= len(toks) || sc.punctIs(k+1, ':') {
		return false
	}
	if e.noun != "" {
		// "Test results: ...": a noun; "Test all 3 endpoints": a verb.
		nx := &toks[k+1]
		return nx.kind == tNum || nx.kind == tCode || nx.is(wDet|wQuant)
	}
	return true
}

// afterInfo is what follows a counted noun.
type afterInfo struct {
	action   string
	tok      int
	neg      bool
	ing      bool // the action is an -ing form ("12 tests passing")
	excluded bool
	sawVerb  bool // an auxiliary or a gap word followed
}

// after reads what follows the count phrase ending at k: "are now
// documented", "pass", "remain undocumented", "now have JSDoc", "should pass".
func (sc *scanner) after(k int) afterInfo {
	toks := sc.toks
	a := afterInfo{tok: -1}
	sawHave, gap, skipped := false, false, false
	for j := k; j < len(toks) && j < k+7; j++ {
		u := &toks[j]
		if u.kind != tWord || u.ent() == nil {
			return a
		}
		e := u.ent()
		switch {
		case e.flags&wUnPart != 0:
			a.action, a.tok, a.neg = e.verb, j, true
			return a
		case e.verb != "" && e.form == formDone && e.noun == "":
			a.action, a.tok = e.verb, j
			return a
		case e.verb != "" && resultClasses[e.verb]:
			a.action, a.tok, a.ing = e.verb, j, e.form == formIng
			return a
		case e.verb != "" && gap && (e.form == formBase || e.form == formIng):
			a.action, a.tok = e.verb, j
			return a
		case e.flags&wDoc != 0 && (sawHave || gap):
			a.action, a.tok = "document", j
			return a
		case e.flags&wGap != 0:
			gap, a.neg, a.sawVerb = true, true, true
		case e.flags&wNeg != 0:
			a.neg = true
		case e.flags&(wModal|wFuture) != 0:
			a.excluded = true
			return a
		case e.flags&wAux != 0:
			a.sawVerb = true
			if e.flags&wHave != 0 {
				sawHave = true
			}
		case e.flags&wAdverb != 0:
		case e.flags&wDet != 0 && (sawHave || gap):
		case gap && e.flags&wIntentBefore != 0: // "need to be documented"
		case e.flags&wPassWord != 0 && a.sawVerb:
			a.action, a.tok = "pass", j
			return a
		case e.flags&wFailWord != 0 && a.sawVerb && e.verb == "":
			a.action, a.tok = "fail", j // "3 tests are still red"
			return a
		case e.flags&wPlace != 0 && !a.sawVerb && !gap && !skipped:
			// "All 4 functions in src/parser.ts now have JSDoc": skip the
			// place.
			skipped = true
			for j+1 < len(toks) && j+1 < k+7 && sc.placeTail(j+1) {
				j++
			}
		default:
			return a
		}
	}
	return a
}

// placeTail reports a token that can be part of a place: a path, code, a
// determiner or a noun.
func (sc *scanner) placeTail(j int) bool {
	u := &sc.toks[j]
	switch u.kind {
	case tIdent, tCode:
		return true
	case tWord:
		return u.ent() == nil || u.ent().flags&wDet != 0 || u.ent().noun != "" && u.ent().verb == "" || u.ent().flags == wCommon
	}
	return false
}

// resolve decides the action of a candidate, whether it is negated, and
// whether it is no claim at all.
func (sc *scanner) resolve(c *cand) {
	if sc.question {
		c.excluded = true
		return
	}
	a := sc.after(c.end)
	b := sc.before(c.start)
	if a.excluded || b.excluded || c.needAfter && a.action == "" && !a.neg {
		c.excluded = true
		return
	}
	c.verbless = b.verb < 0 && !a.sawVerb && !b.unknownVerb
	c.spanLo, c.spanHi = c.start, c.end-1
	switch {
	case a.action != "" && !a.ing:
		c.action, c.neg = a.action, a.neg || b.neg
		c.spanHi = a.tok
		if b.verb < 0 {
			// "The docstrings for all 6 public methods have been added."
			c.action = objectAction(c, b)
		}
	case b.done:
		c.action, c.neg = b.action, b.neg
		c.spanLo = b.verb
		c.action = objectAction(c, b)
		if c.elided && !b.adjacent {
			c.action = ""
		}
	case a.action != "":
		c.action, c.neg = a.action, a.neg || b.neg
		c.spanHi = a.tok
	case (c.verbless || sc.wordHas(c.start-1, wWith)) && !c.elided:
		sc.modifierAction(c)
		c.neg = c.neg || b.neg || a.neg
	case a.neg && b.verb < 0:
		// "3 tests remain": a gap with no action of its own.
		c.neg = true
	}
	if c.action == "" && c.head >= 0 && b.verb < 0 {
		c.action = sc.toks[c.head].ent().implies
	}
	if c.elided && c.action != "" {
		c.noun = sc.antecedent(c)
	}
}

// objectAction turns adding doc comments into document, and writing tests
// for things into test: "Added JSDoc comments to all 4 functions", "Added 4
// doc comments", "Wrote tests for all 3 endpoints".
func objectAction(c *cand, b beforeInfo) string {
	if c.action != "add" && c.action != "create" {
		return c.action
	}
	switch {
	case c.noun == "comment", b.docObj:
		return "document"
	case b.testObj && c.noun != "test":
		return "test"
	}
	return c.action
}

// modifierAction reads the action of a clause without a verb from the words
// before its noun: "- 3 new files", "13 new tests", "3 failing tests", "2
// undocumented methods".
func (sc *scanner) modifierAction(c *cand) {
	for k := c.start; k < c.head && k >= 0; k++ {
		u := &sc.toks[k]
		if u.kind != tWord {
			continue
		}
		if u.is(wNew) {
			if c.noun == "file" {
				c.action = "create"
			} else {
				c.action = "add"
			}
			return
		}
		e := u.ent()
		if e == nil || e.verb == "" {
			continue
		}
		switch {
		case e.flags&wUnPart != 0:
			c.action, c.neg = e.verb, true
			return
		case resultClasses[e.verb] && e.form == formIng:
			c.action = e.verb
			return
		case e.form == formDone:
			c.action = e.verb
			return
		}
	}
}

// antecedent finds the noun an elided count refers to: "12 passed" (tests),
// "Found 4 methods and documented all 4" (methods).
func (sc *scanner) antecedent(c *cand) string {
	if resultClasses[c.action] {
		return "test"
	}
	for i := len(sc.cands) - 1; i >= 0; i-- {
		if p := &sc.cands[i]; p.start < c.start && p.noun != "" && !p.elided {
			return p.noun
		}
	}
	for k := c.start - 1; k >= 0; k-- {
		if e := sc.toks[k].ent(); e != nil && e.noun != "" && sc.toks[k].kind == tWord {
			return e.noun
		}
	}
	return sc.prevNoun
}

// postResolve lets a count without an action take it from the count it is
// coordinated with ("6 new builder tests, 4 controller tests" → both added),
// and lets test counts without one take pass from the sentence ("65 tests +
// 14 doctests, 0 failures").
func (sc *scanner) postResolve() {
	cs := sc.cands
	for i := 1; i < len(cs); i++ {
		c, p := &cs[i], &cs[i-1]
		if c.action != "" || c.excluded || p.action == "" || p.excluded || !sc.coordinated(p.end, c.start) {
			continue
		}
		if c.elided && c.end < len(sc.toks) && sc.toks[c.end].kind != tPunct && !sc.toks[c.end].is(wNew) {
			continue // "3 files, 120 insertions(+)": not "3 tests and 2 more"
		}
		c.action = p.action
		if c.elided {
			c.noun = sc.antecedent(c)
		}
	}
	bare := func(c *cand) bool { return c.action == "" && !c.excluded && c.noun == "test" && c.verbless }
	some := false
	for i := range cs {
		some = some || bare(&cs[i])
	}
	if !some || !sc.sentencePasses() {
		return
	}
	for i := range cs {
		if c := &cs[i]; bare(c) {
			c.action = "pass"
		}
	}
}

// sentencePasses reports that the sentence says tests pass, and nothing that
// they fail: "0 failures", "no failures", "all passing".
func (sc *scanner) sentencePasses() bool {
	pass := false
	for _, c := range sc.cands {
		if c.excluded || c.action == "" {
			continue
		}
		switch {
		case c.neg:
		case c.action == "pass", c.action == "fail" && c.hasNum && c.num == 0:
			pass = true
		case c.action == "fail":
			return false
		}
	}
	for k := range sc.toks {
		sig := signal(&sc.toks[k])
		if sig == 0 || sc.attributive(k) || sc.inCand(k) {
			continue
		}
		excluded, neg := sc.signalContext(k)
		if excluded {
			continue
		}
		if neg {
			sig = -sig
		}
		if sig < 0 {
			return false
		}
		pass = true
	}
	return pass
}

// attributive reports an -ing result word before a noun: "3 failing tests".
func (sc *scanner) attributive(k int) bool {
	e := sc.toks[k].ent()
	return e != nil && e.form == formIng && k+1 < len(sc.toks) && sc.toks[k+1].ent() != nil && sc.toks[k+1].ent().noun != ""
}

// coordinated reports that only commas, "+", "and" or parentheses stand
// between tokens a and b.
func (sc *scanner) coordinated(a, b int) bool {
	for k := a; k < b; k++ {
		u := &sc.toks[k]
		switch {
		case u.kind == tPunct && (u.punct == ',' || u.punct == '+' || u.punct == '(' || u.punct == ')' || u.punct == '&'):
		case u.kind == tWord && u.is(wConj):
		default:
			return false
		}
	}
	return true
}

// lastNoun records the last noun class of the sentence, for elided counts in
// the next.
func (sc *scanner) lastNoun() {
	for k := len(sc.toks) - 1; k >= 0; k-- {
		if e := sc.toks[k].ent(); e != nil && e.noun != "" && sc.toks[k].kind == tWord {
			sc.prevNoun = e.noun
			return
		}
	}
}

// span is the text of tokens lo..hi.
func (sc *scanner) span(lo, hi int) string {
	if lo < 0 {
		lo = 0
	}
	if hi >= len(sc.toks) {
		hi = len(sc.toks) - 1
	}
	if hi < lo {
		return ""
	}
	return sc.s[sc.toks[lo].start:sc.toks[hi].end]
}
