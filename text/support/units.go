package support

import (
	"math"
	"strconv"
	"strings"

	"github.com/vouchgate/vouch/text/lex"
)

// A unit belongs to a dimension and converts to the dimension's base unit
// by a factor. Two values compare only within one dimension; a value
// without a unit compares with any value by its number as written.
type unit struct {
	dim    string
	factor float64
}

// units maps unit names, as package mention normalises them and as they
// are written after a number or at the end of a record key ("latency_ms"),
// to their dimension. A unit not listed is its own dimension.
var units = map[string]unit{
	// time, base second
	"ns": {"time", 1e-9}, "us": {"time", 1e-6}, "µs": {"time", 1e-6},
	"ms": {"time", 1e-3}, "msec": {"time", 1e-3}, "millisecond": {"time", 1e-3}, "milliseconds": {"time", 1e-3},
	"s": {"time", 1}, "sec": {"time", 1}, "secs": {"time", 1}, "second": {"time", 1}, "seconds": {"time", 1},
	"min": {"time", 60}, "mins": {"time", 60}, "minute": {"time", 60}, "minutes": {"time", 60},
	"h": {"time", 3600}, "hr": {"time", 3600}, "hrs": {"time", 3600}, "hour": {"time", 3600}, "hours": {"time", 3600},
	"d": {"time", 86400}, "day": {"time", 86400}, "days": {"time", 86400},
	"week": {"time", 604800}, "weeks": {"time", 604800},
	// length, base metre
	"mm": {"length", 1e-3}, "cm": {"length", 1e-2}, "m": {"length", 1}, "metre": {"length", 1},
	"metres": {"length", 1}, "meter": {"length", 1}, "meters": {"length", 1},
	"km": {"length", 1e3}, "kilometre": {"length", 1e3}, "kilometres": {"length", 1e3},
	"kilometer": {"length", 1e3}, "kilometers": {"length", 1e3},
	"mi": {"length", 1609.344}, "mile": {"length", 1609.344}, "miles": {"length", 1609.344},
	"ft": {"length", 0.3048}, "feet": {"length", 0.3048}, "foot": {"length", 0.3048},
	// mass, base gram
	"mg": {"mass", 1e-3}, "g": {"mass", 1}, "kg": {"mass", 1e3}, "t": {"mass", 1e6},
	"tonne": {"mass", 1e6}, "tonnes": {"mass", 1e6}, "lb": {"mass", 453.59237}, "lbs": {"mass", 453.59237},
	"oz": {"mass", 28.349523125},
	// data, base byte
	"b": {"data", 1}, "byte": {"data", 1}, "bytes": {"data", 1},
	"kb": {"data", 1e3}, "mb": {"data", 1e6}, "gb": {"data", 1e9}, "tb": {"data", 1e12},
	"kib": {"data", 1 << 10}, "mib": {"data", 1 << 20}, "gib": {"data", 1 << 30}, "tib": {"data", 1 << 40},
	// shares: a percentage and percentage points are read alike
	"%": {"%", 1}, "percent": {"%", 1}, "pct": {"%", 1}, "pp": {"%", 1},
	// speed, base metre per second
	"kmh": {"speed", 1 / 3.6}, "km/h": {"speed", 1 / 3.6}, "kph": {"speed", 1 / 3.6},
	"mph": {"speed", 0.44704}, "m/s": {"speed", 1},
	// money: each currency is its own dimension
	"usd": {"usd", 1}, "dollar": {"usd", 1}, "dollars": {"usd", 1}, "$": {"usd", 1},
	"eur": {"eur", 1}, "euro": {"eur", 1}, "euros": {"eur", 1}, "€": {"eur", 1},
	"gbp": {"gbp", 1}, "£": {"gbp", 1}, "jpy": {"jpy", 1}, "¥": {"jpy", 1},
	"cny": {"cny", 1}, "inr": {"inr", 1}, "chf": {"chf", 1}, "cad": {"cad", 1}, "aud": {"aud", 1},
	// temperature: no conversion
	"c": {"degc", 1}, "°c": {"degc", 1}, "celsius": {"degc", 1},
	"f": {"degf", 1}, "°f": {"degf", 1}, "fahrenheit": {"degf", 1},
	"x": {"x", 1}, "times": {"x", 1},
}

// afterUnits are the unit words recognised right after a number whose
// mention has no unit ("1.25 s"); single letters other than s are too
// ambiguous there.
var afterUnits = lex.Named("after-units").Set()

// unitOf returns the dimension and factor of a unit name; an empty name
// has no dimension.
func unitOf(name string) unit {
	if name == "" {
		return unit{}
	}
	if u, ok := units[name]; ok {
		return u
	}
	return unit{"u:" + name, 1}
}

// unitAfter returns the unit word written right after a number ("1.25 s"),
// or "".
func unitAfter(text string, end int) string {
	i := end
	for i < len(text) && text[i] == ' ' {
		i++
	}
	j := i
	for j < len(text) && j-i < 5 && (text[j] >= 'a' && text[j] <= 'z' || text[j] >= 'A' && text[j] <= 'Z' || text[j] == '/' || text[j] == 0xC2 || text[j] == 0xB0 || text[j] == 0xB5) {
		j++
	}
	if j == i || j < len(text) && isWordByte(text, j) {
		return ""
	}
	w := strings.ToLower(text[i:j])
	if afterUnits[w] {
		return w
	}
	return ""
}

// keyUnit returns the unit a record key names by its last word
// ("latency ms", "price eur", "wind kmh"), or "".
func keyUnit(key string) string {
	if i := strings.LastIndexAny(key, " ."); i >= 0 {
		key = key[i+1:]
	}
	key = strings.ToLower(strings.Trim(key, "()[] "))
	switch key {
	case "percent", "pct", "percentage":
		return "%"
	}
	if _, ok := units[key]; ok && len(key) > 0 {
		return key
	}
	return ""
}

