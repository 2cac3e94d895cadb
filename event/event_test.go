package event_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/event"
)

func ptr[T any](v T) *T { return &v }

// fixed is an emitter option set with a fixed clock and counting ids.
func fixed() event.Options {
	var mu sync.Mutex
	n := 0
	return event.Options{
		Tenant: "acme",
		Now:    func() time.Time { return time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC) },
		NewID: func() string {
			mu.Lock()
			defer mu.Unlock()
			n++
			return fmt.Sprintf("ev-%d", n)
		},
	}
}

func sampleReport() *vouch.Report {
	return &vouch.Report{APIVersion: "vouch/v1", ID: "r-1", Kind: vouch.KindSubtask, Attempt: 2,
		Verdict: vouch.VerdictRetry, Action: vouch.ActionRetry, VerdictRow: 2, Score: ptr(0.58), Confidence: 0.9,
		Dimensions: map[string]vouch.Dimension{
			"claims":       {Score: ptr(0.62), State: vouch.StateDecided, Weight: 0.4},
			"completeness": {State: vouch.StateUndecided, Weight: 0.1},
		},
		Criteria: []vouch.CriterionResult{}, Checks: []vouch.CheckResult{},
		Mentions: vouch.Mentions{Verified: []vouch.VerifiedMention{}, Unverified: []vouch.UnverifiedMention{{Text: "helpers.go", Kind: vouch.MentionFile, Sentence: "I fixed helpers.go."}}},
		Gaps:     []string{}, Issues: []string{"claims.count: 1 of 4"}, Suggestions: []string{"document tokenize"},
		Warnings: []vouch.Warning{}, Feedback: "Fix tokenize."}
}

// Every type round-trips through JSON with its data as the type's struct,
// and the envelope has exactly the keys of the contract.
func TestRoundTrip(t *testing.T) {
	events := []event.Event{
		{Type: event.VerificationComplete, InteractionID: "i-1", TaskID: "t-1", Attempt: 2,
			Data: &event.Complete{Report: sampleReport(), SelfAssessment: &event.SelfAssessment{Confidence: ptr(0.95), VerifiedConfidence: 0.9, Bias: ptr(0.05)}}},
		{Type: event.VerificationRetry, TaskID: "t-1", Attempt: 2, Data: &event.Retry{Feedback: "Fix tokenize.", Action: vouch.ActionRetry}},
		{Type: event.SubtaskFollowUp, TaskID: "t-1/followup-1", Attempt: 0, Data: &event.FollowUp{ParentID: "t-1", Gap: "no tests", Goal: "Add tests"}},
		{Type: event.SubtaskClarify, TaskID: "s", Attempt: 1, Data: &event.Clarify{Question: "Which is right?", Conflicts: []event.Conflict{{Subject: "p99",
			Sides: [2]event.Side{{Source: "a", Says: "340 ms"}, {Source: "b", Says: "120 ms"}}}}}},
		{Type: event.SubtaskEscalated, TaskID: "t-1", Attempt: 3, Data: event.NewEscalation("retries used up", sampleReport())},
		{Type: event.OrchestratorAnswer, TaskID: "answer", Data: &event.Answer{Confidence: 0.7, Gaps: []string{"no tests"}, UnverifiedMentions: []vouch.UnverifiedMention{}, Warnings: []vouch.Warning{}}},
	}
	em := event.NewEmitter(fixed())
	for _, in := range events {
		sent, err := em.Emit(in)
		if err != nil {
			t.Fatal(err)
		}
		if sent.ID == "" || sent.Tenant != "acme" || sent.Time.IsZero() {
			t.Errorf("%s: not stamped: %+v", in.Type, sent)
		}
		raw, err := json.Marshal(&sent)
		if err != nil {
			t.Fatal(err)
		}
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(raw, &keys); err != nil {
			t.Fatal(err)
		}
		var names []string
		for k := range keys {
			names = append(names, k)
		}
		if len(names) != 8 {
			t.Errorf("%s: keys %v, want the 8 of {type, id, time, tenant, interactionId, taskId, attempt, data}", in.Type, names)
		}
		var back event.Event
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatalf("%s: %v", in.Type, err)
		}
		again, _ := json.Marshal(&back)
		if !bytes.Equal(raw, again) {
			t.Errorf("%s: round trip differs:\n%s\n%s", in.Type, raw, again)
		}
		if fmt.Sprintf("%T", back.Data) != fmt.Sprintf("%T", in.Data) {
			t.Errorf("%s: data decoded as %T, want %T", in.Type, back.Data, in.Data)
		}
	}
	// The escalation carries the report's scores by dimension, null for an
	// undecided one.
	esc := event.NewEscalation("retries used up", sampleReport())
	if *esc.Scores["claims"] != 0.62 || esc.Scores["completeness"] != nil || esc.Verdict != vouch.VerdictRetry || esc.Issues[0] != "claims.count: 1 of 4" {
		t.Errorf("escalation %+v", esc)
	}
	if e := event.NewEscalation("executor failed", nil); e.Score != nil || e.Verdict != "" || e.Issues == nil {
		t.Errorf("escalation without a report %+v", e)
	}
}

