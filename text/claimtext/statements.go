package claimtext

import (
	"slices"
	"strings"

	"github.com/vouchgate/vouch/text/lex"
)

// Statement is one claim a work summary makes: a clause that asserts
// something about the work or its result, as written. It is what the claim
// ledger lists; the other readers of this package (counts, test results,
// git operations, runs) read the parts of statements that checks can hold
// against evidence, and name the same sentences.
type Statement struct {
	// Text is the clause, as written in Sentence.
	Text string
	// Sentence is the sentence the clause is in, with markdown markers
	// removed, exactly as [CountClaim.Sentence] and the other readers give
	// it.
	Sentence string
	// Start and End are the byte offsets of Text in Sentence.
	Start, End int
	// Kind is what the claim is about: "file", "symbol", "behaviour",
	// "tests", "command", "git", "completion" or "statement" (the
	// values of vouch.ClaimKind).
	Kind string
	// Action is the action class of the clause's verb ("add", "fix",
	// "delete", "rename", "pass"...; see [CountClaim.Action]), "" when it
	// has none.
	Action string
	// Names are the files and the names of code the clause names, in
	// order.
	Names []Name
}

// Name is a file or a name of code a statement names: a code span, a
// path ("src/a.ts", "README.md"), or a word written as code would name it
// ("ParseRange", "old_parse", "paginate()").
type Name struct {
	// Text is the name as written, without backticks or a trailing "()".
	Text string
	// File reports a file or directory rather than a symbol.
	File bool
	// After is the preposition just before the name, lowered ("to",
	// "in", "from"), "" when there is none: where the name stands in the
	// clause ("Added X to F", "Renamed A to B").
	After string
	// Aside reports a name in a part of the clause that describes rather
	// than claims: after "which", "that", "so" or a purpose ("so that
	// `Load` reads `SVC_TIMEOUT`").
	Aside bool
	// Object reports the name the clause's work is done to: the first
	// after its verb of done work, else its first name.
	Object bool
	// Ref reports a name the clause refers to rather than works on or in:
	// "a link to `X`", "the call to `f()`", "a test for `Sub`".
	Ref bool
}

// Statements reads a work summary into the claims it makes, clause by
// clause, in order. A sentence splits into clauses at ";" and where "and",
// "but", "so" or a comma start a new predicate ("Added 3 tests, and they
// all pass"). A clause is no claim when it asks a question, states an
// intention ("I will add", "Let me"), a condition ("If the tests fail"),
// an instruction ("Run go test"), a gap or a denial ("2 methods remain
// undocumented", "I could not run the tests"), or speaks of the text
// rather than the work ("Here is what I did:", a heading). Every other
// clause with a verb, and a verbless one that reports a result or
// completion ("All tests passing.", "Done."), is a claim: one no check
// understands is still listed, as a statement.
//
// A clause's kind comes from what it names and its verb: a git operation;
// tests; a fix, or a change together with what it makes the code do ("so
// that", "now", "which returns") is behaviour; a change to a named function
// or type is a symbol; to a named file, a file; a run or a check of the
// work, a command; a claim that it is done or right, completion.
func Statements(summary string) []Statement {
	if strings.TrimSpace(summary) == "" {
		return nil
	}
	sc := newScanner(summary)
	defer sc.release()
	var (
		out        []Statement
		imperative []bool // out[i] is read from an imperative clause, not of the title
		reported   bool   // a clause claims otherwise than in the imperative
		first      = hasTitle(summary)
	)
	later := false // the sentences follow "Next steps:", "TODO": imperatives there are plans
	for sc.next() {
		if sc.question {
			continue
		}
		if sc.futureLead() {
			later = true
			continue
		}
		lo := 0
		for k := 0; k <= len(sc.toks); k++ {
			if k < len(sc.toks) && !sc.clauseBreak(k) {
				continue
			}
			if st, how, ok := sc.statement(lo, k); ok && !(later && how == clauseImperative) {
				out = append(out, st)
				imperative = append(imperative, how == clauseImperative && !first)
				reported = reported || how != clauseImperative
			}
			lo = k + 1
		}
		first = false
	}
	if reported {
		// A summary that reports its work otherwise ("Added X", "X now
		// returns 3", "all tests pass") gives instructions in the
		// imperative ("Rename .env.example to .env"); only one written
		// wholly in the imperative, as commit messages and pull requests
		// are ("Fix the timeout default, add ParseDuration"), claims by
		// it, and a commit message's title ("Rename calc_total to
		// order_total", a blank line, then a body in the past).
		i := 0
		out = slices.DeleteFunc(out, func(Statement) bool { i++; return imperative[i-1] })
	}
	return out
}

