package quality

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/text/plural"
)

// DefaultMinLabels is the fewest labels a fit needs when
// [CalibrateOptions.MinLabels] is 0.
const DefaultMinLabels = 30

// CorrelationTarget is the point-biserial correlation between score and
// label that a team aims for: below it, the score says too little about
// which outputs are good.
const CorrelationTarget = 0.7

// CalibrateOptions tune [Calibrate]. The zero value gives the defaults.
type CalibrateOptions struct {
	// MinLabels is the fewest labels a fit needs: below it overall nothing
	// is suggested, and below it for a kind that kind's weights are not
	// fitted. 0 means [DefaultMinLabels].
	MinLabels int
}

// Calibration is what the labels say of a policy: how well the scores
// track the labels, how far the confidence can be trusted, and the
// thresholds and weights that would have agreed best with the labels, with
// what they would have changed. It is the body of GET /v1/calibration.
//
// Every rate comes with its counts and is nil when it would divide by
// zero. Nothing is suggested unless Enough; a suggestion is for a person
// to review, never applied by vouch.
type Calibration struct {
	// Samples counts every verification looked at, labelled or not.
	Samples int `json:"samples"`
	// Labels counts the labelled verifications.
	Labels int `json:"labels"`
	// Good counts the labels that say good.
	Good int `json:"good"`
	// Bad counts the labels that say bad.
	Bad int `json:"bad"`
	// Unverified counts the labelled verifications the gate left
	// unverified: neither passed nor sent back, they agree and disagree
	// with no label (see [Disagreement]).
	Unverified int `json:"unverified"`
	// Fitted counts the labelled verifications the thresholds decide
	// (rows 2 to 7 of the verdict table, with a score): the labels the
	// thresholds are fitted to. Labels on row 1, or with no score, count
	// as they are, whatever the fit.
	Fitted int `json:"fitted"`
	// MinLabels is the fewest fitted labels a suggestion needs.
	MinLabels int `json:"minLabels"`
	// Enough is true when there were MinLabels fitted labels, good and bad
	// among them; only then is anything suggested.
	Enough bool `json:"enough"`
	// Message says in a sentence what the labels allowed, and why nothing
	// is suggested when nothing is.
	Message string `json:"message"`
	// Base holds the thresholds of the policy calibrated.
	Base Thresholds `json:"base"`
	// Correlation is the point-biserial correlation of the stored scores
	// with the labels.
	Correlation Correlation `json:"correlation"`
	// Reliability bins the labelled verifications by confidence: how often
	// the gate agreed with the label at each level of confidence.
	Reliability []ReliabilityBin `json:"reliability"`
	// Thresholds suggests passAt and failBelow under the base policy's
	// weights; nil unless Enough.
	Thresholds *Suggestion `json:"thresholds,omitempty"`
	// Kinds is the weight fit of each kind among the labels, by kind name.
	Kinds []KindWeights `json:"kinds"`
	// WithWeights suggests the fitted weights of every kind whose fit
	// changed them, with passAt and failBelow fitted again under those
	// weights; nil unless Enough and some kind's weights changed.
	WithWeights *Suggestion `json:"withWeights,omitempty"`
}

// Thresholds are a policy's passAt and failBelow.
type Thresholds struct {
	// PassAt is the score at or above which an output passes.
	PassAt float64 `json:"passAt"`
	// FailBelow is the score below which an output fails outright.
	FailBelow float64 `json:"failBelow"`
}

// Correlation is the point-biserial correlation between score and label
// (good 1, bad 0) over the labelled verifications that have a score.
type Correlation struct {
	// N counts the labelled verifications with a score.
	N int `json:"n"`
	// Value is the correlation, rounded to 4 decimals; nil when N is
	// below 2 or the scores or the labels do not vary.
	Value *float64 `json:"value"`
	// Target is [CorrelationTarget].
	Target float64 `json:"target"`
	// Met is true when Value reaches Target.
	Met bool `json:"met"`
}

// ReliabilityBin is one confidence bin of the labelled verifications the
// gate decided (passed or sent back): how many, their mean confidence, and
// how often the gate's verdict agreed with the label (a pass labelled
// good, or a send-back, retry or fail, labelled bad). The verifications
// the gate left unverified made no call to agree with: they are counted
// apart, in Unverified.
type ReliabilityBin struct {
	// Low and High bound the bin's confidence: [Low, High), the last bin
	// [0.9, 1] included.
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// Count counts the labelled verifications in the bin that the gate
	// passed or sent back.
	Count int `json:"count"`
	// Unverified counts the labelled verifications in the bin that the
	// gate left unverified, which Count, MeanConfidence and Accuracy leave
	// out.
	Unverified int `json:"unverified"`
	// MeanConfidence is their mean confidence; nil when Count is 0.
	MeanConfidence *float64 `json:"meanConfidence"`
	// Agreed counts those whose verdict agreed with the label.
	Agreed int `json:"agreed"`
	// Accuracy is Agreed ÷ Count; nil when Count is 0.
	Accuracy *float64 `json:"accuracy"`
}

// Suggestion is one set of thresholds (and weights) that would have agreed
// best with the labels, and what it would have changed.
type Suggestion struct {
	// PassAt is the suggested passAt.
	PassAt float64 `json:"passAt"`
	// FailBelow is the suggested failBelow.
	FailBelow float64 `json:"failBelow"`
	// Weights holds, by kind and dimension, the weights the suggestion
	// changes; kinds it leaves out keep the base policy's.
	Weights map[string]map[string]float64 `json:"weights,omitempty"`
	// Correlation is that of the scores under the suggestion's weights.
	Correlation Correlation `json:"correlation"`
	// Disagreement compares the gate's verdicts and the suggestion's with
	// the labels.
	Disagreement Disagreement `json:"disagreement"`
	// Changes counts the past verdicts, labelled or not, the suggestion
	// would have changed.
	Changes Changes `json:"changes"`
	// Curve is the trade-off of passAt under the suggestion's weights, from
	// 0 to 1 by 0.05.
	Curve []CurvePoint `json:"curve"`
}

