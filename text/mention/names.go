package mention

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/vouchgate/vouch"
)

// name reads a capitalised word at token i: a symbol when a code noun
// follows ("the Parser class"), else maybe an entity, alone or with the
// capitalised words after it ("Marie Curie", "Bank of England").
//
// Entities follow these rules:
//   - A name of several words is an entity in the middle of a sentence,
//     even when all its words are common ("World Health Organization").
//   - A single word is an entity when it is no common word, stop word, month,
//     weekday or name of the trade ("Paris", "Google"; not "Session",
//     "March", "GitHub"), and an acronym when it is none of the trade's
//     ("NASA"; not "API", "JSON", "TODO").
//   - At the start of a clause (a sentence, a list item, a table cell, after
//     a colon or a quote) a capital proves nothing. A leading stop word is
//     dropped ("The New York Times" gives "New York Times"); a leading verb
//     ("Added", "Fixed", any word in -ed or -ing) is dropped and the rest
//     must hold a word that is not common; a single word is never an
//     entity; several words are one when one of them is not common ("Marie
//     Curie won" gives "Marie Curie"; "Error Handling" gives nothing).
//   - Headings give no entities: their words are capitalised as titles.
func (p *parser) name(i int) int {
	t := &p.toks[i]
	w := p.text[t.s:t.e]
	info := p.info(i)
	if p.codeNounAt(i+1) && !info.has(lStop|lTech|lAcro) && !t.poss && !p.afterName(i) && isIdent(w) && len(w) > 1 && !allUpper(w) {
		p.add(vouch.MentionSymbol, t.s, t.e, w)
		return i + 2
	}
	if _, ok := nameWord(w, info); !ok || info.has(lBareFile) && bareFiles[w] || info.has(lTitle) && t.e < p.se && p.text[t.e] == '.' {
		return i + 1
	}
	if i > 0 && t.gap == ' ' && p.toks[i-1].k == tkRun && p.info(i-1).has(lTech) && unicode.IsUpper(firstRune(p.word(i-1))) {
		// "GitHub Actions", "Docker Compose": a product's name goes on.
		for i+1 < len(p.toks) && p.next(i+1, "") && isNameWordOnly(p.word(i+1)) {
			i++
		}
		return i + 1
	}
	// Collect the words of the name.
	var words [12]int
	n := 0
	words[n] = i
	n++
	j := i
	for n < len(words)-1 && !p.toks[j].poss {
		k := j + 1
		if k >= len(p.toks) || p.toks[k].k != tkRun {
			break
		}
		g := p.toks[k].gap
		wk := p.word(k)
		if g != ' ' && !(g == '.' && p.toks[j].e-p.toks[j].s == 1) && !(g == '&' && isNameWordOnly(wk)) {
			break
		}
		if c := wk[0]; c < utf8.RuneSelf && !isUpper(c) {
			// Only a link may go on: "Bank of England".
			if len(wk) <= 5 && p.info(k).has(lLink) && allLower(wk) && k+1 < len(p.toks) && p.next(k+1, "") && !p.toks[k].poss {
				if wn := p.word(k + 1); isNameWordOnly(wn) && !p.info(k+1).has(lStop|lTech|lMonth|lDay) {
					words[n] = k + 1
					n++
					j = k + 1
					continue
				}
			}
			break
		}
		if p.info(k).has(lBareFile) && bareFiles[wk] || p.codeNounAt(k+1) || p.info(k).has(lTitle) && p.toks[k].e < p.se && p.text[p.toks[k].e] == '.' {
			break // "the Parser class": a symbol follows
		}
		if _, ok := nameWord(wk, p.info(k)); ok || isInitial(p, k) {
			words[n] = k
			n++
			j = k
			continue
		}
		break
	}
	next := j + 1
	if p.heading {
		return next
	}
	seq := words[:n]
	needRare := false
	if p.initial(i) {
		fw := info
		switch {
		case fw.has(lStop):
			seq = seq[1:]
		case fw.has(lNameStart):
			if len(seq) == 1 {
				return next
			}
			needRare = true
		case fw.has(lVerb) || verbish(w) || p.common(i):
			seq = seq[1:]
			needRare = true
		default:
			if len(seq) == 1 {
				return next
			}
			needRare = true
		}
	}
	// A trailing initial ("Plan B") is no part of a name.
	for len(seq) > 0 && p.toks[seq[len(seq)-1]].e-p.toks[seq[len(seq)-1]].s == 1 {
		seq = seq[:len(seq)-1]
	}
	if len(seq) == 0 {
		return next
	}
	rare := false
	for _, k := range seq {
		if !p.common(k) {
			rare = true
		}
	}
	if needRare && !rare || len(seq) == 1 && !rare {
		return next
	}
	if len(seq) == 1 {
		sw := p.word(seq[0])
		if len(sw) < 2 || utf8.RuneCountInString(sw) < 2 {
			return next
		}
	}
	s, e := p.toks[seq[0]].s, p.toks[seq[len(seq)-1]].e
	p.add(vouch.MentionEntity, s, e, entityNorm(p.text[s:e]))
	return next
}

