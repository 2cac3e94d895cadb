package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vouchgate/vouch/store"
)

// TestDashboardMounted checks that the dashboard is served beside the API
// by default, and not at all when the configuration turns it off.
func TestDashboardMounted(t *testing.T) {
	e := newEnv(t, nil)
	res := e.do(http.MethodGet, "/static/style.css", "", nil)
	if res.status != http.StatusOK || res.header.Get("Content-Security-Policy") == "" {
		t.Errorf("dashboard static file: %d %v", res.status, res.header)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	r, err := client.Get(e.http.URL + "/login")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusSeeOther { // open mode: nobody signs in
		t.Errorf("GET /login in open mode: %d", r.StatusCode)
	}
	// The API is as it was.
	if res := e.do(http.MethodGet, "/healthz", "", nil); res.status != http.StatusOK {
		t.Errorf("healthz: %d", res.status)
	}

	off := newEnv(t, func(c *Config) { c.Dashboard = false })
	for _, p := range []string{"/", "/login", "/static/style.css"} {
		if res := off.do(http.MethodGet, p, "", nil); res.status != http.StatusNotFound {
			t.Errorf("dashboard off: GET %s: %d", p, res.status)
		}
	}
}

// TestDashboardLive checks the dashboard against the API: a verification
// answered by POST /v1/verify wakes the dashboard's live stream of its
// tenant, shows in the list, and the other tenant sees none of it.
func TestDashboardLive(t *testing.T) {
	e := newEnv(t, nil)
	verify, _ := e.key("acme", store.ScopeVerify, store.ScopeRead)
	reader, _ := e.key("acme", store.ScopeRead)
	cookies := dashboardLogin(t, e, reader)

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.http.URL+"/ui/events", nil)
	for _, c := range cookies {
		req.AddCookie(c)
	}
	res, err := e.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	br := bufio.NewReader(res.Body)
	if line, err := br.ReadString('\n'); err != nil || line != "retry: 5000\n" { // subscribed
		t.Fatalf("stream: %d %q %v", res.StatusCode, line, err)
	}
	if r := e.do(http.MethodPost, "/v1/verify", verify, request("live-1", 1, "DONE <script>x</script>")); r.status != http.StatusOK {
		t.Fatalf("verify: %d %s", r.status, r.body)
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream ended before a change: %v", err)
		}
		if line == "event: changed\n" {
			break
		}
	}
	list := dashboardGet(t, e, "/verifications", cookies)
	if !strings.Contains(list, `href="/verifications/live-1?attempt=1"`) {
		t.Errorf("the list lacks the new verification:\n%s", list)
	}
	detail := dashboardGet(t, e, "/verifications/live-1", cookies)
	if strings.Contains(detail, "<script>x") || !strings.Contains(detail, "DONE &lt;script&gt;x&lt;/script&gt;") {
		t.Error("the detail page does not show the output escaped")
	}
	other, _ := e.key("globex", store.ScopeRead)
	if list := dashboardGet(t, e, "/verifications", dashboardLogin(t, e, other)); strings.Contains(list, "live-1") {
		t.Error("another tenant sees the verification")
	}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// dashboardLogin signs in to the dashboard with a key and returns the
// cookies.
func dashboardLogin(t *testing.T, e *testEnv, secret string) []*http.Cookie {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(e.http.URL + "/login")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := csrfField.FindSubmatch(page)
	if m == nil {
		t.Fatalf("no sign-in form: %d", res.StatusCode)
	}
	cookies := res.Cookies()
	req, _ := http.NewRequest(http.MethodPost, e.http.URL+"/login", strings.NewReader(url.Values{"key": {secret}, "csrf": {string(m[1])}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, c := range cookies {
		req.AddCookie(c)
	}
	res, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", res.StatusCode)
	}
	return res.Cookies()
}

// dashboardGet fetches a dashboard page with cookies.
func dashboardGet(t *testing.T, e *testEnv, path string, cookies []*http.Cookie) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.http.URL+path, nil)
	for _, c := range cookies {
		req.AddCookie(c)
	}
	res, err := e.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", path, res.StatusCode)
	}
	return string(b)
}

