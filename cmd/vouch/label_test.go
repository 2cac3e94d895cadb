package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/client"
	"github.com/vouchgate/vouch/server"
	"github.com/vouchgate/vouch/store"
)

// labelEnv is a server (in-process, on a SQLite file) holding four
// verifications of tenant acme, and keys to call it with.
type labelEnv struct {
	t   *testing.T
	url string
	dsn string
	// review has the review and read scopes; verify has verify and
	// read, not review.
	review, verify string
}

func newLabelEnv(t *testing.T) *labelEnv {
	t.Helper()
	ctx := t.Context()
	e := &labelEnv{t: t, dsn: filepath.Join(t.TempDir(), "v.db")}
	st, err := store.Open(ctx, e.dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for _, k := range []struct {
		secret *string
		name   string
		scopes []string
	}{{&e.review, "ana", []string{store.ScopeReview, store.ScopeRead}}, {&e.verify, "ci", []string{store.ScopeVerify, store.ScopeRead}}} {
		secret, key, err := store.NewKey("acme", k.name, k.scopes, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := st.CreateKey(ctx, key); err != nil {
			t.Fatal(err)
		}
		*k.secret = secret
	}
	cfg := server.DefaultConfig()
	cfg.Alerts.CatchRate.MinLabels = 2
	srv, err := server.New(server.Options{Config: cfg, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	e.url = hs.URL

	// a passes; b is sent back (no DONE), then passes; c passes; d says
	// its tests pass, which nothing shows either way: unverified.
	c, err := client.New(hs.URL, client.WithAPIKey(e.verify))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		id      string
		attempt int
		summary string
	}{{"a", 1, "DONE"}, {"b", 1, "not yet"}, {"b", 2, "DONE"}, {"c", 1, "DONE"}, {"d", 1, "DONE, and all tests pass."}} {
		body := fmt.Sprintf(`{"id":%q,"attempt":%d,"interactionId":"run-1","task":{"id":"t-%s","goal":"say done",`+
			`"executor":{"provider":"openai","model":"gpt-4o-mini","costUsd":0.02},`+
			`"criteria":[{"id":"c1","text":"says DONE","must":true,"check":{"type":"contains","value":"DONE"}}]},`+
			`"output":{"summary":%q,"selfAssessment":{"confidence":0.9}}}`, r.id, r.attempt, r.id, r.summary)
		if _, _, err := c.VerifyRaw(ctx, []byte(body), ""); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// run runs vouch in-process with only the environment given.
func (e *labelEnv) run(env map[string]string, args ...string) (code int, stdout, stderr string) {
	e.t.Helper()
	var out, errb bytes.Buffer
	code = Main(context.Background(), args, Streams{In: strings.NewReader(""), Out: &out, Err: &errb,
		Getenv: func(k string) string { return env[k] }})
	return code, out.String(), errb.String()
}

// as is the environment of a caller of the server with key.
func (e *labelEnv) as(key string) map[string]string {
	return map[string]string{"VOUCH_SERVER": e.url, "VOUCH_API_KEY": key}
}

func TestLabelCommands(t *testing.T) {
	e := newLabelEnv(t)
	code, out, errs := e.run(e.as(e.review), "review", "a", "--verdict", "fail", "--reason", "the file it names does not exist")
	if code != 0 || !strings.Contains(out, "a attempt 1 is fail, by ana") || !strings.Contains(out, "reason: the file it names") {
		t.Errorf("review: %d\n%s%s", code, out, errs)
	}
	code, out, errs = e.run(e.as(e.review), "outcome", "b", "--attempt", "1", "--bad", "--detail", "it was not done", "--json")
	var oc api.Outcome
	if err := json.Unmarshal([]byte(out), &oc); code != 0 || err != nil || oc.VerificationID != "b" || oc.Attempt != 1 || oc.Good == nil || *oc.Good {
		t.Errorf("outcome by id: %d %v\n%s%s", code, err, out, errs)
	}
	// The key comes from --api-key-file before VOUCH_API_KEY.
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte(e.review+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs = e.run(e.as(e.verify), "outcome", "--task", "t-c", "--interaction", "run-1", "--good", "--reporter", "deploy", "--api-key-file", keyFile)
	if code != 0 || !strings.Contains(out, "c attempt 1 (task t-c, interaction run-1) was good, by deploy") {
		t.Errorf("outcome by task: %d\n%s%s", code, out, errs)
	}

	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"error":{"code":"internal","message":"it broke"}}`))
	}))
	defer failing.Close()
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		code int
		says []string
	}{
		{"no server, nothing at VOUCH_ADDR", map[string]string{"VOUCH_ADDR": strings.TrimPrefix(closed.URL, "http://")}, []string{"review", "a", "--verdict", "fail"}, 3,
			[]string{"vouch: server " + closed.URL + " (from VOUCH_ADDR)", "cannot reach the server at " + closed.URL}},
		{"not a URL", map[string]string{"VOUCH_SERVER": "localhost:8080"}, []string{"review", "a", "--verdict", "pass"}, 2, []string{"VOUCH_SERVER", "http://"}},
		{"bad verdict", e.as(e.review), []string{"review", "a", "--verdict", "maybe"}, 2, []string{`"maybe"`, "pass, retry or fail"}},
		{"unverified verdict", e.as(e.review), []string{"review", "a", "--verdict", "unverified"}, 2, []string{`"unverified"`, "a reviewer decides, want pass, retry or fail"}},
		{"no verdict", e.as(e.review), []string{"review", "a"}, 2, []string{"--verdict"}},
		{"no id", e.as(e.review), []string{"review", "--verdict", "fail"}, 2, []string{"one verification ID"}},
		{"unknown id", e.as(e.review), []string{"review", "zz", "--verdict", "fail"}, 2, []string{"404", `no verification "zz"`}},
		{"unknown attempt", e.as(e.review), []string{"review", "a", "--attempt", "7", "--verdict", "fail"}, 2, []string{"404", "attempt 7"}},
		{"no review scope", e.as(e.verify), []string{"review", "a", "--verdict", "pass"}, 2, []string{"403", "lacks the review scope"}},
		{"no review scope, outcome", e.as(e.verify), []string{"outcome", "a", "--good"}, 2, []string{"403", "review scope"}},
		{"no key", map[string]string{"VOUCH_SERVER": e.url}, []string{"review", "a", "--verdict", "pass"}, 2, []string{"401", "VOUCH_API_KEY"}},
		{"unknown key", e.as("vk_nope"), []string{"outcome", "a", "--good"}, 2, []string{"401", "unknown or revoked"}},
		{"missing key file", e.as(e.review), []string{"review", "a", "--verdict", "pass", "--api-key-file", filepath.Join(t.TempDir(), "none")}, 2, []string{"--api-key-file"}},
		{"unknown task", e.as(e.review), []string{"outcome", "--task", "t-none", "--bad"}, 2, []string{"404", "no verification matches"}},
		{"neither good nor bad", e.as(e.review), []string{"outcome", "a"}, 2, []string{"--good and --bad"}},
		{"good and bad", e.as(e.review), []string{"outcome", "a", "--good", "--bad"}, 2, []string{"--good and --bad"}},
		{"id and task", e.as(e.review), []string{"outcome", "a", "--task", "t-a", "--good"}, 2, []string{"not both"}},
		{"attempt with task", e.as(e.review), []string{"outcome", "--task", "t-a", "--attempt", "1", "--good"}, 2, []string{"--attempt goes with"}},
		{"interaction without task", e.as(e.review), []string{"outcome", "a", "--interaction", "run-1", "--good"}, 2, []string{"--interaction goes with --task"}},
		{"unreachable", map[string]string{"VOUCH_SERVER": closed.URL}, []string{"review", "a", "--verdict", "pass"}, 3, []string{"cannot reach the server at " + closed.URL}},
		{"server error", map[string]string{"VOUCH_SERVER": failing.URL}, []string{"outcome", "--task", "t-a", "--bad"}, 3, []string{"500", "it broke"}},
	} {
		code, out, errs := e.run(tc.env, tc.args...)
		ok := code == tc.code && out == ""
		for _, s := range tc.says {
			ok = ok && strings.Contains(errs, s)
		}
		if !ok {
			t.Errorf("%s: vouch %s: exit %d, stdout %q, stderr %q; want exit %d saying %q", tc.name, strings.Join(tc.args, " "), code, out, errs, tc.code, tc.says)
		}
	}
}
