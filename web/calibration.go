package web

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/quality"
	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/web/chart"
)

// patchFilename is the name the policy patch downloads as, the API's.
const patchFilename = "calibrated-policy.yaml"

// calibrationData is the calibration page's.
type calibrationData struct {
	Window windowForm
	// Error says what is wrong with the window asked for (the page is
	// then a 400).
	Error string
	// C is the calibration, as GET /v1/calibration answers it.
	C *quality.Calibration
	// Suggested is the suggestion the patch holds: C.WithWeights when
	// there is one, else C.Thresholds; nil when nothing is suggested.
	Suggested   *quality.Suggestion
	WithWeights bool
	// Curve is the trade-off of passAt under the suggestion.
	Curve chart.Curves
	// Compare sets the policy in force beside the suggestion.
	Compare []compareRow
	// Kinds are the weight fits, by kind.
	Kinds []kindView
	// PatchURL downloads the suggestion as a policy file.
	PatchURL string
	// Correlation is the scores' correlation with the labels, in words.
	Correlation string
}

// compareRow is one setting, in force and suggested.
type compareRow struct {
	Name, Current, Suggested string
	Changed                  bool
}

// kindView is the weight fit of one kind.
type kindView struct {
	Kind, Message               string
	Labels, Fitted, Good, Bad   int
	Enough, Changed, HasWeights bool
	Dims                        []dimWeight
}

// dimWeight is one dimension's weight, in force and fitted.
type dimWeight struct {
	Dim, Base, Fitted string
	Changed           bool
}

// calibrationWindow reads the window of the calibration pages.
func (h *Handler) calibrationWindow(r *http.Request) (windowForm, string) {
	days, problem := parseWindowDays(r.URL.Query())
	until := h.now().UTC()
	return windowForm{Days: days, Choices: windowDays, Since: until.Add(-time.Duration(days) * 24 * time.Hour), Until: until}, problem
}

// calibrate fits the server's policy to the labels of the window, as GET
// /v1/calibration does. It answers a failure itself and then returns
// false: the store's (503), or the calibration's own (500: a stored
// verdict calibration does not know).
func (h *Handler) calibrate(w http.ResponseWriter, r *http.Request, win windowForm) (*quality.Calibration, bool) {
	ctx := r.Context()
	samples, err := quality.Samples(ctx, h.st, principalOf(ctx).Tenant, store.Window{Since: win.Since, Until: win.Until})
	if err != nil {
		h.storeFailed(w, r, "reading the labelled verifications", err)
		return nil, false
	}
	c, err := quality.Calibrate(samples, &h.policy, quality.CalibrateOptions{})
	if err != nil {
		h.log.Error("dashboard: calibration", "err", err)
		h.fail(w, r, http.StatusInternalServerError, "The calibration could not be made: "+err.Error())
		return nil, false
	}
	return c, true
}

