package claimtext

import (
	"slices"
	"strings"
)

// TaskIntent is what a task goal asks for, as far as rules can tell: the
// criteria the goal implies. The DESIGN's worked example, "Add JSDoc comments
// to the exported functions parse, tokenize, format, validate in
// src/parser.ts", is {DocComments: true, DocStyle: "jsdoc", Symbols: [parse
// tokenize format validate], Files: [src/parser.ts], Noun: "function"}.
type TaskIntent struct {
	// DocComments says the goal asks for doc comments on code: it names
	// them (JSDoc, docstrings, godoc, Javadoc, doc comments, ...), or it asks
	// to document, comment or add documentation to code symbols ("Document
	// the public methods of Parser", "Add comments to the exported
	// functions"). Prose documents are not doc comments ("Document the
	// deployment process in README.md", "Fix the documentation link"), and
	// neither is removing them ("Remove the stale JSDoc from utils.js").
	DocComments bool
	// DocStyle is "jsdoc", "docstring", "godoc", "javadoc", "rustdoc" or
	// "doxygen" when the goal names the style, or, for a doc-comment goal,
	// the style of the first source file it names (.ts → jsdoc, .py →
	// docstring, .go → godoc, ...); else "".
	DocStyle string
	// Symbols are the code symbols the goal names, in order, once each:
	// backticked identifiers, calls ("the parse() method"), qualified names
	// ("Parser.parse"), camelCase and snake_case names, and plain names next
	// to a symbol noun ("functions parse, tokenize", "the parse and tokenize
	// functions", "the Parser class"). Trailing "()" is dropped.
	Symbols []string
	// Names are the words the goal puts where a name goes but that read as
	// English too, so the lexicon cannot tell ("the Store methods Open,
	// Close, Get and Put", "the functions config, handler and parse",
	// "the methods on, off and emit"): words listed with others, next to a
	// symbol noun, or after "doc comments to/for". Whether each one is a
	// symbol is for the code to say: a caller resolves them against the
	// parsed files, and a name that matches a symbol there is a symbol. In
	// order, once each, none of them in Symbols or Files.
	Names []string
	// Files are the paths the goal names, in order, once each.
	Files []string
	// Count is the number of things the goal asks for ("add 3 tests",
	// "document all four exported functions"), 0 when it names none.
	Count int
	// Noun is the noun class of what is counted; without a count, when the
	// goal names symbols or asks for doc comments, the first class of code
	// symbol it speaks of ("the exported functions parse, ...": "function");
	// else "".
	Noun string
}

// TaskIntents reads what a task goal asks for. See [TaskIntent].
func TaskIntents(goal string) TaskIntent {
	sc := newScanner(goal)
	defer sc.release()
	sc.approxOK = true
	var ti TaskIntent
	// explicit: a word names doc comments ("JSDoc"); generic: a generic doc
	// word or the verb document, which needs a code symbol as its target.
	explicit, generic, target := false, false, false
	symbolNoun := ""
	for sc.next() {
		toks := sc.toks
		verbClass, verbSeen := "", false
		removes, sentGeneric := false, false
		for k := range toks {
			t := &toks[k]
			switch t.kind {
			case tCode:
				txt := strings.TrimSuffix(codeText(sc.s, t), "()")
				switch {
				case looksLikeFile(sc.m, txt):
					ti.Files = appendOnce(ti.Files, txt)
				case isIdentifier(txt):
					ti.Symbols = appendOnce(ti.Symbols, txt)
				}
				continue
			case tIdent:
				txt := strings.TrimSuffix(t.text(sc.s), "()")
				switch {
				case looksLikeFile(sc.m, txt):
					ti.Files = appendOnce(ti.Files, txt)
				case isIdentifier(txt) && (t.call || strings.ContainsAny(txt, "._$")) && !sc.m.lookup(txt).has(wLibrary):
					ti.Symbols = appendOnce(ti.Symbols, txt)
				}
				continue
			case tWord:
			default:
				continue
			}
			w := t.text(sc.s)
			e := t.ent()
			switch {
			case t.call:
				ti.Symbols = appendOnce(ti.Symbols, w)
				continue
			case t.camel && !t.upper && e == nil:
				ti.Symbols = appendOnce(ti.Symbols, w)
				continue
			case e.has(wBareFile):
				ti.Files = appendOnce(ti.Files, w)
				continue
			case e == nil:
				continue
			}
			if e.verb != "" && e.noun == "" || e.verb == "document" && e.form != formDone {
				if !verbSeen {
					verbClass, verbSeen = e.verb, true
				}
				switch {
				case e.verb == "delete":
					removes = true // "Remove the stale JSDoc"
				case e.verb == "document":
					sentGeneric = true // "Document the public methods"
				}
			}
			if e.flags&wDoc != 0 && !removes {
				if e.flags&wDocExplicit != 0 {
					explicit = true
					if ti.DocStyle == "" && e.style != "" {
						ti.DocStyle = e.style
					}
				} else {
					sentGeneric = true
				}
			}
			if symbolClasses[e.noun] && e.flags&wDoc == 0 && !sc.compound(k) {
				target = true
				if symbolNoun == "" {
					symbolNoun = e.noun
				}
				sc.symbolsNear(k, &ti)
			}
		}
		sc.nameCandidates(&ti)
		if sentGeneric && docVerbClasses[verbClass] && !removes {
			generic = true
		}
		if ti.Count == 0 {
			sc.goalCount(&ti)
		}
	}
	ti.Names = slices.DeleteFunc(ti.Names, func(n string) bool {
		return slices.Contains(ti.Symbols, n) || slices.Contains(ti.Files, n)
	})
	if len(ti.Names) == 0 {
		ti.Names = nil
	}
	named := len(ti.Symbols) > 0
	docsOnly := len(ti.Files) > 0
	for _, f := range ti.Files {
		if !docFileExts[ext(f)] {
			docsOnly = false
		}
	}
	ti.DocComments = explicit || generic && (target || named) && !(docsOnly && !named)
	if !ti.DocComments {
		ti.DocStyle = ""
	} else if ti.DocStyle == "" {
		for _, f := range ti.Files {
			if st := docStyleByExt[strings.ToLower(ext(f))]; st != "" {
				ti.DocStyle = st
				break
			}
		}
	}
	if ti.Noun == "" && (named || ti.DocComments) {
		ti.Noun = symbolNoun
	}
	return ti
}