// common reports a common word (or the plural of one) at token k.
func (p *parser) common(k int) bool {
	if p.info(k).has(lStop | lCommon | lVerb) {
		return true
	}
	w := p.word(k)
	return len(w) > 3 && w[len(w)-1] == 's' && lookup(w[:len(w)-1]).has(lCommon)
}

// codeNounAt reports a code noun at token i: "class" in "the Parser class".
func (p *parser) codeNounAt(i int) bool {
	if !p.next(i, "") {
		return false
	}
	w := p.word(i)
	return len(w) >= 4 && len(w) <= 11 && isLower(w[0]) && p.info(i).has(lCodeNoun)
}

// isInitial reports a single capital letter followed by a dot, inside a
// name: "John F. Kennedy".
func isInitial(p *parser, k int) bool {
	t := &p.toks[k]
	return t.e-t.s == 1 && isUpper(p.text[t.s]) && t.e < p.se && p.text[t.e] == '.' && k+1 < len(p.toks) && p.toks[k+1].gap == '.'
}

// nameWord reports a word that can be part of a name: capitalised ("Paris",
// "Jean-Paul", "O'Brien", "McCarthy", "Zürich") or an acronym not of the
// trade ("NASA"); and whether it is an acronym.
func nameWord(w string, info *winfo) (acronym, ok bool) {
	if info.has(lTech | lMonth | lDay | lStop) {
		return false, false
	}
	if allUpper(w) && isAlphaASCII(w) {
		if len(w) < 2 || len(w) > 7 || info.has(lAcro|lStop|lCommon|lVerb|lKeyword|lUnit) {
			return true, false
		}
		return true, true
	}
	return false, isNameWordOnly(w)
}

// isNameWordOnly reports a capitalised word of letters (with inner hyphens
// and apostrophes), whose other capitals start its parts or follow a name
// prefix ("McCarthy").
func isNameWordOnly(w string) bool {
	if len(w) < 2 {
		return false
	}
	if c := w[0]; c < utf8.RuneSelf {
		// ASCII fast path: a capital, then lower-case letters.
		if !isUpper(c) {
			return false
		}
		plain := true
		for i := 1; i < len(w); i++ {
			if !isLower(w[i]) {
				plain = false
				break
			}
		}
		if plain {
			return true
		}
	}
	r, size := utf8.DecodeRuneInString(w)
	if !unicode.IsUpper(r) || size == len(w) {
		return false
	}
	prev := r
	lower := false
	for _, c := range w[size:] {
		switch {
		case c == '-' || c == '\'' || c == '’':
		case unicode.IsLower(c):
			lower = true
		case unicode.IsUpper(c):
			if prev != '-' && prev != '\'' && prev != '’' && !personCamel(w) {
				return false
			}
		default:
			return false
		}
		prev = c
	}
	return lower && !strings.HasSuffix(w, "-")
}

func isAlphaASCII(w string) bool {
	for i := 0; i < len(w); i++ {
		if !isLetter(w[i]) {
			return false
		}
	}
	return w != ""
}

// verbish reports a word that reads as a verb at the start of a sentence:
// "Added", "Refactored", "Implementing".
func verbish(w string) bool {
	if len(w) < 5 {
		return false
	}
	a, b, c := w[len(w)-3]|0x20, w[len(w)-2]|0x20, w[len(w)-1]|0x20
	return b == 'e' && c == 'd' || a == 'i' && b == 'n' && c == 'g'
}

// entityNorm is a name in lower case with single spaces and without a
// possessive.
func entityNorm(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// afterName reports a token that follows a capitalised word: "Code" in
// "Claude Code".
func (p *parser) afterName(i int) bool {
	if i == 0 || p.toks[i].gap != ' ' || p.toks[i-1].k != tkRun {
		return false
	}
	return unicode.IsUpper(firstRune(p.word(i-1))) && !p.info(i-1).has(lStop)
}
