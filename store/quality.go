package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vouchgate/vouch"
)

// Window selects the verifications metrics are computed over: those
// created in [Since, Until) of the kind, executor model and criticality
// given (an empty one matches any).
type Window struct {
	Since, Until                     time.Time
	Kind, ExecutorModel, Criticality string
}

// Tally is the counts and sums of a group of verifications that the
// quality metrics are computed from. The store keeps one per tenant, hour
// and group (kind, executor model, criticality), and one per tenant, day
// and group, added to in the transaction that inserts each verification,
// so that the metrics of a month add up about a thousand tallies rather
// than every verification.
type Tally struct {
	N int64
	// FirstAttempts counts the attempt-1 verifications, FirstPass those
	// of them that passed (an unverified verdict is not a pass).
	FirstAttempts, FirstPass int64
	// Retries counts the verifications of attempt 2 or later,
	// RetriedTasks those of attempt 2 (one per task sent back at least
	// once), and RetryPass the retries that passed (a pass ends a task,
	// so one per retried task that ended in a pass).
	Retries, RetriedTasks, RetryPass int64
	// Pass, Retry, Fail and Unverified count the verdicts.
	Pass, Retry, Fail, Unverified int64
	// Accept ... Escalate count the actions.
	Accept, RetryAction, Reformulate, FollowUp, Escalate int64
	NeedsReview                                          int64
	// Confidence counts the verifications by confidence in tenths: [i]
	// holds [i/10, (i+1)/10), and [9] holds 1 too.
	Confidence [10]int64
	// Score counts them likewise by score; Undecided counts null scores.
	Score     [10]int64
	Undecided int64
	// CostUSD is what the verifications spent on judges.
	CostUSD float64
	// Priced counts the verifications whose task cost is known;
	// PricedCostUSD and TaskCostUSD are their verification and task
	// costs.
	Priced                     int64
	PricedCostUSD, TaskCostUSD float64
	// JudgeCalls, CacheHits and CacheMisses add up the reports' judge
	// costs.
	JudgeCalls, CacheHits, CacheMisses int64
	// SelfAssessed counts the verifications that have both a confidence
	// the executor reported in itself and a score; SelfConfidence and
	// SelfScore are the sums of both over them.
	SelfAssessed              int64
	SelfConfidence, SelfScore float64
	// Ledgers counts the verifications whose report has a claim ledger
	// (see [Verification.Ledger]); Claims sums their claims, ClaimsDecided
	// those decided (verified or refuted), ClaimsRefuted those refuted.
	// Coverage is ClaimsDecided ÷ Claims.
	Ledgers, Claims, ClaimsDecided, ClaimsRefuted int64
	// Complexity groups the verifications whose complexity is known by
	// its bin (see [ComplexityBin]).
	Complexity [ComplexityBins]ComplexityTally
}

// ComplexityTally is the part of a tally of one complexity bin: how many
// verifications, how many passed, how many have a score and the sum of
// those scores.
type ComplexityTally struct {
	N, Pass, Scored int64
	ScoreSum        float64
}

// ComplexityBins is how many bins [ComplexityBin] sorts complexities
// into.
const ComplexityBins = 5

// complexityFrom are the least complexity of each bin: 0, 1, 2-3, 4-7,
// and 8 or more.
var complexityFrom = [ComplexityBins]int{0, 1, 2, 4, 8}

// ComplexityBin returns the bin of a complexity (the subgoals of a
// decomposition's plan, else the task's criteria): 0 for none, 1 for
// one, 2 for two or three, 3 for four to seven, 4 for eight or more.
func ComplexityBin(c int) int {
	for i := ComplexityBins - 1; i > 0; i-- {
		if c >= complexityFrom[i] {
			return i
		}
	}
	return 0
}

// ComplexityRange returns the least and the greatest complexity of a
// bin; the last bin has no greatest (to is -1).
func ComplexityRange(bin int) (from, to int) {
	if bin == ComplexityBins-1 {
		return complexityFrom[bin], -1
	}
	return complexityFrom[bin], complexityFrom[bin+1] - 1
}

// tallyField is one column of metric_tallies: a sum stored as a double.
type tallyField struct {
	col string
	get func(*Tally) float64
	add func(*Tally, float64)
}

func countField(col string, p func(*Tally) *int64) tallyField {
	return tallyField{col,
		func(t *Tally) float64 { return float64(*p(t)) },
		func(t *Tally, x float64) { *p(t) += int64(math.Round(x)) }}
}

func sumField(col string, p func(*Tally) *float64) tallyField {
	return tallyField{col,
		func(t *Tally) float64 { return *p(t) },
		func(t *Tally, x float64) { *p(t) += x }}
}

