package claimtext

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/vouchgate/vouch/text/lex"
)

// cleanMarkdown turns text into lines of prose: one line per paragraph,
// bullet, heading or table row, with markers of markdown removed (bullets,
// ordered-list numbers, checkboxes, headings, blockquotes, emphasis
// asterisks) and fenced code blocks left out. Lines of one paragraph that was
// wrapped are joined with a space.
func cleanMarkdown(text string) string {
	var b strings.Builder
	b.Grow(len(text) + 16)
	inFence := false
	open := false // a paragraph is open: a plain next line continues it
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			open = false
			continue
		}
		if inFence {
			continue
		}
		for strings.HasPrefix(t, ">") {
			t = strings.TrimSpace(t[1:])
		}
		if t == "" || isRule(t) {
			open = false
			continue
		}
		block := false
		heading := false
		switch {
		case t[0] == '#':
			t = strings.TrimSpace(strings.TrimLeft(t, "#"))
			block, heading = true, true
		case t[0] == '|':
			if isTableRule(t) {
				open = false
				continue
			}
			block = true
		default:
			if rest, ok := cutBullet(t); ok {
				t = rest
				block = true
			}
		}
		if rest, ok := cutCheckbox(t); ok {
			t = rest
		}
		if open && !block {
			b.WriteByte(' ')
		} else if b.Len() > 0 {
			b.WriteByte('\n')
		}
		writeProse(&b, t)
		open = !heading
	}
	return b.String()
}

// writeProse writes t without emphasis asterisks outside code spans.
func writeProse(b *strings.Builder, t string) {
	if strings.IndexByte(t, '*') < 0 {
		b.WriteString(t)
		return
	}
	code := false
	from := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '`':
			code = !code
		case '*':
			if !code {
				b.WriteString(t[from:i])
				from = i + 1
			}
		}
	}
	b.WriteString(t[from:])
}

// cutBullet removes a list marker: "- ", "* ", "+ ", "• ", "1. ", "1) ".
func cutBullet(t string) (string, bool) {
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && (t[1] == ' ' || t[1] == '\t') {
		return strings.TrimSpace(t[2:]), true
	}
	if strings.HasPrefix(t, "•") {
		return strings.TrimSpace(t[len("•"):]), true
	}
	i := 0
	for i < len(t) && i < 4 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && (t[i+1] == ' ' || t[i+1] == '\t') {
		return strings.TrimSpace(t[i+2:]), true
	}
	return t, false
}

// cutCheckbox removes a task-list checkbox: "[ ] ", "[x] ".
func cutCheckbox(t string) (string, bool) {
	if len(t) >= 4 && t[0] == '[' && t[2] == ']' && (t[1] == ' ' || t[1] == 'x' || t[1] == 'X') && t[3] == ' ' {
		return strings.TrimSpace(t[4:]), true
	}
	return t, false
}

// isRule reports a horizontal rule: "---", "***", "___".
func isRule(t string) bool {
	if len(t) < 3 {
		return false
	}
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '-', '*', '_', '=', ' ':
		default:
			return false
		}
	}
	return true
}

// isTableRule reports the separator row of a markdown table: "|---|:--:|".
func isTableRule(t string) bool {
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '|', '-', ':', ' ':
		default:
			return false
		}
	}
	return true
}

// sentences iterates over the sentences of text cleaned by [cleanMarkdown].
type sentences struct {
	m    lexView
	text string
	pos  int
}

// next returns the next sentence, whether it is a question, and false when
// there are no more. A sentence ends at a line end, or at ., ! or ? followed
// by a space or the end, except a "." after an abbreviation ("e.g. this",
// "vs. that"). Code spans are never split.
func (it *sentences) next() (s string, question, ok bool) {
	for it.pos < len(it.text) {
		t := it.text
		start := it.pos
		code := false
		i := start
		end, resume := len(t), len(t)
		q := false
	scan:
		for ; i < len(t); i++ {
			c := t[i]
			if byteClass[c]&cStop == 0 {
				continue
			}
			switch {
			case c == '`':
				code = !code
			case c == '\n':
				end, resume = i, i+1
				break scan
			case code:
			case c == '.' || c == '!' || c == '?':
				j := i
				for j < len(t) && (t[j] == '.' || t[j] == '!' || t[j] == '?') {
					if t[j] == '?' {
						q = true
					}
					j++
				}
				k := j
				for k < len(t) && (t[k] == '"' || t[k] == '\'' || t[k] == ')') {
					k++
				}
				if k < len(t) && t[k] != ' ' && t[k] != '\t' && t[k] != '\n' {
					q = false
					i = j - 1
					continue
				}
				if c == '.' && j-i == 1 && it.abbreviation(t[start:i]) {
					q = false
					continue
				}
				if c == '.' && i > start && t[i-1] == '/' {
					// "./...", a Go package pattern, ends no sentence.
					q = false
					i = j - 1
					continue
				}
				end, resume = k, k
				break scan
			}
		}
		it.pos = resume
		s = strings.TrimSpace(t[start:end])
		if s != "" {
			return s, q, true
		}
	}
	return "", false, false
}

