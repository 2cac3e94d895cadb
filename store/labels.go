package store

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/vouchgate/vouch"
)

// Bounds of what a person writes beside a verification: a label's reason
// (an override's) or detail (an outcome's), and its reviewer or reporter.
const (
	MaxReasonRunes   = 4000
	MaxReviewerRunes = 200
)

// CheckText reports an error, naming the text name, unless s is valid
// UTF-8 of at most max runes.
func CheckText(name, s string, max int) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s: not valid UTF-8", name)
	}
	if n := utf8.RuneCountInString(s); n > max {
		return fmt.Errorf("%s: %d characters, at most %d", name, n, max)
	}
	return nil
}

// Check reports what keeps a person's override from being recorded as
// given: a verdict other than pass, retry or fail (unverified is the
// gate's verdict for what it could not decide; a person who looks
// decides), a negative attempt (0 is the latest), a reason or reviewer
// that is not valid UTF-8 or is longer than [MaxReasonRunes] or
// [MaxReviewerRunes]. It is what the API and the dashboard both check; it
// does not look the verification up.
func (o *Override) Check() error {
	switch o.Verdict {
	case vouch.VerdictPass, vouch.VerdictRetry, vouch.VerdictFail:
	case vouch.VerdictUnverified:
		return errors.New(`verdict "unverified": a reviewer decides, want pass, retry or fail (unverified is the gate's verdict for what it could not check)`)
	default:
		v := o.Verdict
		if len(v) > 40 {
			v = v[:40] + "…"
		}
		return fmt.Errorf("verdict %q: want pass, retry or fail", v)
	}
	if o.Attempt < 0 {
		return errors.New("attempt: want a positive integer, or none for the latest")
	}
	return errors.Join(CheckText("reason", o.Reason, MaxReasonRunes), CheckText("reviewer", o.Reviewer, MaxReviewerRunes))
}