// Disagreement is how far verdicts are from the labels: a pass labelled
// bad, or a send-back labelled good, counts 1; a retry a reviewer made a
// fail, or a fail made a retry, counts 0.5; an unverified verdict counts
// 0 whatever the label, for it neither passed the output nor sent it back
// (the label is what a person or an outcome settled for it).
type Disagreement struct {
	// Labels counts the labelled verifications compared.
	Labels int `json:"labels"`
	// Before is the disagreement of the gate's verdicts as stored.
	Before float64 `json:"before"`
	// After is the disagreement of the suggestion's verdicts.
	After float64 `json:"after"`
	// BeforeRate is Before ÷ Labels; nil when Labels is 0.
	BeforeRate *float64 `json:"beforeRate"`
	// AfterRate is After ÷ Labels; nil when Labels is 0.
	AfterRate *float64 `json:"afterRate"`
}

// Changes counts the verdicts a suggestion would have changed from the
// stored ones, over every verification, labelled or not.
type Changes struct {
	// Samples counts the verifications looked at: all of them.
	Samples int `json:"samples"`
	// Kept counts those whose verdict thresholds and weights do not move
	// (row 1, no score, and rows unknown); the others are decided again.
	Kept int `json:"kept"`
	// Changed counts the verdicts that change, the sum of the six below.
	Changed int `json:"changed"`
	// PassToSentBack counts passes that would be a retry or a fail.
	PassToSentBack int `json:"passToSentBack"`
	// SentBackToPass counts retries and fails that would pass.
	SentBackToPass int `json:"sentBackToPass"`
	// RetryToFail counts retries that would fail.
	RetryToFail int `json:"retryToFail"`
	// FailToRetry counts fails that would be a retry.
	FailToRetry int `json:"failToRetry"`
	// ToUnverified counts passes, retries and fails that would be
	// unverified: a send-back for a low score that left claims unverified,
	// once passAt is lower.
	ToUnverified int `json:"toUnverified"`
	// FromUnverified counts unverified verdicts that would be a pass, a
	// retry or a fail: sent back for a low score once passAt is higher.
	FromUnverified int `json:"fromUnverified"`
}

// CurvePoint is the trade-off at one passAt. failBelow does not move it:
// below passAt an output is sent back either way, as a retry or a fail.
// At or above it, an output passes, or is left unverified when its claims
// were (the verdict table's row 6), or fails for what no threshold moves.
type CurvePoint struct {
	// PassAt is the threshold.
	PassAt float64 `json:"passAt"`
	// Bad counts the labels that say bad.
	Bad int `json:"bad"`
	// Caught counts those the gate would have sent back.
	Caught int `json:"caught"`
	// Missed counts those the gate would have passed.
	Missed int `json:"missed"`
	// CatchRate is Caught ÷ (Caught + Missed), as the metrics count it: a
	// bad output left unverified is neither caught nor missed; nil when
	// Caught + Missed is 0.
	CatchRate *float64 `json:"catchRate"`
	// Good counts the labels that say good.
	Good int `json:"good"`
	// FalseAlarms counts those the gate would have sent back all the same.
	FalseAlarms int `json:"falseAlarms"`
	// FalseAlarmRate is FalseAlarms ÷ Good (the good labels, not every
	// verification); nil when Good is 0.
	FalseAlarmRate *float64 `json:"falseAlarmRate"`
	// Unverified counts the labels, good or bad, on the outputs the gate
	// would have left unverified.
	Unverified int `json:"unverified"`
}

// KindWeights is the weight fit of one kind. It fits the labelled
// verifications whose verdict thresholds decide (rows 2 to 7 with a
// score, no must-pass criterion undecided, no injection) and that decided
// every dimension of the kind: the score renormalises over the decided
// dimensions, so a verification that lacks one says nothing of its
// weight; and a must-pass failure or an injection makes an output bad
// whatever its scores. Verifications that left claims unverified are
// fitted too: whether their output was good still rides on their
// scores.
type KindWeights struct {
	// Kind is the kind's name.
	Kind string `json:"kind"`
	// Labels counts the kind's labelled verifications.
	Labels int `json:"labels"`
	// Fitted counts those the fit uses; Good and Bad split them.
	Fitted int `json:"fitted"`
	// Good counts the fitted labels that say good.
	Good int `json:"good"`
	// Bad counts the fitted labels that say bad.
	Bad int `json:"bad"`
	// Enough is true when the kind had MinLabels fitted labels, good and
	// bad among them, and the calibration as a whole had enough too.
	Enough bool `json:"enough"`
	// Message says why no weights were fitted, or what was fitted.
	Message string `json:"message"`
	// Base holds the base policy's weights, normalised to sum to 1; nil
	// for an unknown kind.
	Base map[string]float64 `json:"base"`
	// Weights holds the fitted weights, rounded to 0.01 and summing to 1;
	// nil unless fitted.
	Weights map[string]float64 `json:"weights,omitempty"`
	// Changed is true when Weights differ from Base by more than their
	// rounding.
	Changed bool `json:"changed"`
}

