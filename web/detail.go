package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/quality"
	"github.com/vouchgate/vouch/store"
)

// maxAttemptColumns bounds the attempts shown side by side (the latest
// ones).
const maxAttemptColumns = 8

// detailData is the page of one verification.
type detailData struct {
	V *store.Verification
	// Report is the stored report; ReportError says why it could not be
	// read, when it could not.
	Report      vouch.Report
	ReportError string
	// Why is the verdict table's deciding row, in words.
	Why string
	// Claims is the report's claim ledger, each claim with links to the
	// checks that decided it or tried to; Ledger says what it adds up to
	// (or that the report has none).
	Claims []claimRow
	Ledger string
	// Goal and TaskID come from the stored request.
	Goal, TaskID string
	// Output is the agent's output split around its mentions;
	// OutputNote says why there is none.
	Output     []segment
	OutputNote string
	Dimensions []dimensionRow
	Attempts   []attemptColumn
	Overrides  []store.Override
	// CanReview is whether the principal may override; Form is the
	// override form as last sent (with its problem). Verdicts are those a
	// person may give: pass, retry or fail.
	CanReview bool
	Form      overrideForm
	Verdicts  []string
}

// claimRow is one claim of the ledger as the detail page shows it.
type claimRow struct {
	vouch.Claim
	// Checks link the checks that decided the claim (or, for an
	// unverified one, tried to), by their index in the report's checks.
	Checks []checkLink
}

// checkLink links a check of the report by its index.
type checkLink struct {
	Index int
	Name  string
}

// checkAnchor is the id of a check's row on the detail page.
func checkAnchor(i int) string { return "check-" + strconv.Itoa(i) }

// claimRows are the ledger's claims, with the checks they cite; an index
// the report does not have is left out.
func claimRows(rep *vouch.Report) []claimRow {
	out := make([]claimRow, 0, len(rep.Claims))
	for _, c := range rep.Claims {
		r := claimRow{Claim: c}
		for _, i := range c.Checks {
			if i >= 0 && i < len(rep.Checks) {
				r.Checks = append(r.Checks, checkLink{Index: i, Name: rep.Checks[i].Name})
			}
		}
		out = append(out, r)
	}
	return out
}

