package mention

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/text/claimtext"
	"github.com/vouchgate/vouch/text/lex"
)

// Parse returns the sentences of text (see [Sentences]) and what they
// mention, in order of Start; one stretch of text gives at most one mention.
// Nothing is read inside a fenced code block. Parse is safe for concurrent
// use.
func Parse(text string) *Doc {
	p := parserPool.Get().(*parser)
	defer p.release()
	p.text = text
	p.split.spans = p.split.spans[:0]
	p.split.kinds = p.split.kinds[:0]
	p.split.run(text)
	p.ms = p.ms[:0]
	for i, sp := range p.split.spans {
		if k := p.split.kinds[i]; k != spanCode {
			p.sentence(i, sp.Start, sp.End, k)
		}
	}
	doc := &Doc{Text: text, Sentences: slices.Clone(p.split.spans)}
	if len(p.ms) > 0 {
		doc.Mentions = slices.Clone(p.ms)
		if !slices.IsSortedFunc(doc.Mentions, byStart) {
			slices.SortStableFunc(doc.Mentions, byStart)
		}
	}
	return doc
}

func byStart(a, b Mention) int { return a.Start - b.Start }

// tkind is the kind of a token.
type tkind uint8

const (
	tkRun  tkind = iota // a run of word characters: a word, a number, a path
	tkCode              // an inline code span, with its backticks
	tkURL               // an http(s) URL
)

// tok is a token of a sentence.
type tok struct {
	s, e  int // byte offsets in the text
	k     tkind
	gap   byte   // 0 at the sentence start, ' ' after spaces only, else the first mark between the token and the one before
	call  bool   // "()" follows
	args  bool   // "(" follows, with arguments
	poss  bool   // an "'s" was cut off
	lab   bool   // a number read as a label ("task 1"), or a date's year
	date  bool   // read as a date
	shape uint8  // the byte classes the run holds (shIdent...)
	noun  int8   // 1: a noun of a count class, -1: not, 0: not known yet
	wi    *winfo // what the lexicon knows of the word, once looked up
}

// Byte classes of a run, for tok.shape.
const (
	shIdent = 1 << iota // one of identChars
	shUpper
	shWide // a byte beyond ASCII
	shRun  // in runClass only: the byte belongs to a run
)

var shapeByte = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case c >= utf8.RuneSelf:
			t[c] = shWide
		case strings.IndexByte(identChars, byte(c)) >= 0:
			t[c] = shIdent
		case c >= 'A' && c <= 'Z':
			t[c] = shUpper
		}
	}
	return t
}()

// runClass is, for an ASCII byte a run holds, its shape bits and shRun.
var runClass = func() (t [128]uint8) {
	for c := 0; c < 128; c++ {
		if runBytes[c] {
			t[c] = shapeByte[c] | shRun
		}
	}
	return t
}()

// shapeOf is the set of byte classes of w.
func shapeOf(w string) uint8 {
	var sh uint8
	for i := 0; i < len(w); i++ {
		sh |= shapeByte[w[i]]
	}
	return sh
}

// info is what the lexicon knows of the word of token i, looked up once.
func (p *parser) info(i int) *winfo {
	t := &p.toks[i]
	if t.wi == nil {
		t.wi = lookup(p.text[t.s:t.e])
	}
	return t.wi
}

// parser holds the state of one Parse. Parsers are pooled.
type parser struct {
	text    string
	split   splitter
	toks    []tok
	ms      []Mention
	sent    int
	ss, se  int // the current sentence
	heading bool
}

var parserPool = sync.Pool{New: func() any {
	return &parser{toks: make([]tok, 0, 128), ms: make([]Mention, 0, 64)}
}}

func (p *parser) release() {
	p.text = ""
	p.split.text = ""
	for i := range p.split.spans {
		p.split.spans[i].Text = ""
	}
	for i := range p.ms {
		p.ms[i] = Mention{}
	}

	parserPool.Put(p)
}

// add records a mention of text[s:e], unless it overlaps the one before.
func (p *parser) add(k Kind, s, e int, norm string) *Mention {
	if s >= e || s < p.ss || e > p.se {
		return nil
	}
	if n := len(p.ms); n > 0 && p.ms[n-1].End > s {
		return nil
	}
	p.ms = append(p.ms, Mention{Kind: k, Text: p.text[s:e], Norm: norm, Start: s, End: e, Sentence: p.sent})
	return &p.ms[len(p.ms)-1]
}

