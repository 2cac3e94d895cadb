package store

import (
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
)

func TestOverrideCheck(t *testing.T) {
	for _, tc := range []struct {
		o    Override
		says string // "" for valid
	}{
		{Override{Verdict: "pass"}, ""},
		{Override{Verdict: "fail", Attempt: 2, Reason: "wrong file", Reviewer: "ann"}, ""},
		{Override{Verdict: "maybe"}, "pass, retry or fail"},
		{Override{Verdict: "unverified"}, `verdict "unverified": a reviewer decides, want pass, retry or fail`},
		{Override{Verdict: ""}, `verdict "": want pass, retry or fail`},
		{Override{Verdict: vouch.Verdict(strings.Repeat("x", 100))}, "…"},
		{Override{Verdict: "retry", Attempt: -1}, "attempt"},
		{Override{Verdict: "pass", Reason: strings.Repeat("é", MaxReasonRunes)}, ""},
		{Override{Verdict: "pass", Reason: strings.Repeat("é", MaxReasonRunes+1)}, "at most 4000"},
		{Override{Verdict: "pass", Reviewer: "\xff"}, "reviewer: not valid UTF-8"},
	} {
		err := tc.o.Check()
		switch {
		case tc.says == "" && err != nil:
			t.Errorf("%+.60v: %v", tc.o, err)
		case tc.says != "" && (err == nil || !strings.Contains(err.Error(), tc.says)):
			t.Errorf("%+.60v: %v, want an error saying %q", tc.o, err, tc.says)
		}
	}
}
