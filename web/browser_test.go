package web_test

// The dashboard in a real browser: headless Chromium (internal/browsertest)
// against a real server (server.New over a SQLite store in the test's
// temporary directory) served on loopback. Each test (TestBrowser*: run
// them with -run Browser) starts its own browser, which saves a
// screenshot in the test's artifact directory when the test fails; each
// waits on what the page shows, under the browser's deadline, never on
// time passing. Without Chromium they skip, unless
// VOUCH_TEST_BROWSER_REQUIRED is set, as CI sets it.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/internal/browsertest"
	"github.com/vouchgate/vouch/server"
	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/web"
)

// site is a server with its dashboard, served on loopback, and its store.
type site struct {
	t   *testing.T
	st  store.Store
	url string
	// n counts the readings of the server's clock.
	n atomic.Int64
}

// now is the server's clock: every reading is a microsecond after the
// last, from an hour after web.Epoch (the fixtures' time), so that the
// metrics' default window (30 days back from now) holds the fixtures.
func (s *site) now() time.Time {
	return web.Epoch.Add(time.Hour + time.Duration(s.n.Add(1))*time.Microsecond)
}

// newSite opens a store in the test's temporary directory and lets setup
// fill it (keys, verifications) before the server starts: a server reads
// whether it is in open mode, and its keys, through a cache.
func newSite(t *testing.T, setup func(*site)) *site {
	t.Helper()
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "vouch.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := &site{t: t, st: st}
	if setup != nil {
		setup(s)
	}
	srv, err := server.New(server.Options{Config: server.DefaultConfig(), Store: st, Now: s.now})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		// The browser has gone (its cleanup ran first), but a live
		// stream's connection may not have noticed yet.
		hs.CloseClientConnections()
		hs.Close()
	})
	s.url = hs.URL
	return s
}

// key makes an API key of tenant "default" with scopes, and returns its
// secret.
func (s *site) key(scopes ...string) string {
	s.t.Helper()
	secret, k, err := store.NewKey("default", "key-"+strings.Join(scopes, "-"), scopes, web.Epoch)
	if err != nil {
		s.t.Fatal(err)
	}
	if err := s.st.CreateKey(s.t.Context(), k); err != nil {
		s.t.Fatal(err)
	}
	return secret
}

// insert stores the fixtures in order.
func (s *site) insert(fs ...web.Fixture) {
	s.t.Helper()
	for _, f := range fs {
		if _, err := s.st.Insert(s.t.Context(), f.Verification(s.t), nil); err != nil {
			s.t.Fatal(err)
		}
	}
}

