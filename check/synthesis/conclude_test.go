package synthesis_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/vouchgate/vouch"
	_ "github.com/vouchgate/vouch/check/synthesis"
	"github.com/vouchgate/vouch/engine"
)

// TestFallBack runs syntheses through the engine: one that fails says to
// hand on its outputs, one that will be retried or passes does not.
func TestFallBack(t *testing.T) {
	eng, err := engine.New(engine.Options{Analyzers: []string{"synthesis.outputs"}, Now: func() time.Time { return time.Unix(0, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	req := func(attempt int, answer string) *vouch.Request {
		return &vouch.Request{Kind: vouch.KindSynthesis, Attempt: attempt, Task: vouch.Task{Goal: "Summarise the performance review"},
			Output: vouch.Output{Summary: answer},
			Context: &vouch.Context{Outputs: []vouch.AgentOutput{
				{ID: "bench", Text: "Measured 9,800 requests a second on the staging cluster."},
				{ID: "review", Text: "The handler allocates on every request."},
			}}}
	}
	made := "The service handles 12,000 requests a second; the handler allocates on every request."
	sound := "The service handles 9,800 requests a second on staging; the handler allocates on every request."
	for _, tt := range []struct {
		name     string
		req      *vouch.Request
		verdict  vouch.Verdict
		fallBack bool
	}{
		{"fails on its last attempt", req(3, made), vouch.VerdictFail, true},
		{"retried", req(1, made), vouch.VerdictRetry, false},
		{"passes", req(1, sound), vouch.VerdictPass, false},
	} {
		rep, err := eng.Verify(context.Background(), tt.req)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(rep.Warnings, func(w vouch.Warning) bool { return w.Code == vouch.CodeFallBack })
		if rep.Verdict != tt.verdict || (i >= 0) != tt.fallBack {
			t.Errorf("%s: verdict %s, warnings %+v; want %s, fall back %v", tt.name, rep.Verdict, rep.Warnings, tt.verdict, tt.fallBack)
			continue
		}
		if i >= 0 && !slices.Equal(rep.Warnings[i].Details["outputs"].([]string), []string{"bench", "review"}) {
			t.Errorf("%s: fall back to %v", tt.name, rep.Warnings[i].Details)
		}
	}
}
