package mention

import (
	"strings"

	"github.com/vouchgate/vouch"
)

// number reads the number run at token i; from and cur, when set, are the
// start and code of a currency written before it ("USD 30").
func (p *parser) number(i, from int, cur string) int {
	t := &p.toks[i]
	w := p.text[t.s:t.e]
	nm := parseNumber(w)
	if t.s > p.ss && (p.text[t.s-1] == '\'' || strings.HasSuffix(p.text[p.ss:t.s], "’")) && strings.HasSuffix(w, "s") {
		return i + 1 // a decade: "'90s"
	}
	if t.s >= 2 && p.text[t.s-1] == '+' && isLetter(p.text[t.s-2]) {
		return i + 1 // a formula: "N+1 queries"
	}
	switch nm.kind {
	case numNone:
		return i + 1
	case numDate:
		t.date = true
		p.add(vouch.MentionDate, t.s, t.s+nm.end, nm.date)
		return i + 1
	case numYearRange:
		t.date = true
		p.add(vouch.MentionDate, t.s, t.s+4, nm.y1)
		p.add(vouch.MentionDate, t.s+nm.s2, t.s+nm.e2, nm.y2)
		return i + 1
	case numRatio:
		if n, ok := p.quantity(i); ok {
			return n
		}
		return i + 1
	case numOrdinal:
		if n := p.dayDate(i, int(nm.val)); n > i {
			return n
		}
		return i + 1
	}
	if p.excluded(i) {
		t.lab = true
		return i + 1
	}
	if nm.kind == numRange && nm.plainInt2() {
		// "3-9 June": two days of one month.
		if n := p.dayRange(i, int(nm.val), int(nm.val2), t.s+nm.s2, t.s+nm.e2); n > i {
			return n
		}
	}
	if nm.plainInt && len(w) <= 2 && cur == "" {
		// "3–9 June", "3 to 9 June": the first day of a range.
		if n := p.dayRangeStart(i, int(nm.val)); n > i {
			return n
		}
	}
	if nm.kind == numRange {
		for _, r := range [2][3]float64{{0, float64(nm.end), nm.val}, {float64(nm.s2), float64(nm.e2), nm.val2}} {
			if m := p.add(vouch.MentionNumber, t.s+int(r[0]), t.s+int(r[1]), formatNum(r[2])); m != nil {
				m.Value, m.Unit = r[2], nm.unit
			}
		}
		return i + 1
	}
	if nm.plainInt && len(w) <= 2 && cur == "" {
		if n := p.dayDate(i, int(nm.val)); n > i {
			return n
		}
	}
	start, end := t.s, t.s+nm.end
	if from >= 0 {
		start = from
		if nm.unit == "" {
			nm.unit, nm.currency = cur, true
		}
	}
	val, unit := nm.val, nm.unit
	j := i + 1
	if end == t.e && !nm.scaled && (unit == "" || nm.currency) && p.next(j, "") {
		if sc := p.info(j); sc.has(lScale) && !sc.has(lUnit) {
			val = decimalScale(val, sc.n)
			nm.scaled = true
			end = p.toks[j].e
			j++
		}
	}
	if unit == "" && end == p.toks[j-1].e && p.next(j, "") {
		if u, n := p.unitAfter(j); u != "" {
			unit = u
			end = p.toks[n-1].e
			j = n
		}
	}
	if unit == "" && strings.HasPrefix(p.text[end:p.se], " %") {
		unit = "%"
		end += 2
	}
	if nm.year && unit == "" && !nm.scaled && from < 0 && p.yearContext(i) {
		t.date = true
		p.add(vouch.MentionDate, t.s, t.e, w)
		return i + 1
	}
	if nm.plainInt && unit == "" && !nm.scaled && from < 0 {
		if n, ok := p.quantity(i); ok {
			return n
		}
	}
	if m := p.add(vouch.MentionNumber, start, end, formatNum(val)); m != nil {
		m.Value, m.Unit = val, unit
	}
	return j
}

// decimalScale multiplies v by a power-of-ten scale, rounding once.
func decimalScale(v, scale float64) float64 {
	r := v * scale
	// v holds at most a few decimals: round away the binary error of the
	// product ("2.3 million" is 2300000, not 2299999.9999999995).
	if r >= 1 || r <= -1 {
		rr := float64(int64(r + 0.5*sign(r)))
		if d := r - rr; d < 1e-6 && d > -1e-6 {
			return rr
		}
	}
	return r
}

func sign(v float64) float64 {
	if v < 0 {
		return -1
	}
	return 1
}