// Calibrate fits the thresholds and the dimension weights of base to the
// labels of samples, and reports what the labels say of base.
//
// Only labelled samples are fitted; all of them are decided again to count
// the verdicts a suggestion would have changed. A sample is decided again
// with [vouch.Decide], the verdict table the engine decides with, under the suggested
// policy and the sample's attempt, from its score, MustUndecided,
// Injection and Ledger (its claims, those left unverified, and whether the
// row-6 condition held: such a sample is unverified, not a pass, at or
// above passAt, whatever row first decided it; one without a ledger, made
// before the claim ledger, is decided again as the six-row table decided
// it, none of its claims unverified); the score is recomputed with
// [vouch.Score] from the sample's dimension scores when the suggestion
// changes its kind's weights (and the sample has them), else the stored
// one is used. Samples decided by row 1 (a must-pass failed, a claim
// refuted, too many mentions refuted), samples with no score (nothing
// decided), and samples whose row is unknown keep their verdict:
// thresholds and weights do not move it.
//
// Unverified is neither pass nor fail: a sample's verdict may be
// unverified, but a label's is a person's, pass, retry or fail. An
// unverified verdict costs nothing against any label (see
// [Disagreement]), is left out of the reliability bins' agreement, and is
// neither caught nor missed on the curve.
//
// Thresholds: passAt and failBelow (failBelow ≤ passAt, both on the grid
// 0, 0.01 … 1) minimise the disagreement with the labels (see
// [Disagreement]); among equals, the ones closest to base's win, then the
// stricter. Outcome labels (good or bad) fit passAt; a reviewer's retry or
// fail also fits failBelow.
//
// Weights, for each kind with enough labels (see [KindWeights] for which
// labels count): a logistic regression of the label (good 1, bad 0) on
// the dimension scores, with an intercept, its slopes constrained
// non-negative (exactly: every active set is tried, a kind has at most
// four dimensions) and a light ridge (1e-3) that keeps the slopes finite
// when the labels are separable. The slopes, normalised to sum to 1, are
// the weights, rounded to 0.01 keeping the sum 1. The slopes of a logistic
// fit point across the labels' boundary; those of a least-squares fit of
// the 0/1 labels do not: on a history whose truth is weights 0.6/0.3/0.1
// over dimension scores uniform in [0,1] and a boundary at 0.72, least
// squares finds about 0.55/0.35/0.10, the logistic fit the truth within
// 0.01. The order is weights first, then the thresholds fitted again to
// the scores under the fitted weights, so that the two go together
// ([Calibration.WithWeights]).
//
// Calibrate returns an error only when base is nil, or when a sample's
// verdict is not pass, retry, fail or unverified, or its label's is not
// pass, retry or fail, or a label's verdict contradicts its Good.
func Calibrate(samples []Sample, base *vouch.Policy, opts CalibrateOptions) (*Calibration, error) {
	if base == nil {
		return nil, errors.New("quality: calibrate: no base policy")
	}
	minLabels := opts.MinLabels
	if minLabels <= 0 {
		minLabels = DefaultMinLabels
	}
	c := &Calibration{Samples: len(samples), MinLabels: minLabels,
		Base: Thresholds{PassAt: base.PassAt, FailBelow: base.FailBelow}}

	var labelled []int
	fitGood, fitBad := 0, 0
	for i := range samples {
		s := &samples[i]
		if !vouch.Verdict(s.Verdict).Valid() {
			return nil, fmt.Errorf("quality: calibrate: sample %q: verdict %q is not pass, retry, fail or unverified", s.ID, s.Verdict)
		}
		if s.Label == nil {
			continue
		}
		l := s.Label
		if l.Verdict != "" && !ReviewerVerdict(l.Verdict) {
			return nil, fmt.Errorf("quality: calibrate: sample %q: label verdict %q: a label's verdict is a person's, pass, retry or fail", s.ID, l.Verdict)
		}
		if l.Verdict != "" && l.Good != (l.Verdict == string(vouch.VerdictPass)) {
			return nil, fmt.Errorf("quality: calibrate: sample %q: label verdict %q with good %v", s.ID, l.Verdict, l.Good)
		}
		labelled = append(labelled, i)
		if l.Good {
			c.Good++
		} else {
			c.Bad++
		}
		if s.Verdict == string(vouch.VerdictUnverified) {
			c.Unverified++
		}
		if redecidable(s) {
			c.Fitted++
			if l.Good {
				fitGood++
			} else {
				fitBad++
			}
		}
	}
	c.Labels = len(labelled)
	c.Correlation = correlation(samples, labelled, func(s *Sample) *float64 { return s.Score })
	c.Reliability = reliability(samples, labelled)

	switch {
	case c.Fitted < minLabels:
		c.Message = fmt.Sprintf("not enough labels: %d of the %d needed on verifications the thresholds decide (%s in all); nothing is suggested",
			c.Fitted, minLabels, plural.Count(c.Labels, "label"))
	case fitBad == 0:
		c.Message = fmt.Sprintf("all %d fitted labels are good: nothing shows where bad outputs begin; nothing is suggested", c.Fitted)
	case fitGood == 0:
		c.Message = fmt.Sprintf("all %d fitted labels are bad: nothing shows where good outputs begin; nothing is suggested", c.Fitted)
	default:
		c.Enough = true
		c.Message = fmt.Sprintf("fitted to %d labels (%d good, %d bad); review before applying", c.Fitted, fitGood, fitBad)
	}

	c.Kinds = fitKinds(samples, labelled, base, minLabels, c.Enough)
	if !c.Enough {
		return c, nil
	}

	c.Thresholds = suggest(samples, labelled, base, nil)
	changed := make(map[string]map[string]float64)
	for _, k := range c.Kinds {
		if k.Changed {
			changed[k.Kind] = k.Weights
		}
	}
	if len(changed) > 0 {
		c.WithWeights = suggest(samples, labelled, base, changed)
	}
	return c, nil
}