// hasTitle reports a text whose first line is a commit message's title: a
// line of at most 80 characters, not ended by a stop, a colon or a
// question mark, followed by a blank line (or alone).
func hasTitle(text string) bool {
	line, rest, more := strings.Cut(strings.TrimLeft(text, "\n"), "\n")
	line = strings.TrimSpace(line)
	if line == "" || len(line) > 80 || strings.ContainsAny(line[len(line)-1:], ".!?:;") {
		return false
	}
	if !more {
		return true
	}
	next, _, _ := strings.Cut(rest, "\n")
	return strings.TrimSpace(next) == ""
}

// clauseHow is how a clause claims: by a verb of done work, in the
// imperative of a commit message, or otherwise (a result, a description).
type clauseHow uint8

const (
	clauseOther clauseHow = iota
	clauseDone
	clauseImperative
)

// imperativeWork are the action classes an imperative clause of a commit
// message or a pull request claims done ("Add ParseDuration", "Fix the
// timeout"): changes to the code. "Run", "Install", "Check" instruct.
var imperativeWork = lex.Named("imperative-work").Set()

// clauseBreak reports whether token k ends a clause: a ";", or a
// conjunction, breaker or comma followed by a new predicate.
func (sc *scanner) clauseBreak(k int) bool {
	t := &sc.toks[k]
	switch {
	case t.kind == tPunct && t.punct == ';':
		return true
	case t.kind == tPunct && t.punct == ',', t.kind == tWord && t.is(wConj|wStmtBreak):
		return sc.predicateAt(k + 1)
	case t.kind == tPunct && t.punct == '(':
		// A parenthesis opens a clause of its own only with a subject:
		// "(the old file was removed in #8)", not "(2 passed)".
		return sc.wordHas(k+1, wSubject|wDet|wPronoun) && sc.predicateAt(k+1)
	}
	return false
}

// predicateAt reports whether a new predicate starts at token j: a verb of
// done work ("fixed", "added"), or a subject (a pronoun, or a determiner or
// quantifier and its noun) followed by a verb before the next
// punctuation.
func (sc *scanner) predicateAt(j int) bool {
	for j < len(sc.toks) && (sc.wordHas(j, wAdverb|wFiller) || sc.wordHas(j, wConj)) {
		j++
	}
	if j >= len(sc.toks) {
		return false
	}
	if sc.doneVerb(j) {
		return true
	}
	t := &sc.toks[j]
	subject := t.kind == tWord && t.is(wSubject|wDet|wQuant|wPronoun) ||
		t.kind == tCode || t.kind == tIdent || t.kind == tWord && t.camel
	for k := j + 1; k < len(sc.toks) && k <= j+6; k++ {
		u := &sc.toks[k]
		if u.kind == tPunct {
			return false
		}
		// After a subject any verb starts a predicate; after other words
		// ("go test ./... is green") only a copula or a test result does.
		if subject && sc.anyVerb(k) || u.kind == tWord && (u.is(wAux) || u.ent() != nil && u.ent().verb == "pass" && u.ent().form != formIng) {
			return true
		}
	}
	return false
}

