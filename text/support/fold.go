package support

import (
	"unicode"
	"unicode/utf8"

	"github.com/vouchgate/vouch/text/lex"
)

// A token is a run of letters and digits. Everything else separates tokens,
// except an "'s" or "’s" right after a word, which is a possessive and is
// dropped. Tokens are compared in two forms: lower case ("low", used for
// quoted phrases) and folded (lower case, accents stripped, possessive
// dropped, plural made singular; used for names and content words).

// token flags.
const (
	tkCap     uint8 = 1 << iota // the first letter is upper case
	tkUpper                     // every letter is upper case (an acronym)
	tkDigit                     // the token starts with a digit
	tkValue                     // the token is part of a number or date mention
	tkContent                   // a content word: not a stop word, not a number
	tkUnit                      // a unit or scale word ("ms", "million")
	tkNeg                       // a negation ("not", "never")
)

// tok is one token of a text.
type tok struct {
	start, end int32 // byte offsets
	term       int32 // folded form's term id in the index; -1 if unknown
	flags      uint8
}

// scanner reads the tokens of a text one by one.
type scanner struct {
	text string
	i    int
	// buf holds the folded form of the last token.
	buf []byte
}

// next reads the next token: its byte offsets and flags, its folded form
// in s.buf. ok is false at the end of the text. The word itself is found
// by [lex.Next].
func (s *scanner) next() (start, end int, flags uint8, ok bool) {
	text, n := s.text, len(s.text)
	start, end, ok = lex.Next(text, s.i, lex.Options{})
	if !ok {
		s.i = n
		return 0, 0, 0, false
	}
	buf := s.buf[:0]
	upper, letters := true, 0
	switch byteClass[text[start]] {
	case clUpper:
		flags |= tkCap
	case clDigit:
		flags |= tkDigit
	}
	for i := start; i < end; {
		c := text[i]
		if c < utf8.RuneSelf {
			switch byteClass[c] {
			case clLower:
				letters++
				upper = false
			case clUpper:
				letters++
				c += 'a' - 'A'
			}
			buf = append(buf, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if unicode.IsLetter(r) {
			letters++
			if unicode.IsUpper(r) {
				if i == start {
					flags |= tkCap
				}
			} else {
				upper = false
			}
		}
		buf = appendFolded(buf, unicode.ToLower(r))
		i += size
	}
	if upper && letters >= 2 {
		flags |= tkUpper
	}
	// A possessive 's (or ’s) is dropped.
	i := end
	if i+1 < n && text[i] == '\'' && (text[i+1] == 's' || text[i+1] == 'S') && (i+2 == n || !isWordByte(text, i+2)) {
		i += 2
	} else if i+3 < n && text[i] == 0xE2 && text[i+1] == 0x80 && text[i+2] == 0x99 && (text[i+3] == 's' || text[i+3] == 'S') && (i+4 == n || !isWordByte(text, i+4)) {
		i += 4
	}
	if flags&tkDigit == 0 {
		buf = singular(buf)
	}
	s.buf, s.i = buf, i
	return start, end, flags, true
}

// scanTokens calls emit for every token of text with its offsets, flags and
// folded form. The folded form lives in buf and is valid only during the
// call.
func scanTokens(text string, buf []byte, emit func(start, end int, flags uint8, folded []byte)) []byte {
	s := scanner{text: text, buf: buf}
	for {
		start, end, flags, ok := s.next()
		if !ok {
			return s.buf
		}
		emit(start, end, flags, s.buf)
	}
}

// dict interns folded words as term ids, in an open-addressing table.
type dict struct {
	slots  []int32 // term id + 1; 0 is empty
	hashes []uint32
	terms  []string
}

func newDict(size int) dict {
	n := 256
	for n < 2*size {
		n <<= 1
	}
	return dict{slots: make([]int32, n), terms: make([]string, 0, size), hashes: make([]uint32, 0, size)}
}

// hashWord is FNV-1a.
func hashWord(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h ^= uint32(c)
		h *= 16777619
	}
	return h
}

// find returns the term id of w, or -1.
func (d *dict) find(w []byte, h uint32) int32 {
	mask := uint32(len(d.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		id := d.slots[i] - 1
		if id < 0 {
			return -1
		}
		if d.hashes[id] == h && d.terms[id] == string(w) {
			return id
		}
	}
}

// add interns w, known to be absent, and returns its term id.
func (d *dict) add(w []byte, h uint32) int32 {
	if 2*(len(d.terms)+1) > len(d.slots) {
		d.grow()
	}
	id := int32(len(d.terms))
	d.terms = append(d.terms, string(w))
	d.hashes = append(d.hashes, h)
	d.put(id, h)
	return id
}

func (d *dict) put(id int32, h uint32) {
	mask := uint32(len(d.slots) - 1)
	i := h & mask
	for d.slots[i] != 0 {
		i = (i + 1) & mask
	}
	d.slots[i] = id + 1
}

func (d *dict) grow() {
	d.slots = make([]int32, 2*len(d.slots))
	for id, h := range d.hashes {
		d.put(int32(id), h)
	}
}

// Byte classes of ASCII.
const (
	clOther = iota
	clLower
	clUpper
	clDigit
)

var byteClass = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = clLower
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = clUpper
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = clDigit
	}
	return t
}()