// sentence reads the mentions of one sentence.
func (p *parser) sentence(idx, ss, se int, k spanKind) {
	p.sent, p.ss, p.se = idx, ss, se
	p.heading = k == spanHeading
	p.tokenize(ss, se)
	for i := 0; i < len(p.toks); {
		n := p.token(i)
		if n <= i {
			n = i + 1
		}
		i = n
	}
}

// tokenize splits text[ss:se] into p.toks.
func (p *parser) tokenize(ss, se int) {
	text := p.text
	toks := p.toks[:0]
	prev := ss
	i := ss
	for i < se {
		c := text[i]
		if c < utf8.RuneSelf {
			switch {
			case isSpace(c):
				i++
				continue
			case c == '`':
				n := fenceRun(text[i:se], '`')
				if j := closeTicks(text[i+n:se], n); j >= 0 {
					e := i + n + j + n
					toks = append(toks, tok{s: i, e: e, k: tkCode, gap: gapOf(text, prev, i, len(toks) == 0)})
					i, prev = e, e
				} else {
					i += n
				}
				continue
			case (c == 'h' || c == 'H') && (i == ss || !isAlnum(text[i-1])) && urlPrefix(text[i:se]) > 0:
				e := urlEnd(text, i, se)
				if e > i+urlPrefix(text[i:se]) {
					toks = append(toks, tok{s: i, e: e, k: tkURL, gap: gapOf(text, prev, i, len(toks) == 0)})
					prev = e
				}
				i = max(e, i+1)
				continue
			case !startByte[c] && !runStart(text, i, se):
				i++
				continue
			}
		} else {
			r, size := utf8.DecodeRuneInString(text[i:se])
			if !unicode.IsLetter(r) && !(isCurrencyRune(r) && i+size < se && isDigit(text[i+size])) {
				i += size
				continue
			}
		}
		j, shape := scanRun(text, i, se)
		s, e, poss := trimRun(text, i, j)
		if s != i || e != j {
			shape = shapeOf(text[s:e])
		}
		if s >= e {
			i = max(j, i+1)
			continue
		}
		var gap byte
		switch {
		case len(toks) == 0:
		case prev == s-1 && text[prev] == ' ':
			gap = ' '
		default:
			gap = gapOf(text, prev, s, false)
		}
		t := tok{s: s, e: e, k: tkRun, gap: gap, poss: poss, shape: shape}
		end := e
		if e == j {
			if e+1 < se && text[e] == '(' && text[e+1] == ')' {
				t.call = true
				end = e + 2
			} else if e < se && text[e] == '(' && !strings.HasPrefix(text[e:se], "(s)") && !strings.HasPrefix(text[e:se], "(es)") {
				t.args = true
			}
		}
		toks = append(toks, t)
		prev = end
		i = max(j, end)
	}
	p.toks = toks
}

// identByte marks identChars.
var identByte = func() (t [256]bool) {
	for i := 0; i < len(identChars); i++ {
		t[identChars[i]] = true
	}
	return t
}()

// hasIdentChar reports whether w holds one of identChars.
func hasIdentChar(w string) bool {
	for i := 0; i < len(w); i++ {
		if identByte[w[i]] {
			return true
		}
	}
	return false
}

// runBytes are the ASCII bytes a run holds.
var runBytes = func() (t [128]bool) {
	for c := 0; c < 128; c++ {
		b := byte(c)
		t[c] = isAlnum(b) || strings.IndexByte("_$@.#/-:'%~", b) >= 0
	}
	return t
}()

// startByte marks the ASCII bytes that always start a run.
var startByte = func() (t [256]bool) {
	for c := 0; c < 128; c++ {
		b := byte(c)
		t[c] = isAlnum(b) || strings.IndexByte("_$@.#/", b) >= 0
	}
	return t
}()

