package support

import "strings"

// ContainsWord reports whether text holds w as a whole word: not preceded
// or followed by an ASCII letter, digit or underscore. An empty w is never
// held.
func ContainsWord(text, w string) bool {
	if w == "" {
		return false
	}
	for i := 0; ; {
		j := strings.Index(text[i:], w)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(w)
		if (start == 0 || !wordByte(text[start-1])) && (end == len(text) || !wordByte(text[end])) {
			return true
		}
		i = start + 1
	}
}

// IsWordByte reports an ASCII letter, digit or underscore: what a word
// boundary in ContainsWord is not.
func IsWordByte(c byte) bool { return wordByte(c) }

func wordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// StopWord reports whether w, in lower case, is a function word that
// carries no content of its own ("the", "was", "before").
func StopWord(w string) bool { return stopWords[w] }
