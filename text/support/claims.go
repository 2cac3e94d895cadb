package support

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vouchgate/vouch/text/lex"

	"github.com/vouchgate/vouch/text/mention"
)

// Claims returns one Claim per sentence of doc that states something:
// headings, code blocks, table rules and sentences without a letter or
// digit are skipped. A claim's atoms are the numbers, dates, entities and
// quantities doc mentions in the sentence, and the phrases of two words or
// more it puts in double quotes ("…" or “…”), which must appear in one
// source with case, spacing and punctuation ignored (a "..." inside a
// quote may stand for left-out words). Other mentions (files, symbols,
// URLs) are grounded elsewhere.
//
// An atom no source holds (see [Index.Find]; a number is read with the
// hedge before it, so "about 3 million" holds for 3.2 million) is
// unsupported. An unsupported number, date or quantity is also
// contradicted when one source sentence or record item puts another value
// of the same sort (same unit dimension, both years, both dates) next to
// the same key word ("revenue", "founded"; the nearest few words on each
// side, up to the next value) and names one of the claim's names
// (capitalised words) too; when the claim names no one, two shared key
// words are needed. Contradicted atoms stay listed in Unsupported too.
//
// Sources are ranked by the number of the claim's atoms they hold, then by
// the share of the sentence's content words they hold; a source is listed
// when it holds an atom, or at least half of the content words (two or
// more). Overlap is that share for the best-ranked source, listed or not.
func (ix *Index) Claims(doc *mention.Doc) []Claim {
	if doc == nil {
		return nil
	}
	c := claimer{ix: ix, doc: doc,
		held: make([]int32, len(ix.srcs)), ov: make([]int32, len(ix.srcs)),
		termMark: make([]uint32, len(ix.terms))}
	claims := make([]Claim, 0, len(doc.Sentences))
	var ms []mention.Mention
	mi := 0
	for si, sp := range doc.Sentences {
		for mi < len(doc.Mentions) && doc.Mentions[mi].Start < sp.Start {
			mi++
		}
		mj := mi
		for mj < len(doc.Mentions) && doc.Mentions[mj].Start < sp.End {
			mj++
		}
		if !isClaimText(sp.Text) || isHeading(doc.Text, sp.Start) {
			continue
		}
		ms = ms[:0]
		for _, m := range doc.Mentions[mi:mj] {
			if m.Sentence == si || m.Sentence < 0 || m.Sentence >= len(doc.Sentences) {
				ms = append(ms, m)
			}
		}
		claims = append(claims, c.claim(sp, ms))
	}
	return claims
}

// isClaimText reports whether a sentence can state something.
func isClaimText(s string) bool {
	t := strings.TrimSpace(s)
	if t == "" || strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") || strings.HasPrefix(t, "#") {
		return false
	}
	if strings.HasPrefix(t, "|") && strings.Trim(t, "|-: \t\n") == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		if isWordByte(t, i) {
			return true
		}
	}
	return false
}

// isHeading reports whether the line holding offset start is a Markdown
// heading.
func isHeading(text string, start int) bool {
	ls := strings.LastIndexByte(text[:start], '\n') + 1
	line := strings.TrimLeft(text[ls:], " \t")
	return strings.HasPrefix(line, "#")
}

// claimer holds the state of one Claims call.
type claimer struct {
	ix        *Index
	doc       *mention.Doc
	held      []int32 // per source: atoms held, for the current sentence
	ov        []int32 // per source: content words held
	touched   []int32
	toks      []tok
	atoms     []atomAt
	mark      []uint32 // per value entry: the epoch it was last looked at
	epoch     uint32
	sc        scanner
	found     []int32
	termMark  []uint32 // per term: termEpoch when counted or named in the current sentence
	termEpoch uint32
	rank      []uint64 // the current sentence's sources, by rank key
	names     []int32  // names of the current sentence
	named     bool     // names is filled
	unitMark  []uint32 // per unit of the index: nameEpoch when it holds a name of the sentence
	nameEpoch uint32
	marked    [][2]int32 // the units marked in unitMark: source, unit
	vkeys     [][]int32  // per value entry: its key words, once computed
}