func isAlnumASCII(c byte) bool { return byteClass[c] != clOther }

// isWordByte reports whether a letter or digit starts at text[i].
func isWordByte(text string, i int) bool {
	c := text[i]
	if c < utf8.RuneSelf {
		return isAlnumASCII(c)
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return lex.IsWordRune(r)
}

// wordBefore reports whether a letter or digit ends right before text[i].
func wordBefore(text string, i int) bool {
	if i <= 0 {
		return false
	}
	if c := text[i-1]; c < utf8.RuneSelf {
		return isAlnumASCII(c)
	}
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	return lex.IsWordRune(r)
}

// appendFolded appends a lower-case rune without its accent, for the
// common Latin letters.
func appendFolded(buf []byte, r rune) []byte {
	switch r {
	case 'à', 'á', 'â', 'ã', 'ä', 'å', 'ā':
		r = 'a'
	case 'ç', 'č', 'ć':
		r = 'c'
	case 'è', 'é', 'ê', 'ë', 'ē', 'ę', 'ě':
		r = 'e'
	case 'ì', 'í', 'î', 'ï', 'ī':
		r = 'i'
	case 'ñ', 'ń', 'ň':
		r = 'n'
	case 'ò', 'ó', 'ô', 'õ', 'ö', 'ø', 'ō', 'ő':
		r = 'o'
	case 'ù', 'ú', 'û', 'ü', 'ū', 'ů', 'ű':
		r = 'u'
	case 'ý', 'ÿ':
		r = 'y'
	case 'ś', 'š', 'ş':
		r = 's'
	case 'ź', 'ž', 'ż':
		r = 'z'
	case 'ł':
		r = 'l'
	case 'ř':
		r = 'r'
	case 'ß':
		return append(buf, 's', 's')
	}
	return utf8.AppendRune(buf, r)
}

// irregularSingular returns the singular of an irregular plural, or "".
func irregularSingular(w []byte) string {
	switch string(w) {
	case "people":
		return "person"
	case "men":
		return "man"
	case "women":
		return "woman"
	case "children":
		return "child"
	case "mice":
		return "mouse"
	case "geese":
		return "goose"
	case "teeth":
		return "tooth"
	case "feet":
		return "foot"
	case "indices":
		return "index"
	case "matrices":
		return "matrix"
	case "criteria":
		return "criterion"
	}
	return ""
}

// keepS reports whether a word ending in s is not a plural, or is its own
// plural.
func keepS(w []byte) bool {
	switch string(w) {
	case "news", "series", "species", "means", "always", "perhaps", "whereas", "thus",
		"towards", "afterwards", "besides", "sometimes", "physics", "mathematics",
		"economics", "politics", "statistics", "analytics", "ethics", "electronics",
		"athletics", "lens", "gas", "bias", "canvas", "atlas", "chaos", "christmas",
		"texas", "kansas", "paris", "yes", "has", "was", "does", "its", "this", "his", "is", "as", "us":
		return true
	}
	return false
}

// singular folds a lower-case word to its singular by a small rule set:
// "companies" → "company", "classes" → "class", "boxes" → "box",
// "users" → "user", "prizes" → "prize"; words ending in "ss", "us" or "is"
// and short words are kept. Both sides of a comparison are folded alike, so a rule that
// over-reaches ("cookies" → "cooky") still compares equal.
func singular(w []byte) []byte {
	n := len(w)
	if n <= 3 || w[n-1] != 's' {
		if n > 3 && (w[n-1] == 'e' || w[n-1] == 'n' || w[n-1] == 'h' || w[n-1] == 't' || w[n-1] == 'a') {
			if s := irregularSingular(w); s != "" {
				return append(w[:0], s...)
			}
		}
		return w
	}
	if keepS(w) {
		return w
	}
	switch {
	case w[n-2] == 's' || w[n-2] == 'u' || w[n-2] == 'i':
		return w
	case n > 4 && w[n-3] == 'i' && w[n-2] == 'e':
		w = w[:n-2]
		w[n-3] = 'y'
		return w
	case n > 4 && w[n-2] == 'e' && (w[n-3] == 'x' ||
		w[n-3] == 'h' && (w[n-4] == 'c' || w[n-4] == 's')):
		return w[:n-2]
	case n > 4 && w[n-2] == 'e' && w[n-3] == 's' && w[n-4] == 's':
		return w[:n-2]
	}
	return w[:n-1]
}

// stopWords are the words that carry no content of their own.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range lex.Named("content-stop-words").Words() {
		m[w] = true
		m[string(singular([]byte(w)))] = true
	}
	return m
}()
