package quality

import (
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/store"
)

func f(x float64) *float64 { return &x }

// fold tallies vs as the store does, in one group per kind and model.
func fold(vs []store.Verification) *store.WindowTally {
	groups := map[[2]string]*store.Tally{}
	var order [][2]string
	for i := range vs {
		k := [2]string{string(vs[i].Kind), vs[i].ExecutorModel}
		if groups[k] == nil {
			groups[k] = &store.Tally{}
			order = append(order, k)
		}
		groups[k].Add(&vs[i])
	}
	t := &store.WindowTally{}
	for _, k := range order {
		t.Groups = append(t.Groups, store.GroupTally{Kind: k[0], ExecutorModel: k[1], Tally: *groups[k]})
	}
	return t
}

func TestCompute(t *testing.T) {
	v := func(id string, attempt int, verdict vouch.Verdict, score *float64) store.Verification {
		action := map[vouch.Verdict]vouch.Action{
			vouch.VerdictPass: vouch.ActionAccept, vouch.VerdictRetry: vouch.ActionRetry,
			vouch.VerdictFail: vouch.ActionEscalate, vouch.VerdictUnverified: vouch.ActionAccept,
		}[verdict]
		return store.Verification{ID: id, Attempt: attempt, Kind: vouch.KindSubtask, ExecutorModel: "m1",
			Verdict: verdict, Action: action, Score: score, Confidence: 0.85, CostUSD: 0.01,
			Ledger: &store.Ledger{Claims: 2}}
	}
	vs := []store.Verification{
		v("a", 1, "pass", f(0.9)),  // passed first time; an outcome says it broke: missed
		v("b", 1, "retry", f(0.6)), // sent back, then passed: caught (override fail)
		v("b", 2, "pass", f(0.8)),
		v("c", 1, "retry", f(0.55)), // sent back wrongly: false alarm (override pass)
		v("c", 2, "retry", f(0.62)), // retried twice, ends in fail
		v("c", 3, "fail", nil),
		v("d", 1, "pass", f(0.95)),       // confirmed by an outcome
		v("e", 1, "unverified", f(0.9)),  // left unverified; an outcome says it broke: not a miss
		v("g", 1, "unverified", nil),     // nothing decided; a reviewer passes it: not a false alarm
		v("h", 1, "unverified", f(0.85)), // left unverified, never labelled
	}
	vs[0].TaskCostUSD, vs[1].TaskCostUSD = f(0.1), f(0.1)
	vs[0].SelfConfidence, vs[6].SelfConfidence = f(1), f(0.9)
	vs[6].ExecutorModel = "m2"
	vs[5].Kind = vouch.KindAnswer
	// The ledgers: 2 claims each but for these; e's and g's left
	// unverified, h stored before vouch kept a ledger. 7 ledgers of
	// 2 claims, e's of 3 (2 unverified) and g's of 1 (unverified): 18
	// claims, 15 decided.
	vs[1].Ledger = &store.Ledger{Claims: 2, Refuted: 1}
	vs[7].Ledger = &store.Ledger{Claims: 3, Unverified: 2, LeftUnverified: true}
	vs[8].Ledger = &store.Ledger{Claims: 1, Unverified: 1, LeftUnverified: true}
	vs[9].Ledger = nil
	lab := func(i int, source string, good bool, verdict vouch.Verdict) store.Labelled {
		return store.Labelled{V: vs[i], Source: source, Good: good, Verdict: verdict}
	}
	labels := []store.Labelled{
		lab(0, store.SourceOverride, true, "pass"), // agreed by a reviewer first ...
		lab(0, store.SourceOutcome, false, ""),     // ... then it broke: the latest label wins
		lab(1, store.SourceOverride, false, "fail"),
		lab(3, store.SourceOverride, true, "pass"),
		lab(6, store.SourceOutcome, true, ""),
		lab(7, store.SourceOutcome, false, ""),
		lab(8, store.SourceOverride, true, "pass"),
	}
	// Complexity: a's task writes no criterion, b's and c's three, d's
	// nine; the others were stored before the log kept it.
	for i, c := range []int{0, 3, 3, 3, 3, 3, 9} {
		vs[i].Complexity = &c
	}
	tally := fold(vs)
	// The issues of the first attempts, as the store tallies them: b was
	// sent back for TEST_NOT_RUN and passed on retry, c for nothing
	// coded and never passed; one more task was sent back for
	// TEST_NOT_RUN and not retried.
	tally.Issues = []store.IssueTally{
		{Issue: store.IssueNone, SentBack: 1, Retried: 1},
		{Issue: "TEST_NOT_RUN", SentBack: 2, Retried: 1, RetryPass: 1},
	}
	m := Compute(api.Window{}, tally, labels)

	check := func(name string, got api.Rate, n, of int64) {
		t.Helper()
		if got.N != n || got.Of != of || (of > 0) != (got.Value != nil) {
			t.Errorf("%s = %v, want %d/%d", name, got, n, of)
		}
	}
	if m.Verifications != 10 {
		t.Errorf("verifications %d, want 10", m.Verifications)
	}
	// Unverified is not a pass: e, g and h are first attempts that did
	// not pass.
	check("first pass", m.FirstPass, 2, 7)
	check("retry success", m.RetrySuccess, 1, 2)
	if m.RetriesPerTask == nil || *m.RetriesPerTask != 3.0/7 {
		t.Errorf("retries per task %v, want 3/7", m.RetriesPerTask)
	}
	check("unverified rate", m.UnverifiedRate, 3, 10)
	check("coverage", m.Coverage, 15, 18)
	if m.Ledgers != 9 || m.RefutedClaims != 1 {
		t.Errorf("ledgers %d, refuted claims %d; want 9, 1", m.Ledgers, m.RefutedClaims)
	}
	// e, unverified and labelled bad, is neither caught nor missed; g,
	// unverified and labelled good, is no false alarm.
	check("catch rate", m.CatchRate, 1, 2)
	check("false-alarm rate", m.FalseAlarmRate, 1, 10)
	if m.Labels != (api.Labels{Labelled: 6, Good: 3, Bad: 3, Caught: 1, Missed: 1, FalseAlarms: 1, Confirmed: 1}) {
		t.Errorf("labels %+v", m.Labels)
	}
	if m.UnverifiedLabels != (api.UnverifiedLabels{Good: 1, Bad: 1}) {
		t.Errorf("unverified labels %+v, want 1 good, 1 bad", m.UnverifiedLabels)
	}
	// Four reviewed; b's "fail" and c's "pass" overrule the gate, a's
	// "pass" agrees with it, and g's "pass" settles what the gate left
	// unverified: a change of its verdict too.
	if m.Reviews.Reviewed != 4 || m.Reviews.Overridden != 3 {
		t.Errorf("reviews %+v, want 4 reviewed, 3 overridden", m.Reviews)
	}
	check("override rate", m.Reviews.Rate, 3, 10)
	check("agreement", m.Reviews.Agreement, 1, 4)
	if m.Verdicts["pass"] != 3 || m.Verdicts["retry"] != 3 || m.Verdicts["fail"] != 1 || m.Verdicts["unverified"] != 3 ||
		m.Actions["escalate"] != 1 || m.Actions["accept"] != 6 {
		t.Errorf("verdicts %v actions %v", m.Verdicts, m.Actions)
	}
	if m.Undecided != 2 || m.Score[9].N != 3 || m.Score[8].N != 2 || m.Score[5].N != 1 || m.Confidence[8].N != 10 {
		t.Errorf("histograms: undecided %d score %v confidence %v", m.Undecided, m.Score, m.Confidence)
	}
	if r := m.Cost.TaskCostRatio; m.Cost.Priced != 2 || r == nil || *r < 0.0999 || *r > 0.1001 {
		t.Errorf("cost %+v, want 2 priced at a ratio of 0.1", m.Cost)
	}
	if _, ok := m.CostByKind["answer"]; !ok || m.CostByKind["answer"].TaskCostRatio != nil {
		t.Errorf("cost by kind %+v: answer has no priced verification", m.CostByKind)
	}
	// Score by complexity: every bin listed, the last one open.
	cb := m.ScoreByComplexity
	if len(cb) != 5 || cb[0].From != 0 || *cb[0].To != 0 || cb[2].From != 2 || *cb[2].To != 3 || cb[4].From != 8 || cb[4].To != nil {
		t.Fatalf("complexity bins %+v, want 0, 1, 2-3, 4-7, 8+", cb)
	}
	mean := func(b api.ComplexityBin) float64 {
		if b.MeanScore == nil {
			return -1
		}
		return *b.MeanScore
	}
	if cb[0].N != 1 || mean(cb[0]) != 0.9 || cb[1].N != 0 || cb[1].MeanScore != nil ||
		cb[2].N != 5 || cb[2].Scored != 4 || mean(cb[2]) < 0.6424 || mean(cb[2]) > 0.6426 ||
		cb[4].N != 1 || mean(cb[4]) != 0.95 {
		t.Errorf("complexity bins %+v", cb)
	}
	check("pass at complexity 2-3", cb[2].Pass, 1, 5)
	check("pass at complexity 8+", cb[4].Pass, 1, 1)
	// Retry success by issue type, in the store's order, with meanings.
	if ri := m.RetrySuccessByIssue; len(ri) != 2 || ri[0].Code != store.IssueNone || ri[0].Meaning == "" ||
		ri[1].Code != "TEST_NOT_RUN" || ri[1].SentBack != 2 || ri[1].Meaning == "" {
		t.Errorf("retry success by issue %+v", ri)
	} else {
		check("retry success after no code", ri[0].RetrySuccess, 0, 1)
		check("retry success after TEST_NOT_RUN", ri[1].RetrySuccess, 1, 1)
	}
	if len(m.SelfAssessment) != 2 || m.SelfAssessment[0].ExecutorModel != "m1" ||
		m.SelfAssessment[0].Bias < 0.0999 || m.SelfAssessment[0].Bias > 0.1001 || m.SelfAssessment[1].N != 1 {
		t.Errorf("self-assessment %+v, want m1 over-confident by 0.1", m.SelfAssessment)
	}
}