// doneVerb reports a verb that says the work was done: a past tense or
// participle of an action verb ("added", "fixed", "cleaned up").
func (sc *scanner) doneVerb(k int) bool {
	if k < 0 || k >= len(sc.toks) || sc.toks[k].kind != tWord {
		return false
	}
	e := sc.toks[k].ent()
	return e != nil && e.verb != "" && e.form == formDone
}

// anyVerb reports a token that is a verb of some kind: an action verb in
// any form, an auxiliary or other verb, an outcome verb ("returns"), a
// modal.
func (sc *scanner) anyVerb(k int) bool {
	if k < 0 || k >= len(sc.toks) || sc.toks[k].kind != tWord {
		return false
	}
	e := sc.toks[k].ent()
	return e != nil && (e.verb != "" || e.outcome || e.flags&(wAux|wOtherVerb|wModal|wPassWord|wFailWord) != 0)
}

// statement reads the clause of tokens [lo, hi) of the current sentence,
// and says how it claims.
func (sc *scanner) statement(lo, hi int) (Statement, clauseHow, bool) {
	// Leading joiners and fillers: "and", ",", "also", "then".
	for lo < hi && (sc.toks[lo].kind == tPunct || sc.wordHas(lo, wConj|wFiller) && !sc.wordHas(lo, wComplete)) {
		lo++
	}
	if lo >= hi {
		return Statement{}, 0, false
	}
	// A lead that speaks of the text ("Here's what I did:", "Summary of
	// changes:") or a label without a verb ("Tests:", "Result:") before a
	// colon: what follows the colon is the clause.
	colon, labelFile := -1, -1
	for k := lo; k < hi; k++ {
		if sc.punctIs(k, ':') {
			colon = k
			break
		}
	}
	if sc.wordHas(lo, wNonClaim) {
		if colon < 0 {
			return Statement{}, 0, false
		}
		for k := lo; k < colon; k++ {
			if sc.wordHas(k, wFuture) {
				return Statement{}, 0, false // "Next steps: add docs"
			}
		}
		lo = colon + 1
	} else if colon > lo {
		label := true
		for k := lo; k < colon; k++ {
			if sc.anyVerb(k) || sc.toks[k].kind == tNum {
				label = false
				break
			}
		}
		if label {
			// A label that is a file ("`config.go`: added a field") says
			// where the clause's work was done.
			if colon == lo+1 && sc.isPath(lo) {
				labelFile = lo
			}
			lo = colon + 1
		}
	}
	for lo < hi && (sc.toks[lo].kind == tPunct || sc.wordHas(lo, wConj|wFiller) && !sc.wordHas(lo, wComplete)) {
		lo++
	}
	if lo >= hi {
		return Statement{}, 0, false
	}
	first := &sc.toks[lo]
	imperative := false
	switch {
	case sc.wordHas(lo, wCond):
		return Statement{}, 0, false // "If the tests fail, ..."
	case first.kind == tWord && first.ent() != nil && (first.ent().form == formBase || first.is(wImperative)) &&
		!sc.doneVerb(lo) && !first.is(wComplete|wAux|wPassWord) && !sc.copulaIn(lo+1, hi) && !sc.verbAfter(lo+1, hi):
		// "Run go test", "Add FOO to your config": an instruction; not "go
		// test ./... is green". A change in the imperative ("Add
		// ParseDuration") is a claim in a commit message's style, kept
		// only when the whole summary is written so (see Statements).
		if first.ent().form != formBase || !imperativeWork[first.ent().verb] || sc.addressesReader(lo, hi) || sc.instructs(lo, hi) {
			return Statement{}, 0, false
		}
		imperative = true
	case strings.EqualFold(first.text(sc.s), "you"):
		return Statement{}, 0, false // "You can run ..."
	}
	var (
		done, result, resultWord, verb, complete, now, tests, git, outcome, neg, passSignal, newWord, behaviourNoun, cmdNoun, keep, counted, historic bool
		action                                                                                                                                        string
		firstVerb, firstDone                                                                                                                          = -1, -1
		newAt                                                                                                                                         = -1
		objs                                                                                                                                          []int // object tokens: names and paths
	)
	if imperative {
		done, verb, firstVerb, firstDone, action = true, true, lo, lo, first.ent().verb
	}
	asideAt := hi // where a part that describes rather than claims starts
	for k := lo; k < hi; k++ {
		t := &sc.toks[k]
		if asideAt == hi && k > lo && sc.startsAside(k) {
			asideAt = k
		}
		switch t.kind {
		case tCode, tIdent:
			objs = append(objs, k)
			continue
		case tWord:
		case tOther:
			if w := t.text(sc.s); len(w) > 1 && w[0] == '#' && isDigit(w[1]) && k > lo && sc.wordHas(k-1, wPrep|wPlace) {
				// "was removed in #8": work of another change, cited.
				return Statement{}, 0, false
			}
			continue
		default:
			continue
		}
		if sc.named(k) {
			objs = append(objs, k)
		}
		e := t.ent()
		if e == nil {
			continue
		}
		if firstVerb < 0 && sc.anyVerb(k) {
			firstVerb = k
		}
		if e.flags&wFuture != 0 && (firstVerb < 0 || firstVerb == k) {
			return Statement{}, 0, false // "I will add", "Let me"
		}
		if e.flags&wGap != 0 || e.flags&(wNeg|wNegAux) != 0 && e.flags&wPassSignal == 0 {
			neg = true
		}
		if e.flags&wUnPart != 0 {
			// "`Parse` is untouched" claims no change; "2 methods remain
			// undocumented" is a gap.
			if e.verb == "modify" {
				keep = true
			} else {
				neg = true
			}
			continue
		}
		if firstDone >= 0 && k == firstDone+1 && (strings.EqualFold(t.text(sc.s), "nothing") || strings.EqualFold(t.text(sc.s), "none")) {
			neg = true // "removed nothing"
		}
		switch {
		case e.verb == "pass" || e.verb == "fail" || e.verb == "skip":
			if e.form != formIng && !(k > lo && strings.EqualFold(sc.toks[k-1].text(sc.s), "to")) {
				result = true
				if action == "" {
					action = e.verb
				}
			}
		case e.verb != "" && e.form == formDone:
			done = true
			if firstDone < 0 {
				firstDone = k
			}
			if action == "" {
				action = e.verb
			}
		}
		if e.flags&(wPassWord|wFailWord) != 0 {
			resultWord = true
			if action == "" && e.flags&wPassWord != 0 {
				action = "pass" // "the suite is green"
			} else if action == "" {
				action = "fail"
			}
		}
		if e.flags&wPassSignal != 0 {
			passSignal, result = true, true
			if action == "" {
				action = "pass" // "no failures"
			}
		}
		if e.flags&(wAux|wOtherVerb|wModal) != 0 || e.verb != "" && (e.form != formIng || k > lo && sc.wordHas(k-1, wAux)) {
			// A verb in -ing alone is a label or a step under way
			// ("Testing", "Running the tests"), not what was done.
			verb = true
		}
		if e.outcome {
			outcome, verb = true, true
		}
		if e.flags&wComplete != 0 && (k == lo || hi-lo <= 3 || sc.wordHas(k-1, wSubject|wAux|wOtherVerb|wQuant|wPronoun|wAdverb) || sc.contractedBe(k-1) || sc.punctIs(k-1, ':')) {
			// "Done", "It works", "is in place", "looks correct"; not
			// "keeps comments in place", which says what code does.
			complete = true
		}
		if e.flags&wHistoric != 0 {
			historic = true
		}
		if e.flags&wNew != 0 {
			newWord = true
			if newAt < 0 {
				newAt = k
			}
		}
		if e.flags&wDoc != 0 && (action == "" || action == "add" || action == "update" || action == "modify") {
			action = "document" // "Added JSDoc comments to ..."
		}
		if e.flags&wCmdNoun != 0 {
			cmdNoun = true
		}
		if e.noun != "" {
			counted = true // "files", "functions", "tests": a claim of things
		}
		if strings.EqualFold(t.text(sc.s), "now") {
			now = true
		}
		if (e.noun == "test" || e.flags&wTestSubject != 0 || e.verb == "test" && len(t.text(sc.s)) >= 4 && strings.EqualFold(t.text(sc.s)[:4], "test")) && k < asideAt {
			// "Tested the parser"; not "they cover every change", which
			// speaks of tests only beside a word for them; not "Added
			// `parse`, following the pattern of its tests".
			tests = true
		}
		if e.git != "" && e.git != "object" {
			git = true
		}
		if e.flags&wBehaviourNoun != 0 {
			behaviourNoun = true
		}
		if e.flags&wBareFile != 0 {
			objs = append(objs, k)
		}
	}
	if neg && !passSignal && !behaviourNoun {
		return Statement{}, 0, false // a gap or a denial: no claim of work
	}
	if historic && !done {
		return Statement{}, 0, false // "which was failing before": how things were, not a claim
	}
	if keep && !done && !result && !resultWord {
		action, verb = "keep", true
	}
	if !verb && (sc.describes(lo, hi) || now && sc.nowVerb(lo, hi)) {
		verb = true // a verb the lexicon does not know: "It now rejects empty input"
	}
	if !verb && !done && !result && !resultWord && !complete && !git && !(newWord && (len(objs) > 0 || tests)) && !passSignal {
		return Statement{}, 0, false // a heading or a label
	}
	if action == "" && newWord && (newAt == lo || newAt == lo+1 && sc.wordHas(lo, wDet)) {
		action = "add" // "new function `ParseDuration`", "a new `--dry-run` flag"
	}
	// What the clause also says the code does: "so that ...", "to read
	// ...", "which returns ...", "now ...", or a subject and a verb in the
	// present ("it retries ...", "`mean` returns ...").
	says := now || outcome || sc.saysBehaviour(lo, hi) || firstDone < 0 && sc.describes(lo, hi)
	if !done && !result && !resultWord && !passSignal && !complete && !git && !tests && !says && !behaviourNoun && !(newWord && len(objs) > 0) && !keep {
		// No work done, no result, no judgement of the work and nothing the
		// code now does: a description or a line of reasoning ("The bug
		// was in the parser", "the --legacy flag is gone"), not a claim
		// about the work.
		return Statement{}, 0, false
	}
	st := Statement{Sentence: sc.s, Start: int(sc.toks[lo].start), End: int(sc.toks[hi-1].end), Action: action}
	if sc.toks[hi-1].kind == tPunct && hi-1 > lo {
		st.End = int(sc.toks[hi-2].end)
	}
	st.Text = sc.s[st.Start:st.End]
	// The object the clause is about: the first name or path after its
	// verb of done work, else the first it holds.
	objs = slices.DeleteFunc(objs, func(k int) bool { return IsCommitID(sc.nameText(k)) })
	obj := -1
	for _, k := range objs {
		if sc.refersTo(lo, k) {
			continue // "a link to X": X is not what the work was done to
		}
		if obj < 0 || firstDone >= 0 && obj < firstDone && k > firstDone {
			obj = k
		}
	}
	aside := false
	for k, o := lo, 0; k < hi && o < len(objs); k++ {
		if k >= asideAt {
			aside = true
		}
		if k != objs[o] {
			continue
		}
		o++
		n := Name{Text: sc.nameText(k), File: sc.isPath(k), Aside: aside, Object: k == obj, Ref: sc.refersTo(lo, k)}
		if k > lo && sc.wordHas(k-1, wPrep|wObjPrep|wPlace) {
			n.After = strings.ToLower(sc.toks[k-1].text(sc.s))
		}
		if n.Text != "" {
			st.Names = append(st.Names, n)
		}
	}
	if labelFile >= 0 && (done || now) && !slices.ContainsFunc(st.Names, func(n Name) bool { return n.File }) {
		st.Names = append(st.Names, Name{Text: sc.nameText(labelFile), File: true, After: "in"})
	}
	symbol, file := false, false
	if obj >= 0 {
		if sc.isPath(obj) {
			file = true
		} else {
			symbol = true
		}
	}
	// A result word ("green", "failing") speaks of the tests when the
	// clause names them or stands for them ("they are green").
	short := hi-lo <= 5 && sc.wordHas(lo, wSubject|wPronoun|wQuant)
	resultWord = resultWord && (tests || short)
	result = result && (tests || short || passSignal || hi-lo <= 3)
	switch {
	case git:
		st.Kind = "git"
	case (result || resultWord || passSignal) && cmdNoun && !tests:
		st.Kind = "command"
	case tests || passSignal || result || resultWord:
		st.Kind = "tests"
	case action == "fix" || behaviourNoun:
		st.Kind = "behaviour"
	case obj < 0 && complete:
		st.Kind = "completion"
	case obj >= 0 && says:
		st.Kind = "behaviour"
	case action == "verify" || action == "run" || action == "test":
		st.Kind = "command"
	case action == "document":
		st.Kind = "symbol" // doc comments are on functions and types
	case symbol && (done || newWord || keep):
		st.Kind = "symbol"
	case file && (done || newWord || keep):
		st.Kind = "file"
	case says:
		st.Kind = "behaviour"
	case complete || action == "complete":
		st.Kind = "completion"
	case done && !counted && imperativeWork[action] && action != "document" && action != "rename" && action != "move":
		// A feature, in words: "Implemented duration parsing", "Removed
		// silent truncation"; not "Created 2 files", which its count's
		// check decides.
		st.Kind = "behaviour"
	default:
		st.Kind = "statement"
	}
	how := clauseOther
	switch {
	case imperative:
		how = clauseImperative
	case firstDone >= 0:
		how = clauseDone
	}
	return st, how, true
}

