package server

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/event"
	"github.com/vouchgate/vouch/wire"
)

// TestEventsEncodedAsPackageEvent holds the events the server writes to
// the bytes package event would write for the same events.
func TestEventsEncodedAsPackageEvent(t *testing.T) {
	conf := 0.9
	req, err := wire.DecodeRequest(request("r1", 1, "nope"), wire.Options{})
	if err != nil {
		t.Fatal(err)
	}
	req.Output.SelfAssessment = &vouch.SelfAssessment{Confidence: &conf, Gaps: []string{"none"}}
	e := newEnv(t, nil)
	rep, err := e.srv.plain.Verify(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	result, err := wire.MarshalReport(rep)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	evs, err := e.srv.events("acme", now, req, rep, result)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 {
		t.Fatalf("%d events, want complete and retry", len(evs))
	}
	var got event.Event
	if err := json.Unmarshal(evs[0].Data, &got); err != nil {
		t.Fatalf("the complete event does not decode: %v\n%s", err, evs[0].Data)
	}
	want := event.Event{Type: event.VerificationComplete, ID: got.ID, Time: now, Tenant: "acme", InteractionID: "run-1", TaskID: "t-r1", Attempt: 1,
		Data: &event.Complete{Report: rep, SelfAssessment: event.NewSelfAssessment(&req.Output, rep, req.Task.Executor)}}
	wantJSON, err := json.Marshal(&want)
	if err != nil {
		t.Fatal(err)
	}
	if string(wantJSON) != string(evs[0].Data) {
		t.Errorf("complete event:\n got %s\nwant %s", evs[0].Data, wantJSON)
	}
	c, ok := got.Data.(*event.Complete)
	if !ok || c.Report.ID != "r1" || c.SelfAssessment == nil || c.SelfAssessment.Bias == nil {
		t.Errorf("decoded data: %#v", got.Data)
	}
}