// TestDashboardSessionKey checks the session key file: read when set,
// refused when too short to sign with.
func TestDashboardSessionKey(t *testing.T) {
	dir := t.TempDir()
	good, short := filepath.Join(dir, "good.key"), filepath.Join(dir, "short.key")
	if err := os.WriteFile(good, bytes.Repeat([]byte("k"), 32), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(short, []byte("too short"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.Context(), filepath.Join(dir, "vouch.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for file, ok := range map[string]bool{good: true, short: false, filepath.Join(dir, "missing.key"): false} {
		cfg := DefaultConfig()
		cfg.SessionKeyFile = file
		_, err := New(Options{Config: cfg, Store: st})
		if (err == nil) != ok {
			t.Errorf("session key file %s: %v", filepath.Base(file), err)
		}
	}
}

// TestDashboardSessionSharedByServers checks the default session key:
// a file beside the SQLite database, so that a session signed by one server is accepted
// by another on the same store (behind one address, or after a restart),
// while a server given a key file signs with that instead.
func TestDashboardSessionSharedByServers(t *testing.T) {
	dir := t.TempDir()
	dsn := filepath.Join(dir, "vouch.db")
	a := newEnvOn(t, dsn, nil)
	b := newEnvOn(t, dsn, nil)
	reader, _ := a.key("acme", store.ScopeRead)
	cookies := dashboardLogin(t, a, reader)

	if code := dashboardStatus(t, b, "/verifications", cookies); code != http.StatusOK {
		t.Errorf("server B, with server A's session: %d, want 200", code)
	}
	if code := dashboardStatus(t, b, "/verifications", nil); code != http.StatusSeeOther {
		t.Errorf("server B, without a session: %d, want 303 to the sign-in", code)
	}

	file := filepath.Join(dir, "session.key")
	if err := os.WriteFile(file, bytes.Repeat([]byte("k"), 32), 0o600); err != nil {
		t.Fatal(err)
	}
	c := newEnvOn(t, dsn, func(c *Config) { c.SessionKeyFile = file })
	if code := dashboardStatus(t, c, "/verifications", cookies); code != http.StatusSeeOther {
		t.Errorf("a server with a key file, with the stored key's session: %d, want 303 to the sign-in", code)
	}
}

// dashboardStatus fetches a dashboard page with cookies, without
// following a redirect, and returns the status code.
func dashboardStatus(t *testing.T, e *testEnv, path string, cookies []*http.Cookie) int {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest(http.MethodGet, e.http.URL+path, nil)
	for _, c := range cookies {
		req.AddCookie(c)
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// TestDashboardSessionKeyNotInStore: the default session key is a file
// beside the database, readable by its owner alone, and its bytes are
// nowhere in the database's files. Before, it was a row of the store, so
// whoever could read vouch.db could sign in as a reviewer.
func TestDashboardSessionKeyNotInStore(t *testing.T) {
	dir := t.TempDir()
	dsn := filepath.Join(dir, "vouch.db")
	a := newEnvOn(t, dsn, nil)
	file := dsn + sessionKeySuffix
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatalf("no session key file beside the database: %v", err)
	}
	if fi.Mode().Perm() != 0o600 || fi.Size() != sessionKeySize {
		t.Errorf("session key file: mode %v, %d bytes; want 0600, %d", fi.Mode().Perm(), fi.Size(), sessionKeySize)
	}
	key, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	reader, _ := a.key("acme", store.ScopeRead)
	cookies := dashboardLogin(t, a, reader)
	if err := a.store.Close(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{dsn, dsn + "-wal", dsn + "-shm"} {
		b, err := os.ReadFile(name)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		if bytes.Contains(b, key) {
			t.Errorf("%s holds the session key", filepath.Base(name))
		}
	}
	// The file is the key: a server given it accepts the session.
	b := newEnvOn(t, dsn, func(c *Config) { c.SessionKeyFile = file })
	if code := dashboardStatus(t, b, "/verifications", cookies); code != http.StatusOK {
		t.Errorf("a server given the default key file, with a session of the first: %d, want 200", code)
	}
}
