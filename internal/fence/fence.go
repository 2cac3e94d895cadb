// Package fence writes untrusted text into prompts as labelled data: between
// fence lines that carry a token the text cannot know, cleaned and bounded,
// so that what an agent wrote (its claims, the mentions vouch could not
// verify, the feedback that quotes it) is read as data and never as
// instructions. A fence opens with a line "<<<DATA TOKEN label" and
// closes with "<<<END TOKEN". The judge's prompts and the loop's use it,
// so the boundary between instructions and untrusted data is written in
// one place.
package fence

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Token returns a fresh, unguessable token: 16 random bytes in hex.
func Token() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("fence: no randomness: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}

// Write writes text between fences carrying token, with label on the
// opening line, cleaned (see [Clean]) and cut at limit bytes.
func Write(b *strings.Builder, token, label, text string, limit int) {
	fmt.Fprintf(b, "<<<DATA %s %s\n%s\n<<<END %s\n", token, Line(label, 120), Clean(text, limit), token)
}

// Clean makes text safe to fence: valid UTF-8, no NUL or other control
// characters but newlines and tabs, at most limit bytes, cut at a rune
// boundary with a note of what was cut.
func Clean(s string, limit int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
	return cut(s, limit)
}

// Line makes text one line: Clean, with every run of white space (newlines
// included) as one space, trimmed.
func Line(s string, limit int) string {
	return cut(strings.Join(strings.Fields(Clean(s, 4*limit+16)), " "), limit)
}

func cut(s string, limit int) string {
	if limit <= 0 || len(s) <= limit {
		return s
	}
	c := limit
	for c > 0 && !utf8.RuneStart(s[c]) {
		c--
	}
	return s[:c] + fmt.Sprintf(" [… %d bytes cut]", len(s)-c)
}