// tallyFields are the columns of metric_tallies after the key, in the
// order of migrations 0002, 0007 and 0010.
var tallyFields = func() []tallyField {
	fs := []tallyField{
		countField("n", func(t *Tally) *int64 { return &t.N }),
		countField("first_attempts", func(t *Tally) *int64 { return &t.FirstAttempts }),
		countField("first_pass", func(t *Tally) *int64 { return &t.FirstPass }),
		countField("retries", func(t *Tally) *int64 { return &t.Retries }),
		countField("retried_tasks", func(t *Tally) *int64 { return &t.RetriedTasks }),
		countField("retry_pass", func(t *Tally) *int64 { return &t.RetryPass }),
		countField("verdict_pass", func(t *Tally) *int64 { return &t.Pass }),
		countField("verdict_retry", func(t *Tally) *int64 { return &t.Retry }),
		countField("verdict_fail", func(t *Tally) *int64 { return &t.Fail }),
		countField("action_accept", func(t *Tally) *int64 { return &t.Accept }),
		countField("action_retry", func(t *Tally) *int64 { return &t.RetryAction }),
		countField("action_reformulate", func(t *Tally) *int64 { return &t.Reformulate }),
		countField("action_follow_up", func(t *Tally) *int64 { return &t.FollowUp }),
		countField("action_escalate", func(t *Tally) *int64 { return &t.Escalate }),
		countField("needs_review", func(t *Tally) *int64 { return &t.NeedsReview }),
	}
	for i := range 10 {
		fs = append(fs, countField(fmt.Sprintf("confidence_%d", i), func(t *Tally) *int64 { return &t.Confidence[i] }))
	}
	for i := range 10 {
		fs = append(fs, countField(fmt.Sprintf("score_%d", i), func(t *Tally) *int64 { return &t.Score[i] }))
	}
	fs = append(fs,
		countField("score_none", func(t *Tally) *int64 { return &t.Undecided }),
		sumField("cost_usd", func(t *Tally) *float64 { return &t.CostUSD }),
		countField("priced", func(t *Tally) *int64 { return &t.Priced }),
		sumField("priced_cost_usd", func(t *Tally) *float64 { return &t.PricedCostUSD }),
		sumField("task_cost_usd", func(t *Tally) *float64 { return &t.TaskCostUSD }),
		countField("judge_calls", func(t *Tally) *int64 { return &t.JudgeCalls }),
		countField("cache_hits", func(t *Tally) *int64 { return &t.CacheHits }),
		countField("cache_misses", func(t *Tally) *int64 { return &t.CacheMisses }),
		countField("self_assessed", func(t *Tally) *int64 { return &t.SelfAssessed }),
		sumField("self_confidence", func(t *Tally) *float64 { return &t.SelfConfidence }),
		sumField("self_score", func(t *Tally) *float64 { return &t.SelfScore }),
		countField("verdict_unverified", func(t *Tally) *int64 { return &t.Unverified }),
		countField("ledgers", func(t *Tally) *int64 { return &t.Ledgers }),
		countField("claims", func(t *Tally) *int64 { return &t.Claims }),
		countField("claims_decided", func(t *Tally) *int64 { return &t.ClaimsDecided }),
		countField("claims_refuted", func(t *Tally) *int64 { return &t.ClaimsRefuted }),
	)
	for i := range ComplexityBins {
		c := func(t *Tally) *ComplexityTally { return &t.Complexity[i] }
		fs = append(fs,
			countField(fmt.Sprintf("complexity_%d_n", i), func(t *Tally) *int64 { return &c(t).N }),
			countField(fmt.Sprintf("complexity_%d_pass", i), func(t *Tally) *int64 { return &c(t).Pass }),
			countField(fmt.Sprintf("complexity_%d_scored", i), func(t *Tally) *int64 { return &c(t).Scored }),
			sumField(fmt.Sprintf("complexity_%d_score", i), func(t *Tally) *float64 { return &c(t).ScoreSum }))
	}
	return fs
}()

// Merge adds o into t.
func (t *Tally) Merge(o *Tally) {
	for _, f := range tallyFields {
		f.add(t, f.get(o))
	}
}

// tenth is the histogram bin of a figure in [0, 1].
func tenth(x float64) int {
	if !(x > 0) { // also NaN
		return 0
	}
	return min(int(x*10), 9)
}

// Add counts one verification into t.
func (t *Tally) Add(v *Verification) {
	t.N++
	pass := v.Verdict == vouch.VerdictPass
	if v.Attempt <= 1 {
		t.FirstAttempts++
		if pass {
			t.FirstPass++
		}
	} else {
		t.Retries++
		if v.Attempt == 2 {
			t.RetriedTasks++
		}
		if pass {
			t.RetryPass++
		}
	}
	switch v.Verdict {
	case vouch.VerdictPass:
		t.Pass++
	case vouch.VerdictRetry:
		t.Retry++
	case vouch.VerdictFail:
		t.Fail++
	case vouch.VerdictUnverified:
		t.Unverified++
	}
	switch v.Action {
	case vouch.ActionAccept:
		t.Accept++
	case vouch.ActionRetry:
		t.RetryAction++
	case vouch.ActionReformulate:
		t.Reformulate++
	case vouch.ActionFollowUp:
		t.FollowUp++
	case vouch.ActionEscalate:
		t.Escalate++
	}
	if v.NeedsReview {
		t.NeedsReview++
	}
	t.Confidence[tenth(v.Confidence)]++
	if v.Score == nil {
		t.Undecided++
	} else {
		t.Score[tenth(*v.Score)]++
	}
	t.CostUSD += v.CostUSD
	if v.TaskCostUSD != nil && *v.TaskCostUSD > 0 {
		t.Priced++
		t.PricedCostUSD += v.CostUSD
		t.TaskCostUSD += *v.TaskCostUSD
	}
	t.JudgeCalls += int64(v.JudgeCalls)
	t.CacheHits += int64(v.CacheHits)
	t.CacheMisses += int64(v.CacheMisses)
	if v.SelfConfidence != nil && v.Score != nil {
		t.SelfAssessed++
		t.SelfConfidence += *v.SelfConfidence
		t.SelfScore += *v.Score
	}
	if l := v.Ledger; l != nil {
		t.Ledgers++
		t.Claims += int64(l.Claims)
		t.ClaimsDecided += int64(l.Decided())
		t.ClaimsRefuted += int64(l.Refuted)
	}
	if v.Complexity != nil {
		c := &t.Complexity[ComplexityBin(*v.Complexity)]
		c.N++
		if pass {
			c.Pass++
		}
		if v.Score != nil {
			c.Scored++
			c.ScoreSum += *v.Score
		}
	}
}

// IssueTally counts, for one issue (the first failure code of a task's
// first attempt, see [Verification.Issue]), the first attempts it sent
// back, the tasks retried after it (by their attempt 2) and the retries
// that passed (one per retried task that ended in a pass).
type IssueTally struct {
	Issue                        string
	SentBack, Retried, RetryPass int64
}

// add counts v into t, which is of v's issue; it reports whether v
// counted.
func (t *IssueTally) add(v *Verification) bool {
	if v.Issue == "" {
		return false
	}
	switch {
	case v.Attempt <= 1:
		if !v.Verdict.SentBack() {
			return false
		}
		t.SentBack++
	case v.Attempt == 2 && v.Verdict == vouch.VerdictPass:
		t.Retried++
		t.RetryPass++
	case v.Attempt == 2:
		t.Retried++
	case v.Verdict == vouch.VerdictPass:
		t.RetryPass++
	default:
		return false
	}
	return true
}

// merge adds o into t.
func (t *IssueTally) merge(o IssueTally) {
	t.SentBack += o.SentBack
	t.Retried += o.Retried
	t.RetryPass += o.RetryPass
}

