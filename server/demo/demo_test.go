package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/quality"
	"github.com/vouchgate/vouch/server"
	"github.com/vouchgate/vouch/store"
)

func openStore(t *testing.T) store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "demo.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// now is the demo's fixed end, so that the test does not depend on the
// day it runs.
var now = time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)

func TestSeed(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	start := time.Now()
	const n = 600
	sum, err := Seed(ctx, st, Options{N: n, Seed: 7, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("seeded %d verifications (%d tasks, %d overrides, %d outcomes) in %v: %v %v",
		sum.Verifications, sum.Tasks, sum.Overrides, sum.Outcomes, time.Since(start).Round(time.Millisecond), sum.Verdicts, sum.Kinds)
	if sum.Verifications != n {
		t.Errorf("%d verifications, want %d", sum.Verifications, n)
	}
	if sum.Tasks >= n || sum.Tasks < n/2 {
		t.Errorf("%d tasks for %d verifications: want some retries, not mostly", sum.Tasks, n)
	}
	for _, v := range vouch.Verdicts {
		if sum.Verdicts[string(v)] == 0 {
			t.Errorf("no %s verdict: %v", v, sum.Verdicts)
		}
	}
	// A realistic mix: passes the most, unverified neither most nor
	// rare.
	if u := sum.Verdicts[string(vouch.VerdictUnverified)]; sum.Verdicts[string(vouch.VerdictPass)] <= u || u < n/20 || u > n/3 {
		t.Errorf("verdicts %v: want passes the most, and unverified between 5 %% and a third", sum.Verdicts)
	}
	for _, k := range []vouch.Kind{vouch.KindAnswer, vouch.KindSubtask, vouch.KindSynthesis, vouch.KindDecomposition, vouch.KindModeration} {
		if sum.Kinds[string(k)] == 0 {
			t.Errorf("no %s: %v", k, sum.Kinds)
		}
	}
	if sum.Since.Before(now.Add(-30*24*time.Hour)) || !sum.Until.Before(now) || sum.Until.Sub(sum.Since) < 25*24*time.Hour {
		t.Errorf("span %v to %v: want most of the 30 days before %v", sum.Since, sum.Until, now)
	}

	// The rows are in the store, with the times of the server's clock.
	w := store.Window{Since: now.Add(-30 * 24 * time.Hour), Until: now}
	page, err := st.List(ctx, server.DefaultTenant, store.Filter{Limit: 1000, Since: w.Since, Until: w.Until})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != n {
		t.Errorf("the store lists %d verifications in the window, want %d", len(page.Items), n)
	}
	// Every verification took some time: the rules a few milliseconds,
	// a judge's answer a second or more.
	var judged, fast int
	for _, v := range page.Items {
		switch {
		case v.DurationMs <= 0:
			t.Errorf("%s/%d took no time", v.ID, v.Attempt)
		case v.DurationMs >= 900:
			judged++
		case v.DurationMs < 100:
			fast++
		}
	}
	t.Logf("%d verifications took a judge's time, %d under 100 ms", judged, fast)
	if judged == 0 || fast == 0 {
		t.Errorf("%d verifications took a judge's time, %d under 100 ms: want some of each", judged, fast)
	}
	m, err := quality.FromStore(ctx, st, server.DefaultTenant, w)
	if err != nil {
		t.Fatal(err)
	}
	if m.Verifications != n {
		t.Errorf("metrics count %d verifications", m.Verifications)
	}
	t.Logf("first pass %v, retry success %v, catch %v, false alarms %v, unverified %v, labels %+v (unverified %+v), cost ratio %v",
		m.FirstPass, m.RetrySuccess, m.CatchRate, m.FalseAlarmRate, m.UnverifiedRate, m.Labels, m.UnverifiedLabels, deref(m.Cost.TaskCostRatio))
	if m.UnverifiedRate.N != int64(sum.Verdicts[string(vouch.VerdictUnverified)]) || m.UnverifiedRate.Of != n {
		t.Errorf("unverified rate %v, want %d of %d", m.UnverifiedRate, sum.Verdicts[string(vouch.VerdictUnverified)], n)
	}
	// Reviewers and outcomes settle some of the unverified outputs, some
	// good, some bad; every override is a person's pass, retry or fail.
	if m.UnverifiedLabels.Good == 0 || m.UnverifiedLabels.Bad == 0 {
		t.Errorf("unverified labels %+v: want some of each", m.UnverifiedLabels)
	}
	labels, err := st.Labels(ctx, server.DefaultTenant, w)
	if err != nil {
		t.Fatal(err)
	}
	reviewedUnverified := 0
	for _, l := range labels {
		if l.Source == store.SourceOverride && !quality.ReviewerVerdict(string(l.Verdict)) {
			t.Errorf("override %s of %s/%d: not a reviewer's verdict", l.Verdict, l.V.ID, l.V.Attempt)
		}
		if l.Source == store.SourceOverride && l.V.Verdict == vouch.VerdictUnverified {
			reviewedUnverified++
		}
	}
	if reviewedUnverified == 0 {
		t.Error("no reviewer settled an unverified verification")
	}
	if m.CatchRate.Value == nil || m.FalseAlarmRate.Value == nil {
		t.Fatalf("catch %v, false alarms %v: want both computed", m.CatchRate, m.FalseAlarmRate)
	}
	if m.Labels.Caught == 0 || m.Labels.Missed == 0 || m.Labels.FalseAlarms == 0 || m.Labels.Confirmed == 0 {
		t.Errorf("labels %+v: want some of each", m.Labels)
	}
	if m.Labels.Confirmed+m.Labels.Caught <= m.Labels.Missed+m.Labels.FalseAlarms {
		t.Errorf("labels %+v: want most verdicts confirmed", m.Labels)
	}
	if m.Cost.TaskCostRatio == nil || *m.Cost.TaskCostRatio <= 0 || m.Judge.Calls == 0 {
		t.Errorf("cost %+v, judge %+v: want judge calls and a cost", m.Cost, m.Judge)
	}
	if len(m.SelfAssessment) < 3 || len(m.FailurePatterns) < 3 {
		t.Errorf("self-assessment %v, failure patterns %v", m.SelfAssessment, m.FailurePatterns)
	}
	lo, hi := 1.0, -1.0
	for _, b := range m.SelfAssessment {
		lo, hi = min(lo, b.Bias), max(hi, b.Bias)
	}
	if hi-lo < 0.08 {
		t.Errorf("self-assessment bias from %.2f to %.2f: want the executors to differ", lo, hi)
	}

	// Calibration over the labels suggests something.
	samples, err := quality.Samples(ctx, st, server.DefaultTenant, w)
	if err != nil {
		t.Fatal(err)
	}
	pol := vouch.DefaultPolicy()
	c, err := quality.Calibrate(samples, &pol, quality.CalibrateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("calibration: %s", c.Message)
	if !c.Enough || c.Thresholds == nil {
		t.Fatalf("calibration suggests nothing: %s", c.Message)
	}
	t.Logf("suggested passAt %v failBelow %v (base %v %v), disagreement %v -> %v", c.Thresholds.PassAt, c.Thresholds.FailBelow,
		c.Base.PassAt, c.Base.FailBelow, c.Thresholds.Disagreement.Before, c.Thresholds.Disagreement.After)
	if c.Thresholds.PassAt == c.Base.PassAt && c.Thresholds.FailBelow == c.Base.FailBelow && c.WithWeights == nil {
		t.Errorf("calibration suggests the policy in force")
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// rows returns what the demo wrote that the seed decides: each
// verification's id, attempt, verdict, score, time and executor, in order.
func rows(t *testing.T, st store.Store) []string {
	t.Helper()
	page, err := st.List(context.Background(), server.DefaultTenant, store.Filter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, v := range page.Items {
		score := "null"
		if v.Score != nil {
			score = fmt.Sprintf("%.4f", *v.Score)
		}
		out = append(out, fmt.Sprintf("%s/%d %s %s %.3f %s %s %s", v.ID, v.Attempt, v.Verdict, score, v.Confidence,
			v.CreatedAt.Format(time.RFC3339), v.ExecutorModel, v.Criticality))
	}
	return out
}

func TestSeedDeterministic(t *testing.T) {
	ctx := context.Background()
	a, b, c := openStore(t), openStore(t), openStore(t)
	for _, s := range []struct {
		st   store.Store
		seed uint64
	}{{a, 3}, {b, 3}, {c, 4}} {
		if _, err := Seed(ctx, s.st, Options{N: 120, Seed: s.seed, Now: now}); err != nil {
			t.Fatal(err)
		}
	}
	ra, rb, rc := rows(t, a), rows(t, b), rows(t, c)
	if len(ra) != 120 {
		t.Fatalf("%d rows", len(ra))
	}
	if diff := cmp.Diff(ra, rb); diff != "" {
		t.Errorf("the same seed gave other data (-first +second):\n%s", diff)
	}
	if cmp.Equal(ra, rc) {
		t.Error("another seed gave the same data")
	}
	la, err := a.Labels(ctx, server.DefaultTenant, store.Window{Since: now.Add(-31 * 24 * time.Hour), Until: now})
	if err != nil {
		t.Fatal(err)
	}
	lb, err := b.Labels(ctx, server.DefaultTenant, store.Window{Since: now.Add(-31 * 24 * time.Hour), Until: now})
	if err != nil {
		t.Fatal(err)
	}
	label := func(ls []store.Labelled) []string {
		var out []string
		for _, l := range ls {
			out = append(out, fmt.Sprintf("%s %s/%d %v %s %s", l.Source, l.V.ID, l.V.Attempt, l.Good, l.Verdict, l.By))
		}
		return out
	}
	if len(la) == 0 {
		t.Fatal("no labels")
	}
	if diff := cmp.Diff(label(la), label(lb)); diff != "" {
		t.Errorf("the same seed gave other labels:\n%s", diff)
	}
}

func TestSeedStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Seed(ctx, openStore(t), Options{N: 50, Now: now}); err == nil {
		t.Error("a cancelled seeding succeeded")
	}
}

func TestTemplates(t *testing.T) {
	cat, err := load()
	if err != nil {
		t.Fatal(err)
	}
	files, err := requests.ReadDir("requests")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(templates) {
		t.Errorf("%d request files, %d templates: every file is a template and every template a file", len(files), len(templates))
	}
	kinds := map[vouch.Kind]int{}
	for _, tm := range templates {
		req, err := cat.request(tm)
		if err != nil {
			t.Fatal(err)
		}
		kinds[req.Kind]++
		if req.Workspace != "" || len(req.Output.Commands) > 0 {
			t.Errorf("%s needs a workspace or runs commands", tm.file)
		}
		if tm.fix != "" {
			fix, err := cat.request(cat.byFile[tm.fix])
			if err != nil {
				t.Fatalf("%s: %v", tm.fix, err)
			}
			if fix.Kind != req.Kind || fix.Task.Goal != req.Task.Goal {
				t.Errorf("%s is mended by %s, another task", tm.file, tm.fix)
			}
		}
	}
	if len(kinds) != 5 {
		t.Errorf("kinds %v: want all five", kinds)
	}
}

// TestSeedTraces: the coding agents' fixes carry their session's tool
// calls, timed just before they were verified; a fix sent back has a
// refuted claim whose check cites the tool call that shows it.
func TestSeedTraces(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	if _, err := Seed(ctx, st, Options{N: 200, Seed: 1, Now: now}); err != nil {
		t.Fatal(err)
	}
	page, err := st.List(ctx, server.DefaultTenant, store.Filter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	traced, cited := 0, 0
	for _, item := range page.Items {
		v, err := st.Get(ctx, server.DefaultTenant, item.ID, item.Attempt)
		if err != nil {
			t.Fatal(err)
		}
		var req vouch.Request
		if err := json.Unmarshal(v.Request, &req); err != nil {
			t.Fatal(err)
		}
		if len(req.Trace) < 10 {
			continue
		}
		traced++
		last, err := time.Parse(time.RFC3339Nano, req.Trace[len(req.Trace)-1].Timestamp)
		if err != nil || !last.Before(v.CreatedAt) || v.CreatedAt.Sub(last) > time.Minute {
			t.Errorf("%s/%d: the last call at %v, verified at %v (%v)", v.ID, v.Attempt, last, v.CreatedAt, err)
		}
		var rep vouch.Report
		if err := json.Unmarshal(v.Result, &rep); err != nil {
			t.Fatal(err)
		}
		for _, c := range rep.Claims {
			for _, i := range c.Checks {
				run, _ := rep.Checks[i].Evidence["run"].(map[string]any)
				if call, ok := run["call"].(float64); c.State == vouch.ClaimRefuted && ok && req.Trace[int(call)].IsError {
					cited++
				}
			}
		}
	}
	if traced == 0 || cited == 0 {
		t.Errorf("%d verifications with a session's trace, %d refuted claims citing a failed call: want some of each", traced, cited)
	}
}
