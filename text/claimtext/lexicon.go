package claimtext

import (
	"strings"
	"sync"
)

// wflag is a set of the roles a word plays, from the tables of phrases.go.
type wflag uint64

const (
	wAux          wflag = 1 << iota // auxiliaries
	wAdverb                         // adverbs
	wNeg                            // negations
	wNegAux                         // negationAux
	wFuture                         // futureMarkers
	wModal                          // modals
	wIntentBefore                   // intentBefore
	wGap                            // gapWords
	wLabel                          // labelWords
	wApprox                         // approximators
	wQuant                          // quantifiers
	wQFiller                        // quantifierFillers
	wPrep                           // prepositions
	wConj                           // conjunctions
	wDet                            // determiners
	wBreak                          // clauseBreakers
	wRelative                       // relatives
	wCond                           // conditionals
	wHistoric                       // historicMarkers
	wOtherVerb                      // otherVerbs
	wImperative                     // imperativeVerbs
	wFiller                         // clauseFillers
	wPassWord                       // passWords
	wFailWord                       // failWords
	wTestSubject                    // testSubjects
	wCommon                         // commonWords
	wDoc                            // docObjects
	wDocExplicit                    // explicitDocWords
	wTestObj                        // testObjects
	wEnabler                        // "was able to"
	wPassSignal                     // "no failures"
	wNumber                         // numberWords, "a dozen"
	wUnPart                         // negatedParticiples
	wHTTPNoun                       // httpStatusNouns
	wBareFile                       // bareFileNames
	wNew                            // newWords
	wLibrary                        // libraryNames
	wAbbrev                         // abbreviations
	wPronoun                        // resultPronouns
	wFraction                       // fractionWords
	wProNoun                        // proNouns
	wOf                             // partitiveWords
	wJoin                           // listJoiners
	wSum                            // sumWords
	wResultNeg                      // resultNegations
	wSequence                       // sequenceWords
	wHave                           // haveWords
	wObjPrep                        // objectPrepositions
	wPlace                          // placePrepositions
	wPair                           // pairWords
	wWith                           // accompanyWords
)

// verbForm is the form of a verb in [actionVerbs].
type verbForm uint8

const (
	formNone verbForm = iota
	formBase          // add
	formS             // adds
	formIng           // adding
	formDone          // added, written
)

// lexEntry is what the lexicon knows of one word (or phrase).
type lexEntry struct {
	flags   wflag
	verb    string // action class
	form    verbForm
	noun    string // noun class
	num     int    // value, with wNumber or wQuant
	style   string // doc style, with wDoc
	implies string // action a noun implies (nounActions)
	id      int32  // index in lexByID
	phrases []lexPhrase
}

func (e *lexEntry) has(f wflag) bool { return e != nil && e.flags&f != 0 }

// index is the id of e, 0 for nil.
func (e *lexEntry) index() int32 {
	if e == nil {
		return 0
	}
	return e.id
}

// lexPhrase is a multi-word phrase starting with the word that holds it.
type lexPhrase struct {
	rest  []string // the words after the first, lowered
	entry *lexEntry
}

var (
	lexOnce sync.Once
	lex     *lexTable
	lexByID = []*lexEntry{nil} // entries by id; id 0 is none
)

// lexicon returns the lexicon, building it from the phrase tables on first
// use.
func lexicon() *lexTable {
	lexOnce.Do(buildLexicon)
	return lex
}

// lexTable is the lexicon as an open-addressing hash table keyed by the
// folded word (ASCII lowercase, ’ as '), so that a word is looked up with a
// hash computed while it is classified, without a lowered copy.
type lexTable struct {
	slots []lexSlot
	mask  uint32
}

type lexSlot struct {
	key string
	e   *lexEntry
}

const hashInit uint32 = 2166136261

// hashFold adds folded byte c to FNV-1a hash h.
func hashFold(h uint32, c byte) uint32 { return (h ^ uint32(c)) * 16777619 }

// foldHash hashes word folded; ok is false for a word too long to be in the
// table.
func foldHash(word string) uint32 {
	h := hashInit
	for i := 0; i < len(word); i++ {
		c := word[i]
		switch {
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case c == 0xE2 && i+2 < len(word) && word[i+1] == 0x80 && word[i+2] == 0x99:
			c = '\''
			i += 2
		}
		h = hashFold(h, c)
	}
	return h
}

func newLexTable(m map[string]*lexEntry) *lexTable {
	size := 1
	for size < 4*len(m) {
		size <<= 1
	}
	t := &lexTable{slots: make([]lexSlot, size), mask: uint32(size - 1)}
	for k, e := range m {
		i := foldHash(k) & t.mask
		for t.slots[i].e != nil {
			i = (i + 1) & t.mask
		}
		t.slots[i] = lexSlot{k, e}
	}
	return t
}

// find looks word up with its folded hash h.
func (t *lexTable) find(word string, h uint32) *lexEntry {
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		sl := &t.slots[i]
		if sl.e == nil {
			return nil
		}
		if len(sl.key) <= len(word) && equalWord(word, sl.key) {
			return sl.e
		}
	}
}

// lookup finds a word in the lexicon, case-insensitively and with ’ read as
// an apostrophe, without allocating.
func (t *lexTable) lookup(word string) *lexEntry {
	if len(word) > 48 {
		return nil
	}
	return t.find(word, foldHash(word))
}