// atomAt is an atom with where it stands in the sentence.
type atomAt struct {
	Atom
	m      mention.Mention
	lo, hi int // its tokens in claimer.toks
	unit   string
}

func (c *claimer) claim(sp mention.Span, ms []mention.Mention) Claim {
	ix := c.ix
	cl := Claim{Sentence: sp}
	// Tokens of the sentence.
	c.toks = c.toks[:0]
	c.sc.text, c.sc.i = sp.Text, 0
	for {
		start, end, flags, ok := c.sc.next()
		if !ok {
			break
		}
		folded := c.sc.buf
		t := ix.term(folded)
		var stop, unitw bool
		if t >= 0 {
			stop, unitw = ix.stop[t], ix.unitw[t]
		} else {
			_, u := units[string(folded)]
			stop, unitw = stopWords[string(folded)], u || scaleWords[string(folded)]
		}
		if flags&tkDigit == 0 && !stop && end-start > 1 {
			flags |= tkContent
		}
		if negWords[string(folded)] {
			flags |= tkNeg
		}
		if unitw {
			flags |= tkUnit
		}
		c.toks = append(c.toks, tok{start: int32(sp.Start + start), end: int32(sp.Start + end), term: t, flags: flags})
	}
	c.named = false
	// Atoms from mentions.
	atoms := c.atoms[:0]
	defer func() { c.atoms = atoms[:0] }()
	for _, m := range ms {
		switch m.Kind {
		case kindNumber, kindDate, kindEntity, kindQuantity:
		default:
			continue
		}
		if selfCount(c.doc.Text, sp, m) {
			continue
		}
		lo, hi := tokRange(c.toks, int32(m.Start), int32(m.End))
		a := atomAt{Atom: Atom{Kind: string(m.Kind), Text: m.Text, Norm: m.Norm}, m: m, lo: int(lo), hi: int(hi)}
		if m.Kind != kindEntity {
			for k := lo; k < hi; k++ {
				c.toks[k].flags |= tkValue
				c.toks[k].flags &^= tkContent
			}
			a.unit = m.Unit
			if m.Kind == kindNumber && a.unit == "" {
				a.unit = unitAfter(c.doc.Text, m.End)
				if _, ok := clockOf(c.doc.Text, m); ok {
					a.unit = clockUnit
				}
			}
		}
		atoms = append(atoms, a)
	}
	quotes := quotesIn(sp)

	// Which sources hold each atom.
	nClocks := 0 // times of day read from the sentence
	c.touched = c.touched[:0]
	hold := func(srcs []int32) {
		for _, s := range srcs {
			if c.held[s] == 0 && c.ov[s] == 0 {
				c.touched = append(c.touched, s)
			}
			c.held[s]++
		}
	}
	for i := range atoms {
		a := &atoms[i]
		c.found = ix.match(a.m, c.doc.Text, c.found)
		if len(c.found) > 0 {
			hold(c.found)
			continue
		}
		if a.m.Kind != kindEntity {
			if ct, ok := c.contradiction(a); ok {
				cl.Unsupported = append(cl.Unsupported, a.Atom)
				cl.Contradicted = append(cl.Contradicted, ct)
				continue
			}
		}
		if ix.unreadable(a.m) {
			cl.Undecided = append(cl.Undecided, a.Atom)
			continue
		}
		cl.Unsupported = append(cl.Unsupported, a.Atom)
	}
	// Times of day no mention reads ("11:00 am", "10pm"), when a source
	// writes times of day to check them against.
	if ix.clockSrcs > 0 {
		for _, v := range clocks(sp.Text, nil) {
			start, end := int32(sp.Start)+v.start, int32(sp.Start)+v.end
			if slices.ContainsFunc(atoms, func(a atomAt) bool { return int32(a.m.Start) < end && start < int32(a.m.End) }) {
				continue
			}
			a := Atom{Kind: string(kindNumber), Text: v.text, Norm: fmt.Sprintf("%d:%02d", int(v.num)/60, int(v.num)%60)}
			nClocks++
			if c.found = ix.findClock(int(v.num), c.found[:0]); len(c.found) > 0 {
				hold(c.found)
				continue
			}
			cl.Unsupported = append(cl.Unsupported, a)
		}
	}
	for _, q := range quotes {
		c.found = c.matchQuote(q, c.found[:0])
		if len(c.found) > 0 {
			hold(c.found)
			continue
		}
		if ix.nearQuote(q) {
			cl.Undecided = append(cl.Undecided, q.Atom)
			continue
		}
		cl.Unsupported = append(cl.Unsupported, q.Atom)
	}
	cl.Checkable = len(atoms)+len(quotes)+nClocks > len(cl.Undecided)
	cl.Ordered = ix.ordered(c.toks)

	// Content words held by each source.
	nContent := int32(0)
	c.termEpoch++
	for _, t := range c.toks {
		if t.flags&tkContent == 0 || t.flags&tkUnit != 0 {
			continue
		}
		if t.term >= 0 && c.termMark[t.term] == c.termEpoch {
			continue
		}
		nContent++
		if t.term < 0 {
			continue
		}
		c.termMark[t.term] = c.termEpoch
		for _, s := range ix.sourcesOf(t.term) {
			if c.held[s] == 0 && c.ov[s] == 0 {
				c.touched = append(c.touched, s)
			}
			c.ov[s]++
		}
	}

	// Rank: atoms held, then content words held, then source order.
	c.rank = c.rank[:0]
	nListed := 0
	for _, s := range c.touched {
		c.rank = append(c.rank, uint64(c.held[s])<<42|uint64(c.ov[s])<<21|uint64(1<<21-1-s))
		if c.held[s] > 0 || c.ov[s] >= 2 && 2*c.ov[s] >= nContent {
			nListed++
		}
	}
	slices.Sort(c.rank)
	slices.Reverse(c.rank)
	if len(c.rank) > 0 && nContent > 0 {
		best := int32(1<<21 - 1 - c.rank[0]&(1<<21-1))
		cl.Overlap = float64(c.ov[best]) / float64(nContent)
	}
	if nListed > 0 {
		cl.Sources = make([]string, 0, nListed)
		for _, r := range c.rank {
			s := int32(1<<21 - 1 - r&(1<<21-1))
			if c.held[s] > 0 || c.ov[s] >= 2 && 2*c.ov[s] >= nContent {
				cl.Sources = append(cl.Sources, ix.srcs[s].id)
			}
		}
	}
	for _, s := range c.touched {
		c.held[s], c.ov[s] = 0, 0
	}
	return cl
}