// runStart reports whether a run starts at text[i].
func runStart(text string, i, se int) bool {
	c := text[i]
	switch {
	case startByte[c]:
		return true
	case c == '-':
		return i+1 < se && isDigit(text[i+1]) && (i == 0 || !isAlnum(text[i-1]))
	case c == '~':
		return i+1 < se && text[i+1] == '/'
	}
	return false
}

// scanRun returns the end of the run starting at text[i] and the byte
// classes it holds.
func scanRun(text string, i, se int) (int, uint8) {
	j := i
	var sh uint8
	if text[i] >= utf8.RuneSelf {
		if r, size := utf8.DecodeRuneInString(text[i:se]); isCurrencyRune(r) {
			j += size
			sh = shWide
		}
	}
	for j < se {
		c := text[j]
		if c < utf8.RuneSelf {
			if c == '.' && gluedSentence(text, i, j, se) {
				break
			}
			if rc := runClass[c]; rc != 0 {
				sh |= rc
				j++
				continue
			}
			if c == ',' && isThousands(text, i, j, 1, se) {
				j++
				continue
			}
			break
		}
		r, size := utf8.DecodeRuneInString(text[j:se])
		if (r == '\u00a0' || r == '\u202f' || r == '\u2009') && isThousands(text, i, j, size, se) {
			j += size // "1 500" with a no-break or thin space
			continue
		}
		if lex.IsWordRune(r) || unicode.Is(unicode.Mn, r) || r == '’' ||
			(r == '×' || r == '°' || r == '℃' || r == '℉') && j > i && isDigit(text[j-1]) ||
			r == '°' && j > i {
			sh |= shWide
			j += size
			continue
		}
		break
	}
	return j, sh &^ shRun
}

// gluedSentence reports whether the period at text[j], in the run that
// starts at text[i], ends a sentence the next one is glued to without a
// space, as text scraped from web pages often is: after a number ("since
// Jan. 18.Japan's index", "rose 5.4%.The") and before a capitalised word.
func gluedSentence(text string, i, j, se int) bool {
	return j > i && (isDigit(text[j-1]) || text[j-1] == '%') && j+2 < se && isUpper(text[j+1]) && isLower(text[j+2])
}

// isThousands reports a thousands separator of size bytes at text[j] in the
// number run text[i:j]: three digits follow it, then no digit.
func isThousands(text string, i, j, size, se int) bool {
	k := j + size
	return j > i && isDigit(text[j-1]) && k+2 < se && isDigit(text[k]) && isDigit(text[k+1]) && isDigit(text[k+2]) &&
		(k+3 >= se || !isDigit(text[k+3])) && numberSoFar(text, i, j)
}

// numberSoFar reports that text[i:j] is so far a number with thousands
// separators, maybe after a sign or currency.
func numberSoFar(text string, i, j int) bool {
	for k := j - 1; k >= i; k-- {
		c := text[k]
		if isDigit(c) || c == ',' {
			continue
		}
		return k == i && (c == '$' || c == '-') || c >= utf8.RuneSelf
	}
	return true
}

// trimRun cuts trailing punctuation, a possessive "'s" and leading quotes
// from the run text[s:e].
func trimRun(text string, s, e int) (int, int, bool) {
	if c := text[e-1]; (isLower(c) && c != 's' || isDigit(c) || isUpper(c)) && text[s] != '\'' && text[s] != '.' {
		return s, e, false
	}
	for s < e && (text[s] == '\'' || text[s] == '.' && e-s > 1 && text[s+1] == '.' && !(e-s > 2 && text[s+2] == '/')) {
		s++
	}
	poss := false
	for e > s {
		c := text[e-1]
		if c == '.' && e-s > 4 && text[e-4:e] == "/..." {
			break // a Go package pattern: "./mention/..."
		}
		if trailByte[c] {
			e--
			continue
		}
		if e-s >= 3 && text[e-3:e] == "’" {
			e -= 3
			continue
		}
		if !poss && e-s > 2 && c == 's' {
			if text[e-2] == '\'' {
				e -= 2
				poss = true
				continue
			}
			if e-s > 4 && text[e-4:e] == "’s" {
				e -= 4
				poss = true
				continue
			}
		}
		break
	}
	return s, e, poss
}

