package mention

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// numKind is the shape of a run that starts like a number.
type numKind uint8

const (
	numNone      numKind = iota // no mention: a version, a time, an unknown suffix
	numValue                    // a number, maybe with a unit or scale
	numDate                     // a date: "2024-03-05", "03/05/2024"
	numYearRange                // "2019-2021": two years
	numRange                    // "10-40ms": two numbers
	numRatio                    // "12/12": a ratio, read only as a count
	numOrdinal                  // "5th": only a day of a date
)

// num is a run read as a number.
type num struct {
	kind     numKind
	val      float64
	end      int    // end of the mention in the run
	unit     string // normal form of the unit, or a currency code
	plainInt bool   // a whole number written without unit, scale, sign or currency
	year     bool   // plainInt, four digits, 1000 to 2999
	scaled   bool
	currency bool
	date     string // with numDate: ISO form
	// The second number of a range, or second year of a year range.
	val2       float64
	s2, e2     int
	y1, y2     string
	digitsOnly bool
}

// currencyPrefixes are the signs a number may start with.
var currencyPrefixes = [...]string{"$", "€", "£", "¥", "₹", "₩", "₽", "₺", "₿"}

// parseNumber reads a run that starts with a digit, a sign or a currency
// sign.
func parseNumber(w string) num {
	var n num
	pos := 0
	neg := false
	switch {
	case strings.HasPrefix(w, "-"):
		neg, pos = true, 1
	case strings.HasPrefix(w, "−"):
		neg, pos = true, len("−")
	}
	for _, c := range currencyPrefixes {
		if strings.HasPrefix(w[pos:], c) {
			n.unit, n.currency = currencySigns[c], true
			pos += len(c)
			break
		}
	}
	ds := pos
	commas := false
	for pos < len(w) {
		if isDigit(w[pos]) {
			pos++
			continue
		}
		if size := sepSize(w[pos:]); size > 0 && pos > ds && pos+size+2 < len(w) && isDigit(w[pos+size]) && isDigit(w[pos+size+1]) && isDigit(w[pos+size+2]) && (pos+size+3 == len(w) || !isDigit(w[pos+size+3])) {
			commas = true
			pos += size
			continue
		}
		break
	}
	if pos == ds {
		return num{}
	}
	ie := pos
	if !neg && !n.currency && !commas && ie < len(w) && w[ie] == '.' {
		if d := dotDate(w[ds:ie], w[ie:]); d.kind == numDate {
			return d
		}
	}
	fs, fe := pos, pos
	if pos+1 < len(w) && w[pos] == '.' && isDigit(w[pos+1]) {
		pos++
		fs = pos
		for pos < len(w) && isDigit(w[pos]) {
			pos++
		}
		fe = pos
	}
	intPart := w[ds:ie]
	rest := w[pos:]
	simple := !neg && !n.currency && !commas && fs == fe
	if simple && rest != "" {
		switch rest[0] {
		case '-':
			if d, ok := isoDate(w[ds:]); ok {
				return d
			}
			if len(intPart) == 4 && len(rest) == 5 && allDigits(rest[1:]) && isYearStr(intPart) && isYearStr(rest[1:]) {
				return num{kind: numYearRange, y1: intPart, y2: rest[1:], s2: pos + 1, e2: len(w)}
			}
		case '/':
			return slashNumber(w, intPart, rest)
		}
	}
	n.val = decimal(intPart, w[fs:fe], 0, commas)
	if neg {
		n.val = -n.val
	}
	n.end = pos
	n.kind = numValue
	if rest == "" {
		n.plainInt = simple
		n.digitsOnly = simple
		n.year = simple && isYearStr(intPart)
		return n
	}
	switch {
	case rest == "%":
		n.unit, n.end = "%", len(w)
		return n
	case rest[0] == ':' || rest[0] == '.' || rest[0] == '/' && n.unit == "":
		return num{} // a time, a version, an address
	case rest[0] == '/':
		return n // "$5/month": the amount
	case rest[0] == '-':
		return rangeOrCompound(n, w, pos)
	}
	// A suffix of letters.
	if fs == fe && !n.currency && !neg && len(rest) == 2 && isOrdinal(intPart, rest) {
		return num{kind: numOrdinal, val: n.val, end: len(w)}
	}
	if k := strings.IndexByte(rest, '-'); k > 0 && fs == fe && !n.currency && !neg {
		// "100k-entry", "5ms-wide": a scaled number or an amount before a
		// word, read without the word.
		if m := parseNumber(w[:pos+k]); m.kind == numValue && m.end == pos+k && (m.scaled || m.unit != "") {
			return m
		}
	}
	if sc, ok := scaleSuffixes[rest]; ok {
		n.val = decimal(intPart, w[fs:fe], pow10(sc), commas)
		if neg {
			n.val = -n.val
		}
		n.scaled, n.end = true, len(w)
		return n
	}
	if u := suffixUnit(rest); u != "" {
		if u == "s" && len(intPart) == 4 && intPart[3] == '0' && fs == fe {
			return num{} // "1990s"
		}
		if n.currency {
			return num{}
		}
		n.unit, n.end = u, len(w)
		return n
	}
	return num{}
}