// Bounds a claim puts on a number by the words before it.
const (
	boundExact  = iota // as written, to the precision written
	boundApprox        // "about", "roughly", "nearly"
	boundLower         // "more than", "over", "at least"
	boundUpper         // "less than", "under", "up to"
)

var (
	approxWords = []string{"about", "around", "approximately", "approx", "approx.", "roughly", "nearly",
		"almost", "some", "circa", "ca.", "~", "close to", "an estimated", "estimated", "just under",
		"just over", "on the order of", "an approximate", "approaching", "near"}
	lowerWords = []string{"more than", "over", "above", "at least", "exceeding", "in excess of",
		"upwards of", "greater than", "north of", "beyond", ">", "no fewer than", "no less than"}
	upperWords = []string{"less than", "under", "below", "fewer than", "up to", "at most",
		"no more than", "<", "as few as", "shy of"}
)

// boundBefore reads the hedge written right before a number at start.
func boundBefore(text string, start int) int {
	lo := start - 24
	if lo < 0 {
		lo = 0
	}
	s := strings.TrimRight(text[lo:start], " \t\u00a0")
	has := func(words []string) bool {
		for _, w := range words {
			k := len(s) - len(w)
			if k >= 0 && strings.EqualFold(s[k:], w) && (!wordBefore(s, k) || !isWordByte(w, 0)) {
				return true
			}
		}
		return false
	}
	switch {
	case has(approxWords):
		return boundApprox
	case has(lowerWords):
		return boundLower
	case has(upperWords):
		return boundUpper
	}
	return boundExact
}

// precision is how precisely a number is written, in its written unit.
type precision struct {
	// step is the place of the last digit written: 0.1 for "3.2", 100000
	// for "3.2 million", 1 for "3,200,000".
	step float64
	// sig is the place of the last significant digit: trailing zeros of a
	// whole number are not significant, so 100000 for "3,200,000".
	sig float64
	// scaled reports whether the number is written with a decimal point
	// or a scale word ("3.2 million", "1.5k", "2.5"); such a number is
	// read as rounded to its last digit.
	scaled bool
}

// precisionOf reads the precision of a number written as text with the
// value v (in its written unit).
func precisionOf(text string, v float64) precision {
	i := strings.IndexFunc(text, func(r rune) bool { return r >= '0' && r <= '9' })
	if i < 0 {
		// A number in words ("seven million"): its last significant place.
		p := placeOf(v)
		return precision{step: p, sig: p, scaled: p > 1}
	}
	j := i
	var digits []byte
	dot := -1
	for j < len(text) {
		c := text[j]
		switch {
		case c >= '0' && c <= '9':
			digits = append(digits, c)
		case c == '.' && dot < 0 && j+1 < len(text) && text[j+1] >= '0' && text[j+1] <= '9':
			dot = len(digits)
		case c == ',' && j+1 < len(text) && text[j+1] >= '0' && text[j+1] <= '9':
		default:
			j = len(text)
			continue
		}
		j++
	}
	dec := 0
	if dot >= 0 {
		dec = len(digits) - dot
	}
	mant, err := strconv.ParseFloat(string(digits), 64)
	if err != nil || mant == 0 {
		return precision{step: 1, sig: 1}
	}
	mant /= math.Pow10(dec)
	scale := math.Abs(v) / mant
	if scale == 0 || math.IsInf(scale, 0) || math.IsNaN(scale) {
		scale = 1
	}
	step := math.Pow10(-dec) * scale
	sig := step
	if dec == 0 {
		for k := len(digits) - 1; k > 0 && digits[k] == '0'; k-- {
			sig *= 10
		}
	}
	return precision{step: step, sig: sig, scaled: dec > 0 || scale > 1.0000001}
}

// placeOf returns the largest power of ten that divides a whole number, or
// 1.
func placeOf(v float64) float64 {
	v = math.Abs(v)
	if v == 0 || v != math.Trunc(v) {
		return 1
	}
	p := 1.0
	for v >= p*10 && math.Mod(v, p*10) == 0 {
		p *= 10
	}
	return p
}

// window returns the range of source values, in the claim's written unit,
// that support a claim number c written with precision p under bound b:
//
//   - every number matches itself (after unit conversion);
//   - a number written with a decimal point or a scale word is read as
//     rounded to its last digit: "3.2 million" holds for 3,150,000 up to
//     3,250,000, "4.1%" for 4.05% to 4.15%; a whole number written in
//     digits ("3,200,000", "48") must match exactly;
//   - a hedged number ("about 50", "roughly 546,000") also holds within
//     half its last significant place, but that widening is never more
//     than 10% of the number: "about 50" holds for 45 to 55, "about
//     1,200" for 1,150 to 1,250, "about 3 million" (already rounded) for
//     2.5 to 3.5 million;
//   - "more than c" holds for values from c up to twice c, "less than c"
//     for values from half c up to c.
func window(c float64, p precision, b int) (lo, hi float64) {
	eps := 1e-9 * math.Max(math.Abs(c), 1)
	tol := eps
	if p.scaled {
		tol = p.step/2 + eps
	}
	switch b {
	case boundApprox:
		t := math.Min(p.sig/2, 0.1*math.Abs(c))
		if t+eps > tol {
			tol = t + eps
		}
	case boundLower:
		if c > 0 {
			return c - eps, 2*c + eps
		}
	case boundUpper:
		if c > 0 {
			return c/2 - eps, c + eps
		}
	}
	return c - tol, c + tol
}
