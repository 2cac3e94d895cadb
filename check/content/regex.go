package content

import (
	"context"
	"fmt"
	"regexp"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
)

type regexParams struct {
	check.Common `json:",inline"`
	check.Target `json:",inline"`
	Pattern      *string `json:"pattern"`
}

// regexChecker passes when its regular expression matches the text. The
// expression is compiled once, with Go's RE2 syntax: matching takes time
// linear in the text, whatever the pattern.
type regexChecker struct {
	re        *regexp.Regexp
	size      int
	target    string
	okReason  string
	badReason string
	patAny    any
	targetAny any
}

func newRegex(spec vouch.CheckSpec, _ check.Env) (vouch.Checker, error) {
	var p regexParams
	if err := check.DecodeParams(spec, &p); err != nil {
		return nil, err
	}
	if p.Pattern == nil {
		return nil, check.Errorf("pattern", "is required")
	}
	if *p.Pattern == "" {
		return nil, check.Errorf("pattern", "must not be empty")
	}
	re, err := regexp.Compile(*p.Pattern)
	if err != nil {
		return nil, check.Errorf("pattern", "%v", err)
	}
	size, err := check.RegexProgramSize(*p.Pattern)
	if err != nil {
		return nil, check.Errorf("pattern", "%v", err)
	}
	if size > check.MaxRegexProgram {
		return nil, check.Errorf("pattern", "compiles to %d instructions, over the limit of %d (large counted repeats such as {1,1000} make matching slow)", size, check.MaxRegexProgram)
	}
	t := p.Target.Target
	return &regexChecker{
		re:        re,
		size:      size,
		target:    t,
		okReason:  targetPhrase(t) + " matches " + quoteValue(*p.Pattern),
		badReason: targetPhrase(t) + " does not match " + quoteValue(*p.Pattern),
		patAny:    *p.Pattern,
		targetAny: targetName(t),
	}, nil
}

// Check implements vouch.Checker.
func (c *regexChecker) Check(_ context.Context, s *vouch.Subject) vouch.Outcome {
	text, out, ok := readText(s, c.target)
	if !ok {
		return out
	}
	ev := map[string]any{"pattern": c.patAny, "target": c.targetAny}
	if limit := regexLimit(s); limit > 0 && int64(len(text)) > limit || len(text)*c.size > check.MaxRegexWork {
		o := vouch.Undecided(vouch.CodeInputTooLarge, fmt.Sprintf("%s is %d bytes: too long to match against this pattern (%d instructions) within the limits (limits.regexBytes)",
			targetPhrase(c.target), len(text), c.size))
		o.Evidence = ev
		return o
	}
	loc := c.re.FindStringIndex(text)
	if loc == nil {
		return vouch.Fail(vouch.CodePatternNotFound, c.badReason, ev)
	}
	line, _ := position(text, loc[0])
	ev["line"] = line
	ev["match"] = shorten(text[loc[0]:loc[1]], 80)
	return vouch.Pass(c.okReason, ev)
}

// regexLimit is the policy's limits.regexBytes, or 0 when no policy is set.
func regexLimit(s *vouch.Subject) int64 {
	if s.Policy == nil {
		return 0
	}
	return s.Policy.Limits.RegexBytes
}
