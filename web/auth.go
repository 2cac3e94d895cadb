package web

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/vouchgate/vouch/internal/loopback"
	"github.com/vouchgate/vouch/store"
)

// openTenant is the tenant of every page in open mode.
const openTenant = "default"

// Cookies and session lifetime.
const (
	sessionCookie = "vouch_session"
	csrfCookie    = "vouch_csrf"
	sessionTTL    = 12 * time.Hour
)

// principal is who is looking at a page: a tenant and the key it signed
// in with.
type principal struct {
	// Tenant is the tenant every store call of the page passes.
	Tenant string
	// Key is the signed-in key; nil in open mode (every scope) and on
	// public pages before signing in.
	Key *store.Key
	// Open is true in open mode: nobody signs in.
	Open bool
	// session is the session cookie's value; empty in open mode.
	session string
}

// SignedIn reports whether the principal is someone: a session, or open
// mode.
func (p principal) SignedIn() bool { return p.Open || p.Key != nil }

// Has reports whether the principal holds scope.
func (p principal) Has(scope string) bool { return p.Open || p.Key.Has(scope) }

// Name names the principal as a reviewer: the key's name, else its id;
// "local" in open mode.
func (p principal) Name() string {
	switch {
	case p.Key == nil:
		return "local"
	case p.Key.Name != "":
		return p.Key.Name
	}
	return p.Key.ID
}

type principalKey struct{}

// principalOf returns the principal of a request, as the route's wrapper
// resolved it.
func principalOf(ctx context.Context) principal {
	p, _ := ctx.Value(principalKey{}).(principal)
	return p
}

// resolve finds the principal of a request: a valid session of a live
// key, else open mode, else nobody (a zero principal).
func (h *Handler) resolve(r *http.Request) (principal, error) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		if id, ok := h.checkSession(c.Value); ok {
			k, err := h.keys.Key(r.Context(), id)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return principal{}, err
			}
			if k != nil && k.RevokedAt.IsZero() && k.ID == id {
				return principal{Tenant: k.Tenant, Key: k, session: c.Value}, nil
			}
		}
	}
	open, err := h.keys.OpenMode(r.Context())
	if err != nil {
		return principal{}, err
	}
	if open {
		if !loopback.Host(r.Host) {
			return principal{}, errForeignHost
		}
		return principal{Tenant: openTenant, Open: true}, nil
	}
	return principal{}, nil
}

// errForeignHost: in open mode, a request naming a Host other than the
// loopback (a page elsewhere rebinding its name to 127.0.0.1) is refused.
var errForeignHost = errors.New("web: open mode answers only requests addressed to the loopback")

// newSession returns a session cookie's value for a key: its id, the
// expiry (Unix seconds), a random nonce, and their HMAC.
func (h *Handler) newSession(keyID string, expires time.Time) string {
	var nonce [16]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		panic("web: no randomness: " + err.Error())
	}
	body := keyID + "." + strconv.FormatInt(expires.Unix(), 10) + "." + base64.RawURLEncoding.EncodeToString(nonce[:])
	return body + "." + h.sign("session", body)
}

// checkSession returns the key id of a session cookie's value that this
// handler signed and that has not expired.
func (h *Handler) checkSession(v string) (keyID string, ok bool) {
	dot := strings.LastIndexByte(v, '.')
	if dot < 0 || len(v) > 256 {
		return "", false
	}
	body, sig := v[:dot], v[dot+1:]
	if !hmac.Equal([]byte(sig), []byte(h.sign("session", body))) {
		return "", false
	}
	parts := strings.Split(body, ".")
	if len(parts) != 3 {
		return "", false
	}
	exp, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || !h.now().Before(time.Unix(exp, 0)) {
		return "", false
	}
	return parts[0], true
}

// sign returns the HMAC of a purpose and a value under the session key,
// base64url-encoded.
func (h *Handler) sign(purpose, v string) string {
	m := hmac.New(sha256.New, h.secret)
	m.Write([]byte(purpose))
	m.Write([]byte{0})
	m.Write([]byte(v))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// setCookie sets a dashboard cookie: HTTP-only, Secure, SameSite=Lax, on
// the whole site; a maxAge below 0 deletes it.
func setCookie(w http.ResponseWriter, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, Secure: true, SameSite: http.SameSiteLaxMode})
}