// abbreviation reports that the text before a dot ends in an abbreviation or
// a single letter ("e.g", "vs", "J").
func (it *sentences) abbreviation(before string) bool {
	w := before
	if i := strings.LastIndexAny(before, " \t(\"'"); i >= 0 {
		w = before[i+1:]
	}
	if len(w) == 1 && (w[0] >= 'a' && w[0] <= 'z' || w[0] >= 'A' && w[0] <= 'Z') {
		return true
	}
	return it.m.lookup(w).has(wAbbrev)
}

// tkind is the shape of a token.
type tkind uint8

const (
	tWord  tkind = iota // a word of letters, maybe with - or ' inside
	tNum                // a whole number: 4, 1,000, four, a dozen
	tIdent              // identifier or path: parse(), Parser.parse, src/a.ts, snake_case
	tCode               // an inline code span; text is its content
	tOther              // a shape that is never a count: v4, 1.2.3, 10-40, 4th, 3x, 85%, #12
	tPunct              // punctuation
)

// token is one token of a sentence.
type token struct {
	start, end int32 // byte offsets in the sentence (for tCode, with the backticks)
	kind       tkind
	punct      byte  // for tPunct: , ; : ( ) [ ] / | + = < > & " ! ? and - for dashes
	call       bool  // written with "()" after it
	camel      bool  // camelCase: a lowercase letter then an uppercase one
	upper      bool  // starts with an uppercase letter
	lower      bool  // has a lowercase letter
	val        int   // for tNum
	ei         int32 // index of its lexicon entry (see ent); 0 for none
}

// ent is the lexicon entry of the token, nil when it has none. Tokens hold an
// index rather than a pointer so that they are free of pointers: moving them
// costs no write barrier and the collector need not scan them.
func (t *token) ent() *lexEntry { return lexByID[t.ei] }

func (t *token) text(s string) string { return s[t.start:t.end] }

// named reports a word written like a name: camelCase, or capitalised with
// lowercase letters (Parser; not JS).
func (t *token) named() bool { return t.camel || t.upper && t.lower }

// is reports a token whose lexicon entry has one of the flags f.
func (t *token) is(f wflag) bool { e := lexByID[t.ei]; return e != nil && e.flags&f != 0 }

// tokenize appends the tokens of sentence s to toks.
func tokenize(m lexView, s string, toks []token) []token {
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '`':
			n := 1
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			fence := s[i : i+n]
			j := strings.Index(s[i+n:], fence)
			if j < 0 {
				i += n
				continue
			}
			t := token{start: int32(i), end: int32(i + n + j + n), kind: tCode}
			if strings.HasSuffix(strings.TrimSpace(s[i+n:i+n+j]), "()") {
				t.call = true
			}
			toks = append(toks, t)
			i += n + j + n
		case isRunByte(c):
			toks, i = appendRun(m, s, i, toks)
		case c >= 0x80:
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == '—' || r == '–':
				toks = append(toks, token{start: int32(i), end: int32(i + size), kind: tPunct, punct: '-'})
				i += size
			case r == '“' || r == '”' || r == '‘':
				toks = append(toks, token{start: int32(i), end: int32(i + size), kind: tPunct, punct: '"'})
				i += size
			case r == '→' || r == '⇒':
				toks = append(toks, token{start: int32(i), end: int32(i + size), kind: tPunct, punct: ':'})
				i += size
			case r == '~' || r == '≈':
				toks = append(toks, token{start: int32(i), end: int32(i + size), kind: tWord, ei: m.lookup(s[i : i+size]).index()})
				i += size
			case unicode.IsLetter(r):
				toks, i = appendRun(m, s, i, toks)
			default:
				i += size
			}
		default:
			switch c {
			case ',', ';', ':', '(', ')', '[', ']', '{', '}', '/', '|', '+', '=', '<', '>', '&', '"', '!', '?':
				toks = append(toks, token{start: int32(i), end: int32(i + 1), kind: tPunct, punct: c})
			case '-':
				toks = append(toks, token{start: int32(i), end: int32(i + 1), kind: tPunct, punct: '-'})
			case '~':
				toks = append(toks, token{start: int32(i), end: int32(i + 1), kind: tWord, ei: m.lookup("~").index()})
			}
			i++
		}
	}
	return toks
}