// startsAside reports whether token k starts a part of a clause that
// describes rather than claims: a relative ("which", "that"), "so", or a
// participle after a comma (", following the pattern of ...").
func (sc *scanner) startsAside(k int) bool {
	t := &sc.toks[k]
	if t.kind == tWord && (t.is(wRelative) || strings.EqualFold(t.text(sc.s), "so")) {
		return true
	}
	if sc.punctIs(k, ',') && k+1 < len(sc.toks) && sc.toks[k+1].kind == tWord {
		if e := sc.toks[k+1].ent(); e != nil && e.verb != "" {
			return e.form == formIng
		}
		// A participle the lexicon knows no action of: "following".
		w := sc.toks[k+1].text(sc.s)
		return len(w) > 5 && strings.HasSuffix(w, "ing") && !sc.toks[k+1].upper
	}
	return false
}

// futureLead reports a sentence that only announces what is to come: a
// future marker or a lead such as "Next steps" or "TODO", and no verb
// ("Next steps:", a heading "Follow-ups planned").
func (sc *scanner) futureLead() bool {
	future := false
	for k := range sc.toks {
		switch {
		case sc.toks[k].kind == tPunct:
		case sc.wordHas(k, wFuture):
			future = true
		case sc.anyVerb(k) && !sc.wordHas(k, wFuture):
			return false
		}
	}
	return future
}

