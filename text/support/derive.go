package support

import (
	"cmp"
	"slices"
	"strings"

	"github.com/vouchgate/vouch/text/lex"

	"github.com/vouchgate/vouch/text/mention"
)

// derive appends the values a prose source implies without writing them,
// so that a claim restating them in one figure is supported:
//
//   - a duration written in hours and minutes ("2 h 50 min", "1 hour 5
//     minutes") is also the one duration in minutes (170);
//
//   - two clock times in one sentence ("started at 14:02 and stopped at
//     14:16", "from 10:05 to 10:47") imply the minutes between them (14).
//
//   - a clock time ("14:02", "9 pm", a record's "17:0-21:0") is also the
//     time of day it names, which "2:02 pm" or "5 pm" restate (see
//     [clocks]);
//
//   - a number spelled out ("thirty track designs", "two suspects") is
//     also that number in digits.
//
// Derived values only support claims; they are never contradicted, nor do
// they contradict.
func derive(text string, sentences []mention.Span, vals []value) []value {
	vals = clocks(text, vals)
	vals = spelled(text, vals)
	// The numbers in the order they are written: clocks and spelled
	// numbers were appended after those in digits.
	var order []int32
	for i := range vals {
		if vals[i].kind == kindNumber && vals[i].unit != clockUnit {
			order = append(order, int32(i))
		}
	}
	slices.SortStableFunc(order, func(x, y int32) int { return cmp.Compare(vals[x].start, vals[y].start) })
	for k := 0; k+1 < len(order); k++ {
		a, b := vals[order[k]], vals[order[k+1]]
		hours, ok := wordAt(text, int(a.end), hourWords)
		if !ok || hours > int(b.start) || strings.TrimSpace(text[hours:b.start]) != "" {
			continue
		}
		end, ok := wordAt(text, int(b.end), minuteWords)
		if !ok || b.num >= 60 {
			continue
		}
		vals = append(vals, value{kind: kindNumber, start: a.start, end: int32(end), text: text[a.start:end],
			num: a.num*60 + b.num, unit: "min", derived: true})
	}
	for _, sp := range sentences {
		var prev, prevEnd, prevStart = -1, 0, 0
		for i := sp.Start; i < sp.End; {
			mins, start, end, ok := clockAt(text, i, sp.End)
			if !ok {
				i++
				continue
			}
			if prev >= 0 && mins > prev && mins-prev <= 12*60 {
				vals = append(vals, value{kind: kindNumber, start: int32(prevStart), end: int32(end),
					text: text[prevStart:end], num: float64(mins - prev), unit: "min", derived: true})
			}
			prev, prevStart, prevEnd = mins, start, end
			i = prevEnd
		}
	}
	return vals
}

var (
	hourWords   = map[string]bool{"h": true, "hr": true, "hrs": true, "hour": true, "hours": true}
	minuteWords = map[string]bool{"m": true, "min": true, "mins": true, "minute": true, "minutes": true}
)

// wordAt reads the word after optional spaces at text[i:] and returns the
// offset after it when it is one of words.
func wordAt(text string, i int, words map[string]bool) (int, bool) {
	for i < len(text) && text[i] == ' ' {
		i++
	}
	j := i
	for j < len(text) && (text[j] >= 'a' && text[j] <= 'z' || text[j] >= 'A' && text[j] <= 'Z') {
		j++
	}
	if j == i || !words[strings.ToLower(text[i:j])] {
		return 0, false
	}
	return j, true
}

