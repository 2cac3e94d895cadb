package quality

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/store"
)

// DefaultWindow is the span metrics cover when none is given.
const DefaultWindow = 30 * 24 * time.Hour

// NewRate returns n ÷ of with its counts.
func NewRate(n, of int64) api.Rate {
	r := api.Rate{N: n, Of: of}
	if of > 0 {
		v := float64(n) / float64(of)
		r.Value = &v
	}
	return r
}

// MaxPatterns is how many failure patterns Metrics lists, and MaxIssues
// how many issues of retry success by issue type.
const (
	MaxPatterns = 10
	MaxIssues   = 20
)

// Compute computes the metrics of a window from its tallies and labels
// (as the store returns them for that window).
func Compute(w api.Window, t *store.WindowTally, labels []store.Labelled) *api.Metrics {
	m := &api.Metrics{Window: w, Verdicts: map[string]int64{}, Actions: map[string]int64{},
		CostByKind: map[string]api.Cost{}}
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
	for k, n := range map[vouch.Verdict]int64{vouch.VerdictPass: all.Pass, vouch.VerdictRetry: all.Retry,
		vouch.VerdictFail: all.Fail, vouch.VerdictUnverified: all.Unverified} {
		m.Verdicts[string(k)] = n
	}
	m.UnverifiedRate = NewRate(all.Unverified, all.N)
	m.Coverage = NewRate(all.ClaimsDecided, all.Claims)
	m.Ledgers, m.RefutedClaims = all.Ledgers, all.ClaimsRefuted
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
		p := api.Pattern{Code: c.Code, Count: c.N, Examples: []string{}}
		if info, ok := vouch.LookupCode(c.Code); ok {
			p.Meaning = info.Meaning
		}
		for _, r := range c.Examples {
			p.Examples = append(p.Examples, fmt.Sprintf("%s/%d", r.ID, r.Attempt))
		}
		m.FailurePatterns = append(m.FailurePatterns, p)
	}
	if m.FailurePatterns == nil {
		m.FailurePatterns = []api.Pattern{}
	}
	m.Cost = costOf(&all)
	for k, kt := range byKind {
		m.CostByKind[k] = costOf(kt)
	}
	m.Judge = api.Judge{Calls: all.JudgeCalls, CacheHits: all.CacheHits, CacheMisses: all.CacheMisses,
		CacheHitRate: NewRate(all.CacheHits, all.CacheHits+all.CacheMisses)}
	m.SelfAssessment = []api.Bias{}
	for model, mt := range byModel {
		if mt.SelfAssessed == 0 {
			continue
		}
		n := float64(mt.SelfAssessed)
		b := api.Bias{ExecutorModel: model, N: mt.SelfAssessed, SelfConfidence: mt.SelfConfidence / n, VerifiedScore: mt.SelfScore / n}
		b.Bias = b.SelfConfidence - b.VerifiedScore
		m.SelfAssessment = append(m.SelfAssessment, b)
	}
	sort.Slice(m.SelfAssessment, func(i, j int) bool { return m.SelfAssessment[i].ExecutorModel < m.SelfAssessment[j].ExecutorModel })

	m.ScoreByComplexity = byComplexity(&all)
	m.RetrySuccessByIssue = []api.IssueRetry{}
	for i, it := range t.Issues {
		if i == MaxIssues {
			break
		}
		ir := api.IssueRetry{Code: it.Issue, SentBack: it.SentBack, RetrySuccess: NewRate(it.RetryPass, it.Retried)}
		if info, ok := vouch.LookupCode(it.Issue); ok {
			ir.Meaning = info.Meaning
		} else if it.Issue == store.IssueNone {
			ir.Meaning = "the first attempt raised no failure code: a low score sent it back"
		}
		m.RetrySuccessByIssue = append(m.RetrySuccessByIssue, ir)
	}

	m.Reviews, m.Labels, m.UnverifiedLabels = judgeLabels(labels)
	m.Reviews.Rate = NewRate(m.Reviews.Overridden, m.Verifications)
	m.Reviews.Agreement = NewRate(m.Reviews.Reviewed-m.Reviews.Overridden, m.Reviews.Reviewed)
	m.CatchRate = NewRate(m.Labels.Caught, m.Labels.Caught+m.Labels.Missed)
	m.FalseAlarmRate = NewRate(m.Labels.FalseAlarms, m.Verifications)
	return m
}

// Source is what [FromStore] and [Samples] read of a store: its tallies
// and calibration reads, and its labels.
type Source interface {
	store.Quality
	store.LabelLog
}

// FromStore computes the metrics of a tenant's window from what st holds
// for it: the window's tallies and its labels. It is what `vouch serve`
// answers GET /v1/metrics with and `vouch metrics --store` prints, so the
// two agree on the same data.
func FromStore(ctx context.Context, st Source, tenant string, w store.Window) (*api.Metrics, error) {
	t, err := st.Tally(ctx, tenant, w)
	if err != nil {
		return nil, fmt.Errorf("quality: tallies: %w", err)
	}
	labels, err := st.Labels(ctx, tenant, w)
	if err != nil {
		return nil, fmt.Errorf("quality: labels: %w", err)
	}
	win := api.Window{Since: w.Since, Until: w.Until, Kind: w.Kind, ExecutorModel: w.ExecutorModel, Criticality: w.Criticality}
	return Compute(win, t, labels), nil
}

func bins(h [10]int64) []api.Bin {
	out := make([]api.Bin, len(h))
	for i, n := range h {
		out[i] = api.Bin{From: float64(i) / 10, To: float64(i+1) / 10, N: n}
	}
	return out
}

// byComplexity returns the complexity bins of a tally, every bin listed.
func byComplexity(t *store.Tally) []api.ComplexityBin {
	out := make([]api.ComplexityBin, store.ComplexityBins)
	for i, c := range t.Complexity {
		from, to := store.ComplexityRange(i)
		b := api.ComplexityBin{From: from, N: c.N, Scored: c.Scored, Pass: NewRate(c.Pass, c.N)}
		if to >= 0 {
			b.To = &to
		}
		if c.Scored > 0 {
			mean := c.ScoreSum / float64(c.Scored)
			b.MeanScore = &mean
		}
		out[i] = b
	}
	return out
}

func costOf(t *store.Tally) api.Cost {
	c := api.Cost{VerificationUSD: t.CostUSD, Priced: t.Priced, PricedVerificationUSD: t.PricedCostUSD, TaskUSD: t.TaskCostUSD}
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
// verification decides whether its output was good. A pass is confirmed
// or missed, a send-back (retry, fail) caught or a false alarm, and an
// unverified verdict none of these: it is counted in the third result.
func judgeLabels(labels []store.Labelled) (api.Reviews, api.Labels, api.UnverifiedLabels) {
	var (
		rv api.Reviews
		lb api.Labels
		ul api.UnverifiedLabels
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
		if l.Good {
			lb.Good++
		} else {
			lb.Bad++
		}
		v := l.V.Verdict
		switch {
		case v == vouch.VerdictPass && l.Good:
			lb.Confirmed++
		case v == vouch.VerdictPass:
			lb.Missed++
		case v.SentBack() && l.Good:
			lb.FalseAlarms++
		case v.SentBack():
			lb.Caught++
		case l.Good:
			ul.Good++
		default:
			ul.Bad++
		}
	}
	return rv, lb, ul
}
