package web_test

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/quality"
	"github.com/vouchgate/vouch/server/demo"
	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/web"
	"github.com/vouchgate/vouch/web/chart"
)

// The overview, quality and calibration pages, over a store filled by the
// demo (real verifications and labels through the API), in open mode.

// seededAt is when the demo data ends; the pages look a minute later.
var (
	seededAt = time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)
	viewedAt = seededAt.Add(time.Minute)
)

const tenant = "default"

// statsSite is a dashboard over st, seen at viewedAt, with the alerts of the
// metrics rules evaluated as the server does.
type statsSite struct {
	t   *testing.T
	st  store.Store
	url string
}

func openStore(t *testing.T) store.Store {
	t.Helper()
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "vouch.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// alertsOf evaluates the default alert rules over the last 30 days, as
// the server's evaluateAlerts does (without keeping their state).
func alertsOf(st store.Store) func(ctx context.Context, tenant string) ([]quality.Status, error) {
	return func(ctx context.Context, tenant string) ([]quality.Status, error) {
		m, err := quality.FromStore(ctx, st, tenant, store.Window{Since: viewedAt.Add(-quality.DefaultWindow), Until: viewedAt})
		if err != nil {
			return nil, err
		}
		return quality.Evaluate(m, quality.DefaultAlerts()), nil
	}
}

func newStatsSite(t *testing.T, st store.Store) *statsSite {
	t.Helper()
	h, err := web.New(web.Options{Store: st, Now: func() time.Time { return viewedAt }, Alerts: alertsOf(st)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &statsSite{t: t, st: st, url: srv.URL}
}

// seeded is a site over a demo store, made once for the tests that only
// read it.
func seeded(t *testing.T) *statsSite {
	t.Helper()
	st := openStore(t)
	if _, err := demo.Seed(t.Context(), st, demo.Options{N: 400, Seed: 11, Now: seededAt}); err != nil {
		t.Fatal(err)
	}
	return newStatsSite(t, st)
}

type page struct {
	status int
	header http.Header
	body   string
}

func (s *statsSite) get(path string) page {
	s.t.Helper()
	res, err := http.Get(s.url + path)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return page{res.StatusCode, res.Header, string(b)}
}

// has fails the test unless the page holds each of the texts (matched
// with the markup's spaces squeezed).
func (p page) has(t *testing.T, what string, texts ...string) {
	t.Helper()
	body := squeeze(p.body)
	for _, x := range texts {
		if !strings.Contains(body, squeeze(x)) {
			t.Errorf("%s: the page lacks %q", what, x)
		}
	}
}

var spaces = regexp.MustCompile(`\s+`)

func squeeze(s string) string { return spaces.ReplaceAllString(s, " ") }

// row is the markup of a chart table's row.
func row(cells ...string) string {
	var b strings.Builder
	b.WriteString("<tr><th scope=\"row\">" + html.EscapeString(cells[0]) + "</th>")
	for _, c := range cells[1:] {
		b.WriteString("<td>" + html.EscapeString(c) + "</td>")
	}
	return b.String() + "</tr>"
}

func n(x int64) string { return chart.Num(float64(x)) }

func TestOverviewShowsTheMetrics(t *testing.T) {
	s := seeded(t)
	since := viewedAt.Truncate(24*time.Hour).AddDate(0, 0, -29)
	m, err := quality.FromStore(t.Context(), s.st, tenant, store.Window{Since: since, Until: viewedAt})
	if err != nil {
		t.Fatal(err)
	}
	if m.Verifications != 400 || m.CatchRate.Value == nil || m.Labels.FalseAlarms == 0 {
		t.Fatalf("the demo store: %d verifications, catch %v, false alarms %d", m.Verifications, m.CatchRate, m.Labels.FalseAlarms)
	}
	p := s.get("/")
	if p.status != http.StatusOK {
		t.Fatalf("GET /: %d\n%s", p.status, p.body)
	}
	p.has(t, "rates",
		n(m.FirstPass.N)+" of "+n(m.FirstPass.Of)+" first attempts passed",
		n(m.RetrySuccess.N)+" of "+n(m.RetrySuccess.Of)+" tasks sent back ended in a pass",
		n(m.CatchRate.N)+" of "+n(m.CatchRate.Of)+" outputs labelled bad were sent back",
		n(m.FalseAlarmRate.N)+" of "+n(m.FalseAlarmRate.Of)+" verifications were sent back but labelled good ("+n(m.Labels.Labelled)+" labelled)",
		fmt.Sprintf("%d verifications.", m.Verifications),
		fmt.Sprintf("%.0f%%", *m.FirstPass.Value*100),
		n(m.UnverifiedRate.N)+" of "+n(m.UnverifiedRate.Of)+" verifications were left unverified",
		fmt.Sprintf("%d were left unverified in all", m.Verdicts["unverified"]),
	)
	if m.UnverifiedRate.N == 0 || m.UnverifiedRate.Of != m.Verifications {
		t.Errorf("the demo's unverified rate %v: want some of the %d verifications", m.UnverifiedRate, m.Verifications)
	}
	if m.Coverage.Value != nil {
		p.has(t, "coverage", n(m.Coverage.N)+" of "+n(m.Coverage.Of)+" claims decided")
	} else {
		p.has(t, "coverage", "Claim coverage", "no claim ledger yet")
	}
	if m.Cost.TaskCostRatio == nil {
		t.Fatal("no task cost ratio in the demo")
	}
	p.has(t, "cost", fmt.Sprintf("over %d verifications whose task cost is known", m.Cost.Priced), "of the task's")

	// The verdicts by day: one row a day from since, each as the store
	// tallies that day, adding up to the window's.
	var total int64
	days := 0
	for day := since; day.Before(viewedAt); day = day.AddDate(0, 0, 1) {
		end := day.AddDate(0, 0, 1)
		if end.After(viewedAt) {
			end = viewedAt
		}
		wt, err := s.st.Tally(t.Context(), tenant, store.Window{Since: day, Until: end})
		if err != nil {
			t.Fatal(err)
		}
		var all store.Tally
		for i := range wt.Groups {
			all.Merge(&wt.Groups[i].Tally)
		}
		p.has(t, "the verdicts of "+day.Format("2006-01-02"), row(day.Format("2006-01-02"), n(all.Pass), n(all.Retry), n(all.Fail), n(all.Unverified),
			n(all.Pass+all.Retry+all.Fail+all.Unverified)))
		total += all.N
		days++
	}
	if days != 30 || total != m.Verifications {
		t.Errorf("%d days adding up to %d verifications, want 30 and %d", days, total, m.Verifications)
	}
	if c := strings.Count(p.body, `class="chart-seg`); c == 0 {
		t.Error("no bar drawn")
	}

	// The alerts, as the rules evaluate the metrics.
	statuses, err := alertsOf(s.st)(t.Context(), tenant)
	if err != nil || len(statuses) == 0 {
		t.Fatalf("alerts: %d, %v", len(statuses), err)
	}
	for _, a := range statuses {
		p.has(t, "alert "+a.Name, html.EscapeString(a.Message))
	}
}

func TestQualityShowsTheMetrics(t *testing.T) {
	s := seeded(t)
	for _, days := range []int{7, 30, 90} {
		win := store.Window{Since: viewedAt.Add(-time.Duration(days) * 24 * time.Hour), Until: viewedAt}
		m, err := quality.FromStore(t.Context(), s.st, tenant, win)
		if err != nil {
			t.Fatal(err)
		}
		labels, err := s.st.Labels(t.Context(), tenant, win)
		if err != nil {
			t.Fatal(err)
		}
		p := s.get(fmt.Sprintf("/quality?days=%d", days))
		what := fmt.Sprintf("%d days", days)
		if p.status != http.StatusOK {
			t.Fatalf("%s: %d", what, p.status)
		}
		p.has(t, what, fmt.Sprintf(`<option value="%d" selected>`, days), fmt.Sprintf("%d verifications", m.Verifications))
		if m.UnverifiedRate.Value != nil {
			p.has(t, what+": unverified", n(m.UnverifiedRate.N)+" of "+n(m.UnverifiedRate.Of)+" verifications were left unverified")
		}
		if ul := m.UnverifiedLabels; ul.Good+ul.Bad > 0 {
			p.has(t, what+": unverified labels", n(ul.Good)+" of "+n(ul.Good+ul.Bad)+" labelled unverified outputs were good")
		}
		for _, b := range m.Confidence {
			p.has(t, what+": confidence", row(chart.Num(b.From)+" to "+chart.Num(b.To), n(b.N)))
		}
		samples := quality.LabelledSamples(labels)
		p.has(t, what, fmt.Sprintf("%d of them labelled", len(samples)))
		for _, b := range quality.Reliability(samples) {
			p.has(t, what+": reliability", row(chart.Num(b.Low)+" to "+chart.Num(b.High), chart.Num(chart.Value(b.MeanConfidence)),
				chart.Num(chart.Value(b.Accuracy)), chart.Num(float64(b.Count))))
		}
		if days == 30 && len(m.FailurePatterns) < 5 {
			t.Fatalf("%d failure patterns in the demo", len(m.FailurePatterns))
		}
		for _, fp := range m.FailurePatterns {
			p.has(t, what+": pattern", `<th scope="row" class="mono">`+fp.Code+`</th>`, fmt.Sprintf(`<td class="num">%d</td>`, fp.Count))
			for _, ex := range fp.Examples {
				id, attempt, _ := strings.Cut(ex, "/")
				p.has(t, what+": example", `href="/verifications/`+id+`?attempt=`+attempt+`"`)
			}
		}
		// Score by complexity: every bin a row; the demo's tasks write
		// criteria of several counts, and some of its tasks are retried.
		known, retried := 0, int64(0)
		for _, b := range m.ScoreByComplexity {
			if b.N > 0 {
				known++
			}
			p.has(t, what+": complexity", fmt.Sprintf(`class="mono">%s</th><td class="num">%d</td>`, strings.ReplaceAll(web.ComplexitySpan(b), "+", "&#43;"), b.N))
			if b.MeanScore != nil {
				p.has(t, what+": mean score", fmt.Sprintf(`<td class="num">%.2f over %s scored</td>`, *b.MeanScore, n(b.Scored)))
			}
		}
		for _, r := range m.RetrySuccessByIssue {
			retried += r.RetrySuccess.Of
			cell := "not retried"
			if r.RetrySuccess.Value != nil {
				cell = n(r.RetrySuccess.N) + " of " + n(r.RetrySuccess.Of) + " retried"
			}
			p.has(t, what+": issue", `<th scope="row" class="mono">`+r.Code+`</th>`, cell)
		}
		if days == 30 && (known < 2 || retried == 0) {
			t.Errorf("the demo's 30 days: %d complexity bins with verifications, %d tasks retried; want 2 or more, and some", known, retried)
		}
		for _, b := range m.SelfAssessment {
			bias := fmt.Sprintf("%+.2f", b.Bias)
			if bias == "+0.00" || bias == "-0.00" {
				bias = "0.00"
			}
			// The table's last cell; html/template writes "+" as &#43;.
			p.has(t, what+": bias", `<th scope="row" class="mono">`+b.ExecutorModel+`</th><td class="num">`+n(b.N)+`</td>`,
				`<td class="num">`+strings.ReplaceAll(bias, "+", "&#43;")+`</td></tr>`)
		}
	}
	for _, q := range []string{"days=13", "days=x"} {
		p := s.get("/quality?" + q)
		if p.status != http.StatusBadRequest {
			t.Errorf("%s: %d", q, p.status)
		}
		p.has(t, q, "Window: want 7, 30 or 90 days")
	}
}

func TestCalibrationPageAndPatch(t *testing.T) {
	s := seeded(t)
	win := store.Window{Since: viewedAt.Add(-30 * 24 * time.Hour), Until: viewedAt}
	samples, err := quality.Samples(t.Context(), s.st, tenant, win)
	if err != nil {
		t.Fatal(err)
	}
	pol := vouch.DefaultPolicy()
	c, err := quality.Calibrate(samples, &pol, quality.CalibrateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sg := c.WithWeights
	if sg == nil {
		sg = c.Thresholds
	}
	if sg == nil {
		t.Fatalf("the demo's calibration suggests nothing: %s", c.Message)
	}
	p := s.get("/calibration")
	if p.status != http.StatusOK {
		t.Fatalf("GET /calibration: %d", p.status)
	}
	p.has(t, "calibration", html.EscapeString(c.Message),
		fmt.Sprintf("%d labelled verifications (%d good, %d bad) of %d", c.Labels, c.Good, c.Bad, c.Samples),
		`<th scope="row">passAt</th><td>0.7</td>`,
		fmt.Sprintf("would have changed %d of %d past verdicts", sg.Changes.Changed, sg.Changes.Samples),
		fmt.Sprintf("made unverified: %d; unverified ones sent back: %d.", sg.Changes.ToUnverified, sg.Changes.FromUnverified),
		`href="/calibration/patch?days=30" download`,
		"in force 0.7")
	if c.Unverified == 0 {
		t.Errorf("the demo's calibration has no label on an unverified verdict")
	}
	p.has(t, "calibration", fmt.Sprintf("%d are on verdicts the gate left unverified", c.Unverified))
	if sg.PassAt != 0.7 {
		p.has(t, "calibration", fmt.Sprintf("suggested %v", sg.PassAt))
	}
	for _, pt := range sg.Curve {
		p.has(t, "curve", row(chart.Num(pt.PassAt), chart.Num(chart.Value(pt.CatchRate)), chart.Num(chart.Value(pt.FalseAlarmRate))))
	}
	for _, k := range c.Kinds {
		p.has(t, "kind "+k.Kind, "<h3>"+k.Kind+"</h3>", html.EscapeString(k.Message))
	}

	res := s.get("/calibration/patch?days=30")
	want, err := c.Patch()
	if err != nil {
		t.Fatal(err)
	}
	if res.status != http.StatusOK || res.body != string(want) {
		t.Errorf("patch: %d\n%s\nwant\n%s", res.status, res.body, want)
	}
	if cd := res.header.Get("Content-Disposition"); cd != `attachment; filename="calibrated-policy.yaml"` {
		t.Errorf("Content-Disposition %q", cd)
	}
	if ct := res.header.Get("Content-Type"); ct != "application/yaml" {
		t.Errorf("Content-Type %q", ct)
	}
	if res := s.get("/calibration/patch?days=2"); res.status != http.StatusBadRequest {
		t.Errorf("patch of a window not offered: %d", res.status)
	}
}

func TestPagesOfAnEmptyStore(t *testing.T) {
	s := newStatsSite(t, openStore(t))
	p := s.get("/")
	if p.status != http.StatusOK {
		t.Fatalf("GET /: %d\n%s", p.status, p.body)
	}
	p.has(t, "overview", "0 verifications.", "no first attempt yet", "no task sent back yet",
		`<dd class="value none">no labels yet</dd>`, "No verifications in the last 30 days", "no task cost reported yet", "No alert is firing.")
	if c := strings.Count(p.body, `<dd class="value none">no labels yet</dd>`); c != 2 {
		t.Errorf("%d rates say no labels yet, want the catch rate and the false-alarm rate", c)
	}
	for _, bad := range []string{">0%<", "NaN", "Inf"} {
		if strings.Contains(p.body, bad) {
			t.Errorf("overview: %q on an empty store", bad)
		}
	}

	q := s.get("/quality")
	if q.status != http.StatusOK {
		t.Fatalf("GET /quality: %d", q.status)
	}
	q.has(t, "quality", "0 verifications, 0 of them labelled", "No verifications in this window",
		"No labelled verifications in this window", "No failure codes in this window", "No executor reported its confidence in this window")

	c := s.get("/calibration")
	if c.status != http.StatusOK {
		t.Fatalf("GET /calibration: %d", c.status)
	}
	c.has(t, "calibration", "not enough labels", "Nothing suggested: not enough labels")
	if strings.Contains(c.body, "/calibration/patch") {
		t.Error("a patch is offered with nothing suggested")
	}
	patch := s.get("/calibration/patch")
	if patch.status != http.StatusConflict || strings.Contains(patch.header.Get("Content-Disposition"), "attachment") {
		t.Errorf("patch of nothing: %d %v", patch.status, patch.header)
	}
	patch.has(t, "patch of nothing", "There is no policy patch to download: not enough labels")
}

// hostile is text an agent or a caller controls that the pages show.
const hostile = `<script>alert("x")</script><img src=x onerror=alert(1)>`

// hostileRows stores verifications whose kind, executor model and
// failure code are hostile text, with a self-assessment and a label.
func hostileRows(t *testing.T, st store.Store) {
	t.Helper()
	var rows []*store.Verification
	for i := range 3 {
		score, self, cost := 0.4, 0.9, 0.02
		rows = append(rows, &store.Verification{Tenant: tenant, ID: fmt.Sprintf("evil-%d", i), Attempt: 1,
			IdempotencyKey: fmt.Sprintf("evil-%d/1", i), RequestHash: "h", Kind: hostile, Verdict: "retry", Action: "retry",
			Score: &score, Confidence: 0.8, ExecutorModel: hostile, Codes: []string{hostile}, SelfConfidence: &self,
			TaskCostUSD: &cost, CostUSD: 0.001, VerdictRow: 4, Result: []byte("{}"), CreatedAt: seededAt.Add(-time.Duration(i+1) * time.Hour)})
	}
	if _, err := st.Import(t.Context(), rows); err != nil {
		t.Fatal(err)
	}
	if err := st.AddOverride(t.Context(), &store.Override{Tenant: tenant, VerificationID: "evil-0", Verdict: "pass", Reviewer: hostile, Reason: hostile}); err != nil {
		t.Fatal(err)
	}
}

func TestPagesEscape(t *testing.T) {
	st := openStore(t)
	hostileRows(t, st)
	s := newStatsSite(t, st)
	for _, path := range []string{"/", "/quality", "/calibration"} {
		p := s.get(path)
		if p.status != http.StatusOK {
			t.Fatalf("%s: %d", path, p.status)
		}
		// The tags are there only escaped, as text.
		for _, raw := range []string{"<script>alert", "<img src=x"} {
			if strings.Contains(p.body, raw) {
				t.Errorf("%s: %q is in the page unescaped", path, raw)
			}
		}
	}
	q := s.get("/quality")
	q.has(t, "quality", "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;")
	o := s.get("/")
	o.has(t, "overview", `<th scope="row">&lt;script&gt;`)
}
