package quality

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/store"
)

// DefaultWindow is the span metrics cover when none is given.
const DefaultWindow = 30 * 24 * time.Hour

// Rate is a share with the counts it is computed from: Value = N ÷ Of,
// nil when Of is 0. A rate over 3 is not read like one over 3,000.
type Rate struct {
	Value *float64 `json:"value"`
	N     int64    `json:"n"`
	Of    int64    `json:"of"`
}

// NewRate returns n ÷ of with its counts.
func NewRate(n, of int64) Rate {
	r := Rate{N: n, Of: of}
	if of > 0 {
		v := float64(n) / float64(of)
		r.Value = &v
	}
	return r
}

// String writes the rate as "0.83 (5/6)", or "n/a (0)".
func (r Rate) String() string {
	if r.Value == nil {
		return "n/a (0)"
	}
	return fmt.Sprintf("%.2f (%d/%d)", *r.Value, r.N, r.Of)
}

// Window is the span and filters metrics were computed over.
type Window struct {
	Since         time.Time `json:"since"`
	Until         time.Time `json:"until"`
	Kind          string    `json:"kind,omitempty"`
	ExecutorModel string    `json:"executorModel,omitempty"`
	Criticality   string    `json:"criticality,omitempty"`
}

// Bin is one bar of a histogram: the verifications with a figure in
// [From, To) (the last bin includes To).
type Bin struct {
	From float64 `json:"from"`
	To   float64 `json:"to"`
	N    int64   `json:"n"`
}

// Pattern is a failure code by frequency, with some of the latest
// verifications that raised it ("id/attempt").
type Pattern struct {
	Code     string   `json:"code"`
	Meaning  string   `json:"meaning,omitempty"`
	Count    int64    `json:"count"`
	Examples []string `json:"examples"`
}

// Reviews are the overrides people gave: Reviewed verifications have at
// least one; Overridden ones a latest override whose verdict differs from
// the gate's.
type Reviews struct {
	Reviewed   int64 `json:"reviewed"`
	Overridden int64 `json:"overridden"`
	// Rate is Overridden ÷ verifications.
	Rate Rate `json:"rate"`
	// Agreement is the reviewed verifications whose latest override kept
	// the gate's verdict ÷ Reviewed.
	Agreement Rate `json:"agreement"`
}

// Labels count the labelled verifications: those with an override or an
// outcome; the latest label of each counts.
type Labels struct {
	Labelled int64 `json:"labelled"`
	Good     int64 `json:"good"`
	Bad      int64 `json:"bad"`
	// Caught: sent back and labelled bad. Missed: passed and labelled
	// bad. FalseAlarms: sent back and labelled good. Confirmed: passed and
	// labelled good.
	Caught      int64 `json:"caught"`
	Missed      int64 `json:"missed"`
	FalseAlarms int64 `json:"falseAlarms"`
	Confirmed   int64 `json:"confirmed"`
}

// Cost is what verification cost next to what the tasks cost.
type Cost struct {
	VerificationUSD float64 `json:"verificationUsd"`
	// Priced is how many verifications knew their task's cost;
	// PricedVerificationUSD and TaskUSD are their costs.
	Priced                int64   `json:"priced"`
	PricedVerificationUSD float64 `json:"pricedVerificationUsd"`
	TaskUSD               float64 `json:"taskUsd"`
	// TaskCostRatio is PricedVerificationUSD ÷ TaskUSD, nil with no
	// priced verification.
	TaskCostRatio *float64 `json:"taskCostRatio"`
}

// Judge counts the judge's work.
type Judge struct {
	Calls       int64 `json:"calls"`
	CacheHits   int64 `json:"cacheHits"`
	CacheMisses int64 `json:"cacheMisses"`
	// CacheHitRate is CacheHits ÷ (CacheHits + CacheMisses).
	CacheHitRate Rate `json:"cacheHitRate"`
}

// Bias is how far an executor model's confidence in itself is from what
// was verified: the mean of its self-reported confidence minus the mean
// verified score, over the verifications that have both.
type Bias struct {
	ExecutorModel  string  `json:"executorModel"`
	N              int64   `json:"n"`
	SelfConfidence float64 `json:"selfConfidence"`
	VerifiedScore  float64 `json:"verifiedScore"`
	Bias           float64 `json:"bias"`
}

