package quality

import (
	"testing"

	"github.com/vouchgate/vouch/store"
)

func f(x float64) *float64 { return &x }

// fold tallies vs as the store does, in one group per kind and model.
func fold(vs []store.Verification) *store.WindowTally {
	groups := map[[2]string]*store.Tally{}
	var order [][2]string
	for i := range vs {
		k := [2]string{vs[i].Kind, vs[i].ExecutorModel}
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
	v := func(id string, attempt int, verdict string, score *float64) store.Verification {
		action := map[string]string{"pass": "accept", "retry": "retry", "fail": "escalate"}[verdict]
		return store.Verification{ID: id, Attempt: attempt, Kind: "subtask", ExecutorModel: "m1",
			Verdict: verdict, Action: action, Score: score, Confidence: 0.85, CostUSD: 0.01}
	}
	vs := []store.Verification{
		v("a", 1, "pass", f(0.9)),  // passed first time; an outcome says it broke: missed
		v("b", 1, "retry", f(0.6)), // sent back, then passed: caught (override fail)
		v("b", 2, "pass", f(0.8)),
		v("c", 1, "retry", f(0.55)), // sent back wrongly: false alarm (override pass)
		v("c", 2, "retry", f(0.62)), // retried twice, ends in fail
		v("c", 3, "fail", nil),
		v("d", 1, "pass", f(0.95)), // confirmed by an outcome
	}
	vs[0].TaskCostUSD, vs[1].TaskCostUSD = f(0.1), f(0.1)
	vs[0].SelfConfidence, vs[6].SelfConfidence = f(1), f(0.9)
	vs[6].ExecutorModel = "m2"
	vs[5].Kind = "answer"
	lab := func(i int, source string, good bool, verdict string) store.Labelled {
		return store.Labelled{V: vs[i], Source: source, Good: good, Verdict: verdict}
	}
	labels := []store.Labelled{
		lab(0, store.SourceOverride, true, "pass"), // agreed by a reviewer first ...
		lab(0, store.SourceOutcome, false, ""),     // ... then it broke: the latest label wins
		lab(1, store.SourceOverride, false, "fail"),
		lab(3, store.SourceOverride, true, "pass"),
		lab(6, store.SourceOutcome, true, ""),
	}
	m := Compute(Window{}, fold(vs), labels)

	check := func(name string, got Rate, n, of int64) {
		t.Helper()
		if got.N != n || got.Of != of || (of > 0) != (got.Value != nil) {
			t.Errorf("%s = %v, want %d/%d", name, got, n, of)
		}
	}
	if m.Verifications != 7 {
		t.Errorf("verifications %d, want 7", m.Verifications)
	}
	check("first pass", m.FirstPass, 2, 4)
	check("retry success", m.RetrySuccess, 1, 2)
	if m.RetriesPerTask == nil || *m.RetriesPerTask != 0.75 {
		t.Errorf("retries per task %v, want 3/4", m.RetriesPerTask)
	}
	check("catch rate", m.CatchRate, 1, 2)
	check("false-alarm rate", m.FalseAlarmRate, 1, 7)
	if m.Labels != (Labels{Labelled: 4, Good: 2, Bad: 2, Caught: 1, Missed: 1, FalseAlarms: 1, Confirmed: 1}) {
		t.Errorf("labels %+v", m.Labels)
	}
	// Three reviewed; b's "fail" and c's "pass" overrule the gate, a's
	// "pass" agrees with it.
	if m.Reviews.Reviewed != 3 || m.Reviews.Overridden != 2 {
		t.Errorf("reviews %+v, want 3 reviewed, 2 overridden", m.Reviews)
	}
	check("override rate", m.Reviews.Rate, 2, 7)
	check("agreement", m.Reviews.Agreement, 1, 3)
	if m.Verdicts["pass"] != 3 || m.Verdicts["retry"] != 3 || m.Verdicts["fail"] != 1 || m.Actions["escalate"] != 1 {
		t.Errorf("verdicts %v actions %v", m.Verdicts, m.Actions)
	}
	if m.Undecided != 1 || m.Score[9].N != 2 || m.Score[5].N != 1 || m.Confidence[8].N != 7 {
		t.Errorf("histograms: undecided %d score %v confidence %v", m.Undecided, m.Score, m.Confidence)
	}
	if r := m.Cost.TaskCostRatio; m.Cost.Priced != 2 || r == nil || *r < 0.0999 || *r > 0.1001 {
		t.Errorf("cost %+v, want 2 priced at a ratio of 0.1", m.Cost)
	}
	if _, ok := m.CostByKind["answer"]; !ok || m.CostByKind["answer"].TaskCostRatio != nil {
		t.Errorf("cost by kind %+v: answer has no priced verification", m.CostByKind)
	}
	if len(m.SelfAssessment) != 2 || m.SelfAssessment[0].ExecutorModel != "m1" ||
		m.SelfAssessment[0].Bias < 0.0999 || m.SelfAssessment[0].Bias > 0.1001 || m.SelfAssessment[1].N != 1 {
		t.Errorf("self-assessment %+v, want m1 over-confident by 0.1", m.SelfAssessment)
	}
}

func TestComputeEmpty(t *testing.T) {
	m := Compute(Window{}, &store.WindowTally{}, nil)
	for name, r := range map[string]Rate{"first pass": m.FirstPass, "catch": m.CatchRate, "false alarms": m.FalseAlarmRate,
		"retry success": m.RetrySuccess, "agreement": m.Reviews.Agreement, "cache": m.Judge.CacheHitRate} {
		if r.Value != nil {
			t.Errorf("%s over nothing = %v, want no value", name, *r.Value)
		}
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
	m := &Metrics{
		CatchRate:      NewRate(10, 25),  // 0.4 over 25 bad labels: fires
		FalseAlarmRate: NewRate(30, 100), // 0.3, but over 12 labelled: too few
		Labels:         Labels{Labelled: 12},
		RetrySuccess:   NewRate(15, 20), // 0.75: fine
		Cost:           Cost{Priced: 40, TaskCostRatio: f(0.45)},
	}
	want := map[string]bool{AlertCatchRate: true, AlertFalseAlarmRate: false, AlertRetrySuccess: false, AlertTaskCostRatio: true}
	got := Evaluate(m, cfg)
	if len(got) != 4 {
		t.Fatalf("%d alerts, want 4", len(got))
	}
	for _, s := range got {
		if s.Firing != want[s.Name] {
			t.Errorf("%s firing %v, want %v (%s)", s.Name, s.Firing, want[s.Name], s.Message)
		}
	}
	if got[0].Severity != SeverityHigh || got[0].Labels != 25 {
		t.Errorf("catch rate alert %+v", got[0])
	}
	cfg.CatchRate.Off = true
	if n := len(Evaluate(m, cfg)); n != 3 {
		t.Errorf("with one alert off: %d alerts, want 3", n)
	}
	cfg.RetrySuccess.Severity = "urgent"
	if err := cfg.Check(); err == nil {
		t.Errorf("Check accepted severity urgent")
	}
}
