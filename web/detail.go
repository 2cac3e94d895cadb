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
	"github.com/vouchgate/vouch/quality"
	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/wire"
)

// maxAttemptColumns bounds the attempts shown side by side (the latest
// ones).
const maxAttemptColumns = 8

// maxClaimCalls bounds the calls a claim's row lists.
const maxClaimCalls = 5

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
	// checks that decided it or tried to, and to the tool calls those
	// cite; Ledger says what it adds up to (or that the report has none).
	// Refuted are the refuted claims, for the summary above the ledger.
	Claims  []claimRow
	Refuted []claimRow
	Ledger  string
	// Checks are the report's checks, their evidence drawn for people.
	Checks []checkRow
	// Verified are the verified mentions with their evidence.
	Verified []mentionRow
	// Goal and TaskID come from the stored request (or the row).
	Goal, TaskID string
	// Task is what the stored request says of the task: its criteria
	// and the policy it carried; TaskNote says why it is not known.
	Task     *taskView
	TaskNote string
	// Run is the request's trace as a timeline.
	Run *runView
	// Output is the agent's output split around its mentions;
	// OutputNote says why there is none.
	Output     []segment
	OutputNote string
	Dimensions []dimensionRow
	Attempts   []attemptColumn
	// Previous compares the shown attempt with the one before it.
	Previous  *attemptDiff
	Overrides []store.Override
	// CanReview is whether the principal may override; Form is the
	// override form as last sent (with its problem). Verdicts are those a
	// person may give: pass, retry or fail.
	CanReview bool
	Form      overrideForm
	Verdicts  []string

	// summary is the output's summary, for the diff of the next attempt.
	summary string
	// request is the stored request, when it could be read.
	request *vouch.Request
}

// claimRow is one claim of the ledger as the detail page shows it.
type claimRow struct {
	vouch.Claim
	// Anchor is the id of its row.
	Anchor string
	// Checks link the checks that decided the claim (or, for an
	// unverified one, tried to), by their index in the report's checks.
	Checks []checkLink
	// Calls are the tool calls those checks cite (the first few, those
	// that failed first), and MoreCalls how many more; Failing are those
	// of them that failed.
	Calls     []*callLink
	MoreCalls int
	Failing   []*callLink
}

// checkLink links a check of the report by its index.
type checkLink struct {
	Index  int
	Name   string
	Status vouch.Status
	Reason string
}

// checkRow is one check of the report with its evidence drawn for
// people (cited calls linked), the raw JSON beside it, and the claims
// that cite it.
type checkRow struct {
	vouch.CheckResult
	Index    int
	Evidence []evNode
	Raw      string
	Claims   []string
}

// mentionRow is a verified mention with its evidence drawn for people.
type mentionRow struct {
	vouch.VerifiedMention
	Evidence []evNode
}

// taskView is the task as the stored request gives it.
type taskView struct {
	Kind, Criticality, Executor, Interaction, Target string
	// Dependents counts the tasks that build on this one, when the
	// request says ("" when it does not).
	Dependents string
	Criteria   []vouch.Criterion
	// Policy are the task's policy overrides for people, PolicyRaw as
	// sent; without any, the server's policy applied.
	Policy    []evNode
	PolicyRaw string
	// Trace counts the calls of the request's trace.
	Trace int
}

// checkAnchor is the id of a check's row on the detail page.
func checkAnchor(i int) string { return "check-" + strconv.Itoa(i) }

// claimAnchor is the id of a claim's row on the detail page.
func claimAnchor(i int) string { return "claim-" + strconv.Itoa(i) }

// claimRows are the ledger's claims, with the checks they cite and the
// calls those cite (through rv; nil links none); an index the report
// does not have is left out.
func claimRows(rep *vouch.Report, rv *runView) []claimRow {
	out := make([]claimRow, 0, len(rep.Claims))
	for n, c := range rep.Claims {
		r := claimRow{Claim: c, Anchor: claimAnchor(n)}
		seen := map[int]bool{}
		var calls []*callLink
		for _, i := range c.Checks {
			if i < 0 || i >= len(rep.Checks) {
				continue
			}
			ch := &rep.Checks[i]
			r.Checks = append(r.Checks, checkLink{Index: i, Name: ch.Name, Status: ch.Status, Reason: ch.Reason})
			citedCalls(ch.Evidence, rv, func(call int, _ bool) {
				if !seen[call] {
					seen[call] = true
					calls = append(calls, rv.byIndex(call))
				}
			})
		}
		// The calls that failed first: they show what the claim is held
		// against; then in trace order.
		slices.SortFunc(calls, func(a, b *callLink) int {
			if a.Failed != b.Failed {
				if a.Failed {
					return -1
				}
				return 1
			}
			return a.Index - b.Index
		})
		for _, l := range calls {
			if l.Failed {
				r.Failing = append(r.Failing, l)
			}
		}
		r.Calls = calls[:min(len(calls), maxClaimCalls)]
		r.Failing = r.Failing[:min(len(r.Failing), maxClaimCalls)]
		r.MoreCalls = len(calls) - len(r.Calls)
		out = append(out, r)
	}
	return out
}