// textUnits are the units a writer measures their own text in.
var textUnits = lex.Named("text-units").Set()

// selfCount reports whether m counts the words (characters, sentences) of
// the answer itself: a number or quantity of a text unit in a sentence
// that ends with a colon, introducing what follows ("Here is a summary of
// the article in 94 words:", "Here's the summary within 200 words or
// less:"). The answer's length is no claim about its sources.
func selfCount(text string, sp mention.Span, m mention.Mention) bool {
	if m.Kind != kindNumber && m.Kind != kindQuantity || !strings.HasSuffix(strings.TrimSpace(sp.Text), ":") {
		return false
	}
	if m.Kind == kindQuantity {
		return textUnits[m.Unit]
	}
	i := m.End
	for i < len(text) && text[i] == ' ' {
		i++
	}
	j := i
	for j < len(text) && isWordByte(text, j) {
		j++
	}
	return j > i && textUnits[string(singular([]byte(strings.ToLower(text[i:j]))))]
}

// scaleWords are words that scale a number; they are no key word.
var scaleWords = lex.Named("scale-nouns").Set()

func isUnitWord(w string) bool {
	_, ok := units[w]
	return ok || scaleWords[w]
}

// quote is a quoted phrase of a claim.
type quote struct {
	Atom
	segs [][]string // lower-case words of each part between ellipses
}

