package web

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/quality"
	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/web/chart"
)

// overviewDays is how many days the overview covers: today (UTC, up to
// now) and the 29 whole days before.
const overviewDays = 30

// overviewData is the overview page's.
type overviewData struct {
	Since, Until time.Time
	// M are the metrics of the window, as GET /v1/metrics computes them.
	M *api.Metrics
	// Rates are the headline rates, each with its counts.
	Rates []figure
	// Verdicts is the chart of the verdicts by day.
	Verdicts chart.StackedBars
	// Cost says what verification cost next to the tasks; CostByKind
	// lists it by kind.
	Cost       costView
	CostByKind []costView
	// Alerts are the tenant's alerts, the firing ones first; Firing
	// counts those. AlertsOff is set when the server evaluates none
	// here.
	Alerts    []alertView
	Firing    int
	AlertsOff bool
	// AlertsError says the alerts could not be evaluated.
	AlertsError string
}

// costView is verification cost as the overview shows it.
type costView struct {
	Kind string
	// Verification is what all verifications spent on judges.
	Verification float64
	// Priced counts the verifications whose task cost is known; Task is
	// what those tasks cost, PricedVerification what their verification
	// did.
	Priced             int64
	PricedVerification float64
	Task               float64
	// Ratio is PricedVerification ÷ Task as a percentage, "" when no
	// task cost is known.
	Ratio string
}

func costViewOf(kind string, c api.Cost) costView {
	v := costView{Kind: kind, Verification: c.VerificationUSD, Priced: c.Priced,
		PricedVerification: c.PricedVerificationUSD, Task: c.TaskUSD}
	if c.TaskCostRatio != nil {
		v.Ratio = percent(*c.TaskCostRatio)
	}
	return v
}

// startOfDay returns the start of t's day in UTC.
func startOfDay(t time.Time) time.Time { return t.UTC().Truncate(24 * time.Hour) }

// handleOverview shows the tenant's last 30 days: verdicts by day, the
// headline rates with their counts, cost, and the alerts.
func (h *Handler) handleOverview(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	tenant := principalOf(ctx).Tenant
	until := h.now().UTC()
	since := startOfDay(until).AddDate(0, 0, -(overviewDays - 1))
	win := store.Window{Since: since, Until: until}
	m, err := quality.FromStore(ctx, h.st, tenant, win)
	if err != nil {
		h.storeFailed(w, r, "computing the metrics", err)
		return
	}
	d := overviewData{Since: since, Until: until, M: m}
	if d.Verdicts, err = h.verdictsByDay(ctx, tenant, since, until); err != nil {
		h.storeFailed(w, r, "counting the verdicts by day", err)
		return
	}
	d.Rates = headlineRates(m)
	d.Cost = costViewOf("", m.Cost)
	for _, k := range sortedKeys(m.CostByKind) {
		d.CostByKind = append(d.CostByKind, costViewOf(k, m.CostByKind[k]))
	}
	if h.alerts == nil {
		d.AlertsOff = true
	} else if statuses, err := h.alerts(ctx, tenant); err != nil {
		h.log.Error("dashboard: evaluating the alerts", "tenant", tenant, "err", err)
		d.AlertsError = "The alerts could not be evaluated just now."
	} else {
		for _, s := range statuses {
			d.Alerts = append(d.Alerts, alertViewOf(s))
			if s.Firing {
				d.Firing++
			}
		}
		slices.SortStableFunc(d.Alerts, func(a, b alertView) int {
			switch {
			case a.Firing && !b.Firing:
				return -1
			case b.Firing && !a.Firing:
				return 1
			}
			return 0
		})
	}
	h.render(w, r, http.StatusOK, "overview", d)
}