// unitAfter reads a unit word at token j ("ms", "seconds", "percent", "per
// cent", "percentage points", "USD"), returning its normal form and the
// token after it.
func (p *parser) unitAfter(j int) (string, int) {
	w := p.word(j)
	info := p.info(j)
	switch {
	case strings.EqualFold(w, "per") && p.next(j+1, "") && strings.EqualFold(p.word(j+1), "cent"):
		return "%", j + 2
	case strings.EqualFold(w, "percentage") && p.next(j+1, "") && strings.EqualFold(p.word(j+1), "points"):
		return "pp", j + 2
	case strings.EqualFold(w, "percentage"):
		return "", j
	case info.has(lUnit) && !info.has(lAttachedOnly) && (allLower(w) || unitCase[w] || info.has(lCurrency) && allUpper(w)):
		return info.s, j + 1
	}
	return "", j
}

// excluded reports a number that is no mention: a label or version ("line
// 45", "Python 3", "task 1 and 2"), a citation ("[3]"), an operand ("N=0"),
// a list enumerator ("1)"), or a model number after a name ("Apollo 11").
func (p *parser) excluded(i int) bool {
	t := &p.toks[i]
	text := p.text
	if t.s > p.ss && strings.IndexByte("=<>^#", text[t.s-1]) >= 0 {
		return true
	}
	if t.gap == '[' && t.e < p.se && (text[t.e] == ']' || text[t.e] == ',') {
		return true
	}
	if (t.gap == 0 || t.gap == '(') && t.e < p.se && text[t.e] == ')' && t.e-t.s <= 2 {
		return true
	}
	if i == 0 {
		return false
	}
	prev := &p.toks[i-1]
	if t.gap == ',' && prev.lab {
		return true
	}
	if prev.k != tkRun || t.gap != ' ' {
		return false
	}
	pw := p.text[prev.s:prev.e]
	info := p.info(i - 1)
	if info.has(lLabel | lTech) {
		return true
	}
	if isOneOf(pw, "and", "or", "to", "through") && i >= 2 && p.toks[i-2].lab && prev.gap == ' ' {
		return true
	}
	if isTitleWord(pw) || unicode1Upper(pw) && !allUpper(pw) {
		if !p.initial(i-1) && !info.has(lStop|lMonth|lDay|lDateCtx|lCurrency|lUnit|lScale) && !prev.poss {
			return true
		}
	}
	return false
}

// unicode1Upper reports a word whose first letter is upper case and which
// has no other mark than letters.
func unicode1Upper(w string) bool {
	return w != "" && isUpper(w[0]) && hasLetter(w[1:])
}

// yearContext reports that a year stands as a date: "in 2019", "since
// 2019", "2019's", "(2019)", "2019–2021", "from 2019 to 2021".
func (p *parser) yearContext(i int) bool {
	t := &p.toks[i]
	if t.poss {
		return true
	}
	if t.gap == '(' && t.e < p.se && p.text[t.e] == ')' {
		return true
	}
	if i+1 < len(p.toks) && p.toks[i+1].gap == '-' && p.toks[i+1].k == tkRun && isYearStr(p.word(i+1)) {
		return true
	}
	if i == 0 {
		return false
	}
	prev := &p.toks[i-1]
	if t.gap == '-' && prev.date {
		return true
	}
	if t.gap != ' ' || prev.k != tkRun {
		return false
	}
	pw := p.word(i - 1)
	if ctx := p.info(i - 1); ctx.has(lDateCtx) && (!isUpper(pw[0]) || p.initial(i-1)) {
		return true
	}
	return isOneOf(pw, "to", "and", "through", "until") && i >= 2 && p.toks[i-2].date
}

// monthDate reads a date that starts with a month name at token i: "March
// 5, 2024", "Mar 5", "March 2024". A month alone is no mention.
func (p *parser) monthDate(i, mon int) int {
	t := &p.toks[i]
	j := i + 1
	if !p.next(j, ".") {
		return i + 1
	}
	wj := p.word(j)
	if d, ok := dayOf(wj); ok && !p.toks[j].poss {
		k := j + 1
		if p.next(k, ",") && isYearStr(p.word(k)) {
			p.toks[k].date = true
			p.add(vouch.MentionDate, t.s, p.toks[k].e, p.word(k)+"-"+pad2(mon)+"-"+pad2(d))
			return k + 1
		}
		p.add(vouch.MentionDate, t.s, p.toks[j].e, "--"+pad2(mon)+"-"+pad2(d))
		return j + 1
	}
	if p.toks[j].gap != '.' && isYearStr(wj) {
		p.toks[j].date = true
		p.add(vouch.MentionDate, t.s, p.toks[j].e, wj+"-"+pad2(mon))
		return j + 1
	}
	if strings.EqualFold(wj, "of") && p.next(j+1, "") && isYearStr(p.word(j+1)) {
		p.toks[j+1].date = true
		p.add(vouch.MentionDate, t.s, p.toks[j+1].e, p.word(j+1)+"-"+pad2(mon))
		return j + 2
	}
	return i + 1
}