// checkRows are the report's checks with their evidence for people.
func checkRows(rep *vouch.Report, rv *runView) []checkRow {
	out := make([]checkRow, len(rep.Checks))
	for i, c := range rep.Checks {
		out[i] = checkRow{CheckResult: c, Index: i, Evidence: evidenceTree(c.Evidence, rv)}
		if len(c.Evidence) > 0 {
			out[i].Raw = rawJSON(c.Evidence)
		}
	}
	for _, cl := range rep.Claims {
		for _, i := range cl.Checks {
			if i >= 0 && i < len(out) && !slices.Contains(out[i].Claims, cl.ID) {
				out[i].Claims = append(out[i].Claims, cl.ID)
			}
		}
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
// (default the latest); tool, cited and calls filter and page its
// trace's timeline.
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
	if d.Form.Verdict == "" && quality.ReviewerVerdict(string(v.Verdict)) {
		// The gate's verdict, to keep or change; an unverified one has
		// none a person may give: the form asks for a choice.
		d.Form.Verdict = string(v.Verdict)
	}
	if err := json.Unmarshal(v.Result, &d.Report); err != nil {
		d.ReportError = "The stored report could not be read: " + err.Error()
	}
	// A report read back has a claim list (empty or not) when the engine
	// kept a ledger; one made before has none, and its row is of the
	// six-row table.
	ledger := d.Report.Claims != nil || d.ReportError != "" && v.Ledger != nil
	d.Why = h.verdictRow(v.VerdictRow, d.Report.VerdictRow, v.Verdict, ledger)
	d.readRequest(v, readTimelineQuery(r.URL.Query()))
	d.Claims = claimRows(&d.Report, d.Run)
	for _, c := range d.Claims {
		if c.State == vouch.ClaimRefuted {
			d.Refuted = append(d.Refuted, c)
		}
	}
	d.Checks = checkRows(&d.Report, d.Run)
	for _, m := range d.Report.Mentions.Verified {
		d.Verified = append(d.Verified, mentionRow{VerifiedMention: m, Evidence: evidenceTree(m.Evidence, d.Run)})
	}
	if d.ReportError == "" {
		d.Ledger = ledgerSummary(&d.Report)
	}
	for name, dim := range d.Report.Dimensions {
		d.Dimensions = append(d.Dimensions, dimensionRow{name, dim})
	}
	slices.SortFunc(d.Dimensions, func(a, b dimensionRow) int { return strings.Compare(a.Name, b.Name) })
	if d.Overrides, err = h.st.Overrides(ctx, p.Tenant, v.ID, v.Attempt); err != nil {
		h.storeFailed(w, r, "reading the overrides", err)
		return
	}
	if d.Attempts, err = h.attempts(r, v); err != nil {
		h.storeFailed(w, r, "reading the other attempts", err)
		return
	}
	if v.Attempt > 1 {
		if d.Previous, err = h.previous(r, v, &d); err != nil {
			h.storeFailed(w, r, "reading the attempt before", err)
			return
		}
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
// goal, the task, its criteria and policy, the trace as a timeline (its
// page and filter as q asks) and the output, split around the report's
// mentions.
func (d *detailData) readRequest(v *store.Verification, q timelineQuery) {
	d.Goal, d.TaskID = v.Goal, v.TaskID
	if v.Request == nil {
		if v.RequestBytes > 0 {
			d.OutputNote = fmt.Sprintf("The request (%d bytes) was over the server's cap for stored requests, so its output was not kept.", v.RequestBytes)
			d.TaskNote = fmt.Sprintf("The request (%d bytes) was over the server's cap for stored requests, so its task, criteria and trace were not kept.", v.RequestBytes)
		} else {
			d.OutputNote = "The request was not stored, so its output cannot be shown."
			d.TaskNote = "The request was not stored, so its task, criteria and trace cannot be shown."
		}
		return
	}
	req, err := decodeStored(v.Request)
	if err != nil {
		d.OutputNote = "The stored request could not be read: " + err.Error()
		d.TaskNote = d.OutputNote
		return
	}
	d.request = req
	if d.Goal == "" {
		d.Goal = req.Task.Goal
	}
	if d.TaskID == "" {
		d.TaskID = req.Task.ID
	}
	d.Task = taskOf(req)
	d.Run = newRunView(req.Trace, verificationURL(v.ID, v.Attempt), v.Attempt, q)
	d.Run.cite(&d.Report)
	d.Run.filter()
	d.Run.rows()
	if len(req.Trace) == 0 {
		d.Run.Note = "The request carries no trace: no tool call was sent as evidence."
	}
	for i := range req.Trace {
		if d.Run.checks[i] != nil {
			d.Run.FirstCited = d.Run.byIndex(i)
			break
		}
	}
	d.summary = req.Output.Summary
	if req.Output.Summary == "" {
		d.OutputNote = "The output's summary is empty."
		return
	}
	d.Output = highlight(req.Output.Summary, d.Report.Mentions)
}

// decodeStored decodes a stored request: with the server's own decoder,
// the faster, or, for a request it refuses (stored under older rules),
// as plain JSON.
func decodeStored(data []byte) (*vouch.Request, error) {
	if req, err := wire.DecodeRequest(data, wire.Options{MaxBytes: int64(len(data)) + 1}); err == nil {
		return req, nil
	}
	req := new(vouch.Request)
	if err := json.Unmarshal(data, req); err != nil {
		return nil, err
	}
	return req, nil
}

// taskOf is what the page shows of a request's task.
func taskOf(req *vouch.Request) *taskView {
	t := &taskView{Kind: string(req.EffectiveKind()), Criticality: req.Task.Criticality, Interaction: req.InteractionID,
		Target: req.Target, Criteria: req.Task.Criteria, Trace: len(req.Trace)}
	if n := req.Task.Dependents; n != nil {
		t.Dependents = strconv.Itoa(*n)
	}
	if e := req.Task.Executor; e != nil {
		t.Executor = e.Model
		if e.Provider != "" {
			t.Executor = e.Provider + ":" + e.Model
		}
		if e.Tier != "" {
			t.Executor += " (" + e.Tier + " tier)"
		}
	}
	if raw := strings.TrimSpace(string(req.Task.Policy)); raw != "" && raw != "null" && raw != "{}" {
		var pol map[string]any
		if err := json.Unmarshal(req.Task.Policy, &pol); err == nil {
			t.Policy = keyTree(pol)
			t.PolicyRaw = rawJSON(pol)
		} else {
			t.PolicyRaw = clip(raw, maxRawEvidence)
		}
	}
	return t
}

// criterionSpec says how the criterion id of the task is decided, as
// the request writes it; "" when the request does not write it.
func criterionSpec(t *taskView, id string) string {
	if t == nil {
		return ""
	}
	for _, c := range t.Criteria {
		if c.ID == id {
			return criterionRule(c)
		}
	}
	return ""
}

// criterionRule says how a criterion of the request is decided: by its
// check's type, or by the judge.
func criterionRule(c vouch.Criterion) string {
	if c.Check == nil || c.Check.Type == "" || c.Check.Type == "llm" {
		return "the judge"
	}
	if c.Check.Not {
		return "rule: not " + c.Check.Type
	}
	return "rule: " + c.Check.Type
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
		return fmt.Sprintf("Row 3: the score is below passAt (%.2f); it is sent back for a retry while attempts remain (reformulated when the verifier's confidence is below %.1f), and fails after.", pol.PassAt, vouch.ReformulateBelow)
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
		return fmt.Sprintf("Row 7: every claim was checked and holds, so it passes (with a follow-up when completeness is below %.1f and gaps remain).", vouch.FollowUpBelow)
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
	Verdict    vouch.Verdict
	Action     vouch.Action
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
// verdict, the score, the claims whose state changed, the checks and the
// criteria whose status changed.
func changes(a, b *vouch.Report) []string {
	var out []string
	if a.Verdict != b.Verdict {
		out = append(out, fmt.Sprintf("verdict %s → %s", a.Verdict, b.Verdict))
	}
	if s1, s2 := fmtScore(a.Score), fmtScore(b.Score); s1 != s2 {
		out = append(out, fmt.Sprintf("score %s → %s", s1, s2))
	}
	for _, c := range claimChanges(a, b) {
		out = append(out, c.String())
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

// claimChange is a claim whose state changed from one attempt to the
// next: From or To is "" for a claim the attempt did not make.
type claimChange struct {
	Kind     vouch.ClaimKind
	Text     string
	From, To vouch.ClaimState
}

// String says the change in a line.
func (c claimChange) String() string {
	switch {
	case c.From == "":
		return fmt.Sprintf("claim “%s” (%s) new: %s", c.Text, c.Kind, c.To)
	case c.To == "":
		return fmt.Sprintf("claim “%s” (%s) no longer made (was %s)", c.Text, c.Kind, c.From)
	}
	return fmt.Sprintf("claim “%s” (%s): %s → %s", c.Text, c.Kind, c.From, c.To)
}

// maxClaimChanges bounds the claim changes listed between two attempts.
const maxClaimChanges = 50

// claimChanges are the claims whose state changed from a to b, told
// apart by their kind and text (their ids are per report), in b's order
// then the claims b no longer makes.
func claimChanges(a, b *vouch.Report) []claimChange {
	key := func(c *vouch.Claim) string { return string(c.Kind) + "\x00" + c.Text }
	before := make(map[string]vouch.ClaimState, len(a.Claims))
	for i := range a.Claims {
		before[key(&a.Claims[i])] = a.Claims[i].State
	}
	var out []claimChange
	seen := make(map[string]bool, len(b.Claims))
	for i := range b.Claims {
		c := &b.Claims[i]
		k := key(c)
		seen[k] = true
		if s, ok := before[k]; !ok && a.Claims != nil {
			out = append(out, claimChange{Kind: c.Kind, Text: clip(c.Text, 200), To: c.State})
		} else if ok && s != c.State {
			out = append(out, claimChange{Kind: c.Kind, Text: clip(c.Text, 200), From: s, To: c.State})
		}
	}
	for i := range a.Claims {
		c := &a.Claims[i]
		if !seen[key(c)] && b.Claims != nil {
			out = append(out, claimChange{Kind: c.Kind, Text: clip(c.Text, 200), From: c.State})
		}
	}
	if len(out) > maxClaimChanges {
		out = out[:maxClaimChanges]
	}
	return out
}

// attemptDiff compares an attempt with the one before it: what the agent
// changed in its output, and which claims changed state.
type attemptDiff struct {
	Attempt int
	URL     string
	// Output is the line diff of the output's summary; OutputNote says
	// why there is none.
	Output     lineDiff
	OutputNote string
	// Claims changed state; ClaimsNote says why they could not be
	// compared.
	Claims     []claimChange
	ClaimsNote string
}

// previous compares the attempt shown (d) with the one before it.
func (h *Handler) previous(r *http.Request, v *store.Verification, d *detailData) (*attemptDiff, error) {
	ctx := r.Context()
	pv, err := h.st.Get(ctx, principalOf(ctx).Tenant, v.ID, v.Attempt-1)
	if errors.Is(err, store.ErrNotFound) {
		return &attemptDiff{Attempt: v.Attempt - 1, OutputNote: fmt.Sprintf("Attempt %d is not in the log, so there is nothing to compare with.", v.Attempt-1)}, nil
	}
	if err != nil {
		return nil, err
	}
	pd := &attemptDiff{Attempt: pv.Attempt, URL: verificationURL(pv.ID, pv.Attempt)}
	var before struct {
		Output struct {
			Summary string `json:"summary"`
		} `json:"output"`
	}
	switch {
	case pv.Request == nil:
		pd.OutputNote = fmt.Sprintf("Attempt %d's request was not stored, so its output cannot be compared.", pv.Attempt)
	case d.request == nil:
		pd.OutputNote = "This attempt's request was not stored, so its output cannot be compared."
	case json.Unmarshal(pv.Request, &before) != nil:
		pd.OutputNote = fmt.Sprintf("Attempt %d's stored request could not be read.", pv.Attempt)
	default:
		pd.Output = diffLines(diffUnits(before.Output.Summary), diffUnits(d.summary))
		if len(pd.Output.Lines) == 0 {
			pd.OutputNote = pd.Output.Note
		}
	}
	var rep vouch.Report
	switch {
	case json.Unmarshal(pv.Result, &rep) != nil:
		pd.ClaimsNote = fmt.Sprintf("Attempt %d's report could not be read.", pv.Attempt)
	case d.ReportError != "":
		pd.ClaimsNote = "This attempt's report could not be read."
	case rep.Claims == nil:
		pd.ClaimsNote = fmt.Sprintf("Attempt %d's report was made before vouch kept a claim ledger.", pv.Attempt)
	default:
		pd.Claims = claimChanges(&rep, &d.Report)
		if len(pd.Claims) == 0 {
			pd.ClaimsNote = "No claim changed state."
		}
	}
	return pd, nil
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
	overridden, status, msg := h.override(r, id, attempt, vouch.Verdict(form.Verdict), form.Reason)
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
func (h *Handler) override(r *http.Request, id string, attempt int, verdict vouch.Verdict, reason string) (int, int, string) {
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

// overridePath is where a verification's override form posts.
func overridePath(id string) string {
	return "/verifications/" + url.PathEscape(id) + "/override"
}