// Classes of ASCII bytes, for the tokenizer.
const (
	cStart = 1 << iota // can start a word run
	cIn                // can continue a word run
	cDigit
	cIdent // . / _ @ $ # ~: makes a word an identifier or a path
	cPct
	cLower
	cUpper
	cStop // ends a sentence or matters to the sentence splitter: . ! ? ` newline
)

var byteClass = func() (t [256]uint8) {
	for c := 0; c < 128; c++ {
		b := byte(c)
		if b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || strings.IndexByte("_$#@.", b) >= 0 {
			t[c] |= cStart | cIn
		}
		if strings.IndexByte("-/'%~", b) >= 0 {
			t[c] |= cIn
		}
		switch {
		case b >= '0' && b <= '9':
			t[c] |= cDigit
		case b >= 'a' && b <= 'z':
			t[c] |= cLower
		case b >= 'A' && b <= 'Z':
			t[c] |= cUpper
		case strings.IndexByte("./_@$#~", b) >= 0:
			t[c] |= cIdent
		case b == '%':
			t[c] |= cPct
		}
		if strings.IndexByte(".!?`\n", b) >= 0 {
			t[c] |= cStop
		}
	}
	return t
}()

// isRunByte reports an ASCII byte that can start a word run.
func isRunByte(c byte) bool { return byteClass[c]&cStart != 0 }

// inRun reports an ASCII byte that can continue a word run.
func inRun(c byte) bool { return byteClass[c]&cIn != 0 }

// appendRun scans the word run at s[start:], appends its token(s) and
// returns where scanning goes on.
func appendRun(m lexView, s string, start int, toks []token) ([]token, int) {
	i := start
	for i < len(s) {
		c := s[i]
		if c < 0x80 {
			if inRun(c) {
				i++
				continue
			}
			if c == ',' && isThousands(s, start, i) {
				i += 4
				continue
			}
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '’' || lex.IsWordRune(r) {
			i += size
			continue
		}
		break
	}
	end := i
	// Trailing punctuation is not part of the word.
	for end > start {
		if c := s[end-1]; c == '.' || c == '-' || c == '\'' || c == '/' {
			end--
			continue
		}
		if end-start >= 3 && s[end-3:end] == "’" {
			end -= 3
			continue
		}
		break
	}
	if end == start {
		return toks, max(i, start+1)
	}
	next := i
	w := s[start:end]
	t := token{start: int32(start), end: int32(end)}
	if end == i && strings.HasPrefix(s[i:], "()") {
		t.call = true
		next += 2
	}
	classify(m, w, &t)
	if t.kind == tNum && t.val < 0 {
		// n/m: a ratio, as three tokens.
		slash := strings.IndexByte(w, '/')
		toks = append(toks,
			token{start: int32(start), end: int32(start + slash), kind: tNum, val: atoi(w[:slash])},
			token{start: int32(start + slash), end: int32(start + slash + 1), kind: tPunct, punct: '/'},
			token{start: int32(start + slash + 1), end: int32(end), kind: tNum, val: atoi(w[slash+1:])})
		return toks, next
	}
	return append(toks, t), next
}

// isThousands reports a thousands separator at s[i] in the number s[start:i]:
// "1,000".
func isThousands(s string, start, i int) bool {
	if i+3 >= len(s) || !isDigit(s[start]) {
		return false
	}
	for j := start; j < i; j++ {
		if !isDigit(s[j]) && s[j] != ',' {
			return false
		}
	}
	if !isDigit(s[i+1]) || !isDigit(s[i+2]) || !isDigit(s[i+3]) {
		return false
	}
	return i+4 == len(s) || !isDigit(s[i+4])
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// atoi parses digits (and thousands commas), capped at a billion.
func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; isDigit(c) {
			n = n*10 + int(c-'0')
			if n > 1e9 {
				return 1e9
			}
		}
	}
	return n
}

