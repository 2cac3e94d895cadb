package claimtext

// NounCount is a count of things of a known noun class as it is written in a
// text, whatever is said of it: "4 methods", "four exported functions" (in
// "all four exported functions"), "a dozen tests", "both files", "12/12
// tests", "1 of the 4 methods". Unlike a [CountClaim] it needs no action: it
// is what package mention reads as a quantity.
type NounCount struct {
	// Start and End are the byte offsets of the count phrase in the text
	// given to [CountAt]: from the count ("4", "four", "a dozen", "both") to
	// the head noun, modifiers included ("4 exported methods").
	Start, End int
	// Number is the count: N in "N of M" and "N/M".
	Number int
	// Total is M in "N of M" and "N/M", else 0.
	Total int
	// Noun is the noun class of the head noun ("function" for "handlers";
	// see [CountClaim.Noun]).
	Noun string
	// Head is the head noun as written ("handlers", "edge cases").
	Head string
}

// countWindow bounds the text [CountAt] reads around a count: a label,
// approximation or fraction before it is at most a few words back, and its
// noun at most five words on.
const (
	countBefore = 32
	countAfter  = 72
)

// CountAt reads a count of things that starts at byte offset i of the
// sentence s: a numeral or number word (or "a dozen", "both") followed,
// within a few modifiers, by a noun of a known class. It reports false when
// there is none: the number is a label ("line 4", "Python 3", "step 2"), a
// part ("half of the 8 tests"), an HTTP status ("404 errors"), has no noun
// of a known class ("3 seconds", "50 users"), or is no whole number at all
// ("1.5", "v4", "4th"). Approximate counts ("about 10 files") are counts
// here. Only a short window of s around i is read, so calling CountAt for
// each number of a long text stays linear.
func CountAt(s string, i int) (NounCount, bool) {
	if i < 0 || i >= len(s) {
		return NounCount{}, false
	}
	lo := i - countBefore
	if lo <= 0 {
		lo = 0
	} else {
		for lo < i && s[lo] != ' ' && s[lo] != '\t' && s[lo] != '\n' {
			lo++
		}
		if lo < i {
			lo++
		}
	}
	hi := i + countAfter
	if hi >= len(s) {
		hi = len(s)
	} else {
		j := hi
		for j > i && s[j-1] != ' ' && s[j-1] != '\t' && s[j-1] != '\n' {
			j--
		}
		if j > i+1 {
			hi = j - 1
		}
	}
	sc := scannerPool.Get().(*scanner)
	defer func() {
		sc.s = ""
		scannerPool.Put(sc)
	}()
	sc.m = lexicon()
	sc.approxOK = true
	sc.s = s[lo:hi]
	sc.toks = applyPhrases(sc.s, tokenize(sc.m, sc.s, sc.toks[:0]))
	k := -1
	for j := range sc.toks {
		if int(sc.toks[j].start) == i-lo {
			k = j
			break
		}
	}
	if k < 0 {
		return NounCount{}, false
	}
	nc, ok := sc.countAt(k)
	if !ok {
		return NounCount{}, false
	}
	nc.Start += lo
	nc.End += lo
	return nc, true
}

// countAt reads the count at token k of the scanner's sentence.
func (sc *scanner) countAt(k int) (NounCount, bool) {
	toks := sc.toks
	n := len(toks)
	t := &toks[k]
	nc := NounCount{}
	j := k + 1
	switch {
	case t.kind == tNum:
		if sc.numBlocked(k) {
			return nc, false
		}
		nc.Number = t.val
		switch {
		case sc.punctIs(j, '/') && j+1 < n && toks[j+1].kind == tNum && toks[j].start == t.end:
			nc.Total = toks[j+1].val
			j += 2
		case sc.wordHas(j, wOf):
			total, k2, det, ok := sc.afterOf(j)
			switch {
			case ok:
				nc.Total, j = total, k2+1
			case det:
				j = k2
			default:
				return nc, false
			}
		}
	case t.kind == tWord && t.is(wQuant) && t.ent().num == 2:
		// "both files", "both of the files"
		nc.Number = 2
		for j < n && toks[j].kind == tWord && toks[j].is(wQFiller) {
			j++
		}
	default:
		return nc, false
	}
	if nc.Number >= 100 && nc.Number <= 599 && j < n && toks[j].is(wHTTPNoun) {
		return nc, false
	}
	head, _ := sc.nounRun(j)
	if head < 0 || toks[head].kind != tWord || toks[head].ent() == nil || toks[head].ent().noun == "" {
		return nc, false
	}
	// A noun followed by an unknown word modifies it: "three test areas".
	if head+1 < n && toks[head+1].kind == tWord && toks[head+1].ent() == nil && toks[head+1].start == toks[head].end+1 {
		return nc, false
	}
	// Between the count and its noun only modifiers may stand: a participle
	// right after the count ("4 documented methods"), adjectives, nouns,
	// code and unknown words ("9 renderer edge cases"); not a verb further
	// on ("3 people edited files").
	for m := j; m < head; m++ {
		u := &toks[m]
		if u.kind != tWord {
			continue
		}
		if e := u.ent(); e != nil && e.verb != "" && e.noun == "" && m > j {
			return nc, false
		}
	}
	nc.Start = int(t.start)
	nc.End = int(toks[head].end)
	nc.Noun = toks[head].ent().noun
	nc.Head = toks[head].text(sc.s)
	return nc, true
}

// IsCountNoun reports whether word is a noun of a known class ("methods",
// "tests", "files"): the head a count needs to be a [NounCount]. It lets a
// caller skip [CountAt] where no such noun follows a number.
func IsCountNoun(word string) bool {
	e := lexicon().lookup(word)
	return e != nil && e.noun != ""
}
