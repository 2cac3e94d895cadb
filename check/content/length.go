package content

import (
	"context"
	"fmt"
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/text/plural"
)

type lengthParams struct {
	check.Common `json:",inline"`
	check.Target `json:",inline"`
	MinChars     *int `json:"minChars,omitempty"`
	MaxChars     *int `json:"maxChars,omitempty"`
	MinWords     *int `json:"minWords,omitempty"`
	MaxWords     *int `json:"maxWords,omitempty"`
}

// lengthChecker passes when the text's length is within its bounds.
// Characters are Unicode code points (an invalid UTF-8 byte counts as one);
// words are what strings.Fields would return. Counting does not allocate.
type lengthChecker struct {
	target string
	// bounds, -1 when unset
	minChars, maxChars, minWords, maxWords int
	okReason                               string
	targetAny                              any
	// bounds boxed once, for evidence: key, value pairs of the set bounds
	boundsEv []boundEv
}

type boundEv struct {
	key string
	val any
}

func newLength(spec vouch.CheckSpec, _ check.Env) (vouch.Checker, error) {
	var p lengthParams
	if err := check.DecodeParams(spec, &p); err != nil {
		return nil, err
	}
	if p.MinChars == nil && p.MaxChars == nil && p.MinWords == nil && p.MaxWords == nil {
		return nil, check.Errorf("", "needs at least one of minChars, maxChars, minWords, maxWords")
	}
	c := &lengthChecker{target: p.Target.Target, targetAny: targetName(p.Target.Target)}
	for _, b := range []struct {
		name string
		v    *int
		dst  *int
	}{
		{"minChars", p.MinChars, &c.minChars},
		{"maxChars", p.MaxChars, &c.maxChars},
		{"minWords", p.MinWords, &c.minWords},
		{"maxWords", p.MaxWords, &c.maxWords},
	} {
		*b.dst = -1
		if b.v == nil {
			continue
		}
		if *b.v < 0 {
			return nil, check.Errorf(b.name, "must not be negative, got %d", *b.v)
		}
		*b.dst = *b.v
		c.boundsEv = append(c.boundsEv, boundEv{b.name, *b.v})
	}
	if c.minChars >= 0 && c.maxChars >= 0 && c.minChars > c.maxChars {
		return nil, check.Errorf("maxChars", "is less than minChars (%d < %d)", c.maxChars, c.minChars)
	}
	if c.minWords >= 0 && c.maxWords >= 0 && c.minWords > c.maxWords {
		return nil, check.Errorf("maxWords", "is less than minWords (%d < %d)", c.maxWords, c.minWords)
	}
	c.okReason = fmt.Sprintf("%s is within the length limits (%s)", targetPhrase(c.target), c.limits())
	return c, nil
}

// limits describes the bounds: "50 to 2000 characters, at most 300 words".
func (c *lengthChecker) limits() string {
	var parts []string
	if s := rangeText(c.minChars, c.maxChars, "characters"); s != "" {
		parts = append(parts, s)
	}
	if s := rangeText(c.minWords, c.maxWords, "words"); s != "" {
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

func rangeText(lo, hi int, unit string) string {
	switch {
	case lo >= 0 && hi >= 0:
		return fmt.Sprintf("%d to %d %s", lo, hi, unit)
	case lo >= 0:
		return fmt.Sprintf("at least %d %s", lo, unit)
	case hi >= 0:
		return fmt.Sprintf("at most %d %s", hi, unit)
	}
	return ""
}

// Check implements vouch.Checker.
func (c *lengthChecker) Check(_ context.Context, s *vouch.Subject) vouch.Outcome {
	text, out, ok := readText(s, c.target)
	if !ok {
		return out
	}
	chars, words := countText(text)
	ev := make(map[string]any, 3+len(c.boundsEv))
	ev["target"], ev["chars"], ev["words"] = c.targetAny, chars, words
	for _, b := range c.boundsEv {
		ev[b.key] = b.val
	}
	var problems []string
	if c.minChars >= 0 {
		if chars < c.minChars {
			problems = append(problems, fmt.Sprintf("%s, fewer than the minimum of %d", plural.Count(chars, "character"), c.minChars))
		}
	}
	if c.maxChars >= 0 {
		if chars > c.maxChars {
			problems = append(problems, fmt.Sprintf("%s, more than the maximum of %d", plural.Count(chars, "character"), c.maxChars))
		}
	}
	if c.minWords >= 0 {
		if words < c.minWords {
			problems = append(problems, fmt.Sprintf("%s, fewer than the minimum of %d", plural.Count(words, "word"), c.minWords))
		}
	}
	if c.maxWords >= 0 {
		if words > c.maxWords {
			problems = append(problems, fmt.Sprintf("%s, more than the maximum of %d", plural.Count(words, "word"), c.maxWords))
		}
	}
	if len(problems) == 0 {
		return vouch.Pass(c.okReason, ev)
	}
	return vouch.Fail(vouch.CodeLengthOutOfRange,
		targetPhrase(c.target)+" has "+strings.Join(problems, " and "), ev)
}

// asciiSpace marks the ASCII bytes unicode.IsSpace reports as space.
var asciiSpace = [utf8.RuneSelf]uint8{'\t': 1, '\n': 1, '\v': 1, '\f': 1, '\r': 1, ' ': 1}

// SWAR (SIMD within a register) constants: a byte repeated eight times.
const (
	lows  = 0x0101010101010101
	highs = 0x8080808080808080
)

// countText returns the number of code points in s (an invalid UTF-8 byte
// counts as one, as utf8.RuneCountInString counts) and the number of words,
// as len(strings.Fields(s)), without allocating.
//
// ASCII text is counted eight bytes at a time: for each 8-byte word the
// space bytes are found with byte-wise arithmetic that cannot carry from one
// byte to the next (every byte is below 0x80), and a word starts at each
// non-space byte whose predecessor is a space.
func countText(s string) (chars, words int) {
	prevSpace := uint64(1) // 1 when the last character was a space
	i := 0
	for i < len(s) {
		if i+8 <= len(s) {
			w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
				uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
			if w&highs == 0 {
				// High bit of each byte: set for space bytes, 0x20 or 0x09-0x0D.
				t := w ^ (0x20 * lows)
				isBlank := ^((t + 0x7f*lows) | t) & highs // t byte == 0
				ge09 := (w + (0x80-0x09)*lows) & highs    // byte >= 0x09
				ge0e := (w + (0x80-0x0e)*lows) & highs    // byte >= 0x0e
				sp := isBlank | (ge09 &^ ge0e)            // high bits of spaces
				prevSp := sp<<8 | prevSpace<<7            // a space before each byte
				starts := ^sp & highs & prevSp            // non-space after a space
				words += bits.OnesCount64(starts)
				chars += 8
				prevSpace = sp >> 63
				i += 8
				continue
			}
		}
		var space uint64
		if b := s[i]; b < utf8.RuneSelf {
			space = uint64(asciiSpace[b])
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) {
				space = 1
			}
			i += size
		}
		chars++
		words += int(prevSpace &^ space)
		prevSpace = space
	}
	return chars, words
}