// headlineRates are the overview's rates. The rates over labels say "no
// labels yet" while nothing is labelled: the false-alarm rate divides by
// every verification, so without a label it would read 0 %.
func headlineRates(m *api.Metrics) []figure {
	noLabels := m.Labels.Labelled == 0
	catchNone := "no output labelled bad yet"
	falseAlarm := rateFigure("False-alarm rate", "Outputs sent back that a reviewer or an outcome marked good, of all verifications.",
		m.FalseAlarmRate, func(n, of string) string {
			return n + " of " + of + " verifications were sent back but labelled good (" + chart.Num(float64(m.Labels.Labelled)) + " labelled)"
		}, "no verifications yet")
	if noLabels {
		catchNone = "no labels yet"
		falseAlarm.Value, falseAlarm.Counts, falseAlarm.None = "", "", "no labels yet"
	}
	return []figure{
		rateFigure("First-pass rate", "First attempts that passed.", m.FirstPass,
			func(n, of string) string { return n + " of " + of + " first attempts passed" }, "no first attempt yet"),
		rateFigure("Retry success", "Tasks sent back at least once that ended in a pass.", m.RetrySuccess,
			func(n, of string) string { return n + " of " + of + " tasks sent back ended in a pass" }, "no task sent back yet"),
		rateFigure("Catch rate", "Outputs labelled bad that the gate passed or sent back: the share it sent back. A bad output it left unverified is neither caught nor missed.", m.CatchRate,
			func(n, of string) string { return n + " of " + of + " outputs labelled bad were sent back" }, catchNone),
		falseAlarm,
		unverifiedFigure(m),
		coverageFigure(m),
	}
}

// unverifiedFigure is the share of the verifications the gate left
// unverified.
func unverifiedFigure(m *api.Metrics) figure {
	return rateFigure("Unverified rate", "Verifications left unverified: nothing was found false, but some claim could not be checked either way. Neither a pass nor a send-back.",
		m.UnverifiedRate, func(n, of string) string { return n + " of " + of + " verifications were left unverified" }, "no verifications yet")
}

// coverageFigure is the share of the claims the gate decided.
func coverageFigure(m *api.Metrics) figure {
	return rateFigure("Claim coverage", "Claims the evidence decided, verified or refuted, of every claim the outputs made.",
		m.Coverage, func(n, of string) string {
			return n + " of " + of + " claims decided (" + chart.Num(float64(m.RefutedClaims)) + " refuted), over " +
				chart.Num(float64(m.Ledgers)) + " verifications with a claim ledger"
		}, "no claim ledger yet")
}

// verdictSeries are the stacked series of the verdicts chart: unverified
// in blue, neither a pass's green nor a send-back's amber or red.
var verdictSeries = []chart.Series{{Name: "pass", Tone: chart.ToneGood}, {Name: "retry", Tone: chart.ToneWarn}, {Name: "fail", Tone: chart.ToneBad},
	{Name: "unverified", Tone: chart.ToneInfo}}

// verdictsByDay counts the verdicts of each UTC day from since (a day's
// start) to until, from the store's tallies: one window a day, each read
// from the daily tallies but for today's, which ends now.
func (h *Handler) verdictsByDay(ctx context.Context, tenant string, since, until time.Time) (chart.StackedBars, error) {
	c := chart.StackedBars{ID: "verdicts", Title: "Verdicts by day", XLabel: "day (UTC)", YLabel: "verifications",
		Series: verdictSeries, Empty: "No verifications in the last 30 days"}
	for day := since; day.Before(until); day = day.AddDate(0, 0, 1) {
		end := day.AddDate(0, 0, 1)
		if end.After(until) {
			end = until
		}
		t, err := h.st.Tally(ctx, tenant, store.Window{Since: day, Until: end})
		if err != nil {
			return c, err
		}
		var all store.Tally
		for i := range t.Groups {
			all.Merge(&t.Groups[i].Tally)
		}
		c.Bars = append(c.Bars, chart.Bar{Label: day.Format("2006-01-02"),
			Values: []float64{float64(all.Pass), float64(all.Retry), float64(all.Fail), float64(all.Unverified)}})
	}
	return c, nil
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