// api calls the server's API with a key and decodes a JSON answer into
// out (nil: none wanted); it fails the test on a status other than want.
func (s *site) api(method, path, key string, body []byte, want int, out any) {
	s.t.Helper()
	req, err := http.NewRequestWithContext(s.t.Context(), method, s.url+path, bytes.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	if res.StatusCode != want {
		s.t.Fatalf("%s %s: %d, want %d\n%s", method, path, res.StatusCode, want, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			s.t.Fatalf("%s %s: %v\n%s", method, path, err, b)
		}
	}
}

// load runs actions that make the tab load a page (a click on a link, a
// form's submission) and waits for it to load; it returns the page's
// HTTP status (after redirects).
func load(b *browsertest.Browser, t *testing.T, actions ...chromedp.Action[chromedp.Void]) int {
	t.Helper()
	res, err := chromedp.RunResponse(b.Context(), actions...)
	if err != nil {
		t.Fatalf("loading a page: %v", err)
	}
	if res == nil {
		t.Fatal("loading a page: no response")
	}
	return int(res.Status)
}

// location is the tab's path and query.
func location(b *browsertest.Browser, t *testing.T) string {
	t.Helper()
	loc, err := chromedp.Run(b.Context(), chromedp.Evaluate[string]("location.pathname + location.search"))
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// eval evaluates a JavaScript expression in the tab.
func eval[T any](b *browsertest.Browser, t *testing.T, expr string) T {
	t.Helper()
	v, err := chromedp.Run(b.Context(), chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// signIn signs in on the sign-in page the tab shows and waits for the
// page it goes on to.
func signIn(b *browsertest.Browser, t *testing.T, secret string) int {
	t.Helper()
	b.Do(chromedp.WaitVisible(chromedp.CSS("#key")), chromedp.SendKeys(chromedp.CSS("#key"), secret))
	return load(b, t, chromedp.Click(chromedp.CSS("form.login button[type=submit]")))
}

func TestBrowserLogin(t *testing.T) {
	var reader string
	s := newSite(t, func(s *site) { reader = s.key(store.ScopeRead) })
	b := browsertest.New(t)

	// Not signed in: the root sends to the sign-in page, with next.
	b.Navigate(s.url + "/")
	if got := location(b, t); got != "/login?next=%2F" {
		t.Errorf("/ went to %s, want the sign-in page", got)
	}
	// A page further in comes back after signing in.
	b.Navigate(s.url + "/review")
	if got := location(b, t); got != "/login?next=%2Freview" {
		t.Fatalf("/review went to %s", got)
	}

	// A bad key is refused, with a message, and the form stays.
	if status := signIn(b, t, "vk_not-a-key"); status != http.StatusUnauthorized {
		t.Errorf("a bad key: %d, want 401", status)
	}
	if got := b.Text("p.error"); !strings.Contains(got, "not an API key") {
		t.Errorf("a bad key says %q", got)
	}
	if low := lowContrast(b, t); len(low) > 0 {
		t.Errorf("text the sign-in page draws below 4.5:1: %q", low)
	}
	// The refusal is the page's own answer, which the browser logs as a
	// failed load; nothing else went wrong.
	errs := b.Errors()
	if len(errs) != 1 || !strings.Contains(errs[0], "401") {
		t.Errorf("errors after a refused sign-in: %q", errs)
	}

	// The read key signs in and lands where next said.
	if status := signIn(b, t, reader); status != http.StatusOK {
		t.Fatalf("signing in: %d", status)
	}
	if got := location(b, t); got != "/review" {
		t.Errorf("signed in at %s, want /review", got)
	}
	if got := b.Text(".who"); !strings.Contains(got, "key key-read") {
		t.Errorf("the header says %q", got)
	}
	// The session cookie is HTTP-only (no script sees it) and Secure.
	cookies, err := chromedp.Call(b.Context(), network.GetCookies, network.GetCookiesParams{URLs: []string{s.url + "/"}})
	if err != nil {
		t.Fatal(err)
	}
	var session *network.Cookie
	for _, c := range cookies.Cookies {
		if c.Name == "vouch_session" {
			session = c
		}
	}
	switch {
	case session == nil:
		t.Fatalf("no session cookie among %d cookies", len(cookies.Cookies))
	case !session.HTTPOnly || !session.Secure || session.SameSite != network.CookieSameSiteLax || session.Path != "/":
		t.Errorf("session cookie: httpOnly %v, secure %v, sameSite %q, path %q", session.HTTPOnly, session.Secure, session.SameSite, session.Path)
	}
	if got := eval[string](b, t, "document.cookie"); strings.Contains(got, "vouch_session") {
		t.Errorf("a script sees the session cookie: %q", got)
	}

	// A session that ends while a page is open (here its cookie is
	// deleted): the filter's htmx request is refused, the whole page goes
	// to sign in, and back to the page after.
	b.Navigate(s.url + "/verifications?kind=answer")
	b.Do(chromedp.WaitReady(chromedp.CSS(`body[data-stream="open"]`)))
	if _, err := chromedp.Call(b.Context(), network.DeleteCookies, network.DeleteCookiesParams{Name: "vouch_session", URL: s.url + "/"}); err != nil {
		t.Fatal(err)
	}
	b.Do(chromedp.Evaluate[chromedp.Void](`document.body.dataset.before = "filter"`),
		chromedp.SetValue(chromedp.CSS("#f-verdict"), "fail"),
		chromedp.Click(chromedp.CSS("form.filters button[type=submit]")),
		chromedp.WaitReady(chromedp.CSS("body:not([data-before])")))
	if got := location(b, t); got != "/login?next=%2Fverifications%3Fkind%3Danswer" {
		t.Errorf("an ended session's filter went to %s", got)
	}
	if status := signIn(b, t, reader); status != http.StatusOK {
		t.Fatalf("signing in again: %d", status)
	}
	if got := location(b, t); got != "/verifications?kind=answer" {
		t.Errorf("signed in again at %s, want the page before", got)
	}
	errs = b.Errors()
	if len(errs) != 2 || !strings.Contains(errs[1], "401") {
		t.Errorf("errors after the refused filter: %q", errs)
	}

	// Signing out ends the session: the cookie is gone, and a page sends
	// to the sign-in page again.
	if status := load(b, t, chromedp.Click(chromedp.CSS(".who button[type=submit]"))); status != http.StatusOK {
		t.Errorf("signing out: %d", status)
	}
	if got := location(b, t); got != "/login" {
		t.Errorf("signed out at %s, want /login", got)
	}
	cookies, err = chromedp.Call(b.Context(), network.GetCookies, network.GetCookiesParams{URLs: []string{s.url + "/"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cookies.Cookies {
		if c.Name == "vouch_session" {
			t.Errorf("the session cookie outlived signing out: %+v", c)
		}
	}
	b.Navigate(s.url + "/verifications")
	if got := location(b, t); got != "/login?next=%2Fverifications" {
		t.Errorf("after signing out, /verifications went to %s", got)
	}
	// Nothing went wrong but the two refusals.
	if errs := b.Errors(); len(errs) != 2 {
		t.Errorf("errors: %q", errs)
	}
	b.NoDialogs()
}

// signedIn signs in with secret and opens path.
func signedIn(b *browsertest.Browser, t *testing.T, s *site, secret, path string) {
	t.Helper()
	b.Navigate(s.url + path)
	if status := signIn(b, t, secret); status != http.StatusOK {
		t.Fatalf("signing in: %d", status)
	}
	if got := location(b, t); got != path {
		t.Fatalf("signed in at %s, want %s", got, path)
	}
}

// listRows returns the list's rows as "id verdict kind" (the id is the
// row's link text), in order.
func listRows(b *browsertest.Browser, t *testing.T) []string {
	t.Helper()
	return eval[[]string](b, t, `Array.from(document.querySelectorAll("#rows tr")).filter(r => r.cells.length > 1).
		map(r => [r.cells[0].textContent, r.cells[3].textContent, r.cells[2].textContent].map(s => s.trim()).join(" "))`)
}

// mixed stores nine verifications of three verdicts and three kinds,
// one a minute, "m0" the oldest.
func (s *site) mixed() {
	verdicts := []vouch.Verdict{vouch.VerdictPass, vouch.VerdictRetry, vouch.VerdictFail}
	kinds := []vouch.Kind{vouch.KindSubtask, vouch.KindAnswer, vouch.KindSynthesis}
	for i := range 9 {
		s.insert(web.Fixture{ID: fmt.Sprintf("m%d", i), Verdict: verdicts[i%3], Kind: kinds[i/3], At: web.Epoch.Add(time.Duration(i) * time.Minute)})
	}
}

func TestBrowserFilter(t *testing.T) {
	var reader string
	s := newSite(t, func(s *site) {
		reader = s.key(store.ScopeRead)
		s.mixed()
	})
	b := browsertest.New(t)
	signedIn(b, t, s, reader, "/verifications")
	if got := len(listRows(b, t)); got != 9 {
		t.Fatalf("the list shows %d rows, want 9", got)
	}
	if low := lowContrast(b, t); len(low) > 0 {
		t.Errorf("text the list draws below 4.5:1: %q", low)
	}

	// With scripts: htmx sends the form, swaps the results in place and
	// pushes the filtered URL; the page is not loaded again.
	b.Do(chromedp.Evaluate[chromedp.Void]("window.notReloaded = true"),
		chromedp.SetValue(chromedp.CSS("#f-verdict"), "fail"),
		chromedp.SetValue(chromedp.CSS("#f-kind"), "answer"),
		chromedp.Click(chromedp.CSS("form.filters button[type=submit]")),
		chromedp.Poll[chromedp.Void](`location.search !== "" && document.querySelectorAll("#rows tr").length === 1`))
	want := []string{"m5 fail answer"}
	if got := listRows(b, t); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("filtered by htmx: %q, want %q", got, want)
	}
	if got := location(b, t); got != "/verifications?kind=answer&verdict=fail" {
		t.Errorf("the pushed URL is %s", got)
	}
	if !eval[bool](b, t, "window.notReloaded === true") {
		t.Error("filtering loaded the page again")
	}
	// The swapped rows stay live, on the filtered URL.
	if got := eval[string](b, t, `document.querySelector("#rows[data-live]").getAttribute("hx-get")`); got != "/verifications?kind=answer&verdict=fail" {
		t.Errorf("the live rows refresh from %q", got)
	}
	// A second filter, on the swapped form.
	b.Do(chromedp.SetValue(chromedp.CSS("#f-kind"), ""),
		chromedp.Click(chromedp.CSS("form.filters button[type=submit]")),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll("#rows tr").length === 3`))
	htmxRows := listRows(b, t)
	want = []string{"m8 fail synthesis", "m5 fail answer", "m2 fail subtask"}
	if strings.Join(htmxRows, ",") != strings.Join(want, ",") {
		t.Errorf("filtered by verdict: %q, want %q", htmxRows, want)
	}
	if got := location(b, t); got != "/verifications?verdict=fail" {
		t.Errorf("the pushed URL is %s", got)
	}

	// Back: htmx keeps no page in the browser's storage, so the page
	// before the filter is fetched again, whole.
	b.Do(chromedp.Evaluate[chromedp.Void](`document.body.dataset.before = "back"; history.back()`),
		chromedp.WaitReady(chromedp.CSS("body:not([data-before])")),
		chromedp.WaitVisible(chromedp.CSS("#rows")))
	if got := location(b, t); got != "/verifications?kind=answer&verdict=fail" {
		t.Errorf("back at %s", got)
	}
	if got := listRows(b, t); strings.Join(got, ",") != "m5 fail answer" {
		t.Errorf("back: %q, want the rows of the filter before", got)
	}
	if got := eval[string](b, t, `document.getElementById("f-kind").value`); got != "answer" {
		t.Errorf("back: the form shows kind %q", got)
	}

	// A filter the list refuses says why, in place.
	b.Do(chromedp.SetValue(chromedp.CSS("#f-since"), "2026-11-02T12:00"),
		chromedp.SetValue(chromedp.CSS("#f-until"), "2026-11-02T11:00"),
		chromedp.Click(chromedp.CSS("form.filters button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("#results .error")))
	if got := b.Text("#results .error"); got != "Since must be before until" {
		t.Errorf("a refused filter says %q", got)
	}
	if n := len(listRows(b, t)); n != 0 {
		t.Errorf("a refused filter shows %d rows", n)
	}
	// Its answer is a 400, which the browser logs; nothing else is.
	if errs := b.Errors(); len(errs) != 1 || !strings.Contains(errs[0], "400") {
		t.Errorf("errors after a refused filter: %q", errs)
	}
	b.Do(chromedp.SetValue(chromedp.CSS("#f-since"), ""), chromedp.SetValue(chromedp.CSS("#f-until"), ""))

	// The address shared or reloaded: the same rows, drawn by the server.
	b.Navigate(s.url + "/verifications?verdict=fail")
	if got := listRows(b, t); strings.Join(got, ",") != strings.Join(htmxRows, ",") {
		t.Errorf("GET with the filter: %q, want %q", got, htmxRows)
	}

	// Without scripts: the form is a plain GET, with the same rows.
	if _, err := chromedp.Call(b.Context(), emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	b.Navigate(s.url + "/verifications")
	b.Do(chromedp.SetValue(chromedp.CSS("#f-verdict"), "fail"))
	if status := load(b, t, chromedp.Click(chromedp.CSS("form.filters button[type=submit]"))); status != http.StatusOK {
		t.Errorf("the form without scripts: %d", status)
	}
	if got := location(b, t); !strings.HasPrefix(got, "/verifications?") || !strings.Contains(got, "verdict=fail") {
		t.Errorf("the form without scripts went to %s", got)
	}
	if got := listRows(b, t); strings.Join(got, ",") != strings.Join(htmxRows, ",") {
		t.Errorf("filtered without scripts: %q, want %q", got, htmxRows)
	}
	if errs := b.Errors(); len(errs) != 1 {
		t.Errorf("errors: %q, want the refused filter's alone", errs)
	}
	b.NoDialogs()
}

func TestBrowserDetail(t *testing.T) {
	var reader string
	s := newSite(t, func(s *site) {
		reader = s.key(store.ScopeRead)
		s.mixed()
	})
	b := browsertest.New(t)
	signedIn(b, t, s, reader, "/verifications")

	if status := load(b, t, chromedp.Click(chromedp.CSS(`#rows a[href^="/verifications/m4?"]`))); status != http.StatusOK {
		t.Fatalf("opening m4: %d", status)
	}
	if got := location(b, t); got != "/verifications/m4?attempt=1" {
		t.Errorf("the row's link went to %s", got)
	}
	if got := b.Text("h1"); got != "Verification m4, attempt 1" {
		t.Errorf("heading %q", got)
	}
	if got := b.Text("p.headline .verdict"); got != "retry" {
		t.Errorf("verdict %q", got)
	}
	if got := b.Text(".why"); !strings.Contains(got, "Row 1") || !strings.Contains(got, "claims.count failed: 4 claimed, 1 found") {
		t.Errorf("the reason says %q", got)
	}
	// The claim ledger, first: each claim's state, kind and text, and a
	// link to the checks that decided it.
	claims := eval[[]string](b, t, `Array.from(document.querySelectorAll("section[aria-labelledby=h-claims] tbody tr")).
		map(r => r.cells[1].textContent.trim() + " " + r.cells[2].textContent.trim())`)
	if got, want := strings.Join(claims, ", "), "refuted symbol, verified file, unverified tests"; got != want {
		t.Errorf("claims: %s, want %s", got, want)
	}
	b.Do(chromedp.Click(chromedp.CSS(`section[aria-labelledby=h-claims] a[href="#check-1"]`)))
	if got := eval[string](b, t, `location.hash + " " + document.querySelector(":target").cells[0].textContent.trim()`); got != "#check-1 claims.count (check 1; claim c1)" {
		t.Errorf("the claim's check link went to %q", got)
	}
	checks := eval[[]string](b, t, `Array.from(document.querySelectorAll("section[aria-labelledby=h-checks] tbody tr")).
		map(r => r.cells[0].textContent.trim() + " " + r.cells[3].textContent.trim())`)
	if got, want := strings.Join(checks, ", "), "structure (check 0) pass, claims.count (check 1; claim c1) fail, claims.region (check 2; claim c1) fail, grounding.files (check 3; claim c2) pass"; got != want {
		t.Errorf("checks: %s, want %s", got, want)
	}
	if got := b.Text("section[aria-labelledby=h-checks] tbody tr:nth-child(2) ul.ev"); !strings.Contains(got, "code: COUNT_MISMATCH") {
		t.Errorf("the count check's evidence: %q", got)
	}
	// The output, with its mentions marked where they occur.
	marks := eval[[]string](b, t, `Array.from(document.querySelectorAll("pre.output mark")).map(m => m.className + " " + m.textContent)`)
	if got, want := strings.Join(marks, ", "), "ok src/parser.ts, unv tokenize, bad src/lexer.ts"; got != want {
		t.Errorf("marks in the output: %s, want %s", got, want)
	}
	if got := b.Text("pre.output"); !strings.HasPrefix(got, "Added JSDoc comments to all 4 exported functions") {
		t.Errorf("the output reads %q", got)
	}
	if low := lowContrast(b, t); len(low) > 0 {
		t.Errorf("text the page draws below 4.5:1: %q", low)
	}
	// A read key sees no override form.
	if n := eval[int](b, t, `document.querySelectorAll("form.override").length`); n != 0 {
		t.Errorf("a read key is shown %d override forms", n)
	}
	b.NoErrors()
	b.NoDialogs()
}

// reviews returns the reviews figures of GET /v1/metrics, with key.
func (s *site) reviews(key string) api.Reviews {
	s.t.Helper()
	var m api.Metrics
	s.api(http.MethodGet, "/v1/metrics", key, nil, http.StatusOK, &m)
	return m.Reviews
}

func TestBrowserOverride(t *testing.T) {
	var reviewer string
	s := newSite(t, func(s *site) {
		reviewer = s.key(store.ScopeRead, store.ScopeReview)
		s.mixed()
	})
	before := s.reviews(reviewer)
	if before.Reviewed != 0 || before.Overridden != 0 {
		t.Fatalf("reviews before any override: %+v", before)
	}
	b := browsertest.New(t)
	signedIn(b, t, s, reviewer, "/verifications/m4?attempt=1")
	if got := b.Text("#overrides .note"); !strings.Contains(got, "No person has overridden") {
		t.Errorf("overrides before: %q", got)
	}

	// m4 was sent back (retry); the reviewer says it passes.
	b.Do(chromedp.SetValue(chromedp.CSS("#o-verdict"), "pass"),
		chromedp.SendKeys(chromedp.CSS("#o-reason"), "the four comments are there; the count check misread the file"))
	if status := load(b, t, chromedp.Click(chromedp.CSS("form.override button[type=submit]"))); status != http.StatusOK {
		t.Fatalf("the override: %d", status)
	}
	if got := location(b, t); got != "/verifications/m4?attempt=1" {
		t.Errorf("after the override the page is %s", got)
	}
	row := eval[[]string](b, t, `Array.from(document.querySelectorAll("#overrides tbody tr:first-child td")).map(c => c.textContent.trim())`)
	if len(row) != 4 || row[1] != "pass" || row[2] != "key-read-review" || row[3] != "the four comments are there; the count check misread the file" {
		t.Errorf("the page lists the override as %q", row)
	}
	if n := eval[int](b, t, `document.querySelectorAll("#overrides tbody tr").length`); n != 1 {
		t.Errorf("%d overrides listed, want 1", n)
	}

	// The metrics count it: one verification reviewed, its verdict
	// overridden.
	after := s.reviews(reviewer)
	if after.Reviewed != before.Reviewed+1 || after.Overridden != before.Overridden+1 {
		t.Errorf("reviews: before %+v, after %+v: want one more reviewed and overridden", before, after)
	}
	if after.Rate.N != 1 || after.Rate.Of != 9 {
		t.Errorf("override rate %d of %d, want 1 of 9", after.Rate.N, after.Rate.Of)
	}
	b.NoErrors()
	b.NoDialogs()

	// The quality page shows the same count, in the element with id
	// reviews-overrides.
	t.Run("quality page", func(t *testing.T) {
		if status := load(b, t, chromedp.Navigate(s.url+"/quality")); status != http.StatusOK {
			t.Fatalf("GET /quality: %d", status)
		}
		// b's own helpers fail b's test, the parent: this one's are used.
		if err := chromedp.Do(b.Context(), chromedp.WaitVisible(chromedp.CSS("#reviews-overrides"))); err != nil {
			t.Fatalf("no #reviews-overrides on /quality: %v", err)
		}
		got := eval[string](b, t, `document.getElementById("reviews-overrides").textContent`)
		if !regexp.MustCompile(`(^|\D)` + strconv.FormatInt(after.Overridden, 10) + `(\D|$)`).MatchString(got) {
			t.Errorf("#reviews-overrides says %q, want the override count %d", got, after.Overridden)
		}
		if low := lowContrast(b, t); len(low) > 0 {
			t.Errorf("text the quality page draws below 4.5:1: %q", low)
		}
		if errs := b.Errors(); len(errs) > 0 {
			t.Errorf("the quality page reported errors: %q", errs)
		}
		if d := b.Dialogs(); len(d) > 0 {
			t.Errorf("the quality page opened dialogs: %q", d)
		}
	})
}

// queueItems returns the review queue's items as their verification ids,
// in order.
func queueItems(b *browsertest.Browser, t *testing.T) []string {
	t.Helper()
	return eval[[]string](b, t, `Array.from(document.querySelectorAll("[data-queue] .item h2 a")).map(a => a.textContent.trim())`)
}

// focused names the queue item holding the focus ("" for none), and the
// focused element's tag.
func focused(b *browsertest.Browser, t *testing.T) (item, tag string) {
	t.Helper()
	v := eval[[]string](b, t, `(() => { const a = document.activeElement, it = a && a.closest(".item");
		return [it ? it.querySelector("h2 a").textContent.trim() : "", a ? a.tagName : ""] })()`)
	return v[0], v[1]
}

func TestBrowserReviewKeys(t *testing.T) {
	var reviewer string
	s := newSite(t, func(s *site) {
		reviewer = s.key(store.ScopeRead, store.ScopeReview)
		s.insert(web.Fixture{ID: "q1", Verdict: "fail", Review: true, At: web.Epoch},
			web.Fixture{ID: "done", Verdict: "pass", At: web.Epoch.Add(time.Minute)},
			web.Fixture{ID: "q2", Verdict: "retry", Review: true, At: web.Epoch.Add(2 * time.Minute)},
			web.Fixture{ID: "q3", Verdict: "fail", Review: true, At: web.Epoch.Add(3 * time.Minute)},
			web.Fixture{ID: "q4", Verdict: "pass", Review: true, At: web.Epoch.Add(4 * time.Minute)})
	})
	b := browsertest.New(t)
	signedIn(b, t, s, reviewer, "/review")
	if got := strings.Join(queueItems(b, t), " "); got != "q1 q2 q3 q4" {
		t.Fatalf("the queue: %s, want q1 q2 q3 q4 (oldest first, only those needing review)", got)
	}
	if low := lowContrast(b, t); len(low) > 0 {
		t.Errorf("text the queue draws below 4.5:1: %q", low)
	}
	// The first item has the focus; j moves it down, k up.
	if item, _ := focused(b, t); item != "q1" {
		t.Errorf("focus on load: %q, want q1", item)
	}
	b.Do(chromedp.KeyEvent("jj"))
	if item, _ := focused(b, t); item != "q3" {
		t.Errorf("focus after j j: %q, want q3", item)
	}
	b.Do(chromedp.KeyEvent("k"))
	if item, _ := focused(b, t); item != "q2" {
		t.Errorf("focus after k: %q, want q2", item)
	}

	// a accepts q2's own verdict: the form is sent, the queue comes back
	// without it.
	if status := load(b, t, chromedp.KeyEvent("a")); status != http.StatusOK {
		t.Fatalf("accepting: %d", status)
	}
	if got := location(b, t); got != "/review" {
		t.Errorf("after accepting the page is %s", got)
	}
	if got := strings.Join(queueItems(b, t), " "); got != "q1 q3 q4" {
		t.Errorf("the queue after accepting q2: %s, want q1 q3 q4", got)
	}
	// s skips: the focus moves on, nothing is written.
	if item, _ := focused(b, t); item != "q1" {
		t.Errorf("focus after accepting: %q, want q1", item)
	}
	b.Do(chromedp.KeyEvent("s"))
	if item, _ := focused(b, t); item != "q3" {
		t.Errorf("focus after s: %q, want q3", item)
	}
	// o opens the focused item's override form, on its verdict field.
	b.Do(chromedp.KeyEvent("o"))
	if item, tag := focused(b, t); item != "q3" || tag != "SELECT" {
		t.Errorf("focus after o: %q %s, want q3's verdict field", item, tag)
	}
	if !eval[bool](b, t, `document.activeElement.closest("details").open`) {
		t.Error("o left the override form closed")
	}
	// Keys typed into the form are the form's, not the queue's.
	b.Do(chromedp.Focus(chromedp.CSS(".item:focus-within textarea")), chromedp.KeyEvent("jas"))
	if item, tag := focused(b, t); item != "q3" || tag != "TEXTAREA" {
		t.Errorf("typing in the reason moved the focus to %q %s", item, tag)
	}
	if got := eval[string](b, t, `document.activeElement.value`); got != "jas" {
		t.Errorf("the reason reads %q", got)
	}

	// The store: q2 alone was labelled, with its own verdict.
	for _, id := range []string{"q1", "q2", "q3", "q4"} {
		ovs, err := s.st.Overrides(t.Context(), "default", id, 1)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case id == "q2" && (len(ovs) != 1 || ovs[0].Verdict != vouch.VerdictRetry || ovs[0].Reason != web.AcceptReason || ovs[0].Reviewer != "key-read-review"):
			t.Errorf("q2's overrides: %+v, want one accepting retry", ovs)
		case id != "q2" && len(ovs) != 0:
			t.Errorf("%s's overrides: %+v, want none", id, ovs)
		}
	}
	b.NoErrors()
	b.NoDialogs()
}

// injection is agent text that would run if a page trusted it as HTML.
const injection = `<script>alert(1)</script> <img src=x onerror=alert(2)> <a href="javascript:alert(3)">javascript:alert(3)</a>`

func TestBrowserInjectedScript(t *testing.T) {
	// Open mode (no key in the store): nobody signs in.
	s := newSite(t, func(s *site) {
		f := web.Fixture{ID: "inj", Verdict: "retry", Review: true, Model: `<img src=x onerror=alert(4)>`,
			Summary: "Added JSDoc comments to src/parser.ts, including tokenize. " + injection, Calls: 4, CallText: injection}
		v := f.Verification(s.t)
		v.Goal = `<script>alert(5)</script>Document the parser`
		if _, err := s.st.Insert(s.t.Context(), v, nil); err != nil {
			s.t.Fatal(err)
		}
	})
	b := browsertest.New(t)
	// injected reports what of the injection became markup: a script,
	// an image or a javascript: link in the page's main part.
	injected := func() int {
		return eval[int](b, t, `document.querySelectorAll('main script, main img, main [onerror], a[href^="javascript:"]').length`)
	}

	b.Navigate(s.url + "/verifications")
	if got := b.Text(`#rows tr:first-child td:nth-child(6)`); got != `<img src=x onerror=alert(4)>` {
		t.Errorf("the list shows the model as %q", got)
	}
	if n := injected(); n != 0 {
		t.Errorf("the list holds %d injected elements", n)
	}

	b.Navigate(s.url + "/verifications/inj")
	out := b.Text("pre.output")
	if !strings.Contains(out, injection) {
		t.Errorf("the output does not read as text:\n%s", out)
	}
	if got := b.Text(".facts"); !strings.Contains(got, `<script>alert(5)</script>Document the parser`) || !strings.Contains(got, `<img src=x onerror=alert(4)>`) {
		t.Errorf("the facts read %q", got)
	}
	// The unverified mention's sentence quotes the injection too.
	if got := b.Text("section[aria-labelledby=h-output] ul"); !strings.Contains(got, "<script>alert(1)</script>") {
		t.Errorf("the unverified mentions read %q", got)
	}
	// A tool call's input and output quote it too, opened.
	b.Do(chromedp.Click(chromedp.CSS("#call-0 details.io summary")))
	if got := b.Text("#call-0 details.io"); strings.Count(got, injection) != 2 {
		t.Errorf("call 0's input and output read %q", got)
	}
	if n := injected(); n != 0 {
		t.Errorf("the detail page holds %d injected elements", n)
	}

	b.Navigate(s.url + "/review")
	if got := b.Text("[data-queue] .item"); !strings.Contains(got, `<script>alert(5)</script>Document the parser`) || !strings.Contains(got, `<img src=x onerror=alert(4)>`) {
		t.Errorf("the queue item reads %q", got)
	}
	if n := injected(); n != 0 {
		t.Errorf("the queue holds %d injected elements", n)
	}

	// Nothing ran, and nothing had to be blocked: the text was never
	// markup, so the Content-Security-Policy had nothing to refuse.
	b.NoDialogs()
	b.NoErrors()
}

// verifyRequest is a small subtask request whose must-pass criterion is
// met when the summary says DONE.
func verifyRequest(id, model, summary string) []byte {
	b, err := json.Marshal(map[string]any{
		"id": id, "attempt": 1,
		"task": map[string]any{"id": "t-" + id, "goal": "say done",
			"executor": map[string]any{"provider": "openai", "model": model},
			"criteria": []any{map[string]any{"id": "c1", "text": "says DONE", "must": true, "check": map[string]any{"type": "contains", "value": "DONE"}}}},
		"output": map[string]any{"summary": summary},
	})
	if err != nil {
		panic(err)
	}
	return b
}

func TestBrowserLiveList(t *testing.T) {
	var reader, verifier string
	s := newSite(t, func(s *site) {
		reader = s.key(store.ScopeRead)
		verifier = s.key(store.ScopeVerify)
		s.mixed()
	})
	b := browsertest.New(t)
	signedIn(b, t, s, reader, "/verifications")
	// The page's live stream is open once the page says so.
	b.Do(chromedp.Evaluate[chromedp.Void]("window.notReloaded = true"),
		chromedp.WaitReady(chromedp.CSS(`body[data-stream="open"]`)))

	s.api(http.MethodPost, "/v1/verify", verifier, verifyRequest("live-1", `<img src=x onerror=alert(6)>`, "DONE <script>alert(7)</script>"), http.StatusOK, nil)
	b.Do(chromedp.Poll[chromedp.Void](`document.querySelector("#rows tr:first-child a") &&
		document.querySelector("#rows tr:first-child a").textContent === "live-1"`))
	rows := listRows(b, t)
	if len(rows) != 10 || rows[0] != "live-1 pass subtask" {
		t.Errorf("the live list: %q, want live-1 on top of the nine", rows)
	}
	if got := b.Text(`#rows tr:first-child td:nth-child(6)`); got != `openai:<img src=x onerror=alert(6)>` {
		t.Errorf("the new row's model reads %q", got)
	}
	if !eval[bool](b, t, "window.notReloaded === true") {
		t.Error("the list loaded the page again")
	}

	// An older page is not live; filtering it from there brings the
	// newest rows, which are.
	b.Navigate(s.url + "/verifications?before=3")
	if n := eval[int](b, t, `document.querySelectorAll("[data-live]").length`); n != 0 {
		t.Errorf("an older page has %d live regions", n)
	}
	b.Do(chromedp.Evaluate[chromedp.Void]("window.notReloaded = true"),
		chromedp.SetValue(chromedp.CSS("#f-verdict"), "pass"),
		chromedp.Click(chromedp.CSS("form.filters button[type=submit]")),
		chromedp.WaitReady(chromedp.CSS("#rows[data-live]")),
		chromedp.WaitReady(chromedp.CSS(`body[data-stream="open"]`)))
	s.api(http.MethodPost, "/v1/verify", verifier, verifyRequest("live-2", "gpt-4o-mini", "DONE"), http.StatusOK, nil)
	b.Do(chromedp.Poll[chromedp.Void](`document.querySelector("#rows tr:first-child a") &&
		document.querySelector("#rows tr:first-child a").textContent === "live-2"`))
	if rows := listRows(b, t); len(rows) != 5 || rows[0] != "live-2 pass subtask" || rows[1] != "live-1 pass subtask" {
		t.Errorf("the live list filtered on pass: %q", rows)
	}
	if !eval[bool](b, t, "window.notReloaded === true") {
		t.Error("the list loaded the page again")
	}
	b.NoDialogs()
	b.NoErrors()
}

// lowContrast returns the visible text of the page whose colour has a
// contrast of less than 4.5:1 (WCAG AA) with the background it is drawn
// on, each as "text: ratio"; the style sheet's own test reads its colours
// one by one, the browser sees what inheritance makes of them.
func lowContrast(b *browsertest.Browser, t *testing.T) []string {
	t.Helper()
	return eval[[]string](b, t, `(() => {
		const rgba = s => { const m = s.match(/[\d.]+/g).map(Number); return m.length === 3 ? [...m, 1] : m; };
		const lum = ([r, g, b]) => { const f = c => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
			return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
		const background = el => {
			for (; el; el = el.parentElement) { const c = rgba(getComputedStyle(el).backgroundColor); if (c[3] > 0) return c; }
			return [255, 255, 255, 1];
		};
		const out = [];
		for (const el of document.body.querySelectorAll("*")) {
			const text = Array.from(el.childNodes).filter(n => n.nodeType === 3).map(n => n.textContent).join("").trim();
			if (!text || !el.checkVisibility() || el.getClientRects().length === 0) continue;
			const fg = lum(rgba(getComputedStyle(el).color)), bg = lum(background(el));
			const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
			if (ratio < 4.5) out.push(el.tagName.toLowerCase() + " " + JSON.stringify(text.slice(0, 40)) + ": " + ratio.toFixed(2));
		}
		return out;
	})()`)
}