// csrfToken returns the CSRF token of a request's forms: the HMAC of its
// session or, without one, of its vouch_csrf cookie, which it sets when
// the request has none.
func (h *Handler) csrfToken(w http.ResponseWriter, r *http.Request, p principal) string {
	if p.session != "" {
		return h.sign("csrf", p.session)
	}
	if c, err := r.Cookie(csrfCookie); err == nil && validNonce(c.Value) {
		return h.sign("csrf", c.Value)
	}
	var b [18]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("web: no randomness: " + err.Error())
	}
	v := base64.RawURLEncoding.EncodeToString(b[:])
	setCookie(w, csrfCookie, v, 0)
	// Later calls for the same request must see the same value.
	r.AddCookie(&http.Cookie{Name: csrfCookie, Value: v})
	return h.sign("csrf", v)
}

// validNonce reports whether a vouch_csrf cookie has the form this
// handler gives it.
func validNonce(v string) bool {
	if len(v) != 24 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(v)
	return err == nil
}

// checkCSRF reports whether a state-changing request carries the token of
// its session (or of its vouch_csrf cookie): the form field csrf, or the
// X-CSRF-Token header that htmx sends.
func (h *Handler) checkCSRF(r *http.Request, p principal) bool {
	var want string
	switch {
	case p.session != "":
		want = h.sign("csrf", p.session)
	default:
		c, err := r.Cookie(csrfCookie)
		if err != nil || !validNonce(c.Value) {
			return false
		}
		want = h.sign("csrf", c.Value)
	}
	got := r.Header.Get("X-CSRF-Token")
	if got == "" {
		got = r.PostFormValue("csrf")
	}
	return got != "" && hmac.Equal([]byte(got), []byte(want))
}

// localPath returns next when it is a path on this site (an absolute
// path, no scheme, no host, no backslash), else "/": sign-in never
// redirects elsewhere.
func localPath(next string) string {
	if next == "" || next[0] != '/' || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\x00\r\n\t") {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return "/"
	}
	return next
}

// loginData is the sign-in page's.
type loginData struct {
	Next  string
	Error string
}

// handleLoginPage shows the sign-in form; signed in (or in open mode) it
// goes on to next.
func (h *Handler) handleLoginPage(w http.ResponseWriter, r *http.Request) {
	next := localPath(r.URL.Query().Get("next"))
	if principalOf(r.Context()).SignedIn() {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	h.render(w, r, http.StatusOK, "login", loginData{Next: next})
}

// handleLogin signs in with an API key's secret: a session cookie for
// the key, then on to next.
func (h *Handler) handleLogin(w http.ResponseWriter, r *http.Request) {
	next := localPath(r.PostFormValue("next"))
	secret := strings.TrimSpace(r.PostFormValue("key"))
	refuse := func(status int, msg string) {
		h.render(w, r, status, "login", loginData{Next: next, Error: msg})
	}
	id, _, ok := store.ParseSecret(secret)
	if !ok {
		refuse(http.StatusUnauthorized, "That is not an API key of this server (they look like vk_…).")
		return
	}
	k, err := h.keys.Key(r.Context(), id)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		h.storeFailed(w, r, "checking the key", err)
		return
	}
	if k == nil || !k.Matches(secret) {
		refuse(http.StatusUnauthorized, "The key is unknown or revoked.")
		return
	}
	if !k.Has(store.ScopeRead) {
		refuse(http.StatusForbidden, "This key lacks the read scope, which the dashboard needs.")
		return
	}
	setCookie(w, sessionCookie, h.newSession(k.ID, h.now().Add(sessionTTL)), int(sessionTTL/time.Second))
	h.log.Info("dashboard: signed in", "tenant", k.Tenant, "key", k.ID)
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// handleLogout ends the session: the cookie is cleared.
func (h *Handler) handleLogout(w http.ResponseWriter, r *http.Request) {
	setCookie(w, sessionCookie, "", -1)
	if principalOf(r.Context()).Open {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}
