// Package sourced reports the claims of a text that its sources do not
// support, for the analyzers of kinds whose sources are all the text was
// made from: a synthesis and its agent outputs, a moderator's summary and
// the discussion. What none of them says was made up, so such a claim
// fails a must-pass check.
package sourced

import (
	"fmt"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/text/support"
)

// maxListed bounds the sentences quoted in one check's evidence.
const maxListed = 20

// Trim drops the unsupported atoms of claims that count the text's own
// parts (see [support.Discourse]). A claim that loses its only atoms that
// way, and that no source supports otherwise, is no longer checkable.
func Trim(claims []support.Claim) {
	for i := range claims {
		c := &claims[i]
		kept := c.Unsupported[:0]
		for _, a := range c.Unsupported {
			if !support.Discourse(a) {
				kept = append(kept, a)
			}
		}
		if len(kept) < len(c.Unsupported) && len(kept) == 0 && len(c.Contradicted) == 0 && len(c.Sources) == 0 {
			c.Checkable = false
		}
		c.Unsupported = kept
	}
}

// Report reports the claims no source supports as one must-pass
// check of the given name feeding dim, and their atoms as unverified
// mentions; with no checkable claim it adds nothing. what names the kind of
// source ("output", "participant").
func Report(f *vouch.Findings, claims []support.Claim, name, dim, what string) {
	Trim(claims)
	score, ok := support.Groundedness(claims)
	if !ok {
		return
	}
	n := 0
	for i := range claims {
		if claims[i].Checkable {
			n++
		}
	}
	c := vouch.CheckResult{
		Name: name, Level: vouch.LevelGrounding, Strength: vouch.StrengthStrict, Status: vouch.StatusPass,
		Confidence: 1, Dimension: dim, Weight: 1, Score: score,
		Reason:   fmt.Sprintf("every checkable claim (%d) is supported by the %ss", n, what),
		Evidence: map[string]any{"claims": n},
	}
	for i := range claims {
		cl := &claims[i]
		if !cl.Checkable {
			continue
		}
		t := strings.TrimSpace(cl.Sentence.Text)
		ref := vouch.SummaryRef(vouch.ClaimStatement, t, t)
		ref.Status = vouch.StatusPass
		if !cl.Supported() {
			ref.Status = vouch.StatusFail
		}
		c.Claims = append(c.Claims, ref)
	}
	bad := support.Unsupported(claims)
	if len(bad) > 0 {
		var sentences []string
		for i := range bad {
			if len(sentences) < maxListed {
				sentences = append(sentences, support.Explain(&bad[i], what))
			}
			for _, a := range bad[i].Unsupported {
				f.Mentions.Unverified = append(f.Mentions.Unverified, vouch.UnverifiedMention{
					Text: a.Text, Kind: atomKind(a.Kind), Sentence: strings.TrimSpace(bad[i].Sentence.Text)})
			}
		}
		c.Status, c.Code, c.Fix, c.Must = vouch.StatusFail, vouch.CodeUnsupportedClaim, sentences, true
		c.Reason = fmt.Sprintf("%d of %d checkable claims state what no %s says", len(bad), n, what)
		c.Evidence["unsupported"] = sentences
	}
	f.Checks = append(f.Checks, c)
}

// atomKind maps a support atom's kind to a mention kind; a quoted phrase is
// reported as an entity.
func atomKind(k string) vouch.MentionKind {
	if k == "quote" {
		return vouch.MentionEntity
	}
	return vouch.MentionKind(k)
}