// sepSize is the length of a thousands separator at the start of s: a comma,
// a no-break space or a thin space; 0 when none.
func sepSize(s string) int {
	switch {
	case strings.HasPrefix(s, ","):
		return 1
	case strings.HasPrefix(s, "\u00a0"):
		return len("\u00a0")
	case strings.HasPrefix(s, "\u202f"), strings.HasPrefix(s, "\u2009"):
		return len("\u202f")
	}
	return 0
}

// suffixUnit is the unit of a suffix attached to a number ("ms", "GB", "x"),
// or "".
func suffixUnit(s string) string {
	if unitCase[s] || allLower(s) {
		if info := lookup(s); info.has(lUnit) {
			return info.s
		}
	}
	if s == "×" {
		return "x"
	}
	return ""
}

// rangeOrCompound reads "10-40", "10-40ms" (two numbers) or "5-minute",
// "10-line" (a number before a word).
func rangeOrCompound(n num, w string, pos int) num {
	rest := w[pos+1:]
	if rest == "" {
		return num{}
	}
	if isDigit(rest[0]) {
		m := parseNumber(rest)
		if m.kind != numValue || m.currency || m.scaled {
			return num{}
		}
		n.kind = numRange
		n.val2 = m.val
		n.s2 = pos + 1
		n.e2 = pos + 1 + m.end
		if m.unit != "" {
			n.unit = m.unit
		}
		return n
	}
	for i := 0; i < len(rest); i++ {
		if !isLetter(rest[i]) {
			return num{}
		}
	}
	if info := lookup(rest); info.has(lUnit) && allLower(rest) && !info.has(lCurrency) {
		n.unit, n.end = info.s, len(w)
	}
	return n
}

// isoDate reads "2024-03-05", "2024-03", "2024-03-05T10:00:00Z".
func isoDate(w string) (num, bool) {
	if len(w) < 7 || !isYearStr(w[:4]) || w[4] != '-' || !isDigit(w[5]) || !isDigit(w[6]) {
		return num{}, false
	}
	m := atoi(w[5:7])
	if m < 1 || m > 12 {
		return num{}, false
	}
	if len(w) == 7 {
		return num{kind: numDate, date: w[:7], end: 7}, true
	}
	if len(w) < 10 || w[7] != '-' || !isDigit(w[8]) || !isDigit(w[9]) {
		return num{}, false
	}
	d := atoi(w[8:10])
	if d < 1 || d > 31 {
		return num{}, false
	}
	if len(w) > 10 && w[10] != 'T' && w[10] != 't' {
		return num{}, false
	}
	return num{kind: numDate, date: w[:10], end: len(w)}, true
}

// slashNumber reads "03/05/2024" (a date), "2024/03/05", "03/2024" and
// "12/12" (a ratio). A date with both day and month at most 12 is ambiguous
// between the American and the European order; it is normalised to its year
// alone, the only part that is certain.
func slashNumber(w, first, rest string) num {
	parts := strings.Split(w, "/")
	for _, p := range parts {
		if !allDigits(p) {
			return num{}
		}
	}
	switch len(parts) {
	case 2:
		if len(parts[1]) == 4 && isYearStr(parts[1]) && len(parts[0]) <= 2 {
			if m := atoi(parts[0]); m >= 1 && m <= 12 {
				return num{kind: numDate, date: parts[1] + "-" + pad2(m), end: len(w)}
			}
		}
		return num{kind: numRatio, val: float64(atoi(parts[0])), end: len(w)}
	case 3:
		a, b, c := parts[0], parts[1], parts[2]
		if len(a) == 4 && isYearStr(a) && len(b) <= 2 && len(c) <= 2 {
			return ymd(a, atoi(b), atoi(c), len(w))
		}
		if len(c) == 4 && isYearStr(c) && len(a) <= 2 && len(b) <= 2 {
			x, y := atoi(a), atoi(b)
			switch {
			case x > 12 && y <= 12:
				return ymd(c, y, x, len(w))
			case y > 12 && x <= 12:
				return ymd(c, x, y, len(w))
			case x >= 1 && y >= 1 && x <= 12 && y <= 12:
				return num{kind: numDate, date: c, end: len(w)}
			}
		}
	}
	return num{}
}

