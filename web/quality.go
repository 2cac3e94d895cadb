package web

import (
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/quality"
	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/web/chart"
)

// qualityData is the quality page's.
type qualityData struct {
	Window windowForm
	// Error says what is wrong with the window asked for (the page is
	// then a 400, without figures).
	Error string
	// M are the metrics of the window, as GET /v1/metrics computes them.
	M *api.Metrics
	// Confidence and Score are the histograms of the verifications.
	Confidence, Score chart.Histogram
	// Reliability is the reliability diagram of the labelled
	// verifications; Labelled counts them.
	Reliability chart.Reliability
	Labelled    int
	// Codes charts the failure patterns; Patterns lists them with their
	// examples.
	Codes    chart.HBars
	Patterns []patternView
	// Bias charts the executors' self-assessment bias; M.SelfAssessment
	// lists it.
	Bias chart.HBars
	// Reviews are the reviewers' override rate and their agreement with
	// the gate.
	Reviews []figure
	// Claims are the unverified rate, the claims' coverage, and what the
	// labels said of the outputs left unverified.
	Claims []figure
	// Complexity charts the mean score by task complexity; Complexities
	// lists it with the pass rates.
	Complexity   chart.HBars
	Complexities []complexityRow
	// Issues charts retry success by issue type; IssueRows lists it.
	Issues    chart.HBars
	IssueRows []issueRow
}

// complexityRow is one bin of score by complexity, as the table shows it:
// every cell says something, a figure or why there is none.
type complexityRow struct {
	// Span names the bin ("0", "2-3", "8+"); N counts its verifications.
	Span string
	N    int64
	// Mean is the mean score with what it rests on, Passed the pass rate.
	Mean, Passed string
}

// issueRow is one issue of retry success by issue type.
type issueRow struct {
	Code, Meaning string
	SentBack      int64
	// Success is the retry success with its counts, or why there is none.
	Success string
}

// complexitySpan names a complexity bin: "0", "2-3", "8+".
func complexitySpan(b api.ComplexityBin) string {
	switch {
	case b.To == nil:
		return strconv.Itoa(b.From) + "+"
	case *b.To == b.From:
		return strconv.Itoa(b.From)
	}
	return strconv.Itoa(b.From) + "-" + strconv.Itoa(*b.To)
}

// complexityAndIssues fills the charts of score by complexity and of
// retry success by issue type.
func (d *qualityData) complexityAndIssues(m *api.Metrics) {
	d.Complexity = chart.HBars{ID: "complexity", Title: "Mean score by task complexity", XLabel: "mean score",
		Category: "criteria or subgoals", Tone: chart.ToneInfo, Empty: "No verification in this window has a known complexity"}
	scored := false
	for _, b := range m.ScoreByComplexity {
		row := complexityRow{Span: complexitySpan(b), N: b.N, Mean: "no score", Passed: "none verified"}
		v := math.NaN()
		if b.MeanScore != nil {
			v, scored = *b.MeanScore, true
			row.Mean = strconv.FormatFloat(v, 'f', 2, 64) + " over " + chart.Num(float64(b.Scored)) + " scored"
		}
		if r := b.Pass; r.Value != nil {
			row.Passed = percent(*r.Value) + " (" + chart.Num(float64(r.N)) + " of " + chart.Num(float64(r.Of)) + ")"
		}
		d.Complexities = append(d.Complexities, row)
		d.Complexity.Bars = append(d.Complexity.Bars, chart.HBar{Label: row.Span, Value: v,
			Note: chart.Num(float64(b.N)) + " verifications, " + chart.Num(float64(b.Scored)) + " scored"})
	}
	if !scored {
		d.Complexity.Bars = nil
	}
	d.Issues = chart.HBars{ID: "issues", Title: "Retry success by issue type", XLabel: "retried tasks that ended in a pass",
		Category: "first failure code", Tone: chart.ToneGood, Empty: "No task was retried in this window"}
	for _, r := range m.RetrySuccessByIssue {
		row := issueRow{Code: r.Code, Meaning: r.Meaning, SentBack: r.SentBack, Success: "not retried"}
		if v := r.RetrySuccess.Value; v != nil {
			row.Success = percent(*v) + " (" + chart.Num(float64(r.RetrySuccess.N)) + " of " + chart.Num(float64(r.RetrySuccess.Of)) + " retried)"
		}
		d.IssueRows = append(d.IssueRows, row)
		if r.RetrySuccess.Value == nil {
			continue
		}
		d.Issues.Bars = append(d.Issues.Bars, chart.HBar{Label: r.Code, Value: *r.RetrySuccess.Value,
			Note: chart.Num(float64(r.RetrySuccess.N)) + " of " + chart.Num(float64(r.RetrySuccess.Of)) + " retried tasks"})
	}
}

// patternView is a failure code with links to its latest examples.
type patternView struct {
	Code, Meaning string
	Count         int64
	Examples      []exampleLink
}

// exampleLink is a link to one attempt of a verification.
type exampleLink struct {
	Text, URL string
}

// exampleOf links an example of a pattern, "id/attempt" as the metrics
// give it (an id may hold slashes of its own).
func exampleOf(ref string) exampleLink {
	i := strings.LastIndexByte(ref, '/')
	attempt, err := strconv.Atoi(ref[i+1:])
	if i < 0 || err != nil || attempt < 1 {
		// Not id/attempt: the id's latest attempt.
		return exampleLink{Text: ref, URL: "/verifications/" + url.PathEscape(ref)}
	}
	return exampleLink{Text: ref[:i] + " attempt " + ref[i+1:], URL: verificationURL(ref[:i], attempt)}
}

