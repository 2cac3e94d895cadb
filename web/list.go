package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/quality"
	"github.com/vouchgate/vouch/store"
)

// listPageSize is how many verifications a page of the list shows.
const listPageSize = 100

// Choices of the list's filters, and of a reviewer's verdict.
var (
	kinds = []string{string(vouch.KindSubtask), string(vouch.KindDecomposition), string(vouch.KindSynthesis), string(vouch.KindModeration), string(vouch.KindAnswer)}
	// verdicts are the gate's: pass, retry, fail and unverified.
	verdicts = verdictNames(vouch.Verdicts)
	// reviewerVerdicts are a person's: pass, retry and fail. Unverified
	// is the gate's word for what it could not check; a person decides.
	reviewerVerdicts = verdictNames(quality.ReviewerVerdicts)
	actions          = []string{string(vouch.ActionAccept), string(vouch.ActionRetry), string(vouch.ActionReformulate), string(vouch.ActionFollowUp), string(vouch.ActionEscalate)}
)

// verdictNames returns verdicts as strings.
func verdictNames(vs []vouch.Verdict) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// listForm is the list's filter form as given (echoed back into it).
type listForm struct {
	Kind, Verdict, Action, Model, Review, Task, Since, Until string
}

// listData is the list page's.
type listData struct {
	Form                     listForm
	Kinds, Verdicts, Actions []string
	Rows                     []store.Verification
	// Error says what is wrong with the filters (the page is then a 400).
	Error string
	// Older is the URL of the next page of older rows; Newest the first
	// page's, when this is not it.
	Older, Newest string
	// Live is set on the first page: it refreshes itself from LiveURL
	// when the log changes.
	Live    bool
	LiveURL string
}

// handleList shows the tenant's verifications, newest first, filtered by
// the form's fields and paged by a cursor (before).
func (h *Handler) handleList(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := listData{Kinds: kinds, Verdicts: verdicts, Actions: actions}
	d.Form = listForm{Kind: q.Get("kind"), Verdict: q.Get("verdict"), Action: q.Get("action"), Model: q.Get("model"),
		Review: q.Get("review"), Task: q.Get("task"), Since: q.Get("since"), Until: q.Get("until")}
	f, err := parseListFilter(q)
	status := http.StatusOK
	if err != "" {
		d.Error, status = err, http.StatusBadRequest
	} else {
		// Times as a datetime-local input shows them.
		if !f.Since.IsZero() {
			d.Form.Since = f.Since.Format("2006-01-02T15:04:05")
		}
		if !f.Until.IsZero() {
			d.Form.Until = f.Until.Format("2006-01-02T15:04:05")
		}
		f.Limit = listPageSize
		page, err := h.st.List(r.Context(), principalOf(r.Context()).Tenant, f)
		if err != nil {
			h.storeFailed(w, r, "listing the verifications", err)
			return
		}
		d.Rows = page.Items
		base := filterQuery(d.Form)
		if page.Next > 0 {
			older := filterQuery(d.Form)
			older.Set("before", strconv.FormatInt(page.Next, 10))
			d.Older = listURL(older)
		}
		if f.Before > 0 {
			d.Newest = listURL(base)
		} else {
			d.Live = true
			d.LiveURL = listURL(base)
		}
	}
	switch {
	case r.Header.Get("HX-Request") == "" || r.Header.Get("HX-History-Restore-Request") != "":
		h.render(w, r, status, "verifications", d)
	case r.Header.Get("HX-Target") == "rows":
		h.renderBlock(w, r, status, "verifications", "rows", d)
	case r.Header.Get("HX-Target") == "results":
		// The filter form's submission: the address htmx pushes is the
		// filters' own, not the form's every field, empty ones too.
		w.Header().Set("HX-Push-Url", listURL(filterQuery(d.Form)))
		h.renderBlock(w, r, status, "verifications", "results", d)
	default:
		h.render(w, r, status, "verifications", d)
	}
}

// listURL is the list's URL with a query.
func listURL(q url.Values) string {
	if len(q) == 0 {
		return "/verifications"
	}
	return "/verifications?" + q.Encode()
}

// filterQuery is the query of a list's filters, without the cursor and
// without empty fields.
func filterQuery(f listForm) url.Values {
	q := url.Values{}
	for _, p := range []struct{ k, v string }{{"kind", f.Kind}, {"verdict", f.Verdict}, {"action", f.Action},
		{"model", f.Model}, {"review", f.Review}, {"task", f.Task}, {"since", f.Since}, {"until", f.Until}} {
		if p.v != "" {
			q.Set(p.k, p.v)
		}
	}
	return q
}

// parseListFilter reads the list's filters; a problem is said in words
// for the page. Unknown parameters are ignored.
func parseListFilter(q url.Values) (store.Filter, string) {
	var (
		f        store.Filter
		problems []string
	)
	oneOf := func(name, v string, choices []string) string {
		if v == "" {
			return ""
		}
		for _, c := range choices {
			if v == c {
				return v
			}
		}
		problems = append(problems, name+": want one of "+strings.Join(choices, ", "))
		return ""
	}
	f.Kind = vouch.Kind(oneOf("Kind", q.Get("kind"), kinds))
	f.Verdict = vouch.Verdict(oneOf("Verdict", q.Get("verdict"), verdicts))
	f.Action = vouch.Action(oneOf("Action", q.Get("action"), actions))
	f.ExecutorModel = strings.TrimSpace(q.Get("model"))
	f.TaskID = strings.TrimSpace(q.Get("task"))
	if len(f.ExecutorModel) > 200 || len(f.TaskID) > 200 {
		problems = append(problems, "Executor model and task id: at most 200 characters")
	}
	switch q.Get("review") {
	case "":
	case "yes":
		yes := true
		f.NeedsReview = &yes
	case "no":
		no := false
		f.NeedsReview = &no
	default:
		problems = append(problems, "Needs review: want yes or no")
	}
	var ok bool
	if f.Since, ok = parseFormTime(q.Get("since")); !ok {
		problems = append(problems, "Since: want a time like 2026-11-01T09:30 (UTC)")
	}
	if f.Until, ok = parseFormTime(q.Get("until")); !ok {
		problems = append(problems, "Until: want a time like 2026-11-01T18:00 (UTC)")
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until) {
		problems = append(problems, "Since must be before until")
	}
	if v := q.Get("before"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			problems = append(problems, "The page cursor is not one this server gave; start from the newest page")
		}
		f.Before = n
	}
	return f, strings.Join(problems, ". ")
}

// formTimes are the layouts a time filter may take: a datetime-local
// input's, with or without seconds, RFC 3339, or a date; all but RFC 3339
// are UTC.
var formTimes = []string{"2006-01-02T15:04", "2006-01-02T15:04:05", time.RFC3339Nano, "2006-01-02"}

// parseFormTime reads a time filter; "" is no time.
func parseFormTime(v string) (time.Time, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, true
	}
	for _, layout := range formTimes {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// verificationURL is the detail page of one attempt of a verification.
func verificationURL(id string, attempt int) string {
	return "/verifications/" + url.PathEscape(id) + "?attempt=" + strconv.Itoa(attempt)
}