// quotesIn returns the quoted phrases of two words or more in a sentence.
func quotesIn(sp mention.Span) []quote {
	s := sp.Text
	if strings.IndexByte(s, '"') < 0 && !strings.Contains(s, "“") && !strings.Contains(s, "«") {
		return nil
	}
	var out []quote
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		var closer rune
		switch r {
		case '"':
			closer = '"'
		case '“':
			closer = '”'
		case '«':
			closer = '»'
		}
		if closer == 0 {
			i += size
			continue
		}
		j := strings.IndexRune(s[i+size:], closer)
		if j < 0 {
			break
		}
		inner := s[i+size : i+size+j]
		i += size + j + utf8.RuneLen(closer)
		var segs [][]string
		words := 0
		for _, part := range splitEllipsis(inner) {
			var seg []string
			scanTokens(part, nil, func(start, end int, _ uint8, _ []byte) {
				seg = append(seg, strings.ToLower(part[start:end]))
			})
			if len(seg) > 0 {
				segs = append(segs, seg)
				words += len(seg)
			}
		}
		if words < 2 {
			continue
		}
		var norm []string
		for _, seg := range segs {
			norm = append(norm, strings.Join(seg, " "))
		}
		out = append(out, quote{Atom: Atom{Kind: "quote", Text: strings.TrimSpace(inner), Norm: strings.Join(norm, " … ")}, segs: segs})
	}
	return out
}

func splitEllipsis(s string) []string {
	s = strings.ReplaceAll(s, "…", "...")
	return strings.Split(s, "...")
}

// matchQuote adds the sources holding every part of a quote, each as a
// run of words.
func (c *claimer) matchQuote(q quote, out []int32) []int32 {
	ix := c.ix
	if len(q.segs) == 1 && len(q.segs[0]) > 1 && articles[q.segs[0][0]] {
		// A title quoted with its article: "The Hobbit" for "Hobbit".
		if got := c.matchQuote(quote{segs: [][]string{q.segs[0][1:]}}, nil); len(got) > 0 {
			return append(out, got...)
		}
	}
	return append(out, common(len(q.segs), func(i int) []int32 { return ix.wordRuns(q.segs[i], nil) })...)
}

// articles are the words a quoted title may drop.
var articles = lex.Named("articles").Set()

// wordRuns adds the sources holding the lower-case words in a row.
func (ix *Index) wordRuns(words []string, out []int32) []int32 {
	var first int32 = -1
	var buf []byte
	scanTokens(words[0], buf, func(_, _ int, _ uint8, folded []byte) {
		if first < 0 {
			first = ix.term(folded)
		}
	})
	for _, p := range ix.places(first) {
		src := &ix.srcs[p.src]
		if int(p.pos)+len(words) > len(src.toks) {
			continue
		}
		ok := true
		for j, w := range words {
			t := src.toks[int(p.pos)+j]
			if !strings.EqualFold(src.text[t.start:t.end], w) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, p.src)
		}
	}
	return out
}

// maxCandidates bounds the search for a contradiction: the first source
// units naming the claim's names, or the first places of each key word,
// in index order. An atom past the bound stays unsupported, only without
// a contradiction named.
const maxCandidates = 256

// keyWindow is how many tokens before a value (and keyAfter after it) are
// read for its key words.
const (
	keyWindow = 4
	keyAfter  = 3
)

// keyTerms appends the key words around the tokens [lo, hi) of toks
// within [ulo, uhi): content words, not units, up to the next value, and
// not across a ";" or a line break (a field of a record), nor, after the
// value, a ",".
func (ix *Index) keyTerms(text string, toks []tok, lo, hi, ulo, uhi int, out []int32) []int32 {
	for k, n := lo-1, 0; k >= ulo && n < keyWindow; k, n = k-1, n+1 {
		if toks[k].flags&tkValue != 0 || breaksField(text, toks[k].end, toks[k+1].start, false) {
			break
		}
		out = ix.addKey(toks[k], out)
	}
	for k, n := hi, 0; k < uhi && n < keyAfter; k, n = k+1, n+1 {
		if toks[k].flags&tkValue != 0 || k > 0 && breaksField(text, toks[k-1].end, toks[k].start, true) {
			break
		}
		out = ix.addKey(toks[k], out)
	}
	return out
}

// breaksField reports whether the text between two tokens separates
// fields or clauses.
func breaksField(text string, from, to int32, comma bool) bool {
	if from < 0 || to > int32(len(text)) || from >= to {
		return false
	}
	for _, c := range []byte(text[from:to]) {
		if c == ';' || c == '\n' || comma && c == ',' {
			return true
		}
	}
	return false
}

