package web

import (
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/quality"
	"github.com/vouchgate/vouch/web/chart"
)

// figure is a rate as the pages show it: the share with the counts it
// rests on, or why there is none. A rate over nothing is never shown as
// 0 %.
type figure struct {
	// Name names the rate; Help says what it counts.
	Name, Help string
	// Value is the share ("64%"), "" when there is none.
	Value string
	// Counts is what the share rests on, in words ("87 of 135 outputs
	// labelled bad were sent back").
	Counts string
	// None says why there is no value ("no labels yet").
	None string
}

// rateFigure makes the figure of a rate: counts says "N of M ..." from
// the rate's counts, and none is the message when the rate has no
// denominator.
func rateFigure(name, help string, r api.Rate, counts func(n, of string) string, none string) figure {
	f := figure{Name: name, Help: help}
	if r.Value == nil {
		f.None = none
		return f
	}
	f.Value = percent(*r.Value)
	f.Counts = counts(chart.Num(float64(r.N)), chart.Num(float64(r.Of)))
	return f
}

// percent formats a share in [0, 1] as a percentage: whole percents, but
// one decimal under 10 % (so that 0.4 % is not 0 %).
func percent(v float64) string {
	p := v * 100
	if p != 0 && math.Abs(p) < 10 {
		return strconv.FormatFloat(math.Round(p*10)/10, 'f', -1, 64) + "%"
	}
	return strconv.FormatFloat(math.Round(p), 'f', -1, 64) + "%"
}

// windowDays are the spans the quality and calibration pages offer, in
// days; defaultDays is the one they show first.
var windowDays = []int{7, 30, 90}

const defaultDays = 30

// windowForm is the window selector as given, and its choices.
type windowForm struct {
	Days    int
	Choices []int
	// Since and Until bound the window shown.
	Since, Until time.Time
}

// parseWindowDays reads the days of a window (the query's days, one of
// windowDays); a problem is said in words for the page.
func parseWindowDays(q url.Values) (int, string) {
	v := strings.TrimSpace(q.Get("days"))
	if v == "" {
		return defaultDays, ""
	}
	n, err := strconv.Atoi(v)
	if err == nil {
		for _, d := range windowDays {
			if n == d {
				return n, ""
			}
		}
	}
	return defaultDays, "Window: want 7, 30 or 90 days"
}

// alertNames names the alerts in words.
var alertNames = map[string]string{
	quality.AlertCatchRate:      "Catch rate",
	quality.AlertFalseAlarmRate: "False-alarm rate",
	quality.AlertRetrySuccess:   "Retry success",
	quality.AlertTaskCostRatio:  "Verification cost against the task's",
	quality.AlertUnverifiedRate: "Unverified rate",
}

// alertView is an alert as the overview lists it.
type alertView struct {
	Name, Severity, Message string
	Firing                  bool
	// Value is the figure watched ("n/a" when there is nothing to compute
	// it over); Threshold the line it crosses, with its direction.
	Value, Threshold string
	// Observations says how many observations the value rests on, of
	// those it needs.
	Observations string
	Since        time.Time
}

func alertViewOf(s quality.Status) alertView {
	a := alertView{Name: alertNames[s.Name], Severity: s.Severity, Message: s.Message, Firing: s.Firing, Since: s.Since,
		Value: "n/a", Observations: chart.Num(float64(s.Labels)) + " of the " + strconv.Itoa(s.MinLabels) + " needed"}
	if s.Labels >= int64(s.MinLabels) {
		// Enough: the minimum is no longer something to reach.
		a.Observations = chart.Num(float64(s.Labels)) + " (" + strconv.Itoa(s.MinLabels) + " needed)"
	}
	if a.Name == "" {
		a.Name = s.Name
	}
	if s.Value != nil {
		a.Value = percent(*s.Value)
	}
	if s.Below {
		a.Threshold = "below " + percent(s.Threshold)
	} else {
		a.Threshold = "above " + percent(s.Threshold)
	}
	return a
}