// GroupTally is the tally of one kind and executor model over a window.
type GroupTally struct {
	Kind, ExecutorModel string
	Tally
}

// CodeCount is how often a failure code was raised over a window, with
// up to three of the latest verifications that raised it.
type CodeCount struct {
	Code     string
	N        int64
	Examples []Ref
}

// Ref names one stored verification.
type Ref struct {
	ID      string
	Attempt int
}

// WindowTally is what a window's metrics are computed from: the tallies
// by kind and executor model, and the failure codes by frequency.
type WindowTally struct {
	Groups []GroupTally
	Codes  []CodeCount
	// Issues are the tallies of the first attempts' issues, by Retried,
	// then SentBack, from most to fewest, then by issue.
	Issues []IssueTally
}

// maxExamples is how many verifications a CodeCount names, and
// maxExampled how many of the most frequent codes get examples.
const (
	maxExamples = 3
	maxExampled = 10
)

// The periods tallies are kept for, in seconds: every verification is
// added to the tally of its hour and of its day (UTC).
const (
	hourly = 3600
	daily  = 86400
)

var periods = []int{hourly, daily}

// tallyKey is the key of a metric_tallies row but its tenant.
type tallyKey struct {
	period                           int
	bucket                           time.Time
	kind, executorModel, criticality string
}

// bucketOf returns the start of the period t falls in, in UTC.
func bucketOf(t time.Time, period int) time.Time {
	return t.UTC().Truncate(time.Duration(period) * time.Second)
}

func (k tallyKey) compare(o tallyKey) int {
	if c := k.period - o.period; c != 0 {
		return c
	}
	if c := k.bucket.Compare(o.bucket); c != 0 {
		return c
	}
	return strings.Compare(k.kind+"\x00"+k.executorModel+"\x00"+k.criticality, o.kind+"\x00"+o.executorModel+"\x00"+o.criticality)
}

// tallyUpserts are the statements that add to the tallies, the failure
// codes and the issues of an hour or a day.
type tallyUpserts struct{ tally, code, issue string }

// upserts are those statements without a shard column ([0]) and with one
// ([1]), which each then takes as its last argument.
var upserts = [2]tallyUpserts{newTallyUpserts(false), newTallyUpserts(true)}

// upsertsOf returns the statements of a dialect.
func upsertsOf(d dialect) tallyUpserts {
	if d.tallyShards > 1 {
		return upserts[1]
	}
	return upserts[0]
}

// sparseTallies caches the statements of sparseTallySQL by their columns.
var sparseTallies sync.Map

// sparseTallySQL is the upsert of a tally row that adds to the columns of
// tallyFields given by their index only (the others are 0 in a new row,
// and stay as they are in a stored one).
func sparseTallySQL(cols []int, sharded bool) string {
	var key strings.Builder
	if sharded {
		key.WriteString("s")
	}
	for _, i := range cols {
		key.WriteString(strconv.Itoa(i))
		key.WriteByte(',')
	}
	if q, ok := sparseTallies.Load(key.String()); ok {
		return q.(string)
	}
	shardCol, shardVal := "", ""
	if sharded {
		shardCol, shardVal = ", shard", ", ?"
	}
	var names, vals, sets []string
	for _, i := range cols {
		c := tallyFields[i].col
		names = append(names, c)
		vals = append(vals, "?")
		sets = append(sets, fmt.Sprintf("%s = metric_tallies.%s + excluded.%s", c, c, c))
	}
	const k = `tenant, period, bucket, kind, executor_model, criticality`
	q := `INSERT INTO metric_tallies (` + k + `, ` + strings.Join(names, ", ") + shardCol +
		`) VALUES (?, ?, ?, ?, ?, ?, ` + strings.Join(vals, ", ") + shardVal +
		`) ON CONFLICT (` + k + shardCol + `) DO UPDATE SET ` + strings.Join(sets, ", ")
	sparseTallies.Store(key.String(), q)
	return q
}

func newTallyUpserts(sharded bool) tallyUpserts {
	shardCol, shardVal := "", ""
	if sharded {
		shardCol, shardVal = ", shard", ", ?"
	}
	var cols, vals, sets []string
	for _, f := range tallyFields {
		cols = append(cols, f.col)
		vals = append(vals, "?")
		sets = append(sets, fmt.Sprintf("%s = metric_tallies.%s + excluded.%s", f.col, f.col, f.col))
	}
	const key = `tenant, period, bucket, kind, executor_model, criticality`
	return tallyUpserts{
		tally: `INSERT INTO metric_tallies (` + key + `, ` + strings.Join(cols, ", ") + shardCol +
			`) VALUES (?, ?, ?, ?, ?, ?, ` + strings.Join(vals, ", ") + shardVal +
			`) ON CONFLICT (` + key + shardCol + `) DO UPDATE SET ` + strings.Join(sets, ", "),
		// The example is the newest verification that raised the code,
		// not the last one inserted.
		code: `INSERT INTO metric_codes (` + key + `, code, n, example_id, example_attempt, example_at` + shardCol + `)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?` + shardVal + `)
			ON CONFLICT (` + key + `, code` + shardCol + `) DO UPDATE SET
			n = metric_codes.n + excluded.n,
			example_id = CASE WHEN excluded.example_at >= metric_codes.example_at
				THEN excluded.example_id ELSE metric_codes.example_id END,
			example_attempt = CASE WHEN excluded.example_at >= metric_codes.example_at
				THEN excluded.example_attempt ELSE metric_codes.example_attempt END,
			example_at = CASE WHEN excluded.example_at >= metric_codes.example_at
				THEN excluded.example_at ELSE metric_codes.example_at END`,
		issue: `INSERT INTO metric_issues (` + key + `, issue, sent_back, retried, retry_pass` + shardCol + `)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?` + shardVal + `)
			ON CONFLICT (` + key + `, issue` + shardCol + `) DO UPDATE SET
			sent_back = metric_issues.sent_back + excluded.sent_back,
			retried = metric_issues.retried + excluded.retried,
			retry_pass = metric_issues.retry_pass + excluded.retry_pass`,
	}
}

