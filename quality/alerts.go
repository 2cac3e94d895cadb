package quality

import (
	"fmt"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/text/plural"
)

// The alerts.
const (
	AlertCatchRate      = "catchRate"
	AlertFalseAlarmRate = "falseAlarmRate"
	AlertRetrySuccess   = "retrySuccess"
	AlertTaskCostRatio  = "taskCostRatio"
	AlertUnverifiedRate = "unverifiedRate"
)

// Severities.
const (
	SeverityHigh   = "high"
	SeverityMedium = "medium"
	SeverityLow    = "low"
)

// Rule is one alert's threshold: it fires when its figure crosses
// Threshold (below it for catch rate and retry success, above it for
// false alarms, cost and the unverified rate) over at least MinLabels
// observations.
type Rule struct {
	// Off turns the alert off.
	Off       bool    `json:"off,omitzero"`
	Threshold float64 `json:"threshold"`
	// MinLabels is how many observations the figure must rest on before
	// the alert may fire: labelled bad outputs for the catch rate,
	// labelled verifications for false alarms, retried tasks for retry
	// success, priced verifications for cost, verifications for the
	// unverified rate.
	MinLabels int    `json:"minLabels"`
	Severity  string `json:"severity"`
}

// AlertConfig holds the alert rules, the window they watch, and how
// often the server evaluates them.
type AlertConfig struct {
	// Window is how far back the figures reach (default 30 days).
	Window vouch.Duration `json:"window"`
	// Interval is how often `vouch serve` evaluates the alerts (default 1
	// minute); GET /v1/alerts evaluates them too.
	Interval       vouch.Duration `json:"interval"`
	CatchRate      Rule           `json:"catchRate"`
	FalseAlarmRate Rule           `json:"falseAlarmRate"`
	RetrySuccess   Rule           `json:"retrySuccess"`
	TaskCostRatio  Rule           `json:"taskCostRatio"`
	// UnverifiedRate watches the share of verifications left unverified:
	// outputs whose claims the gate could not check either way, which
	// onUnverified accept lets through unchecked. Many of them say the
	// agents' outputs come without the evidence (traces, workspaces,
	// sources) their claims need.
	UnverifiedRate Rule `json:"unverifiedRate"`
}

// DefaultUnverifiedRate is the default threshold of the unverified-rate
// alert: more than half of the verifications left unverified. DESIGN.md
// names no threshold for it. Without a judge, an honest gate says
// "unverified" often (what code now does, tests with no run shown), so a
// lower default would fire for every such deployment; past half, most of
// what agents claim goes on unchecked, and a judge or more evidence (a
// trace, a workspace with its base) is due.
const DefaultUnverifiedRate = 0.5

// DefaultAlerts are the alert rules of DESIGN.md: catch rate below 0.6
// (high), false alarms above 0.15, retry success below 0.5, verification
// above 30 % of the task's cost (medium); and the unverified rate above
// [DefaultUnverifiedRate] (medium); each over at least 20 observations.
func DefaultAlerts() AlertConfig {
	return AlertConfig{
		Window:         vouch.Duration(DefaultWindow),
		Interval:       vouch.Duration(time.Minute),
		CatchRate:      Rule{Threshold: 0.6, MinLabels: 20, Severity: SeverityHigh},
		FalseAlarmRate: Rule{Threshold: 0.15, MinLabels: 20, Severity: SeverityMedium},
		RetrySuccess:   Rule{Threshold: 0.5, MinLabels: 20, Severity: SeverityMedium},
		TaskCostRatio:  Rule{Threshold: 0.3, MinLabels: 20, Severity: SeverityMedium},
		UnverifiedRate: Rule{Threshold: DefaultUnverifiedRate, MinLabels: 20, Severity: SeverityMedium},
	}
}

// Check reports the first invalid setting.
func (c *AlertConfig) Check() error {
	if c.Window < 0 || c.Interval < 0 {
		return fmt.Errorf("alerts: window and interval must not be negative")
	}
	for _, r := range []struct {
		name string
		r    Rule
	}{{AlertCatchRate, c.CatchRate}, {AlertFalseAlarmRate, c.FalseAlarmRate}, {AlertRetrySuccess, c.RetrySuccess},
		{AlertTaskCostRatio, c.TaskCostRatio}, {AlertUnverifiedRate, c.UnverifiedRate}} {
		if r.r.Off {
			continue
		}
		if r.r.Threshold < 0 || r.r.MinLabels < 0 {
			return fmt.Errorf("alerts.%s: threshold and minLabels must not be negative", r.name)
		}
		switch r.r.Severity {
		case SeverityHigh, SeverityMedium, SeverityLow:
		default:
			return fmt.Errorf("alerts.%s: severity %q: want high, medium or low", r.name, r.r.Severity)
		}
	}
	return nil
}

// Status and AlertReport are the shapes of the alerts, in package api.
type (
	Status      = api.AlertStatus
	AlertReport = api.AlertReport
)

// Evaluate evaluates the rules on m, in a fixed order; rules that are
// off are left out.
func Evaluate(m *api.Metrics, c AlertConfig) []Status {
	var out []Status
	add := func(name string, r Rule, below bool, value *float64, labels int64, what string) {
		if r.Off {
			return
		}
		s := Status{Name: name, Severity: r.Severity, Value: value, Threshold: r.Threshold, Below: below,
			Labels: labels, MinLabels: r.MinLabels}
		crossed := value != nil && (below && *value < r.Threshold || !below && *value > r.Threshold)
		enough := labels >= int64(r.MinLabels) && labels > 0
		s.Firing = crossed && enough
		dir := "above"
		if below {
			dir = "below"
		}
		switch {
		case value == nil:
			s.Message = fmt.Sprintf("%s: nothing to compute it over yet", what)
		case !enough:
			s.Message = fmt.Sprintf("%s %.2f over %s, fewer than the %d needed to alert", what, *value, plural.Count(labels, "observation"), r.MinLabels)
		case s.Firing:
			s.Message = fmt.Sprintf("%s %.2f is %s %.2f (over %d)", what, *value, dir, r.Threshold, labels)
		default:
			// Not crossed: the line is named with the side it alerts on.
			s.Message = fmt.Sprintf("%s %.2f is not %s %.2f (over %d)", what, *value, dir, r.Threshold, labels)
		}
		out = append(out, s)
	}
	add(AlertCatchRate, c.CatchRate, true, m.CatchRate.Value, m.CatchRate.Of, "catch rate")
	add(AlertFalseAlarmRate, c.FalseAlarmRate, false, m.FalseAlarmRate.Value, m.Labels.Labelled, "false-alarm rate")
	add(AlertRetrySuccess, c.RetrySuccess, true, m.RetrySuccess.Value, m.RetrySuccess.Of, "retry success")
	add(AlertTaskCostRatio, c.TaskCostRatio, false, m.Cost.TaskCostRatio, m.Cost.Priced, "verification cost ÷ task cost")
	add(AlertUnverifiedRate, c.UnverifiedRate, false, m.UnverifiedRate.Value, m.UnverifiedRate.Of, "unverified rate")
	return out
}