// clockAt reads a clock time "H:MM" or "HH:MM" starting at text[i], not
// inside a longer number, before limit: its minutes since midnight and its
// offsets.
func clockAt(text string, i, limit int) (mins, start, end int, ok bool) {
	if i > 0 && isDigit(text[i-1]) || i >= limit || !isDigit(text[i]) {
		return 0, 0, 0, false
	}
	j := i
	for j < limit && isDigit(text[j]) {
		j++
	}
	if j-i > 2 || j+3 > limit || text[j] != ':' || !isDigit(text[j+1]) || !isDigit(text[j+2]) {
		return 0, 0, 0, false
	}
	if j+3 < len(text) && (isDigit(text[j+3]) || text[j+3] == '.' && j+4 < len(text) && isDigit(text[j+4])) {
		return 0, 0, 0, false
	}
	h := atoi2(text[i:j])
	m := atoi2(text[j+1 : j+3])
	if h > 23 || m > 59 {
		return 0, 0, 0, false
	}
	return h*60 + m, i, j + 3, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func atoi2(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// clockUnit is the unit of a time of day, in minutes since midnight.
const clockUnit = "clock"

// clockOf reads a number written as an hour of the clock ("9 pm", "12
// AM", "6 a.m.") and returns the minutes since midnight it names.
func clockOf(text string, m mention.Mention) (int, bool) {
	if m.Kind != kindNumber || m.Unit != "" || m.Value < 1 || m.Value > 12 || m.Value != float64(int(m.Value)) {
		return 0, false
	}
	pm, ok := meridiem(text, m.End)
	if !ok {
		return 0, false
	}
	h := int(m.Value) % 12
	if pm {
		h += 12
	}
	return h * 60, true
}

// meridiem reads "am", "pm", "a.m." or "p.m." (any case) after optional
// spaces at text[i:], not inside a longer word.
func meridiem(text string, i int) (pm, ok bool) {
	for i < len(text) && text[i] == ' ' {
		i++
	}
	if i+1 >= len(text) {
		return false, false
	}
	c := lowerASCII(text[i])
	if c != 'a' && c != 'p' {
		return false, false
	}
	j := i + 1
	if text[j] == '.' {
		j++
	}
	if j >= len(text) || lowerASCII(text[j]) != 'm' {
		return false, false
	}
	j++
	if j < len(text) && text[j] == '.' {
		j++
	}
	if j < len(text) && isWordByte(text, j) {
		return false, false
	}
	return c == 'p', true
}

// clocks appends the times of day of a text: clock times "H:MM" and the
// "H:M" of records ("8:0-14:0"), and hours with am or pm ("9 pm").
func clocks(text string, vals []value) []value {
	for i := 0; i < len(text); i++ {
		if !isDigit(text[i]) || i > 0 && (isDigit(text[i-1]) || text[i-1] == '.' || text[i-1] == ':') {
			continue
		}
		j := i
		for j < len(text) && isDigit(text[j]) {
			j++
		}
		if j-i > 2 {
			i = j
			continue
		}
		h := atoi2(text[i:j])
		mins, end := -1, j
		switch {
		case j+1 < len(text) && text[j] == ':' && isDigit(text[j+1]):
			k := j + 1
			for k < len(text) && isDigit(text[k]) {
				k++
			}
			if k-j-1 > 2 || k < len(text) && (text[k] == ':' || text[k] == '.' && k+1 < len(text) && isDigit(text[k+1])) {
				i = k
				continue
			}
			m := atoi2(text[j+1 : k])
			if pm, ok := meridiem(text, k); ok && h >= 1 && h <= 12 {
				h = h % 12
				if pm {
					h += 12
				}
			}
			if h <= 24 && m < 60 {
				mins, end = h%24*60+m, k
			}
		case h >= 1 && h <= 12:
			if pm, ok := meridiem(text, j); ok {
				h %= 12
				if pm {
					h += 12
				}
				mins = h * 60
			}
		}
		if mins >= 0 {
			vals = append(vals, value{kind: kindNumber, start: int32(i), end: int32(end), text: text[i:end],
				num: float64(mins), unit: clockUnit, derived: true})
		}
		i = end
	}
	return vals
}

// spelledNumbers are the numbers written out in words, by word.
var spelledNumbers = lex.Named("number-words").Values()

// spelled appends the numbers a text spells out ("thirty", "twenty-one",
// "twenty one"), as numbers, with the unit written after them.
func spelled(text string, vals []value) []value {
	var sc scanner
	sc.text = text
	type word struct {
		start, end int
		n          float64
	}
	var prev word
	for {
		start, end, flags, ok := sc.next()
		if !ok {
			break
		}
		if flags&tkDigit != 0 {
			prev = word{}
			continue
		}
		v, ok := spelledNumbers[strings.ToLower(text[start:end])]
		if !ok || v == "" {
			prev = word{}
			continue
		}
		n := float64(atoi2(v))
		w := word{start, end, n}
		if prev.n >= 20 && int(prev.n)%10 == 0 && n < 10 && start-prev.end == 1 && (text[prev.end] == '-' || text[prev.end] == ' ') {
			// "twenty-one": the tens and the units make one number.
			vals = vals[:len(vals)-1]
			w = word{prev.start, end, prev.n + n}
		}
		vals = append(vals, value{kind: kindNumber, start: int32(w.start), end: int32(w.end), text: text[w.start:w.end],
			num: w.n, unit: unitAfter(text, w.end), derived: true})
		prev = w
	}
	return vals
}
