package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/quality"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestMetricsAndAlertsCommands(t *testing.T) {
	e := newLabelEnv(t)
	for _, args := range [][]string{
		{"review", "a", "--verdict", "fail"},
		{"outcome", "b", "--attempt", "1", "--bad"},
		{"outcome", "--task", "t-c", "--good"},
	} {
		if code, out, errs := e.run(e.as(e.review), args...); code != 0 {
			t.Fatalf("vouch %s: %d\n%s%s", strings.Join(args, " "), code, out, errs)
		}
	}
	now := time.Now().UTC()
	window := []string{"--since", now.Add(-time.Hour).Format(time.RFC3339Nano), "--until", now.Add(time.Hour).Format(time.RFC3339Nano)}
	metrics := func(env map[string]string, args ...string) (*api.Metrics, string) {
		t.Helper()
		code, out, errs := e.run(env, append(append([]string{"metrics", "--json"}, window...), args...)...)
		if code != 0 {
			t.Fatalf("metrics %s: %d %s", args, code, errs)
		}
		m := new(api.Metrics)
		if err := json.Unmarshal([]byte(out), m); err != nil {
			t.Fatalf("metrics --json: %v\n%s", err, out)
		}
		return m, out
	}
	remote, _ := metrics(e.as(e.verify))
	local, _ := metrics(nil, "--store", e.dsn, "--tenant", "acme")
	if remote.Verifications != 5 || remote.CatchRate.String() != "0.50 (1/2)" || remote.FalseAlarmRate.String() != "0.00 (0/5)" ||
		remote.FirstPass.String() != "0.50 (2/4)" || remote.Labels.Labelled != 3 || remote.Verdicts["unverified"] != 1 {
		t.Errorf("metrics: %d verifications, catch %v, false alarms %v, first pass %v, labels %+v, verdicts %v",
			remote.Verifications, remote.CatchRate, remote.FalseAlarmRate, remote.FirstPass, remote.Labels, remote.Verdicts)
	}
	// From a server, --json is what the client reads: the metrics of
	// package api, the same as the store's, the claims' figures with them.
	if !reflect.DeepEqual(remote, local) {
		t.Errorf("--server and --store differ:\n%+v\n%+v", remote, local)
	}
	if remote.UnverifiedRate.String() != "0.20 (1/5)" || remote.Ledgers != 5 {
		t.Errorf("--server: unverified rate %v, want 1 of 5; %d ledgers, want 5", remote.UnverifiedRate, remote.Ledgers)
	}
	if other, _ := metrics(nil, "--store", e.dsn); other.Verifications != 0 {
		t.Errorf("tenant default of the store: %d verifications, want none", other.Verifications)
	}
	if m, _ := metrics(e.as(e.verify), "--kind", "answer"); m.Verifications != 0 || m.Window.Kind != "answer" {
		t.Errorf("--kind answer: %d verifications", m.Verifications)
	}

	// The text of --server and --store gives every rate with its counts.
	_, text, errs := e.run(e.as(e.verify), append([]string{"metrics"}, window...)...)
	_, localText, _ := e.run(nil, append([]string{"metrics", "--store", e.dsn, "--tenant", "acme"}, window...)...)
	for _, want := range []string{"5 verifications", "catch rate        0.50 (1/2)", "false-alarm rate  0.00 (0/5)", "first pass        0.50 (2/4)",
		"unverified rate   0.20 (1/5)", "verdicts  pass 3  retry 1  fail 0  unverified 1", "CLAIMS_UNVERIFIED", "e.g. d/1", "TEXT_MISSING", "e.g. b/1",
		"openai:gpt-4o-mini"} {
		for _, tx := range []string{text, localText} {
			if !strings.Contains(tx, want) {
				t.Errorf("metrics text lacks %q:\n%s%s", want, tx, errs)
			}
		}
	}
	for _, tx := range []string{text, localText} {
		if !strings.Contains(tx, "claim coverage    ") || !strings.Contains(tx, "left unverified 0 good, 0 bad") {
			t.Errorf("metrics text lacks the claims' figures:\n%s", tx)
		}
	}

	code, out, errs := e.run(e.as(e.verify), "alerts")
	if code != 0 || !strings.Contains(out, "catchRate") || !strings.Contains(out, "FIRING") || !strings.Contains(out, "falseAlarmRate") ||
		!strings.Contains(out, "catch rate 0.50 is below 0.60 (over 2)") {
		t.Errorf("alerts: %d\n%s%s", code, out, errs)
	}
	code, out, _ = e.run(e.as(e.verify), "alerts", "--json")
	var rep quality.AlertReport
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || len(rep.Alerts) != 5 || rep.Alerts[0].Name != quality.AlertCatchRate || !rep.Alerts[0].Firing ||
		rep.Alerts[4].Name != quality.AlertUnverifiedRate || rep.Alerts[4].Labels != 5 {
		t.Errorf("alerts --json: %d %v\n%s", code, err, out)
	}

	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		code int
		says string
	}{
		{"bad VOUCH_ADDR", map[string]string{"VOUCH_ADDR": "8080"}, []string{"metrics"}, 2, "VOUCH_ADDR"},
		{"bad since", e.as(e.verify), []string{"metrics", "--since", "yesterday"}, 2, "--since"},
		{"since and window", e.as(e.verify), []string{"metrics", "--since", "2026-11-01", "--window", "24h"}, 2, "not both"},
		{"negative window", e.as(e.verify), []string{"metrics", "--window", "-1h"}, 2, "positive"},
		{"since after until", e.as(e.verify), []string{"metrics", "--since", "2026-11-02", "--until", "2026-11-01"}, 2, "before --until"},
		{"server and store", nil, []string{"metrics", "--server", e.url, "--store", e.dsn}, 2, "not both"},
		{"tenant with server", e.as(e.verify), []string{"metrics", "--tenant", "acme"}, 2, "--tenant goes with --store"},
		{"no such store", nil, []string{"metrics", "--store", filepath.Join(t.TempDir(), "none.db")}, 2, "none.db"},
		{"bad tenant", nil, []string{"metrics", "--store", e.dsn, "--tenant", "Acme Inc"}, 2, "--tenant"},
	} {
		code, out, errs := e.run(tc.env, tc.args...)
		if code != tc.code || out != "" || !strings.Contains(errs, tc.says) {
			t.Errorf("%s: vouch %s: exit %d, stdout %q, stderr %q; want exit %d saying %q", tc.name, strings.Join(tc.args, " "), code, out, errs, tc.code, tc.says)
		}
	}
}