func TestUnknownTypeKeepsRawData(t *testing.T) {
	var ev event.Event
	if err := json.Unmarshal([]byte(`{"type":"x:y","id":"1","data":{"a":1}}`), &ev); err != nil {
		t.Fatal(err)
	}
	if raw, ok := ev.Data.(json.RawMessage); !ok || string(raw) != `{"a":1}` {
		t.Errorf("data %T %s", ev.Data, ev.Data)
	}
	if err := json.Unmarshal([]byte(`{"type":"verification:retry","data":{"feedback":3}}`), &ev); err == nil {
		t.Error("a retry whose feedback is a number decoded")
	}
}

func TestChannelDropsWhenFull(t *testing.T) {
	ch := make(chan event.Event, 2)
	c := event.NewChannel(ch)
	em := event.NewEmitter(fixed(), c)
	for i := range 3 {
		_, err := em.Emit(event.Event{Type: event.VerificationRetry, Attempt: i + 1, Data: &event.Retry{}})
		if (err != nil) != (i == 2) || (err != nil && !errors.Is(err, event.ErrDropped)) {
			t.Errorf("emit %d: %v", i, err)
		}
	}
	if c.Dropped() != 1 || em.Failures() != 1 || len(ch) != 2 {
		t.Errorf("dropped %d, failures %d, queued %d", c.Dropped(), em.Failures(), len(ch))
	}
	if ev := <-ch; ev.Attempt != 1 || ev.ID != "ev-1" {
		t.Errorf("first event %+v", ev)
	}
}

// A nil emitter takes events and does nothing.
func TestNilEmitter(t *testing.T) {
	var em *event.Emitter
	if _, err := em.Emit(event.Event{Type: event.VerificationRetry}); err != nil || em.Failures() != 0 || em.Close(context.Background()) != nil {
		t.Error("nil emitter")
	}
}

// Concurrent emitters write whole lines; a file that ends mid-line (a
// write cut short) gets its next line on a line of its own, and the
// reader skips the cut line.
func TestJSONL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(path, []byte(`{"type":"verification:retry","id":"old","data":{"feedback":"x"}}`+"\n"+`{"type":"verification:re`), 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := event.OpenJSONL(path)
	if err != nil {
		t.Fatal(err)
	}
	em := event.NewEmitter(fixed(), j)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 10 {
				if _, err := em.Emit(event.Event{Type: event.VerificationComplete, TaskID: fmt.Sprintf("t%d", g), Attempt: i + 1,
					Data: &event.Complete{Report: sampleReport()}}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if err := em.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := j.Send(&event.Event{}, []byte("{}")); err == nil {
		t.Error("send after close succeeded")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 82 || lines[1] != `{"type":"verification:re` {
		t.Fatalf("%d lines; second %q", len(lines), lines[1])
	}
	// The cut line is not an event: a reader skips only a cut *last*
	// line, so read from the first whole line after it.
	rest := strings.Join(lines[2:], "\n") + "\n"
	evs, err := event.ReadJSONL(strings.NewReader(rest))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, ev := range evs {
		c, ok := ev.Data.(*event.Complete)
		if !ok || c.Report == nil || c.Report.ID != "r-1" || *c.Report.Score != 0.58 {
			t.Fatalf("event %+v", ev)
		}
		seen[ev.TaskID]++
	}
	if len(evs) != 80 || len(seen) != 8 || seen["t3"] != 10 {
		t.Errorf("%d events, by task %v", len(evs), seen)
	}
	// A stream whose last line was cut short reads up to it.
	evs, err = event.ReadJSONL(strings.NewReader(lines[0] + "\n" + `{"type":"verification:com`))
	if err != nil || len(evs) != 1 || evs[0].ID != "old" {
		t.Errorf("cut stream: %d events, %v", len(evs), err)
	}
	if _, err := event.ReadJSONL(strings.NewReader("{\n")); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("bad line: %v", err)
	}
}
