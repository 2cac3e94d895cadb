package injection

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// normalized is a text as the scanner reads it, with the way back to the
// text it came from.
type normalized struct {
	// text is the normalised text: see normalize.
	text string
	// off maps each byte of text to the offset in the source of the
	// character it came from; off[len(text)] is the source's length.
	off []int32
	// cjk reports Han, kana or Hangul in text, which has no spaces between
	// words for the phrase table's triggers to find.
	cjk bool
	// zeroWidth reports zero-width spaces or joiners in the source.
	zeroWidth bool
}

// normalize returns src as the scanner reads it:
//
//   - compatibility folded and decomposed (NFKD, which is NFKC followed by
//     NFD): fullwidth, mathematical, circled and superscript letters and
//     ligatures become plain letters, accented letters a letter and marks;
//   - without marks (Unicode categories Mn and Me: accents, diaeresis,
//     variation selectors, combining overlays), format characters (Cf:
//     zero-width space, joiners, word joiner, byte order mark, soft hyphen,
//     bidirectional controls, tag characters) and other default-ignorable
//     characters (Hangul fillers...);
//   - in lower case, every space a plain space;
//   - with look-alike letters of other scripts folded to Latin (the
//     confusables table).
//
// Invalid UTF-8 becomes U+FFFD. normalize is idempotent.
func normalize(src string) normalized {
	return normalizeView(src, false)
}

// normalizeView is normalize, with zero-width spaces, joiners and word
// joiners read as spaces when zwSpace is set: they may stand between
// words as well as inside them.
func normalizeView(src string, zwSpace bool) normalized {
	buf := make([]byte, 0, len(src)+len(src)/8+4)
	off := make([]int32, 0, cap(buf)+1)
	cjk, zw := false, false
	var it norm.Iter
	for i := 0; i < len(src); {
		if c := src[i]; c < utf8.RuneSelf {
			// An ASCII character is a starter with no decomposition:
			// NFKD leaves it, and a stretch of other text around it, as
			// they are.
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			buf = append(buf, c)
			off = append(off, int32(i))
			i++
			continue
		}
		j := i + 1
		for j < len(src) && src[j] >= utf8.RuneSelf {
			j++
		}
		it.InitString(norm.NFKD, src[i:j])
		for !it.Done() {
			start := int32(i + it.Pos())
			seg := it.Next()
			for len(seg) > 0 {
				r, n := utf8.DecodeRune(seg)
				seg = seg[n:]
				if zeroWidth(r) {
					zw = true
					if zwSpace {
						r = ' '
					}
				}
				if r = foldRune(r); r < 0 {
					continue
				}
				if r >= 0x1100 && !cjk && isCJK(r) {
					cjk = true
				}
				k := len(buf)
				buf = utf8.AppendRune(buf, r)
				for ; k < len(buf); k++ {
					off = append(off, start)
				}
			}
		}
		i = j
	}
	off = append(off, int32(len(src)))
	return normalized{text: string(buf), off: off, cjk: cjk, zeroWidth: zw}
}

// foldRune returns the character r of an NFKD text becomes, or -1 when it
// is dropped.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return r
	}
	if invisible(r) {
		return -1
	}
	if l, ok := confusables[r]; ok {
		return l
	}
	r = unicode.ToLower(r)
	if l, ok := confusables[r]; ok {
		return l
	}
	if unicode.IsSpace(r) {
		return ' '
	}
	return r
}

// invisible reports a mark, format character or other default-ignorable
// character: one a reader does not see as a letter.
func invisible(r rune) bool {
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point)
}

// zeroWidth reports a zero-width space, joiner or word joiner.
func zeroWidth(r rune) bool {
	return r >= 0x200B && r <= 0x200D || r == 0x2060 || r == 0xFEFF || r == 0x180E
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// stripInvisible returns src without its format and other
// default-ignorable characters, nothing else changed: what base64 runs are
// looked for in, as case matters there.
func stripInvisible(src string) string {
	var buf []byte
	for i, r := range src {
		if r >= utf8.RuneSelf && unicode.In(r, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point) {
			if buf == nil {
				buf = append(make([]byte, 0, len(src)), src[:i]...)
			}
			continue
		}
		if buf != nil {
			buf = utf8.AppendRune(buf, r)
		}
	}
	if buf == nil {
		return src
	}
	return string(buf)
}

// foldSource folds the characters of a phrase table source that are not
// ASCII as normalize folds text, leaving ASCII (the expression's syntax)
// as it is: a phrase written with accents or in Cyrillic then matches the
// normalised text.
func foldSource(src string) string {
	var buf []byte
	for _, r := range src {
		if r < utf8.RuneSelf {
			buf = append(buf, byte(r))
			continue
		}
		for _, d := range norm.NFKD.String(string(r)) {
			if d = foldRune(d); d >= 0 {
				buf = utf8.AppendRune(buf, d)
			}
		}
	}
	return string(buf)
}
