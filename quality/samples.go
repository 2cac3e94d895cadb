package quality

import (
	"context"

	"github.com/vouchgate/vouch/store"
)

// SampleOfRow is the sample of a stored verification, unlabelled. A row
// without a ledger was written before the claim ledger: its row is
// renumbered from the six-row table, unless only the seven-row table
// gives that row (see [SampleOf]).
func SampleOfRow(v *store.Verification) Sample {
	s := Sample{ID: v.ID, Attempt: v.Attempt, Kind: string(v.Kind), Verdict: string(v.Verdict), Row: v.VerdictRow,
		Score: v.Score, Confidence: v.Confidence, Dims: v.Dims, MustUndecided: v.MustUndecided, Injection: v.Injection,
		Ledger: v.Ledger}
	if s.Ledger == nil {
		s.withoutLedger()
	}
	return s
}

// Samples reads the samples of a tenant's window from a store, each with
// its latest label (an override or an outcome), for [Calibrate].
func Samples(ctx context.Context, st Source, tenant string, w store.Window) ([]Sample, error) {
	labels, err := st.Labels(ctx, tenant, w)
	if err != nil {
		return nil, err
	}
	latestLabel, _ := latest(labels)
	var out []Sample
	err = st.Scan(ctx, tenant, w, func(v *store.Verification) error {
		s := SampleOfRow(v)
		if l, ok := latestLabel[ref{v.ID, v.Attempt}]; ok {
			s.Label = &Label{Good: l.Good, Verdict: string(l.Verdict)}
		}
		out = append(out, s)
		return nil
	})
	return out, err
}

// LabelledSamples returns the samples of the labelled verifications of
// labels (as [store.LabelLog.Labels] returns them, oldest first), each with
// its latest label, as [Samples] would give them; in the order of their
// latest labels. It reads no unlabelled verification.
func LabelledSamples(labels []store.Labelled) []Sample {
	latestLabel, _ := latest(labels)
	out := make([]Sample, 0, len(latestLabel))
	for i := range labels {
		l := &labels[i]
		if latestLabel[ref{l.V.ID, l.V.Attempt}] != l {
			continue
		}
		s := SampleOfRow(&l.V)
		s.Label = &Label{Good: l.Good, Verdict: string(l.Verdict)}
		out = append(out, s)
	}
	return out
}
