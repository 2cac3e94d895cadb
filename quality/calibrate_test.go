package quality

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/policy"
	"github.com/vouchgate/vouch/store"
)

// The tolerances of the recovery tests: a fitted passAt or failBelow
// within 0.03 of the truth, each fitted weight within 0.05.
const (
	thresholdTolerance = 0.03
	weightTolerance    = 0.05
)

// history describes a synthetic history of answer verifications whose
// truth is known: each output has a latent quality, the truth's weights
// times its dimension scores (uniform in [0,1]) plus Gaussian noise; it is
// good when the latent reaches passAt and, for a reviewer, a fail when it
// is below failBelow (a retry between). The gate decided each output under
// the base policy, whose weights and thresholds are not the truth's.
type history struct {
	seed      uint64
	n         int // verifications
	every     int // one in every labelled; 0: none
	noise     float64
	truth     map[string]float64
	passAt    float64
	failBelow float64
	// overrides labels with a reviewer's verdict (pass, retry, fail), not
	// an outcome's good or bad.
	overrides bool
	// gate labels each labelled verification with the gate's own verdict:
	// a history the base policy is perfectly calibrated to.
	gate bool
	// kind is the kind of the verifications, answer when empty.
	kind vouch.Kind
	// unverified is the percentage of the outputs with a score that
	// leave a claim unverified: unverified at or above passAt.
	unverified int
}

// truthWeights are the weights of the synthetic truth, not those of the
// default policy (groundedness 0.5, completeness 0.3, criteria 0.2).
var truthWeights = map[string]float64{vouch.DimCriteria: 0.6, vouch.DimGroundedness: 0.3, vouch.DimCompleteness: 0.1}

func (h history) samples(base *vouch.Policy) []Sample {
	r := rand.New(rand.NewPCG(h.seed, 0x5eed))
	kind := h.kind
	if kind == "" {
		kind = vouch.KindAnswer
	}
	dims := vouch.Dimensions(kind)
	out := make([]Sample, h.n)
	for i := range out {
		s := Sample{ID: "v" + itoa(i), Kind: string(kind), Confidence: 0.3 + 0.7*r.Float64()}
		switch a := r.IntN(10); {
		case a < 7:
			s.Attempt = 1
		case a < 9:
			s.Attempt = 2
		default:
			s.Attempt = 3
		}
		latent := r.NormFloat64() * h.noise
		// Three claims, all decided, but for some outputs: one claim in
		// three left unverified (row 6 at or above passAt).
		in := vouch.VerdictInputs{Claims: 3}
		s.Ledger = &store.Ledger{Claims: 3}
		switch k := r.IntN(100); {
		case k < 2: // row 6: nothing decided, every claim unverified
			in.Unverified = 3
			s.Ledger.Unverified, s.Ledger.LeftUnverified = 3, true
		default:
			s.Dims = make(map[string]float64, len(dims))
			for _, d := range dims {
				v := math.Round(r.Float64()*1e4) / 1e4
				s.Dims[d] = v
				latent += h.truth[d] * v
			}
			in.Score = vouch.Score(base, kind, s.Dims)
			switch {
			case k < 5: // row 1
				in.MustFailed = true
				in.Refuted = 1
				s.Ledger.Refuted = 1
			case k < 7:
				in.MustUndecided = true
			case k < 8:
				in.Injection = true
			case k < 8+h.unverified:
				in.Unverified = 1
				s.Ledger.Unverified, s.Ledger.LeftUnverified = 1, true
			}
		}
		s.MustUndecided, s.Injection, s.Score = in.MustUndecided, in.Injection, in.Score
		v, _, row := vouch.Decide(base, s.Attempt, in)
		s.Verdict, s.Row = string(v), row
		if h.every > 0 && i%h.every == 0 {
			var l Label
			switch {
			case h.gate && s.Verdict == string(vouch.VerdictUnverified):
				// Nothing to agree with: an outcome, which costs
				// nothing against unverified.
				l = Label{Good: latent >= h.passAt}
			case h.gate:
				l = LabelOfVerdict(s.Verdict)
			case h.overrides && latent >= h.passAt:
				l = LabelOfVerdict("pass")
			case h.overrides && latent >= h.failBelow:
				l = LabelOfVerdict("retry")
			case h.overrides:
				l = LabelOfVerdict("fail")
			default:
				l = Label{Good: latent >= h.passAt}
			}
			s.Label = &l
		}
		out[i] = s
	}
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }

func mustCalibrate(t testing.TB, samples []Sample, base *vouch.Policy, opts CalibrateOptions) *Calibration {
	t.Helper()
	c, err := Calibrate(samples, base, opts)
	if err != nil {
		t.Fatalf("Calibrate: %v", err)
	}
	return c
}

func logSuggestion(t *testing.T, name string, s *Suggestion) {
	t.Helper()
	if s == nil {
		t.Logf("%s: none", name)
		return
	}
	t.Logf("%s: passAt %.2f failBelow %.2f weights %v; correlation %s over %d; disagreement %.1f -> %.1f of %d labels; changes %+v",
		name, s.PassAt, s.FailBelow, s.Weights, fmtRate(s.Correlation.Value), s.Correlation.N,
		s.Disagreement.Before, s.Disagreement.After, s.Disagreement.Labels, s.Changes)
}

func fmtRate(r *float64) string {
	if r == nil {
		return "nil"
	}
	b, _ := json.Marshal(*r)
	return string(b)
}

