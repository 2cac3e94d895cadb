package main

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolveServer checks the order in which the commands that call a
// server find it: --server, VOUCH_SERVER, VOUCH_ADDR, then vouch serve's
// default address.
func TestResolveServer(t *testing.T) {
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "vouch.yaml")
	if err := os.WriteFile(cfgFile, []byte("addr: 0.0.0.0:7070\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	badFile := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(badFile, []byte("adr: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		flag     string
		env      map[string]string
		url      string
		from     string
		usageErr bool
	}{
		{"flag first", "http://a:1", map[string]string{"VOUCH_SERVER": "http://b:2", "VOUCH_ADDR": "c:3"}, "http://a:1", "--server", false},
		{"then VOUCH_SERVER", "", map[string]string{"VOUCH_SERVER": " http://b:2 ", "VOUCH_ADDR": "c:3"}, "http://b:2", "VOUCH_SERVER", false},
		{"then VOUCH_ADDR", "", map[string]string{"VOUCH_ADDR": "127.0.0.1:9090"}, "http://127.0.0.1:9090", "VOUCH_ADDR", false},
		{"a port alone", "", map[string]string{"VOUCH_ADDR": ":9090"}, "http://127.0.0.1:9090", "VOUCH_ADDR", false},
		{"every IPv4 address", "", map[string]string{"VOUCH_ADDR": "0.0.0.0:9090"}, "http://127.0.0.1:9090", "VOUCH_ADDR", false},
		{"every IPv6 address", "", map[string]string{"VOUCH_ADDR": "[::]:9090"}, "http://127.0.0.1:9090", "VOUCH_ADDR", false},
		{"a host name", "", map[string]string{"VOUCH_ADDR": "localhost:9090"}, "http://localhost:9090", "VOUCH_ADDR", false},
		{"an IPv6 host", "", map[string]string{"VOUCH_ADDR": "[::1]:9090"}, "http://[::1]:9090", "VOUCH_ADDR", false},
		{"a bad VOUCH_ADDR", "", map[string]string{"VOUCH_ADDR": "9090"}, "", "", true},
		{"VOUCH_ADDR before the config", "", map[string]string{"VOUCH_ADDR": ":9090", "VOUCH_CONFIG": cfgFile}, "http://127.0.0.1:9090", "VOUCH_ADDR", false},
		{"then the config's addr", "", map[string]string{"VOUCH_CONFIG": cfgFile}, "http://127.0.0.1:7070", "the addr of " + cfgFile + " (VOUCH_CONFIG)", false},
		{"a bad config", "", map[string]string{"VOUCH_CONFIG": badFile}, "", "", true},
		{"then the default", "", nil, "http://127.0.0.1:8080", "vouch serve's default address", false},
	} {
		f := remoteFlags{server: tc.flag}
		st := Streams{Getenv: func(k string) string { return tc.env[k] }}
		url, from, err := f.resolveServer(st)
		if tc.usageErr {
			var ee *exitError
			if err == nil || !errors.As(err, &ee) || ee.code != exitInput || !strings.Contains(err.Error(), "VOUCH_") {
				t.Errorf("%s: %q %q %v, want a usage error naming the variable", tc.name, url, from, err)
			}
			continue
		}
		if err != nil || url != tc.url || from != tc.from {
			t.Errorf("%s: %q from %q (%v), want %q from %q", tc.name, url, from, err, tc.url, tc.from)
		}
	}
}

// TestRemoteSaysWhichServer runs alerts and metrics without --server:
// they call the server of VOUCH_ADDR and say so on standard error, with
// --json too.
func TestRemoteSaysWhichServer(t *testing.T) {
	e := newLabelEnv(t)
	addr := strings.TrimPrefix(e.url, "http://")
	env := map[string]string{"VOUCH_ADDR": addr, "VOUCH_API_KEY": e.verify}
	for _, args := range [][]string{{"alerts"}, {"metrics", "--json"}} {
		code, out, errs := e.run(env, args...)
		if code != 0 || out == "" {
			t.Errorf("vouch %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, out, errs)
		}
		if want := "vouch: server " + e.url + " (from VOUCH_ADDR)\n"; errs != want {
			t.Errorf("vouch %s: stderr %q, want %q", strings.Join(args, " "), errs, want)
		}
	}
	// --server names the server too.
	code, _, errs := e.run(map[string]string{"VOUCH_API_KEY": e.verify}, "alerts", "--server", e.url)
	if code != 0 || errs != "vouch: server "+e.url+" (from --server)\n" {
		t.Errorf("alerts --server: exit %d, stderr %q", code, errs)
	}

	// Nothing listening there: exit 3, saying where the server came from.
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	closedAddr := strings.TrimPrefix(closed.URL, "http://")
	code, out, errs := e.run(map[string]string{"VOUCH_ADDR": closedAddr}, "alerts", "--json")
	if code != 3 || !strings.Contains(errs, "(from VOUCH_ADDR)") || !strings.Contains(errs, "cannot reach the server at "+closed.URL) ||
		!strings.Contains(out, `"code":"unavailable"`) {
		t.Errorf("alerts with nothing at VOUCH_ADDR: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
