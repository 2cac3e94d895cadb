package api

import (
	"fmt"
	"time"
)

// The shapes of GET /v1/metrics and GET /v1/alerts; package quality
// computes them.

// Rate is a share with the counts it is computed from: Value = N ÷ Of,
// nil when Of is 0. A rate over 3 is not read like one over 3,000.
type Rate struct {
	Value *float64 `json:"value"`
	N     int64    `json:"n"`
	Of    int64    `json:"of"`
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

// Metrics are the quality metrics of a window of verifications: the body
// of GET /v1/metrics. Verdicts count unverified beside pass, retry and
// fail.
//
// Unverified is neither a pass nor a send-back: FirstPass counts only
// passes; a labelled unverified verification is neither caught nor missed
// (CatchRate) and never a false alarm (FalseAlarmRate), and is counted in
// UnverifiedLabels instead; Labels.Labelled, Good and Bad count it, and
// the false-alarm rate's denominator (every verification) holds it. A
// reviewer's override of an unverified verdict always changes it (a
// person decides pass, retry or fail), so Reviews counts it overridden.
type Metrics struct {
	Window        Window `json:"window"`
	Verifications int64  `json:"verifications"`
	// UnverifiedRate is the verifications left unverified ÷ the
	// verifications.
	UnverifiedRate Rate `json:"unverifiedRate"`
	// Coverage is the claims decided (verified or refuted) ÷ the claims,
	// over the verifications whose report has a claim ledger (Ledgers of
	// them; those stored before vouch kept one have none).
	Coverage Rate `json:"coverage"`
	// Ledgers counts the verifications whose report has a claim ledger.
	Ledgers int64 `json:"ledgers"`
	// RefutedClaims counts the claims the evidence refuted.
	RefutedClaims int64 `json:"refutedClaims"`
	// UnverifiedLabels count the labelled verifications the gate left
	// unverified, by what their latest label says.
	UnverifiedLabels UnverifiedLabels `json:"unverifiedLabels"`
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
	// ScoreByComplexity groups the verifications by the complexity of
	// their task, in five bins: 0, 1, 2-3, 4-7, and 8 or more (a
	// verification stored before the log kept complexities is in none).
	ScoreByComplexity []ComplexityBin `json:"scoreByComplexity"`
	// RetrySuccessByIssue is retry success by issue type: for each first
	// failure code of the tasks' first attempts, how many first attempts
	// it sent back, and the share of the tasks retried after it that
	// ended in a pass; most retried first, at most 20 issues.
	RetrySuccessByIssue []IssueRetry `json:"retrySuccessByIssue"`
}

// ComplexityBin is the verifications of one range of task complexity:
// the subgoals of the plan a decomposition verifies, else the criteria
// the task writes.
type ComplexityBin struct {
	// From and To bound the complexity, both included; To is nil for the
	// last bin, which has no bound.
	From int  `json:"from"`
	To   *int `json:"to"`
	// N counts the verifications.
	N int64 `json:"n"`
	// MeanScore is the mean score of the Scored verifications (those with
	// a score), nil when none has one.
	MeanScore *float64 `json:"meanScore"`
	Scored    int64    `json:"scored"`
	// Pass is the verifications that passed ÷ N.
	Pass Rate `json:"pass"`
}

// IssueRetry is retry success for one issue type: the first failure code
// of a task's first attempt. The code NO_CODE stands for a first attempt
// that raised none (a low score sent it back).
type IssueRetry struct {
	Code    string `json:"code"`
	Meaning string `json:"meaning,omitempty"`
	// SentBack counts the first attempts it sent back (retry or fail).
	SentBack int64 `json:"sentBack"`
	// RetrySuccess is the tasks retried after it that ended in a pass ÷
	// the tasks retried after it (counted by their second attempt).
	RetrySuccess Rate `json:"retrySuccess"`
}

// AlertStatus is one alert evaluated on a window's metrics.
type AlertStatus struct {
	Name     string `json:"name"`
	Severity string `json:"severity"`
	Firing   bool   `json:"firing"`
	// Value is the figure watched, nil when there is nothing to compute
	// it over.
	Value     *float64 `json:"value"`
	Threshold float64  `json:"threshold"`
	// Below is true when the alert fires below the threshold.
	Below bool `json:"below"`
	// Labels is how many observations Value rests on, MinLabels how many
	// it needs before it may fire.
	Labels    int64  `json:"labels"`
	MinLabels int    `json:"minLabels"`
	Message   string `json:"message"`
	// Since is when the alert last started or stopped firing (set by the
	// server from the stored state).
	Since time.Time `json:"since,omitzero"`
}

// AlertReport is the answer of GET /v1/alerts: every alert evaluated on
// the window it watches.
type AlertReport struct {
	Window Window        `json:"window"`
	Alerts []AlertStatus `json:"alerts"`
}

// String writes the rate as "0.83 (5/6)", or "n/a (0)".
func (r Rate) String() string {
	if r.Value == nil {
		return "n/a (0)"
	}
	return fmt.Sprintf("%.2f (%d/%d)", *r.Value, r.N, r.Of)
}

// UnverifiedLabels count the labelled verifications the gate left
// unverified: what a reviewer or an outcome settled for the outputs the
// gate could not.
type UnverifiedLabels struct {
	// Good counts those labelled good, Bad those labelled bad.
	Good int64 `json:"good"`
	Bad  int64 `json:"bad"`
}
