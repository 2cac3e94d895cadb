package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vouchgate/vouch/store"
)

// clock is a test clock that moves only when told.
type clock struct{ n atomic.Int64 }

var epoch = time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)

func (c *clock) now() time.Time          { return epoch.Add(time.Duration(c.n.Load())) }
func (c *clock) advance(d time.Duration) { c.n.Add(int64(d)) }

// hub is a test Subscribe: notify wakes a tenant's streams.
type hub struct {
	mu   sync.Mutex
	subs map[string][]chan struct{}
	// subscribed is signalled on each new subscription.
	subscribed chan string
}

func newHub() *hub {
	return &hub{subs: map[string][]chan struct{}{}, subscribed: make(chan string, 16)}
}

func (h *hub) subscribe(tenant string) (<-chan struct{}, func()) {
	c := make(chan struct{}, 1)
	h.mu.Lock()
	h.subs[tenant] = append(h.subs[tenant], c)
	h.mu.Unlock()
	h.subscribed <- tenant
	return c, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		list := h.subs[tenant]
		for i, x := range list {
			if x == c {
				h.subs[tenant] = append(list[:i:i], list[i+1:]...)
				break
			}
		}
	}
}

func (h *hub) notify(tenant string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range h.subs[tenant] {
		select {
		case c <- struct{}{}:
		default:
		}
	}
}

// env is a dashboard over a fresh SQLite store, served on loopback.
type env struct {
	t     testing.TB
	st    store.Store
	h     *Handler
	srv   *httptest.Server
	clock *clock
	hub   *hub
	done  chan struct{}
}

func newEnv(t testing.TB) *env {
	t.Helper()
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "vouch.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return newEnvStore(t, st)
}

func newEnvStore(t testing.TB, st store.Store) *env {
	t.Helper()
	e := &env{t: t, st: st, clock: &clock{}, hub: newHub(), done: make(chan struct{})}
	h, err := New(Options{Store: st, Now: e.clock.now, Subscribe: e.hub.subscribe, Done: e.done})
	if err != nil {
		t.Fatal(err)
	}
	e.h = h
	e.srv = httptest.NewServer(h)
	t.Cleanup(func() {
		if e.done != nil {
			close(e.done)
		}
		e.srv.Close()
	})
	return e
}

// key makes an API key of tenant with scopes and returns its secret.
func (e *env) key(tenant string, scopes ...string) (string, *store.Key) {
	e.t.Helper()
	secret, k, err := store.NewKey(tenant, "key-"+tenant+"-"+strings.Join(scopes, "-"), scopes, e.clock.now())
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.st.CreateKey(e.t.Context(), k); err != nil {
		e.t.Fatal(err)
	}
	return secret, k
}

type response struct {
	status  int
	header  http.Header
	body    string
	cookies []*http.Cookie
}