// ReviewerVerdicts are the verdicts a person may give: a reviewer's
// override, a label's verdict. Unverified is the gate's verdict alone: a
// person who looks decides.
var ReviewerVerdicts = []vouch.Verdict{vouch.VerdictPass, vouch.VerdictRetry, vouch.VerdictFail}

// ReviewerVerdict reports whether v is one of [ReviewerVerdicts].
func ReviewerVerdict(v string) bool {
	return slices.Contains(ReviewerVerdicts, vouch.Verdict(v))
}

// redecidable reports whether thresholds and weights can move the verdict
// of s: rows 2 to 7 (of the seven-row table), with a score.
func redecidable(s *Sample) bool {
	return s.Row >= 2 && s.Row <= 7 && s.Score != nil
}

// candidate is a policy to decide samples again under, and which kinds'
// weights it changes.
type candidate struct {
	pol     vouch.Policy
	changed map[string]bool
}

func newCandidate(base *vouch.Policy, weights map[string]map[string]float64) *candidate {
	c := &candidate{pol: *base}
	if len(weights) == 0 {
		return c
	}
	c.changed = make(map[string]bool, len(weights))
	all := make(map[vouch.Kind]map[string]float64, len(base.Weights)+len(weights))
	for k, w := range base.Weights {
		all[k] = w
	}
	for k, w := range weights {
		all[vouch.Kind(k)] = w
		c.changed[k] = true
	}
	c.pol.Weights = all
	return c
}

// score is the score of s under the candidate: the stored one, unless the
// candidate changes the weights of s's kind and s has dimension scores to
// recompute it from.
func (c *candidate) score(s *Sample) *float64 {
	if c.changed[s.Kind] && len(s.Dims) > 0 {
		return vouch.Score(&c.pol, vouch.Kind(s.Kind), s.Dims)
	}
	return s.Score
}

// decide is the verdict of s under the candidate: the stored one for row
// 1, no score and unknown rows, the verdict table's otherwise.
func (c *candidate) decide(s *Sample) string {
	if !redecidable(s) {
		return s.Verdict
	}
	return redecide(s, &c.pol, c.score(s))
}

// redecide decides sample s of rows 2 to 7 again under p with score.
func redecide(s *Sample, p *vouch.Policy, score *float64) string {
	v, _, _ := vouch.Decide(p, s.Attempt, inputsOf(s, score))
	return string(v)
}

// inputsOf are the inputs of the verdict table that s records, with
// score: row 1's are not (a redecided sample has none of them), and row
// 6's come from its ledger. A sample without a ledger (made before the
// claim ledger) is given one decided criterion and no claim, so that
// row 6 holds for it only with no score, as the six-row table's row 1.
func inputsOf(s *Sample, score *float64) vouch.VerdictInputs {
	in := vouch.VerdictInputs{Score: score, MustUndecided: s.MustUndecided, Injection: s.Injection, Decided: 1}
	if l := s.Ledger; l != nil {
		in.Claims, in.Unverified = l.Claims, l.Unverified
		if l.LeftUnverified && l.Unverified == 0 {
			// Left unverified with no claim unverified: no claim, and
			// nothing decided.
			in.Claims, in.Decided = 0, 0
		}
	}
	return in
}

// cost2 is the disagreement of verdict v with label l, in halves: none
// for an unverified verdict, which neither passed nor sent back.
func cost2(l *Label, v string) int {
	if v == string(vouch.VerdictUnverified) {
		return 0
	}
	pass := v == string(vouch.VerdictPass)
	switch {
	case l.Good && pass, !l.Good && !pass && (l.Verdict == "" || l.Verdict == v):
		return 0
	case l.Good || pass:
		return 2
	}
	return 1 // a retry for a fail, or a fail for a retry
}

// The threshold grid: index g stands for the threshold g/100.
const gridN = 100

func grid(g int) float64 { return float64(g) / gridN }

// bucket returns how many grid thresholds are at or below s: s < grid(g)
// exactly when g >= bucket(s), the comparison the verdict table makes.
func bucket(s float64) int {
	if !(s >= 0) {
		return 0
	}
	g := min(int(s*gridN), gridN)
	for g >= 0 && grid(g) > s {
		g--
	}
	for g < gridN && grid(g+1) <= s {
		g++
	}
	return g + 1
}

// fit is the cost table of the labelled samples under one set of weights:
// for each bucket of score, the disagreement (in halves) of the samples
// there if the score were below failBelow (low), between failBelow and
// passAt (mid), or at or above passAt (high); and for the curve, the good
// and bad labels there that would pass at or above passAt.
type fit struct {
	fixed          int // the disagreement of labelled samples kept as they are
	low, mid, high [gridN + 2]int
	pl, pm, ph     [gridN + 2]int
	// goodPass and badPass count the good and bad labels that would pass
	// at or above passAt, goodUnv and badUnv those left unverified; the
	// fixed ones count the samples kept as they are.
	goodPass, badPass, goodUnv, badUnv                     [gridN + 2]int
	fixedGoodPass, fixedBadPass, fixedGoodUnv, fixedBadUnv int
	good, bad                                              int
}

