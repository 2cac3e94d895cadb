package mention

import (
	"strings"
	"unicode/utf8"
)

// spanKind is what a sentence span holds.
type spanKind uint8

const (
	spanProse   spanKind = iota
	spanHeading          // a Markdown heading: no entities are read in it
	spanTable            // a table row: every cell opens a clause
	spanCode             // a fenced code block: nothing is read in it
)

// Sentences splits text into sentences, coping with Markdown:
//
//   - A heading, a list item (bullet or numbered, with or without a task
//     checkbox) and a table row are sentences of their own, or several when
//     they hold several; blank lines, horizontal rules and block quote
//     boundaries end a paragraph. Lines of one paragraph are joined.
//   - A sentence ends at ".", "!" or "?" (and any closing quotes, brackets or
//     emphasis after it) followed by a space or the end of its block. A dot
//     in a number ("3.14"), a file name ("parser.ts"), a version ("v1.2.3"),
//     a URL or an inline code span ends nothing; neither does the dot of an
//     abbreviation ("e.g.", "i.e.", "vs.", "Dr.", "U.S."), of an initial
//     ("J. K. Rowling"), or a dot followed by a lower-case word.
//   - A fenced code block (``` or ~~~) is one span, from its opening fence to
//     its closing one (or the end of the text when it is not closed).
//
// List markers, heading marks, checkboxes and the outer pipes of a table row
// are not part of the span; spans hold no leading or trailing white space.
// Spans are in order and do not overlap.
func Sentences(text string) []Span {
	var sp splitter
	sp.run(text)
	return sp.spans
}

// splitter splits a text into spans of sentences.
type splitter struct {
	text  string
	spans []Span
	kinds []spanKind
	bs    int // open paragraph, -1 when none
	be    int
}

func (sp *splitter) run(text string) {
	sp.text = text
	sp.bs = -1
	if sp.spans == nil {
		sp.spans = make([]Span, 0, len(text)/60+4)
		sp.kinds = make([]spanKind, 0, len(text)/60+4)
	}
	inFence := false
	var fenceChar byte
	fenceLen, fenceStart := 0, 0
	pos := 0
	for pos < len(text) {
		ls := pos
		le := strings.IndexByte(text[pos:], '\n')
		if le < 0 {
			le, pos = len(text), len(text)
		} else {
			le += pos
			pos = le + 1
		}
		c := ls
		for c < le && (text[c] == ' ' || text[c] == '\t') {
			c++
		}
		e := le
		for e > c && (text[e-1] == ' ' || text[e-1] == '\t' || text[e-1] == '\r') {
			e--
		}
		if inFence {
			if n := fenceRun(text[c:e], fenceChar); n >= fenceLen && strings.TrimSpace(text[c+n:e]) == "" {
				sp.add(fenceStart, e, spanCode)
				inFence = false
			}
			continue
		}
		// Block quote markers.
		q := c
		for q < e && text[q] == '>' {
			q++
			for q < e && (text[q] == ' ' || text[q] == '\t') {
				q++
			}
		}
		if q > c {
			if sp.bs >= 0 && q == e {
				sp.flush()
			}
			c = q
		}
		t := text[c:e]
		if t == "" {
			sp.flush()
			continue
		}
		if t[0] == '`' || t[0] == '~' {
			if n := fenceRun(t, t[0]); n >= 3 && (t[0] == '~' || strings.IndexByte(t[n:], '`') < 0) {
				sp.flush()
				inFence, fenceChar, fenceLen, fenceStart = true, t[0], n, c
				continue
			}
		}
		if isRule(t) {
			sp.flush()
			continue
		}
		if h := headingMark(t); h > 0 {
			sp.flush()
			he := e
			for he > c+h && text[he-1] == '#' {
				he--
			}
			if he < e && he > c+h && text[he-1] != ' ' {
				he = e // "# C#": no closing sequence
			}
			sp.add(c+h, he, spanHeading)
			continue
		}
		if t[0] == '|' {
			sp.flush()
			if !isTableRule(t) {
				a, b := c, e
				for a < b && (text[a] == '|' || text[a] == ' ' || text[a] == '\t') {
					a++
				}
				for b > a && (text[b-1] == '|' || text[b-1] == ' ' || text[b-1] == '\t') {
					b--
				}
				sp.add(a, b, spanTable)
			}
			continue
		}
		if n := listMarker(t); n > 0 {
			sp.flush()
			c += n
			if m := checkbox(text[c:e]); m > 0 {
				c += m
			}
			if c < e {
				sp.bs, sp.be = c, e
			}
			continue
		}
		if sp.bs < 0 {
			sp.bs = c
		}
		sp.be = e
	}
	if inFence {
		e := len(text)
		for e > fenceStart && isSpace(text[e-1]) {
			e--
		}
		sp.add(fenceStart, e, spanCode)
	}
	sp.flush()
}

