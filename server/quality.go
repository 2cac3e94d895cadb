package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/event"
	"github.com/vouchgate/vouch/quality"
	"github.com/vouchgate/vouch/store"
)

// maxLabelBody bounds the body of an override or an outcome.
const maxLabelBody = 64 << 10

// decodeBody reads a small JSON body strictly into v: unknown members and
// trailing data are errors.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxLabelBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, string(vouch.ErrInvalid), "body: "+err.Error())
		return false
	}
	if dec.More() {
		writeError(w, http.StatusBadRequest, string(vouch.ErrInvalid), "body: data after the JSON object")
		return false
	}
	return true
}

// caller names who is calling, for a label's reviewer or reporter when
// the body names nobody: the key's name, else its id.
func caller(ctx context.Context) string {
	p := principalOf(ctx)
	switch {
	case p.key == nil:
		return "local"
	case p.key.Name != "":
		return p.key.Name
	}
	return p.key.ID
}

// handleOverride records a person's verdict beside a stored verification
// (the report never changes).
func (s *Server) handleOverride(w http.ResponseWriter, r *http.Request) {
	var in api.OverrideInput
	if !decodeBody(w, r, &in) {
		return
	}
	id := r.PathValue("id")
	o := &store.Override{Tenant: tenantOf(r.Context()), VerificationID: id, Attempt: in.Attempt,
		Verdict: vouch.Verdict(in.Verdict), Reason: in.Reason, Reviewer: in.Reviewer}
	if err := o.Check(); err != nil {
		writeError(w, http.StatusBadRequest, string(vouch.ErrInvalid), err.Error())
		return
	}
	if o.Reviewer == "" {
		o.Reviewer = caller(r.Context())
	}
	err := s.st.AddOverride(r.Context(), o)
	if errors.Is(err, store.ErrNotFound) {
		msg := fmt.Sprintf("no verification %q", truncate(id, 80))
		if in.Attempt > 0 { // 0 asks for the latest attempt, whichever it is
			msg = fmt.Sprintf("no verification %q with an attempt %d", truncate(id, 80), in.Attempt)
		}
		writeError(w, http.StatusNotFound, "not_found", msg)
		return
	}
	if err != nil {
		s.writeStoreError(w, "recording the override", err)
		return
	}
	writeJSON(w, http.StatusCreated, api.Override{VerificationID: o.VerificationID, Attempt: o.Attempt,
		Verdict: string(o.Verdict), Reason: o.Reason, Reviewer: o.Reviewer, CreatedAt: o.CreatedAt.UTC()})
}

// handleOutcome records what happened downstream of a verification.
func (s *Server) handleOutcome(w http.ResponseWriter, r *http.Request) {
	var in api.OutcomeInput
	if !decodeBody(w, r, &in) {
		return
	}
	var problems []error
	if in.Good == nil {
		problems = append(problems, errors.New("good: required (true: the output was used and held up; false: it broke something)"))
	}
	if in.VerificationID == "" && in.TaskID == "" {
		problems = append(problems, errors.New("verificationId or taskId: one is required"))
	}
	if in.VerificationID == "" && in.Attempt != 0 {
		problems = append(problems, errors.New("attempt: only with a verificationId"))
	}
	if in.Attempt < 0 {
		problems = append(problems, errors.New("attempt: want a positive integer, or none for the latest"))
	}
	problems = append(problems, store.CheckText("detail", in.Detail, store.MaxReasonRunes), store.CheckText("reporter", in.Reporter, store.MaxReviewerRunes))
	if err := errors.Join(problems...); err != nil {
		writeError(w, http.StatusBadRequest, string(vouch.ErrInvalid), err.Error())
		return
	}
	if in.Reporter == "" {
		in.Reporter = caller(r.Context())
	}
	o := &store.Outcome{Tenant: tenantOf(r.Context()), VerificationID: in.VerificationID, Attempt: in.Attempt,
		TaskID: in.TaskID, InteractionID: in.InteractionID, Good: *in.Good, Detail: in.Detail, Reporter: in.Reporter}
	err := s.st.AddOutcome(r.Context(), o)
	if errors.Is(err, store.ErrNotFound) {
		writeError(w, http.StatusNotFound, "not_found", "no verification matches the outcome's verificationId, or taskId and interactionId")
		return
	}
	if err != nil {
		s.writeStoreError(w, "recording the outcome", err)
		return
	}
	good := o.Good
	writeJSON(w, http.StatusCreated, api.Outcome{VerificationID: o.VerificationID, Attempt: o.Attempt,
		TaskID: o.TaskID, InteractionID: o.InteractionID, Good: &good, Detail: o.Detail, Reporter: o.Reporter,
		CreatedAt: o.CreatedAt.UTC()})
}

