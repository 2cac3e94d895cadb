package loop_test

import (
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/loop"
)

func TestDecide(t *testing.T) {
	pol := vouch.DefaultPolicy() // maxRetries 2, maxRefuted 3
	rep := func(v vouch.Verdict, a vouch.Action, row int) *vouch.Report {
		return &vouch.Report{Verdict: v, Action: a, VerdictRow: row, Score: ptr(0.5), Reason: "because"}
	}
	followUp := rep(vouch.VerdictPass, vouch.ActionFollowUp, 7)
	followUp.Gaps = []string{"a", " a ", "", "b", "c"}
	noGaps := rep(vouch.VerdictPass, vouch.ActionFollowUp, 7)
	refuted := rep(vouch.VerdictRetry, vouch.ActionRetry, 1)
	for range 4 {
		refuted.Mentions.Refuted = append(refuted.Mentions.Refuted, vouch.RefutedMention{Text: "x"})
	}
	contradiction := rep(vouch.VerdictPass, vouch.ActionAccept, 7) // a contradiction wins over any verdict
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
		unver   bool
	}{
		{"no report", nil, 1, loop.ReactEscalate, "no report", nil, false, false},
		{"accept", rep(vouch.VerdictPass, vouch.ActionAccept, 7), 1, loop.ReactAccept, "", nil, false, false},
		{"follow-up: two distinct gaps", followUp, 1, loop.ReactFollowUp, "", []string{"a", "b"}, false, false},
		{"follow-up without gaps", noGaps, 1, loop.ReactAccept, "", nil, false, false},
		{"retry", rep(vouch.VerdictRetry, vouch.ActionRetry, 1), 2, loop.ReactRetry, "", nil, false, false},
		{"reformulate", rep(vouch.VerdictRetry, vouch.ActionReformulate, 3), 1, loop.ReactReformulate, "", nil, false, false},
		{"too many refuted", refuted, 1, loop.ReactRetry, "", nil, true, false},
		{"a verifier that retries for ever", rep(vouch.VerdictRetry, vouch.ActionRetry, 1), 3, loop.ReactEscalate, "retries used up: attempt 3 of 3", nil, false, false},
		{"fail on the last attempt", rep(vouch.VerdictFail, vouch.ActionEscalate, 1), 3, loop.ReactEscalate, "retries used up", nil, false, false},
		{"fail outright", rep(vouch.VerdictFail, vouch.ActionEscalate, 2), 1, loop.ReactEscalate, "the verifier escalated: because", nil, false, false},
		{"retry with escalate", rep(vouch.VerdictRetry, vouch.ActionEscalate, 1), 1, loop.ReactEscalate, "the verifier escalated", nil, false, false},
		{"unknown verdict", rep("maybe", vouch.ActionAccept, 7), 1, loop.ReactEscalate, "the verifier escalated", nil, false, false},
		{"pass with escalate", rep(vouch.VerdictPass, vouch.ActionEscalate, 7), 1, loop.ReactEscalate, "", nil, false, false},
		{"contradiction", contradiction, 1, loop.ReactClarify, `a and b give p99 as "1" and "2"`, nil, false, false},
		// Unverified: nothing found false. The policy's onUnverified gave the
		// action: accept it marked unverified, ask about it, or escalate.
		{"unverified, accepted", rep(vouch.VerdictUnverified, vouch.ActionAccept, 6), 1, loop.ReactAccept, "because", nil, false, true},
		{"unverified, asked", rep(vouch.VerdictUnverified, vouch.ActionFollowUp, 6), 1, loop.ReactAsk, "because", nil, false, true},
		{"unverified, no attempt left to ask with", rep(vouch.VerdictUnverified, vouch.ActionFollowUp, 6), 3, loop.ReactAccept, "because", nil, false, true},
		{"unverified, escalated", rep(vouch.VerdictUnverified, vouch.ActionEscalate, 6), 1, loop.ReactEscalate, "the verifier escalated: because", nil, false, false},
		{"unverified made to fail", rep(vouch.VerdictFail, vouch.ActionEscalate, 6), 1, loop.ReactEscalate, "the verifier escalated: because", nil, false, false},
	} {
		d := loop.Decide(tt.rep, &pol, tt.attempt)
		if d.Reaction != tt.want || !strings.Contains(d.Reason, tt.reason) || d.TooManyRefuted != tt.tooMany || d.Unverified != tt.unver || strings.Join(d.Gaps, "|") != strings.Join(tt.gaps, "|") {
			t.Errorf("%s: %+v, want %s (%q, gaps %q)", tt.name, d, tt.want, tt.reason, tt.gaps)
		}
	}
}
