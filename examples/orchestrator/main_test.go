package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/event"
	"github.com/vouchgate/vouch/loop"
)

// The example shows every reaction it says it shows.
func TestOrchestrator(t *testing.T) {
	var b strings.Builder
	out, err := run(context.Background(), &b)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + b.String())
	reactions := func(id string) []loop.Reaction {
		var r []loop.Reaction
		for _, a := range out.results[id].Attempts {
			r = append(r, a.Reaction)
		}
		return r
	}
	// A retry that succeeds, on the feedback naming what is missing.
	if got := reactions("docs"); !slices.Equal(got, []loop.Reaction{loop.ReactRetry, loop.ReactAccept}) || out.results["docs"].Outcome != loop.Accepted {
		t.Errorf("docs: %v", got)
	}
	if p := out.prompts["docs"][1]; !strings.Contains(p, "# Previous attempt") || !strings.Contains(p, "missing on Format") {
		t.Errorf("docs retry prompt:\n%s", p)
	}
	// A reformulation by the judge model.
	notes := out.results["notes"]
	if got := reactions("notes"); !slices.Equal(got, []loop.Reaction{loop.ReactReformulate, loop.ReactAccept}) {
		t.Errorf("notes: %v", got)
	}
	if p := out.prompts["notes"][1]; !strings.Contains(p, "the task restated (judge openai:gpt-4o)") || !strings.Contains(p, "Breaking changes: say that --legacy") {
		t.Errorf("notes retry prompt:\n%s", p)
	}
	if notes.Report.Attempt != 2 || notes.Report.Verdict != vouch.VerdictPass {
		t.Errorf("notes report %+v", notes.Report)
	}
	// Follow-ups for the guide's gaps, run and accepted, linked to it.
	guide := out.results["guide"]
	if guide.Outcome != loop.Accepted || len(guide.FollowUps) != 2 {
		t.Fatalf("guide: %s, %d follow-ups", guide.Outcome, len(guide.FollowUps))
	}
	for _, fu := range guide.FollowUps {
		if fu.Result == nil || fu.Result.Outcome != loop.Accepted || fu.Result.ParentID != "guide" {
			t.Errorf("follow-up %s: %+v", fu.Task.ID(), fu.Result)
		}
	}
	// The memory carried the docs agent's invented helpers.go to the guide.
	if p := out.prompts["guide"][0]; !strings.Contains(p, "Known hallucinations") || !strings.Contains(p, `file "helpers.go"`) {
		t.Errorf("guide prompt lacks the known hallucination:\n%s", p)
	}
	// An escalation with the structured error.
	bench := out.results["bench"]
	if bench.Outcome != loop.Escalated || !bench.NeedsReview || len(bench.Attempts) != 3 ||
		!strings.HasPrefix(bench.Escalation.Error, "retries used up") || bench.Escalation.Verdict != vouch.VerdictFail {
		t.Errorf("bench: %s %+v", bench.Outcome, bench.Escalation)
	}
	// The answer: accepted, with the escalated task among the known gaps
	// and the gaps the follow-ups closed left out.
	q := out.answer.Quality
	if out.answer.FellBack || len(q.Gaps) != 1 || !strings.Contains(q.Gaps[0], "task bench was not accepted") {
		t.Errorf("answer %+v", q)
	}
	// The events: every type but clarify, in order, all delivered signed.
	seen := map[event.Type]int{}
	for _, ev := range out.events {
		seen[ev.Type]++
	}
	for typ, n := range map[event.Type]int{event.VerificationComplete: 11, event.VerificationRetry: 4, event.SubtaskFollowUp: 2,
		event.SubtaskEscalated: 1, event.OrchestratorAnswer: 1} {
		if seen[typ] != n {
			t.Errorf("%d %s events, want %d (all: %v)", seen[typ], typ, n, seen)
		}
	}
	if out.events[len(out.events)-1].Type != event.OrchestratorAnswer {
		t.Errorf("last event %s", out.events[len(out.events)-1].Type)
	}
	if out.webhook.Delivered != int64(len(out.events)) || out.badSignatures.Load() != 0 || out.webhook.Dropped != 0 {
		t.Errorf("webhook %+v, %d bad signatures, %d events", out.webhook, out.badSignatures.Load(), len(out.events))
	}
}