// parseWindow reads a window from a query: since and until (RFC 3339),
// or window (a duration, e.g. 168h) back from until (default now); the
// default span is def. kind, executorModel and criticality filter.
func parseWindow(q url.Values, now time.Time, def time.Duration) (store.Window, error) {
	w := store.Window{Kind: q.Get("kind"), ExecutorModel: q.Get("executorModel"), Criticality: q.Get("criticality")}
	parse := func(name string) (time.Time, error) {
		v := q.Get(name)
		if v == "" {
			return time.Time{}, nil
		}
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return t, fmt.Errorf("%s: want an RFC 3339 time, e.g. 2026-11-01T00:00:00Z", name)
		}
		return t.UTC(), nil
	}
	var err error
	if w.Since, err = parse("since"); err != nil {
		return w, err
	}
	if w.Until, err = parse("until"); err != nil {
		return w, err
	}
	if w.Until.IsZero() {
		w.Until = now.UTC()
	}
	span := def
	if v := q.Get("window"); v != "" {
		if !w.Since.IsZero() {
			return w, errors.New("window: give since or window, not both")
		}
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return w, fmt.Errorf("window %q: want a positive duration, e.g. 720h", truncate(v, 40))
		}
		span = d
	}
	if w.Since.IsZero() {
		w.Since = w.Until.Add(-span)
	}
	if !w.Since.Before(w.Until) {
		return w, errors.New("since: must be before until")
	}
	return w, nil
}

func windowOf(w store.Window) api.Window {
	return api.Window{Since: w.Since, Until: w.Until, Kind: w.Kind, ExecutorModel: w.ExecutorModel, Criticality: w.Criticality}
}

// metricsOf computes the quality metrics of a tenant's window.
func (s *Server) metricsOf(ctx context.Context, tenant string, w store.Window) (*api.Metrics, error) {
	return quality.FromStore(ctx, s.st, tenant, w)
}

func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	win, err := parseWindow(r.URL.Query(), s.now(), quality.DefaultWindow)
	if err != nil {
		writeError(w, http.StatusBadRequest, string(vouch.ErrInvalid), err.Error())
		return
	}
	m, err := s.metricsOf(r.Context(), tenantOf(r.Context()), win)
	if err != nil {
		s.writeStoreError(w, "computing the metrics", err)
		return
	}
	writeJSON(w, http.StatusOK, m)
}

// alertWindow is the window the alerts watch, ending now.
func (s *Server) alertWindow() store.Window {
	now := s.now().UTC()
	span := time.Duration(s.cfg.Alerts.Window)
	if span <= 0 {
		span = quality.DefaultWindow
	}
	return store.Window{Since: now.Add(-span), Until: now}
}

// evaluateAlerts evaluates a tenant's alerts, records their state, and
// raises alert:firing or alert:resolved on the event stream when one
// changes.
func (s *Server) evaluateAlerts(ctx context.Context, tenant string) ([]quality.Status, error) {
	m, err := s.metricsOf(ctx, tenant, s.alertWindow())
	if err != nil {
		return nil, err
	}
	statuses := quality.Evaluate(m, s.cfg.Alerts)
	notified := false
	for i := range statuses {
		st := &statuses[i]
		a := &store.Alert{Tenant: tenant, Name: st.Name, Severity: st.Severity, Firing: st.Firing,
			Value: st.Value, Threshold: st.Threshold, Labels: int(st.Labels), Message: st.Message, UpdatedAt: s.now()}
		changed, err := s.st.SetAlert(ctx, a, func(a *store.Alert) (store.Event, error) {
			st.Since = a.Since
			typ := event.AlertResolved
			if a.Firing {
				typ = event.AlertFiring
			}
			ev := withData(event.Event{Tenant: tenant, Time: a.UpdatedAt}, typ, st)
			raw, _, err := encodeEvent(ev)
			if err != nil {
				return store.Event{}, fmt.Errorf("encoding the %s event: %w", typ, err)
			}
			return store.Event{Tenant: tenant, Type: string(typ), Data: raw, CreatedAt: a.UpdatedAt}, nil
		})
		if err != nil {
			return nil, err
		}
		st.Since = a.Since
		if changed {
			notified = true
			s.log.Warn("alert", "tenant", tenant, "alert", st.Name, "firing", st.Firing, "message", st.Message)
		}
	}
	if notified {
		s.hub.notify(tenant)
	}
	return statuses, nil
}

