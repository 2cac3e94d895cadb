package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/client"
	"github.com/vouchgate/vouch/quality"
	"github.com/vouchgate/vouch/server"
	"github.com/vouchgate/vouch/store"
)

func newServer(t *testing.T) *client.Client {
	t.Helper()
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "v.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv, err := server.New(server.Options{Config: server.DefaultConfig(), Store: st})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	c, err := client.New(hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func request(id, summary string) *vouch.Request {
	spec := vouch.NewCheckSpec("contains", false, map[string]any{"value": "DONE"})
	return &vouch.Request{ID: id, Task: vouch.Task{ID: "t-" + id, Goal: "say done",
		Criteria: []vouch.Criterion{{ID: "c1", Text: "says DONE", Must: true, Check: &spec}}},
		Output: vouch.Output{Summary: summary}}
}

func TestClient(t *testing.T) {
	c := newServer(t)
	ctx := t.Context()
	rep, err := c.Verify(ctx, request("r1", "DONE"), "")
	if err != nil {
		t.Fatal(err)
	}
	if rep.ID != "r1" || rep.Verdict != vouch.VerdictPass {
		t.Fatalf("report %s %s", rep.ID, rep.Verdict)
	}
	_, err = c.Verify(ctx, request("r1", "something else"), "")
	if !client.IsConflict(err) {
		t.Errorf("same id, other body: %v, want a conflict", err)
	}
	var e *client.Error
	if !errors.As(err, &e) || e.Code != "idempotency_conflict" {
		t.Errorf("conflict error: %#v", err)
	}
	if _, err := c.Verify(ctx, request("r2", "not yet"), "key-2"); err != nil {
		t.Fatal(err)
	}
	got, err := c.Verification(ctx, "r2", 0)
	if err != nil || got.Verdict == vouch.VerdictPass || len(got.Overrides) != 0 {
		t.Errorf("Verification: %v %+v", err, got)
	}
	if _, err := c.Verification(ctx, "nope", 0); !client.IsNotFound(err) {
		t.Errorf("unknown id: %v", err)
	}
	list, err := c.List(ctx, client.Query{Verdict: "pass"})
	if err != nil || len(list.Items) != 1 || list.Items[0].ID != "r1" {
		t.Errorf("List: %v %+v", err, list)
	}
	page, err := c.List(ctx, client.Query{Limit: 1})
	if err != nil || len(page.Items) != 1 || page.Next == "" {
		t.Fatalf("first page: %v %+v", err, page)
	}
	page2, err := c.List(ctx, client.Query{Limit: 1, Cursor: page.Next})
	if err != nil || len(page2.Items) != 1 || page2.Items[0].ID == page.Items[0].ID {
		t.Errorf("second page: %v %+v", err, page2)
	}
	_, err = c.List(ctx, client.Query{Kind: "essay"})
	if !errors.As(err, &e) || e.Status != 400 || len(e.Problems) == 0 || e.Problems[0].Path != "kind" {
		t.Errorf("bad kind: %#v", err)
	}

	task, err := c.VerifyTask(ctx, api.TaskInput{TaskDescription: "say hi", SuccessCriteria: []string{"greets"}, TaskOutput: "hi"})
	if err != nil || task.ID == "" || len(task.CriteriaScores) != 1 || task.CriteriaScores[0].Met != nil {
		t.Errorf("VerifyTask: %v %+v", err, task)
	}

	b, err := c.CreateBatch(ctx, [][]byte{[]byte(`{"id":"b1","task":{},"output":{"summary":"x"}}`), []byte(`{bad`)})
	if err != nil || b.Total != 2 {
		t.Fatalf("CreateBatch: %v %+v", err, b)
	}
	if _, err := c.Batch(ctx, b.ID); err != nil {
		t.Error(err)
	}
	var lines int
	if err := c.BatchResults(ctx, b.ID, func([]byte) error { lines++; return nil }); err != nil || lines != 2 {
		t.Errorf("BatchResults: %v, %d lines", err, lines)
	}
}