// nameCandidates adds to ti.Names the words of the sentence in a place
// where a name goes, whatever the lexicon says they are: items of a list of
// two or more ("Open, Close, Get and Put"), a word next to a symbol noun
// ("the Close method", "method on"), a word after a doc object and a
// preposition ("godoc for Close") or after the verb document. Determiners,
// symbol nouns, doc words and file names are never names.
func (sc *scanner) nameCandidates(ti *TaskIntent) {
	toks := sc.toks
	n := len(toks)
	// word returns the word at k if it can be a name: in a list a symbol
	// noun can be one ("config, handler and parse"), alone it cannot.
	word := func(k int, inList bool) (string, bool) {
		if k < 0 || k >= n {
			return "", false
		}
		t := &toks[k]
		if t.kind != tWord && t.kind != tNum {
			return "", false
		}
		w := t.text(sc.s)
		if !isIdentifier(w) || strings.ContainsAny(w, ".#:") || looksLikeFile(sc.m, w) {
			return "", false
		}
		if e := t.ent(); e != nil {
			if e.flags&(wDet|wQuant|wDoc|wJoin) != 0 || symbolClasses[e.noun] && !inList {
				return "", false
			}
			if !inList && (e.flags&(wPrep|wPlace|wObjPrep|wOf|wConj) != 0 || e.verb != "" && e.form == formDone) {
				return "", false
			}
		}
		return w, true
	}
	nounAt := func(k int) bool {
		return k >= 0 && k < n && toks[k].kind == tWord && toks[k].ent() != nil && symbolClasses[toks[k].ent().noun]
	}
	add := func(k int, inList bool) {
		if w, ok := word(k, inList); ok {
			ti.Names = appendOnce(ti.Names, w)
		}
	}
	// sep returns the index after a list separator at k (",", "and", ",
	// and", "&"), or -1.
	sep := func(k int) int {
		switch {
		case sc.punctIs(k, ',') && (sc.wordHas(k+1, wJoin) || sc.punctIs(k+1, '&')):
			return k + 2
		case sc.punctIs(k, ',') || sc.wordHas(k, wJoin) || sc.punctIs(k, '&'):
			return k + 1
		}
		return -1
	}
	for k := 0; k < n; k++ {
		if _, ok := word(k, true); !ok {
			continue
		}
		// A list: this item, then separator and item, at least once.
		last := k
		for {
			nx := sep(last + 1)
			if nx < 0 {
				break
			}
			if _, ok := word(nx, true); !ok {
				break
			}
			last = nx
		}
		if last > k {
			for i := k; i <= last; i++ {
				add(i, true)
			}
			k = last
			continue
		}
		prev := k - 1
		for prev >= 0 && toks[prev].is(wDet) {
			prev--
		}
		w, _ := word(k, false)
		switch {
		case nounAt(k+1) && strings.HasSuffix(w, "ed"):
			// "the exported functions", "deprecated methods"
		case nounAt(k-1) || nounAt(k+1):
			add(k, false) // "method on", "the Close method"
		case prev > 0 && toks[prev].is(wObjPrep) && (toks[prev-1].is(wDoc) || nounAt(prev-1)):
			add(k, false) // "godoc for Close"
		case prev >= 0 && toks[prev].kind == tWord && toks[prev].ent() != nil && toks[prev].ent().verb == "document":
			add(k, false) // "Document Close"
		}
	}
}