// handleQuality shows whether the gate is right over a window (7, 30 or
// 90 days back from now): the confidence and score histograms, the
// reliability of the confidence against the labels, the failure patterns
// with examples, and how far each executor model rates itself above what
// was verified.
func (h *Handler) handleQuality(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	tenant := principalOf(ctx).Tenant
	days, problem := parseWindowDays(r.URL.Query())
	until := h.now().UTC()
	d := qualityData{Window: windowForm{Days: days, Choices: windowDays, Since: until.Add(-time.Duration(days) * 24 * time.Hour), Until: until}}
	if problem != "" {
		d.Error = problem
		h.render(w, r, http.StatusBadRequest, "quality", d)
		return
	}
	// The metrics as quality.FromStore computes them, from the same reads,
	// whose labels also make the reliability diagram: one read of them.
	win := store.Window{Since: d.Window.Since, Until: until}
	tally, err := h.st.Tally(ctx, tenant, win)
	if err != nil {
		h.storeFailed(w, r, "computing the metrics", err)
		return
	}
	labels, err := h.st.Labels(ctx, tenant, win)
	if err != nil {
		h.storeFailed(w, r, "reading the labels", err)
		return
	}
	m := quality.Compute(api.Window{Since: win.Since, Until: win.Until}, tally, labels)
	d.M = m
	d.Confidence = histogram("confidence", "Confidence of the verifications", "confidence", m.Confidence)
	d.Score = histogram("score", "Score of the verifications", "score", m.Score)

	samples := quality.LabelledSamples(labels)
	d.Labelled = len(samples)
	d.Reviews = reviewFigures(m.Reviews)
	d.Claims = claimFigures(m)
	d.Reliability = chart.Reliability{ID: "reliability", Title: "Reliability of the confidence", XLabel: "confidence",
		YLabel: "verdict agreed with the label", Empty: "No labelled verifications in this window"}
	for _, b := range quality.Reliability(samples) {
		d.Reliability.Points = append(d.Reliability.Points, chart.ReliabilityPoint{Low: b.Low, High: b.High,
			Predicted: chart.Value(b.MeanConfidence), Observed: chart.Value(b.Accuracy), N: b.Count})
	}

	d.Codes = chart.HBars{ID: "codes", Title: "Failure codes", XLabel: "verifications that raised it", Category: "code",
		Tone: chart.ToneBad, Empty: "No failure codes in this window"}
	for _, p := range m.FailurePatterns {
		d.Codes.Bars = append(d.Codes.Bars, chart.HBar{Label: p.Code, Value: float64(p.Count), Note: p.Meaning})
		pv := patternView{Code: p.Code, Meaning: p.Meaning, Count: p.Count}
		for _, ex := range p.Examples {
			pv.Examples = append(pv.Examples, exampleOf(ex))
		}
		d.Patterns = append(d.Patterns, pv)
	}

	d.complexityAndIssues(m)

	d.Bias = chart.HBars{ID: "bias", Title: "Self-assessment bias by executor model", XLabel: "self-reported confidence minus verified score",
		Category: "executor model", Tone: chart.ToneWarn, NegTone: chart.ToneInfo, Neg: "rates itself lower", Pos: "rates itself higher",
		Empty: "No executor reported its confidence in this window"}
	for _, b := range m.SelfAssessment {
		name := b.ExecutorModel
		if name == "" {
			name = "(no model named)"
		}
		d.Bias.Bars = append(d.Bias.Bars, chart.HBar{Label: name, Value: b.Bias, Note: "over " + chart.Num(float64(b.N)) + " verifications"})
	}
	h.render(w, r, http.StatusOK, "quality", d)
}

// histogram charts ten bins of the metrics.
func histogram(id, title, x string, bins []api.Bin) chart.Histogram {
	c := chart.Histogram{ID: id, Title: title, XLabel: x, YLabel: "verifications", Tone: chart.ToneInfo,
		Empty: "No verifications in this window"}
	for _, b := range bins {
		c.Bins = append(c.Bins, chart.Bin{From: b.From, To: b.To, Count: float64(b.N)})
	}
	return c
}

// claimFigures are the quality page's figures of the claims and the
// verdict unverified: how often the gate left an output unverified, how
// much of what the outputs claimed it decided, and how the outputs it
// left unverified held up where a label says.
func claimFigures(m *api.Metrics) []figure {
	ul := m.UnverifiedLabels
	return []figure{
		unverifiedFigure(m),
		coverageFigure(m),
		rateFigure("Unverified outputs that held up", "Of the outputs the gate left unverified and a reviewer or an outcome labelled, those labelled good. They count neither in the catch rate nor as false alarms.",
			quality.NewRate(ul.Good, ul.Good+ul.Bad), func(n, of string) string {
				return n + " of " + of + " labelled unverified outputs were good"
			}, "no unverified output labelled yet"),
	}
}

// reviewFigures are the quality page's figures of the reviews: how often
// a reviewer overrode the gate, and how often one kept its verdict.
func reviewFigures(r api.Reviews) []figure {
	return []figure{
		rateFigure("Overridden", "Verifications whose verdict a reviewer changed, of all verifications.", r.Rate,
			func(n, of string) string { return n + " of " + of + " verifications overridden" }, "no verifications yet"),
		rateFigure("Agreement", "Reviewed verifications whose latest override kept the gate's verdict.", r.Agreement,
			func(n, of string) string { return n + " of " + of + " reviewed verifications kept their verdict" }, "nothing reviewed yet"),
	}
}