func TestComputeEmpty(t *testing.T) {
	m := Compute(api.Window{}, &store.WindowTally{}, nil)
	for name, r := range map[string]api.Rate{"first pass": m.FirstPass, "catch": m.CatchRate, "false alarms": m.FalseAlarmRate,
		"retry success": m.RetrySuccess, "agreement": m.Reviews.Agreement, "cache": m.Judge.CacheHitRate,
		"unverified": m.UnverifiedRate, "coverage": m.Coverage} {
		if r.Value != nil {
			t.Errorf("%s over nothing = %v, want no value", name, *r.Value)
		}
	}
	for _, b := range m.ScoreByComplexity {
		if b.MeanScore != nil || b.Pass.Value != nil {
			t.Errorf("complexity bin %+v over nothing has values", b)
		}
	}
	if len(m.ScoreByComplexity) != 5 || m.RetrySuccessByIssue == nil {
		t.Errorf("empty views should be listed: %d complexity bins, issues %v", len(m.ScoreByComplexity), m.RetrySuccessByIssue)
	}
	if m.RetriesPerTask != nil || m.Cost.TaskCostRatio != nil {
		t.Errorf("figures over nothing have values")
	}
	for _, s := range Evaluate(m, DefaultAlerts()) {
		if s.Firing {
			t.Errorf("alert %s fires over nothing", s.Name)
		}
	}
}