// verbAfter reports a verb in the present at token k, after adverbs:
// the first word was a subject ("Parse now rejects empty input", "Format
// returns ”"), not an instruction.
func (sc *scanner) verbAfter(k, hi int) bool {
	for k < hi && sc.wordHas(k, wAdverb) || k < hi && strings.EqualFold(sc.toks[k].text(sc.s), "now") {
		k++
	}
	return k < hi && sc.toks[k].kind == tWord && presentVerb(sc, k)
}

// contractedBe reports a word ending in a contracted "be": "I'm", "we're",
// "it's".
func (sc *scanner) contractedBe(k int) bool {
	if k < 0 || sc.toks[k].kind != tWord {
		return false
	}
	w := strings.ToLower(strings.ReplaceAll(sc.toks[k].text(sc.s), "’", "'"))
	return strings.HasSuffix(w, "'m") || strings.HasSuffix(w, "'re") || strings.HasSuffix(w, "'s")
}

// nowVerb reports "now" followed by a verb in the present among tokens
// [lo, hi): "the parser now rejects".
func (sc *scanner) nowVerb(lo, hi int) bool {
	for k := lo; k < hi; k++ {
		if sc.toks[k].kind == tWord && strings.EqualFold(sc.toks[k].text(sc.s), "now") && sc.verbAfter(k+1, hi) {
			return true
		}
	}
	return false
}