// dayDate reads a date that starts with a day at token i: "5 March 2024",
// "5th March", "21 Mar 2024". It returns i when there is none.
func (p *parser) dayDate(i, d int) int {
	if d < 1 || d > 31 || !p.next(i+1, "") {
		return i
	}
	mw := p.word(i + 1)
	info := p.info(i + 1)
	if !info.has(lMonth) || !isUpper(mw[0]) {
		return i
	}
	t := &p.toks[i]
	mon := int(info.month)
	k := i + 2
	if p.next(k, ",") && isYearStr(p.word(k)) {
		p.toks[k].date = true
		p.add(vouch.MentionDate, t.s, p.toks[k].e, p.word(k)+"-"+pad2(mon)+"-"+pad2(d))
		return k + 1
	}
	p.add(vouch.MentionDate, t.s, p.toks[i+1].e, "--"+pad2(mon)+"-"+pad2(d))
	return i + 2
}

// isOneOf reports whether w is one of the words, in any case.
func isOneOf(w string, words ...string) bool {
	for _, x := range words {
		if strings.EqualFold(w, x) {
			return true
		}
	}
	return false
}

// plainInt2 reports whether both numbers of a range are small whole numbers
// written without decimals, as days are.
func (n num) plainInt2() bool {
	return n.val == float64(int(n.val)) && n.val2 == float64(int(n.val2)) && n.val >= 1 && n.val2 <= 31 &&
		n.unit == "" && !n.currency && !n.scaled
}

// dayRange reads a month (and a year) after a range of days held by token
// i ("3-9 June 2024"), adding both days as dates; the second day spans
// [s2, e2). It returns the token after what it read, or i.
func (p *parser) dayRange(i, d1, d2, s2, e2 int) int {
	if d1 < 1 || d1 > 31 || d2 < d1 || d2 > 31 || !p.next(i+1, "") {
		return i
	}
	info := p.info(i + 1)
	if !info.has(lMonth) || !isUpper(p.word(i + 1)[0]) {
		return i
	}
	mon := pad2(int(info.month))
	t := &p.toks[i]
	year, k := "--", i+2
	if p.next(k, ",") && isYearStr(p.word(k)) {
		year = p.word(k) + "-"
		p.toks[k].date = true
		k++
	}
	t.date = true
	p.add(vouch.MentionDate, t.s, s2-1, year+mon+"-"+pad2(d1))
	p.add(vouch.MentionDate, s2, p.toks[i+1].e, year+mon+"-"+pad2(d2))
	return k
}

// dayRangeStart reads "D–D2 Month" or "D to D2 Month" from token i, the
// first day: it adds the first day as a date of the month the second one
// is followed by, and leaves the second day to be read as a date of its
// own. It returns i + 1 when it read a range, or i.
func (p *parser) dayRangeStart(i, d int) int {
	if d < 1 || d > 31 || i+2 >= len(p.toks) {
		return i
	}
	t, n := &p.toks[i], &p.toks[i+1]
	gap := p.text[t.e:n.s]
	j := i + 1
	switch {
	case gap == "–" || gap == "—":
	case gap == " " && (strings.EqualFold(p.word(j), "to") || strings.EqualFold(p.word(j), "and") || strings.EqualFold(p.word(j), "through")):
		j++
	default:
		return i
	}
	if j+1 >= len(p.toks) || !isDigit(p.word(j)[0]) || len(p.word(j)) > 2 || !p.next(j+1, "") {
		return i
	}
	d2 := atoi(p.word(j))
	info := p.info(j + 1)
	if d2 <= d || d2 > 31 || !info.has(lMonth) || !isUpper(p.word(j + 1)[0]) {
		return i
	}
	year := "--"
	if p.next(j+2, ",") && isYearStr(p.word(j+2)) {
		year = p.word(j+2) + "-"
	}
	t.date = true
	p.add(vouch.MentionDate, t.s, t.e, year+pad2(int(info.month))+"-"+pad2(d))
	return i + 1
}