func (ix *Index) addKey(t tok, out []int32) []int32 {
	if t.flags&(tkContent|tkUnit) != tkContent || t.term < 0 || ix.unitw[t.term] {
		return out
	}
	if !slices.Contains(out, t.term) {
		out = append(out, t.term)
	}
	return out
}

// valueKeys returns the key words around value v (an index in nums, or
// len(nums) plus an index in dvals), computed once per Claims call.
func (c *claimer) valueKeys(v int, si, lo, hi int32) []int32 {
	if c.vkeys == nil {
		c.vkeys = make([][]int32, len(c.ix.nums)+len(c.ix.dvals))
	}
	if k := c.vkeys[v]; k != nil {
		return k
	}
	src := &c.ix.srcs[si]
	ulo, uhi := src.unitOfTok(lo)
	k := c.ix.keyTerms(src.text, src.toks, int(lo), int(hi), int(ulo), int(uhi), make([]int32, 0, 4))
	c.vkeys[v] = k
	return k
}

// sentenceNames appends the capitalised content words of the sentence, the names
// it speaks of, each once.
func (c *claimer) sentenceNames(out []int32) []int32 {
	c.termEpoch++
	for _, t := range c.toks {
		if t.term >= 0 && t.flags&tkCap != 0 && t.flags&(tkContent|tkValue) == tkContent && c.termMark[t.term] != c.termEpoch {
			c.termMark[t.term] = c.termEpoch
			out = append(out, t.term)
		}
	}
	return out
}