// trailByte marks the bytes cut from the end of a run.
var trailByte = func() (t [256]bool) {
	for _, c := range []byte(".:-',#@~") {
		t[c] = true
	}
	return t
}()

// gapOf summarises the text between two tokens: 0 at the start of a
// sentence, ' ' for white space only, else its first mark (dashes as '-',
// quotes as '"', arrows as '>').
func gapOf(text string, from, to int, first bool) byte {
	if first {
		return 0
	}
	for i := from; i < to; {
		c := text[i]
		if c < utf8.RuneSelf {
			if !isSpace(c) && c != '*' && c != '_' && c != '~' {
				return c
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:to])
		switch r {
		case '—', '–', '−':
			return '-'
		case '“', '”', '‘', '’', '«', '»':
			return '"'
		case '→', '⇒', '←':
			return '>'
		case '\u00a0', '\u2009', '\u202f':
			i += size
			continue
		}
		return '.'
	}
	return ' '
}

// urlEnd returns the end of the URL that starts at text[i]: at white space,
// a quote, a backtick or an angle bracket, without trailing punctuation or
// an unbalanced closing bracket.
func urlEnd(text string, i, se int) int {
	j := i
	for j < se {
		c := text[j]
		if isSpace(c) || c == '<' || c == '>' || c == '"' || c == '`' || c == '|' {
			break
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(text[j:se])
			if unicode.IsSpace(r) || r == '“' || r == '”' || r == '’' || r == '«' || r == '»' {
				break
			}
			j += size
			continue
		}
		j++
	}
	for j > i {
		c := text[j-1]
		switch {
		case strings.IndexByte(".,;:!?'*_", c) >= 0:
			j--
			continue
		case c == ')' && strings.Count(text[i:j], "(") < strings.Count(text[i:j], ")"),
			c == ']' && strings.Count(text[i:j], "[") < strings.Count(text[i:j], "]"),
			c == '}' && strings.Count(text[i:j], "{") < strings.Count(text[i:j], "}"):
			j--
			continue
		}
		break
	}
	return j
}

// urlNorm is a URL with its scheme and host in lower case, without a
// fragment or a trailing slash.
func urlNorm(u string) string {
	if i := strings.IndexByte(u, '#'); i >= 0 {
		u = u[:i]
	}
	u = strings.TrimRight(u, "/")
	n := urlPrefix(u)
	host := u[n:]
	if i := strings.IndexAny(host, "/?"); i >= 0 {
		host = host[:i]
	}
	head := u[:n+len(host)]
	if head == strings.ToLower(head) {
		return u
	}
	return strings.ToLower(head) + u[n+len(host):]
}

// word returns the text of token i.
func (p *parser) word(i int) string { t := &p.toks[i]; return p.text[t.s:t.e] }

// isRun reports a run token i right after the one before with spaces only
// (or one of the gaps given).
func (p *parser) next(i int, gaps string) bool {
	if i >= len(p.toks) || p.toks[i].k != tkRun {
		return false
	}
	g := p.toks[i].gap
	return g == ' ' || g != 0 && strings.IndexByte(gaps, g) >= 0
}

// initial reports a token that opens its clause: the first of the sentence,
// or after a colon, a pipe, an opening bracket or quote, or a dash.
func (p *parser) initial(i int) bool {
	t := &p.toks[i]
	switch t.gap {
	case 0, ':', '|', '(', '[', '"', '-', '>', ';':
		return true
	}
	// An emphasised phrase is read like a label: "*Error Handling*".
	return t.s > p.ss && (p.text[t.s-1] == '*' || p.text[t.s-1] == '_')
}

// token reads token i and returns the index of the next token to read.
func (p *parser) token(i int) int {
	t := &p.toks[i]
	switch t.k {
	case tkURL:
		u := p.text[t.s:t.e]
		p.add(vouch.MentionURL, t.s, t.e, urlNorm(u))
		return i + 1
	case tkCode:
		p.code(i)
		return i + 1
	}
	w := p.text[t.s:t.e]
	if c := w[0]; (isDigit(c) || c == '-' || c == '$' || c >= utf8.RuneSelf) && startsNumber(w) {
		return p.number(i, -1, "")
	}
	if t.shape&shIdent != 0 {
		return p.ident(i)
	}
	return p.plain(i)
}