// Metrics are the quality metrics of a window of verifications.
type Metrics struct {
	Window        Window `json:"window"`
	Verifications int64  `json:"verifications"`
	// FirstPass is the attempt-1 verifications that passed ÷ the
	// attempt-1 verifications.
	FirstPass Rate `json:"firstPass"`
	// RetriesPerTask is the retries (attempt 2 on) ÷ the tasks (attempt-1
	// verifications), nil with no task.
	RetriesPerTask *float64 `json:"retriesPerTask"`
	Retries        int64    `json:"retries"`
	// RetrySuccess is the tasks sent back at least once that ended in a
	// pass ÷ the tasks sent back at least once (counted by their second
	// attempt, so in the window the second attempt falls in).
	RetrySuccess Rate             `json:"retrySuccess"`
	Verdicts     map[string]int64 `json:"verdicts"`
	Actions      map[string]int64 `json:"actions"`
	NeedsReview  int64            `json:"needsReview"`
	Confidence   []Bin            `json:"confidenceHistogram"`
	Score        []Bin            `json:"scoreHistogram"`
	// Undecided counts the verifications with no score.
	Undecided int64 `json:"undecided"`
	// FailurePatterns are the most frequent failure codes.
	FailurePatterns []Pattern `json:"failurePatterns"`
	Reviews         Reviews   `json:"reviews"`
	Labels          Labels    `json:"labels"`
	// CatchRate is Caught ÷ (Caught + Missed): of the outputs labels say
	// were bad, the share the gate sent back.
	CatchRate Rate `json:"catchRate"`
	// FalseAlarmRate is FalseAlarms ÷ verifications: the send-backs a
	// reviewer or an outcome marked good, over everything verified.
	FalseAlarmRate Rate            `json:"falseAlarmRate"`
	Cost           Cost            `json:"cost"`
	CostByKind     map[string]Cost `json:"costByKind"`
	Judge          Judge           `json:"judge"`
	// SelfAssessment is the bias of each executor model that reported its
	// confidence, by model.
	SelfAssessment []Bias `json:"selfAssessment"`
}

// MaxPatterns is how many failure patterns Metrics lists.
const MaxPatterns = 10

// Compute computes the metrics of a window from its tallies and labels
// (as the store returns them for that window).
func Compute(w Window, t *store.WindowTally, labels []store.Labelled) *Metrics {
	m := &Metrics{Window: w, Verdicts: map[string]int64{}, Actions: map[string]int64{},
		CostByKind: map[string]Cost{}}
	var all store.Tally
	byModel := map[string]*store.Tally{}
	byKind := map[string]*store.Tally{}
	for i := range t.Groups {
		g := &t.Groups[i]
		all.Merge(&g.Tally)
		for _, acc := range []struct {
			m   map[string]*store.Tally
			key string
		}{{byModel, g.ExecutorModel}, {byKind, g.Kind}} {
			if acc.m[acc.key] == nil {
				acc.m[acc.key] = &store.Tally{}
			}
			acc.m[acc.key].Merge(&g.Tally)
		}
	}
	m.Verifications = all.N
	m.FirstPass = NewRate(all.FirstPass, all.FirstAttempts)
	m.Retries = all.Retries
	if all.FirstAttempts > 0 {
		r := float64(all.Retries) / float64(all.FirstAttempts)
		m.RetriesPerTask = &r
	}
	m.RetrySuccess = NewRate(all.RetryPass, all.RetriedTasks)
	for k, n := range map[string]int64{"pass": all.Pass, "retry": all.Retry, "fail": all.Fail} {
		m.Verdicts[k] = n
	}
	for k, n := range map[vouch.Action]int64{vouch.ActionAccept: all.Accept, vouch.ActionRetry: all.RetryAction,
		vouch.ActionReformulate: all.Reformulate, vouch.ActionFollowUp: all.FollowUp, vouch.ActionEscalate: all.Escalate} {
		m.Actions[string(k)] = n
	}
	m.NeedsReview = all.NeedsReview
	m.Confidence = bins(all.Confidence)
	m.Score = bins(all.Score)
	m.Undecided = all.Undecided
	for i, c := range t.Codes {
		if i == MaxPatterns {
			break
		}
		p := Pattern{Code: c.Code, Count: c.N, Examples: []string{}}
		if info, ok := vouch.LookupCode(c.Code); ok {
			p.Meaning = info.Meaning
		}
		for _, r := range c.Examples {
			p.Examples = append(p.Examples, fmt.Sprintf("%s/%d", r.ID, r.Attempt))
		}
		m.FailurePatterns = append(m.FailurePatterns, p)
	}
	if m.FailurePatterns == nil {
		m.FailurePatterns = []Pattern{}
	}
	m.Cost = costOf(&all)
	for k, kt := range byKind {
		m.CostByKind[k] = costOf(kt)
	}
	m.Judge = Judge{Calls: all.JudgeCalls, CacheHits: all.CacheHits, CacheMisses: all.CacheMisses,
		CacheHitRate: NewRate(all.CacheHits, all.CacheHits+all.CacheMisses)}
	m.SelfAssessment = []Bias{}
	for model, mt := range byModel {
		if mt.SelfAssessed == 0 {
			continue
		}
		n := float64(mt.SelfAssessed)
		b := Bias{ExecutorModel: model, N: mt.SelfAssessed, SelfConfidence: mt.SelfConfidence / n, VerifiedScore: mt.SelfScore / n}
		b.Bias = b.SelfConfidence - b.VerifiedScore
		m.SelfAssessment = append(m.SelfAssessment, b)
	}
	sort.Slice(m.SelfAssessment, func(i, j int) bool { return m.SelfAssessment[i].ExecutorModel < m.SelfAssessment[j].ExecutorModel })

	m.Reviews, m.Labels = judgeLabels(labels)
	m.Reviews.Rate = NewRate(m.Reviews.Overridden, m.Verifications)
	m.Reviews.Agreement = NewRate(m.Reviews.Reviewed-m.Reviews.Overridden, m.Reviews.Reviewed)
	m.CatchRate = NewRate(m.Labels.Caught, m.Labels.Caught+m.Labels.Missed)
	m.FalseAlarmRate = NewRate(m.Labels.FalseAlarms, m.Verifications)
	return m
}