// contradiction looks for a source that gives the atom's subject another
// value: a value of the same sort in one sentence or record item that
// shares a key word with the claim's value and a name (a capitalised
// word) with the claim; when the claim names no one, two key words.
func (c *claimer) contradiction(a *atomAt) (Contradiction, bool) {
	ix := c.ix
	keys := ix.keyTerms(c.doc.Text, c.toks, a.lo, a.hi, 0, len(c.toks), nil)
	var noun int32 = -1
	if a.m.Kind == kindQuantity {
		noun = ix.term(singular([]byte(strings.ToLower(a.m.Unit))))
		if noun < 0 {
			return Contradiction{}, false
		}
	}
	if len(keys) == 0 && noun < 0 {
		return Contradiction{}, false
	}
	if !c.named {
		c.names, c.named = c.sentenceNames(c.names[:0]), true
		// The source units that hold one of the names.
		c.nameEpoch++
		if len(c.unitMark) < ix.units {
			c.unitMark = make([]uint32, ix.units)
		}
		c.marked = c.marked[:0]
		for _, n := range c.names {
			for _, p := range ix.places(n) {
				src := &ix.srcs[p.src]
				ui := src.unitIndex(p.pos)
				if g := src.unitBase + ui; c.unitMark[g] != c.nameEpoch {
					c.unitMark[g] = c.nameEpoch
					c.marked = append(c.marked, [2]int32{p.src, int32(ui)})
				}
			}
		}
	}
	need := 1
	if len(c.names) == 0 {
		need = 2
	}
	best, bestShared := -1, 0
	var found string
	// consider checks a value exactly: the key words around it.
	consider := func(v int, si, lo, hi int32, text string) {
		sk := c.valueKeys(v, si, lo, hi)
		shared := 0
		for _, k := range sk {
			if slices.Contains(keys, k) {
				shared++
			}
		}
		if noun >= 0 {
			shared++ // the same noun
		}
		if shared < need {
			return
		}
		// Among values anchored alike, one written as precisely as the
		// claim's (a full date for a full date) is the better match.
		score := 2 * shared
		if a.m.Kind == kindDate && v >= len(ix.nums) && len(ix.dvals[v-len(ix.nums)].norm) == len(a.Norm) {
			score++
		}
		if score > bestShared || score == bestShared && int(si) < best {
			best, bestShared, found = int(si), score, text
		}
	}
	var u unit
	year := false
	if a.m.Kind == kindNumber {
		u = unitOf(a.unit)
		year = isYear(a.m.Value) && u.dim == ""
	}
	full := !strings.HasPrefix(a.Norm, "--")
	// candidate checks the sort of the value starting at token tk.
	candidate := func(src *source, tk int) {
		if a.m.Kind == kindDate {
			if d := src.dateAt[tk] - 1; d >= 0 {
				if dv := &ix.dvals[d]; !strings.HasPrefix(dv.norm, "--") == full {
					consider(len(ix.nums)+int(d), dv.src, dv.tokLo, dv.tokHi, dv.text)
				}
			}
			return
		}
		i := src.numAt[tk] - 1
		if i < 0 {
			return
		}
		n := &ix.nums[i]
		switch a.m.Kind {
		case kindNumber:
			if n.dim != u.dim || n.noun >= 0 || (isYear(n.raw) && n.dim == "") != year {
				return
			}
		case kindQuantity:
			if n.noun != noun && !(n.dim == "" && n.noun < 0 && ix.nearTerm(n.src, n.tokLo, n.tokHi, noun)) {
				return
			}
		}
		consider(int(i), n.src, n.tokLo, n.tokHi, n.text)
	}
	if len(c.names) > 0 {
		// Only a unit that names one of the claim's names can contradict it.
		marked := c.marked
		if len(marked) > maxCandidates {
			marked = marked[:maxCandidates]
		}
		for _, m := range marked {
			src := &ix.srcs[m[0]]
			lo, hi := src.unitOfTok(src.units[m[1]])
			for tk := lo; tk < hi; tk++ {
				if src.toks[tk].flags&tkValue != 0 {
					candidate(src, int(tk))
				}
			}
		}
	} else {
		// With no names, a value needs two key words of the claim near it:
		// it is near a place of one of them.
		search := keys
		if noun >= 0 {
			search = append(slices.Clip(keys), noun)
		}
		if len(search) < 2 {
			return Contradiction{}, false
		}
		// A value sharing two key words shares one that is not the most
		// frequent: the places of the others find it.
		most := 0
		for i, k := range search {
			if len(ix.places(k)) > len(ix.places(search[most])) {
				most = i
			}
		}
		search = append(slices.Clip(search[:most]), search[most+1:]...)
		nv := len(ix.nums) + len(ix.dvals)
		if len(c.mark) < nv {
			c.mark = make([]uint32, nv)
		}
		c.epoch++
		for _, k := range search {
			places := ix.places(k)
			if len(places) > maxCandidates {
				places = places[:maxCandidates]
			}
			for _, p := range places {
				src := &ix.srcs[p.src]
				ulo, uhi := src.unitOfTok(p.pos)
				lo := max(int(ulo), int(p.pos)-keyAfter-3)
				hi := min(int(uhi), int(p.pos)+keyWindow+1)
				for tk := lo; tk < hi; tk++ {
					if src.toks[tk].flags&tkValue == 0 {
						continue
					}
					v := src.numAt[tk] - 1
					if a.m.Kind == kindDate {
						v = src.dateAt[tk] - 1
						if v >= 0 {
							v += int32(len(ix.nums))
						}
					}
					if v < 0 || c.mark[v] == c.epoch {
						continue
					}
					c.mark[v] = c.epoch
					candidate(src, tk)
				}
			}
		}
	}
	if best < 0 {
		return Contradiction{}, false
	}
	return Contradiction{Atom: a.Atom, Source: ix.srcs[best].id, Found: found}, true
}

// unreadable reports whether an atom no source holds, and none
// contradicts, is one the rules cannot read either way (see
// [Claim.Undecided]): a count a source holds beside another noun ("870
// cases" where "870 people have been infected"), or a date with a year
// whose month and day a source gives without one ("August 2022" where
// "17 August last year").
func (ix *Index) unreadable(m mention.Mention) bool {
	switch m.Kind {
	case kindQuantity:
		// A small count is everywhere; a larger one a source holds as a
		// bare number may be the claim's count under another noun. A count
		// of another known noun ("128 files" for "128 tests") is not.
		if m.Value <= 12 {
			return false
		}
		for _, n := range ix.numsIn(m.Value-1e-9, m.Value+1e-9) {
			if n.dim == "" && n.noun < 0 && !n.derived {
				return true
			}
		}
	case kindDate:
		n := m.Norm
		if len(n) < 7 || !isDigits(n[:4]) || n[4] != '-' || !isDigits(n[5:7]) {
			return false
		}
		for _, d := range ix.dvals {
			if strings.HasPrefix(d.norm, "--") && d.norm[2:4] == n[5:7] && (len(n) < 10 || d.norm[2:] == n[5:10]) {
				return true
			}
		}
	}
	return false
}

