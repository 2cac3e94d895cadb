package support

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/vouchgate/vouch/text/mention"
)

// Mention kinds, as package mention names them.
const (
	kindNumber   = mention.Kind("number")
	kindDate     = mention.Kind("date")
	kindEntity   = mention.Kind("entity")
	kindQuantity = mention.Kind("quantity")
	kindFile     = mention.Kind("file")
)

// Index holds a set of sources ready for lookups: every source is parsed
// once, its numbers, dates and quantities are indexed by value, and its
// words by their folded form (lower case, accents stripped, possessive
// dropped, plural made singular). An Index is read-only once built and
// safe for concurrent use.
type Index struct {
	srcs  []source
	dict  dict     // folded word → term id
	terms []string // term id → folded word (dict.terms)
	stop  []bool   // term id → stop word
	unitw []bool   // term id → a unit or scale word
	// units counts the sentences and record items of all sources; each
	// source numbers its own from unitBase.
	units int

	// Postings, by term: post[postStart[t]:postStart[t+1]] are the places
	// of term t, in source order then token order.
	postStart []int32
	post      []place
	// The sources of each term, once each: srcs[srcStart[t]:srcStart[t+1]].
	srcStart []int32
	termSrcs []int32

	nums   []numEntry // sorted by raw value
	byBase []int32    // indices of nums with a unit, sorted by base value
	dates  map[string][]int32
	dvals  []dateEntry
	// clockSrcs counts the sources that write a time of day.
	clockSrcs int

	// pairs holds each two key words (see keyTok) that stand next to each
	// other in a sentence of a source, as termPair keys; built on first use.
	pairsOnce sync.Once
	pairs     map[uint64]struct{}
}

// keyTok reports whether a token is a key word: a content word, the start
// or part of a number, or a negation (negations count like content words,
// so that a claim and a source that differ by one stay apart).
func keyTok(t tok) bool { return t.flags&(tkContent|tkDigit|tkNeg) != 0 }