// instructs reports an imperative clause among tokens [lo, hi) that says
// when or why to do it, as an instruction does and a commit message's
// claim does not: "please", "before running", "after merging", "if you",
// "to reset the cache".
func (sc *scanner) instructs(lo, hi int) bool {
	for k := lo; k < hi; k++ {
		if sc.toks[k].kind != tWord {
			continue
		}
		w := sc.toks[k].text(sc.s)
		switch {
		case strings.EqualFold(w, "please"), sc.wordHas(k, wCond):
			return true
		case (strings.EqualFold(w, "before") || strings.EqualFold(w, "after") || strings.EqualFold(w, "once") || strings.EqualFold(w, "when")) && k+1 < hi && sc.toks[k+1].kind == tWord:
			return true
		case strings.EqualFold(w, "to") && k+1 < hi && sc.toks[k+1].kind == tWord && sc.toks[k+1].ent() != nil && sc.toks[k+1].ent().form == formBase && sc.toks[k+1].ent().verb == "":
			return true // "to reset the cache": a purpose
		}
	}
	return false
}

// refersTo reports a name at token k that the clause refers to rather
// than works on: after a reference noun and a preposition, "a link to X",
// "the call to X()", "a test for X", "entries for X".
func (sc *scanner) refersTo(lo, k int) bool {
	j := k - 1
	for j > lo && sc.wordHas(j, wDet) {
		j--
	}
	if j <= lo || sc.toks[j].kind != tWord {
		return false
	}
	switch p := sc.toks[j].text(sc.s); {
	case strings.EqualFold(p, "to"), strings.EqualFold(p, "for"), strings.EqualFold(p, "of"), strings.EqualFold(p, "on"), strings.EqualFold(p, "about"):
	default:
		return false
	}
	return sc.wordHas(j-1, wRefNoun)
}

