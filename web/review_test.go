package web

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/store"
)

var queueItem = regexp.MustCompile(`<h2 id="r-\d+-h"><a class="mono" href="/verifications/([^?"]+)\?attempt=(\d+)">`)

func queueIDs(page string) []string {
	var out []string
	for _, m := range queueItem.FindAllStringSubmatch(page, -1) {
		out = append(out, m[1]+"/"+m[2])
	}
	return out
}

func TestReviewQueue(t *testing.T) {
	e := newEnv(t)
	for i := range 6 {
		e.insert(fixture{id: fmt.Sprintf("r%d", i), review: i != 2, verdict: "fail", at: epoch.Add(time.Duration(i) * time.Minute)})
	}
	e.insert(fixture{id: "r0", attempt: 2, review: true, verdict: "retry", at: epoch.Add(10 * time.Minute)})
	reviewer, _ := e.key("default", store.ScopeRead, store.ScopeReview)
	rc := e.login(reviewer)

	page := e.get("/review", rc)
	if got, want := strings.Join(queueIDs(page.body), " "), "r0/1 r1/1 r3/1 r4/1 r5/1 r0/2"; got != want {
		t.Fatalf("queue: %s, want %s (oldest first, only those needing review)", got, want)
	}
	for _, want := range []string{`data-queue`, `<kbd>j</kbd>`, `<kbd>a</kbd> accept`, `data-accept`, `href="/review?after=`, `<label for="v-`, `<label for="why-`} {
		if !strings.Contains(page.body, want) {
			t.Errorf("the queue lacks %q", want)
		}
	}
	token := csrfOf(t, page.body)

	// Accept r1: an override with its own verdict; it leaves the queue.
	res := e.do(http.MethodPost, "/review/accept", url.Values{"csrf": {token}, "id": {"r1"}, "attempt": {"1"}, "after": {"0"}}, rc)
	if res.status != http.StatusSeeOther || res.header.Get("Location") != "/review" {
		t.Fatalf("accept: %d %q\n%s", res.status, res.header.Get("Location"), res.body)
	}
	ovs, err := e.st.Overrides(t.Context(), "default", "r1", 1)
	if err != nil || len(ovs) != 1 || ovs[0].Verdict != vouch.VerdictFail || ovs[0].Reason != acceptReason || ovs[0].Reviewer != "key-default-read-review" {
		t.Fatalf("accept stored %+v, %v", ovs, err)
	}
	// Override r3 from the queue, keeping the position.
	res = e.do(http.MethodPost, "/review/override", url.Values{"csrf": {token}, "id": {"r3"}, "attempt": {"1"}, "after": {"7"}, "verdict": {"pass"}, "reason": {"the tests do pass"}}, rc)
	if res.status != http.StatusSeeOther || res.header.Get("Location") != "/review?after=7" {
		t.Fatalf("override from the queue: %d %q", res.status, res.header.Get("Location"))
	}
	page = e.get("/review", rc)
	if got, want := strings.Join(queueIDs(page.body), " "), "r0/1 r4/1 r5/1 r0/2"; got != want {
		t.Errorf("queue after accept and override: %s, want %s", got, want)
	}
	// Skip: the queue after an item.
	m := regexp.MustCompile(`href="/review\?after=(\d+)"`).FindAllStringSubmatch(page.body, -1)
	if len(m) < 2 {
		t.Fatalf("no skip links")
	}
	page = e.get("/review?after="+m[1][1], rc) // skip r0/1 and r4/1
	if got, want := strings.Join(queueIDs(page.body), " "), "r5/1 r0/2"; got != want {
		t.Errorf("queue after skipping two: %s, want %s", got, want)
	}
	// Nothing written by skipping.
	if ovs, err := e.st.Overrides(t.Context(), "default", "r4", 1); err != nil || len(ovs) != 0 {
		t.Errorf("skip wrote %v (%v)", ovs, err)
	}

	// Bad forms.
	for _, f := range []url.Values{
		{"csrf": {token}, "attempt": {"1"}},
		{"csrf": {token}, "id": {"r4"}, "attempt": {"0"}},
		{"csrf": {token}, "id": {"r4"}, "attempt": {"1"}, "after": {"-1"}},
	} {
		if res := e.do(http.MethodPost, "/review/accept", f, rc); res.status != http.StatusBadRequest {
			t.Errorf("accept %v: %d", f, res.status)
		}
	}
	if res := e.do(http.MethodPost, "/review/override", url.Values{"csrf": {token}, "id": {"r4"}, "attempt": {"1"}, "verdict": {"meh"}}, rc); res.status != http.StatusBadRequest {
		t.Errorf("override with a bad verdict: %d", res.status)
	}
	if res := e.do(http.MethodPost, "/review/accept", url.Values{"csrf": {token}, "id": {"r9"}, "attempt": {"1"}}, rc); res.status != http.StatusNotFound {
		t.Errorf("accept of nothing: %d", res.status)
	}
	if res := e.do(http.MethodPost, "/review/accept", url.Values{"id": {"r4"}, "attempt": {"1"}}, rc); res.status != http.StatusForbidden {
		t.Errorf("accept without CSRF: %d", res.status)
	}
	if res := e.get("/review?after=x", rc); res.status != http.StatusBadRequest {
		t.Errorf("bad cursor: %d", res.status)
	}

	// A read key sees the queue without its forms, and cannot accept.
	reader, _ := e.key("default", store.ScopeRead)
	rd := e.login(reader)
	page = e.get("/review", rd)
	if strings.Contains(page.body, "data-accept") || len(queueIDs(page.body)) != 4 {
		t.Error("a read key is shown the queue's forms, or not the queue")
	}
	res = e.do(http.MethodPost, "/review/accept", url.Values{"csrf": {csrfOf(t, e.get("/login", nil).body)}, "id": {"r4"}, "attempt": {"1"}}, rd)
	if res.status != http.StatusForbidden {
		t.Errorf("accept with a read key: %d", res.status)
	}
}

