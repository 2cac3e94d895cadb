package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/quality"
	"github.com/vouchgate/vouch/store"
)

// reviewPageSize is how many items a page of the review queue shows.
const reviewPageSize = 50

// acceptReason is the reason of an override that accepts a verdict.
const acceptReason = "accepted in review"

// maxFailedShown bounds the failed checks an item of the queue names.
const maxFailedShown = 3

// reviewData is the review queue's page.
type reviewData struct {
	Items []reviewItem
	// After is the page's cursor (0: from the oldest); Next the URL of
	// the next page.
	After     int64
	Next      string
	CanReview bool
	// Verdicts are those a person may give: pass, retry or fail.
	Verdicts []string
}

// reviewItem is one verification waiting for a person.
type reviewItem struct {
	V      store.Verification
	Reason string
	// Failed names the first failed checks, with their reasons.
	Failed []string
	// Unverified counts the mentions the evidence said nothing of;
	// UnverifiedClaims the claims of the ledger left unverified.
	Unverified, UnverifiedClaims int
	// Acceptable is whether the gate's verdict is one a person may give
	// (pass, retry or fail), and so may be accepted as it is; an
	// unverified one must be decided.
	Acceptable bool
}

// handleReview shows the review queue: the verifications that need a
// person and that nobody has labelled yet, oldest first.
func (h *Handler) handleReview(w http.ResponseWriter, r *http.Request) {
	p := principalOf(r.Context())
	after, ok := cursorParam(r.URL.Query().Get("after"))
	if !ok {
		h.fail(w, r, http.StatusBadRequest, "The queue's cursor is not one this server gave; start from the oldest.")
		return
	}
	yes := true
	page, err := h.st.List(r.Context(), p.Tenant, store.Filter{NeedsReview: &yes, Unreviewed: true, Oldest: true, After: after, Limit: reviewPageSize, Reports: true})
	if err != nil {
		h.storeFailed(w, r, "reading the review queue", err)
		return
	}
	d := reviewData{After: after, CanReview: p.Has(store.ScopeReview), Verdicts: reviewerVerdicts}
	for _, v := range page.Items {
		it := reviewItem{V: v, Acceptable: quality.ReviewerVerdict(string(v.Verdict))}
		var rep vouch.Report
		if err := json.Unmarshal(v.Result, &rep); err == nil {
			it.Reason = rep.Reason
			it.Unverified = len(rep.Mentions.Unverified)
			if l := quality.LedgerOf(&rep); l != nil {
				it.UnverifiedClaims = l.Unverified
			}
			for _, c := range rep.Checks {
				if c.Status == vouch.StatusFail && len(it.Failed) < maxFailedShown {
					it.Failed = append(it.Failed, c.Name+": "+c.Reason)
				}
			}
		}
		d.Items = append(d.Items, it)
	}
	if page.Next > 0 {
		d.Next = "/review?after=" + strconv.FormatInt(page.Next, 10)
	}
	h.render(w, r, http.StatusOK, "review", d)
}

// cursorParam reads a queue cursor; "" is 0.
func cursorParam(v string) (int64, bool) {
	if v == "" {
		return 0, true
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil && n >= 0
}

// reviewTarget reads the verification a queue's form names, and the
// queue position to go back to.
func reviewTarget(r *http.Request) (id string, attempt int, back string, ok bool) {
	id = r.PostFormValue("id")
	attempt, okA := attemptParam(r.PostFormValue("attempt"))
	after, okC := cursorParam(r.PostFormValue("after"))
	back = "/review"
	if after > 0 {
		back += "?after=" + strconv.FormatInt(after, 10)
	}
	return id, attempt, back, id != "" && attempt > 0 && okA && okC
}

// handleReviewAccept accepts a verification's own verdict: an override
// with that verdict and the reason "accepted in review". An unverified
// verdict cannot be accepted: a person decides pass, retry or fail (400).
func (h *Handler) handleReviewAccept(w http.ResponseWriter, r *http.Request) {
	id, attempt, back, ok := reviewTarget(r)
	if !ok {
		h.fail(w, r, http.StatusBadRequest, "The form names no verification and attempt.")
		return
	}
	v, err := h.st.Get(r.Context(), principalOf(r.Context()).Tenant, id, attempt)
	if errors.Is(err, store.ErrNotFound) {
		h.fail(w, r, http.StatusNotFound, notFound(id, attempt))
		return
	}
	if err != nil {
		h.storeFailed(w, r, "reading the verification", err)
		return
	}
	if _, status, msg := h.override(r, id, attempt, v.Verdict, acceptReason); status != 0 {
		h.fail(w, r, status, msg)
		return
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// handleReviewOverride records a person's own verdict from the queue.
func (h *Handler) handleReviewOverride(w http.ResponseWriter, r *http.Request) {
	id, attempt, back, ok := reviewTarget(r)
	if !ok {
		h.fail(w, r, http.StatusBadRequest, "The form names no verification and attempt.")
		return
	}
	verdict, reason := vouch.Verdict(r.PostFormValue("verdict")), strings.TrimSpace(r.PostFormValue("reason"))
	if _, status, msg := h.override(r, id, attempt, verdict, reason); status != 0 {
		h.fail(w, r, status, msg)
		return
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}