// TestCalibrateRecoversTruth fits synthetic histories whose truth is
// known: passAt 0.72 and weights criteria 0.6, groundedness 0.3,
// completeness 0.1, under a base policy of passAt 0.7, failBelow 0.5 and
// the default answer weights (groundedness 0.5, completeness 0.3, criteria
// 0.2). The fitted passAt must be within 0.03 of the truth, each weight
// within 0.05; with reviewers' retry and fail, failBelow (truth 0.45)
// within 0.03 too.
func TestCalibrateRecoversTruth(t *testing.T) {
	base := vouch.DefaultPolicy()
	tests := []struct {
		name      string
		h         history
		failBelow float64 // the failBelow expected: the truth's, or the base's when labels cannot tell
	}{
		{"outcomes", history{seed: 1, n: 20000, every: 4, noise: 0.02, truth: truthWeights, passAt: 0.72, failBelow: 0.45}, 0.5},
		{"overrides", history{seed: 2, n: 20000, every: 4, noise: 0.02, truth: truthWeights, passAt: 0.72, failBelow: 0.45, overrides: true}, 0.45},
		{"outcomes, some unverified", history{seed: 13, n: 20000, every: 4, noise: 0.02, truth: truthWeights, passAt: 0.72, failBelow: 0.45, unverified: 10}, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			samples := tt.h.samples(&base)
			c := mustCalibrate(t, samples, &base, CalibrateOptions{})
			if !c.Enough {
				t.Fatalf("Enough = false: %s", c.Message)
			}
			t.Logf("labels %d (fitted %d: good %d bad %d); correlation of the stored scores %s over %d",
				c.Labels, c.Fitted, c.Good, c.Bad, fmtRate(c.Correlation.Value), c.Correlation.N)
			logSuggestion(t, "thresholds under the base weights", c.Thresholds)
			logSuggestion(t, "weights, then thresholds under them", c.WithWeights)
			for _, k := range c.Kinds {
				t.Logf("kind %s: %s; base %v fitted %v", k.Kind, k.Message, k.Base, k.Weights)
			}

			if c.Thresholds.Disagreement.After > c.Thresholds.Disagreement.Before {
				t.Errorf("thresholds: disagreement after %v > before %v", c.Thresholds.Disagreement.After, c.Thresholds.Disagreement.Before)
			}
			s := c.WithWeights
			if s == nil {
				t.Fatal("no weights suggested")
			}
			w := s.Weights[string(vouch.KindAnswer)]
			for d, want := range truthWeights {
				if math.Abs(w[d]-want) > weightTolerance {
					t.Errorf("weight %s = %.2f, want %.2f ± %.2f", d, w[d], want, weightTolerance)
				}
			}
			if math.Abs(s.PassAt-0.72) > thresholdTolerance {
				t.Errorf("passAt = %.2f, want 0.72 ± %.2f", s.PassAt, thresholdTolerance)
			}
			if math.Abs(s.FailBelow-tt.failBelow) > thresholdTolerance {
				t.Errorf("failBelow = %.2f, want %.2f ± %.2f", s.FailBelow, tt.failBelow, thresholdTolerance)
			}
			if s.Disagreement.After >= c.Thresholds.Disagreement.After {
				t.Errorf("disagreement with the fitted weights %v, not below the thresholds' alone %v", s.Disagreement.After, c.Thresholds.Disagreement.After)
			}
			if s.Correlation.Value == nil || c.Correlation.Value == nil || *s.Correlation.Value <= *c.Correlation.Value {
				t.Errorf("correlation with the fitted weights %s, not above the stored scores' %s", fmtRate(s.Correlation.Value), fmtRate(c.Correlation.Value))
			}
			if s.Changes.Changed == 0 || s.Changes.Samples != len(samples) {
				t.Errorf("changes %+v: want some, over all %d samples", s.Changes, len(samples))
			}
			ch := s.Changes
			if got := ch.PassToSentBack + ch.SentBackToPass + ch.RetryToFail + ch.FailToRetry + ch.ToUnverified + ch.FromUnverified; got != ch.Changed {
				t.Errorf("changes %+v: the kinds of change add up to %d", s.Changes, got)
			}
			if (ch.ToUnverified+ch.FromUnverified > 0) != (tt.h.unverified > 0) {
				t.Errorf("changes %+v with %d%% of the outputs leaving claims unverified", ch, tt.h.unverified)
			}
		})
	}
}

// TestCalibratePerfect: labels that agree with every verdict the gate gave
// suggest the base thresholds, changing nothing, and about the base
// weights.
func TestCalibratePerfect(t *testing.T) {
	base := vouch.DefaultPolicy()
	samples := history{seed: 3, n: 20000, every: 4, gate: true}.samples(&base)
	c := mustCalibrate(t, samples, &base, CalibrateOptions{})
	if !c.Enough {
		t.Fatalf("Enough = false: %s", c.Message)
	}
	logSuggestion(t, "thresholds", c.Thresholds)
	logSuggestion(t, "with weights", c.WithWeights)
	for _, k := range c.Kinds {
		t.Logf("kind %s: %s; base %v fitted %v", k.Kind, k.Message, k.Base, k.Weights)
	}
	s := c.Thresholds
	if s.PassAt != base.PassAt || s.FailBelow != base.FailBelow {
		t.Errorf("thresholds %v/%v, want the base's %v/%v", s.PassAt, s.FailBelow, base.PassAt, base.FailBelow)
	}
	if s.Changes.Changed != 0 || s.Disagreement.Before != 0 || s.Disagreement.After != 0 {
		t.Errorf("changes %+v, disagreement %+v: want none", s.Changes, s.Disagreement)
	}
	if len(c.Kinds) != 1 || c.Kinds[0].Weights == nil {
		t.Fatalf("kinds %+v: want the answer's weights fitted", c.Kinds)
	}
	for d, w := range c.Kinds[0].Weights {
		if math.Abs(w-c.Kinds[0].Base[d]) > 0.02 {
			t.Errorf("weight %s = %.2f, want the base's %.2f ± 0.02", d, w, c.Kinds[0].Base[d])
		}
	}
	if ws := c.WithWeights; ws != nil {
		if ws.Changes.Changed > len(samples)/100 {
			t.Errorf("the weights, close to the base's, change %d verdicts of %d", ws.Changes.Changed, len(samples))
		}
		if math.Abs(ws.PassAt-base.PassAt) > 0.02 || math.Abs(ws.FailBelow-base.FailBelow) > 0.02 {
			t.Errorf("thresholds with weights %v/%v, want about the base's", ws.PassAt, ws.FailBelow)
		}
	}
}

