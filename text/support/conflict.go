package support

import (
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"strings"

	"github.com/vouchgate/vouch/text/lex"

	"github.com/vouchgate/vouch/text/mention"
)

// Conflict kinds.
const (
	// ConflictValue: two sources give one thing two values ("the p99
	// latency of /search is 340 ms" and "... is 120 ms").
	ConflictValue = "value"
	// ConflictPolarity: one source affirms what the other denies
	// ("parseConfig is thread-safe" and "parseConfig is not thread-safe").
	ConflictPolarity = "polarity"
	// ConflictFile: one source created a file the other deleted.
	ConflictFile = "file"
)

// maxConflicts bounds the conflicts one index reports; maxStatements and
// maxPerSource bound the statements compared to find them, in all and from
// one source.
const (
	maxConflicts  = 32
	maxStatements = 1024
	maxPerSource  = 256
)

// Conflict is a disagreement between two sources of an [Index].
type Conflict struct {
	// Kind is ConflictValue, ConflictPolarity or ConflictFile.
	Kind string
	// Subject names what the sources disagree on: the key words of a value
	// ("p99 latency search"), the statement without its negation, or the
	// file's path.
	Subject string
	// A and B are the two sides, A from the source that comes first in the
	// index; for a file, A created it and B deleted it.
	A, B Side

	srcA   int32   // side A's source, for ordering
	key    []int32 // the subject's term ids, sorted
	va, vb valueRange
	negA   bool
	path   string
}

// Side is one source's side of a [Conflict].
type Side struct {
	// Source is the source's ID.
	Source string
	// Text is what the source says: a value as written ("340 ms"), a
	// clause ("parseConfig is not thread-safe"), or "created" / "deleted".
	Text string
	// Sentence is the sentence (or record item) holding it.
	Sentence string
}

// Stance is which sides of a [Conflict] a text takes.
type Stance int

// The stances.
const (
	// StanceNone: the text states neither side.
	StanceNone Stance = iota
	// StanceA: the text states side A only, as if it were settled.
	StanceA
	// StanceB: the text states side B only, as if it were settled.
	StanceB
	// StanceBoth: the text states both sides, or says the sources
	// disagree ("the measurements disagree", "whether ... is").
	StanceBoth
)

// valueRange is a number, quantity or date as a comparable range: a
// number's window in its dimension's base unit (see window), or a date's
// normalised form.
type valueRange struct {
	date   string
	dim    string
	noun   int32 // a count's noun term, -1 when none
	lo, hi float64
	text   string
}

// comparable reports whether two values measure the same sort of thing.
func (a valueRange) comparable(b valueRange) bool {
	if (a.date != "") != (b.date != "") {
		return false
	}
	return a.date != "" || a.dim == b.dim && a.noun == b.noun
}

// agrees reports whether two comparable values can be the same: their
// windows overlap, or one date holds the other at its precision.
func (a valueRange) agrees(b valueRange) bool {
	if a.date != "" {
		return strings.HasPrefix(a.date, b.date) || strings.HasPrefix(b.date, a.date)
	}
	return a.lo <= b.hi && b.lo <= a.hi
}

// statement is something one clause of a source says that another source
// can contradict.
type statement struct {
	kind    string
	src     int32
	lo, hi  int32 // the clause's tokens
	key     []int32
	val     valueRange
	neg     bool
	path    string
	deleted bool
}

