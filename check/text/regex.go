package text

import (
	"context"
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
	t := p.Target.Target
	return &regexChecker{
		re:        re,
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
	loc := c.re.FindStringIndex(text)
	if loc == nil {
		return vouch.Fail(vouch.CodePatternNotFound, c.badReason, ev)
	}
	line, _ := position(text, loc[0])
	ev["line"] = line
	ev["match"] = shorten(text[loc[0]:loc[1]], 80)
	return vouch.Pass(c.okReason, ev)
}