// dotDate reads "05.03.2024" (day, month, year: the order dots are written
// in); any other dotted number is a version or an address.
func dotDate(first, rest string) num {
	parts := strings.Split(rest[1:], ".")
	if len(parts) == 2 && len(first) <= 2 && len(parts[0]) <= 2 && len(parts[1]) == 4 && allDigits(parts[0]) && allDigits(parts[1]) && isYearStr(parts[1]) {
		return ymd(parts[1], atoi(parts[0]), atoi(first), len(first)+len(rest))
	}
	return num{}
}

func ymd(y string, m, d, end int) num {
	if m < 1 || m > 12 || d < 1 || d > 31 {
		return num{}
	}
	return num{kind: numDate, date: y + "-" + pad2(m) + "-" + pad2(d), end: end}
}

func pad2(n int) string {
	return string([]byte{byte('0' + n/10%10), byte('0' + n%10)})
}

// isYearStr reports four digits from 1000 to 2999.
func isYearStr(s string) bool {
	return len(s) == 4 && allDigits(s) && (s[0] == '1' || s[0] == '2')
}

// isOrdinal reports "1st", "2nd", "3rd", "4th", "11th", "21st".
func isOrdinal(digits, suf string) bool {
	if digits == "" || strings.IndexByte(digits, ',') >= 0 {
		return false
	}
	last := digits[len(digits)-1]
	teen := len(digits) >= 2 && digits[len(digits)-2] == '1'
	switch suf {
	case "st":
		return last == '1' && !teen
	case "nd":
		return last == '2' && !teen
	case "rd":
		return last == '3' && !teen
	case "th":
		return teen || last != '1' && last != '2' && last != '3'
	}
	return false
}

// dayOf reads a day of the month: "5", "05", "5th", "21st".
func dayOf(w string) (int, bool) {
	i := 0
	for i < len(w) && i < 2 && isDigit(w[i]) {
		i++
	}
	if i == 0 || i < len(w) && !isOrdinal(w[:i], w[i:]) {
		return 0, false
	}
	d := atoi(w[:i])
	return d, d >= 1 && d <= 31
}

func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) && n < 1e15 {
			n = n*10 + int(s[i]-'0')
		}
	}
	return n
}

// pow10 is the power of ten of a scale factor (3 for a thousand).
func pow10(f float64) int {
	p := 0
	for f >= 10 {
		f /= 10
		p++
	}
	return p
}

var exact10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// decimal is the value of intPart.frac × 10^scale, rounded once: "2.3" with
// scale 6 is exactly 2300000.
func decimal(intPart, frac string, scale int, commas bool) float64 {
	var mant uint64
	digits := 0
	exp := scale
	for i := 0; i < len(intPart); i++ {
		c := intPart[i]
		if !isDigit(c) {
			continue
		}
		if digits < 19 {
			mant = mant*10 + uint64(c-'0')
			if mant != 0 {
				digits++
			}
		} else {
			exp++
		}
	}
	for i := 0; i < len(frac); i++ {
		if digits < 19 {
			mant = mant*10 + uint64(frac[i]-'0')
			if mant != 0 {
				digits++
			}
			exp--
		}
	}
	if mant < 1<<53 && exp >= -22 && exp <= 22 {
		if exp >= 0 {
			return float64(mant) * exact10[exp]
		}
		return float64(mant) / exact10[-exp]
	}
	s := intPart
	if commas {
		s = strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, s)
	}
	if frac != "" {
		s += "." + frac
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	for ; scale > 0; scale-- {
		v *= 10
	}
	return v
}

// formatNum is the canonical decimal of v: "1500", "0.25", "-3".
func formatNum(v float64) string {
	if v == float64(int64(v)) && v < 1e15 && v > -1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// startsNumber reports whether the run w starts like a number: a digit, a
// sign before a digit, or a currency sign before a digit.
func startsNumber(w string) bool {
	if w == "" {
		return false
	}
	switch c := w[0]; {
	case isDigit(c):
		return true
	case c != '-' && c != '$' && c < utf8.RuneSelf:
		return false
	}
	s := w
	switch {
	case strings.HasPrefix(s, "-"):
		s = s[1:]
	case strings.HasPrefix(s, "−"):
		s = s[len("−"):]
	}
	if s != "" && isDigit(s[0]) {
		return true
	}
	for _, c := range currencyPrefixes {
		if strings.HasPrefix(s, c) {
			r := s[len(c):]
			return r != "" && isDigit(r[0])
		}
	}
	return false
}

// isCurrencyRune reports a currency sign that may start a number run.
func isCurrencyRune(r rune) bool {
	switch r {
	case '€', '£', '¥', '₹', '₩', '₽', '₺', '₿', '−':
		return true
	}
	return false
}
