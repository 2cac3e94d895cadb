package loop_test

import (
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/loop"
)

func TestDecide(t *testing.T) {
	pol := vouch.DefaultPolicy() // maxRetries 2, maxUnverified 3
	rep := func(v vouch.Verdict, a vouch.Action, row int) *vouch.Report {
		return &vouch.Report{Verdict: v, Action: a, VerdictRow: row, Score: ptr(0.5), Reason: "because"}
	}
	followUp := rep(vouch.VerdictPass, vouch.ActionFollowUp, 6)
	followUp.Gaps = []string{"a", " a ", "", "b", "c"}
	noGaps := rep(vouch.VerdictPass, vouch.ActionFollowUp, 6)
	unverified := rep(vouch.VerdictRetry, vouch.ActionRetry, 2)
	for range 4 {
		unverified.Mentions.Unverified = append(unverified.Mentions.Unverified, vouch.UnverifiedMention{Text: "x"})
	}
	contradiction := rep(vouch.VerdictPass, vouch.ActionAccept, 6) // a contradiction wins over any verdict
	contradiction.Checks = []vouch.CheckResult{{Name: "synthesis.consistency", Status: vouch.StatusFail,
		Evidence: map[string]any{"code": vouch.CodeContradiction, "conflicts": []any{`a and b give p99 as "1" and "2"`}}}}
	for _, tt := range []struct {
		name    string
		rep     *vouch.Report
		attempt int
		want    loop.Reaction
		reason  string
		gaps    []string
		tooMany bool
	}{
		{"no report", nil, 1, loop.ReactEscalate, "no report", nil, false},
		{"accept", rep(vouch.VerdictPass, vouch.ActionAccept, 6), 1, loop.ReactAccept, "", nil, false},
		{"follow-up: two distinct gaps", followUp, 1, loop.ReactFollowUp, "", []string{"a", "b"}, false},
		{"follow-up without gaps", noGaps, 1, loop.ReactAccept, "", nil, false},
		{"retry", rep(vouch.VerdictRetry, vouch.ActionRetry, 2), 2, loop.ReactRetry, "", nil, false},
		{"reformulate", rep(vouch.VerdictRetry, vouch.ActionReformulate, 4), 1, loop.ReactReformulate, "", nil, false},
		{"too many unverified", unverified, 1, loop.ReactRetry, "", nil, true},
		{"a verifier that retries for ever", rep(vouch.VerdictRetry, vouch.ActionRetry, 2), 3, loop.ReactEscalate, "retries used up: attempt 3 of 3", nil, false},
		{"fail on the last attempt", rep(vouch.VerdictFail, vouch.ActionEscalate, 2), 3, loop.ReactEscalate, "retries used up", nil, false},
		{"fail outright", rep(vouch.VerdictFail, vouch.ActionEscalate, 3), 1, loop.ReactEscalate, "the verifier escalated: because", nil, false},
		{"retry with escalate", rep(vouch.VerdictRetry, vouch.ActionEscalate, 2), 1, loop.ReactEscalate, "the verifier escalated", nil, false},
		{"unknown verdict", rep("maybe", vouch.ActionAccept, 6), 1, loop.ReactEscalate, "the verifier escalated", nil, false},
		{"pass with escalate", rep(vouch.VerdictPass, vouch.ActionEscalate, 6), 1, loop.ReactEscalate, "", nil, false},
		{"contradiction", contradiction, 1, loop.ReactClarify, `a and b give p99 as "1" and "2"`, nil, false},
	} {
		d := loop.Decide(tt.rep, &pol, tt.attempt)
		if d.Reaction != tt.want || !strings.Contains(d.Reason, tt.reason) || d.TooManyUnverified != tt.tooMany || strings.Join(d.Gaps, "|") != strings.Join(tt.gaps, "|") {
			t.Errorf("%s: %+v, want %s (%q, gaps %q)", tt.name, d, tt.want, tt.reason, tt.gaps)
		}
	}
}