func TestEvaluate(t *testing.T) {
	cfg := DefaultAlerts()
	m := &api.Metrics{
		CatchRate:      NewRate(10, 25),  // 0.4 over 25 bad labels: fires
		FalseAlarmRate: NewRate(30, 100), // 0.3, but over 12 labelled: too few
		Labels:         api.Labels{Labelled: 12},
		RetrySuccess:   NewRate(15, 20), // 0.75: fine
		Cost:           api.Cost{Priced: 40, TaskCostRatio: f(0.45)},
		UnverifiedRate: NewRate(60, 100), // 0.6 of 100 verifications: fires
	}
	want := map[string]bool{AlertCatchRate: true, AlertFalseAlarmRate: false, AlertRetrySuccess: false, AlertTaskCostRatio: true,
		AlertUnverifiedRate: true}
	got := Evaluate(m, cfg)
	if len(got) != 5 {
		t.Fatalf("%d alerts, want 5", len(got))
	}
	for _, s := range got {
		if s.Firing != want[s.Name] {
			t.Errorf("%s firing %v, want %v (%s)", s.Name, s.Firing, want[s.Name], s.Message)
		}
	}
	if got[0].Severity != SeverityHigh || got[0].Labels != 25 {
		t.Errorf("catch rate alert %+v", got[0])
	}
	if u := got[4]; u.Name != AlertUnverifiedRate || u.Labels != 100 || u.Below || u.Threshold != DefaultUnverifiedRate ||
		u.Severity != SeverityMedium || !strings.Contains(u.Message, "unverified rate 0.60 is above 0.50 (over 100)") {
		t.Errorf("unverified rate alert %+v", u)
	}
	// At the threshold's side, or over too few verifications, it is
	// quiet.
	m.UnverifiedRate = NewRate(30, 100)
	m2 := *m
	m2.UnverifiedRate = NewRate(10, 15)
	for _, mm := range []*api.Metrics{m, &m2} {
		if u := Evaluate(mm, cfg)[4]; u.Firing {
			t.Errorf("unverified rate %v fires: %s", mm.UnverifiedRate, u.Message)
		}
	}
	cfg.CatchRate.Off = true
	if n := len(Evaluate(m, cfg)); n != 4 {
		t.Errorf("with one alert off: %d alerts, want 4", n)
	}
	cfg.UnverifiedRate.Severity = "dire"
	if err := cfg.Check(); err == nil || !strings.Contains(err.Error(), "alerts.unverifiedRate") {
		t.Errorf("Check of the unverified rate's severity dire: %v", err)
	}
	cfg.UnverifiedRate.Severity = SeverityLow
	cfg.RetrySuccess.Severity = "urgent"
	if err := cfg.Check(); err == nil {
		t.Errorf("Check accepted severity urgent")
	}
}
