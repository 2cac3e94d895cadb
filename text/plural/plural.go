// Package plural writes counts for people: a number with its noun in the
// singular or the plural ("1 file", "3 files"), and the verb that agrees
// with it ("1 of 4 symbols has", "2 of 4 symbols have"). Every message of
// vouch that counts something goes through it.
package plural

import (
	"strconv"
	"strings"
)

// Integer is a count.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// Count returns n and noun, the noun in the plural unless n is 1:
// Count(1, "file") is "1 file", Count(3, "test function") is "3 test
// functions", Count(0, "class") is "0 classes".
func Count[N Integer](n N, noun string) string {
	return format(n) + " " + Noun(n, noun)
}

// Noun returns noun, in the plural unless n is 1, without the count:
// "file" or "files".
func Noun[N Integer](n N, noun string) string {
	if n == 1 {
		return noun
	}
	return Of(noun)
}

// Pick returns one when n is 1, else many: Pick(n, "is", "are"),
// Pick(n, "has", "have"), Pick(n, "it", "them").
func Pick[N Integer](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// irregular are the plurals no rule makes, of nouns vouch counts.
var irregular = map[string]string{
	"analysis": "analyses",
	"child":    "children",
	"person":   "people",
	"this":     "these",
	"that":     "those",
}

// Of returns the plural of an English noun, or of a phrase's last word
// ("test function" gives "test functions"): -es after s, x, z, ch and sh;
// -ies after a consonant and y; -s otherwise; irregular plurals of nouns
// vouch counts as they are. A word that ends in a capital or a digit
// ("URL", "v2") takes -s.
func Of(noun string) string {
	i := strings.LastIndexByte(noun, ' ') + 1
	head, word := noun[:i], noun[i:]
	if p, ok := irregular[word]; ok {
		return head + p
	}
	n := len(word)
	switch {
	case n == 0:
		return noun
	case strings.HasSuffix(word, "s") || strings.HasSuffix(word, "x") || strings.HasSuffix(word, "z") ||
		strings.HasSuffix(word, "ch") || strings.HasSuffix(word, "sh"):
		return noun + "es"
	case n >= 2 && word[n-1] == 'y' && !strings.ContainsRune("aeiou", rune(word[n-2])):
		return head + word[:n-1] + "ies"
	}
	return noun + "s"
}

// format writes n in decimal.
func format[N Integer](n N) string {
	if n < 0 {
		return strconv.FormatInt(int64(n), 10)
	}
	return strconv.FormatUint(uint64(n), 10)
}

// All returns "all" with n and noun, or, when n is 1, "the one" and noun:
// All(3, "symbol") is "all 3 symbols", All(1, "symbol") "the one symbol".
func All[N Integer](n N, noun string) string {
	if n == 1 {
		return "the one " + noun
	}
	return "all " + Count(n, noun)
}
