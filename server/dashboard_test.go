package server

import (
	"net/http"
	"testing"
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