// compound reports a symbol noun that modifies the noun after it: "type
// annotations", "class names", "function calls".
func (sc *scanner) compound(k int) bool {
	if k+1 >= len(sc.toks) {
		return false
	}
	nx := &sc.toks[k+1]
	return nx.kind == tWord && nx.ent() != nil && (nx.ent().noun != "" || nx.ent().flags&wCommon != 0 && !nx.named())
}

// symbolsNear adds the plain names listed next to the symbol noun at k:
// "functions parse, tokenize, format", "the parse and tokenize functions",
// "the Parser class", "function foo".
func (sc *scanner) symbolsNear(k int, ti *TaskIntent) {
	lo := len(sc.items)
	if cnt, _, _ := sc.parseItems(k + 1); cnt > 0 {
		sc.addSymbols(ti, lo)
	}
	sc.items = sc.items[:lo]
	// Before: walk back over items and separators.
	j := k - 1
	first := k
	for j >= 0 {
		if ok, _ := sc.isItem(j); !ok {
			break
		}
		first = j
		j--
		if sc.punctIs(j, ',') || sc.wordHas(j, wJoin) || sc.punctIs(j, '&') {
			j--
			if sc.punctIs(j+1, ',') && sc.wordHas(j, wJoin) {
				j--
			}
			continue
		}
		break
	}
	if first == k || first == 0 || !sc.listOpener(first-1) {
		return
	}
	cnt, _, plain := sc.parseItems(first)
	if cnt == 1 && plain && !sc.toks[first].named() && !sc.toks[first-1].is(wDet) {
		sc.items = sc.items[:lo]
		return
	}
	sc.addSymbols(ti, lo)
	sc.items = sc.items[:lo]
}

// addSymbols adds the items from sc.items[lo:] that are names, not common
// words or files.
func (sc *scanner) addSymbols(ti *TaskIntent, lo int) {
	for _, k := range sc.items[lo:] {
		t := &sc.toks[k]
		if t.kind == tWord && !t.call && t.ent().has(wCommon) && !t.named() {
			continue
		}
		txt := sc.itemText(k)
		if looksLikeFile(sc.m, txt) {
			ti.Files = appendOnce(ti.Files, txt)
			continue
		}
		if isIdentifier(txt) {
			ti.Symbols = appendOnce(ti.Symbols, txt)
		}
	}
}

// goalCount sets the count a goal asks for: the first count with a noun
// ("add 3 tests", "at least 3 tests", "all four exported functions").
func (sc *scanner) goalCount(ti *TaskIntent) {
	for i := range sc.toks {
		t := &sc.toks[i]
		var c cand
		ok := false
		switch {
		case t.kind == tWord && t.is(wQuant):
			ok = sc.parseQuant(i, &c)
		case t.kind == tNum:
			ok = sc.parseNum(i, &c)
		}
		if !ok || c.head < 0 || c.elided {
			continue
		}
		if c.hasNum && c.num > 0 {
			ti.Count, ti.Noun = c.num, c.noun
			return
		}
		if ti.Noun == "" && c.noun != "" {
			ti.Noun = c.noun
		}
	}
}

// looksLikeFile reports a path or file name: a known extension
// ("src/parser.ts", "README.md"), or a known bare name ("Makefile"); not a URL
// and not a library name ("Node.js").
func looksLikeFile(m lexView, s string) bool {
	if s == "" || strings.ContainsAny(s, " \t`'\"<>|*?") || strings.Contains(s, "://") {
		return false
	}
	if m.lookup(s).has(wLibrary) {
		return false
	}
	base := s
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		base = s[i+1:]
	}
	if m.lookup(base).has(wBareFile) {
		return true
	}
	x := ext(base)
	if x == "" || x == base {
		return false
	}
	return fileExt(x)
}

// ext is the extension of a file name, without the dot; "" when none.
func ext(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	i := strings.LastIndexByte(name, '.')
	if i < 0 || i == len(name)-1 {
		return ""
	}
	return name[i+1:]
}

var extSet = func() map[string]bool {
	m := make(map[string]bool, len(fileExts))
	for _, x := range fileExts {
		m[x] = true
	}
	return m
}()

// fileExt reports a known file extension, case-insensitively.
func fileExt(x string) bool {
	var buf [16]byte
	if len(x) > len(buf) {
		return false
	}
	for i := 0; i < len(x); i++ {
		c := x[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return extSet[string(buf[:len(x)])]
}

// isIdentifier reports a name a symbol can have: letters, digits, _, $ and
// the separators . # :: of qualified names, starting with a letter, _ or $.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$') {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c == '.' || c == '#' || c == ':') {
			return false
		}
	}
	last := s[len(s)-1]
	return last != '.' && last != ':' && last != '#'
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