// addressesReader reports a clause among tokens [lo, hi) that speaks to
// its reader: "you", "your".
func (sc *scanner) addressesReader(lo, hi int) bool {
	for k := lo; k < hi; k++ {
		if w := sc.toks[k].text(sc.s); sc.toks[k].kind == tWord && (strings.EqualFold(w, "you") || strings.EqualFold(w, "your")) {
			return true
		}
	}
	return false
}

// copulaIn reports an auxiliary or a test result verb among tokens [lo, hi):
// the clause has a verb of its own after its first word.
func (sc *scanner) copulaIn(lo, hi int) bool {
	for k := lo; k < hi; k++ {
		if sc.wordHas(k, wAux) {
			return true
		}
		if e := sc.toks[k].ent(); sc.toks[k].kind == tWord && e != nil && (e.verb == "pass" || e.verb == "fail") && e.form != formIng {
			return true
		}
	}
	return false
}

// named reports a word token written as a name in code: camelCase
// (parseArgs), inner capitals (ParseRange) or an underscore (old_parse),
// and not the name of a language, tool or product ("JSDoc",
// "TypeScript", "GitHub").
func (sc *scanner) named(k int) bool {
	t := &sc.toks[k]
	w := t.text(sc.s)
	if !t.camel && strings.IndexByte(w, '_') <= 0 && !(t.upper && t.lower && len(w) > 1 && strings.ContainsAny(w[1:], "ABCDEFGHIJKLMNOPQRSTUVWXYZ")) {
		return false
	}
	return !t.is(wTechName) // "JSDoc", "TypeScript": the lexicon's tech-names
}