func TestClientEvents(t *testing.T) {
	c := newServer(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := c.Verify(ctx, request("e1", "nope"), ""); err != nil {
		t.Fatal(err)
	}
	var types []string
	stop := errors.New("enough")
	last, err := c.Events(ctx, "0", func(ev client.Event) error {
		types = append(types, ev.Type)
		if !strings.Contains(string(ev.Data), `"taskId":"t-e1"`) {
			t.Errorf("event data: %.100s", ev.Data)
		}
		if len(types) == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || last == "" || strings.Join(types, ",") != "verification:complete,verification:retry" {
		t.Errorf("Events: %v, last %q, types %v", err, last, types)
	}
}

func TestClientRetriesOverload(t *testing.T) {
	var calls atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) < 3 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"error":{"code":"overloaded","message":"busy"}}`))
			return
		}
		w.Write([]byte(`{"id":"r","verdict":"pass"}`))
	}))
	defer hs.Close()
	c, _ := client.New(hs.URL, client.WithRetries(3, time.Millisecond))
	if _, err := c.Verify(t.Context(), request("r", "DONE"), ""); err != nil || calls.Load() != 3 {
		t.Errorf("after two 429s: %v, %d calls", err, calls.Load())
	}
	calls.Store(0)
	c, _ = client.New(hs.URL, client.WithRetries(0, 0))
	_, err := c.Verify(t.Context(), request("r", "DONE"), "")
	var e *client.Error
	if !errors.As(err, &e) || e.Status != 429 || e.Code != "overloaded" {
		t.Errorf("no retries: %v", err)
	}
	if _, err := client.New("localhost:8080"); err == nil {
		t.Error("a URL without a scheme was accepted")
	}
}

func TestClientLabelsAndMetrics(t *testing.T) {
	c := newServer(t)
	ctx := t.Context()
	// a passes; b is sent back (no DONE).
	for _, r := range []*vouch.Request{request("a", "DONE"), request("b", "not yet")} {
		if _, err := c.Verify(ctx, r, ""); err != nil {
			t.Fatal(err)
		}
	}
	ov, err := c.Override(ctx, "a", api.OverrideInput{Verdict: "fail", Reason: "the file is missing", Reviewer: "ana"})
	if err != nil || ov.VerificationID != "a" || ov.Attempt != 1 || ov.Verdict != "fail" || ov.Reviewer != "ana" || ov.CreatedAt.IsZero() {
		t.Fatalf("Override: %v %+v", err, ov)
	}
	if _, err := c.Override(ctx, "nope", api.OverrideInput{Verdict: "fail"}); !client.IsNotFound(err) {
		t.Errorf("override of an unknown id: %v, want a 404", err)
	}
	var e *client.Error
	if _, err := c.Override(ctx, "a", api.OverrideInput{Verdict: "maybe"}); !errors.As(err, &e) || e.Status != 400 || !strings.Contains(e.Message, "pass, retry or fail") {
		t.Errorf("bad verdict: %v", err)
	}
	bad := false
	oc, err := c.Outcome(ctx, api.OutcomeInput{TaskID: "t-b", Good: &bad, Detail: "not done", Reporter: "ci"})
	if err != nil || oc.VerificationID != "b" || oc.Attempt != 1 || oc.Good == nil || *oc.Good || oc.Reporter != "ci" {
		t.Fatalf("Outcome: %v %+v", err, oc)
	}
	if _, err := c.Outcome(ctx, api.OutcomeInput{TaskID: "t-none", Good: &bad}); !client.IsNotFound(err) {
		t.Errorf("outcome of an unknown task: %v, want a 404", err)
	}

	m, err := c.Metrics(ctx, client.MetricsQuery{Window: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if m.Verifications != 2 || m.CatchRate.String() != "0.50 (1/2)" || m.FalseAlarmRate.String() != "0.00 (0/2)" || m.Labels.Labelled != 2 {
		t.Errorf("metrics: %d verifications, catch %v, false alarms %v, labels %+v", m.Verifications, m.CatchRate, m.FalseAlarmRate, m.Labels)
	}
	// The figures of the verdict unverified and of the claim ledger come
	// through the client too.
	if m.UnverifiedRate.Of != m.Verifications || m.Ledgers != m.Verifications || m.Coverage.Of == 0 {
		t.Errorf("metrics: unverified rate %v, %d ledgers, coverage %v", m.UnverifiedRate, m.Ledgers, m.Coverage)
	}
	if span := m.Window.Until.Sub(m.Window.Since); span != time.Hour {
		t.Errorf("window %v, want an hour", span)
	}
	until := time.Now().Add(time.Minute)
	if m, err := c.Metrics(ctx, client.MetricsQuery{Since: until.Add(-time.Hour), Until: until, Kind: "answer"}); err != nil || m.Verifications != 0 || m.Window.Kind != "answer" {
		t.Errorf("another kind: %v %+v", err, m)
	}
	if _, err := c.Metrics(ctx, client.MetricsQuery{Since: until, Window: time.Hour}); !errors.As(err, &e) || e.Status != 400 {
		t.Errorf("since and window: %v, want a 400", err)
	}

	rep, err := c.Alerts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, a := range rep.Alerts {
		names[a.Name] = true
		if a.Firing {
			t.Errorf("%s fires on 2 labels, under the default minimum", a.Name)
		}
	}
	if len(names) != 5 || !names[quality.AlertCatchRate] || !names[quality.AlertUnverifiedRate] || rep.Window.Until.IsZero() {
		t.Errorf("alerts %+v", rep)
	}
}
