package lex

import (
	"unicode"
	"unicode/utf8"
)

// Options choose how the tokenizer splits words. The zero Options split
// text into runs of letters and digits.
type Options struct {
	// Apostrophes keeps an apostrophe (' or ’) between two letters inside
	// the word ("couldn't"); otherwise it ends the word ("couldn", "t").
	Apostrophes bool
	// Numbers keeps a dot or comma between two digits inside the word
	// ("2.4.1", "20,000").
	Numbers bool
	// Camel also ends a word where a lower-case letter is followed by an
	// upper-case one ("writeTests" is "write", "Tests").
	Camel bool
}

// IsWordRune reports whether r is part of a word: a letter or a digit.
func IsWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// runeAt decodes the rune at text[i].
func runeAt(text string, i int) (rune, int) {
	if c := text[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(text[i:])
}

// Next returns the byte offsets of the first word of text at or after
// offset i; ok is false when there is none.
func Next(text string, i int, o Options) (start, end int, ok bool) {
	n := len(text)
	for i < n {
		r, size := runeAt(text, i)
		if IsWordRune(r) {
			break
		}
		i += size
	}
	if i >= n {
		return n, n, false
	}
	start = i
	var prev rune
	for i < n {
		r, size := runeAt(text, i)
		if IsWordRune(r) {
			if o.Camel && i > start && unicode.IsUpper(r) && unicode.IsLower(prev) {
				break
			}
			prev = r
			i += size
			continue
		}
		if i+size < n {
			next, _ := runeAt(text, i+size)
			switch {
			case o.Apostrophes && (r == '\'' || r == '’') && unicode.IsLetter(prev) && unicode.IsLetter(next):
				prev = r
				i += size
				continue
			case o.Numbers && (r == '.' || r == ',') && isDigit(prev) && isDigit(next):
				prev = r
				i += size
				continue
			}
		}
		break
	}
	return start, i, true
}

func isDigit(r rune) bool { return '0' <= r && r <= '9' }

// Scan calls emit with the byte offsets of every word of text, in order.
func Scan(text string, o Options, emit func(start, end int)) {
	for i := 0; ; {
		start, end, ok := Next(text, i, o)
		if !ok {
			return
		}
		emit(start, end)
		i = end
	}
}

// Words returns the words of text, as written.
func Words(text string, o Options) []string {
	var out []string
	Scan(text, o, func(start, end int) { out = append(out, text[start:end]) })
	return out
}