// IsCommitID reports a word that is a commit id: 7 to 40 lower-case
// hexadecimal digits, with a digit and a letter among them ("af81c43").
func IsCommitID(w string) bool {
	if len(w) < 7 || len(w) > 40 {
		return false
	}
	digit, letter := false, false
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'f':
			letter = true
		default:
			return false
		}
	}
	return digit && letter
}

// nameText is the name object token k writes, without backticks or a
// trailing "()".
func (sc *scanner) nameText(k int) string {
	t := &sc.toks[k]
	w := t.text(sc.s)
	if t.kind == tCode {
		w = codeText(sc.s, t)
	}
	return strings.TrimSuffix(strings.TrimSpace(w), "()")
}

// isPath reports whether object token k names a file or directory rather
// than a symbol.
func (sc *scanner) isPath(k int) bool {
	t := &sc.toks[k]
	switch t.kind {
	case tCode:
		return looksLikeFile(sc.m, codeText(sc.s, t))
	case tIdent:
		return looksLikeFile(sc.m, t.text(sc.s))
	}
	return t.is(wBareFile)
}

// describes reports a clause that says what code does, in the present: a
// subject (a pronoun or a name) and then a verb in the present ("it
// retries", "`mean` returns", "this handles").
func (sc *scanner) describes(lo, hi int) bool {
	k := lo
	if k >= hi {
		return false
	}
	t := &sc.toks[k]
	if !(t.kind == tWord && t.is(wSubject) || t.kind == tCode || t.kind == tIdent || sc.named(k)) {
		return false
	}
	plural := t.kind == tWord && (strings.EqualFold(t.text(sc.s), "they") || strings.EqualFold(t.text(sc.s), "both"))
	k++
	for k < hi && sc.wordHas(k, wAdverb) {
		k++
	}
	if k >= hi || sc.toks[k].kind != tWord {
		return false
	}
	if plural {
		// "they cover every change": a verb in the plural's present.
		e := sc.toks[k].ent()
		return e != nil && e.verb != "" && e.form == formBase || e != nil && e.outcome
	}
	return presentVerb(sc, k)
}

// saysBehaviour reports whether tokens [lo, hi) hold a clause about what
// the code does, beside the change itself: a purpose ("so that it reads",
// "so it reads", "to read the timeout", but not "to add a function"), or
// a relative clause in the present ("which returns", "that splits").
func (sc *scanner) saysBehaviour(lo, hi int) bool {
	for k := lo; k < hi-1; k++ {
		t := &sc.toks[k]
		if t.kind != tWord {
			continue
		}
		w := t.text(sc.s)
		next := &sc.toks[k+1]
		switch {
		case strings.EqualFold(w, "so") && k > lo:
			return true
		case strings.EqualFold(w, "to") && next.kind == tWord && next.ent() != nil && next.ent().form == formBase:
			// "to read the timeout": a purpose; "to add `parse`": a change,
			// whose object the clause names.
			switch next.ent().verb {
			case "add", "create", "implement", "document", "delete", "rename", "move", "install", "commit":
			default:
				return true
			}
		case t.is(wRelative) && next.kind == tWord && presentVerb(sc, k+1):
			return true
		}
	}
	return false
}

// presentVerb reports a verb in the third person present at token k:
// "returns", "exports", "splits", "handles".
func presentVerb(sc *scanner, k int) bool {
	t := &sc.toks[k]
	if e := t.ent(); e != nil {
		if e.form == formS || e.outcome {
			return true
		}
		if e.flags&(wAux|wDet|wPrep|wQuant) != 0 || e.noun != "" {
			return false
		}
	}
	w := strings.ToLower(t.text(sc.s))
	return len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us")
}
