package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/vouchgate/vouch/store"
)

// route is one page or action of the dashboard and the scope it needs.
type route struct {
	pattern string
	// scope is what the principal must hold: store.ScopeRead to look,
	// store.ScopeReview to change; "" for the public routes (sign-in,
	// static files).
	scope string
	h     http.HandlerFunc
}

// routes is the dashboard's route table, in one place. Every POST route
// checks a CSRF token before its handler runs.
//
// A page is a line here, a handler that reads the store with the tenant
// of principalOf(r.Context()) and answers with h.render(w, r, status,
// "name", data), and a template templates/name.html that defines
// "title" and "content" (its data is a frame: the page's own in .Data,
// the CSRF token in .CSRF, the principal in .P). Errors go through
// h.fail and h.storeFailed.
func (h *Handler) routes() []route {
	return []route{
		{"GET /{$}", store.ScopeRead, h.handleOverview},
		{"GET /verifications", store.ScopeRead, h.handleList},
		{"GET /verifications/{id}", store.ScopeRead, h.handleDetail},
		{"POST /verifications/{id}/override", store.ScopeReview, h.handleOverride},
		{"GET /review", store.ScopeRead, h.handleReview},
		{"GET /quality", store.ScopeRead, h.handleQuality},
		{"GET /calibration", store.ScopeRead, h.handleCalibration},
		{"GET /calibration/patch", store.ScopeRead, h.handleCalibrationPatch},
		{"POST /review/accept", store.ScopeReview, h.handleReviewAccept},
		{"POST /review/override", store.ScopeReview, h.handleReviewOverride},
		{"GET /login", "", h.handleLoginPage},
		{"POST /login", "", h.handleLogin},
		{"POST /logout", "", h.handleLogout},
		{"GET /ui/events", store.ScopeRead, h.handleEvents},
		{staticPattern, "", h.handleStatic},
	}
}

// wrap resolves a route's principal and enforces its scope and, on a
// POST, its CSRF token. A page that needs someone sends nobody to the
// sign-in page; someone lacking the scope gets a page saying so (403).
func (h *Handler) wrap(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rt.pattern == staticPattern {
			rt.h(w, r)
			return
		}
		p, err := h.resolve(r)
		if errors.Is(err, errForeignHost) {
			h.fail(w, r, http.StatusForbidden, "With no API keys, the dashboard answers only at a loopback address (localhost or 127.0.0.1). Create a key to serve it under another name.")
			return
		}
		if err != nil {
			h.storeFailed(w, r, "checking the session", err)
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), principalKey{}, p))
		if rt.scope != "" && !p.SignedIn() {
			h.toLogin(w, r)
			return
		}
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
			if !h.checkCSRF(r, p) {
				h.fail(w, r, http.StatusForbidden, "The form is stale or came from another site (its CSRF token does not match). Reload the page and try again.")
				return
			}
		}
		if rt.scope != "" && !p.Has(rt.scope) {
			h.fail(w, r, http.StatusForbidden, "Your key lacks the "+rt.scope+" scope this needs. Sign in with a key that has it.")
			return
		}
		rt.h(w, r)
	})
}

// staticPattern serves the static files, as they are: no principal, no
// session.
const staticPattern = "GET /static/"

// maxFormBytes bounds a form's body.
const maxFormBytes = 64 << 10

// toLogin sends a request without a session to the sign-in page, with the
// page it asked for as next; an htmx request is told to go there whole,
// with the page it was made from as next, and a POST or an event stream
// is refused with 401.
func (h *Handler) toLogin(w http.ResponseWriter, r *http.Request) {
	if _, err := r.Cookie(sessionCookie); err == nil {
		setCookie(w, sessionCookie, "", -1) // expired, revoked or forged
	}
	target := "/login?next=" + url.QueryEscape(r.URL.RequestURI())
	switch {
	case r.Header.Get("HX-Request") != "":
		w.Header().Set("HX-Redirect", "/login?next="+url.QueryEscape(htmxPage(r)))
		w.WriteHeader(http.StatusUnauthorized)
	case r.Method != http.MethodGet && r.Method != http.MethodHead,
		r.Header.Get("Accept") == "text/event-stream":
		h.fail(w, r, http.StatusUnauthorized, "Sign in first.")
	default:
		http.Redirect(w, r, target, http.StatusSeeOther)
	}
}

// htmxPage is the path and query of the page an htmx request was made
// from (its HX-Current-URL), when that page is on this site; else "/".
func htmxPage(r *http.Request) string {
	u, err := url.Parse(r.Header.Get("HX-Current-URL"))
	if err != nil || u.Host != r.Host {
		return "/"
	}
	return localPath(u.RequestURI())
}