// handleCalibration shows what the labels of a window say of the policy:
// the trade-off of passAt, the thresholds and weights that would have
// agreed best with the labels beside those in force, and the patch to
// download. Nothing is applied.
func (h *Handler) handleCalibration(w http.ResponseWriter, r *http.Request) {
	win, problem := h.calibrationWindow(r)
	d := calibrationData{Window: win}
	if problem != "" {
		d.Error = problem
		h.render(w, r, http.StatusBadRequest, "calibration", d)
		return
	}
	c, ok := h.calibrate(w, r, win)
	if !ok {
		return
	}
	d.C = c
	d.Suggested, d.WithWeights = c.Thresholds, false
	if c.WithWeights != nil {
		d.Suggested, d.WithWeights = c.WithWeights, true
	}
	d.Correlation = correlationText(c.Correlation)
	d.Curve = chart.Curves{ID: "tradeoff", Title: "Catch rate and false-alarm rate against passAt", XLabel: "passAt",
		YLabel: "rate", Empty: "Nothing suggested: " + c.Message}
	if s := d.Suggested; s != nil {
		catch := chart.Line{Name: "catch rate", Tone: chart.ToneInfo}
		alarms := chart.Line{Name: "false-alarm rate (of the good)", Tone: chart.ToneBad}
		for _, p := range s.Curve {
			catch.Points = append(catch.Points, chart.Point{X: p.PassAt, Y: chart.Value(p.CatchRate)})
			alarms.Points = append(alarms.Points, chart.Point{X: p.PassAt, Y: chart.Value(p.FalseAlarmRate)})
		}
		d.Curve.Lines = []chart.Line{catch, alarms}
		d.Curve.Marks = []chart.Mark{{X: c.Base.PassAt, Label: "in force " + num(c.Base.PassAt)}}
		if s.PassAt != c.Base.PassAt {
			d.Curve.Marks = append(d.Curve.Marks, chart.Mark{X: s.PassAt, Label: "suggested " + num(s.PassAt)})
		}
		d.Compare = []compareRow{
			{Name: "passAt", Current: num(c.Base.PassAt), Suggested: num(s.PassAt), Changed: s.PassAt != c.Base.PassAt},
			{Name: "failBelow", Current: num(c.Base.FailBelow), Suggested: num(s.FailBelow), Changed: s.FailBelow != c.Base.FailBelow},
			{Name: "Disagreement with the labels", Current: disagreement(s.Disagreement.Before, s.Disagreement.BeforeRate),
				Suggested: disagreement(s.Disagreement.After, s.Disagreement.AfterRate), Changed: s.Disagreement.After != s.Disagreement.Before},
			{Name: "Correlation of score and label", Current: correlationText(c.Correlation), Suggested: correlationText(s.Correlation),
				Changed: d.WithWeights},
		}
		d.PatchURL = "/calibration/patch?days=" + strconv.Itoa(win.Days)
	}
	for _, k := range c.Kinds {
		kv := kindView{Kind: k.Kind, Message: k.Message, Labels: k.Labels, Fitted: k.Fitted, Good: k.Good, Bad: k.Bad,
			Enough: k.Enough, Changed: k.Changed, HasWeights: k.Weights != nil}
		for _, dim := range vouch.Dimensions(vouch.Kind(k.Kind)) {
			dw := dimWeight{Dim: dim, Base: "not weighted", Fitted: "not fitted"}
			if b, ok := k.Base[dim]; ok {
				dw.Base = num(b)
			}
			if f, ok := k.Weights[dim]; ok {
				dw.Fitted = num(f)
				dw.Changed = dw.Fitted != dw.Base
			}
			kv.Dims = append(kv.Dims, dw)
		}
		d.Kinds = append(d.Kinds, kv)
	}
	h.render(w, r, http.StatusOK, "calibration", d)
}

// handleCalibrationPatch answers the suggestion as a policy file to
// download, as GET /v1/calibration?format=patch does; when nothing is
// suggested, a page saying why (409).
func (h *Handler) handleCalibrationPatch(w http.ResponseWriter, r *http.Request) {
	win, problem := h.calibrationWindow(r)
	if problem != "" {
		h.fail(w, r, http.StatusBadRequest, problem+".")
		return
	}
	c, ok := h.calibrate(w, r, win)
	if !ok {
		return
	}
	patch, err := c.Patch()
	if errors.Is(err, quality.ErrNothingSuggested) {
		h.fail(w, r, http.StatusConflict, "There is no policy patch to download: "+c.Message+".")
		return
	}
	if err != nil {
		h.log.Error("dashboard: the policy patch", "err", err)
		h.fail(w, r, http.StatusInternalServerError, "The policy patch could not be written.")
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/yaml")
	hd.Set("Content-Disposition", `attachment; filename="`+patchFilename+`"`)
	hd.Set("Cache-Control", "no-store")
	hd.Set("Content-Length", strconv.Itoa(len(patch)))
	w.WriteHeader(http.StatusOK)
	w.Write(patch)
}

// num formats a threshold or weight as the policy file writes it.
func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// disagreement says a disagreement with the labels and its rate.
func disagreement(n float64, rate *float64) string {
	if rate == nil {
		return num(n)
	}
	return num(n) + " (" + percent(*rate) + " of the labels)"
}

// correlationText says a correlation with its target.
func correlationText(c quality.Correlation) string {
	if c.Value == nil {
		return "n/a (" + strconv.Itoa(c.N) + " labelled scores)"
	}
	t := strconv.FormatFloat(*c.Value, 'f', 2, 64) + " over " + strconv.Itoa(c.N) + " labelled scores"
	if c.Met {
		return t + ", at or above the target " + num(c.Target)
	}
	return t + ", below the target " + num(c.Target)
}