func (s *Server) handleAlerts(w http.ResponseWriter, r *http.Request) {
	statuses, err := s.evaluateAlerts(r.Context(), tenantOf(r.Context()))
	if err != nil {
		s.writeStoreError(w, "evaluating the alerts", err)
		return
	}
	if statuses == nil {
		statuses = []quality.Status{}
	}
	writeJSON(w, http.StatusOK, quality.AlertReport{Window: windowOf(s.alertWindow()), Alerts: statuses})
}

// watchAlerts evaluates every active tenant's alerts each interval until
// ctx is done.
func (s *Server) watchAlerts(ctx context.Context) {
	every := time.Duration(s.cfg.Alerts.Interval)
	if every <= 0 {
		every = time.Minute
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		tenants, err := s.st.Tenants(ctx, s.alertWindow().Since)
		if err != nil {
			s.log.Warn("alerts: listing tenants", "err", err)
			continue
		}
		for _, t := range tenants {
			if _, err := s.evaluateAlerts(ctx, t); err != nil && ctx.Err() == nil {
				s.log.Warn("alerts: evaluating", "tenant", t, "err", err)
			}
		}
	}
}

// qualityCollector exports each active tenant's quality metrics over the
// alert window, and its alerts' state, as Prometheus gauges. It computes
// them at most once per refresh interval, so that scrapes stay cheap.
type qualityCollector struct {
	s       *Server
	refresh time.Duration

	mu      sync.Mutex
	at      time.Time
	metrics []prometheus.Metric
}

var (
	qualityTenant = []string{"tenant"}
	qualityDescs  = map[string]*prometheus.Desc{
		"verifications":     prometheus.NewDesc("vouch_quality_verifications", "Verifications in the alert window.", qualityTenant, nil),
		"labelled":          prometheus.NewDesc("vouch_quality_labelled", "Verifications in the alert window with an override or an outcome.", qualityTenant, nil),
		"first_pass":        prometheus.NewDesc("vouch_quality_first_pass_rate", "Attempt-1 verifications that passed, of the attempt-1 verifications.", qualityTenant, nil),
		"retry_success":     prometheus.NewDesc("vouch_quality_retry_success_rate", "Tasks sent back that ended in a pass, of the tasks sent back.", qualityTenant, nil),
		"catch":             prometheus.NewDesc("vouch_quality_catch_rate", "Outputs labelled bad that the gate sent back, of those labelled bad that it passed or sent back (not those it left unverified).", qualityTenant, nil),
		"false_alarm":       prometheus.NewDesc("vouch_quality_false_alarm_rate", "Send-backs labelled good, of all verifications.", qualityTenant, nil),
		"unverified":        prometheus.NewDesc("vouch_quality_unverified_rate", "Verifications left unverified (nothing found false, some claim not checked either way), of all verifications.", qualityTenant, nil),
		"coverage":          prometheus.NewDesc("vouch_quality_claim_coverage", "Claims decided (verified or refuted), of the claims of the verifications with a claim ledger.", qualityTenant, nil),
		"override":          prometheus.NewDesc("vouch_quality_override_rate", "Verifications whose reviewer changed the verdict, of all verifications.", qualityTenant, nil),
		"task_cost_ratio":   prometheus.NewDesc("vouch_quality_task_cost_ratio", "Verification cost over the executor's cost, where the latter is known.", qualityTenant, nil),
		"cache_hit":         prometheus.NewDesc("vouch_quality_judge_cache_hit_rate", "Judge cache hits, of hits and misses.", qualityTenant, nil),
		"self_bias":         prometheus.NewDesc("vouch_quality_self_assessment_bias", "Executor's self-reported confidence minus the verified score, by executor model.", []string{"tenant", "executor_model"}, nil),
		"alert":             prometheus.NewDesc("vouch_alert_firing", "1 while a quality alert fires, 0 otherwise.", []string{"tenant", "alert", "severity"}, nil),
		"collection_errors": prometheus.NewDesc("vouch_quality_collection_errors", "1 when the last computation of the quality gauges failed.", nil, nil),
	}
)

