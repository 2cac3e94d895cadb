package claimtext

import (
	"strconv"
	"strings"
	"sync"

	"github.com/vouchgate/vouch/text/lex"
)

// wflag is a set of the roles a word plays in claim text, from the word
// lists of package lex (see flagLists).
type wflag uint64

const (
	wAux           wflag = 1 << iota // auxiliaries
	wAdverb                          // adverbs
	wNeg                             // negations
	wNegAux                          // negationAux
	wFuture                          // futureMarkers
	wModal                           // modals
	wIntentBefore                    // intentBefore
	wGap                             // gapWords
	wLabel                           // labelWords
	wApprox                          // approximators
	wQuant                           // quantifiers
	wQFiller                         // quantifierFillers
	wPrep                            // prepositions
	wConj                            // conjunctions
	wDet                             // determiners
	wBreak                           // clauseBreakers
	wRelative                        // relatives
	wCond                            // conditionals
	wHistoric                        // historicMarkers
	wOtherVerb                       // otherVerbs
	wImperative                      // imperativeVerbs
	wFiller                          // clauseFillers
	wPassWord                        // passWords
	wFailWord                        // failWords
	wTestSubject                     // testSubjects
	wCommon                          // commonWords
	wDoc                             // docObjects
	wDocExplicit                     // explicitDocWords
	wTestObj                         // testObjects
	wEnabler                         // "was able to"
	wPassSignal                      // "no failures"
	wNumber                          // numberWords, "a dozen"
	wUnPart                          // negatedParticiples
	wHTTPNoun                        // httpStatusNouns
	wBareFile                        // bareFileNames
	wNew                             // newWords
	wLibrary                         // libraryNames
	wAbbrev                          // abbreviations
	wPronoun                         // resultPronouns
	wFraction                        // fractionWords
	wProNoun                         // proNouns
	wOf                              // partitiveWords
	wJoin                            // listJoiners
	wSum                             // sumWords
	wResultNeg                       // resultNegations
	wSequence                        // sequenceWords
	wHave                            // haveWords
	wObjPrep                         // objectPrepositions
	wPlace                           // placePrepositions
	wPair                            // pairWords
	wWith                            // accompanyWords
	wCountTotal                      // countTotals
	wComplete                        // completionWords
	wNonClaim                        // nonClaimLeads
	wSubject                         // subjectPronouns
	wStmtBreak                       // statementBreaks
	wCmdNoun                         // commandNouns
	wBehaviourNoun                   // behaviourNouns
	wTechName                        // techNames
	wRefNoun                         // referenceNouns
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

// lexEntry is what claim text makes of one word (or phrase) of the
// lexicon: its view of a [lex.Entry], derived from the word lists once.
type lexEntry struct {
	flags   wflag
	verb    string // action class
	form    verbForm
	noun    string // noun class
	num     int    // value, with wNumber or wQuant
	style   string // doc style, with wDoc
	implies string // action a noun implies (nounActions)
	git     string // the kind of git claim it makes (git-claims), or "object" (git-objects)
	outcome bool   // a verb that says what code does when run (outcome-verbs)
	id      int32  // the lexicon's ID of the word
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
	viewOnce sync.Once
	// lexByID is the view of the lexicon, indexed by [lex.Entry.ID]: nil
	// for a word no list of claim text holds.
	lexByID []*lexEntry
)

// lexicon returns the view of the lexicon, building it on first use.
func lexicon() lexView {
	viewOnce.Do(buildView)
	return lexView{}
}

// lexView looks words up in the lexicon and returns claim text's view of
// them.
type lexView struct{}

// lookup finds a word in the lexicon, case-insensitively and with ’ read as
// an apostrophe, without allocating; nil when claim text knows no such word.
func (lexView) lookup(word string) *lexEntry { return lexByID[lex.Lookup(word).ID()] }

// find looks word up with its folded hash h (see [lex.Hash]).
func (lexView) find(word string, h uint32) *lexEntry {
	return lexByID[lex.LookupHash(word, h).ID()]
}

// hashInit and hashFold compute [lex.Hash] byte by byte.
const hashInit = lex.HashInit

func hashFold(h uint32, c byte) uint32 { return lex.HashByte(h, c) }

// flagLists are the word lists whose words claim text flags.
var flagLists = []struct {
	list string
	flag wflag
}{
	{"new-words", wNew}, {"library-names", wLibrary}, {"abbreviations", wAbbrev},
	{"result-pronouns", wPronoun}, {"fraction-words", wFraction}, {"pro-nouns", wProNoun},
	{"partitive-words", wOf}, {"list-joiners", wJoin}, {"sum-words", wSum},
	{"result-negations", wResultNeg}, {"sequence-words", wSequence}, {"have-words", wHave},
	{"object-prepositions", wObjPrep}, {"place-prepositions", wPlace}, {"pair-words", wPair},
	{"accompany-words", wWith}, {"quantifier-fillers", wQFiller}, {"count-totals", wCountTotal}, {"label-words", wLabel},
	{"approximators", wApprox}, {"future-markers", wFuture}, {"modals", wModal},
	{"intent-before", wIntentBefore}, {"negations", wNeg}, {"negation-aux", wNegAux | wNeg},
	{"gap-words", wGap}, {"auxiliaries", wAux}, {"adverbs", wAdverb}, {"other-verbs", wOtherVerb},
	{"imperative-verbs", wImperative}, {"clause-fillers", wFiller}, {"clause-breakers", wBreak},
	{"conditionals", wCond}, {"historic-markers", wHistoric}, {"determiners", wDet},
	{"prepositions", wPrep}, {"conjunctions", wConj}, {"relatives", wRelative},
	{"pass-words", wPassWord}, {"fail-words", wFailWord}, {"test-subjects", wTestSubject},
	{"unlisted-words", wCommon}, {"explicit-doc-words", wDocExplicit}, {"test-objects", wTestObj},
	{"http-status-nouns", wHTTPNoun}, {"bare-file-names", wBareFile},
	{"completion-words", wComplete}, {"non-claim-leads", wNonClaim}, {"subject-pronouns", wSubject},
	{"statement-breaks", wStmtBreak}, {"command-nouns", wCmdNoun}, {"behaviour-nouns", wBehaviourNoun},
	{"tech-names", wTechName}, {"reference-nouns", wRefNoun},
}

// phraseFlags are the meanings of [claim-phrases] lines that set a flag.
var phraseFlags = map[string]wflag{
	"quantifier": wQuant, "future": wFuture, "imperative": wImperative, "negation": wNeg,
	"negation-aux": wNegAux, "enabler": wEnabler, "doc": wDoc | wDocExplicit,
	"pass-signal": wPassSignal, "test-subject": wTestSubject, "approx": wApprox,
	"conditional": wCond, "historic": wHistoric, "label": wLabel, "partitive": wOf,
}

// buildView derives claim text's view of every word of the lexicon.
func buildView() {
	lexByID = make([]*lexEntry, lex.Len())
	flags := make(map[lex.List]wflag, len(flagLists))
	for _, fl := range flagLists {
		flags[lex.Named(fl.list)] |= fl.flag
	}
	var (
		numbers    = lex.Named("number-words")
		quants     = lex.Named("quantifiers")
		verbs      = lex.Named("action-verbs")
		unparts    = lex.Named("negated-participles")
		nouns      = lex.Named("claim-nouns")
		docs       = lex.Named("doc-objects")
		nounActs   = lex.Named("noun-actions")
		phraseList = lex.Named("claim-phrases")
		gitList    = lex.Named("git-claims")
		gitObjects = lex.Named("git-objects")
		outcomes   = lex.Named("outcome-verbs")
	)
	for id := 1; id < lex.Len(); id++ {
		le := lex.ByID(int32(id))
		e := &lexEntry{id: int32(id)}
		for _, l := range le.Lists() {
			v, _ := le.Value(l)
			e.flags |= flags[l]
			switch l {
			case numbers:
				e.flags |= wNumber
				e.num, _ = strconv.Atoi(v)
			case quants:
				e.flags |= wQuant
				e.num, _ = strconv.Atoi(v)
			case verbs:
				class, form, _ := strings.Cut(v, " ")
				e.verb, e.form = class, formOf[form]
			case unparts:
				e.flags |= wUnPart
				e.verb, e.form = v, formDone
			case nouns:
				e.noun = v
			case docs:
				e.flags |= wDoc
				e.style = v
			case nounActs:
				e.implies = v
			case phraseList:
				phraseMeaning(e, v)
			case gitList:
				e.git = v
			case gitObjects:
				e.git = "object"
			case outcomes:
				e.outcome = true
			}
		}
		if e.flags != 0 || e.verb != "" || e.noun != "" || e.implies != "" || e.style != "" || e.git != "" || e.outcome {
			lexByID[id] = e
		}
	}
	// Phrases, now that every phrase entry has its view.
	for id := 1; id < lex.Len(); id++ {
		for _, p := range lex.ByID(int32(id)).Phrases() {
			pe := lexByID[p.Entry.ID()]
			if pe == nil {
				continue
			}
			e := lexByID[id]
			if e == nil {
				e = &lexEntry{id: int32(id)}
				lexByID[id] = e
			}
			e.phrases = append(e.phrases, lexPhrase{rest: p.Rest, entry: pe})
		}
	}
}

// formOf reads the form named in [action-verbs].
var formOf = map[string]verbForm{"base": formBase, "s": formS, "ing": formIng, "done": formDone}

// phraseMeaning sets what a line of claim-phrases says the phrase means.
func phraseMeaning(e *lexEntry, meaning string) {
	for _, m := range strings.Fields(meaning) {
		key, val, _ := strings.Cut(m, ":")
		e.flags |= phraseFlags[key]
		switch key {
		case "number":
			e.flags |= wNumber
			e.num, _ = strconv.Atoi(val)
		case "imperative":
			e.form = formBase
		case "noun":
			e.noun = val
		case "style":
			e.style = val
		case "verb":
			e.verb, e.form = val, formDone
		}
	}
}

// equalWord reports whether word, folded like [lexView.lookup] folds it, is
// lower (which is folded).
func equalWord(word, lower string) bool { return lex.EqualFold(word, lower) }