// ledgerSummary says what the ledger adds up to: its claims by state and
// the coverage; or that the report has no ledger.
func ledgerSummary(rep *vouch.Report) string {
	if rep.Claims == nil {
		return "This report was made before vouch kept a claim ledger: its claims were not listed."
	}
	if len(rep.Claims) == 0 {
		return "The output makes no claim."
	}
	var verified, refuted, unverified int
	for _, c := range rep.Claims {
		switch c.State {
		case vouch.ClaimVerified:
			verified++
		case vouch.ClaimRefuted:
			refuted++
		default:
			unverified++
		}
	}
	n := len(rep.Claims)
	return fmt.Sprintf("%d claim%s: %d verified, %d refuted, %d unverified; %d of %d decided (coverage %s).",
		n, plural(n), verified, refuted, unverified, verified+refuted, n, percent(float64(verified+refuted)/float64(n)))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// overrideForm is the override form's fields.
type overrideForm struct {
	Verdict, Reason, Error string
}

// dimensionRow is one dimension of the report, in name order.
type dimensionRow struct {
	Name string
	vouch.Dimension
}

// handleDetail shows one verification; ?attempt=N picks an attempt
// (default the latest).
func (h *Handler) handleDetail(w http.ResponseWriter, r *http.Request) {
	attempt, ok := attemptParam(r.URL.Query().Get("attempt"))
	if !ok {
		h.fail(w, r, http.StatusBadRequest, "attempt: want a positive whole number.")
		return
	}
	h.showDetail(w, r, r.PathValue("id"), attempt, http.StatusOK, overrideForm{})
}

// attemptParam reads an attempt number; "" is 0, the latest.
func attemptParam(v string) (int, bool) {
	if v == "" {
		return 0, true
	}
	n, err := strconv.Atoi(v)
	return n, err == nil && n >= 1 && n <= 1_000_000
}

// showDetail draws the page of a verification's attempt with the
// override form as given.
func (h *Handler) showDetail(w http.ResponseWriter, r *http.Request, id string, attempt, status int, form overrideForm) {
	ctx := r.Context()
	p := principalOf(ctx)
	v, err := h.st.Get(ctx, p.Tenant, id, attempt)
	if errors.Is(err, store.ErrNotFound) {
		h.fail(w, r, http.StatusNotFound, notFound(id, attempt))
		return
	}
	if err != nil {
		h.storeFailed(w, r, "reading the verification", err)
		return
	}
	d := detailData{V: v, CanReview: p.Has(store.ScopeReview), Form: form, Verdicts: reviewerVerdicts}
	if d.Form.Verdict == "" && quality.ReviewerVerdict(v.Verdict) {
		// The gate's verdict, to keep or change; an unverified one has
		// none a person may give: the form asks for a choice.
		d.Form.Verdict = v.Verdict
	}
	if err := json.Unmarshal(v.Result, &d.Report); err != nil {
		d.ReportError = "The stored report could not be read: " + err.Error()
	}
	// A report read back has a claim list (empty or not) when the engine
	// kept a ledger; one made before has none, and its row is of the
	// six-row table.
	ledger := d.Report.Claims != nil || d.ReportError != "" && v.Ledger != nil
	d.Why = h.verdictRow(v.VerdictRow, d.Report.VerdictRow, vouch.Verdict(v.Verdict), ledger)
	d.Claims = claimRows(&d.Report)
	if d.ReportError == "" {
		d.Ledger = ledgerSummary(&d.Report)
	}
	for name, dim := range d.Report.Dimensions {
		d.Dimensions = append(d.Dimensions, dimensionRow{name, dim})
	}
	slices.SortFunc(d.Dimensions, func(a, b dimensionRow) int { return strings.Compare(a.Name, b.Name) })
	d.readRequest(v)
	if d.Overrides, err = h.st.Overrides(ctx, p.Tenant, v.ID, v.Attempt); err != nil {
		h.storeFailed(w, r, "reading the overrides", err)
		return
	}
	if d.Attempts, err = h.attempts(r, v); err != nil {
		h.storeFailed(w, r, "reading the other attempts", err)
		return
	}
	h.render(w, r, status, "verification", d)
}

// notFound says that a verification is not in the tenant's log.
func notFound(id string, attempt int) string {
	if len(id) > 80 {
		id = id[:80] + "…"
	}
	if attempt > 0 {
		return fmt.Sprintf("There is no verification %q with attempt %d.", id, attempt)
	}
	return fmt.Sprintf("There is no verification %q.", id)
}

// readRequest takes what the page shows from the stored request: the
// goal, the task and the output, split around the report's mentions.
func (d *detailData) readRequest(v *store.Verification) {
	d.Goal, d.TaskID = v.Goal, v.TaskID
	if v.Request == nil {
		if v.RequestBytes > 0 {
			d.OutputNote = fmt.Sprintf("The request (%d bytes) was over the server's cap for stored requests, so its output was not kept.", v.RequestBytes)
		} else {
			d.OutputNote = "The request was not stored, so its output cannot be shown."
		}
		return
	}
	var req struct {
		Task struct {
			ID   string `json:"id"`
			Goal string `json:"goal"`
		} `json:"task"`
		Output struct {
			Summary string `json:"summary"`
		} `json:"output"`
	}
	if err := json.Unmarshal(v.Request, &req); err != nil {
		d.OutputNote = "The stored request could not be read: " + err.Error()
		return
	}
	if d.Goal == "" {
		d.Goal = req.Task.Goal
	}
	if d.TaskID == "" {
		d.TaskID = req.Task.ID
	}
	if req.Output.Summary == "" {
		d.OutputNote = "The output's summary is empty."
		return
	}
	d.Output = highlight(req.Output.Summary, d.Report.Mentions)
}

// verdictRow says a row of the verdict table in words, with the server's
// thresholds (a task may set its own): a row of the seven-row table, or,
// for a report without a claim ledger (made before vouch kept one), of
// the six-row table that decided it.
func (h *Handler) verdictRow(stored, reported int, verdict vouch.Verdict, ledger bool) string {
	row := stored
	if row == 0 {
		row = reported
	}
	pol := h.policy
	if !ledger {
		return sixRowWords(row, verdict, &pol)
	}
	switch row {
	case 1:
		return fmt.Sprintf("Row 1: a must-pass check failed (a claim refuted by the evidence, an explicit criterion unmet), or more than %d mentions are refuted; it is sent back for a retry while attempts remain (attempt ≤ %d), and fails after.", pol.MaxRefuted, pol.MaxRetries)
	case 2:
		return fmt.Sprintf("Row 2: the score is below failBelow (%.2f), so it fails and a person must look (escalate).", pol.FailBelow)
	case 3:
		return fmt.Sprintf("Row 3: the score is below passAt (%.2f); it is sent back for a retry while attempts remain (reformulated when the verifier's confidence is below %.1f), and fails after.", pol.PassAt, engine.ReformulateBelow)
	case 4:
		return "Row 4: a must-pass criterion was left undecided, so it fails (a must-pass item never passes undecided)."
	case 5:
		return "Row 5: the output tried to steer its verifier (prompt injection), so it is never accepted: it fails and a person must look (escalate)."
	case 6:
		if verdict == vouch.VerdictFail {
			return "Row 6: nothing was found false, but claims could not be checked (or nothing could be decided), and the policy's onUnverified makes that fail."
		}
		return fmt.Sprintf("Row 6: nothing was found false, but claims could not be checked either way (or nothing could be decided): unverified, handled as the policy's onUnverified (%s) says.", pol.OnUnverified)
	case 7:
		return fmt.Sprintf("Row 7: every claim was checked and holds, so it passes (with a follow-up when completeness is below %.1f and gaps remain).", engine.FollowUpBelow)
	}
	return "The report does not say which row of the verdict table decided."
}

// sixRowWords says a row of the six-row verdict table, by which the
// verifications made before the claim ledger were decided.
func sixRowWords(row int, verdict vouch.Verdict, pol *vouch.Policy) string {
	const before = " (the six-row verdict table of the time: this report was made before vouch kept a claim ledger)"
	switch row {
	case 1:
		return "Row 1" + before + ": nothing could be decided, so it failed (fail closed); today nothing decided is unverified."
	case 2:
		return fmt.Sprintf("Row 2"+before+": a must-pass check failed, or too many mentions could not be verified; it was sent back for a retry while attempts remained (attempt ≤ %d), and failed after.", pol.MaxRetries)
	case 3:
		return fmt.Sprintf("Row 3"+before+": the score is below failBelow (%.2f), so it failed.", pol.FailBelow)
	case 4:
		return fmt.Sprintf("Row 4"+before+": the score is below passAt (%.2f); it was sent back for a retry while attempts remained, and failed after.", pol.PassAt)
	case 5:
		return "Row 5" + before + ": a must-pass criterion was left undecided, so it failed."
	case 6:
		if verdict == vouch.VerdictFail {
			return "Row 6" + before + ": the output tried to steer its verifier (prompt injection), so it failed and a person must look."
		}
		return "Row 6" + before + ": every decided part held, so it passed; claims nothing decided were not told apart then."
	}
	return "The report does not say which row of the verdict table decided."
}

// attemptColumn is one attempt of a verification, beside the others,
// with what changed since the attempt before it.
type attemptColumn struct {
	Attempt    int
	URL        string
	Current    bool
	Missing    bool
	Verdict    string
	Action     string
	Score      *float64
	Confidence float64
	CreatedAt  time.Time
	Changes    []string
}

// attempts reads the attempts of v's id (the latest few) and says what
// changed between each and the one before.
func (h *Handler) attempts(r *http.Request, v *store.Verification) ([]attemptColumn, error) {
	ctx := r.Context()
	tenant := principalOf(ctx).Tenant
	latest := v
	var err error
	if latest, err = h.st.Get(ctx, tenant, v.ID, 0); err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	if latest == nil {
		latest = v
	}
	if latest.Attempt <= 1 {
		return nil, nil
	}
	from := max(1, latest.Attempt-maxAttemptColumns+1)
	var (
		cols []attemptColumn
		prev *vouch.Report
	)
	// The attempt before the first column, to say what the first changed.
	if from > 1 {
		if pv, err := h.st.Get(ctx, tenant, v.ID, from-1); err == nil {
			prev = new(vouch.Report)
			if json.Unmarshal(pv.Result, prev) != nil {
				prev = nil
			}
		} else if !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	}
	for a := from; a <= latest.Attempt; a++ {
		col := attemptColumn{Attempt: a, URL: verificationURL(v.ID, a), Current: a == v.Attempt}
		av, err := h.st.Get(ctx, tenant, v.ID, a)
		if errors.Is(err, store.ErrNotFound) {
			col.Missing = true
			cols = append(cols, col)
			prev = nil
			continue
		}
		if err != nil {
			return nil, err
		}
		col.Verdict, col.Action, col.Score, col.Confidence, col.CreatedAt = av.Verdict, av.Action, av.Score, av.Confidence, av.CreatedAt
		var rep vouch.Report
		if err := json.Unmarshal(av.Result, &rep); err != nil {
			col.Changes = []string{"its report could not be read"}
			prev = nil
		} else {
			if prev != nil {
				col.Changes = changes(prev, &rep)
			}
			prev = &rep
		}
		cols = append(cols, col)
	}
	return cols, nil
}

// changes says what changed from one attempt's report to the next: the
// verdict, the score, the checks and the criteria whose status changed.
func changes(a, b *vouch.Report) []string {
	var out []string
	if a.Verdict != b.Verdict {
		out = append(out, fmt.Sprintf("verdict %s → %s", a.Verdict, b.Verdict))
	}
	if s1, s2 := fmtScore(a.Score), fmtScore(b.Score); s1 != s2 {
		out = append(out, fmt.Sprintf("score %s → %s", s1, s2))
	}
	before := map[string]vouch.Status{}
	for k, c := range checkKeys(a.Checks) {
		before[k] = c.Status
	}
	seen := map[string]bool{}
	for k, c := range checkKeys(b.Checks) {
		seen[k] = true
		if s, ok := before[k]; !ok {
			out = append(out, fmt.Sprintf("check %s new: %s", k, c.Status))
		} else if s != c.Status {
			out = append(out, fmt.Sprintf("check %s: %s → %s", k, s, c.Status))
		}
	}
	for k := range checkKeys(a.Checks) {
		if !seen[k] {
			out = append(out, fmt.Sprintf("check %s gone", k))
		}
	}
	crit := map[string]vouch.CriterionStatus{}
	for _, c := range a.Criteria {
		crit[c.ID] = c.Status
	}
	for _, c := range b.Criteria {
		if s, ok := crit[c.ID]; ok && s != c.Status {
			out = append(out, fmt.Sprintf("criterion %s: %s → %s", c.ID, s, c.Status))
		} else if !ok {
			out = append(out, fmt.Sprintf("criterion %s new: %s", c.ID, c.Status))
		}
		delete(crit, c.ID)
	}
	for _, c := range a.Criteria {
		if _, ok := crit[c.ID]; ok {
			out = append(out, fmt.Sprintf("criterion %s gone", c.ID))
		}
	}
	if len(out) == 0 {
		out = []string{"nothing the report decides changed"}
	}
	return out
}

// checkKeys yields the checks of a report by a key that tells apart
// checks of the same name (name, then #2, #3... in report order).
func checkKeys(checks []vouch.CheckResult) func(yield func(string, vouch.CheckResult) bool) {
	return func(yield func(string, vouch.CheckResult) bool) {
		n := map[string]int{}
		for _, c := range checks {
			n[c.Name]++
			k := c.Name
			if n[c.Name] > 1 {
				k += " #" + strconv.Itoa(n[c.Name])
			}
			if !yield(k, c) {
				return
			}
		}
	}
}

func fmtScore(s *float64) string {
	if s == nil {
		return "none"
	}
	return strconv.FormatFloat(*s, 'f', 2, 64)
}

// handleOverride records a person's verdict beside a verification (the
// report never changes), then shows the page again.
func (h *Handler) handleOverride(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	attempt, ok := attemptParam(r.PostFormValue("attempt"))
	if !ok {
		h.fail(w, r, http.StatusBadRequest, "attempt: want a positive whole number.")
		return
	}
	form := overrideForm{Verdict: r.PostFormValue("verdict"), Reason: strings.TrimSpace(r.PostFormValue("reason"))}
	overridden, status, msg := h.override(r, id, attempt, form.Verdict, form.Reason)
	if status != 0 {
		if status == http.StatusNotFound || status == http.StatusServiceUnavailable {
			h.fail(w, r, status, msg)
			return
		}
		form.Error = msg
		h.showDetail(w, r, id, attempt, status, form)
		return
	}
	http.Redirect(w, r, verificationURL(id, overridden)+"#overrides", http.StatusSeeOther)
}

// override writes an override as the principal; it returns the attempt
// overridden (the latest when attempt is 0) and a status of 0, or the
// status and message of what kept it from being written.
func (h *Handler) override(r *http.Request, id string, attempt int, verdict, reason string) (int, int, string) {
	p := principalOf(r.Context())
	o := &store.Override{Tenant: p.Tenant, VerificationID: id, Attempt: attempt, Verdict: verdict, Reason: reason, Reviewer: p.Name()}
	if err := o.Check(); err != nil {
		return 0, http.StatusBadRequest, err.Error()
	}
	err := h.st.AddOverride(r.Context(), o)
	if errors.Is(err, store.ErrNotFound) {
		return 0, http.StatusNotFound, notFound(id, attempt)
	}
	if err != nil {
		if !errors.Is(err, r.Context().Err()) {
			h.log.Error("dashboard: store: recording the override", "err", err)
		}
		return 0, http.StatusServiceUnavailable, "The store failed while recording the override; nothing was recorded. Try again."
	}
	h.log.Info("dashboard: override", "tenant", p.Tenant, "id", id, "attempt", o.Attempt, "verdict", verdict, "reviewer", o.Reviewer)
	return o.Attempt, 0, ""
}

// kv is one entry of a check's evidence, its value as text.
type kv struct{ Key, Value string }

// maxEvidenceValue bounds an evidence value shown on the page.
const maxEvidenceValue = 2000

// evidenceList turns evidence into sorted entries; values that are not
// strings are shown as JSON.
func evidenceList(m map[string]any) []kv {
	out := make([]kv, 0, len(m))
	for k, v := range m {
		var s string
		switch v := v.(type) {
		case string:
			s = v
		default:
			b, err := json.Marshal(v)
			if err != nil {
				s = fmt.Sprint(v)
			} else {
				s = string(b)
			}
		}
		if len(s) > maxEvidenceValue {
			s = s[:maxEvidenceValue] + "…"
		}
		out = append(out, kv{k, s})
	}
	slices.SortFunc(out, func(a, b kv) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// overridePath is where a verification's override form posts.
func overridePath(id string) string {
	return "/verifications/" + url.PathEscape(id) + "/override"
}