// addTalliesOf adds inserted verifications of any tenants to their
// tallies, tenant by tenant in name order.
func (s *sqlStore) addTalliesOf(ctx context.Context, tx conn, vs []*Verification) error {
	byTenant := map[string][]*Verification{}
	var tenants []string
	for _, v := range vs {
		if byTenant[v.Tenant] == nil {
			tenants = append(tenants, v.Tenant)
		}
		byTenant[v.Tenant] = append(byTenant[v.Tenant], v)
	}
	slices.Sort(tenants)
	for _, t := range tenants {
		if err := s.addTallies(ctx, tx, t, byTenant[t]...); err != nil {
			return err
		}
	}
	return nil
}

// addTallies adds inserted verifications (all of one tenant) to the
// tallies and codes of their hours and days, in tx. Rows are written in
// key order, so that concurrent transactions lock them in one order.
func (s *sqlStore) addTallies(ctx context.Context, tx conn, tenant string, vs ...*Verification) error {
	type codeSum struct {
		n   int
		ref timedRef
	}
	tallies := map[tallyKey]*Tally{}
	codes := map[codeKey]*codeSum{}
	issues := map[codeKey]*IssueTally{}
	for _, v := range vs {
		for _, p := range periods {
			k := tallyKey{p, bucketOf(v.CreatedAt, p), string(v.Kind), v.ExecutorModel, v.Criticality}
			t := tallies[k]
			if t == nil {
				t = &Tally{}
				tallies[k] = t
			}
			t.Add(v)
			var it IssueTally
			if it.add(v) {
				ik := codeKey{k, v.Issue}
				if issues[ik] == nil {
					issues[ik] = &IssueTally{Issue: v.Issue}
				}
				issues[ik].merge(it)
			}
			for _, c := range v.Codes {
				ck := codeKey{k, c}
				cs := codes[ck]
				if cs == nil {
					cs = &codeSum{}
					codes[ck] = cs
				}
				cs.n++
				if cs.ref.at.IsZero() || !v.CreatedAt.Before(cs.ref.at) {
					cs.ref = timedRef{Ref{v.ID, v.Attempt}, v.CreatedAt}
				}
			}
		}
	}
	keys := make([]tallyKey, 0, len(tallies))
	for k := range tallies {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, tallyKey.compare)
	up := upsertsOf(s.d)
	// One shard for the whole transaction: its rows are still locked in
	// key order.
	var shardArg []any
	if s.d.tallyShards > 1 {
		shardArg = []any{shard(tx, s.d.tallyShards)}
	}
	var stmts []stmt
	for _, k := range keys {
		args := make([]any, 0, 7+len(tallyFields))
		args = append(args, tenant, k.period, s.d.ts(k.bucket), k.kind, k.executorModel, k.criticality)
		q := up.tally
		if s.d.sparseTallies {
			// Only the sums this row adds to: a verification adds to about
			// 15 of 91. pgx prepares the statement of each set of columns
			// once per connection and keeps the 512 last used; a stream of
			// like verifications uses a few.
			var cols []int
			for i, f := range tallyFields {
				if x := f.get(tallies[k]); x != 0 {
					cols = append(cols, i)
					args = append(args, x)
				}
			}
			q = sparseTallySQL(cols, shardArg != nil)
		} else {
			for _, f := range tallyFields {
				args = append(args, f.get(tallies[k]))
			}
		}
		stmts = append(stmts, stmt{"tally", q, append(args, shardArg...)})
	}
	for _, k := range sortedCodeKeys(codes) {
		cs := codes[k]
		args := []any{tenant, k.period, s.d.ts(k.bucket), k.kind, k.executorModel,
			k.criticality, k.code, cs.n, cs.ref.ID, cs.ref.Attempt, s.d.ts(cs.ref.at)}
		stmts = append(stmts, stmt{"failure codes", up.code, append(args, shardArg...)})
	}
	for _, k := range sortedCodeKeys(issues) {
		it := issues[k]
		args := []any{tenant, k.period, s.d.ts(k.bucket), k.kind, k.executorModel,
			k.criticality, k.code, it.SentBack, it.Retried, it.RetryPass}
		stmts = append(stmts, stmt{"issues", up.issue, append(args, shardArg...)})
	}
	// In one round trip on PostgreSQL.
	return tx.execAll(ctx, stmts)
}

// codeKey is the key of a metric_codes or metric_issues row but its
// tenant.
type codeKey struct {
	tallyKey
	code string
}

// sortedCodeKeys returns the keys of m in key order.
func sortedCodeKeys[V any](m map[codeKey]V) []codeKey {
	keys := make([]codeKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b codeKey) int {
		if c := a.compare(b.tallyKey); c != 0 {
			return c
		}
		return strings.Compare(a.code, b.code)
	})
	return keys
}

// compactCols are the columns of a Verification the metrics and
// calibration read, in the order scanCompact reads them (v is
// verification_logs).
const compactCols = `v.seq, v.id, v.attempt, v.kind, v.executor_model, v.criticality, v.verdict,
	v.action, v.score, v.confidence, v.needs_review, v.cost_usd, v.task_cost_usd, v.judge_calls,
	v.cache_hits, v.cache_misses, v.self_confidence, v.codes, v.verdict_row, v.dims,
	v.must_undecided, v.injection, v.created_at, v.claims, v.claims_unverified, v.claims_refuted,
	v.left_unverified, v.complexity, v.issue`

// scanCompact reads the compactCols, and then extra.
func scanCompact(r row, v *Verification, extra ...any) error {
	var (
		dims, codes string
		ls          ledgerScan
	)
	dest := append(ls.appendDest([]any{&v.Seq, &v.ID, &v.Attempt, &v.Kind, &v.ExecutorModel, &v.Criticality,
		&v.Verdict, &v.Action, &v.Score, &v.Confidence, &v.NeedsReview, &v.CostUSD, &v.TaskCostUSD,
		&v.JudgeCalls, &v.CacheHits, &v.CacheMisses, &v.SelfConfidence, &codes, &v.VerdictRow,
		&dims, &v.MustUndecided, &v.Injection, utcTime{&v.CreatedAt}}), &v.Complexity, &v.Issue)
	dest = append(dest, extra...)
	if err := r.Scan(dest...); err != nil {
		return err
	}
	v.Ledger = ls.ledger()
	return scanFeatures(v, dims, codes)
}

