package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/store"
)

func (e *testEnv) key(tenant string, scopes ...string) (string, *store.Key) {
	e.t.Helper()
	secret, k, err := store.NewKey(tenant, "test", scopes, e.clock.now())
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.store.CreateKey(e.t.Context(), k); err != nil {
		e.t.Fatal(err)
	}
	e.clock.advance(time.Minute) // past the open-mode cache
	return secret, k
}

func TestAuthAndScopes(t *testing.T) { testAuthAndScopes(t, newEnv) }

func testAuthAndScopes(t *testing.T, newEnv envMaker) {
	e := newEnv(t, nil)
	// No keys: open, as tenant default.
	if res := e.do("POST", "/v1/verify", "", request("o1", 1, "DONE")); res.status != 200 {
		t.Fatalf("open mode: %d", res.status)
	}
	// ... but only for requests addressed to the loopback: a page
	// elsewhere that rebinds its name to 127.0.0.1 is refused.
	if res := e.do("GET", "/v1/verifications/o1", "", nil, "Host", "rebound.example:8080"); res.status != 403 {
		t.Errorf("open mode, Host rebound.example: %d %s", res.status, res.body)
	}
	if res := e.do("GET", "/v1/verifications/o1", "", nil, "Host", "localhost:8080"); res.status != 200 {
		t.Errorf("open mode, Host localhost: %d %s", res.status, res.body)
	}
	verifier, _ := e.key("acme", store.ScopeVerify)
	reader, readerKey := e.key("acme", store.ScopeRead)
	admin, _ := e.key("acme", store.ScopeAdmin)
	operator, _ := e.key("ops", store.ScopeOperator)

	for _, tc := range []struct {
		name, method, path, key string
		want                    int
	}{
		{"no key once keys exist", "POST", "/v1/verify", "", 401},
		{"a made-up key", "POST", "/v1/verify", "vk_nope_nope", 401},
		{"a tampered key", "POST", "/v1/verify", verifier[:len(verifier)-2] + "xx", 401},
		{"read key cannot verify", "POST", "/v1/verify", reader, 403},
		{"verify key verifies", "POST", "/v1/verify", verifier, 200},
		{"verify key cannot read", "GET", "/v1/verifications", verifier, 403},
		{"read key reads", "GET", "/v1/verifications/a1", reader, 200},
		{"metrics need the operator", "GET", "/metrics", reader, 403},
		// /metrics names every tenant: a tenant's admin key does not
		// read it.
		{"a tenant's admin cannot read metrics", "GET", "/metrics", admin, 403},
		{"the operator reads metrics", "GET", "/metrics", operator, 200},
		{"the operator key verifies nothing", "POST", "/v1/verify", operator, 403},
		{"admin verifies", "POST", "/v1/verify", admin, 200},
		{"health is public", "GET", "/healthz", "", 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body []byte
			if tc.method == "POST" {
				body = request("a1", 1, "DONE")
			}
			res := e.do(tc.method, tc.path, tc.key, body)
			if res.status != tc.want {
				t.Errorf("status %d, want %d: %s", res.status, tc.want, res.body)
			}
			if tc.want == 401 && res.header.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}
	// The default tenant's row is not acme's.
	if res := e.do("GET", "/v1/verifications/o1", reader, nil); res.status != 404 {
		t.Errorf("acme reads the default tenant's row: %d", res.status)
	}
	// A revoked key stops working once the cache expires.
	if err := e.store.RevokeKey(t.Context(), readerKey.ID, e.clock.now()); err != nil {
		t.Fatal(err)
	}
	e.clock.advance(time.Minute)
	if res := e.do("GET", "/v1/verifications", reader, nil); res.status != 401 {
		t.Errorf("revoked key: %d", res.status)
	}
	// X-API-Key works as well as Bearer.
	if res := e.do("GET", "/v1/verifications", "", nil, "X-API-Key", admin); res.status != 200 {
		t.Errorf("X-API-Key: %d", res.status)
	}
	// Revoking every key leaves a closed server: open mode, ended by the
	// first key, never starts again.
	var keys []store.Key
	for _, tenant := range []string{"acme", "ops"} {
		ks, err := e.store.Keys(t.Context(), tenant)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, ks...)
	}
	for _, k := range keys {
		if err := e.store.RevokeKey(t.Context(), k.ID, e.clock.now()); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := e.store.ActiveKeys(t.Context()); err != nil || n != 0 {
		t.Fatalf("active keys %d, %v", n, err)
	}
	e.clock.advance(time.Minute)
	for _, path := range []string{"/v1/verifications", "/metrics"} {
		if res := e.do("GET", path, "", nil, "Host", "localhost:8080"); res.status != 401 {
			t.Errorf("GET %s without a key after every key was revoked: %d, want 401", path, res.status)
		}
	}
}

// TestTenantIsolation tries to read, list, stream and batch another
// tenant's rows, and gets nothing.
func TestTenantIsolation(t *testing.T) { testTenantIsolation(t, newEnv) }

func testTenantIsolation(t *testing.T, newEnv envMaker) {
	e := newEnv(t, nil)
	a, _ := e.key("alpha", store.ScopeAdmin)
	b, _ := e.key("beta", store.ScopeAdmin)
	if res := e.do("POST", "/v1/verify", a, request("secret-1", 1, "DONE")); res.status != 200 {
		t.Fatal(res.status)
	}
	res := e.do("POST", "/v1/batches", a, request("secret-2", 1, "DONE"))
	if res.status != 202 {
		t.Fatal(res.status)
	}
	batch := decode[api.BatchStatus](t, res.body)
	e.waitBatch("alpha", a, batch.ID)

	for _, path := range []string{"/v1/verifications/secret-1", "/v1/verifications/secret-1?attempt=1", "/v1/verifications/secret-2",
		"/v1/batches/" + batch.ID, "/v1/batches/" + batch.ID + "/results"} {
		if res := e.do("GET", path, b, nil); res.status != 404 || bytes.Contains(res.body, []byte("DONE")) {
			t.Errorf("beta GET %s: %d %s", path, res.status, res.body)
		}
		if res := e.do("GET", path, a, nil); res.status != 200 {
			t.Errorf("alpha GET %s: %d", path, res.status)
		}
	}
	for _, q := range []string{"", "?taskId=t-secret-1", "?interactionId=run-1"} {
		list := decode[api.List](t, e.do("GET", "/v1/verifications"+q, b, nil).body)
		if len(list.Items) != 0 {
			t.Errorf("beta lists %s: %+v", q, list.Items)
		}
		if list := decode[api.List](t, e.do("GET", "/v1/verifications"+q, a, nil).body); len(list.Items) == 0 {
			t.Errorf("alpha lists nothing for %s", q)
		}
	}
	// The same id in beta is beta's own verification, not a replay or a
	// conflict with alpha's.
	if res := e.do("POST", "/v1/verify", b, request("secret-1", 1, "other")); res.status != 200 || res.header.Get("Idempotent-Replayed") != "" {
		t.Errorf("beta's own secret-1: %d replayed=%q", res.status, res.header.Get("Idempotent-Replayed"))
	}
	// Beta's stream from the start holds only beta's events.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", e.http.URL+"/v1/events?after=0", nil)
	req.Header.Set("Authorization", "Bearer "+b)
	sres, err := e.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer sres.Body.Close()
	sc := bufio.NewScanner(sres.Body)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "data: ") {
			if !strings.Contains(line, `"tenant":"beta"`) || strings.Contains(line, `"tenant":"alpha"`) {
				t.Errorf("beta's stream carries alpha's event: %.120s", line)
			}
			n++
			if n == 2 { // beta's complete and retry
				break
			}
		}
	}
	if n != 2 {
		t.Errorf("beta's stream: %d events, want its own 2", n)
	}
}

