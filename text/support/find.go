package support

import (
	"cmp"
	"slices"
	"strings"

	"github.com/vouchgate/vouch/text/lex"

	"github.com/vouchgate/vouch/text/mention"
)

// Find returns the IDs of the sources that hold the same thing as m, in
// source order; nil when none does. What "the same" means depends on the
// kind:
//
//   - number: the same value after unit conversion ("2.5 s" = "2500 ms",
//     "1.5 million" = "1,500,000", "25%" = "25 percent", and 25% is also
//     found as a bare 0.25); a number written with a decimal point or a
//     scale word is read as rounded to its last digit, so "3.2 million"
//     is found in 3,215,000; a whole number in digits must match exactly.
//     A number without a unit matches the same number with any unit; two
//     numbers with units of different dimensions never match. A bare
//     substring is never a match: "15" is not found in "2015".
//   - date: a date at least as precise that agrees at the precision
//     written: "March 2024" is found in "2024-03-05", "2024" in "March
//     2024" or in a record's "year: 2024".
//   - entity: the same words in the same order, with case, accents,
//     possessives and plurals folded ("Acme's" = "ACME", "Nobel Prizes" =
//     "Nobel Prize"); a name is also found after a leading title
//     ("President", "Dr", "Mount"), by its parts around "of" or "at" found
//     in one source, or as the initials of capitalised words ("ECB").
//   - quantity: the same count with the same noun, or the count beside the
//     noun in one sentence or record ("orders: 37" holds "37 orders").
//   - file, package, symbol, url: the text as written, not inside a
//     longer word.
//
// Find reads m alone; [Index.Claims] also reads the words around a
// number in its sentence ("about 3 million").
func (ix *Index) Find(m mention.Mention) []string {
	srcs := ix.match(m, "", nil)
	if len(srcs) == 0 {
		return nil
	}
	ids := make([]string, len(srcs))
	for i, s := range srcs {
		ids[i] = ix.srcs[s].id
	}
	return ids
}