// fenceRun is the number of fence characters c that t starts with.
func fenceRun(t string, c byte) int {
	n := 0
	for n < len(t) && t[n] == c {
		n++
	}
	return n
}

// headingMark is the length of an ATX heading's mark with its space ("## "),
// or 0.
func headingMark(t string) int {
	n := 0
	for n < len(t) && n < 7 && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 {
		return 0
	}
	if n == len(t) {
		return n
	}
	if t[n] != ' ' && t[n] != '\t' {
		return 0
	}
	for n < len(t) && (t[n] == ' ' || t[n] == '\t') {
		n++
	}
	return n
}

// listMarker is the length of a list marker with its space ("- ", "12. ",
// "3) ", "• "), or 0.
func listMarker(t string) int {
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && (t[1] == ' ' || t[1] == '\t') {
		return skipSpace(t, 2)
	}
	if strings.HasPrefix(t, "•") {
		return skipSpace(t, len("•"))
	}
	i := 0
	for i < len(t) && i < 9 && isDigit(t[i]) {
		i++
	}
	if i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && (t[i+1] == ' ' || t[i+1] == '\t') {
		return skipSpace(t, i+2)
	}
	return 0
}

func skipSpace(t string, i int) int {
	for i < len(t) && (t[i] == ' ' || t[i] == '\t') {
		i++
	}
	return i
}

// checkbox is the length of a task-list checkbox with its space ("[x] "), or
// 0.
func checkbox(t string) int {
	if len(t) >= 4 && t[0] == '[' && t[2] == ']' && (t[1] == ' ' || t[1] == 'x' || t[1] == 'X') && t[3] == ' ' {
		return skipSpace(t, 4)
	}
	return 0
}

// isRule reports a horizontal rule or a setext underline: "---", "***",
// "___", "===".
func isRule(t string) bool {
	if len(t) < 3 {
		return false
	}
	var c byte
	n := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case ' ', '\t':
		case '-', '*', '_', '=':
			if c != 0 && t[i] != c {
				return false
			}
			c = t[i]
			n++
		default:
			return false
		}
	}
	return n >= 3
}

// isTableRule reports the separator row of a table: "|---|:--:|".
func isTableRule(t string) bool {
	dash := false
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '-':
			dash = true
		case '|', ':', ' ', '\t':
		default:
			return false
		}
	}
	return dash
}

// flush splits the open paragraph into sentences.
func (sp *splitter) flush() {
	if sp.bs < 0 {
		return
	}
	bs, be := sp.bs, sp.be
	sp.bs = -1
	text := sp.text
	start := bs
	for i := bs; i < be; {
		c := text[i]
		if !splitByte[c] {
			i++
			continue
		}
		switch {
		case c == '`':
			n := fenceRun(text[i:be], '`')
			if j := closeTicks(text[i+n:be], n); j >= 0 {
				i += n + j + n
			} else {
				i += n
			}
			continue
		case (c == 'h' || c == 'H') && (i == bs || !isAlnum(text[i-1])):
			if n := urlPrefix(text[i:be]); n > 0 {
				i = urlEnd(text, i, be)
				continue
			}
		case c == '.' || c == '!' || c == '?':
			j := i
			for j < be && (text[j] == '.' || text[j] == '!' || text[j] == '?') {
				j++
			}
			k := j
			for k < be {
				switch {
				case strings.IndexByte(")]\"'*_", text[k]) >= 0:
					k++
					continue
				case strings.HasPrefix(text[k:be], "”") || strings.HasPrefix(text[k:be], "’"):
					k += 3
					continue
				}
				break
			}
			if k < be && !isSpace(text[k]) {
				i = j
				continue
			}
			if sp.holds(bs, i, j, k, be) {
				i = j
				continue
			}
			sp.add(start, k, spanProse)
			start = k
			i = k
			continue
		}
		i++
	}
	sp.add(start, be, spanProse)
}