// tally counts verdict v of a label that does not depend on passAt.
func (f *fit) tally(l *Label, v string) {
	f.fixed += cost2(l, v)
	switch {
	case v == string(vouch.VerdictPass) && l.Good:
		f.fixedGoodPass++
	case v == string(vouch.VerdictPass):
		f.fixedBadPass++
	case v == string(vouch.VerdictUnverified) && l.Good:
		f.fixedGoodUnv++
	case v == string(vouch.VerdictUnverified):
		f.fixedBadUnv++
	}
}

// newFit builds the cost table of the labelled samples under c. The
// verdicts below failBelow, between the thresholds and above passAt come
// from the verdict table itself under thresholds that put every score in
// that region.
func newFit(samples []Sample, labelled []int, c *candidate) *fit {
	f := &fit{}
	inf := math.Inf(1)
	lowP, midP, highP := c.pol, c.pol, c.pol
	lowP.FailBelow, lowP.PassAt = inf, inf
	midP.FailBelow, midP.PassAt = -inf, inf
	highP.FailBelow, highP.PassAt = -inf, -inf
	for _, i := range labelled {
		s := &samples[i]
		l := s.Label
		if l.Good {
			f.good++
		} else {
			f.bad++
		}
		if !redecidable(s) {
			f.tally(l, s.Verdict)
			continue
		}
		score := c.score(s)
		if score == nil {
			// Every decided dimension weighs nothing now: nothing is
			// decided (row 6, or an earlier row of what no score moves).
			f.tally(l, redecide(s, &c.pol, nil))
			continue
		}
		b := bucket(*score)
		f.low[b] += cost2(l, redecide(s, &lowP, score))
		f.mid[b] += cost2(l, redecide(s, &midP, score))
		hv := redecide(s, &highP, score)
		f.high[b] += cost2(l, hv)
		switch {
		case hv == string(vouch.VerdictPass) && l.Good:
			f.goodPass[b]++
		case hv == string(vouch.VerdictPass):
			f.badPass[b]++
		case hv == string(vouch.VerdictUnverified) && l.Good:
			f.goodUnv[b]++
		case hv == string(vouch.VerdictUnverified):
			f.badUnv[b]++
		}
	}
	return f
}

// prefix sums the cost table up: pl[x] is the sum of low over the buckets
// up to x, and so on.
func (f *fit) prefix() {
	var sl, sm, sh int
	for b := range gridN + 2 {
		sl += f.low[b]
		sm += f.mid[b]
		sh += f.high[b]
		f.pl[b], f.pm[b], f.ph[b] = sl, sm, sh
	}
}

// cost is the disagreement, in halves, of the labelled samples with
// passAt grid(pi) and failBelow grid(fi), fi ≤ pi: a score in a bucket up
// to fi is below failBelow, up to pi below passAt, above it at or above
// passAt. prefix must have been called.
func (f *fit) cost(pi, fi int) int {
	return f.fixed + f.pl[fi] + f.pm[pi] - f.pm[fi] + f.ph[gridN+1] - f.ph[pi]
}

// search returns the grid indexes of passAt and failBelow with the least
// disagreement, the closest to (passAt0, failBelow0) among equals, then
// the highest.
func (f *fit) search(passAt0, failBelow0 float64) (p, fb int) {
	f.prefix()
	best, bestDist := math.MaxInt, math.Inf(1)
	for pi := gridN; pi >= 0; pi-- {
		for fi := pi; fi >= 0; fi-- {
			cost := f.cost(pi, fi)
			if cost > best {
				continue
			}
			dist := math.Abs(float64(pi)-passAt0*gridN) + math.Abs(float64(fi)-failBelow0*gridN)
			if cost < best || dist < bestDist-1e-9 {
				best, bestDist, p, fb = cost, dist, pi, fi
			}
		}
	}
	return p, fb
}

// curve is the trade-off of passAt from 0 to 1 by 0.05.
func (f *fit) curve() []CurvePoint {
	var out []CurvePoint
	for pi := 0; pi <= gridN; pi += 5 {
		goodPass, badPass := f.fixedGoodPass, f.fixedBadPass
		goodUnv, badUnv := f.fixedGoodUnv, f.fixedBadUnv
		for b := pi + 1; b < gridN+2; b++ {
			goodPass += f.goodPass[b]
			badPass += f.badPass[b]
			goodUnv += f.goodUnv[b]
			badUnv += f.badUnv[b]
		}
		pt := CurvePoint{PassAt: grid(pi), Bad: f.bad, Caught: f.bad - badPass - badUnv, Missed: badPass,
			Good: f.good, FalseAlarms: f.good - goodPass - goodUnv, Unverified: goodUnv + badUnv}
		pt.CatchRate = rate(pt.Caught, pt.Caught+pt.Missed)
		pt.FalseAlarmRate = rate(pt.FalseAlarms, pt.Good)
		out = append(out, pt)
	}
	return out
}