// TestCalibrateNotEnough: below MinLabels nothing is suggested, overall or
// for a kind, and the patch says so.
func TestCalibrateNotEnough(t *testing.T) {
	base := vouch.DefaultPolicy()
	h := history{seed: 4, n: 100, every: 4, noise: 0.02, truth: truthWeights, passAt: 0.72, failBelow: 0.45}
	samples := h.samples(&base)
	c := mustCalibrate(t, samples, &base, CalibrateOptions{MinLabels: 1000})
	t.Logf("message: %s", c.Message)
	if c.Enough || c.Thresholds != nil || c.WithWeights != nil || !strings.Contains(c.Message, "not enough labels") {
		t.Errorf("Enough %v, thresholds %v, weights %v, message %q: want nothing suggested", c.Enough, c.Thresholds, c.WithWeights, c.Message)
	}
	for _, k := range c.Kinds {
		if k.Weights != nil || k.Enough {
			t.Errorf("kind %s: weights %v suggested", k.Kind, k.Weights)
		}
	}
	if c.Labels != 25 || c.Correlation.N == 0 {
		t.Errorf("labels %d, correlation over %d: the measures are still given", c.Labels, c.Correlation.N)
	}
	if _, err := c.Patch(); !errors.Is(err, ErrNothingSuggested) {
		t.Errorf("Patch: %v, want ErrNothingSuggested", err)
	}

	// Default MinLabels: 29 fitted labels are not enough, 30 are.
	for _, n := range []int{29, 30} {
		var list []Sample
		for i := range n {
			score := float64(i) / float64(n)
			l := Label{Good: score >= 0.5}
			v, _, row := vouch.Decide(&base, 1, vouch.VerdictInputs{Score: &score, Claims: 1})
			list = append(list, Sample{ID: itoa(i), Attempt: 1, Kind: "answer", Verdict: string(v), Row: row, Score: &score,
				Ledger: &store.Ledger{Claims: 1}, Label: &l})
		}
		if c := mustCalibrate(t, list, &base, CalibrateOptions{}); c.Enough != (n >= DefaultMinLabels) {
			t.Errorf("%d labels: Enough = %v (%s)", n, c.Enough, c.Message)
		}
	}

	// Enough overall, too few for one kind.
	synthesis := map[string]float64{vouch.DimTraceability: 0.5, vouch.DimCompleteness: 0.3, vouch.DimConsistency: 0.2}
	samples = append(history{seed: 5, n: 400, every: 2, noise: 0.02, truth: truthWeights, passAt: 0.72, failBelow: 0.45}.samples(&base),
		history{seed: 6, n: 40, every: 2, noise: 0.02, truth: synthesis, passAt: 0.6, failBelow: 0.45, kind: vouch.KindSynthesis}.samples(&base)...)
	c = mustCalibrate(t, samples, &base, CalibrateOptions{})
	if !c.Enough || len(c.Kinds) != 2 {
		t.Fatalf("Enough %v, kinds %+v", c.Enough, c.Kinds)
	}
	for _, k := range c.Kinds {
		t.Logf("kind %s: %s", k.Kind, k.Message)
	}
	if k := c.Kinds[1]; k.Kind != "synthesis" || k.Enough || k.Weights != nil || !strings.Contains(k.Message, "not enough labels") {
		t.Errorf("synthesis: %+v, want not enough labels", k)
	}
	if k := c.Kinds[0]; k.Kind != "answer" || !k.Enough || k.Weights == nil {
		t.Errorf("answer: %+v, want weights", k)
	}
	if c.WithWeights != nil && c.WithWeights.Weights["synthesis"] != nil {
		t.Errorf("synthesis weights suggested: %v", c.WithWeights.Weights)
	}

	// All good: nothing tells where bad begins.
	for i := range samples {
		if samples[i].Label != nil {
			samples[i].Label = &Label{Good: true}
		}
	}
	if c := mustCalibrate(t, samples, &base, CalibrateOptions{}); c.Enough || !strings.Contains(c.Message, "all") {
		t.Errorf("all good: Enough %v, %q", c.Enough, c.Message)
	}
}