// match returns the sources holding m, sorted, without duplicates. text is
// the document m was read from ("" when unknown), for the hedge before a
// number and a unit after it.
func (ix *Index) match(m mention.Mention, text string, out []int32) []int32 {
	out = out[:0]
	switch m.Kind {
	case kindNumber:
		unit := m.Unit
		if text != "" && unit == "" {
			if mins, ok := clockOf(text, m); ok {
				// A time of day ("9 pm"): found as a clock time, or as
				// the bare hour in a source that writes no clock time
				// ("Let's make it 7").
				out = ix.findClock(mins, out)
				for _, n := range ix.numsIn(m.Value, m.Value) {
					if n.dim == "" && n.noun < 0 && !ix.srcs[n.src].clocks {
						out = append(out, n.src)
					}
				}
				break
			}
			unit = unitAfter(text, m.End)
		}
		// An equal value holds under any hedge, so the words before the
		// number are read only when no value is equal.
		out = ix.findNumber(m.Value, unit, precision{}, boundExact, out)
		if len(out) == 0 {
			b := boundExact
			if text != "" {
				b = boundBefore(text, m.Start)
			}
			out = ix.findNumber(m.Value, unit, precisionOf(m.Text, m.Value), b, out)
		}
		if unit == "" && isYear(m.Value) && isDigits(m.Text) {
			out = ix.findDate(m.Text, out)
		}
	case kindDate:
		out = ix.findDate(m.Norm, out)
	case kindQuantity:
		out = ix.findQuantity(m.Value, m.Unit, out)
	case kindEntity:
		out = ix.findEntity(m.Text, out)
	default:
		out = ix.findVerbatim(m.Text, out)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// findNumber adds the sources holding a number c with unit, written with
// precision p under bound b.
func (ix *Index) findNumber(c float64, unitName string, p precision, b int, out []int32) []int32 {
	u := unitOf(unitName)
	lo, hi := window(c, p, b)
	if u.dim == "" {
		for _, n := range ix.numsIn(lo, hi) {
			out = append(out, n.src)
		}
		return out
	}
	blo, bhi := lo*u.factor, hi*u.factor
	i, _ := slices.BinarySearchFunc(ix.byBase, blo, func(k int32, v float64) int { return cmp.Compare(ix.nums[k].base, v) })
	for ; i < len(ix.byBase) && ix.nums[ix.byBase[i]].base <= bhi; i++ {
		if n := &ix.nums[ix.byBase[i]]; n.dim == u.dim {
			out = append(out, n.src)
		}
	}
	for _, n := range ix.numsIn(lo, hi) {
		if n.dim == "" && n.noun < 0 {
			out = append(out, n.src)
		}
	}
	if u.dim == "%" && c > 0 && c <= 100 {
		// A share written as a fraction: 4.3% is 0.043.
		for _, n := range ix.numsIn(lo/100, hi/100) {
			if n.dim == "" && n.noun < 0 && n.raw > 0 && n.raw <= 1 {
				out = append(out, n.src)
			}
		}
	}
	return out
}

// findClock adds the sources holding the time of day mins (minutes since
// midnight; see clocks).
func (ix *Index) findClock(mins int, out []int32) []int32 {
	dim := unitOf(clockUnit).dim
	for _, n := range ix.numsIn(float64(mins), float64(mins)) {
		if n.dim == dim {
			out = append(out, n.src)
		}
	}
	return out
}

// numsIn returns the numbers with raw values in [lo, hi].
func (ix *Index) numsIn(lo, hi float64) []numEntry {
	i, _ := slices.BinarySearchFunc(ix.nums, lo, func(n numEntry, v float64) int { return cmp.Compare(n.raw, v) })
	j := i
	for j < len(ix.nums) && ix.nums[j].raw <= hi {
		j++
	}
	return ix.nums[i:j]
}

// findDate adds the sources holding a date that agrees with norm at the
// precision norm is written: a year, a month, a day, a quarter
// ("2024-Q1", found in any of its months) or a day of a month without a
// year ("--03-05", found in any year).
func (ix *Index) findDate(norm string, out []int32) []int32 {
	for _, d := range ix.dates[norm] {
		out = append(out, ix.dvals[d].src)
	}
	switch {
	case len(norm) == 7 && isDigits(norm[:4]) && norm[4:6] == "-Q" && norm[6] >= '1' && norm[6] <= '4':
		q := int(norm[6] - '1')
		for m := 3*q + 1; m <= 3*q+3; m++ {
			for _, d := range ix.dates[norm[:4]+"-"+string(rune('0'+m/10))+string(rune('0'+m%10))] {
				out = append(out, ix.dvals[d].src)
			}
		}
	case strings.HasPrefix(norm, "--"):
		for _, d := range ix.dvals {
			if len(d.norm) >= 10 && d.norm[4] == '-' && d.norm[4:10] == norm[1:] {
				out = append(out, d.src)
			}
		}
	}
	return out
}

// nounWindow is how many tokens from a count its noun may stand, in one
// sentence or record item, for the count to be read as a quantity.
const nounWindow = 8

// findQuantity adds the sources holding a count of a noun.
func (ix *Index) findQuantity(count float64, noun string, out []int32) []int32 {
	t := ix.term(singular([]byte(strings.ToLower(noun))))
	if t < 0 {
		return out
	}
	for _, n := range ix.numsIn(count-1e-9, count+1e-9) {
		if n.noun == t || n.dim == "" && ix.nearTerm(n.src, n.tokLo, n.tokHi, t) {
			out = append(out, n.src)
		}
	}
	return out
}

// nearTerm reports whether term t stands within nounWindow tokens of the
// tokens [lo, hi) of a source, in the same unit.
func (ix *Index) nearTerm(si, lo, hi, t int32) bool {
	src := &ix.srcs[si]
	ulo, uhi := src.unitOfTok(lo)
	a, b := max(ulo, lo-nounWindow), min(uhi, hi+nounWindow)
	for k := a; k < b; k++ {
		if src.toks[k].term == t {
			return true
		}
	}
	return false
}

// titles are words that may stand before a name without being part of it.
var titles = lex.Named("role-titles").Set()

// connectors join the parts of a long name ("Helen Park of Johns Hopkins
// University").
var connectors = lex.Named("name-connectors").Set()

// nameToks is a name split into folded tokens.
type nameToks struct {
	words []string // the folded words
	terms []int32
	flags []uint8
	title []bool // a title word ("president")
	conn  []bool // a connector ("of")
	first string // the first word, folded
}

func (ix *Index) nameTokens(text string) nameToks {
	var n nameToks
	scanTokens(text, nil, func(_, _ int, flags uint8, folded []byte) {
		if len(n.terms) == 0 {
			n.first = string(folded)
		}
		n.words = append(n.words, string(folded))
		n.terms = append(n.terms, ix.term(folded))
		n.flags = append(n.flags, flags)
		n.title = append(n.title, titles[string(folded)])
		n.conn = append(n.conn, connectors[string(folded)])
	})
	return n
}

// findEntity adds the sources holding a name.
func (ix *Index) findEntity(text string, out []int32) []int32 {
	n := ix.nameTokens(text)
	if len(n.terms) == 0 {
		return out
	}
	before := len(out)
	out = ix.runs(n.terms, out)
	if len(out) > before {
		return out
	}
	// The same name spelt another way: "&" for "and", "U.N." for "UN", a
	// name before a lower-case suffix ("Sims-centric").
	for _, v := range nameVariants(text) {
		if out = ix.runs(ix.nameTokens(v).terms, out); len(out) > before {
			return out
		}
	}
	// A catalogue's "American (Traditional)" for "Traditional American".
	if len(n.terms) == 2 {
		for _, p := range ix.places(n.terms[1]) {
			toks := ix.srcs[p.src].toks
			if k := int(p.pos) + 1; k < len(toks) && toks[k].term == n.terms[0] &&
				strings.TrimSpace(ix.srcs[p.src].text[toks[k-1].end:toks[k].start]) == "(" {
				return append(out, p.src)
			}
		}
	}
	// Without a leading title.
	k := 0
	for k < len(n.terms)-1 && n.title[k] {
		k++
	}
	if k > 0 {
		out = ix.runs(n.terms[k:], out)
		if len(out) > before {
			return out
		}
	}
	// Without titles inside it, whose other words are in the same source
	// ("Texas Attorney General Ken Paxton" for "Attorney General Ken
	// Paxton sued Texas").
	if last := lastTitle(n); last > k {
		parts := [][]int32{n.terms[last+1:]}
		start := 0
		for i := 0; i <= last; i++ {
			if n.title[i] {
				if i > start {
					parts = append(parts, n.terms[start:i])
				}
				start = i + 1
			}
		}
		out = append(out, ix.allIn(parts)...)
		if len(out) > before {
			return out
		}
	}
	// Another name of the same place ("French" for "France", "California"
	// for "CA").
	out = ix.findPlace(n.words, out)
	if len(out) > before {
		return out
	}
	// A name followed by a place's demonym ("the London Russian embassy"
	// for "the Russian embassy in London"): both in one source.
	if len(n.words) > 1 {
		for i := len(n.words) - 1; i > 0; i-- {
			if _, ok := placeNames.group[strings.Join(n.words[i:], " ")]; !ok {
				continue
			}
			head := ix.runs(n.terms[:i], nil)
			tail := ix.findPlace(n.words[i:], ix.runs(n.terms[i:], nil))
			slices.Sort(head)
			slices.Sort(tail)
			out = append(out, intersect(slices.Compact(head), slices.Compact(tail))...)
			if len(out) > before {
				return out
			}
			break
		}
	}
	// By its parts around a connector, all in one source.
	var parts [][]int32
	start := k
	for i := k; i < len(n.terms); i++ {
		if n.conn[i] && n.flags[i]&tkCap == 0 {
			if i > start {
				parts = append(parts, n.terms[start:i])
			}
			start = i + 1
		}
	}
	if len(parts) > 0 && start < len(n.terms) {
		parts = append(parts, n.terms[start:])
		out = append(out, common(len(parts), func(i int) []int32 { return ix.runs(parts[i], nil) })...)
		if len(out) > before {
			return out
		}
	}
	// An acronym of capitalised words.
	if len(n.terms) == 1 && n.flags[0]&tkUpper != 0 && len(n.first) >= 2 && len(n.first) <= 6 {
		out = ix.acronym(n.first, out)
	}
	return out
}

// runs adds the sources holding the terms in a row.
func (ix *Index) runs(terms []int32, out []int32) []int32 {
	for _, t := range terms {
		if t < 0 {
			return out
		}
	}
	for _, p := range ix.places(terms[0]) {
		toks := ix.srcs[p.src].toks
		if int(p.pos)+len(terms) > len(toks) {
			continue
		}
		ok := true
		for j := 1; j < len(terms); j++ {
			if toks[int(p.pos)+j].term != terms[j] {
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

// nameVariants returns other spellings of a name: "&" and "and" swapped,
// acronyms with and without periods ("UN", "U.N."), and the name before a
// hyphen and a lower-case word ("Sims" for "Sims-centric", "Paris" for
// "Paris-based").
func nameVariants(text string) []string {
	var out []string
	if strings.Contains(text, "&") {
		out = append(out, strings.ReplaceAll(text, "&", " and "))
	} else if strings.Contains(text, " and ") {
		out = append(out, strings.ReplaceAll(text, " and ", " & "))
	}
	words := strings.Fields(text)
	changed := false
	for i, w := range words {
		switch {
		case len(w) >= 2 && len(w) <= 5 && strings.ToUpper(w) == w && strings.Trim(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == "":
			words[i] = strings.Join(strings.Split(w, ""), ".") + "."
			changed = true
		case len(w) >= 4 && strings.Count(w, ".") >= 2 && strings.ToUpper(w) == w:
			words[i] = strings.ReplaceAll(w, ".", "")
			changed = true
		}
	}
	if changed {
		out = append(out, strings.Join(words, " "))
	}
	if i := strings.LastIndexByte(text, '-'); i > 0 && i+1 < len(text) && text[i+1] >= 'a' && text[i+1] <= 'z' {
		out = append(out, text[:i])
	}
	return out
}

// lastTitle returns the index of the last title word of a name that is
// followed by a word that is no title, or -1.
func lastTitle(n nameToks) int {
	for i := len(n.title) - 2; i >= 0; i-- {
		if n.title[i] && !n.title[i+1] {
			return i
		}
	}
	return -1
}

// allIn returns the sources holding every part, each as a run of terms.
func (ix *Index) allIn(parts [][]int32) []int32 {
	var common []int32
	for i, p := range parts {
		got := ix.runs(p, nil)
		slices.Sort(got)
		got = slices.Compact(got)
		if i == 0 {
			common = got
		} else {
			common = intersect(common, got)
		}
	}
	return common
}

// placeAlias is one name of a place, as folded words.
type placeAlias struct {
	words []string
	// abbrev marks an abbreviation ("CA", "U.S."), found only in capitals.
	abbrev bool
}

// placeNames groups the names of each place of the lexicon's place-names
// list: its name, demonym and abbreviations (see [Index.findPlace]).
var placeNames = func() (p struct {
	group  map[string]int // folded name → group
	groups [][]placeAlias
}) {
	p.group = map[string]int{}
	parent := map[int]int{}
	var find func(int) int
	find = func(g int) int {
		for parent[g] != g {
			g = parent[g]
		}
		return g
	}
	var names []placeAlias
	id := func(w string) int {
		var a placeAlias
		scanTokens(w, nil, func(_, _ int, _ uint8, folded []byte) { a.words = append(a.words, string(folded)) })
		key := strings.Join(a.words, " ")
		if g, ok := p.group[key]; ok {
			return g
		}
		a.abbrev = true
		for _, x := range a.words {
			a.abbrev = a.abbrev && len(x) <= 3
		}
		g := len(names)
		names = append(names, a)
		p.group[key] = g
		parent[g] = g
		return g
	}
	for _, ln := range lex.Named("place-names").Lines() {
		a := find(id(ln.Word))
		for _, v := range strings.Split(ln.Value, ",") {
			parent[find(id(strings.TrimSpace(v)))] = a
		}
	}
	root := map[int]int{}
	for g, a := range names {
		r := find(g)
		gi, ok := root[r]
		if !ok {
			gi = len(p.groups)
			root[r] = gi
			p.groups = append(p.groups, nil)
		}
		p.groups[gi] = append(p.groups[gi], a)
	}
	for key, g := range p.group {
		p.group[key] = root[find(g)]
	}
	return p
}()

// findPlace adds the sources holding another name of the place words
// names: "France" for "French", "CA" for "California", "U.S." for
// "America". An abbreviation counts only written in capitals.
func (ix *Index) findPlace(words []string, out []int32) []int32 {
	g, ok := placeNames.group[strings.Join(words, " ")]
	if !ok {
		return out
	}
	for _, a := range placeNames.groups[g] {
		if slices.Equal(a.words, words) {
			continue
		}
		terms := make([]int32, len(a.words))
		for i, w := range a.words {
			terms[i] = ix.term([]byte(w))
		}
		if !a.abbrev {
			out = ix.runs(terms, out)
			continue
		}
		before := len(out)
		out = ix.runs(terms, out)
		// Keep the sources where one run is in capitals.
		kept := out[:before]
		for _, s := range out[before:] {
			if ix.capsRun(s, terms) {
				kept = append(kept, s)
			}
		}
		out = kept
	}
	return out
}

// capsRun reports whether source si holds the terms in a row, each word
// capitalised and each of two letters or more in capitals.
func (ix *Index) capsRun(si int32, terms []int32) bool {
	toks := ix.srcs[si].toks
	for _, p := range ix.places(terms[0]) {
		if p.src != si || int(p.pos)+len(terms) > len(toks) {
			continue
		}
		ok := true
		for j, t := range terms {
			tk := toks[int(p.pos)+j]
			if tk.term != t || tk.flags&tkCap == 0 || tk.end-tk.start > 1 && tk.flags&tkUpper == 0 {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// common returns the sources that each of n lookups finds, sorted, each
// once.
func common(n int, find func(i int) []int32) []int32 {
	var out []int32
	for i := range n {
		got := find(i)
		slices.Sort(got)
		got = slices.Compact(got)
		if i == 0 {
			out = got
		} else {
			out = intersect(out, got)
		}
	}
	return out
}

func intersect(a, b []int32) []int32 {
	var out []int32
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); ok {
			out = append(out, x)
		}
	}
	return out
}

// acronymGlue are the small words an acronym skips ("Bank of England").
var acronymGlue = lex.Named("acronym-glue").Set()

// acronym adds the sources holding capitalised words whose initials spell
// acr ("european central bank" for "ecb").
func (ix *Index) acronym(acr string, out []int32) []int32 {
	for si := range ix.srcs {
		src := &ix.srcs[si]
	next:
		for i := 0; i < len(src.toks); i++ {
			t := src.toks[i]
			if t.flags&tkCap == 0 || lowerASCII(src.text[t.start]) != acr[0] {
				continue
			}
			k, j := 1, i+1
			for k < len(acr) && j < len(src.toks) {
				u := src.toks[j]
				if u.flags&tkCap == 0 {
					if acronymGlue[ix.terms[u.term]] {
						j++
						continue
					}
					continue next
				}
				if lowerASCII(src.text[u.start]) != acr[k] {
					continue next
				}
				k++
				j++
			}
			if k == len(acr) {
				out = append(out, int32(si))
				break
			}
		}
	}
	return out
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// findVerbatim adds the sources holding s as written, not inside a longer
// word.
func (ix *Index) findVerbatim(s string, out []int32) []int32 {
	if s == "" {
		return out
	}
	for si := range ix.srcs {
		text := ix.srcs[si].text
		for off := 0; ; {
			i := strings.Index(text[off:], s)
			if i < 0 {
				break
			}
			i += off
			end := i + len(s)
			if (!wordBefore(text, i) || !isWordByte(s, 0)) &&
				(end == len(text) || !isWordByte(text, end) || !wordBefore(s, len(s))) {
				out = append(out, int32(si))
				break
			}
			off = i + 1
		}
	}
	return out
}
