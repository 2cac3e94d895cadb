package lex

import "strings"

// Stem strips the common English endings of a lower-cased word so that the
// forms of a word meet: "flushes", "flushing" and "flushed" are "flush";
// "proposed" and "propose" are "propos"; "stopped" is "stop". It need not
// give real stems, only the same key for the forms of one word.
func Stem(w string) string {
	n := len(w)
	switch {
	case n > 5 && strings.HasSuffix(w, "ing"):
		w = w[:n-3]
	case n > 4 && strings.HasSuffix(w, "ied"), n > 4 && strings.HasSuffix(w, "ies"):
		w = w[:n-3] + "y"
	case n > 4 && strings.HasSuffix(w, "ed"):
		w = w[:n-2]
	case n > 4 && strings.HasSuffix(w, "es") && !strings.HasSuffix(w, "ses"):
		w = w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:n-1]
	}
	if len(w) > 3 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	// "stopped", "planned": a doubled last consonant.
	if k := len(w); k > 4 && w[k-1] == w[k-2] && !strings.ContainsRune("aeiouls", rune(w[k-1])) {
		w = w[:k-1]
	}
	return w
}