// ident reads a run with a dot, slash, underscore or other identifier mark:
// a file, a package or a symbol.
func (p *parser) ident(i int) int {
	t := &p.toks[i]
	w := p.text[t.s:t.e]
	off := 0
	if len(w) > 2 && w[0] == '_' && w[len(w)-1] == '_' && w[1] != '_' {
		// _emphasis_
		w, off = w[1:len(w)-1], 1
		if !hasIdentChar(w) {
			return i + 1
		}
	}
	c := classifyIdent(w, false)
	if c.kind == "" {
		if t.call || t.args {
			if name := strings.TrimRight(w, "!?"); isDotted(name) {
				p.symbol(i, t.s+off, t.s+off+len(w))
			}
			return i + 1
		}
		if p.packageContext(i) && isPkgName(w) {
			p.add(vouch.MentionPackage, t.s, t.e, w)
		}
		return i + 1
	}
	if c.kind == vouch.MentionSymbol && (t.call || t.args) {
		p.symbol(i, t.s+off+c.a, t.s+off+c.b)
		return i + 1
	}
	if m := p.add(c.kind, t.s+off+c.a, t.s+off+c.b, c.norm); m != nil {
		m.Line = c.line
	}
	return i + 1
}

// isDotted reports identifiers joined by dots: "obj.method".
func isDotted(s string) bool {
	for seg := range strings.SplitSeq(s, ".") {
		if !isIdent(seg) {
			return false
		}
	}
	return s != ""
}

// symbol records the symbol text[s:e] of token i, with "()" when written.
func (p *parser) symbol(i, s, e int) {
	t := &p.toks[i]
	norm := p.text[s:e]
	if t.call && e == t.e {
		e += 2
	}
	p.add(vouch.MentionSymbol, s, e, norm)
}

// packageContext reports a name between "the" and a package word: "the
// lodash package".
func (p *parser) packageContext(i int) bool {
	if i == 0 || p.toks[i].gap != ' ' || p.toks[i-1].k != tkRun || !strings.EqualFold(p.word(i-1), "the") {
		return false
	}
	return p.pkgWordAt(i + 1)
}

// pkgWordAt reports a package word at token i that ends its noun phrase:
// "the lodash package is", not "the full module paths".
func (p *parser) pkgWordAt(i int) bool {
	if !p.next(i, "") || !p.info(i).has(lPkgWord) {
		return false
	}
	if !p.next(i+1, "") {
		return true
	}
	return p.info(i+1).has(lStop|lVerb) || verbish(p.word(i+1))
}