func buildLexicon() {
	m := make(map[string]*lexEntry, 1024)
	get := func(w string) *lexEntry {
		e := m[w]
		if e == nil {
			e = &lexEntry{}
			m[w] = e
		}
		return e
	}
	set := func(words []string, f wflag) {
		for _, w := range words {
			get(w).flags |= f
		}
	}
	for w, n := range numberWords {
		e := get(w)
		e.flags |= wNumber
		e.num = n
	}
	for w, n := range quantifiers {
		e := get(w)
		e.flags |= wQuant
		e.num = n
	}
	for _, v := range actionVerbs {
		before, after, _ := strings.Cut(v.Forms, "|")
		for i, w := range strings.Fields(before) {
			e := get(w)
			e.verb = v.Class
			switch {
			case strings.HasSuffix(w, "ing"):
				e.form = formIng
			case i > 0 && strings.HasSuffix(w, "s"):
				e.form = formS
			default:
				e.form = formBase
			}
		}
		for _, w := range strings.Fields(after) {
			e := get(w)
			e.verb = v.Class
			e.form = formDone
		}
	}
	for w, class := range negatedParticiples {
		e := get(w)
		e.flags |= wUnPart
		e.verb = class
		e.form = formDone
	}
	for _, n := range nouns {
		for _, w := range strings.Fields(n.Forms) {
			get(w).noun = n.Class
		}
	}
	for w, style := range docObjects {
		e := get(w)
		e.flags |= wDoc
		e.style = style
	}
	for w := range explicitDocWords {
		get(w).flags |= wDocExplicit
	}
	for w := range testObjects {
		get(w).flags |= wTestObj
	}
	for w := range httpStatusNouns {
		get(w).flags |= wHTTPNoun
	}
	for w := range bareFileNames {
		get(w).flags |= wBareFile
	}
	for w, act := range nounActions {
		get(w).implies = act
	}
	set(newWords, wNew)
	set(libraryNames, wLibrary)
	set(abbreviations, wAbbrev)
	set(resultPronouns, wPronoun)
	set(fractionWords, wFraction)
	set(proNouns, wProNoun)
	set(partitiveWords, wOf)
	set(listJoiners, wJoin)
	set(sumWords, wSum)
	set(resultNegations, wResultNeg)
	set(sequenceWords, wSequence)
	set(haveWords, wHave)
	set(objectPrepositions, wObjPrep)
	set(placePrepositions, wPlace)
	set(pairWords, wPair)
	set(accompanyWords, wWith)
	set(quantifierFillers, wQFiller)
	set(labelWords, wLabel)
	set(approximators, wApprox)
	set(futureMarkers, wFuture)
	set(modals, wModal)
	set(intentBefore, wIntentBefore)
	set(negations, wNeg)
	set(negationAux, wNegAux|wNeg)
	set(gapWords, wGap)
	set(auxiliaries, wAux)
	set(adverbs, wAdverb)
	set(otherVerbs, wOtherVerb)
	set(imperativeVerbs, wImperative)
	set(clauseFillers, wFiller)
	set(clauseBreakers, wBreak)
	set(conditionals, wCond)
	set(historicMarkers, wHistoric)
	set(determiners, wDet)
	set(prepositions, wPrep)
	set(conjunctions, wConj)
	set(relatives, wRelative)
	set(passWords, wPassWord)
	set(failWords, wFailWord)
	set(testSubjects, wTestSubject)
	set(commonWords, wCommon)
	for _, p := range phraseTable {
		words := strings.Fields(p.Words)
		pm := p.Means
		e := &lexEntry{noun: pm.Noun, num: pm.Number, style: pm.Style}
		if pm.IsNumber {
			e.flags |= wNumber
		}
		if pm.Quantifier {
			e.flags |= wQuant
		}
		if pm.Future {
			e.flags |= wFuture
		}
		if pm.Imperative {
			e.flags |= wImperative
			e.form = formBase
		}
		if pm.Negation {
			e.flags |= wNeg
		}
		if pm.NegationAux {
			e.flags |= wNegAux
		}
		if pm.Enabler {
			e.flags |= wEnabler
		}
		if pm.Doc {
			e.flags |= wDoc | wDocExplicit
		}
		if pm.Verb != "" {
			e.verb = pm.Verb
			e.form = formDone
		}
		if pm.PassSignal {
			e.flags |= wPassSignal
		}
		if pm.TestSubject {
			e.flags |= wTestSubject
		}
		if pm.Approx {
			e.flags |= wApprox
		}
		if pm.Conditional {
			e.flags |= wCond
		}
		if pm.Historic {
			e.flags |= wHistoric
		}
		if pm.Label {
			e.flags |= wLabel
		}
		if pm.Partitive {
			e.flags |= wOf
		}
		first := get(words[0])
		first.phrases = append(first.phrases, lexPhrase{rest: words[1:], entry: e})
	}
	// Longest phrases first, so that "half a dozen" wins over "a dozen"'s
	// prefix and "was not able to" over "was".
	for _, e := range m {
		ps := e.phrases
		for i := 1; i < len(ps); i++ {
			for j := i; j > 0 && len(ps[j].rest) > len(ps[j-1].rest); j-- {
				ps[j], ps[j-1] = ps[j-1], ps[j]
			}
		}
	}
	number := func(e *lexEntry) {
		if e.id == 0 {
			e.id = int32(len(lexByID))
			lexByID = append(lexByID, e)
		}
	}
	for _, e := range m {
		number(e)
		for _, p := range e.phrases {
			number(p.entry)
		}
	}
	lex = newLexTable(m)
}

// equalWord reports whether word, folded like [lookup] does, is lower (which
// is lowercase ASCII).
func equalWord(word, lower string) bool {
	j := 0
	for i := 0; i < len(word); i++ {
		if j >= len(lower) {
			return false
		}
		c := word[i]
		switch {
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case c == 0xE2 && i+2 < len(word) && word[i+1] == 0x80 && word[i+2] == 0x99:
			c = '\''
			i += 2
		}
		if c != lower[j] {
			return false
		}
		j++
	}
	return j == len(lower)
}