// Describe implements prometheus.Collector.
func (c *qualityCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range qualityDescs {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *qualityCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.metrics == nil || time.Since(c.at) >= c.refresh {
		c.metrics, c.at = c.compute(), time.Now()
	}
	for _, m := range c.metrics {
		ch <- m
	}
}

func (c *qualityCollector) compute() []prometheus.Metric {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out []prometheus.Metric
	gauge := func(name string, v float64, labels ...string) {
		out = append(out, prometheus.MustNewConstMetric(qualityDescs[name], prometheus.GaugeValue, v, labels...))
	}
	rate := func(name string, v *float64, tenant string) {
		if v != nil {
			gauge(name, *v, tenant)
		}
	}
	failed := 0.0
	w := c.s.alertWindow()
	tenants, err := c.s.st.Tenants(ctx, w.Since)
	if err != nil {
		c.s.log.Warn("quality gauges: listing tenants", "err", err)
		failed = 1
	}
	for _, t := range tenants {
		m, err := c.s.metricsOf(ctx, t, w)
		if err != nil {
			c.s.log.Warn("quality gauges", "tenant", t, "err", err)
			failed = 1
			continue
		}
		gauge("verifications", float64(m.Verifications), t)
		gauge("labelled", float64(m.Labels.Labelled), t)
		rate("first_pass", m.FirstPass.Value, t)
		rate("retry_success", m.RetrySuccess.Value, t)
		rate("catch", m.CatchRate.Value, t)
		rate("false_alarm", m.FalseAlarmRate.Value, t)
		rate("unverified", m.UnverifiedRate.Value, t)
		rate("coverage", m.Coverage.Value, t)
		rate("override", m.Reviews.Rate.Value, t)
		rate("task_cost_ratio", m.Cost.TaskCostRatio, t)
		rate("cache_hit", m.Judge.CacheHitRate.Value, t)
		for _, b := range m.SelfAssessment {
			gauge("self_bias", b.Bias, t, b.ExecutorModel)
		}
		alerts, err := c.s.st.Alerts(ctx, t)
		if err != nil {
			failed = 1
			continue
		}
		for _, a := range alerts {
			v := 0.0
			if a.Firing {
				v = 1
			}
			gauge("alert", v, t, a.Name, a.Severity)
		}
	}
	gauge("collection_errors", failed)
	return out
}

// parseIntParam reads an optional non-negative integer query parameter.
func parseIntParam(q url.Values, name string, def int) (int, error) {
	v := q.Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s: want a non-negative integer", name)
	}
	return n, nil
}

// handleCalibration fits the policy's thresholds and weights to the
// labels of a window (default the last 30 days) and answers what it
// suggests; nothing is applied.
func (s *Server) handleCalibration(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	win, err := parseWindow(q, s.now(), quality.DefaultWindow)
	if err == nil && (win.ExecutorModel != "" || win.Criticality != "") {
		err = errors.New("calibration filters by kind only: thresholds and weights are the policy's, for every executor")
	}
	minLabels := 0
	if err == nil {
		minLabels, err = parseIntParam(q, "minLabels", 0)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, string(vouch.ErrInvalid), err.Error())
		return
	}
	samples, err := quality.Samples(r.Context(), s.st, tenantOf(r.Context()), win)
	if err != nil {
		s.writeStoreError(w, "reading the labelled verifications", err)
		return
	}
	c, err := quality.Calibrate(samples, &s.policy, quality.CalibrateOptions{MinLabels: minLabels})
	if err != nil {
		writeError(w, http.StatusInternalServerError, string(vouch.ErrInternal), err.Error())
		return
	}
	if q.Get("format") == "patch" {
		patch, err := c.Patch()
		writePatch(w, "calibrated-policy.yaml", patch, err)
		return
	}
	writeJSON(w, http.StatusOK, c)
}

// handleExamples makes few-shot examples for the judge from the
// window's overrides (default the last 30 days): JSON, or with
// format=patch a policy file setting judge.examples.
func (s *Server) handleExamples(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	win, err := parseWindow(q, s.now(), quality.DefaultWindow)
	perClass := 0
	if err == nil {
		perClass, err = parseIntParam(q, "perClass", 3)
	}
	if err == nil && (perClass < 1 || perClass > 50) {
		err = errors.New("perClass: want 1 to 50")
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, string(vouch.ErrInvalid), err.Error())
		return
	}
	exs, err := quality.Examples(r.Context(), s.st, tenantOf(r.Context()), win, perClass)
	if err != nil {
		s.writeStoreError(w, "reading the overrides", err)
		return
	}
	if q.Get("format") != "patch" {
		if exs == nil {
			exs = []quality.Example{}
		}
		writeJSON(w, http.StatusOK, map[string]any{"examples": exs})
		return
	}
	patch, err := quality.ExamplesPatch(exs)
	writePatch(w, "judge-examples.yaml", patch, err)
}

// writePatch answers a policy patch as a YAML download, 409 when nothing
// was suggested.
func writePatch(w http.ResponseWriter, filename string, patch []byte, err error) {
	if errors.Is(err, quality.ErrNothingSuggested) {
		writeError(w, http.StatusConflict, "nothing_suggested", err.Error())
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, string(vouch.ErrInternal), err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/yaml")
	w.Header().Set("Content-Disposition", `attachment; filename="`+filename+`"`)
	w.WriteHeader(http.StatusOK)
	w.Write(patch)
}