// TestCalibrateKeepsRow1: verifications decided by row 1, those with no
// score (nothing decided), and those whose row is unknown keep their
// verdict whatever the thresholds and weights; so do the rows of the
// six-row table that mean the same, once renumbered.
func TestCalibrateKeepsRow1(t *testing.T) {
	base := vouch.DefaultPolicy()
	high, low := 0.99, 0.01
	kept := []Sample{
		{ID: "row6-nothing-decided", Attempt: 1, Kind: "answer", Verdict: "unverified", Row: 6, Ledger: &store.Ledger{Claims: 2, Unverified: 2, LeftUnverified: true}},
		{ID: "row1", Attempt: 1, Kind: "answer", Verdict: "retry", Row: 1, Score: &high, Dims: map[string]float64{vouch.DimCriteria: high}, Ledger: &store.Ledger{Claims: 1, Refuted: 1}},
		{ID: "row1-last", Attempt: 3, Kind: "answer", Verdict: "fail", Row: 1, Score: &low, Dims: map[string]float64{vouch.DimCriteria: low}, Ledger: &store.Ledger{Claims: 1, Refuted: 1}},
		{ID: "row0", Attempt: 1, Kind: "answer", Verdict: "pass", Score: &low},
		// The six-row table's row 1 (nothing decided) and row 2 (a
		// must-pass failed), read from a report without a ledger.
		SampleOf(&vouch.Report{ID: "old-row1", Attempt: 1, Kind: "answer", Verdict: "fail", VerdictRow: 1}),
		SampleOf(&vouch.Report{ID: "old-row2", Attempt: 1, Kind: "answer", Verdict: "retry", VerdictRow: 2, Score: &high}),
	}
	extremes := []vouch.Policy{base, base}
	extremes[0].PassAt, extremes[0].FailBelow = 0, 0
	extremes[1].PassAt, extremes[1].FailBelow = 1, 1
	for _, p := range extremes {
		for _, w := range []map[string]map[string]float64{nil, {"answer": {vouch.DimCriteria: 0, vouch.DimGroundedness: 1, vouch.DimCompleteness: 0}}} {
			c := newCandidate(&p, w)
			for i := range kept {
				if v := c.decide(&kept[i]); v != kept[i].Verdict {
					t.Errorf("%s under passAt %v, weights %v: %s, want %s", kept[i].ID, p.PassAt, w, v, kept[i].Verdict)
				}
			}
		}
	}

	// In a calibration that moves the thresholds and weights, they are
	// counted kept.
	samples := history{seed: 6, n: 4000, every: 2, noise: 0.02, truth: truthWeights, passAt: 0.72, failBelow: 0.45}.samples(&base)
	nKept := 0
	for i := range samples {
		if samples[i].Row == 1 || samples[i].Score == nil {
			nKept++
		}
	}
	samples = append(samples, kept...)
	nKept += len(kept)
	c := mustCalibrate(t, samples, &base, CalibrateOptions{})
	for _, s := range []*Suggestion{c.Thresholds, c.WithWeights} {
		if s == nil {
			t.Fatal("nothing suggested")
		}
		if s.Changes.Kept != nKept {
			t.Errorf("kept %d, want %d", s.Changes.Kept, nKept)
		}
	}
}

// TestFitCost checks the cost table against deciding every labelled
// sample again under each pair of thresholds of the grid.
func TestFitCost(t *testing.T) {
	base := vouch.DefaultPolicy()
	samples := history{seed: 7, n: 600, every: 1, noise: 0.05, truth: truthWeights, passAt: 0.72, failBelow: 0.45, overrides: true}.samples(&base)
	// Scores on the grid and just off it.
	for i := 0; i < len(samples); i += 7 {
		if samples[i].Score != nil {
			x := grid(i % 101)
			if i%2 == 0 {
				x = math.Nextafter(x, -1)
			}
			samples[i].Score = &x
			samples[i].Dims = nil
		}
	}
	var labelled []int
	for i := range samples {
		labelled = append(labelled, i)
	}
	for _, w := range []map[string]map[string]float64{nil, {"answer": truthWeights}} {
		c := newCandidate(&base, w)
		f := newFit(samples, labelled, c)
		f.prefix()
		for pi := 0; pi <= gridN; pi += 3 {
			for fi := 0; fi <= pi; fi += 4 {
				p := c.pol
				p.PassAt, p.FailBelow = grid(pi), grid(fi)
				cp := newCandidate(&p, w)
				want := 0
				for _, i := range labelled {
					want += cost2(samples[i].Label, cp.decide(&samples[i]))
				}
				if got := f.cost(pi, fi); got != want {
					t.Fatalf("weights %v, passAt %v failBelow %v: cost %d, deciding again %d", w, p.PassAt, p.FailBelow, got, want)
				}
			}
		}
	}
}

func TestBucket(t *testing.T) {
	for g := 0; g <= gridN; g++ {
		x := grid(g)
		if b := bucket(x); b != g+1 {
			t.Errorf("bucket(%v) = %d, want %d", x, b, g+1)
		}
		if b := bucket(math.Nextafter(x, -1)); b != g {
			t.Errorf("bucket(just below %v) = %d, want %d", x, b, g)
		}
	}
	if bucket(-0.5) != 0 || bucket(2) != gridN+1 || bucket(math.NaN()) != 0 {
		t.Error("bucket out of [0,1]")
	}
}

func TestCost2(t *testing.T) {
	tests := []struct {
		label   Label
		verdict string
		want    int
	}{
		{Label{Good: true}, "pass", 0},
		{Label{Good: true}, "retry", 2},
		{Label{Good: true}, "fail", 2},
		{Label{}, "pass", 2},
		{Label{}, "retry", 0},
		{Label{}, "fail", 0},
		{LabelOfVerdict("pass"), "retry", 2},
		{LabelOfVerdict("retry"), "retry", 0},
		{LabelOfVerdict("retry"), "fail", 1},
		{LabelOfVerdict("retry"), "pass", 2},
		{LabelOfVerdict("fail"), "retry", 1},
		{LabelOfVerdict("fail"), "fail", 0},
		// Unverified neither passed nor sent back: no label disagrees.
		{Label{Good: true}, "unverified", 0},
		{Label{}, "unverified", 0},
		{LabelOfVerdict("pass"), "unverified", 0},
		{LabelOfVerdict("retry"), "unverified", 0},
		{LabelOfVerdict("fail"), "unverified", 0},
	}
	for _, tt := range tests {
		if got := cost2(&tt.label, tt.verdict); got != tt.want {
			t.Errorf("cost2(%+v, %s) = %d, want %d", tt.label, tt.verdict, got, tt.want)
		}
	}
}