// suggest fits the thresholds under base with weights (nil: base's) and
// measures what the suggestion changes.
func suggest(samples []Sample, labelled []int, base *vouch.Policy, weights map[string]map[string]float64) *Suggestion {
	c := newCandidate(base, weights)
	f := newFit(samples, labelled, c)
	pi, fi := f.search(base.PassAt, base.FailBelow)
	c.pol.PassAt, c.pol.FailBelow = grid(pi), grid(fi)
	sg := &Suggestion{PassAt: c.pol.PassAt, FailBelow: c.pol.FailBelow, Weights: weights, Curve: f.curve()}
	sg.Correlation = correlation(samples, labelled, c.score)

	ch := &sg.Changes
	ch.Samples = len(samples)
	var before, after int
	for i := range samples {
		s := &samples[i]
		if !redecidable(s) {
			ch.Kept++
			if s.Label != nil {
				k := cost2(s.Label, s.Verdict)
				before += k
				after += k
			}
			continue
		}
		v := c.decide(s)
		if s.Label != nil {
			before += cost2(s.Label, s.Verdict)
			after += cost2(s.Label, v)
		}
		if v == s.Verdict {
			continue
		}
		ch.Changed++
		switch {
		case v == string(vouch.VerdictUnverified):
			ch.ToUnverified++
		case s.Verdict == string(vouch.VerdictUnverified):
			ch.FromUnverified++
		case s.Verdict == string(vouch.VerdictPass):
			ch.PassToSentBack++
		case v == string(vouch.VerdictPass):
			ch.SentBackToPass++
		case v == string(vouch.VerdictFail):
			ch.RetryToFail++
		default:
			ch.FailToRetry++
		}
	}
	n := len(labelled)
	sg.Disagreement = Disagreement{Labels: n, Before: float64(before) / 2, After: float64(after) / 2}
	sg.Disagreement.BeforeRate = frate(sg.Disagreement.Before, n)
	sg.Disagreement.AfterRate = frate(sg.Disagreement.After, n)
	return sg
}

// correlation is the point-biserial correlation of score with the labels
// over the labelled samples that have a score.
func correlation(samples []Sample, labelled []int, score func(*Sample) *float64) Correlation {
	c := Correlation{Target: CorrelationTarget}
	var sx, sy float64
	for _, i := range labelled {
		if x := score(&samples[i]); x != nil {
			c.N++
			sx += *x
			sy += b2f(samples[i].Label.Good)
		}
	}
	if c.N < 2 {
		return c
	}
	mx, my := sx/float64(c.N), sy/float64(c.N)
	var sxy, sxx, syy float64
	for _, i := range labelled {
		if x := score(&samples[i]); x != nil {
			dx, dy := *x-mx, b2f(samples[i].Label.Good)-my
			sxy += dx * dy
			sxx += dx * dx
			syy += dy * dy
		}
	}
	if sxx == 0 || syy == 0 {
		return c
	}
	r := round4(sxy / math.Sqrt(sxx*syy))
	c.Value = &r
	c.Met = r >= CorrelationTarget
	return c
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Reliability bins the labelled samples by confidence, 10 bins of 0.1
// (see [ReliabilityBin]): how often the gate's verdict agreed with the
// label at each level of confidence. Unlabelled samples are left out. It
// is [Calibration.Reliability], for those who need no fit.
func Reliability(samples []Sample) []ReliabilityBin {
	var labelled []int
	for i := range samples {
		if samples[i].Label != nil {
			labelled = append(labelled, i)
		}
	}
	return reliability(samples, labelled)
}

// reliability bins the labelled samples by confidence, 10 bins of 0.1.
func reliability(samples []Sample, labelled []int) []ReliabilityBin {
	const n = 10
	bins := make([]ReliabilityBin, n)
	sums := make([]float64, n)
	for i := range bins {
		bins[i].Low, bins[i].High = float64(i)/n, float64(i+1)/n
	}
	for _, i := range labelled {
		s := &samples[i]
		b := min(max(int(s.Confidence*n), 0), n-1)
		if s.Verdict == string(vouch.VerdictUnverified) {
			bins[b].Unverified++
			continue
		}
		bins[b].Count++
		sums[b] += s.Confidence
		if cost2(&Label{Good: s.Label.Good}, s.Verdict) == 0 {
			bins[b].Agreed++
		}
	}
	for i := range bins {
		if bins[i].Count > 0 {
			m := round4(sums[i] / float64(bins[i].Count))
			bins[i].MeanConfidence = &m
		}
		bins[i].Accuracy = rate(bins[i].Agreed, bins[i].Count)
	}
	return bins
}

// fitKinds fits the weights of every kind among the labelled samples,
// when enough is true; otherwise it only counts.
func fitKinds(samples []Sample, labelled []int, base *vouch.Policy, minLabels int, enough bool) []KindWeights {
	byKind := make(map[string][]int)
	for _, i := range labelled {
		byKind[samples[i].Kind] = append(byKind[samples[i].Kind], i)
	}
	kinds := make([]string, 0, len(byKind))
	for k := range byKind {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	out := make([]KindWeights, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, fitKind(samples, byKind[k], base, k, minLabels, enough))
	}
	return out
}

// ridge is the penalty on the squares of the logistic slopes: enough to
// keep the slopes finite when the labels are separable, too little to
// move them otherwise.
const ridge = 1e-3

func fitKind(samples []Sample, idx []int, base *vouch.Policy, kind string, minLabels int, enough bool) KindWeights {
	kw := KindWeights{Kind: kind, Labels: len(idx)}
	dims := vouch.Dimensions(vouch.Kind(kind))
	if len(dims) == 0 {
		kw.Message = fmt.Sprintf("unknown kind %q: no weights to fit", kind)
		return kw
	}
	kw.Base = make(map[string]float64, len(dims))
	total := 0.0
	for _, d := range dims {
		total += base.Weight(vouch.Kind(kind), d)
	}
	for _, d := range dims {
		w := 0.0
		if total > 0 {
			w = round4(base.Weight(vouch.Kind(kind), d) / total)
		}
		kw.Base[d] = w
	}

	p := len(dims)
	var x, y []float64
	for _, i := range idx {
		s := &samples[i]
		if !redecidable(s) || s.MustUndecided || s.Injection {
			continue
		}
		row := make([]float64, p)
		complete := true
		for j, d := range dims {
			v, ok := s.Dims[d]
			if !ok {
				complete = false
				break
			}
			row[j] = v
		}
		if !complete {
			continue
		}
		x = append(x, row...)
		if s.Label.Good {
			kw.Good++
			y = append(y, 1)
		} else {
			kw.Bad++
			y = append(y, 0)
		}
	}
	kw.Fitted = len(y)
	need := "scored by every one of " + strings.Join(dims, ", ")
	switch {
	case kw.Fitted < minLabels:
		kw.Message = fmt.Sprintf("not enough labels: %d of the %d needed on verifications %s", kw.Fitted, minLabels, need)
		return kw
	case kw.Good == 0 || kw.Bad == 0:
		kw.Message = fmt.Sprintf("the %d labels on verifications %s are all good or all bad", kw.Fitted, need)
		return kw
	case !enough:
		kw.Message = "not fitted: the calibration as a whole has not enough labels"
		return kw
	}
	kw.Enough = true
	slopes := nonNegLogistic(x, y, p, ridge)
	sum := 0.0
	for _, b := range slopes {
		sum += b
	}
	if !(sum > 0) {
		kw.Message = fmt.Sprintf("no dimension's score rises with the labels over %d labels: the weights are left as they are", kw.Fitted)
		return kw
	}
	for j := range slopes {
		slopes[j] /= sum
	}
	hundredths := roundToSum(slopes, 100)
	kw.Weights = make(map[string]float64, p)
	for j, d := range dims {
		kw.Weights[d] = float64(hundredths[j]) / 100
		// Base weights finer than the hundredths are not changed by a fit
		// that only rounds them.
		if math.Abs(kw.Weights[d]-kw.Base[d]) > 0.005+1e-9 {
			kw.Changed = true
		}
	}
	if kw.Changed {
		kw.Message = fmt.Sprintf("fitted to %d labels", kw.Fitted)
	} else {
		kw.Message = fmt.Sprintf("fitted to %d labels: the weights in force fit them", kw.Fitted)
	}
	return kw
}

// roundToSum rounds the shares v (summing to 1) to whole units of
// 1/total summing to total: each is rounded down, and the units left go
// to the largest remainders, the first among equals.
func roundToSum(v []float64, total int) []int {
	out := make([]int, len(v))
	left := total
	for i, x := range v {
		out[i] = int(math.Floor(x * float64(total)))
		left -= out[i]
	}
	order := make([]int, len(v))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ra, rb := v[a]*float64(total)-float64(out[a]), v[b]*float64(total)-float64(out[b])
		switch {
		case ra > rb:
			return -1
		case ra < rb:
			return 1
		}
		return 0
	})
	for k := 0; left > 0 && len(order) > 0; k = (k + 1) % len(order) {
		out[order[k]]++
		left--
	}
	return out
}