// In open mode, what any web page can make the operator's browser send
// is refused: a simple (no-cors) write, and any request marked as from
// another site. Before, a text/plain POST from any page was verified,
// and planted overrides, outcomes and batches.
func TestOpenModeRefusesOtherSites(t *testing.T) {
	e := newEnv(t, nil)
	if res := e.do("POST", "/v1/verify", "", request("v1", 1, "DONE")); res.status != 200 {
		t.Fatalf("a JSON request in open mode: %d %s", res.status, res.body)
	}
	writes := []struct{ path, body string }{
		{"/v1/verify", string(request("v2", 1, "DONE"))},
		{"/v1/verifications/v1/override", `{"attempt":1,"verdict":"fail","reason":"planted"}`},
		{"/v1/outcomes", `{"verificationId":"v1","attempt":1,"outcome":"bad"}`},
		{"/v1/batches", string(request("v3", 1, "DONE"))},
		{"/verify-task", `{"task":"t","output":"o","criteria":["c"]}`},
	}
	for _, w := range writes {
		for _, ct := range []string{"text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""} {
			res := e.do("POST", w.path, "", []byte(w.body), "Content-Type", ct)
			if res.status != http.StatusUnsupportedMediaType {
				t.Errorf("POST %s as %q without a key: %d %s, want 415", w.path, ct, res.status, res.body)
			}
		}
		for _, h := range [][2]string{
			{"Origin", "https://attacker.example"},
			{"Origin", "null"},
			{"Sec-Fetch-Site", "cross-site"},
			{"Sec-Fetch-Site", "same-site"},
		} {
			res := e.do("POST", w.path, "", []byte(w.body), "Content-Type", "application/json", h[0], h[1])
			if res.status != http.StatusForbidden {
				t.Errorf("POST %s with %s: %s: %d %s, want 403", w.path, h[0], h[1], res.status, res.body)
			}
		}
	}
	if res := e.do("GET", "/v1/verifications/v1", "", nil, "Sec-Fetch-Site", "cross-site"); res.status != http.StatusForbidden {
		t.Errorf("a cross-site read: %d, want 403", res.status)
	}
	// The server's own origin, and a request no browser made, are served.
	if res := e.do("POST", "/v1/verify", "", request("v4", 1, "DONE"), "Origin", e.http.URL, "Sec-Fetch-Site", "same-origin"); res.status != 200 {
		t.Errorf("same-origin: %d %s", res.status, res.body)
	}
	if res := e.do("POST", "/v1/batches", "", request("v5", 1, "DONE"), "Content-Type", "application/jsonl"); res.status != 202 {
		t.Errorf("a JSONL batch: %d %s", res.status, res.body)
	}
	if _, err := e.store.Get(t.Context(), DefaultTenant, "v2", 1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a refused request is in the log: %v", err)
	}
	if _, err := e.store.Get(t.Context(), DefaultTenant, "v4", 1); err != nil {
		t.Errorf("the same-origin request is not in the log: %v", err)
	}
}

// Revoking the last key leaves a closed server, and the log says so,
// once.
func TestLastKeyRevokedIsLogged(t *testing.T) {
	e := newEnv(t, nil)
	_, k := e.key("acme", store.ScopeRead)
	var logs bytes.Buffer
	e.srv.auth.log = slog.New(slog.NewTextHandler(&logs, nil))
	if res := e.do("GET", "/v1/verifications", "", nil); res.status != 401 {
		t.Fatalf("no key while a key is live: %d", res.status)
	}
	if logs.Len() != 0 {
		t.Fatalf("logged with a live key: %s", logs.String())
	}
	if err := e.store.RevokeKey(t.Context(), k.ID, e.clock.now()); err != nil {
		t.Fatal(err)
	}
	e.clock.advance(time.Minute)
	for range 2 {
		if res := e.do("GET", "/v1/verifications", "", nil, "Host", "localhost"); res.status != 401 {
			t.Fatalf("no key after the last was revoked: %d, want 401", res.status)
		}
		e.clock.advance(time.Minute)
	}
	if n := strings.Count(logs.String(), "no live API key is left"); n != 1 {
		t.Errorf("logged %d times, want once: %s", n, logs.String())
	}
}