// plain reads a run of letters (and digits, hyphens, apostrophes).
func (p *parser) plain(i int) int {
	t := &p.toks[i]
	w := p.text[t.s:t.e]
	if t.call || t.args {
		// "parse()", "parse(input)"; not "O(n)", "f(x)".
		if len(w) > 1 && isIdent(w) && (t.call || !lookup(w).has(lKeyword)) {
			p.symbol(i, t.s, t.e)
		}
		return i + 1
	}
	if t.shape == 0 && !mayMatter(w) {
		// The common case: a word in lower case that starts no count,
		// amount, install command or import.
		if p.packageContext(i) && isPkgName(w) && !p.info(i).has(lNotPkg|lStop) {
			p.add(vouch.MentionPackage, t.s, t.e, w)
		}
		return i + 1
	}
	info := p.info(i)
	up := unicode.IsUpper(firstRune(w))
	switch {
	case info.has(lMonth) && up:
		return p.monthDate(i, int(info.month))
	case info.has(lDay) && up:
		return i + 1
	case len(w) == 2 && (w[0] == 'Q' || w[0] == 'q') && w[1] >= '1' && w[1] <= '4':
		if p.next(i+1, "") && isYearStr(p.word(i+1)) {
			y := i + 1
			p.add(vouch.MentionDate, t.s, p.toks[y].e, p.word(y)+"-Q"+w[1:])
			p.toks[y].date = true
			return y + 1
		}
		return i + 1
	case info.has(lCurrency) && allUpper(w) && p.next(i+1, "") && startsNumber(p.word(i+1)):
		return p.number(i+1, t.s, info.s)
	case up && info.has(lBareFile) && bareFiles[w]:
		p.add(vouch.MentionFile, t.s, t.e, w)
		return i + 1
	}
	if info.has(lCount) || (w == "a" || strings.EqualFold(w, "half") || strings.EqualFold(w, "two")) && p.next(i+1, "") && strings.EqualFold(p.word(i+1), "dozen") {
		if n, ok := p.quantity(i); ok {
			return n
		}
		if !info.has(lSpelled) {
			return i + 1
		}
	}
	if info.has(lSpelled) && p.next(i+1, "") {
		if sc := p.info(i + 1); sc.has(lScale) && !sc.has(lUnit) {
			j := i + 1
			v := info.n * sc.n
			if m := p.add(vouch.MentionNumber, t.s, p.toks[j].e, formatNum(v)); m != nil {
				m.Value = v
			}
			return j + 1
		}
	}
	if info.has(lPkgTool) && p.next(i+1, "") && p.info(i+1).has(lInstall) {
		return p.install(i + 2)
	}
	if strings.EqualFold(w, "from") && p.next(i+1, "") && p.next(i+2, "") && p.word(i+2) == "import" {
		if x := p.word(i + 1); isDotted(x) && allLower(x) {
			p.add(vouch.MentionPackage, p.toks[i+1].s, p.toks[i+1].e, x)
			return i + 3
		}
	}
	if !up && p.packageContext(i) && isPkgName(w) && !info.has(lNotPkg|lStop) {
		p.add(vouch.MentionPackage, t.s, t.e, w)
		return i + 1
	}
	if info.has(lTech) || allUpper(w) && info.has(lAcro) {
		return i + 1
	}
	if isCamel(w) && !personCamel(w) && !(w[len(w)-1] == 's' && lookup(w[:len(w)-1]).has(lTech)) {
		p.add(vouch.MentionSymbol, t.s, t.e, w)
		return i + 1
	}
	if up {
		return p.name(i)
	}
	if strings.IndexByte(w, '_') >= 0 && isIdent(w) {
		p.add(vouch.MentionSymbol, t.s, t.e, w)
	}
	return i + 1
}

// install reads the packages of "npm install a b", "pip install x", "go get
// y", starting at token i; flags are skipped.
func (p *parser) install(i int) int {
	for n := 0; i < len(p.toks) && n < 16; i++ {
		t := &p.toks[i]
		if t.k != tkRun || t.gap != ' ' && t.gap != '-' {
			return i
		}
		w := p.text[t.s:t.e]
		if t.gap == '-' {
			continue // a flag: "-D", "--save-dev"
		}
		norm, ok := installName(w)
		if !ok {
			return i
		}
		p.add(vouch.MentionPackage, t.s, t.e, norm)
		n++
	}
	return i
}

// installName is the package a word after an install command names, or
// false: "express", "@types/node@20", "golang.org/x/sync@latest",
// "requests".
func installName(w string) (string, bool) {
	if w == "" || lookup(w).has(lStop|lInstall) {
		return "", false
	}
	if w[0] == '@' {
		return scopedPackage(w)
	}
	if norm, ok := goPath(w); ok {
		return norm, true
	}
	name, _, _ := strings.Cut(w, "@")
	if ext := extOf(name); ext != "" && exts[ext] {
		return "", false // "-r requirements.txt"
	}
	if !isPkgName(name) || !hasLetter(name) {
		return "", false
	}
	return name, true
}