// TestReviewUnverified: an unverified verification in the queue cannot be
// accepted as it is (a person decides pass, retry or fail); its form asks
// for a choice, and a decision takes it out of the queue.
func TestReviewUnverified(t *testing.T) {
	e := newEnv(t)
	e.insert(fixture{id: "u", review: true, verdict: "unverified"}, fixture{id: "f", review: true, verdict: "fail", at: epoch.Add(time.Minute)})
	reviewer, _ := e.key("default", store.ScopeRead, store.ScopeReview)
	rc := e.login(reviewer)
	page := e.get("/review", rc)
	if got := strings.Join(queueIDs(page.body), " "); got != "u/1 f/1" {
		t.Fatalf("queue: %s", got)
	}
	if n := strings.Count(page.body, "data-accept"); n != 1 {
		t.Errorf("%d accept forms, want 1: f's alone", n)
	}
	for _, want := range []string{`<span class="verdict v-unverified">unverified</span>`, "1 claim left unverified",
		"decide pass, retry or fail", `<details open>`, `<option value="" selected disabled>choose one</option>`, "Accept fail"} {
		if !strings.Contains(page.body, want) {
			t.Errorf("the queue lacks %q", want)
		}
	}
	if strings.Contains(page.body, "Accept unverified") || strings.Contains(page.body, "<option>unverified</option>") {
		t.Error("the queue offers to accept, or to give, unverified")
	}
	token := csrfOf(t, page.body)
	res := e.do(http.MethodPost, "/review/accept", url.Values{"csrf": {token}, "id": {"u"}, "attempt": {"1"}}, rc)
	if res.status != http.StatusBadRequest || !strings.Contains(res.body, "want pass, retry or fail") {
		t.Errorf("accepting unverified: %d, want 400 naming pass, retry or fail", res.status)
	}
	res = e.do(http.MethodPost, "/review/override", url.Values{"csrf": {token}, "id": {"u"}, "attempt": {"1"}, "verdict": {"unverified"}}, rc)
	if res.status != http.StatusBadRequest {
		t.Errorf("overriding to unverified: %d, want 400", res.status)
	}
	res = e.do(http.MethodPost, "/review/override", url.Values{"csrf": {token}, "id": {"u"}, "attempt": {"1"}, "verdict": {"pass"}, "reason": {"ran the tests myself"}}, rc)
	if res.status != http.StatusSeeOther {
		t.Fatalf("deciding pass: %d", res.status)
	}
	if ovs, err := e.st.Overrides(t.Context(), "default", "u", 1); err != nil || len(ovs) != 1 || ovs[0].Verdict != vouch.VerdictPass {
		t.Errorf("overrides of u: %+v, %v", ovs, err)
	}
	if got := strings.Join(queueIDs(e.get("/review", rc).body), " "); got != "f/1" {
		t.Errorf("queue after deciding u: %s", got)
	}
}