// nonNegLogistic fits y (0 or 1) by a logistic regression on the p
// columns of x (row-major) with an intercept, slopes constrained
// non-negative and penalised by ridge/2 times their squares, and returns
// the slopes. The objective is strictly convex, so its constrained
// optimum is the unconstrained optimum over the columns it leaves free:
// the active sets are tried from the largest, and the first whose fit has
// no negative slope and whose left-out columns would not improve it is the
// optimum.
func nonNegLogistic(x, y []float64, p int, ridge float64) []float64 {
	masks := make([]int, 0, 1<<p)
	for m := 1<<p - 1; m > 0; m-- {
		masks = append(masks, m)
	}
	slices.SortStableFunc(masks, func(a, b int) int { return popcount(b) - popcount(a) })
	tol := 1e-7 * float64(len(y))
	for _, m := range masks {
		var cols []int
		for j := range p {
			if m&(1<<j) != 0 {
				cols = append(cols, j)
			}
		}
		b0, beta := logistic(x, y, p, cols, ridge)
		ok := true
		for _, b := range beta {
			if b < -1e-9 {
				ok = false
			}
		}
		if !ok {
			continue
		}
		full := make([]float64, p)
		for k, j := range cols {
			full[j] = max(beta[k], 0)
		}
		if kktHolds(x, y, p, b0, full, m, tol) {
			return full
		}
	}
	return make([]float64, p)
}

func popcount(m int) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}

// kktHolds reports whether no column left out of mask would raise the
// log-likelihood at (b0, beta) if its slope rose from 0.
func kktHolds(x, y []float64, p int, b0 float64, beta []float64, mask int, tol float64) bool {
	grad := make([]float64, p)
	for i := range y {
		row := x[i*p : (i+1)*p]
		z := b0
		for j, b := range beta {
			z += b * row[j]
		}
		r := y[i] - sigmoid(z)
		for j := range p {
			grad[j] += r * row[j]
		}
	}
	for j := range p {
		if mask&(1<<j) == 0 && grad[j] > tol {
			return false
		}
	}
	return true
}

func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// logLoss is log(1 + e^z) - y z, the negative log-likelihood of one label.
func logLoss(z, y float64) float64 {
	l := math.Max(z, 0) + math.Log1p(math.Exp(-math.Abs(z)))
	return l - y*z
}