// quantity reads a count of things at token i ("4 methods", "all four
// methods" from "four", "a dozen tests"), with claimtext.CountAt. A count
// whose phrase holds another mention ("15 SessionLive tests") is no
// quantity: the other mention wins.
func (p *parser) quantity(i int) (int, bool) {
	t := &p.toks[i]
	// A count needs a noun of a known class within a few words; claims
	// reads only the words from a little before the count to the word
	// after its nouns.
	last := -1
	for j := i + 1; j < len(p.toks) && j <= i+5; j++ {
		u := &p.toks[j]
		if u.gap != ' ' && u.gap != '/' {
			break
		}
		if p.countNoun(j) {
			last = j
		} else if last >= 0 {
			break
		}
	}
	if last < 0 {
		return 0, false
	}
	lo := p.toks[max(i-3, 0)].s
	hi := p.toks[min(last+1, len(p.toks)-1)].e
	nc, ok := claimtext.CountAt(p.text[lo:hi], t.s-lo)
	if !ok {
		return 0, false
	}
	nc.End += lo - p.ss
	end := p.ss + nc.End
	j := i + 1
	for ; j < len(p.toks) && p.toks[j].s < end; j++ {
		if p.mentionable(j) {
			return 0, false
		}
	}
	unit := singular(nc.Head)
	if m := p.add(vouch.MentionQuantity, t.s, end, strconv.Itoa(nc.Number)+" "+unit); m != nil {
		m.Value = float64(nc.Number)
		m.Unit = unit
	}
	return j, true
}

// countNoun reports whether token j is a noun a count can be of
// (claimtext.IsCountNoun), asking once.
func (p *parser) countNoun(j int) bool {
	u := &p.toks[j]
	if u.noun == 0 {
		u.noun = -1
		if u.k == tkRun && u.shape&shIdent == 0 && claimtext.IsCountNoun(p.text[u.s:u.e]) {
			u.noun = 1
		}
	}
	return u.noun > 0
}

// mentionable reports a token that is a mention of its own: code, a URL, a
// path, a camel-case symbol.
func (p *parser) mentionable(i int) bool {
	t := &p.toks[i]
	if t.k != tkRun {
		return true
	}
	w := p.text[t.s:t.e]
	if t.call {
		return true
	}
	if hasIdentChar(w) {
		return classifyIdent(w, false).kind != ""
	}
	return isCamel(w) && !lookup(w).has(lTech|lAcro)
}

// code reads an inline code span: a file, a package, a symbol, a URL or a
// number; a command that installs or imports packages; or nothing.
func (p *parser) code(i int) {
	t := &p.toks[i]
	n := fenceRun(p.text[t.s:t.e], '`')
	cs, ce := t.s+n, t.e-n
	for cs < ce && isSpace(p.text[cs]) {
		cs++
	}
	for ce > cs && isSpace(p.text[ce-1]) {
		ce--
	}
	if cs >= ce {
		return
	}
	c := p.text[cs:ce]
	if hasSpace(c) {
		p.command(cs, ce)
		return
	}
	if urlPrefix(c) > 0 {
		if e := urlEnd(p.text, cs, ce); e > cs+urlPrefix(c) {
			p.add(vouch.MentionURL, cs, e, urlNorm(p.text[cs:e]))
		}
		return
	}
	name, call := c, false
	if strings.HasSuffix(c, ")") {
		if k := strings.IndexByte(c, '('); k > 0 {
			name, call = c[:k], true
		}
	}
	if !call && allLower(name) && p.pkgWordAt(i+1) && isPkgName(name) && !lookup(name).has(lNotPkg) {
		p.add(vouch.MentionPackage, cs, ce, name)
		return
	}
	if !call && startsNumber(c) {
		nm := parseNumber(c)
		switch {
		case nm.kind == numValue && nm.end == len(c):
			if m := p.add(vouch.MentionNumber, cs, ce, formatNum(nm.val)); m != nil {
				m.Value, m.Unit = nm.val, nm.unit
			}
		case nm.kind == numDate:
			p.add(vouch.MentionDate, cs, cs+nm.end, nm.date)
		}
		return
	}
	if name == "" || name[0] == '-' || name[0] == ':' || claimtext.IsCommitID(name) {
		return
	}
	base := name
	for base != "" && (base[len(base)-1] == '!' || base[len(base)-1] == '?') {
		base = base[:len(base)-1]
	}
	if base == "" {
		return
	}
	cl := classifyIdent(base, true)
	switch {
	case cl.kind == "" && call && isDotted(base) && !lookup(base).has(lKeyword):
		cl = cls{kind: vouch.MentionSymbol, b: len(base), norm: base}
	case cl.kind == "":
		return
	}
	e := cs + cl.b
	if cl.kind == vouch.MentionSymbol && cl.b == len(base) {
		e = cs + len(name)
		if call && c[len(name):] == "()" {
			e = ce
		}
	}
	if m := p.add(cl.kind, cs+cl.a, e, cl.norm); m != nil {
		m.Line = cl.line
	}
}

