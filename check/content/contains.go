package content

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
)

type containsParams struct {
	check.Common `json:",inline"`
	check.Target `json:",inline"`
	Value        *string `json:"value"`
	IgnoreCase   bool    `json:"ignoreCase,omitempty"`
}

// containsChecker implements contains and, with absent set, not_contains.
//
// With ignoreCase the text and the value are compared lowered by
// strings.ToLower. The value is lowered once, at compile time. When it is
// ASCII, the text need not be lowered: the only non-ASCII runes that lower to
// ASCII are U+0130 (İ, to i) and U+212A (Kelvin sign, to k), so unless the
// value has an i or a k and the text one of those runes, an allocation-free
// ASCII case-folding search on the text as it is finds the same match.
// Otherwise the text is lowered at most once per verification (memoised on
// the Subject).
type containsChecker struct {
	absent      bool // not_contains
	value       string
	needle      string // value, lowered when ignoreCase
	lowerValue  string // value lowered, for hints
	needleASCII bool   // needle is ASCII: the fast path applies
	needleIK    bool   // needle has an i or a k, which non-ASCII runes lower to
	rare        int    // index of the needle's byte searches anchor on
	ignoreCase  bool
	// The same for lowerValue, used for the "differs in case" hint of a
	// case-sensitive search that found nothing.
	hintASCII, hintIK bool
	hintRare          int
	target            string

	// Precomputed for the pass path.
	okReason  string
	badReason string
	valueAny  any
	targetAny any
}

func newContains(spec vouch.CheckSpec, _ check.Env) (vouch.Checker, error) {
	return compileContains(spec, false)
}

func newNotContains(spec vouch.CheckSpec, _ check.Env) (vouch.Checker, error) {
	return compileContains(spec, true)
}

func compileContains(spec vouch.CheckSpec, absent bool) (*containsChecker, error) {
	var p containsParams
	if err := check.DecodeParams(spec, &p); err != nil {
		return nil, err
	}
	if p.Value == nil {
		return nil, check.Errorf("value", "is required")
	}
	if *p.Value == "" {
		return nil, check.Errorf("value", "must not be empty")
	}
	c := &containsChecker{
		absent:     absent,
		value:      *p.Value,
		needle:     *p.Value,
		ignoreCase: p.IgnoreCase,
		target:     p.Target.Target,
		valueAny:   *p.Value,
		targetAny:  targetName(p.Target.Target),
	}
	c.lowerValue = strings.ToLower(c.value)
	if c.ignoreCase {
		c.needle = c.lowerValue
		c.needleASCII = isASCII(c.needle)
		c.needleIK = strings.ContainsAny(c.needle, "ik")
	}
	c.rare = rareByte(c.needle, c.ignoreCase)
	c.hintASCII = isASCII(c.lowerValue)
	c.hintIK = strings.ContainsAny(c.lowerValue, "ik")
	c.hintRare = rareByte(c.lowerValue, true)
	suffix := ""
	if c.ignoreCase {
		suffix = " (ignoring case)"
	}
	has := targetPhrase(c.target) + " contains " + quoteValue(c.value) + suffix
	hasNot := targetPhrase(c.target) + " does not contain " + quoteValue(c.value) + suffix
	if absent {
		c.okReason, c.badReason = hasNot, has
	} else {
		c.okReason, c.badReason = has, hasNot
	}
	return c, nil
}

// find returns the byte range of the first instance of the value in text,
// or start -1.
func (c *containsChecker) find(s *vouch.Subject, text string) (start, end int) {
	if !c.ignoreCase {
		i := indexRare(text, c.value, c.rare)
		return i, i + len(c.value)
	}
	return c.findFold(s, text, c.needle, c.needleASCII, c.needleIK, c.rare)
}

// findFold finds needle (lowered) in text ignoring case: by an ASCII
// case-folding search on the text as it is when that finds the same match,
// else in the lowered text.
func (c *containsChecker) findFold(s *vouch.Subject, text, needle string, ascii, ik bool, rare int) (start, end int) {
	if ascii && (!ik || !hasLowerToASCII(text)) {
		i := indexFoldASCII(text, needle, rare)
		return i, i + len(needle)
	}
	return c.findLowered(s, text, needle)
}

// findLowered returns the byte range in text of the first instance of
// needle (lowered) in the lowered text, or start -1.
func (c *containsChecker) findLowered(s *vouch.Subject, text, needle string) (start, end int) {
	lower := lowerText(s, c.target, text)
	i := strings.Index(lower, needle)
	if i < 0 {
		return -1, -1
	}
	// strings.ToLower maps rune to rune, so the match covers the same runes
	// of the original text.
	start = runeOffset(text, utf8.RuneCountInString(lower[:i]))
	end = start + runeOffset(text[start:], utf8.RuneCountInString(needle))
	return start, end
}

// Check implements vouch.Checker.
func (c *containsChecker) Check(_ context.Context, s *vouch.Subject) vouch.Outcome {
	text, out, ok := readText(s, c.target)
	if !ok {
		return out
	}
	start, end := c.find(s, text)
	ev := map[string]any{"value": c.valueAny, "target": c.targetAny}
	if c.ignoreCase {
		ev["ignoreCase"] = true
	}
	if start < 0 {
		if c.absent {
			return vouch.Pass(c.okReason, ev)
		}
		reason := c.badReason
		if !c.ignoreCase {
			if i, j := c.findFold(s, text, c.lowerValue, c.hintASCII, c.hintIK, c.hintRare); i >= 0 {
				reason += fmt.Sprintf(" (it contains %s, which differs in case)", quoteValue(text[i:j]))
			}
		}
		return vouch.Fail(vouch.CodeTextMissing, reason, ev)
	}
	line, col := position(text, start)
	ev["line"] = line
	if !c.absent {
		return vouch.Pass(c.okReason, ev)
	}
	ev["column"] = col
	ev["excerpt"] = excerpt(text, start, end)
	ev["count"] = c.count(s, text)
	return vouch.Fail(vouch.CodeTextPresent, fmt.Sprintf("%s at line %d", c.badReason, line), ev)
}

// count returns how many times the value occurs in text, for evidence.
func (c *containsChecker) count(s *vouch.Subject, text string) int {
	if !c.ignoreCase {
		return strings.Count(text, c.value)
	}
	return strings.Count(lowerText(s, c.target, text), c.needle)
}

// hasLowerToASCII reports whether s has a non-ASCII rune that
// strings.ToLower turns into an ASCII letter: U+0130 or U+212A.
func hasLowerToASCII(s string) bool {
	return strings.Contains(s, "\u0130") || strings.Contains(s, "\u212a")
}