// formatDims writes decided dimension scores as the dims column holds
// them: "name=score" pairs, space separated, in name order; quicker to
// read back than JSON, which matters when calibration reads a month.
func formatDims(dims map[string]float64) string {
	names := make([]string, 0, len(dims))
	for n := range dims {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(n)
		b.WriteByte('=')
		b.WriteString(strconv.FormatFloat(dims[n], 'g', -1, 64))
	}
	return b.String()
}

// scanFeatures fills v's Dims and Codes from their columns.
func scanFeatures(v *Verification, dims, codes string) error {
	v.Dims, v.Codes = nil, nil
	if codes != "" {
		v.Codes = strings.Fields(codes)
	}
	for dims != "" {
		var pair string
		pair, dims, _ = strings.Cut(dims, " ")
		name, val, ok := strings.Cut(pair, "=")
		x, err := strconv.ParseFloat(val, 64)
		if !ok || err != nil || name == "" {
			return fmt.Errorf("dims of %s/%d: bad pair %q", v.ID, v.Attempt, pair)
		}
		if v.Dims == nil {
			v.Dims = make(map[string]float64, 4)
		}
		v.Dims[name] = x
	}
	return nil
}

// windowWhere is the WHERE clause of a window's filters on v, after the
// tenant; col is the column of time ("v.created_at" or "v.bucket"). When
// v is looked up by its key (lookup), the filters keep off v's indexes.
func (s *sqlStore) windowWhere(q *strings.Builder, args []any, w Window, col string, from, to time.Time, lookup ...bool) []any {
	pre := ""
	if len(lookup) > 0 && lookup[0] {
		pre = s.d.noIndex
	}
	q.WriteString(` AND ` + pre + col + ` >= ? AND ` + pre + col + ` < ?`)
	args = append(args, s.d.ts(from), s.d.ts(to))
	for _, f := range []struct{ col, val string }{
		{"v.kind", w.Kind}, {"v.executor_model", w.ExecutorModel}, {"v.criticality", w.Criticality},
	} {
		if f.val != "" {
			q.WriteString(` AND ` + pre + f.col + ` = ?`)
			args = append(args, f.val)
		}
	}
	return args
}

func checkWindow(w Window) error {
	if w.Since.IsZero() || w.Until.IsZero() || !w.Since.Before(w.Until) {
		return fmt.Errorf("window [%s, %s) is empty or open", w.Since.Format(time.RFC3339), w.Until.Format(time.RFC3339))
	}
	return nil
}

// segment is a part of a window read from the tallies of one period, or
// from the verifications themselves (period 0).
type segment struct {
	period   int
	from, to time.Time
}

// segments splits [since, until) into whole days, whole hours at their
// ends, and the parts of hours left at the window's ends.
func segments(since, until time.Time) []segment {
	var out []segment
	add := func(period int, from, to time.Time) {
		if from.Before(to) {
			out = append(out, segment{period, from, to})
		}
	}
	ceil := func(t time.Time, period int) time.Time {
		b := bucketOf(t, period)
		if b.Before(t) {
			b = b.Add(time.Duration(period) * time.Second)
		}
		return b
	}
	h0, h1 := ceil(since, hourly), bucketOf(until, hourly)
	if !h0.Before(h1) {
		add(0, since, until)
		return out
	}
	add(0, since, h0)
	d0, d1 := ceil(h0, daily), bucketOf(h1, daily)
	if d0.Before(d1) {
		add(hourly, h0, d0)
		add(daily, d0, d1)
		add(hourly, d1, h1)
	} else {
		add(hourly, h0, h1)
	}
	add(0, h1, until)
	return out
}

// Tally implements [Quality.Tally]: the whole days of the window are read
// from the daily tallies, the whole hours at their ends from the hourly
// ones, and the parts of hours at the window's ends from the
// verifications themselves.
func (s *sqlStore) Tally(ctx context.Context, tenant string, w Window) (*WindowTally, error) {
	const op = "store: tally"
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if err := checkWindow(w); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	type group struct{ kind, model string }
	groups := map[group]*Tally{}
	tallyOf := func(kind, model string) *Tally {
		t := groups[group{kind, model}]
		if t == nil {
			t = &Tally{}
			groups[group{kind, model}] = t
		}
		return t
	}
	codes := map[string]int64{}
	issues := map[string]*IssueTally{}
	issueOf := func(issue string) *IssueTally {
		it := issues[issue]
		if it == nil {
			it = &IssueTally{Issue: issue}
			issues[issue] = it
		}
		return it
	}
	// rawRefs are the examples of the parts read from verifications.
	rawRefs := map[string][]timedRef{}
	c := s.eng.reader()
	segs := segments(w.Since, w.Until)
	for _, sg := range segs {
		if sg.period == 0 {
			err := s.scanWindow(ctx, c, tenant, w, sg.from, sg.to, func(v *Verification) error {
				tallyOf(string(v.Kind), v.ExecutorModel).Add(v)
				var it IssueTally
				if it.add(v) {
					issueOf(v.Issue).merge(it)
				}
				for _, code := range v.Codes {
					codes[code]++
					rawRefs[code] = append(rawRefs[code], timedRef{Ref{v.ID, v.Attempt}, v.CreatedAt})
				}
				return nil
			})
			if err != nil {
				return nil, s.fail(op, err)
			}
			continue
		}
		if err := s.readTallies(ctx, c, tenant, w, sg, tallyOf); err != nil {
			return nil, s.fail(op, err)
		}
		if err := s.readCodes(ctx, c, tenant, w, sg, codes); err != nil {
			return nil, s.fail(op, err)
		}
		if err := s.readIssues(ctx, c, tenant, w, sg, issueOf); err != nil {
			return nil, s.fail(op, err)
		}
	}

	out := &WindowTally{}
	for g, t := range groups {
		out.Groups = append(out.Groups, GroupTally{Kind: g.kind, ExecutorModel: g.model, Tally: *t})
	}
	sort.Slice(out.Groups, func(i, j int) bool {
		a, b := out.Groups[i], out.Groups[j]
		return a.Kind < b.Kind || a.Kind == b.Kind && a.ExecutorModel < b.ExecutorModel
	})
	for code, n := range codes {
		out.Codes = append(out.Codes, CodeCount{Code: code, N: n})
	}
	sort.Slice(out.Codes, func(i, j int) bool {
		a, b := out.Codes[i], out.Codes[j]
		return a.N > b.N || a.N == b.N && a.Code < b.Code
	})
	for _, it := range issues {
		out.Issues = append(out.Issues, *it)
	}
	SortIssues(out.Issues)
	for i := range out.Codes[:min(maxExampled, len(out.Codes))] {
		cc := &out.Codes[i]
		refs := rawRefs[cc.Code]
		for _, sg := range segs {
			if sg.period == 0 {
				continue
			}
			more, err := s.readExamples(ctx, c, tenant, w, sg, cc.Code)
			if err != nil {
				return nil, s.fail(op, err)
			}
			refs = append(refs, more...)
		}
		for _, r := range newestRefs(refs) {
			cc.Examples = append(cc.Examples, r.Ref)
		}
	}
	return out, nil
}

