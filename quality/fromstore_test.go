package quality_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/quality"
	"github.com/vouchgate/vouch/store"
)

// tallyFails is a store whose tallies cannot be read.
type tallyFails struct {
	store.Store
	err error
}

func (s tallyFails) Tally(context.Context, string, store.Window) (*store.WindowTally, error) {
	return nil, s.err
}

func TestFromStore(t *testing.T) {
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "v.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	until := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	w := store.Window{Since: until.Add(-time.Hour), Until: until, Kind: "code"}
	m, err := quality.FromStore(t.Context(), st, "default", w)
	if err != nil {
		t.Fatal(err)
	}
	if m.Verifications != 0 || m.CatchRate.Value != nil || !m.Window.Until.Equal(until) || m.Window.Kind != "code" {
		t.Errorf("an empty store's metrics: %+v", m)
	}
	boom := errors.New("boom")
	if _, err := quality.FromStore(t.Context(), tallyFails{st, boom}, "default", w); !errors.Is(err, boom) {
		t.Errorf("a failing store: %v, want it wrapped", err)
	}
}

// TestReliabilityOfLabels checks that the reliability bins computed from
// the labels alone are those of a calibration over the whole window.
func TestReliabilityOfLabels(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "q.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var rows []*store.Verification
	for i := range 40 {
		score, verdict := float64(i%10)/10+0.05, vouch.VerdictPass
		if score < 0.5 {
			verdict = vouch.VerdictRetry
		}
		rows = append(rows, &store.Verification{Tenant: "t", ID: fmt.Sprintf("v%d", i), Attempt: 1, IdempotencyKey: fmt.Sprintf("v%d/1", i),
			RequestHash: "h", Kind: vouch.KindAnswer, Verdict: verdict, Action: vouch.ActionAccept, Score: &score, Confidence: score, VerdictRow: 6,
			Result: []byte("{}"), CreatedAt: base.Add(time.Duration(i) * time.Minute)})
	}
	if _, err := st.Import(ctx, rows); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		id := fmt.Sprintf("v%d", i)
		// Some labelled twice: the latest label counts.
		if err := st.AddOutcome(ctx, &store.Outcome{Tenant: "t", VerificationID: id, Good: i%3 != 0}); err != nil {
			t.Fatal(err)
		}
		if i%4 == 0 {
			if err := st.AddOverride(ctx, &store.Override{Tenant: "t", VerificationID: id, Verdict: "pass", Reviewer: "r"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	w := store.Window{Since: base, Until: base.Add(time.Hour)}
	samples, err := quality.Samples(ctx, st, "t", w)
	if err != nil {
		t.Fatal(err)
	}
	pol := vouch.DefaultPolicy()
	c, err := quality.Calibrate(samples, &pol, quality.CalibrateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	labels, err := st.Labels(ctx, "t", w)
	if err != nil {
		t.Fatal(err)
	}
	ls := quality.LabelledSamples(labels)
	if len(ls) != 30 {
		t.Errorf("%d labelled samples, want 30", len(ls))
	}
	if diff := cmp.Diff(c.Reliability, quality.Reliability(ls)); diff != "" {
		t.Errorf("reliability from the labels differs from the calibration's (-calibration +labels):\n%s", diff)
	}
	if diff := cmp.Diff(c.Reliability, quality.Reliability(samples)); diff != "" {
		t.Errorf("Reliability of all samples differs from the calibration's:\n%s", diff)
	}
}