// command reads a code span with spaces: "npm install express", "pip
// install requests", "go get golang.org/x/sync", "import numpy as np",
// "from x.y import z", "import x from 'pkg'", "parse(a, b)".
func (p *parser) command(cs, ce int) {
	var f [8][2]int // fields: offsets in the text
	nf := 0
	for i := cs; i < ce && nf < len(f); {
		for i < ce && isSpace(p.text[i]) {
			i++
		}
		j := i
		for j < ce && !isSpace(p.text[j]) {
			j++
		}
		if j > i {
			f[nf] = [2]int{i, j}
			nf++
		}
		i = j
	}
	field := func(k int) string { return p.text[f[k][0]:f[k][1]] }
	if nf == 0 {
		return
	}
	f0 := field(0)
	switch {
	case nf >= 3 && lookup(f0).has(lPkgTool) && lookup(field(1)).has(lInstall):
		for k := 2; k < nf; k++ {
			w := field(k)
			if w[0] == '-' {
				continue
			}
			if norm, ok := installName(w); ok {
				p.add(vouch.MentionPackage, f[k][0], f[k][1], norm)
			}
		}
	case f0 == "from" && nf >= 3 && field(2) == "import" && isDotted(field(1)):
		p.add(vouch.MentionPackage, f[1][0], f[1][1], field(1))
	case f0 == "import" && nf >= 2:
		// import x.y [as z]; import x from "pkg"; import "fmt"
		for k := 1; k < nf; k++ {
			w := strings.TrimRight(field(k), ",;")
			if q := strings.Trim(w, `"'`); q != w && q != "" && isImportPath(q) {
				s := f[k][0] + strings.IndexAny(field(k), `"'`) + 1
				p.add(vouch.MentionPackage, s, s+len(q), q)
				return
			}
		}
		if w := strings.TrimRight(field(1), ",;"); isDotted(w) && !lookup(w).has(lKeyword) {
			p.add(vouch.MentionPackage, f[1][0], f[1][0]+len(w), w)
		}
	default:
		// parse(a, b): a call with arguments.
		c := p.text[cs:ce]
		k := strings.IndexByte(c, '(')
		if k > 0 && strings.HasSuffix(c, ")") && isDotted(c[:k]) && !lookup(c[:k]).has(lKeyword) {
			p.add(vouch.MentionSymbol, cs, cs+k, c[:k])
		}
	}
}

// isImportPath reports a quoted import path: "fmt", "golang.org/x/sync",
// "@scope/pkg", "react", "./local" (not: relative imports are files).
func isImportPath(s string) bool {
	if s[0] == '.' || s[0] == '/' {
		return false
	}
	if s[0] == '@' {
		_, ok := scopedPackage(s)
		return ok
	}
	for seg := range strings.SplitSeq(s, "/") {
		if !isPkgName(seg) {
			return false
		}
	}
	return true
}

// hasSpace reports white space in s.
func hasSpace(s string) bool {
	for i := 0; i < len(s); i++ {
		if isSpace(s[i]) {
			return true
		}
	}
	return false
}

// lowerKey marks the first two letters and length (up to 15) of the
// lower-case words plain must look up: counts, spelled numbers, package
// tools, "from", "half".
var lowerKey = func() (t [27][27][16]bool) {
	for id := int32(1); id < int32(len(view)); id++ {
		k := lex.ByID(id).Key()
		if view[id].has(lCount|lSpelled|lPkgTool) || k == "from" || k == "half" {
			t[letterIndex(k, 0)][letterIndex(k, 1)][min(len(k), 15)] = true
		}
	}
	return t
}()

// letterIndex is 1 to 26 for the letter at w[i], 0 for anything else or
// none.
func letterIndex(w string, i int) int {
	if i < len(w) && isLower(w[i]) {
		return int(w[i]-'a') + 1
	}
	return 0
}

// mayMatter reports whether a lower-case word may be one plain must look
// up (see lowerKey).
func mayMatter(w string) bool {
	return lowerKey[letterIndex(w, 0)][letterIndex(w, 1)][min(len(w), 15)]
}