// TestRenderQuality holds the text of metrics and alerts to the golden
// files in testdata (go test -run RenderQuality -update rewrites them).
func TestRenderQuality(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	f2i := func(v int) *int { return &v }
	since := time.Date(2026, 10, 2, 0, 0, 0, 0, time.UTC)
	until := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	m := &api.Metrics{
		Window:         api.Window{Since: since, Until: until, Kind: "code"},
		Verifications:  40,
		FirstPass:      quality.NewRate(22, 30),
		RetriesPerTask: f(10.0 / 30),
		Retries:        10,
		RetrySuccess:   quality.NewRate(6, 8),
		Verdicts:       map[string]int64{"pass": 24, "retry": 9, "fail": 3, "unverified": 4},
		Actions:        map[string]int64{"accept": 28, "retry": 8, "reformulate": 1, "follow_up": 0, "escalate": 3},
		NeedsReview:    2,
		Confidence: []api.Bin{{From: 0, To: 0.1}, {From: 0.1, To: 0.2}, {From: 0.2, To: 0.3}, {From: 0.3, To: 0.4}, {From: 0.4, To: 0.5, N: 2},
			{From: 0.5, To: 0.6, N: 3}, {From: 0.6, To: 0.7, N: 5}, {From: 0.7, To: 0.8, N: 10}, {From: 0.8, To: 0.9, N: 12}, {From: 0.9, To: 1, N: 8}},
		Score: []api.Bin{{From: 0, To: 0.1, N: 1}, {From: 0.1, To: 0.2}, {From: 0.2, To: 0.3}, {From: 0.3, To: 0.4, N: 2}, {From: 0.4, To: 0.5, N: 3},
			{From: 0.5, To: 0.6, N: 6}, {From: 0.6, To: 0.7}, {From: 0.7, To: 0.8, N: 4}, {From: 0.8, To: 0.9, N: 10}, {From: 0.9, To: 1, N: 13}},
		Undecided: 1,
		FailurePatterns: []api.Pattern{
			{Code: "TEXT_MISSING", Meaning: "the required text is not in the output", Count: 9, Examples: []string{"r31/1", "r30/1", "r22/2", "r12/1"}},
			{Code: "FILE_MISSING", Count: 2, Examples: []string{"r7/1"}},
		},
		Reviews:          api.Reviews{Reviewed: 6, Overridden: 2, Rate: quality.NewRate(2, 40), Agreement: quality.NewRate(4, 6)},
		Labels:           api.Labels{Labelled: 15, Good: 8, Bad: 7, Caught: 4, Missed: 1, FalseAlarms: 1, Confirmed: 6},
		CatchRate:        quality.NewRate(4, 5),
		FalseAlarmRate:   quality.NewRate(1, 40),
		Cost:             api.Cost{VerificationUSD: 0.42, Priced: 20, PricedVerificationUSD: 0.2, TaskUSD: 2.5, TaskCostRatio: f(0.08)},
		CostByKind:       map[string]api.Cost{"code": {VerificationUSD: 0.42}},
		Judge:            api.Judge{Calls: 30, CacheHits: 10, CacheMisses: 20, CacheHitRate: quality.NewRate(10, 30)},
		SelfAssessment:   []api.Bias{{ExecutorModel: "openai:gpt-4o-mini", N: 25, SelfConfidence: 0.91, VerifiedScore: 0.74, Bias: 0.17}},
		UnverifiedRate:   quality.NewRate(4, 40),
		Coverage:         quality.NewRate(88, 110),
		Ledgers:          36,
		RefutedClaims:    7,
		UnverifiedLabels: api.UnverifiedLabels{Good: 1, Bad: 2},
		ScoreByComplexity: []api.ComplexityBin{
			{From: 0, To: f2i(0), N: 12, MeanScore: f(0.81), Scored: 11, Pass: quality.NewRate(9, 12)},
			{From: 1, To: f2i(1)},
			{From: 2, To: f2i(3), N: 20, MeanScore: f(0.74), Scored: 20, Pass: quality.NewRate(12, 20)},
			{From: 4, To: f2i(7), N: 6, MeanScore: f(0.55), Scored: 6, Pass: quality.NewRate(2, 6)},
			{From: 8, N: 2, MeanScore: f(0.4), Scored: 2, Pass: quality.NewRate(0, 2)},
		},
		RetrySuccessByIssue: []api.IssueRetry{
			{Code: "TEXT_MISSING", Meaning: "the required text is not in the output", SentBack: 6, RetrySuccess: quality.NewRate(4, 5)},
			{Code: "NO_CODE", Meaning: "the first attempt raised no failure code: a low score sent it back", SentBack: 3, RetrySuccess: quality.NewRate(2, 3)},
			{Code: "FILE_MISSING", SentBack: 1, RetrySuccess: quality.NewRate(0, 0)},
		},
	}
	alerts := quality.DefaultAlerts()
	alerts.CatchRate.Threshold, alerts.CatchRate.MinLabels = 0.9, 5
	alerts.RetrySuccess.Off = true
	rep := &quality.AlertReport{Window: api.Window{Since: since, Until: until}, Alerts: quality.Evaluate(m, alerts)}
	rep.Alerts[0].Since = until.Add(-time.Hour)
	var b bytes.Buffer
	renderMetrics(&b, m)
	b.WriteString("----\n")
	renderAlerts(&b, rep)
	golden := filepath.Join("testdata", "quality.golden")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("metrics and alerts text differ from %s (go test -run RenderQuality -update):\n%s", golden, got)
	}
}