// timedRef is a Ref with the time it stands for.
type timedRef struct {
	Ref
	at time.Time
}

// newestRefs returns the newest distinct refs, at most maxExamples.
func newestRefs(rs []timedRef) []timedRef {
	slices.SortStableFunc(rs, func(a, b timedRef) int { return b.at.Compare(a.at) })
	out := rs[:0]
	for _, r := range rs {
		if len(out) == maxExamples {
			break
		}
		if !slices.ContainsFunc(out, func(o timedRef) bool { return o.Ref == r.Ref }) {
			out = append(out, r)
		}
	}
	return out
}

func (s *sqlStore) readTallies(ctx context.Context, c conn, tenant string, w Window, sg segment, tallyOf func(kind, model string) *Tally) error {
	var sel strings.Builder
	sel.WriteString(`v.kind, v.executor_model`)
	for _, f := range tallyFields {
		sel.WriteString(`, SUM(v.` + f.col + `)`)
	}
	sums := make([]float64, len(tallyFields))
	dest := make([]any, 2+len(sums))
	var kind, model string
	dest[0], dest[1] = &kind, &model
	for i := range sums {
		dest[2+i] = &sums[i]
	}
	return s.segmentRows(ctx, c, tenant, w, sg, sel.String(), "metric_tallies", "v.kind, v.executor_model", func(r rows) error {
		if err := r.Scan(dest...); err != nil {
			return err
		}
		t := tallyOf(kind, model)
		for i, f := range tallyFields {
			f.add(t, sums[i])
		}
		return nil
	})
}

// readCodes adds a segment's code counts to codes.
func (s *sqlStore) readCodes(ctx context.Context, c conn, tenant string, w Window, sg segment, codes map[string]int64) error {
	return s.segmentRows(ctx, c, tenant, w, sg, `v.code, SUM(v.n)`, "metric_codes", "v.code", func(r rows) error {
		var (
			code string
			n    float64
		)
		if err := r.Scan(&code, &n); err != nil {
			return err
		}
		codes[code] += int64(n)
		return nil
	})
}

// readIssues adds a segment's issue tallies to those issueOf returns.
func (s *sqlStore) readIssues(ctx context.Context, c conn, tenant string, w Window, sg segment, issueOf func(string) *IssueTally) error {
	return s.segmentRows(ctx, c, tenant, w, sg, `v.issue, SUM(v.sent_back), SUM(v.retried), SUM(v.retry_pass)`,
		"metric_issues", "v.issue", func(r rows) error {
			var (
				issue string
				it    IssueTally
			)
			if err := r.Scan(&issue, &it.SentBack, &it.Retried, &it.RetryPass); err != nil {
				return err
			}
			issueOf(issue).merge(it)
			return nil
		})
}

// segmentRows selects sel from a table of sums (metric_tallies,
// metric_codes, metric_issues, as v) over a segment of the window, its
// shards and buckets summed by groupBy, and calls fn with each row.
func (s *sqlStore) segmentRows(ctx context.Context, c conn, tenant string, w Window, sg segment, sel, table, groupBy string, fn func(rows) error) error {
	var q strings.Builder
	q.WriteString(`SELECT ` + sel + ` FROM ` + table + ` v WHERE v.tenant = ? AND v.period = ?`)
	args := s.windowWhere(&q, []any{tenant, sg.period}, w, "v.bucket", sg.from, sg.to)
	q.WriteString(` GROUP BY ` + groupBy)
	rs, err := c.query(ctx, q.String(), args...)
	if err != nil {
		return err
	}
	defer rs.Close()
	for rs.Next() {
		if err := fn(rs); err != nil {
			return err
		}
	}
	return rs.Err()
}

// SortIssues sorts issue tallies by Retried, then SentBack, from most to
// fewest, then by issue: the order of [WindowTally.Issues].
func SortIssues(its []IssueTally) {
	slices.SortFunc(its, func(a, b IssueTally) int {
		if a.Retried != b.Retried {
			return cmp.Compare(b.Retried, a.Retried)
		}
		if a.SentBack != b.SentBack {
			return cmp.Compare(b.SentBack, a.SentBack)
		}
		return strings.Compare(a.Issue, b.Issue)
	})
}