// splitByte marks the bytes the sentence splitter looks at.
var splitByte = func() (t [256]bool) {
	for _, c := range []byte("`hH.!?") {
		t[c] = true
	}
	return t
}()

// holds reports that the terminator text[i:j] (with closers up to k) does not
// end a sentence: an abbreviation, an initial, or a lower-case word after it.
func (sp *splitter) holds(bs, i, j, k, be int) bool {
	text := sp.text
	n := k
	for n < be && isSpace(text[n]) {
		n++
	}
	if n >= be {
		return false
	}
	next := text[n]
	lowerNext := next >= 'a' && next <= 'z'
	if lowerNext && (j-i > 1 || text[i] == '.') {
		return true
	}
	if text[i] != '.' || j-i != 1 {
		return false
	}
	w := i
	for w > bs && !isSpace(text[w-1]) && strings.IndexByte("(\"'[*_", text[w-1]) < 0 {
		w--
	}
	word := text[w:i]
	if word == "" {
		return false
	}
	if len(word) == 1 {
		return isUpper(word[0]) && sp.initialHolds(bs, w, n, be)
	}
	info := lookup(word)
	if !info.has(lAbbrev) && !(info.has(lTitle) && isUpper(word[0])) {
		return false
	}
	if next >= 'A' && next <= 'Z' {
		// "etc." and month abbreviations end a sentence before a capital;
		// titles and Latin abbreviations do not.
		switch strings.ToLower(word) {
		case "etc", "al", "incl", "approx", "esp", "resp":
			return false
		}
	}
	return true
}

// initialHolds reports that the capital letter at text[w] with its dot is
// an initial inside a name ("J. K. Rowling", "John F. Kennedy"), not the
// end of a sentence ("I chose Option A. Then"): the word before it, if any,
// is a name or an initial, and the word after it is one too.
func (sp *splitter) initialHolds(bs, w, n, be int) bool {
	text := sp.text
	e := n
	for e < be && !isSpace(text[e]) && text[e] != '.' && text[e] != ',' {
		e++
	}
	next := text[n:e]
	if len(next) > 1 && (!isUpper(next[0]) || lookup(next).has(lStop|lCommon|lVerb)) {
		return false
	}
	p := w
	for p > bs && isSpace(text[p-1]) {
		p--
	}
	if p == w || p == bs {
		return true
	}
	a := p
	for a > bs && !isSpace(text[a-1]) {
		a--
	}
	prev := strings.TrimSuffix(text[a:p], ".")
	if len(prev) == 1 {
		return isUpper(prev[0])
	}
	return prev != "" && isUpper(prev[0]) && !lookup(prev).has(lStop|lCommon|lVerb)
}

// closeTicks finds the closing run of exactly n backticks in s, or -1.
func closeTicks(s string, n int) int {
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '`')
		if j < 0 {
			return -1
		}
		j += i
		m := fenceRun(s[j:], '`')
		if m == n {
			return j
		}
		i = j + m
	}
	return -1
}

// urlPrefix is the length of "http://" or "https://" at the start of s, any
// case, or 0.
func urlPrefix(s string) int {
	if len(s) >= 8 && strings.EqualFold(s[:8], "https://") {
		return 8
	}
	if len(s) >= 7 && strings.EqualFold(s[:7], "http://") {
		return 7
	}
	return 0
}

// add appends the span text[s:e] without its surrounding white space.
func (sp *splitter) add(s, e int, k spanKind) {
	for s < e && (isSpace(sp.text[s]) || sp.text[s] == '>' && k == spanProse) {
		s++
	}
	for e > s && isSpace(sp.text[e-1]) {
		e--
	}
	if s >= e {
		return
	}
	sp.spans = append(sp.spans, Span{Start: s, End: e, Text: sp.text[s:e]})
	sp.kinds = append(sp.kinds, k)
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isAlnum(c byte) bool { return isDigit(c) || isLetter(c) }

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }

// firstRune is the first rune of s.
func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}