// TestNilRates: a rate over nothing is nil, never 0 or 1, next to its
// counts.
func TestNilRates(t *testing.T) {
	base := vouch.DefaultPolicy()
	half := 0.5
	var samples []Sample
	for i := range 4 {
		l := Label{Good: i%2 == 0}
		samples = append(samples, Sample{ID: itoa(i), Attempt: 1, Kind: "answer", Verdict: "retry", Row: 3, Score: &half, Confidence: 0.55, Label: &l})
	}
	c := mustCalibrate(t, samples, &base, CalibrateOptions{})
	if c.Correlation.Value != nil || c.Correlation.N != 4 || c.Correlation.Met {
		t.Errorf("correlation of a constant score: %+v", c.Correlation)
	}
	for _, b := range c.Reliability {
		if b.Count == 0 && (b.Accuracy != nil || b.MeanConfidence != nil) {
			t.Errorf("empty bin %v-%v has accuracy %v", b.Low, b.High, b.Accuracy)
		}
		if b.Count > 0 && (b.Count != 4 || *b.Accuracy != 0.5 || *b.MeanConfidence != 0.55 || b.Agreed != 2) {
			t.Errorf("bin %+v", b)
		}
	}
	var f fit
	for _, p := range f.curve() {
		if p.CatchRate != nil || p.FalseAlarmRate != nil {
			t.Errorf("curve at %v over no labels: %v, %v", p.PassAt, p.CatchRate, p.FalseAlarmRate)
		}
	}
	if frate(0, 0) != nil || rate(0, 0) != nil {
		t.Error("a rate over 0 is not nil")
	}
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"accuracy":null`) || !strings.Contains(string(data), `"value":null`) {
		t.Errorf("JSON without null rates: %s", data)
	}
}

func TestCalibrateCurve(t *testing.T) {
	base := vouch.DefaultPolicy()
	samples := history{seed: 8, n: 8000, every: 2, noise: 0.02, truth: truthWeights, passAt: 0.72, failBelow: 0.45}.samples(&base)
	c := mustCalibrate(t, samples, &base, CalibrateOptions{})
	curve := c.Thresholds.Curve
	if len(curve) != 21 || curve[0].PassAt != 0 || curve[20].PassAt != 1 {
		t.Fatalf("curve %+v", curve)
	}
	for i, p := range curve {
		if p.Bad != c.Bad || p.Good != c.Good {
			t.Errorf("at %v: %d bad, %d good; want %d, %d", p.PassAt, p.Bad, p.Good, c.Bad, c.Good)
		}
		if i > 0 && (p.Caught < curve[i-1].Caught || p.FalseAlarms < curve[i-1].FalseAlarms) {
			t.Errorf("at %v: the curve goes down", p.PassAt)
		}
		if i%4 == 0 {
			t.Logf("passAt %.2f: catch %s (%d of %d), false alarms %s (%d of %d)", p.PassAt,
				fmtRate(p.CatchRate), p.Caught, p.Bad, fmtRate(p.FalseAlarmRate), p.FalseAlarms, p.Good)
		}
	}
	// At passAt 1 every score below 1 is sent back; the bad outputs with
	// no score were left unverified, neither caught nor missed.
	if last := curve[20]; last.Caught+last.Unverified != last.Bad || last.Missed != 0 || last.CatchRate == nil || *last.CatchRate != 1 {
		t.Errorf("at passAt 1: caught %d, missed %d, unverified %d of %d bad, catch rate %s", last.Caught, last.Missed,
			last.Unverified, last.Bad, fmtRate(last.CatchRate))
	}
	if first := curve[0]; first.Unverified == 0 || first.Missed == 0 {
		t.Errorf("at passAt 0: %+v, want some missed and some unverified", first)
	}
}

func TestCalibrateErrors(t *testing.T) {
	base := vouch.DefaultPolicy()
	if _, err := Calibrate(nil, nil, CalibrateOptions{}); err == nil {
		t.Error("nil base: no error")
	}
	bad := []Sample{{ID: "x", Verdict: "maybe"}}
	if _, err := Calibrate(bad, &base, CalibrateOptions{}); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("bad verdict: %v", err)
	}
	bad = []Sample{{ID: "y", Verdict: "pass", Label: &Label{Good: true, Verdict: "fail"}}}
	if _, err := Calibrate(bad, &base, CalibrateOptions{}); err == nil {
		t.Error("contradictory label: no error")
	}
	// A sample may be unverified; a label may not: a person decides.
	ok := []Sample{{ID: "u", Verdict: "unverified", Label: &Label{Good: true, Verdict: "pass"}}}
	if _, err := Calibrate(ok, &base, CalibrateOptions{}); err != nil {
		t.Errorf("an unverified sample labelled pass: %v", err)
	}
	bad = []Sample{{ID: "z", Verdict: "pass", Label: &Label{Verdict: "unverified"}}}
	if _, err := Calibrate(bad, &base, CalibrateOptions{}); err == nil || !strings.Contains(err.Error(), "pass, retry or fail") {
		t.Errorf("a label's verdict unverified: %v, want an error naming pass, retry or fail", err)
	}
}

// TestPatchLoads: the patch is a policy file the loader of vouch policy
// check accepts, and loading it sets the suggested thresholds and weights.
func TestPatchLoads(t *testing.T) {
	base := vouch.DefaultPolicy()
	samples := history{seed: 9, n: 8000, every: 2, noise: 0.02, truth: truthWeights, passAt: 0.72, failBelow: 0.45, overrides: true}.samples(&base)
	c := mustCalibrate(t, samples, &base, CalibrateOptions{})
	patch, err := c.Patch()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("patch:\n%s", patch)
	if !strings.HasPrefix(string(patch), "# Suggested by vouch calibration over 4000 labels") || !strings.Contains(string(patch), "Review") {
		t.Errorf("patch header: %s", patch)
	}
	file := filepath.Join(t.TempDir(), "calibrated.yaml")
	if err := os.WriteFile(file, patch, 0o600); err != nil {
		t.Fatal(err)
	}
	if problems := policy.Check(file); problems != nil {
		t.Fatalf("policy check: %v", problems)
	}
	got, err := policy.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	s := c.WithWeights
	if s == nil {
		t.Fatal("no weights suggested")
	}
	if got.PassAt != s.PassAt || got.FailBelow != s.FailBelow {
		t.Errorf("loaded thresholds %v/%v, want %v/%v", got.PassAt, got.FailBelow, s.PassAt, s.FailBelow)
	}
	for k, dims := range s.Weights {
		for d, w := range dims {
			if g := got.Weight(vouch.Kind(k), d); g != w {
				t.Errorf("loaded weight %s.%s = %v, want %v", k, d, g, w)
			}
		}
	}
	// Kinds the patch leaves out keep their weights.
	if got.Weight(vouch.KindSubtask, vouch.DimClaims) != base.Weight(vouch.KindSubtask, vouch.DimClaims) {
		t.Error("subtask weights changed")
	}

	// Thresholds only: no weights key.
	c.WithWeights = nil
	patch, err = c.Patch()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(patch), "weights:") {
		t.Errorf("thresholds-only patch has weights:\n%s", patch)
	}
	l, err := policy.Parse("thresholds.yaml", patch)
	if err != nil {
		t.Fatal(err)
	}
	p := vouch.DefaultPolicy()
	if err := l.Apply(&p); err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(); err != nil || p.PassAt != c.Thresholds.PassAt || p.FailBelow != c.Thresholds.FailBelow {
		t.Errorf("thresholds patch: %v, %v/%v", err, p.PassAt, p.FailBelow)
	}
}

func TestRoundToSum(t *testing.T) {
	tests := []struct {
		in   []float64
		want []int
	}{
		{[]float64{0.6, 0.3, 0.1}, []int{60, 30, 10}},
		{[]float64{1.0 / 3, 1.0 / 3, 1.0 / 3}, []int{34, 33, 33}},
		{[]float64{0.004, 0.996}, []int{0, 100}},
		{[]float64{0.125, 0.125, 0.75}, []int{13, 12, 75}},
	}
	for _, tt := range tests {
		got := roundToSum(tt.in, 100)
		if !equalInts(got, tt.want) {
			t.Errorf("roundToSum(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestNonNegLogistic: a dimension that lowers the odds of a good label
// gets weight 0, not a negative one.
func TestNonNegLogistic(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 11))
	var x, y []float64
	for range 3000 {
		a, b, c := r.Float64(), r.Float64(), r.Float64()
		x = append(x, a, b, c)
		if 0.8*a-0.4*b+0.2*c+r.NormFloat64()*0.05 >= 0.3 {
			y = append(y, 1)
		} else {
			y = append(y, 0)
		}
	}
	beta := nonNegLogistic(x, y, 3, ridge)
	t.Logf("slopes %v", beta)
	if beta[1] != 0 || beta[0] <= 0 || beta[2] <= 0 || beta[0] < 2*beta[2] {
		t.Errorf("slopes %v: want the second 0, the first about 4 times the third", beta)
	}
}

// BenchmarkCalibrate calibrates a million verifications, ten thousand of
// them labelled.
func BenchmarkCalibrate(b *testing.B) {
	base := vouch.DefaultPolicy()
	samples := history{seed: 12, n: 1_000_000, every: 100, noise: 0.02, truth: truthWeights, passAt: 0.72, failBelow: 0.45, overrides: true}.samples(&base)
	b.ReportAllocs()
	for b.Loop() {
		c, err := Calibrate(samples, &base, CalibrateOptions{})
		if err != nil || c.WithWeights == nil {
			b.Fatal(err, c.Message)
		}
	}
}

// TestCalibrateUnverified: an output that left claims unverified is
// unverified at or above passAt and sent back below it, whatever row
// first decided it; an unverified verdict disagrees with no label, and
// makes no call the reliability bins could count.
func TestCalibrateUnverified(t *testing.T) {
	base := vouch.DefaultPolicy()
	score := func(x float64) *float64 { return &x }
	left := &store.Ledger{Claims: 3, Unverified: 1, LeftUnverified: true}
	samples := []Sample{
		// Unverified by row 6, with a score; labelled bad.
		{ID: "u", Attempt: 1, Kind: "answer", Verdict: "unverified", Row: 6, Score: score(0.9), Confidence: 0.85, Ledger: left, Label: &Label{}},
		// Sent back for a low score, its claims left unverified too.
		{ID: "r", Attempt: 1, Kind: "answer", Verdict: "retry", Row: 3, Score: score(0.65), Confidence: 0.85, Ledger: left, Label: &Label{Good: true}},
		// A pass: every claim decided.
		{ID: "p", Attempt: 1, Kind: "answer", Verdict: "pass", Row: 7, Score: score(0.8), Confidence: 0.85, Ledger: &store.Ledger{Claims: 2}, Label: &Label{Good: true}},
		// No claim and nothing decided but a score: left unverified all
		// the same.
		{ID: "n", Attempt: 1, Kind: "answer", Verdict: "unverified", Row: 6, Score: score(0.75), Ledger: &store.Ledger{LeftUnverified: true}},
	}
	decide := func(passAt float64, onUnverified vouch.OnUnverified) []string {
		p := base
		p.PassAt, p.FailBelow, p.OnUnverified = passAt, 0.5, onUnverified
		c := newCandidate(&p, nil)
		var out []string
		for i := range samples {
			out = append(out, c.decide(&samples[i]))
		}
		return out
	}
	for _, tc := range []struct {
		passAt       float64
		onUnverified vouch.OnUnverified
		want         []string
	}{
		{0.7, "", []string{"unverified", "retry", "pass", "unverified"}},
		{0.6, "", []string{"unverified", "unverified", "pass", "unverified"}},
		{0.95, "", []string{"retry", "retry", "retry", "retry"}},
		{0.6, vouch.OnUnverifiedFail, []string{"fail", "fail", "pass", "fail"}},
	} {
		if got := decide(tc.passAt, tc.onUnverified); !slices.Equal(got, tc.want) {
			t.Errorf("passAt %v, onUnverified %q: %v, want %v", tc.passAt, tc.onUnverified, got, tc.want)
		}
	}

	c := mustCalibrate(t, samples, &base, CalibrateOptions{MinLabels: 1})
	if c.Unverified != 1 || c.Labels != 3 || c.Fitted != 3 {
		t.Errorf("unverified %d, labels %d, fitted %d; want 1, 3, 3", c.Unverified, c.Labels, c.Fitted)
	}
	// Only r disagrees: sent back, labelled good. u, unverified and
	// labelled bad, costs nothing.
	s := c.Thresholds
	if s == nil {
		t.Fatalf("nothing suggested: %s", c.Message)
	}
	if s.Disagreement.Before != 1 || s.Disagreement.After != 0 {
		t.Errorf("disagreement %+v, want 1 before, 0 after", s.Disagreement)
	}
	// The fit lowers passAt below r's 0.65: r is then unverified, not a
	// pass, and u stays unverified.
	if s.PassAt > 0.65 || s.Changes.ToUnverified != 1 || s.Changes.Changed != 1 || s.Changes.SentBackToPass != 0 {
		t.Errorf("passAt %v, changes %+v: want r to become unverified, and nothing else", s.PassAt, s.Changes)
	}
	bin := c.Reliability[8]
	if bin.Count != 2 || bin.Unverified != 1 || bin.Agreed != 1 || bin.Accuracy == nil || *bin.Accuracy != 0.5 {
		t.Errorf("reliability bin %+v: want r and p counted (one agreed), u apart", bin)
	}
	// On the curve at passAt 0.7 (its 15th point): u's bad label is
	// neither caught nor missed; r's good one is a false alarm.
	pt := s.Curve[14]
	if pt.PassAt != 0.7 || pt.Bad != 1 || pt.Caught != 0 || pt.Missed != 0 || pt.CatchRate != nil || pt.Unverified != 1 ||
		pt.FalseAlarms != 1 || pt.Good != 2 {
		t.Errorf("curve at 0.7: %+v", pt)
	}
}

// TestOldSamples: a verification made before the claim ledger has its
// row of the six-row table renumbered, and is decided again as that
// table decided it; one of the seven-row table that lost its ledger keeps
// its row.
func TestOldSamples(t *testing.T) {
	score := func(x float64) *float64 { return &x }
	for _, tc := range []struct {
		name      string
		v         store.Verification
		row       int
		hasLedger bool
		left      bool
	}{
		{"six-row 1: nothing decided", store.Verification{Verdict: "fail", VerdictRow: 1}, 6, false, false},
		{"six-row 2: must-pass failed", store.Verification{Verdict: "retry", VerdictRow: 2, Score: score(0.9)}, 1, false, false},
		{"six-row 2, last attempt", store.Verification{Verdict: "fail", VerdictRow: 2, Score: score(0.9)}, 1, false, false},
		{"six-row 3: below failBelow", store.Verification{Verdict: "fail", VerdictRow: 3, Score: score(0.3)}, 2, false, false},
		{"six-row 4: below passAt", store.Verification{Verdict: "retry", VerdictRow: 4, Score: score(0.6)}, 3, false, false},
		{"six-row 5: must undecided", store.Verification{Verdict: "fail", VerdictRow: 5, Score: score(0.9), MustUndecided: true}, 4, false, false},
		{"six-row 6: pass", store.Verification{Verdict: "pass", VerdictRow: 6, Score: score(0.9)}, 7, false, false},
		{"six-row 6: injection", store.Verification{Verdict: "fail", VerdictRow: 6, Score: score(0.9), Injection: true}, 5, false, false},
		{"seven-row 6, ledger lost", store.Verification{Verdict: "unverified", VerdictRow: 6, Score: score(0.9)}, 6, true, true},
		{"seven-row 6 by onUnverified fail", store.Verification{Verdict: "fail", VerdictRow: 6, Score: score(0.9)}, 6, true, true},
		{"seven-row 7, ledger lost", store.Verification{Verdict: "pass", VerdictRow: 7, Score: score(0.9)}, 7, true, false},
		{"seven-row 1 with a score", store.Verification{Verdict: "fail", VerdictRow: 1, Score: score(0.9)}, 1, true, false},
		{"seven-row 3 retry", store.Verification{Verdict: "retry", VerdictRow: 3, Score: score(0.6)}, 3, true, false},
		{"with its ledger", store.Verification{Verdict: "fail", VerdictRow: 2, Score: score(0.3), Ledger: &store.Ledger{Claims: 2, Unverified: 1, LeftUnverified: true}}, 2, true, true},
	} {
		// A retry is of a first attempt; a fail of the last (past
		// maxRetries).
		tc.v.ID, tc.v.Attempt, tc.v.Kind = "x", 3, vouch.KindAnswer
		if tc.v.Verdict == vouch.VerdictRetry {
			tc.v.Attempt = 1
		}
		s := SampleOfRow(&tc.v)
		if s.Row != tc.row || (s.Ledger != nil) != tc.hasLedger || s.Ledger != nil && s.Ledger.LeftUnverified != tc.left {
			t.Errorf("%s: row %d, ledger %+v; want row %d, a ledger %v, left unverified %v", tc.name, s.Row, s.Ledger, tc.row, tc.hasLedger, tc.left)
		}
		// A report of the same says the same.
		rep := vouch.Report{ID: "x", Attempt: tc.v.Attempt, Kind: vouch.KindAnswer, Verdict: tc.v.Verdict, VerdictRow: tc.v.VerdictRow, Score: tc.v.Score}
		if tc.v.Injection {
			rep.Warnings = append(rep.Warnings, vouch.Warning{Code: vouch.CodePromptInjection})
		}
		if tc.v.MustUndecided {
			rep.Warnings = append(rep.Warnings, vouch.Warning{Code: vouch.CodeMustUndecided})
		}
		if tc.v.Ledger == nil {
			if r := SampleOf(&rep); r.Row != s.Row || (r.Ledger != nil) != (s.Ledger != nil) {
				t.Errorf("%s: the report's sample has row %d, ledger %+v; the row's %d, %+v", tc.name, r.Row, r.Ledger, s.Row, s.Ledger)
			}
		}
		// Decided again under the default policy, each keeps its verdict
		// (but the seven-row table's fail by onUnverified, which the
		// default, accept, leaves unverified).
		p := vouch.DefaultPolicy()
		want := tc.v.Verdict
		if tc.name == "seven-row 6 by onUnverified fail" {
			want = vouch.VerdictUnverified
		}
		if v := newCandidate(&p, nil).decide(&s); vouch.Verdict(v) != want {
			t.Errorf("%s: decided again %s, want %s (stored %s)", tc.name, v, want, tc.v.Verdict)
		}
	}
	if SixRowTable(0, "pass") != 0 || SixRowTable(7, "pass") != 0 {
		t.Error("SixRowTable of a row it never had")
	}
}

// TestLedgerOf: the counts of a report's ledger, and whether the row-6
// condition held, by the row that decided.
func TestLedgerOf(t *testing.T) {
	claims := func(states ...vouch.ClaimState) []vouch.Claim {
		out := []vouch.Claim{}
		for _, s := range states {
			out = append(out, vouch.Claim{State: s})
		}
		return out
	}
	met := []vouch.CriterionResult{{ID: "c1", Status: vouch.CriterionMet}}
	undecided := []vouch.CriterionResult{{ID: "c1", Status: vouch.CriterionUndecided}}
	for _, tc := range []struct {
		name string
		rep  vouch.Report
		want *store.Ledger
	}{
		{"no ledger", vouch.Report{VerdictRow: 2}, nil},
		{"row 7", vouch.Report{VerdictRow: 7, Claims: claims(vouch.ClaimVerified, vouch.ClaimVerified)}, &store.Ledger{Claims: 2}},
		{"row 6", vouch.Report{VerdictRow: 6, Claims: claims(vouch.ClaimVerified, vouch.ClaimUnverified)}, &store.Ledger{Claims: 2, Unverified: 1, LeftUnverified: true}},
		{"row 6, no claim", vouch.Report{VerdictRow: 6, Claims: claims()}, &store.Ledger{LeftUnverified: true}},
		{"row 1, a claim refuted, one unverified", vouch.Report{VerdictRow: 1, Claims: claims(vouch.ClaimRefuted, vouch.ClaimUnverified, vouch.ClaimVerified)},
			&store.Ledger{Claims: 3, Unverified: 1, Refuted: 1, LeftUnverified: true}},
		{"row 3, all decided", vouch.Report{VerdictRow: 3, Claims: claims(vouch.ClaimVerified)}, &store.Ledger{Claims: 1}},
		{"row 3, no claim, a criterion met", vouch.Report{VerdictRow: 3, Claims: claims(), Criteria: met}, &store.Ledger{}},
		{"row 3, no claim, nothing decided", vouch.Report{VerdictRow: 3, Claims: claims(), Criteria: undecided}, &store.Ledger{LeftUnverified: true}},
		{"row 2, no claim, a plan's structure checked", vouch.Report{VerdictRow: 2, Kind: vouch.KindDecomposition, Claims: claims(),
			Checks: []vouch.CheckResult{{Level: vouch.LevelCriteria, Status: vouch.StatusFail}}}, &store.Ledger{}},
		{"row 2, no claim, the criteria dimension decided", vouch.Report{VerdictRow: 2, Kind: vouch.KindSynthesis, Claims: claims(),
			Dimensions: map[string]vouch.Dimension{vouch.DimCompleteness: {State: vouch.StateDecided}}}, &store.Ledger{}},
	} {
		got := LedgerOf(&tc.rep)
		if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestFill: a log row filled from a report carries what the metrics sum
// and calibration reads, and reads back as the report's sample.
func TestFill(t *testing.T) {
	score := 0.8
	rep := &vouch.Report{ID: "f", Attempt: 2, Kind: vouch.KindSubtask, Verdict: vouch.VerdictUnverified, VerdictRow: 6, Score: &score,
		Claims:     []vouch.Claim{{State: vouch.ClaimVerified}, {State: vouch.ClaimUnverified}},
		Dimensions: map[string]vouch.Dimension{vouch.DimClaims: {Score: &score, State: vouch.StateDecided}},
		Checks:     []vouch.CheckResult{{Status: vouch.StatusFail, Code: "COUNT_MISMATCH"}},
		Warnings:   []vouch.Warning{{Code: vouch.CodeClaimsUnverified}},
		Cost:       vouch.Cost{JudgeCalls: 2, CacheHits: 1, CacheMisses: 1}}
	v := &store.Verification{ID: "f", Attempt: 2, Kind: "subtask", Verdict: "unverified", Score: &score}
	Fill(v, rep)
	if v.VerdictRow != 6 || v.Ledger == nil || *v.Ledger != (store.Ledger{Claims: 2, Unverified: 1, LeftUnverified: true}) ||
		v.Dims[vouch.DimClaims] != 0.8 || !slices.Equal(v.Codes, []string{"COUNT_MISMATCH", vouch.CodeClaimsUnverified}) ||
		v.JudgeCalls != 2 || v.CacheHits != 1 || v.CacheMisses != 1 {
		t.Errorf("filled row %+v, ledger %+v", v, v.Ledger)
	}
	if a, b := SampleOfRow(v), SampleOf(rep); a.Row != b.Row || *a.Ledger != *b.Ledger || a.Verdict != b.Verdict {
		t.Errorf("the row's sample %+v, the report's %+v", a, b)
	}
}