// termPair is the key of two terms in order.
func termPair(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// buildPairs fills ix.pairs from every sentence (or record item) of every
// source.
func (ix *Index) buildPairs() {
	ix.pairs = make(map[uint64]struct{})
	for si := range ix.srcs {
		src := &ix.srcs[si]
		for u := range src.units {
			lo, hi := src.units[u], int32(len(src.toks))
			if u+1 < len(src.units) {
				hi = src.units[u+1]
			}
			prev := int32(-1)
			for _, t := range src.toks[lo:hi] {
				if !keyTok(t) {
					continue
				}
				if prev >= 0 {
					ix.pairs[termPair(prev, t.term)] = struct{}{}
				}
				prev = t.term
			}
		}
	}
}

// ordered returns the share of the key words of toks, in pairs, that some
// sentence of a source holds next to each other (see Claim.Ordered).
func (ix *Index) ordered(toks []tok) float64 {
	ix.pairsOnce.Do(ix.buildPairs)
	prev, n, found, single := int32(-2), 0, 0, int32(-2)
	for _, t := range toks {
		if !keyTok(t) {
			continue
		}
		if single == -2 {
			single = t.term
		}
		if prev != -2 {
			n++
			if prev >= 0 && t.term >= 0 {
				if _, ok := ix.pairs[termPair(prev, t.term)]; ok {
					found++
				}
			}
		}
		prev = t.term
	}
	switch {
	case n > 0:
		return float64(found) / float64(n)
	case single == -2:
		return 1
	case single >= 0 && len(ix.sourcesOf(single)) > 0:
		return 1
	}
	return 0
}

// source is one indexed source.
type source struct {
	id   string
	text string
	toks []tok
	// units are the token indices where each sentence (or record item)
	// starts, in order; unitBase numbers them across the index, and
	// unitNamed tells whether a unit has a capitalised content word.
	units     []int32
	unitBase  int
	unitNamed []bool
	tokUnit   []int32 // the unit of each token
	// numAt and dateAt give, for the first token of a number or date,
	// its index in Index.nums or Index.dvals plus one; 0 elsewhere.
	numAt, dateAt []int32
	// record reports whether the source is a JSON record (see FromJSON).
	record bool
	// clocks reports whether the source writes a time of day (see clocks).
	clocks bool
	// aside: see Source.Aside.
	aside bool
	// files are the byte ranges and normalised paths of the files the
	// text mentions (prose sources only), for finding conflicts.
	files []fileAt
}

// fileAt is a file mentioned in a source.
type fileAt struct {
	start, end int32
	norm       string
}

type place struct{ src, pos int32 }

// numEntry is a number (or a quantity's count) found in a source.
type numEntry struct {
	raw, base    float64 // as written; in the dimension's base unit
	dim          string  // "" when the number has no unit
	noun         int32   // a quantity's noun term; -1
	src          int32
	tokLo, tokHi int32 // its tokens
	text         string
	// derived marks a value the source implies rather than writes (see
	// derive): it supports claims but stands for no token.
	derived bool
}

// dateEntry is a date found in a source (or a year written as a number).
type dateEntry struct {
	norm         string
	src          int32
	tokLo, tokHi int32
	text         string
}

// NewIndex parses every source once ([mention.Parse]) and indexes it: its
// numbers, dates and quantities by value, its words by folded form, its
// sentences (or record items) as the units contradictions are looked for
// in. A source made by [FromJSON] is not parsed again: its JSON numbers
// are already typed, with their units, and its strings holding digits
// were parsed then. A source whose Text is a JSON object or array is read
// as FromJSON reads it.
func NewIndex(sources []Source) *Index {
	total := 0
	for _, s := range sources {
		total += len(s.Text)
	}
	ix := &Index{
		srcs:  make([]source, len(sources)),
		dict:  newDict(total/16 + 64),
		dates: make(map[string][]int32),
	}
	sc := scanner{buf: make([]byte, 0, 64)}
	arena := make([]tok, 0, total/5+16)
	spans := make([][2]int, len(sources))
	var vals []value
	var unitOffs []int32
	for si, s := range sources {
		src := &ix.srcs[si]
		src.id = s.ID
		src.aside = s.Aside
		text := s.Text
		vals, unitOffs = vals[:0], unitOffs[:0]
		rec := s.rec
		if rec == nil || rec.text != s.Text {
			rec = nil
			if t := strings.TrimSpace(text); len(t) > 1 && (t[0] == '{' || t[0] == '[') {
				rec, _ = flatten([]byte(t))
			}
		}
		if rec != nil {
			src.record = true
			text = rec.text
			vals = append(vals, rec.values...)
			vals = clocks(text, vals)
			unitOffs = append(unitOffs, rec.items...)
		} else {
			doc := mention.Parse(text)
			for _, sp := range doc.Sentences {
				unitOffs = append(unitOffs, int32(sp.Start))
			}
			for _, m := range doc.Mentions {
				switch m.Kind {
				case kindNumber, kindDate, kindQuantity:
				case kindFile:
					src.files = append(src.files, fileAt{int32(m.Start), int32(m.End), m.Norm})
					continue
				default:
					continue
				}
				u := m.Unit
				if m.Kind == kindNumber && u == "" {
					u = unitAfter(text, m.End)
					if u == "" {
						u = unitOfKey(text, m.Start)
					}
				}
				vals = append(vals, value{kind: m.Kind, start: int32(m.Start), end: int32(m.End),
					text: m.Text, norm: m.Norm, num: m.Value, unit: u})
			}
			vals = derive(text, doc.Sentences, vals)
		}
		src.text = text
		from := len(arena)
		arena = ix.tokenize(&sc, text, arena)
		spans[si] = [2]int{from, len(arena)}
		src.toks = arena[from:len(arena):len(arena)]
		src.units = unitsOf(src.toks, unitOffs)
		src.unitBase = ix.units
		ix.units += len(src.units)
		ix.addValues(int32(si), src, vals)
		if src.clocks {
			ix.clockSrcs++
		}
	}
	// The arena may have moved while it grew.
	for si := range ix.srcs {
		ix.srcs[si].toks = arena[spans[si][0]:spans[si][1]:spans[si][1]]
	}
	ix.terms = ix.dict.terms
	unitArena := make([]int32, len(arena))
	for si := range ix.srcs {
		unitArena = ix.srcs[si].nameUnits(unitArena)
	}
	ix.buildPostings()
	ix.sortNums()
	for i, n := range ix.nums {
		if n.dim != "" {
			ix.byBase = append(ix.byBase, int32(i))
		}
	}
	slices.SortFunc(ix.byBase, func(a, b int32) int { return cmp.Compare(ix.nums[a].base, ix.nums[b].base) })
	ix.placeValues()
	return ix
}

// sortNums sorts the numbers by raw value, through small keys.
func (ix *Index) sortNums() {
	type key struct {
		raw float64
		i   int32
	}
	keys := make([]key, len(ix.nums))
	for i, n := range ix.nums {
		keys[i] = key{n.raw, int32(i)}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if c := cmp.Compare(a.raw, b.raw); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	sorted := make([]numEntry, len(ix.nums))
	for i, k := range keys {
		sorted[i] = ix.nums[k.i]
	}
	ix.nums = sorted
}

// placeValues fills numAt and dateAt.
func (ix *Index) placeValues() {
	total := 0
	for i := range ix.srcs {
		total += len(ix.srcs[i].toks)
	}
	at := make([]int32, 2*total)
	for i := range ix.srcs {
		n := len(ix.srcs[i].toks)
		ix.srcs[i].numAt, ix.srcs[i].dateAt, at = at[:n:n], at[n:2*n:2*n], at[2*n:]
	}
	for i, n := range ix.nums {
		if !n.derived && int(n.tokLo) < len(ix.srcs[n.src].toks) {
			ix.srcs[n.src].numAt[n.tokLo] = int32(i + 1)
		}
	}
	for i, d := range ix.dvals {
		if int(d.tokLo) < len(ix.srcs[d.src].toks) {
			ix.srcs[d.src].dateAt[d.tokLo] = int32(i + 1)
		}
	}
}

// tokenize appends the tokens of a text to arena, adding new words to the
// dictionary.
func (ix *Index) tokenize(sc *scanner, text string, arena []tok) []tok {
	sc.text, sc.i = text, 0
	for {
		start, end, flags, ok := sc.next()
		if !ok {
			return arena
		}
		h := hashWord(sc.buf)
		t := ix.dict.find(sc.buf, h)
		if t < 0 {
			t = ix.dict.add(sc.buf, h)
			w := ix.dict.terms[t]
			ix.stop = append(ix.stop, stopWords[w])
			ix.unitw = append(ix.unitw, isUnitWord(w))
		}
		if flags&tkDigit == 0 && !ix.stop[t] && end-start > 1 {
			flags |= tkContent
		}
		if negWords[ix.dict.terms[t]] {
			flags |= tkNeg
		}
		arena = append(arena, tok{start: int32(start), end: int32(end), term: t, flags: flags})
	}
}

// nameUnits fills unitNamed and tokUnit.
func (src *source) nameUnits(arena []int32) []int32 {
	src.unitNamed = make([]bool, len(src.units))
	n := len(src.toks)
	src.tokUnit, arena = arena[:n:n], arena[n:]
	u := 0
	for k, t := range src.toks {
		for u+1 < len(src.units) && int(src.units[u+1]) <= k {
			u++
		}
		src.tokUnit[k] = int32(u)
		if t.flags&tkCap != 0 && t.flags&(tkContent|tkValue) == tkContent {
			src.unitNamed[u] = true
		}
	}
	return arena
}

// unitIndex returns the index, within the source, of the unit holding
// token k.
func (src *source) unitIndex(k int32) int {
	return int(src.tokUnit[k])
}

// unitsOf maps unit start offsets to token indices.
func unitsOf(toks []tok, offs []int32) []int32 {
	units := make([]int32, 0, len(offs)+1)
	units = append(units, 0)
	for _, o := range offs {
		k, _ := slices.BinarySearchFunc(toks, o, func(t tok, o int32) int { return cmp.Compare(t.start, o) })
		if int32(k) > units[len(units)-1] {
			units = append(units, int32(k))
		}
	}
	return units
}

// tokRange returns the tokens that overlap the byte range [start, end).
func tokRange(toks []tok, start, end int32) (lo, hi int32) {
	k, _ := slices.BinarySearchFunc(toks, start, func(t tok, o int32) int { return cmp.Compare(t.end, o+1) })
	lo = int32(k)
	hi = lo
	for int(hi) < len(toks) && toks[hi].start < end {
		hi++
	}
	return lo, hi
}

// addValues indexes the numbers, dates and quantities of a source.
func (ix *Index) addValues(si int32, src *source, vals []value) {
	for _, v := range vals {
		lo, hi := tokRange(src.toks, v.start, v.end)
		if lo >= hi {
			continue // no word or digit in it
		}
		if v.derived {
			src.clocks = src.clocks || v.unit == clockUnit
			u := unitOf(v.unit)
			ix.nums = append(ix.nums, numEntry{raw: v.num, base: v.num * u.factor, dim: u.dim,
				noun: -1, src: si, tokLo: lo, tokHi: hi, text: v.text, derived: true})
			continue
		}
		for k := lo; k < hi; k++ {
			src.toks[k].flags |= tkValue
			src.toks[k].flags &^= tkContent
		}
		switch v.kind {
		case kindDate:
			ix.addDate(dateEntry{norm: v.norm, src: si, tokLo: lo, tokHi: hi, text: v.text})
		case kindNumber:
			u := unitOf(v.unit)
			ix.nums = append(ix.nums, numEntry{raw: v.num, base: v.num * u.factor, dim: u.dim,
				noun: -1, src: si, tokLo: lo, tokHi: hi, text: v.text})
			if isYear(v.num) && u.dim == "" && v.end-v.start == 4 && isDigits(v.text) {
				ix.addDate(dateEntry{norm: v.text, src: si, tokLo: lo, tokHi: hi, text: v.text})
			}
		case kindQuantity:
			noun := int32(-1)
			noun = ix.term(singular([]byte(v.unit)))
			ix.nums = append(ix.nums, numEntry{raw: v.num, base: v.num, noun: noun,
				src: si, tokLo: lo, tokHi: hi, text: v.text})
		}
	}
}

func isYear(v float64) bool { return v >= 1000 && v <= 2999 && v == math.Trunc(v) }

// unitOfKey returns the unit named by the key of a "key unit: value" field
// that ends right before start ("latency ms: 1250"), or "".
func unitOfKey(text string, start int) string {
	i := start
	for i > 0 && text[i-1] == ' ' {
		i--
	}
	if i == 0 || text[i-1] != ':' && text[i-1] != '=' {
		return ""
	}
	i--
	j := i
	for j > 0 && text[j-1] != ';' && text[j-1] != ',' && text[j-1] != '\n' && text[j-1] != '{' && i-j < 40 {
		j--
	}
	key := strings.TrimSpace(strings.Trim(text[j:i], `"' `))
	return keyUnit(strings.Map(func(r rune) rune {
		if r == '_' || r == '-' {
			return ' '
		}
		return r
	}, key))
}

// addDate indexes a date under every key it answers: "2024-03-05" also
// answers "2024-03" and "2024". A quarter ("2024-Q1") or a day without a
// year ("--03-05") is looked up through the months and days (see
// findDate).
func (ix *Index) addDate(d dateEntry) {
	id := int32(len(ix.dvals))
	ix.dvals = append(ix.dvals, d)
	n := d.norm
	add := func(k string) { ix.dates[k] = append(ix.dates[k], id) }
	add(n)
	if len(n) >= 7 && isDigits(n[:4]) && n[4] == '-' {
		add(n[:4])
		if isDigits(n[5:7]) && len(n) > 7 {
			add(n[:7])
		}
	}
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// buildPostings lays the places of every term out by term.
func (ix *Index) buildPostings() {
	ix.postStart = make([]int32, len(ix.terms)+1)
	total := 0
	for i := range ix.srcs {
		for _, t := range ix.srcs[i].toks {
			ix.postStart[t.term+1]++
		}
		total += len(ix.srcs[i].toks)
	}
	for t := 1; t < len(ix.postStart); t++ {
		ix.postStart[t] += ix.postStart[t-1]
	}
	ix.post = make([]place, total)
	fill := slices.Clone(ix.postStart[:len(ix.terms)])
	for si := range ix.srcs {
		for pos, t := range ix.srcs[si].toks {
			ix.post[fill[t.term]] = place{int32(si), int32(pos)}
			fill[t.term]++
		}
	}
	ix.srcStart = make([]int32, len(ix.terms)+1)
	ix.termSrcs = make([]int32, 0, total/2)
	for t := range ix.terms {
		last := int32(-1)
		for _, p := range ix.post[ix.postStart[t]:ix.postStart[t+1]] {
			if p.src != last {
				ix.termSrcs = append(ix.termSrcs, p.src)
				last = p.src
			}
		}
		ix.srcStart[t+1] = int32(len(ix.termSrcs))
	}
}

// sourcesOf returns the sources holding a term, once each, in order.
func (ix *Index) sourcesOf(t int32) []int32 {
	return ix.termSrcs[ix.srcStart[t]:ix.srcStart[t+1]]
}

// places returns where a term occurs.
func (ix *Index) places(t int32) []place {
	if t < 0 {
		return nil
	}
	return ix.post[ix.postStart[t]:ix.postStart[t+1]]
}

// term returns the term id of a folded word, or -1.
func (ix *Index) term(folded []byte) int32 {
	return ix.dict.find(folded, hashWord(folded))
}

// unitOfTok returns the range of tokens of the sentence or record item
// holding token k of a source.
func (src *source) unitOfTok(k int32) (lo, hi int32) {
	i := src.unitIndex(k)
	lo = src.units[i]
	hi = int32(len(src.toks))
	if i+1 < len(src.units) {
		hi = src.units[i+1]
	}
	return lo, hi
}

// Sources returns the number of indexed sources.
func (ix *Index) Sources() int { return len(ix.srcs) }

// ID returns the ID of the i-th source.
func (ix *Index) ID(i int) string { return ix.srcs[i].id }