func TestTenantIsolation(t *testing.T) {
	e := newEnv(t)
	e.insert(fixture{tenant: "acme", id: "secret-task", review: true, summary: "acme's private output"})
	acme, _ := e.key("acme", store.ScopeRead, store.ScopeReview)
	other, _ := e.key("globex", store.ScopeRead, store.ScopeReview)
	ac, oc := e.login(acme), e.login(other)

	if res := e.get("/verifications", ac); len(rowIDs(res.body)) != 1 {
		t.Fatalf("acme's list: %v", rowIDs(res.body))
	}
	for _, path := range []string{"/verifications", "/verifications?task=task-secret-task", "/review"} {
		res := e.get(path, oc)
		if res.status != http.StatusOK || len(rowIDs(res.body)) != 0 || len(queueIDs(res.body)) != 0 || strings.Contains(res.body, "private output") {
			t.Errorf("globex sees acme's rows at %s: %d", path, res.status)
		}
	}
	if res := e.get("/verifications/secret-task", oc); res.status != http.StatusNotFound || strings.Contains(res.body, "private output") {
		t.Errorf("globex's detail of acme's verification: %d", res.status)
	}
	page := e.get("/review", oc)
	token := csrfOf(t, page.body)
	for path, form := range map[string]url.Values{
		"/verifications/secret-task/override": {"csrf": {token}, "attempt": {"1"}, "verdict": {"pass"}},
		"/review/accept":                      {"csrf": {token}, "id": {"secret-task"}, "attempt": {"1"}},
		"/review/override":                    {"csrf": {token}, "id": {"secret-task"}, "attempt": {"1"}, "verdict": {"pass"}},
	} {
		if res := e.do(http.MethodPost, path, form, oc); res.status != http.StatusNotFound {
			t.Errorf("globex POST %s: %d, want 404", path, res.status)
		}
	}
	if ovs, err := e.st.Overrides(t.Context(), "acme", "secret-task", 1); err != nil || len(ovs) != 0 {
		t.Errorf("globex overrode acme's verification: %v (%v)", ovs, err)
	}
	// A session's token is no good with another session.
	acmeToken := csrfOf(t, e.get("/review", ac).body)
	if res := e.do(http.MethodPost, "/review/accept", url.Values{"csrf": {acmeToken}, "id": {"secret-task"}, "attempt": {"1"}}, oc); res.status != http.StatusForbidden {
		t.Errorf("acme's token in globex's session: %d", res.status)
	}

	// globex's live stream listens to globex only.
	_, stop := e.stream(oc)
	defer stop()
	if got := <-e.hub.subscribed; got != "globex" {
		t.Errorf("globex's stream subscribed to %q", got)
	}
}

// stream opens the live stream with cookies and returns its reader once
// the stream has subscribed (its first line is read).
func (e *env) stream(cookies []*http.Cookie) (*bufio.Reader, func()) {
	e.t.Helper()
	ctx, cancel := context.WithCancel(e.t.Context())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.srv.URL+"/ui/events", nil)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	for _, c := range cookies {
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		e.t.Fatalf("stream: %d %v", res.StatusCode, res.Header)
	}
	br := bufio.NewReader(res.Body)
	if line, err := br.ReadString('\n'); err != nil || line != "retry: 5000\n" {
		e.t.Fatalf("stream's first line %q, %v", line, err)
	}
	return br, func() {
		cancel()
		res.Body.Close()
	}
}

// nextEvent reads the stream up to the next event's name.
func nextEvent(t *testing.T, br *bufio.Reader) string {
	t.Helper()
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended: %v", err)
		}
		if name, ok := strings.CutPrefix(line, "event: "); ok {
			return strings.TrimSpace(name)
		}
	}
}

func TestLiveStream(t *testing.T) {
	e := newEnv(t)
	acme, _ := e.key("acme", store.ScopeRead)
	ac := e.login(acme)

	// Without a session: 401, no stream.
	res := e.get("/ui/events", nil, "Accept", "text/event-stream")
	if res.status != http.StatusUnauthorized {
		t.Errorf("stream without a session: %d", res.status)
	}

	br, stop := e.stream(ac)
	defer stop()
	if got := <-e.hub.subscribed; got != "acme" {
		t.Fatalf("subscribed to %q", got)
	}
	// An insert wakes the stream (the server's hub notifies after each
	// commit; here the test does).
	e.insert(fixture{tenant: "acme", id: "new"})
	e.hub.notify("acme")
	if got := nextEvent(t, br); got != "changed" {
		t.Errorf("event %q, want changed", got)
	}

	// The cap: with every slot taken, a new stream is refused.
	for range cap(e.h.streams) - 1 {
		e.h.streams <- struct{}{}
	}
	res = e.get("/ui/events", ac, "Accept", "text/event-stream")
	if res.status != http.StatusServiceUnavailable {
		t.Errorf("stream over the cap: %d", res.status)
	}
	for range cap(e.h.streams) - 1 {
		<-e.h.streams
	}

	// Shutdown ends the stream.
	close(e.done)
	e.done = nil
	for {
		if _, err := br.ReadString('\n'); err != nil {
			break
		}
	}
}