// do sends a request without following redirects, with the given cookies.
func (e *env) do(method, path string, form url.Values, cookies []*http.Cookie, header ...string) response {
	e.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(e.t.Context(), method, e.srv.URL+path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	for _, c := range cookies {
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return response{res.StatusCode, res.Header, string(b), res.Cookies()}
}

func (e *env) get(path string, cookies []*http.Cookie, header ...string) response {
	e.t.Helper()
	return e.do(http.MethodGet, path, nil, cookies, header...)
}

var csrfInput = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrfOf returns the CSRF token of the first form in a page.
func csrfOf(t testing.TB, page string) string {
	t.Helper()
	m := csrfInput.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no csrf input in the page:\n%s", page)
	}
	return m[1]
}

// jar merges cookies set by a response into a list, as a browser would.
func jar(have []*http.Cookie, set []*http.Cookie) []*http.Cookie {
	out := append([]*http.Cookie(nil), have...)
	for _, c := range set {
		out = slicesDeleteName(out, c.Name)
		if c.MaxAge >= 0 && c.Value != "" {
			out = append(out, c)
		}
	}
	return out
}

func slicesDeleteName(cs []*http.Cookie, name string) []*http.Cookie {
	var out []*http.Cookie
	for _, c := range cs {
		if c.Name != name {
			out = append(out, c)
		}
	}
	return out
}

// login signs in with a secret through the sign-in form and returns the
// browser's cookies.
func (e *env) login(secret string) []*http.Cookie {
	e.t.Helper()
	page := e.get("/login", nil)
	if page.status != http.StatusOK {
		e.t.Fatalf("GET /login: %d", page.status)
	}
	cookies := jar(nil, page.cookies)
	res := e.do(http.MethodPost, "/login", url.Values{"key": {secret}, "csrf": {csrfOf(e.t, page.body)}, "next": {"/"}}, cookies)
	if res.status != http.StatusSeeOther {
		e.t.Fatalf("POST /login: %d\n%s", res.status, res.body)
	}
	return jar(cookies, res.cookies)
}

func cookieNamed(cs []*http.Cookie, name string) *http.Cookie {
	for _, c := range cs {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func TestLoginLogout(t *testing.T) {
	e := newEnv(t)
	secret, _ := e.key("acme", store.ScopeRead)

	// Not signed in: pages send to the sign-in page, with next.
	res := e.get("/?kind=subtask", nil)
	if res.status != http.StatusSeeOther || res.header.Get("Location") != "/login?next=%2F%3Fkind%3Dsubtask" {
		t.Fatalf("unauthenticated page: %d %q", res.status, res.header.Get("Location"))
	}

	cookies := e.login(secret)
	sess := cookieNamed(cookies, sessionCookie)
	if sess == nil {
		t.Fatal("no session cookie after sign-in")
	}
	if !sess.HttpOnly || !sess.Secure || sess.SameSite != http.SameSiteLaxMode || sess.Path != "/" || sess.MaxAge != int(sessionTTL/time.Second) {
		t.Errorf("session cookie attributes: %+v", sess)
	}
	if strings.Contains(sess.Value, secret) || strings.Contains(sess.Value, strings.Split(secret, "_")[2]) {
		t.Error("the session cookie holds the secret")
	}
	res = e.get("/", cookies)
	if res.status != http.StatusOK || !strings.Contains(res.body, "<h1>Overview</h1>") {
		t.Fatalf("signed in, /: %d %q", res.status, res.header.Get("Location"))
	}

	// An htmx request without a session (it ended while the page was
	// open) sends the whole page to sign in, and back to where it was.
	for _, tc := range []struct{ current, want string }{
		{e.srv.URL + "/verifications?kind=answer", "/login?next=%2Fverifications%3Fkind%3Danswer"},
		{"http://elsewhere.example/verifications", "/login?next=%2F"},
		{"", "/login?next=%2F"},
	} {
		res := e.get("/verifications?kind=answer&verdict=fail", nil, "HX-Request", "true", "HX-Target", "results", "HX-Current-URL", tc.current)
		if res.status != http.StatusUnauthorized || res.header.Get("HX-Redirect") != tc.want {
			t.Errorf("htmx without a session, from %q: %d %q, want 401 %q", tc.current, res.status, res.header.Get("HX-Redirect"), tc.want)
		}
	}

	// A tampered cookie is nobody.
	bad := []*http.Cookie{{Name: sessionCookie, Value: sess.Value[:len(sess.Value)-2] + "xx"}}
	if res := e.get("/", bad); res.header.Get("Location") != "/login?next=%2F" {
		t.Errorf("tampered session: %d %q", res.status, res.header.Get("Location"))
	}

	// Sign out: a POST with the CSRF token clears the cookie.
	page := e.get("/login", cookies) // signed in: sent on
	if page.status != http.StatusSeeOther {
		t.Errorf("GET /login signed in: %d", page.status)
	}
	res = e.do(http.MethodPost, "/logout", url.Values{"csrf": {e.h.sign("csrf", sess.Value)}}, cookies)
	if res.status != http.StatusSeeOther || res.header.Get("Location") != "/login" {
		t.Fatalf("logout: %d %q", res.status, res.header.Get("Location"))
	}
	if c := cookieNamed(res.cookies, sessionCookie); c == nil || c.MaxAge >= 0 {
		t.Errorf("logout does not clear the session cookie: %+v", res.cookies)
	}
	// Sign out without the token is refused.
	if res := e.do(http.MethodPost, "/logout", url.Values{}, cookies); res.status != http.StatusForbidden {
		t.Errorf("logout without CSRF: %d", res.status)
	}
}

func TestLoginRefusals(t *testing.T) {
	e := newEnv(t)
	secret, k := e.key("acme", store.ScopeRead)
	verifyOnly, _ := e.key("acme", store.ScopeVerify)
	page := e.get("/login", nil)
	cookies := jar(nil, page.cookies)
	token := csrfOf(t, page.body)
	post := func(key string) response {
		return e.do(http.MethodPost, "/login", url.Values{"key": {key}, "csrf": {token}}, cookies)
	}
	for _, tc := range []struct {
		name, key string
		status    int
	}{
		{"not a key", "hunter2", http.StatusUnauthorized},
		{"unknown key", "vk_aaaaaaaaaaaa_" + strings.Repeat("0", 64), http.StatusUnauthorized},
		{"wrong secret", flipLast(secret), http.StatusUnauthorized},
		{"no read scope", verifyOnly, http.StatusForbidden},
	} {
		res := post(tc.key)
		if res.status != tc.status || cookieNamed(res.cookies, sessionCookie) != nil {
			t.Errorf("%s: %d (cookies %v), want %d and no session", tc.name, res.status, res.cookies, tc.status)
		}
		if !strings.Contains(res.body, `role="alert"`) {
			t.Errorf("%s: no message on the page", tc.name)
		}
	}
	// Without the CSRF cookie the token is worth nothing.
	if res := e.do(http.MethodPost, "/login", url.Values{"key": {secret}, "csrf": {token}}, nil); res.status != http.StatusForbidden {
		t.Errorf("login without the csrf cookie: %d", res.status)
	}
	// A revoked key ends its sessions on the next request.
	cookies = e.login(secret)
	if res := e.get("/", cookies); res.status != http.StatusOK {
		t.Fatalf("signed in: %d %q", res.status, res.header.Get("Location"))
	}
	if err := e.st.RevokeKey(t.Context(), k.ID, e.clock.now()); err != nil {
		t.Fatal(err)
	}
	if res := e.get("/", cookies); res.header.Get("Location") != "/login?next=%2F" {
		t.Errorf("revoked key still signed in: %d %q", res.status, res.header.Get("Location"))
	}
	page = e.get("/login", nil)
	res := e.do(http.MethodPost, "/login", url.Values{"key": {secret}, "csrf": {csrfOf(t, page.body)}}, jar(nil, page.cookies))
	if res.status != http.StatusUnauthorized {
		t.Errorf("sign-in with a revoked key: %d", res.status)
	}
}

func TestSessionExpires(t *testing.T) {
	e := newEnv(t)
	secret, _ := e.key("acme", store.ScopeRead)
	cookies := e.login(secret)
	e.clock.advance(sessionTTL - time.Second)
	if res := e.get("/", cookies); res.status != http.StatusOK {
		t.Fatalf("before expiry: %d %q", res.status, res.header.Get("Location"))
	}
	e.clock.advance(time.Second)
	if res := e.get("/", cookies); !strings.HasPrefix(res.header.Get("Location"), "/login") {
		t.Errorf("after expiry: %d %q", res.status, res.header.Get("Location"))
	}
}

func TestOpenRedirectRefused(t *testing.T) {
	e := newEnv(t)
	secret, _ := e.key("acme", store.ScopeRead)
	for next, want := range map[string]string{
		"/verifications?kind=answer": "/verifications?kind=answer",
		"https://evil.example/":      "/",
		"//evil.example/x":           "/",
		"/\\evil.example":            "/",
		"javascript:alert(1)":        "/",
		"":                           "/",
		"/ok\r\nSet-Cookie: x=1":     "/",
	} {
		page := e.get("/login?next="+url.QueryEscape(next), nil)
		cookies := jar(nil, page.cookies)
		res := e.do(http.MethodPost, "/login", url.Values{"key": {secret}, "csrf": {csrfOf(t, page.body)}, "next": {next}}, cookies)
		if res.status != http.StatusSeeOther || res.header.Get("Location") != want {
			t.Errorf("next %q: %d → %q, want %q", next, res.status, res.header.Get("Location"), want)
		}
	}
}

func TestOpenMode(t *testing.T) {
	e := newEnv(t)
	// No key: no sign-in, tenant default.
	res := e.get("/", nil)
	if res.status != http.StatusOK || !strings.Contains(res.body, "<h1>Overview</h1>") {
		t.Fatalf("open mode /: %d %q", res.status, res.header.Get("Location"))
	}
	if res := e.get("/login?next=/review", nil); res.status != http.StatusSeeOther || res.header.Get("Location") != "/review" {
		t.Errorf("open mode /login: %d %q", res.status, res.header.Get("Location"))
	}
	// A page elsewhere that rebinds its name to 127.0.0.1 gets nothing.
	for _, host := range []string{"rebound.example", "rebound.example:8080"} {
		if res := e.get("/", nil, "Host", host); res.status != http.StatusForbidden || strings.Contains(res.body, "<h1>Overview</h1>") {
			t.Errorf("open mode, Host %s: %d", host, res.status)
		}
	}
	if res := e.get("/", nil, "Host", "localhost:8080"); res.status != http.StatusOK {
		t.Errorf("open mode, Host localhost: %d", res.status)
	}
	// The first key ends open mode.
	e.key("acme", store.ScopeRead)
	if res := e.get("/", nil); !strings.HasPrefix(res.header.Get("Location"), "/login") {
		t.Errorf("with a key, /: %d %q", res.status, res.header.Get("Location"))
	}
}

func TestSecurityHeaders(t *testing.T) {
	e := newEnv(t)
	for _, path := range []string{"/login", "/static/style.css", "/nope"} {
		res := e.get(path, nil)
		if got := res.header.Get("Content-Security-Policy"); got != contentSecurityPolicy {
			t.Errorf("%s: CSP %q", path, got)
		}
		if res.header.Get("X-Content-Type-Options") != "nosniff" || res.header.Get("Referrer-Policy") != "same-origin" {
			t.Errorf("%s: headers %v", path, res.header)
		}
	}
	page := e.get("/login", nil).body
	// No inline script or style: the CSP would block them.
	for _, bad := range []string{"<script>", "style=", "<style", " on"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q, which the CSP forbids", bad)
		}
	}
}

func TestStatic(t *testing.T) {
	e := newEnv(t)
	res := e.get("/static/htmx.min.js?v="+staticVersion, nil)
	if res.status != http.StatusOK || !strings.HasPrefix(res.header.Get("Content-Type"), "text/javascript") ||
		!strings.Contains(res.header.Get("Cache-Control"), "immutable") || !strings.Contains(res.body, "htmx") {
		t.Errorf("htmx: %d %v", res.status, res.header)
	}
	for _, p := range []string{"/static/", "/static/README", "/static/../web.go", "/static/x/y.js"} {
		if res := e.get(p, nil); res.status != http.StatusNotFound && res.status/100 != 3 {
			t.Errorf("%s: %d", p, res.status)
		}
	}
}

// flipLast changes the last hex digit of a secret.
func flipLast(s string) string {
	if strings.HasSuffix(s, "0") {
		return s[:len(s)-1] + "1"
	}
	return s[:len(s)-1] + "0"
}