// classify sets the kind of the token for word run w, its value and its
// lexicon entry. A ratio "n/m" is marked with a negative value.
func classify(m lexView, w string, t *token) {
	t.kind = tWord
	if t.call {
		t.kind = tIdent
	}
	c0 := w[0]
	if isDigit(c0) {
		digits, slash, other := 0, 0, 0
		for i := 0; i < len(w); i++ {
			switch c := w[i]; {
			case isDigit(c) || c == ',':
				digits++
			case c == '/':
				slash++
			default:
				other++
			}
		}
		switch {
		case other == 0 && slash == 0:
			t.kind = tNum
			t.val = atoi(w)
		case other == 0 && slash == 1 && w[len(w)-1] != '/':
			t.kind = tNum
			t.val = -1
		default:
			t.kind = tOther
		}
		return
	}
	if (c0 == 'v' || c0 == 'V') && len(w) > 1 && isDigit(w[1]) {
		t.kind = tOther
		return
	}
	if c0 == '#' || c0 == '$' && len(w) > 1 && isDigit(w[1]) {
		t.kind = tOther
		return
	}
	var seen uint8
	lowerSeen := false
	h := hashInit
	for i := 0; i < len(w); i++ {
		c := w[i]
		cl := byteClass[c]
		seen |= cl
		switch {
		case cl&cLower != 0:
			lowerSeen = true
		case cl&cUpper != 0:
			if i == 0 {
				t.upper = true
			} else if lowerSeen && byteClass[w[i-1]]&cLower != 0 {
				t.camel = true
			}
			c += 'a' - 'A'
		case c == 0xE2 && i+2 < len(w) && w[i+1] == 0x80 && w[i+2] == 0x99:
			c = '\''
			i += 2
		}
		h = hashFold(h, c)
	}
	hasDigit, ident, pct := seen&cDigit != 0, seen&cIdent != 0, seen&cPct != 0
	switch {
	case pct:
		t.kind = tOther
		return
	}
	t.lower = lowerSeen
	switch {
	case ident:
		if e := m.lookup(w); e.has(wAbbrev) {
			t.kind = tWord // "e.g"
			t.ei = e.index()
			return
		}
		t.kind = tIdent
		return
	case hasDigit:
		t.kind = tOther
		return
	}
	if t.call {
		return
	}
	if len(w) <= 48 {
		t.ei = m.find(w, h).index()
	}
	if t.ent() == nil && strings.IndexByte(w, '-') > 0 {
		// twenty-one
		a, b, _ := strings.Cut(w, "-")
		ea, eb := m.lookup(a), m.lookup(b)
		if ea.has(wNumber) && eb.has(wNumber) && ea.num >= 20 && ea.num%10 == 0 && eb.num < 10 {
			t.kind = tNum
			t.val = ea.num + eb.num
			return
		}
	}
	if t.ent().has(wNumber) && t.ent().verb == "" {
		t.kind = tNum
		t.val = t.ent().num
	}
}

// applyPhrases merges the multi-word phrases of [phraseTable] into single
// tokens, in place.
func applyPhrases(s string, toks []token) []token {
	out := toks[:0]
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.ent() != nil && len(t.ent().phrases) > 0 {
			for _, p := range t.ent().phrases {
				if i+len(p.rest) >= len(toks) {
					continue
				}
				ok := true
				for j, w := range p.rest {
					u := &toks[i+1+j]
					if (u.kind != tWord && u.kind != tNum) || !equalWord(u.text(s), w) {
						ok = false
						break
					}
				}
				if ok {
					last := toks[i+len(p.rest)]
					t.end = last.end
					t.ei = p.entry.index()
					t.kind = tWord
					if p.entry.flags&wNumber != 0 {
						t.kind = tNum
						t.val = p.entry.num
					}
					i += len(p.rest)
					break
				}
			}
		}
		out = append(out, t)
	}
	return out
}