// logistic fits y on the columns cols of x (row-major, p columns) with an
// intercept and a ridge on the slopes, by Newton's method with step
// halving, and returns the intercept and the slopes in the order of cols.
func logistic(x, y []float64, p int, cols []int, ridge float64) (float64, []float64) {
	k := len(cols) + 1 // the intercept first
	theta := make([]float64, k)
	mean := 0.0
	for _, v := range y {
		mean += v
	}
	mean /= float64(len(y))
	theta[0] = math.Log(mean / (1 - mean))
	feat := make([]float64, k)
	features := func(i int) []float64 {
		feat[0] = 1
		for a, j := range cols {
			feat[a+1] = x[i*p+j]
		}
		return feat
	}
	objective := func(th []float64) float64 {
		o := 0.0
		for i := range y {
			f := features(i)
			z := 0.0
			for a := range k {
				z += th[a] * f[a]
			}
			o += logLoss(z, y[i])
		}
		for a := 1; a < k; a++ {
			o += ridge / 2 * th[a] * th[a]
		}
		return o
	}
	obj := objective(theta)
	h := make([]float64, k*k)
	g := make([]float64, k)
	next := make([]float64, k)
	for range 200 {
		clear(h)
		clear(g)
		for i := range y {
			f := features(i)
			z := 0.0
			for a := range k {
				z += theta[a] * f[a]
			}
			mu := sigmoid(z)
			w := mu * (1 - mu)
			for a := range k {
				g[a] += (mu - y[i]) * f[a]
				for b := range k {
					h[a*k+b] += w * f[a] * f[b]
				}
			}
		}
		for a := 1; a < k; a++ {
			g[a] += ridge * theta[a]
			h[a*k+a] += ridge
		}
		h[0] += 1e-12 // keeps the step finite when every label is certain
		step, ok := solve(h, g, k)
		if !ok {
			break
		}
		t := 1.0
		improved := false
		for range 40 {
			for a := range k {
				next[a] = theta[a] - t*step[a]
			}
			if o := objective(next); o <= obj {
				improved = o < obj
				obj = o
				copy(theta, next)
				break
			}
			t /= 2
		}
		largest := 0.0
		for a := range k {
			largest = max(largest, math.Abs(t*step[a]))
		}
		if !improved || largest < 1e-10 {
			break
		}
	}
	return theta[0], theta[1:]
}

// solve solves the k×k system a x = b by Gaussian elimination with partial
// pivoting; ok is false when a is singular.
func solve(a, b []float64, k int) ([]float64, bool) {
	m := make([]float64, k*(k+1))
	for i := range k {
		copy(m[i*(k+1):], a[i*k:(i+1)*k])
		m[i*(k+1)+k] = b[i]
	}
	w := k + 1
	for c := range k {
		piv := c
		for r := c + 1; r < k; r++ {
			if math.Abs(m[r*w+c]) > math.Abs(m[piv*w+c]) {
				piv = r
			}
		}
		if m[piv*w+c] == 0 || math.IsNaN(m[piv*w+c]) {
			return nil, false
		}
		if piv != c {
			for j := range w {
				m[c*w+j], m[piv*w+j] = m[piv*w+j], m[c*w+j]
			}
		}
		for r := range k {
			if r == c {
				continue
			}
			f := m[r*w+c] / m[c*w+c]
			for j := c; j < w; j++ {
				m[r*w+j] -= f * m[c*w+j]
			}
		}
	}
	out := make([]float64, k)
	for i := range k {
		out[i] = m[i*w+k] / m[i*w+i]
	}
	return out, true
}

func rate(n, d int) *float64 {
	if d == 0 {
		return nil
	}
	r := round4(float64(n) / float64(d))
	return &r
}

func frate(n float64, d int) *float64 {
	if d == 0 {
		return nil
	}
	r := round4(n / float64(d))
	return &r
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// ErrNothingSuggested is returned by [Calibration.Patch] when the
// calibration suggests nothing.
var ErrNothingSuggested = errors.New("quality: calibration suggests nothing")

// Patch returns the calibration's suggestion as a policy file to layer on
// top of the base policy (policy.Load, vouch policy check): passAt and
// failBelow, and the weights of each kind the suggestion changes, all of
// the kind's dimensions so that layering replaces them together. It is
// [Calibration.WithWeights] when there is one, else
// [Calibration.Thresholds]. A comment header says the patch was suggested
// by calibration over how many labels, and must be reviewed. Patch
// returns [ErrNothingSuggested], with the calibration's message, when
// nothing is suggested.
func (c *Calibration) Patch() ([]byte, error) {
	s := c.WithWeights
	if s == nil {
		s = c.Thresholds
	}
	if s == nil {
		return nil, fmt.Errorf("%w: %s", ErrNothingSuggested, c.Message)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Suggested by vouch calibration over %d labels (%d good, %d bad; %d of them fitted) of %d verifications.\n",
		c.Labels, c.Good, c.Bad, c.Fitted, c.Samples)
	b.WriteString("# Review it before applying: it fits past labels, and a person decides.\n")
	fmt.Fprintf(&b, "# Disagreement with the labels: %s before, %s after; verdicts changed: %d of %d.\n",
		num(s.Disagreement.Before), num(s.Disagreement.After), s.Changes.Changed, s.Changes.Samples)
	fmt.Fprintf(&b, "passAt: %s\nfailBelow: %s\n", num(s.PassAt), num(s.FailBelow))
	if len(s.Weights) > 0 {
		b.WriteString("weights:\n")
		kinds := make([]string, 0, len(s.Weights))
		for k := range s.Weights {
			kinds = append(kinds, k)
		}
		slices.Sort(kinds)
		for _, k := range kinds {
			fmt.Fprintf(&b, "  %s:\n", k)
			for _, d := range vouch.Dimensions(vouch.Kind(k)) {
				if w, ok := s.Weights[k][d]; ok {
					fmt.Fprintf(&b, "    %s: %s\n", d, num(w))
				}
			}
		}
	}
	return []byte(b.String()), nil
}

func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