// Conflicts returns the disagreements between the sources of the index
// (asides left out), at most 32, in source order:
//
//   - a value: two sources give different values (numbers compared after
//     unit conversion and rounding as [Index.Find] reads them; dates at
//     the precision written) to one thing. What the thing is, its key, is
//     the content words written before the value in its clause ("the p99
//     latency of /search is"), or after it when the value opens the clause
//     ("4,812 rows lost their billing_country"), with a short qualifier
//     that opens the sentence ("Before the fix, ...") and, in a record,
//     the fields that hold no number ("api: search"). A clause is a
//     sentence's stretch between ;, :, commas, brackets, dashes and
//     contrastive conjunctions ("but", "while"); in a record, a field. A
//     clause with two values of one sort (a range, a before and after, a
//     comparison) gives no statement, and a leading "In FILE" (where a
//     source read the value) is not part of the key;
//   - a polarity: a clause of at least two content words that one source
//     negates ("not", "never", "isn't", or the opposite word: "off",
//     "disabled", "unencrypted") and another states plainly;
//   - a file: a source says it created (wrote, added) a file and another
//     that it deleted (removed) it.
//
// Two keys name one thing when they are the same words, or when one of
// three words or more is held in the other with detail that does not
// qualify it (see sameSubject). Sources that merely differ in what they
// cover never conflict; statements under other qualifiers ("p95" and
// "p99", "before the fix" and "after the fix") have different keys.
func (ix *Index) Conflicts() []Conflict {
	var sts []statement
	for si := range ix.srcs {
		if ix.srcs[si].aside || len(sts) >= maxStatements {
			continue
		}
		n := len(sts)
		sts = ix.statements(int32(si), sts)
		sts = append(sts[:n], distinctStatements(sts[n:])...)
		if len(sts)-n > maxPerSource {
			sts = sts[:n+maxPerSource]
		}
	}
	if len(sts) > maxStatements {
		sts = sts[:maxStatements]
	}
	// Candidate pairs share a statement's rarest key term (a key held in
	// another holds all its terms) or a file's path; each pair is looked
	// at once, in statement order.
	post := map[int32][]int32{}
	files := map[string][]int32{}
	for i := range sts {
		if sts[i].kind == ConflictFile {
			files[sts[i].path] = append(files[sts[i].path], int32(i))
			continue
		}
		for _, t := range sts[i].key {
			post[t] = append(post[t], int32(i))
		}
	}
	var pairs [][2]int32
	for i := range sts {
		cands := files[sts[i].path]
		if sts[i].kind != ConflictFile {
			cands = nil
			for _, t := range sts[i].key {
				if p := post[t]; cands == nil || len(p) < len(cands) {
					cands = p
				}
			}
		}
		for _, j := range cands {
			if a, b := &sts[i], &sts[j]; a.src != b.src && a.kind == b.kind {
				pairs = append(pairs, [2]int32{min(int32(i), j), max(int32(i), j)})
			}
		}
	}
	slices.SortFunc(pairs, func(p, q [2]int32) int {
		if c := cmp.Compare(p[0], q[0]); c != 0 {
			return c
		}
		return cmp.Compare(p[1], q[1])
	})
	pairs = slices.Compact(pairs)
	var out []Conflict
	seen := map[[2]int32]map[string]bool{}
	for _, pr := range pairs {
		if len(out) >= maxConflicts {
			break
		}
		a, b := &sts[pr[0]], &sts[pr[1]]
		// One conflict per pair of sources and subject.
		pair := [2]int32{a.src, b.src}
		c, ok := ix.conflict(a, b, func(subject string) bool {
			if seen[pair][subject] {
				return true
			}
			if seen[pair] == nil {
				seen[pair] = map[string]bool{}
			}
			seen[pair][subject] = true
			return false
		})
		if ok {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(p, q Conflict) int { return cmp.Compare(p.srcA, q.srcA) })
	return out
}

// distinctStatements drops the statements of one source that say what an
// earlier one says (a repeated sentence), in place.
func distinctStatements(sts []statement) []statement {
	seen := make(map[string]bool, len(sts))
	out := sts[:0]
	var b []byte
	for _, st := range sts {
		b = append(b[:0], st.kind...)
		b = append(b, 0)
		for _, t := range st.key {
			b = binary.AppendVarint(b, int64(t))
		}
		b = append(b, st.path...)
		b = append(b, st.val.date...)
		b = binary.AppendVarint(b, int64(math.Float64bits(st.val.lo)))
		b = binary.AppendVarint(b, int64(math.Float64bits(st.val.hi)))
		if st.neg || st.deleted {
			b = append(b, 1)
		}
		if !seen[string(b)] {
			seen[string(b)] = true
			out = append(out, st)
		}
	}
	return out
}

// conflict reports whether two statements of one group conflict.
func (ix *Index) conflict(a, b *statement, dup func(subject string) bool) (Conflict, bool) {
	c := Conflict{Kind: a.kind}
	if a.kind != ConflictFile {
		key, ok := ix.sameSubject(a.key, b.key)
		if !ok {
			return c, false
		}
		c.key = key
	}
	switch a.kind {
	case ConflictValue:
		if !a.val.comparable(b.val) || a.val.agrees(b.val) {
			return c, false
		}
		c.va, c.vb = a.val, b.val
		c.Subject = ix.keyText(c.key)
	case ConflictPolarity:
		if a.neg == b.neg {
			return c, false
		}
		c.negA = a.neg
		pos := a
		if a.neg {
			pos = b
		}
		c.Subject = ix.srcs[pos.src].clauseText(pos.lo, pos.hi)
	case ConflictFile:
		if a.path != b.path || a.deleted == b.deleted {
			return c, false
		}
		if a.deleted {
			a, b = b, a
		}
		c.path, c.Subject = a.path, a.path
	}
	if dup(c.Subject) {
		return c, false
	}
	sa, sb := &ix.srcs[a.src], &ix.srcs[b.src]
	c.srcA = a.src
	c.A = Side{Source: sa.id, Text: sa.clauseText(a.lo, a.hi), Sentence: sa.sentenceOf(a.lo)}
	c.B = Side{Source: sb.id, Text: sb.clauseText(b.lo, b.hi), Sentence: sb.sentenceOf(b.lo)}
	switch a.kind {
	case ConflictValue:
		c.A.Text, c.B.Text = a.val.text, b.val.text
	case ConflictFile:
		c.A.Text, c.B.Text = "created", "deleted"
	}
	return c, true
}

// sameSubject reports whether two statements' keys name one thing, and
// returns the key they share: equal sets of at least two terms, or a set
// of at least three terms that the other holds with more detail ("the
// reports ingress has proxy-read-timeout set to" and "the proxy-read-timeout
// annotation on the production reports ingress is set to"). Two terms are
// too few to tell the thing from a part of it ("the bucket is public" and
// "the bucket policy is private"). Detail that qualifies the thing
// ("before", "median", "peak", "target") makes it another thing.
func (ix *Index) sameSubject(a, b []int32) ([]int32, bool) {
	if slices.Equal(a, b) {
		return a, len(a) >= 2
	}
	small, large := a, b
	if len(small) > len(large) {
		small, large = large, small
	}
	if len(small) < 3 || !containsAll(large, small) {
		return nil, false
	}
	i := 0
	for _, t := range large {
		if i < len(small) && small[i] == t {
			i++
			continue
		}
		if subjectQualifiers[ix.terms[t]] {
			return nil, false
		}
	}
	return small, true
}

// subjectQualifiers make a measured thing another thing: a time, a
// statistic, a goal rather than a reading.
var subjectQualifiers = lex.Named("subject-qualifiers").Set()

// keyText joins the folded words of a key.
func (ix *Index) keyText(key []int32) string {
	ws := make([]string, len(key))
	for i, t := range key {
		ws[i] = ix.terms[t]
	}
	return strings.Join(ws, " ")
}

// sentenceOf returns the text of the sentence (or record item) holding
// token k.
func (src *source) sentenceOf(k int32) string {
	if int(k) >= len(src.toks) {
		return ""
	}
	lo, hi := src.unitOfTok(k)
	return strings.TrimSpace(src.text[src.toks[lo].start:src.toks[hi-1].end])
}

func (src *source) clauseText(lo, hi int32) string {
	if lo >= hi {
		return ""
	}
	return strings.TrimSpace(src.text[src.toks[lo].start:src.toks[hi-1].end])
}

// statements appends the statements of source si.
func (ix *Index) statements(si int32, out []statement) []statement {
	src := &ix.srcs[si]
	view := tokView{ix: ix, text: src.text, toks: src.toks, record: src.record}
	for u := range src.units {
		ulo := src.units[u]
		uhi := int32(len(src.toks))
		if u+1 < len(src.units) {
			uhi = src.units[u+1]
		}
		cls := view.clauses(ulo, uhi)
		var qual []int32
		switch {
		case src.record:
			qual = view.identity(src, cls)
		case len(cls) > 1:
			qual = view.qualifier(cls[0][0], cls[0][1])
		}
		for i, cl := range cls {
			q := qual
			if i == 0 && !src.record {
				q = nil
			}
			out = ix.clauseStatements(si, src, &view, cl[0], cl[1], q, out)
		}
	}
	return out
}

// clauseStatements appends the statements of one clause.
// qual are the terms of a qualifier that opens the sentence ("Before the
// fix, ..."); they join the keys of the clause's values.
func (ix *Index) clauseStatements(si int32, src *source, v *tokView, lo, hi int32, qual []int32, out []statement) []statement {
	// Values: numbers, quantities and dates that start in the clause.
	type valAt struct {
		tok, end int32
		val      valueRange
	}
	var vals []valAt
	for k := lo; k < hi; k++ {
		if d := src.dateAt[k]; d > 0 {
			de := &ix.dvals[d-1]
			vals = append(vals, valAt{k, de.tokHi, valueRange{date: de.norm, noun: -1, text: de.text}})
			continue
		}
		if n := src.numAt[k]; n > 0 {
			vals = append(vals, valAt{k, ix.nums[n-1].tokHi, ix.numRange(src, &ix.nums[n-1])})
		}
	}
	for i, va := range vals {
		alone := true
		for j, vb := range vals {
			if i != j && va.val.comparable(vb.val) {
				alone = false
				break
			}
		}
		if !alone {
			continue // a range, a before and after, a comparison
		}
		// The words before the value say what it is ("the p99 latency of
		// /search is"); when the value opens the clause, the words after
		// ("4,812 rows lost their billing_country").
		key := v.clauseKey(lo, va.tok, src.files)
		if len(key) < 2 {
			key = v.clauseKey(va.end, hi, nil)
		}
		if len(key) < 2 {
			continue
		}
		if len(qual) > 0 {
			key = append(key, qual...)
			slices.Sort(key)
			key = slices.Compact(key)
		}
		out = append(out, statement{kind: ConflictValue, src: si, lo: lo, hi: hi, key: key, val: va.val})
	}
	if src.record {
		return out
	}
	// Polarity.
	if terms, neg, ok := v.statementTerms(lo, hi); ok && len(terms) >= 2 && len(vals) == 0 {
		out = append(out, statement{kind: ConflictPolarity, src: si, lo: lo, hi: hi, key: terms, neg: neg})
	}
	// Files created or deleted.
	for _, f := range src.files {
		if f.start < src.toks[lo].start || f.start >= src.toks[hi-1].end {
			continue
		}
		created, deleted := v.fileVerbs(lo, hi)
		if deleted || created {
			out = append(out, statement{kind: ConflictFile, src: si, lo: lo, hi: hi, path: cleanFilePath(f.norm), deleted: deleted})
		}
	}
	return out
}

// numRange reads an indexed number as a comparable range.
func (ix *Index) numRange(src *source, n *numEntry) valueRange {
	factor := 1.0
	if n.dim != "" && n.raw != 0 {
		factor = n.base / n.raw
	}
	b := boundBefore(src.text, int(src.toks[n.tokLo].start))
	lo, hi := window(n.raw, precisionOf(n.text, n.raw), b)
	noun := n.noun
	if noun < 0 && n.dim == "" {
		noun = nounAfter(src.toks, n.tokHi, ix.stop)
	}
	if factor < 0 {
		lo, hi = hi, lo
	}
	return valueRange{dim: n.dim, noun: noun, lo: lo * factor, hi: hi * factor, text: n.text}
}

// nounAfter returns the term of the content word right after a unitless
// number ("1.2k messages"), or -1.
func nounAfter(toks []tok, k int32, stop []bool) int32 {
	if int(k) >= len(toks) || toks[k].flags&tkContent == 0 || toks[k].term < 0 {
		return -1
	}
	if int(toks[k].term) < len(stop) && stop[toks[k].term] {
		return -1
	}
	return toks[k].term
}

// cleanFilePath normalises a file path for comparison.
func cleanFilePath(p string) string {
	p = strings.ReplaceAll(p, "\\", "/")
	p = strings.TrimPrefix(p, "./")
	return strings.TrimSuffix(p, "/")
}

// tokView reads clauses and statement words from tokens of a text whose
// term ids belong to an index's dictionary (-1 for words it lacks).
type tokView struct {
	ix     *Index
	text   string
	toks   []tok
	record bool
}

// Words of statements.
var (
	breakWords   = lex.Named("statement-breaks").Set()
	negWords     = lex.Named("statement-negations").Set()
	createVerbs  = lex.Named("create-verbs").Set()
	deleteVerbs  = lex.Named("delete-verbs").Set()
	disputeWords = lex.Named("dispute-words").Set()
	leadWords    = lex.Named("source-leads").Set()
)

func (v *tokView) word(k int32) string {
	t := v.toks[k]
	if t.term >= 0 && int(t.term) < len(v.ix.terms) {
		return v.ix.terms[t.term]
	}
	return strings.ToLower(v.text[t.start:t.end])
}

func (v *tokView) isStop(k int32) bool {
	t := v.toks[k]
	if t.term >= 0 && int(t.term) < len(v.ix.stop) {
		return v.ix.stop[t.term]
	}
	return stopWords[strings.ToLower(v.text[t.start:t.end])]
}

// clauses splits the tokens [lo, hi) into clauses.
func (v *tokView) clauses(lo, hi int32) [][2]int32 {
	var out [][2]int32
	start := lo
	for k := lo + 1; k < hi; k++ {
		if v.breaks(k) {
			if k > start {
				out = append(out, [2]int32{start, k})
			}
			start = k
			if !v.record && breakWords[v.word(k)] {
				start = k + 1
				k++
			}
		}
	}
	if hi > start {
		out = append(out, [2]int32{start, hi})
	}
	return out
}

// breaks reports whether a clause ends before token k.
func (v *tokView) breaks(k int32) bool {
	gap := v.text[v.toks[k-1].end:v.toks[k].start]
	if v.record {
		return strings.ContainsAny(gap, ";\n")
	}
	if !v.record && breakWords[v.word(k)] {
		return true
	}
	for i := 0; i < len(gap); i++ {
		switch gap[i] {
		case ';', '(', ')', '[', ']', '\n':
			return true
		case ':', ',':
			if i+1 < len(gap) && (gap[i+1] == ' ' || gap[i+1] == '\t' || gap[i+1] == '\n') {
				return true
			}
		case '-':
			if i > 0 && gap[i-1] == ' ' && i+1 < len(gap) && gap[i+1] == ' ' {
				return true
			}
		case 0xE2: // — and –
			if i+2 < len(gap) && gap[i+1] == 0x80 && (gap[i+2] == 0x94 || gap[i+2] == 0x93) {
				return true
			}
		}
	}
	return false
}

// qualifierLeads open a sentence's first clause that qualifies what the
// rest of it says: a time, a condition, a place ("Before the fix, ...",
// "In staging, ..."). A source named there ("According to the dashboard,
// ...") is not a qualifier.
var qualifierLeads = lex.Named("qualifier-leads").Set()

// qualifierWords keep their place in a key although they are stop words:
// they tell apart values of one thing at other times or of another kind.
var qualifierWords = lex.Named("qualifier-words").Set()

// qualifier returns the terms of a sentence's first clause [lo, hi) when
// it qualifies the rest of the sentence, or nil.
func (v *tokView) qualifier(lo, hi int32) []int32 {
	if hi-lo > 6 || !qualifierLeads[v.word(lo)] {
		return nil
	}
	var out []int32
	for k := lo; k < hi; k++ {
		t := v.toks[k]
		if t.term >= 0 && (!v.isStop(k) || qualifierWords[v.word(k)]) {
			out = append(out, t.term)
		}
	}
	return out
}

// identity returns what tells a record item apart from others of its kind:
// the words of its fields that hold no number ("api: search", "month:
// 2024-10"). They join the keys of the item's numbers, so that the
// "error rate" of two APIs is not one thing.
func (v *tokView) identity(src *source, fields [][2]int32) []int32 {
	var out []int32
	for _, f := range fields {
		numeric := false
		for k := f[0]; k < f[1]; k++ {
			if src.numAt[k] > 0 && src.dateAt[k] == 0 {
				numeric = true
				break
			}
		}
		if numeric {
			continue
		}
		for k := f[0]; k < f[1]; k++ {
			if t := v.toks[k]; t.term >= 0 && !v.isStop(k) {
				out = append(out, t.term)
			}
		}
	}
	return out
}

// clauseKey returns the key of the values of the clause [lo, hi): the
// sorted content terms of the clause but the values' own, without a
// leading "In FILE" (where a source read the value, not what it is).
func (v *tokView) clauseKey(lo, hi int32, files []fileAt) []int32 {
	var key []int32
	lead := true
	for k := lo; k < hi; k++ {
		t := v.toks[k]
		if lead && v.isStop(k) || lead && leadWords[v.word(k)] {
			continue
		}
		if lead && inFile(files, t.start) {
			continue
		}
		lead = false
		if t.flags&tkValue != 0 || t.term < 0 {
			continue
		}
		if t.flags&tkContent != 0 || t.flags&tkDigit != 0 && !v.isStop(k) || qualifierWords[v.word(k)] {
			key = append(key, t.term)
		}
	}
	slices.Sort(key)
	return slices.Compact(key)
}

func inFile(files []fileAt, off int32) bool {
	for _, f := range files {
		if off >= f.start && off < f.end {
			return true
		}
	}
	return false
}

// statementTerms returns the content terms of a clause without its
// negation, and whether it is negated. ok is false for a question.
func (v *tokView) statementTerms(lo, hi int32) (terms []int32, neg, ok bool) {
	end := v.toks[hi-1].end
	rest := strings.TrimLeft(v.text[end:], " \t")
	if strings.HasPrefix(rest, "?") {
		return nil, false, false
	}
	for k := lo; k < hi; k++ {
		w := v.word(k)
		if negWords[w] || v.contracted(k) {
			neg = !neg
			continue
		}
		if w == "t" && k > lo && v.contracted(k-1) {
			continue
		}
		// "is off", "disabled", "unencrypted": the opposite of a word,
		// read as that word negated.
		if pos, ok := antonyms[w]; ok && (w != "off" || k > lo && copulas[v.word(k-1)]) {
			if t := v.ix.term([]byte(pos)); t >= 0 {
				terms = append(terms, t)
				neg = !neg
				continue
			}
		}
		t := v.toks[k]
		if w == "on" && k > lo && copulas[v.word(k-1)] && t.term >= 0 {
			terms = append(terms, t.term) // "is on": a state, not a place
			continue
		}
		if t.term < 0 || t.flags&tkContent == 0 {
			continue
		}
		terms = append(terms, t.term)
	}
	slices.Sort(terms)
	return slices.Compact(terms), neg, true
}

// antonyms are words that state the opposite of another, as folded.
var antonyms = lex.Named("antonyms").Values()

// copulas link a subject to a state ("is on", "was switched off").
var copulas = lex.Named("copulas").Set()

// contracted reports whether token k is the stem of an n't contraction
// ("isn" of "isn't", "can" of "can't").
func (v *tokView) contracted(k int32) bool {
	if int(k)+1 >= len(v.toks) {
		return false
	}
	t, n := v.toks[k], v.toks[k+1]
	gap := v.text[t.end:n.start]
	if gap != "'" && gap != "’" || v.text[n.start:n.end] != "t" && v.text[n.start:n.end] != "T" {
		return false
	}
	w := v.text[t.start:t.end]
	return strings.HasSuffix(strings.ToLower(w), "n")
}

// fileVerbs reports whether a clause says a file was created or deleted.
func (v *tokView) fileVerbs(lo, hi int32) (created, deleted bool) {
	for k := lo; k < hi; k++ {
		w := strings.ToLower(v.text[v.toks[k].start:v.toks[k].end])
		if deleteVerbs[w] {
			deleted = true
		}
		if createVerbs[w] {
			created = true
		}
	}
	return created, deleted
}

// Stance returns which sides of c the text parsed as doc takes:
//
//   - a value conflict: the text states a value agreeing with one side (and
//     not the other) in a sentence holding at least half of the conflict's
//     key words;
//   - a polarity conflict: a clause of the text holds all the statement's
//     words, plainly or negated;
//   - a file conflict: the text mentions the file; unless a sentence that
//     does also says it was deleted or removed, it takes the creator's side.
//
// A sentence that says the sources disagree ("disagree", "conflicting",
// "unclear", "whether") about the thing takes both sides.
func (ix *Index) Stance(c *Conflict, doc *mention.Doc) Stance {
	return ix.Stances([]Conflict{*c}, doc)[0]
}

// Stances returns the stance of doc on each conflict (see [Index.Stance]),
// reading the text once.
func (ix *Index) Stances(cs []Conflict, doc *mention.Doc) []Stance {
	out := make([]Stance, len(cs))
	if doc == nil || doc.Text == "" {
		return out
	}
	v := ix.viewOf(doc.Text)
	for i := range cs {
		out[i] = ix.stance(&v, &cs[i], doc)
	}
	return out
}

// viewOf tokenises a text that is not in the index with the index's
// dictionary (words it lacks get term -1).
func (ix *Index) viewOf(text string) tokView {
	v := tokView{ix: ix, text: text}
	scanTokens(text, nil, func(start, end int, flags uint8, folded []byte) {
		t := ix.term(folded)
		if flags&tkDigit == 0 && (t < 0 || !ix.stop[t]) && !stopWords[string(folded)] && end-start > 1 {
			flags |= tkContent
		}
		v.toks = append(v.toks, tok{start: int32(start), end: int32(end), term: t, flags: flags})
	})
	return v
}

// stance reads the stance of the text v (parsed as doc) on c.
func (ix *Index) stance(v *tokView, c *Conflict, doc *mention.Doc) Stance {
	var a, b bool
	switch c.Kind {
	case ConflictValue:
		for _, m := range doc.Mentions {
			if m.Kind != kindNumber && m.Kind != kindDate && m.Kind != kindQuantity {
				continue
			}
			val := ix.mentionRange(v, m)
			if !val.comparable(c.va) {
				continue
			}
			inA, inB := val.agrees(c.va), val.agrees(c.vb)
			if inA == inB {
				continue
			}
			slo, shi := v.sentenceToks(doc, m.Sentence)
			if !v.holdsHalf(slo, shi, c.key) {
				continue
			}
			if v.disputes(slo, shi) {
				return StanceBoth
			}
			a, b = a || inA, b || inB
		}
	case ConflictPolarity:
		for si := range doc.Sentences {
			slo, shi := v.sentenceToks(doc, si)
			for _, cl := range v.clauses(slo, shi) {
				terms, neg, ok := v.statementTerms(cl[0], cl[1])
				if !ok || !containsAll(terms, c.key) {
					continue
				}
				if v.disputes(slo, shi) {
					return StanceBoth
				}
				if neg == c.negA {
					a = true
				} else {
					b = true
				}
			}
		}
	case ConflictFile:
		for _, m := range doc.Mentions {
			if m.Kind != kindFile || !samePathSuffix(cleanFilePath(m.Norm), c.path) {
				continue
			}
			slo, shi := v.sentenceToks(doc, m.Sentence)
			if _, del := v.fileVerbs(slo, shi); del || v.disputes(slo, shi) {
				return StanceBoth
			}
			a = true
		}
	}
	switch {
	case a && b:
		return StanceBoth
	case a:
		return StanceA
	case b:
		return StanceB
	}
	return StanceNone
}

// samePathSuffix reports whether two paths name one file: equal, or one
// ends with the other at a directory boundary.
func samePathSuffix(a, b string) bool {
	return a == b || strings.HasSuffix(a, "/"+b) || strings.HasSuffix(b, "/"+a)
}

// mentionRange reads a mention of a text as a comparable range.
func (ix *Index) mentionRange(v *tokView, m mention.Mention) valueRange {
	if m.Kind == kindDate {
		return valueRange{date: m.Norm, noun: -1, text: m.Text}
	}
	if m.Kind == kindQuantity {
		noun := ix.term(singular([]byte(m.Unit)))
		if noun < 0 {
			noun = -2 // a noun the sources lack compares with nothing
		}
		return valueRange{noun: noun, lo: m.Value, hi: m.Value, text: m.Text}
	}
	unitName := m.Unit
	if unitName == "" {
		unitName = unitAfter(v.text, m.End)
	}
	u := unitOf(unitName)
	factor := u.factor
	if u.dim == "" {
		factor = 1
	}
	lo, hi := window(m.Value, precisionOf(m.Text, m.Value), boundBefore(v.text, m.Start))
	noun := int32(-1)
	if u.dim == "" {
		_, khi := tokRange(v.toks, int32(m.Start), int32(m.End))
		noun = nounAfter(v.toks, khi, v.ix.stop)
	}
	return valueRange{dim: u.dim, noun: noun, lo: lo * factor, hi: hi * factor, text: m.Text}
}

// sentenceToks returns the tokens of sentence si of doc.
func (v *tokView) sentenceToks(doc *mention.Doc, si int) (lo, hi int32) {
	if si < 0 || si >= len(doc.Sentences) {
		return 0, int32(len(v.toks))
	}
	sp := doc.Sentences[si]
	return tokRange(v.toks, int32(sp.Start), int32(sp.End))
}

// holdsHalf reports whether tokens [lo, hi) hold at least half of key.
func (v *tokView) holdsHalf(lo, hi int32, key []int32) bool {
	n := 0
	for _, t := range key {
		for k := lo; k < hi; k++ {
			if v.toks[k].term == t {
				n++
				break
			}
		}
	}
	return n > 0 && 2*n >= len(key)
}

// disputes reports whether tokens [lo, hi) say that sources disagree.
func (v *tokView) disputes(lo, hi int32) bool {
	for k := lo; k < hi; k++ {
		if disputeWords[strings.ToLower(v.text[v.toks[k].start:v.toks[k].end])] {
			return true
		}
	}
	return false
}

// containsAll reports whether sorted set holds every term of sorted sub.
func containsAll(set, sub []int32) bool {
	i := 0
	for _, t := range sub {
		for i < len(set) && set[i] < t {
			i++
		}
		if i == len(set) || set[i] != t {
			return false
		}
	}
	return true
}
