package engine_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/internal/testws"
	"github.com/vouchgate/vouch/wire"
)

// feedbackFor verifies a request, with files as its workspace when given.
func feedbackFor(t *testing.T, request string, files map[string]string) *vouch.Report {
	t.Helper()
	req, err := wire.DecodeRequest([]byte(request), wire.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if files != nil {
		req.Workspace = testws.Dir(t, files)
	}
	eng, err := engine.New(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := eng.Verify(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// items returns the "- " lines of a feedback text.
func items(fb string) []string {
	var out []string
	for _, l := range strings.Split(fb, "\n") {
		if strings.HasPrefix(l, "- ") {
			out = append(out, l)
		}
	}
	return out
}

var evidenceDump = regexp.MustCompile(`\b[a-zA-Z]+=("|\[|[0-9])`)

const lexUndocumented = "package lex\n\n// Lex splits src.\nfunc Lex(src string) []string { return nil }\n\nfunc Join(parts []string) string { return \"\" }\n\nfunc Split(s string) []string { return nil }\n"

// TestFeedbackForTheAgent: feedback has one line per thing to fix, the
// must-pass ones first, no fact twice, plain sentences without key=value
// evidence, and the exact fixes on a second attempt.
func TestFeedbackForTheAgent(t *testing.T) {
	t.Run("doc comment missing: one line, not DOC_MISSING and COUNT_MISMATCH both", func(t *testing.T) {
		rep := feedbackFor(t, `{"task":{"goal":"Add doc comments to Lex, Join and Split in lex/lex.go"},"output":{"summary":"Added doc comments to all 3 functions.","modified":["lex/lex.go"]}}`,
			map[string]string{"lex/lex.go": lexUndocumented})
		codes := map[string]bool{}
		for _, c := range rep.Checks {
			if c.Status == vouch.StatusFail {
				codes[c.Code] = true
			}
		}
		if !codes[vouch.CodeDocMissing] || !codes[vouch.CodeCountMismatch] {
			t.Fatalf("want both DOC_MISSING and COUNT_MISMATCH to fail, got %v", codes)
		}
		its := items(rep.Feedback)
		if len(its) != 1 {
			t.Errorf("want one line to fix, got %d:\n%s", len(its), rep.Feedback)
		}
		for _, name := range []string{"Join", "Split"} {
			if n := strings.Count(rep.Feedback, name); n != 1 {
				t.Errorf("%s named %d times:\n%s", name, n, rep.Feedback)
			}
		}
		if evidenceDump.MatchString(rep.Feedback) {
			t.Errorf("key=value evidence in feedback:\n%s", rep.Feedback)
		}
	})
	t.Run("second attempt: exact fixes, once", func(t *testing.T) {
		rep := feedbackFor(t, `{"attempt":2,"task":{"goal":"Add doc comments to Lex, Join and Split in lex/lex.go"},"output":{"summary":"Added doc comments to all 3 functions.","modified":["lex/lex.go"]}}`,
			map[string]string{"lex/lex.go": lexUndocumented})
		if !strings.Contains(rep.Feedback, "Exactly these: Join (lex/lex.go:6); Split (lex/lex.go:8)\n") {
			t.Errorf("exact fixes missing or repeated:\n%s", rep.Feedback)
		}
	})
	t.Run("must-pass first", func(t *testing.T) {
		rep := feedbackFor(t, `{"task":{"goal":"Write the status","criteria":[{"id":"alpha","check":{"type":"contains","value":"alpha"}},{"id":"done","must":true,"check":{"type":"contains","value":"DONE"}}]},"output":{"summary":"Status written."}}`, nil)
		its := items(rep.Feedback)
		if len(its) != 2 || !strings.Contains(its[0], `"DONE"`) || !strings.Contains(its[1], `"alpha"`) {
			t.Errorf("want the must-pass DONE first, then alpha:\n%s", rep.Feedback)
		}
		if evidenceDump.MatchString(rep.Feedback) {
			t.Errorf("key=value evidence in feedback:\n%s", rep.Feedback)
		}
	})
	t.Run("a failed check beside nothing decided", func(t *testing.T) {
		rep := feedbackFor(t, `{"task":{"goal":"Summarise the meeting"},"output":{"summary":"The meeting went well and we agreed to"}}`, nil)
		if rep.Score != nil {
			t.Fatalf("score %v, want null", *rep.Score)
		}
		if strings.Contains(rep.Feedback, "nothing in it could be checked") || len(items(rep.Feedback)) != 1 {
			t.Errorf("feedback contradicts the failed check:\n%s", rep.Feedback)
		}
		if !strings.Contains(rep.Reason, "output.summary failed") {
			t.Errorf("reason %q", rep.Reason)
		}
	})
}

// TestFeedbackNothingCheckable: when nothing could be checked, the work is
// unverified, not sent back. Accepted as such (the default onUnverified),
// it gets no feedback: there is nothing for the agent to change. Asked as
// a follow-up, the feedback puts each unverified claim to the agent as a
// question; with no claim, it says what the agent could add, or, when the
// cause is on vouch's side, that a reviewer decides.
func TestFeedbackNothingCheckable(t *testing.T) {
	rep := feedbackFor(t, `{"task":{"goal":"Summarise the meeting"},"output":{"summary":"I wrote up the meeting notes."}}`, nil)
	if rep.Verdict != vouch.VerdictUnverified || rep.Action != vouch.ActionAccept || rep.Feedback != "" {
		t.Errorf("%s/%s, want unverified/accept with no feedback:\n%s", rep.Verdict, rep.Action, rep.Feedback)
	}
	if !strings.Contains(rep.Reason, "could not be checked") || !strings.Contains(rep.Reason, "nothing was found false") {
		t.Errorf("reason %q", rep.Reason)
	}
	rep = feedbackFor(t, `{"task":{"goal":"Summarise the meeting","policy":{"onUnverified":"follow_up"}},"output":{"summary":"I wrote up the meeting notes."}}`, nil)
	if rep.Action != vouch.ActionFollowUp || !strings.Contains(rep.Feedback, `"I wrote up the meeting notes"`) || !strings.Contains(rep.Feedback, "or withdraw it") {
		t.Errorf("%s: want the claim asked as a question:\n%s", rep.Action, rep.Feedback)
	}
	if strings.Contains(rep.Feedback, "not accepted") || strings.Contains(rep.Feedback, "Fix") {
		t.Errorf("nothing was found false, but the feedback asks for a fix:\n%s", rep.Feedback)
	}
	// No claim at all, nothing decided: what the agent could add.
	rep = feedbackFor(t, `{"task":{"goal":"Summarise the meeting","policy":{"onUnverified":"follow_up"}},"output":{"summary":"Here is the summary."}}`, nil)
	if rep.Score != nil || !strings.Contains(rep.Feedback, "list the files you created, modified or deleted") {
		t.Errorf("nothing to act on:\n%s", rep.Feedback)
	}
	// A command criterion the policy does not allow: vouch's side.
	rep = feedbackFor(t, `{"task":{"goal":"Build it","policy":{"onUnverified":"follow_up"},"criteria":[{"id":"build","check":{"type":"command","run":["make"]}}]},"output":{"summary":"Here is the build log."}}`, map[string]string{"Makefile": "all:\n"})
	if rep.Score != nil {
		t.Skipf("score %v: the case decides something", *rep.Score)
	}
	if !strings.Contains(rep.Feedback, "A reviewer decides") || strings.Contains(rep.Feedback, "list the files") {
		t.Errorf("want a reviewer to decide:\n%s", rep.Feedback)
	}
}

// TestReportReason: every report says why its verdict is what it is, and
// which row of the verdict table decided.
func TestReportReason(t *testing.T) {
	for _, tt := range []struct {
		request string
		row     int
		why     string
	}{
		{`{"task":{"goal":"Write the release notes","criteria":[{"id":"tone","text":"The notes are friendly","must":true},{"id":"has","check":{"type":"contains","value":"Release"}}]},"output":{"summary":"Release 1.2 adds dark mode."}}`,
			4, "must-pass criterion tone could not be decided"},
		{`{"task":{"goal":"Write the status","criteria":[{"id":"done","must":true,"check":{"type":"contains","value":"DONE"}}]},"output":{"summary":"Status written."}}`,
			1, "must-pass check contains:done failed"},
		{`{"task":{"goal":"Write the status","criteria":[{"id":"done","check":{"type":"contains","value":"done"}}]},"output":{"summary":"Status written: done."}}`,
			7, "every claim (1) was checked and holds"},
		{`{"task":{"goal":"Write the status","criteria":[{"id":"done","check":{"type":"contains","value":"done"}}]},"output":{"summary":"Status written: done. All tests pass."}}`,
			6, "could not be checked, and nothing was found false"},
		{`{"task":{"goal":"Write the status","criteria":[{"id":"done","check":{"type":"contains","value":"done"}}]},"output":{"summary":"done"}}`,
			7, "reaches 0.70"},
	} {
		rep := feedbackFor(t, tt.request, nil)
		if rep.VerdictRow != tt.row || !strings.Contains(rep.Reason, tt.why) {
			t.Errorf("row %d reason %q, want row %d and %q", rep.VerdictRow, rep.Reason, tt.row, tt.why)
		}
	}
}
