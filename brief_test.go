package vouch_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vouchgate/vouch"
)

func TestBriefStaysUnderItsBound(t *testing.T) {
	score, cov := 0.41234, 0.5
	long := strings.Repeat(`"quoted" <tag> & ünïcödé `, 200)
	for name, r := range map[string]*vouch.Report{
		"small": {ID: "r1", Attempt: 1, Verdict: vouch.VerdictPass, Action: vouch.ActionAccept, Score: &score, Confidence: 0.9, Coverage: &cov},
		"long everything": {ID: strings.Repeat("i", 300), Attempt: 2, Verdict: vouch.VerdictRetry, Action: vouch.ActionRetry, Score: &score,
			Issues:   []string{"a.check: " + long, "b.check: " + long, "c.check: " + long, "d.check: " + long},
			Feedback: long},
		"one check many issues": {Verdict: vouch.VerdictRetry, Action: vouch.ActionRetry,
			Issues: []string{"x: one", "x: two", "y: three", "x: four", "z: five", "w: six"}, Feedback: "fix x"},
		"escapes only": {Verdict: vouch.VerdictFail, Action: vouch.ActionEscalate, Feedback: strings.Repeat("\"\\\n\t\x01", 400)},
	} {
		b := r.Brief()
		out := vouch.MarshalBrief(b)
		if len(out) >= vouch.BriefMaxBytes {
			t.Errorf("%s: %d bytes, want under %d", name, len(out), vouch.BriefMaxBytes)
		}
		var back vouch.Brief
		if err := json.Unmarshal(out, &back); err != nil || !utf8.Valid(out) {
			t.Fatalf("%s: not valid JSON: %v: %s", name, err, out)
		}
		if back.Verdict != r.Verdict || back.Action != r.Action {
			t.Errorf("%s: verdict %s/%s, want %s/%s", name, back.Verdict, back.Action, r.Verdict, r.Action)
		}
		if len(back.Findings) > 3 {
			t.Errorf("%s: %d findings", name, len(back.Findings))
		}
	}
	b := (&vouch.Report{Issues: []string{"x: one", "x: two", "y: three", "x: four", "z: five", "w: six"}}).Brief()
	if strings.Join(b.Findings, "|") != "x: one|y: three|z: five" {
		t.Errorf("findings %q: want the first of each of the first three checks", b.Findings)
	}
	if got := (&vouch.Report{Score: &score}).Brief().Score; got == nil || *got != 0.412 {
		t.Errorf("score %v, want 0.412", got)
	}
}
