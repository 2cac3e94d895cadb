package support

import (
	"strings"

	"github.com/vouchgate/vouch/text/mention"
)

// derive appends the values a prose source implies without writing them,
// so that a claim restating them in one figure is supported:
//
//   - a duration written in hours and minutes ("2 h 50 min", "1 hour 5
//     minutes") is also the one duration in minutes (170);
//   - two clock times in one sentence ("started at 14:02 and stopped at
//     14:16", "from 10:05 to 10:47") imply the minutes between them (14).
//
// Derived values only support claims; they are never contradicted, nor do
// they contradict.
func derive(text string, sentences []mention.Span, vals []value) []value {
	n := len(vals)
	for i := 0; i+1 < n; i++ {
		a, b := &vals[i], &vals[i+1]
		if a.kind != kindNumber || b.kind != kindNumber {
			continue
		}
		hours, ok := wordAt(text, int(a.end), hourWords)
		if !ok || strings.TrimSpace(text[hours:b.start]) != "" {
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
