package quality_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

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