// readExamples returns a segment's newest examples of a code.
func (s *sqlStore) readExamples(ctx context.Context, c conn, tenant string, w Window, sg segment, code string) ([]timedRef, error) {
	var q strings.Builder
	q.WriteString(`SELECT v.example_id, v.example_attempt, v.example_at FROM metric_codes v
		WHERE v.tenant = ? AND v.period = ? AND v.code = ?`)
	args := s.windowWhere(&q, []any{tenant, sg.period, code}, w, "v.bucket", sg.from, sg.to)
	q.WriteString(` ORDER BY v.example_at DESC LIMIT ?`)
	args = append(args, 2*maxExamples)
	rs, err := c.query(ctx, q.String(), args...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []timedRef
	for rs.Next() {
		var r timedRef
		if err := rs.Scan(&r.ID, &r.Attempt, utcTime{&r.at}); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rs.Err()
}

// scanWindow calls fn with each verification of the window created in
// [from, to), with the compactCols filled in.
func (s *sqlStore) scanWindow(ctx context.Context, c conn, tenant string, w Window, from, to time.Time, fn func(*Verification) error) error {
	var q strings.Builder
	q.WriteString(`SELECT ` + compactCols + ` FROM verification_logs v WHERE v.tenant = ?`)
	args := s.windowWhere(&q, []any{tenant}, w, "v.created_at", from, to)
	rs, err := c.query(ctx, q.String(), args...)
	if err != nil {
		return err
	}
	defer rs.Close()
	var v Verification
	for rs.Next() {
		v = Verification{Tenant: tenant}
		if err := scanCompact(rs, &v); err != nil {
			return err
		}
		if err := fn(&v); err != nil {
			return err
		}
	}
	return rs.Err()
}

// sampleCols are the columns Scan reads: what calibration needs to decide
// a verdict again, and no more (a month of verifications is read whole).
const sampleCols = `v.seq, v.id, v.attempt, v.kind, v.verdict, v.verdict_row, v.score, v.confidence,
	v.dims, v.must_undecided, v.injection, v.created_at, v.claims, v.claims_unverified,
	v.claims_refuted, v.left_unverified`

// Scan implements [Quality.Scan].
func (s *sqlStore) Scan(ctx context.Context, tenant string, w Window, fn func(*Verification) error) error {
	const op = "store: scan"
	if err := s.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err := checkWindow(w); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	var q strings.Builder
	q.WriteString(`SELECT ` + sampleCols + ` FROM verification_logs v WHERE v.tenant = ?`)
	args := s.windowWhere(&q, []any{tenant}, w, "v.created_at", w.Since, w.Until)
	rs, err := s.eng.reader().query(ctx, q.String(), args...)
	if err != nil {
		return s.fail(op, err)
	}
	defer rs.Close()
	var (
		v    Verification
		dims string
		ls   ledgerScan
	)
	// One set of destinations for every row: a month is read whole.
	dest := ls.appendDest([]any{&v.Seq, &v.ID, &v.Attempt, &v.Kind, &v.Verdict, &v.VerdictRow, &v.Score,
		&v.Confidence, &dims, &v.MustUndecided, &v.Injection, utcTime{&v.CreatedAt}})
	for rs.Next() {
		v = Verification{Tenant: tenant}
		if err := rs.Scan(dest...); err != nil {
			return s.fail(op, err)
		}
		v.Ledger = ls.ledger()
		if err := scanFeatures(&v, dims, ""); err != nil {
			return s.fail(op, err)
		}
		if err := fn(&v); err != nil {
			return err
		}
	}
	if err := rs.Err(); err != nil {
		return s.fail(op, err)
	}
	return nil
}

// Label sources.
const (
	SourceOverride = "override"
	SourceOutcome  = "outcome"
)

// Labelled is one label of a verification: a person's override or a
// downstream outcome, with the verification it labels.
type Labelled struct {
	// V has the compact columns of the verification (no result, no
	// request).
	V Verification
	// Source is SourceOverride or SourceOutcome.
	Source string
	// Good is true when the label says the output was fine: an override
	// to pass, an outcome that held up.
	Good bool
	// Verdict is the override's verdict, empty for an outcome.
	Verdict vouch.Verdict
	// Note is the override's reason or the outcome's detail; By its
	// reviewer or reporter.
	Note, By string
	At       time.Time
}

// Labels implements [LabelLog.Labels].
func (s *sqlStore) Labels(ctx context.Context, tenant string, w Window) ([]Labelled, error) {
	const op = "store: labels"
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if err := checkWindow(w); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	// Labels are few next to verifications: each query walks the
	// tenant's labels and looks their verification up (CROSS JOIN keeps
	// SQLite from walking the verifications instead).
	var out []Labelled
	for _, src := range []struct {
		source, cols, table string
	}{
		{SourceOverride, `l.verdict, l.verdict = 'pass', l.reason, l.reviewer, l.created_at`, "overrides"},
		{SourceOutcome, `'', l.good, l.detail, l.reporter, l.created_at`, "outcomes"},
	} {
		var q strings.Builder
		q.WriteString(`SELECT ` + compactCols + `, ` + src.cols + ` FROM ` + src.table + ` l
			CROSS JOIN verification_logs v WHERE l.tenant = ? AND v.tenant = l.tenant
			AND v.id = l.verification_id AND v.attempt = l.attempt`)
		args := s.windowWhere(&q, []any{tenant}, w, "v.created_at", w.Since, w.Until, true)
		q.WriteString(` ORDER BY l.seq`)
		rs, err := s.eng.reader().query(ctx, q.String(), args...)
		if err != nil {
			return nil, s.fail(op, err)
		}
		for rs.Next() {
			l := Labelled{Source: src.source, V: Verification{Tenant: tenant}}
			if err := scanCompact(rs, &l.V, &l.Verdict, &l.Good, &l.Note, &l.By, utcTime{&l.At}); err != nil {
				rs.Close()
				return nil, s.fail(op, err)
			}
			out = append(out, l)
		}
		err = rs.Err()
		rs.Close()
		if err != nil {
			return nil, s.fail(op, err)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out, nil
}

// Outcome is what happened downstream of a verification's output: it was
// used and held up (Good), or it broke something.
type Outcome struct {
	Tenant string
	// VerificationID and Attempt name the verification; Attempt 0 means
	// its latest. Without a VerificationID, TaskID (and InteractionID, if
	// given) name the task, and the outcome labels the task's latest
	// verification. AddOutcome fills in the ones it resolved.
	VerificationID string
	Attempt        int
	TaskID         string
	InteractionID  string
	Good           bool
	Detail         string
	Reporter       string
	CreatedAt      time.Time
}

// AddOutcome implements [LabelLog.AddOutcome].
func (s *sqlStore) AddOutcome(ctx context.Context, o *Outcome) error {
	const op = "store: add outcome"
	if err := s.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if o == nil || !ValidTenant(o.Tenant) || o.Attempt < 0 || o.VerificationID == "" && o.TaskID == "" {
		return fmt.Errorf("%s: needs a valid tenant and a verification id or a task id", op)
	}
	created := s.stamp(o.CreatedAt)
	r := *o
	err := s.eng.write(ctx, 0, func(ctx context.Context, tx conn) error {
		var err error
		switch {
		case r.VerificationID != "" && r.Attempt == 0:
			r.Attempt, err = latestAttempt(ctx, tx, r.Tenant, r.VerificationID)
		case r.VerificationID != "":
			var one int
			err = tx.queryRow(ctx, `SELECT 1 FROM verification_logs WHERE tenant = ? AND id = ? AND attempt = ?`,
				r.Tenant, r.VerificationID, r.Attempt).Scan(&one)
		default:
			q := `SELECT id, attempt FROM verification_logs WHERE tenant = ? AND task_id <> '' AND task_id = ?`
			args := []any{r.Tenant, r.TaskID}
			if r.InteractionID != "" {
				q += ` AND interaction_id = ?`
				args = append(args, r.InteractionID)
			}
			err = tx.queryRow(ctx, q+` ORDER BY seq DESC LIMIT 1`, args...).Scan(&r.VerificationID, &r.Attempt)
		}
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		_, err = tx.exec(ctx, `INSERT INTO outcomes (tenant, verification_id, attempt, task_id,
			interaction_id, good, detail, reporter, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.Tenant, r.VerificationID, r.Attempt, r.TaskID, r.InteractionID, r.Good, r.Detail,
			r.Reporter, s.d.ts(created))
		return err
	})
	if err != nil {
		return s.fail(op, err)
	}
	r.CreatedAt = created
	*o = r
	return nil
}

// Alert is the state of one alert of a tenant.
type Alert struct {
	Tenant, Name, Severity string
	Firing                 bool
	// Value is the figure the alert watches, nil when it has no value
	// (nothing to compute it over).
	Value     *float64
	Threshold float64
	// Labels is how many labels (or other observations) Value rests on.
	Labels  int
	Message string
	// Since is when the alert last started or stopped firing; UpdatedAt
	// when it was last evaluated.
	Since, UpdatedAt time.Time
}

// Alerts implements [Quality.Alerts].
func (s *sqlStore) Alerts(ctx context.Context, tenant string) ([]Alert, error) {
	const op = "store: alerts"
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	rs, err := s.eng.reader().query(ctx, `SELECT tenant, name, severity, firing, value, threshold,
		labels, message, since, updated_at FROM alerts WHERE tenant = ? ORDER BY name`, tenant)
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer rs.Close()
	var out []Alert
	for rs.Next() {
		var a Alert
		if err := rs.Scan(&a.Tenant, &a.Name, &a.Severity, &a.Firing, &a.Value, &a.Threshold,
			&a.Labels, &a.Message, utcTime{&a.Since}, utcTime{&a.UpdatedAt}); err != nil {
			return nil, s.fail(op, err)
		}
		out = append(out, a)
	}
	if err := rs.Err(); err != nil {
		return nil, s.fail(op, err)
	}
	return out, nil
}

// SetAlert implements [Quality.SetAlert].
func (s *sqlStore) SetAlert(ctx context.Context, a *Alert, ev func(*Alert) (Event, error)) (bool, error) {
	const op = "store: set alert"
	if err := s.check(); err != nil {
		return false, fmt.Errorf("%s: %w", op, err)
	}
	if a == nil || !ValidTenant(a.Tenant) || a.Name == "" {
		return false, fmt.Errorf("%s: needs a valid tenant and a name", op)
	}
	now := s.stamp(a.UpdatedAt)
	next := *a
	next.UpdatedAt = now
	var changed bool
	err := s.eng.write(ctx, writesEvents, func(ctx context.Context, tx conn) error {
		// A new alert starts as not firing; the row is then read locked,
		// so that two evaluations at once (a timer and a request, or two
		// servers) raise one change, not two.
		if _, err := tx.exec(ctx, `INSERT INTO alerts (tenant, name, severity, firing, threshold, since,
			updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tenant, name) DO NOTHING`,
			a.Tenant, a.Name, a.Severity, false, a.Threshold, s.d.ts(now), s.d.ts(now)); err != nil {
			return err
		}
		var (
			firing bool
			since  time.Time
		)
		if err := tx.queryRow(ctx, `SELECT firing, since FROM alerts WHERE tenant = ? AND name = ?`+s.d.forUpdate,
			a.Tenant, a.Name).Scan(&firing, utcTime{&since}); err != nil {
			return err
		}
		changed = firing != a.Firing
		next.Since = since
		if changed {
			next.Since = now
		}
		if _, err := tx.exec(ctx, `INSERT INTO alerts (tenant, name, severity, firing, value,
			threshold, labels, message, since, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (tenant, name) DO UPDATE SET severity = excluded.severity,
			firing = excluded.firing, value = excluded.value, threshold = excluded.threshold,
			labels = excluded.labels, message = excluded.message, since = excluded.since,
			updated_at = excluded.updated_at`,
			next.Tenant, next.Name, next.Severity, next.Firing, next.Value, next.Threshold,
			next.Labels, next.Message, s.d.ts(next.Since), s.d.ts(next.UpdatedAt)); err != nil {
			return err
		}
		if !changed || ev == nil {
			return nil
		}
		e, err := ev(&next)
		if err != nil {
			return err
		}
		evs, err := s.prepareEvents([]Event{e}, next.Tenant, nil)
		if err != nil {
			return err
		}
		_, err = s.insertEvents(ctx, tx, evs, 0)
		return err
	})
	if err != nil {
		return false, s.fail(op, err)
	}
	*a = next
	return changed, nil
}

// Tenants implements [Log.Tenants].
func (s *sqlStore) Tenants(ctx context.Context, since time.Time) ([]string, error) {
	const op = "store: tenants"
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	rs, err := s.eng.reader().query(ctx, `SELECT DISTINCT tenant FROM metric_tallies WHERE period = ? AND bucket >= ?
		ORDER BY tenant`, hourly, s.d.ts(bucketOf(since, hourly)))
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer rs.Close()
	var out []string
	for rs.Next() {
		var t string
		if err := rs.Scan(&t); err != nil {
			return nil, s.fail(op, err)
		}
		out = append(out, t)
	}
	if err := rs.Err(); err != nil {
		return nil, s.fail(op, err)
	}
	return out, nil
}