// FromStore computes the metrics of a tenant's window from what st holds
// for it: the window's tallies and its labels. It is what `vouch serve`
// answers GET /v1/metrics with and `vouch metrics --store` prints, so the
// two agree on the same data.
func FromStore(ctx context.Context, st store.Store, tenant string, w store.Window) (*Metrics, error) {
	t, err := st.Tally(ctx, tenant, w)
	if err != nil {
		return nil, fmt.Errorf("quality: tallies: %w", err)
	}
	labels, err := st.Labels(ctx, tenant, w)
	if err != nil {
		return nil, fmt.Errorf("quality: labels: %w", err)
	}
	win := Window{Since: w.Since, Until: w.Until, Kind: w.Kind, ExecutorModel: w.ExecutorModel, Criticality: w.Criticality}
	return Compute(win, t, labels), nil
}

func bins(h [10]int64) []Bin {
	out := make([]Bin, len(h))
	for i, n := range h {
		out[i] = Bin{From: float64(i) / 10, To: float64(i+1) / 10, N: n}
	}
	return out
}

func costOf(t *store.Tally) Cost {
	c := Cost{VerificationUSD: t.CostUSD, Priced: t.Priced, PricedVerificationUSD: t.PricedCostUSD, TaskUSD: t.TaskCostUSD}
	if t.TaskCostUSD > 0 {
		r := t.PricedCostUSD / t.TaskCostUSD
		c.TaskCostRatio = &r
	}
	return c
}

// ref names a verification.
type ref struct {
	id      string
	attempt int
}

// latest returns the latest label of each labelled verification (labels
// oldest first, as the store returns them), and the latest override of
// each reviewed one, both with the verification.
func latest(labels []store.Labelled) (label, override map[ref]*store.Labelled) {
	label, override = map[ref]*store.Labelled{}, map[ref]*store.Labelled{}
	for i := range labels {
		l := &labels[i]
		r := ref{l.V.ID, l.V.Attempt}
		label[r] = l
		if l.Source == store.SourceOverride {
			override[r] = l
		}
	}
	return label, override
}

// judgeLabels counts the reviews and labels: the latest label of each
// verification decides whether its output was good.
func judgeLabels(labels []store.Labelled) (Reviews, Labels) {
	var (
		rv Reviews
		lb Labels
	)
	label, override := latest(labels)
	for _, l := range override {
		rv.Reviewed++
		if l.Verdict != l.V.Verdict {
			rv.Overridden++
		}
	}
	for _, l := range label {
		lb.Labelled++
		sentBack := l.V.Verdict != string(vouch.VerdictPass)
		switch {
		case l.Good && sentBack:
			lb.Good++
			lb.FalseAlarms++
		case l.Good:
			lb.Good++
			lb.Confirmed++
		case sentBack:
			lb.Bad++
			lb.Caught++
		default:
			lb.Bad++
			lb.Missed++
		}
	}
	return rv, lb
}
