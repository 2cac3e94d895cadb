// Package web is the dashboard of `vouch serve`: server-rendered HTML
// pages over the same store as the API, for the people who look at the
// verifications and correct them.
//
// Pages are html/template templates embedded with go:embed
// (templates/*.html: layout.html is the frame every page is drawn in,
// files named _*.html hold partials shared by every page, each other
// file is a page named after it). Static files (static/: the style sheet,
// a small script, and htmx vendored as one file) are embedded too. Every
// page works without JavaScript: links and forms do the work, and htmx
// and static/vouch.js only enhance (partial swaps, keyboard keys, the
// live list).
//
// Each verdict has its colour, always beside its word: pass green, retry
// amber, fail red, and unverified (nothing found false, some claim not
// checked either way: neither a pass nor a send-back) blue. A verification's
// page is a run view, for debugging an agent's run: it leads with its
// claim ledger, each claim linked to the checks that decided it and to
// the tool calls their evidence cites (by index, "call": 12, at any
// depth; by the entry's id; as "trace[12] Read"; or by the command a call
// ran), and shows the request's trace as a timeline, paged and filtered,
// each call with its exit status, duration, citations and folded input
// and output, the lines that matter marked. Evidence is drawn for people
// (its JSON under "raw"), and an attempt after the first is compared
// with the one before: a bounded line diff of the output, the claims
// that changed state. A person's override is pass, retry or fail, never
// unverified.
//
// Access: a person signs in with an API key of the server; the dashboard
// keeps a session cookie holding the key's id, an expiry and an HMAC
// (never the secret), and resolves the key again on every request, so
// that a revoked key ends its sessions. The read scope looks, the review
// scope overrides. With no live key in the store (open mode, which the
// server allows on loopback only) nobody signs in: every page acts as
// tenant "default" with every scope. Every form carries a CSRF token;
// every store call passes the session's tenant; agent text is only ever
// escaped by the templates, never trusted as HTML; pages are served with
// a Content-Security-Policy that allows no inline script or style.
package web