// nearQuote reports whether one sentence (or record item) of a source
// holds the quote's words but not as written: the quote may be a
// paraphrase put in quotation marks, or a misquote; only a reader can
// tell. The sentence must hold every content word of a quote of up to
// three, and all but one of a longer one.
func (ix *Index) nearQuote(q quote) bool {
	var terms []int32
	for _, seg := range q.segs {
		for _, w := range seg {
			f := singular([]byte(w))
			t := ix.term(f)
			if !stopWords[string(f)] && len(f) > 1 && !slices.Contains(terms, t) {
				terms = append(terms, t)
			}
		}
	}
	if len(terms) < 2 {
		return false
	}
	need := len(terms)
	if need > 3 {
		need--
	}
	held := map[int]int{} // global unit → terms held
	for _, t := range terms {
		if t < 0 {
			continue
		}
		last := -1
		for _, p := range ix.places(t) {
			src := &ix.srcs[p.src]
			if u := src.unitBase + src.unitIndex(p.pos); u != last {
				held[u]++
				last = u
				if held[u] >= need {
					return true
				}
			}
		}
	}
	return false
}

// Unsupported returns the claims that have an unsupported or contradicted
// atom, in order.
func Unsupported(claims []Claim) []Claim {
	var out []Claim
	for i := range claims {
		if !claims[i].Supported() {
			out = append(out, claims[i])
		}
	}
	return out
}

// Hallucinated reports whether a response states something its sources do
// not hold: some claim has an unsupported or contradicted atom. A response
// of plain prose, with no atom, is never flagged by this rule; see
// [Groundedness] for whether anything could be checked.
func Hallucinated(claims []Claim) bool {
	for i := range claims {
		if !claims[i].Supported() {
			return true
		}
	}
	return false
}

// Groundedness returns the share of checkable claims that are supported,
// and whether any claim was checkable. With none, groundedness is not
// applicable (ok is false), not zero.
func Groundedness(claims []Claim) (score float64, ok bool) {
	n, good := 0, 0
	for i := range claims {
		if !claims[i].Checkable {
			continue
		}
		n++
		if claims[i].Supported() {
			good++
		}
	}
	if n == 0 {
		return 0, false
	}
	return float64(good) / float64(n), true
}

// Explain returns a claim's sentence followed by what is wrong with it, for
// a report: each contradicted atom with the source that says otherwise, and
// each unsupported atom. what names the kind of source ("source",
// "output", "participant").
func Explain(c *Claim, what string) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(c.Sentence.Text))
	for _, x := range c.Contradicted {
		fmt.Fprintf(&b, " [%s contradicts %q: it says %q]", x.Source, x.Atom.Text, x.Found)
	}
	for _, a := range c.Unsupported {
		fmt.Fprintf(&b, " [no %s holds %q]", what, a.Text)
	}
	return b.String()
}

// discourseNouns are the nouns a writer counts the parts of their own text
// with ("three changes would cut the bill", "two issues remain").
var discourseNouns = lex.Named("discourse-nouns").Set()

// Discourse reports whether an atom counts the parts of the text it is in
// rather than something in the world: a quantity of at most twelve of a
// noun like "changes", "issues", "findings" or "steps" ("Three changes
// would cut the bill the most"). A synthesis or a summary orders what it
// draws on that way; no source need hold the count.
func Discourse(a Atom) bool {
	if a.Kind != string(kindQuantity) {
		return false
	}
	count, noun, ok := strings.Cut(a.Norm, " ")
	if !ok {
		return false
	}
	n, err := strconv.ParseFloat(count, 64)
	if err != nil || n > 12 {
		return false
	}
	if discourseNouns[noun] {
		return true
	}
	// "medium issues", "open questions": the last word is the noun.
	if i := strings.LastIndexByte(noun, ' '); i >= 0 {
		return discourseNouns[noun[i+1:]]
	}
	return false
}
