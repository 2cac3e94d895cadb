package browsertest

import (
	"bytes"
	"flag"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// site serves the pages the helper is tested on, on loopback.
func site(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	page := func(path, csp, body string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			if csp != "" {
				w.Header().Set("Content-Security-Policy", csp)
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte("<!doctype html><html><head><title>t</title></head><body>" + body + "</body></html>"))
		})
	}
	page("/{$}", "", `<p id="msg">hello, <b>browser</b></p>`)
	page("/alert", "", `<p id="msg">after</p><script>alert("injected")</script>`)
	page("/errors", "", `<p id="msg">x</p><script>console.error("boom", 42); throw new Error("bad thing")</script>`)
	page("/csp", "script-src 'self'; style-src 'self'", `<p id="msg" style="color: red">styled</p><script>document.title = "ran"</script>`)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestBrowser(t *testing.T) {
	b := New(t)
	url := site(t)

	b.Navigate(url + "/")
	if got := b.Text("#msg"); got != "hello, browser" {
		t.Errorf("text %q", got)
	}
	b.NoErrors()
	b.NoDialogs()

	// A script that opens a dialog is seen, and the page goes on.
	b.Navigate(url + "/alert")
	if d := b.Dialogs(); !slices.Equal(d, []string{"alert: injected"}) {
		t.Errorf("dialogs %q", d)
	}
	if got := b.Text("#msg"); got != "after" {
		t.Errorf("after the dialog: %q", got)
	}

	// Console errors and uncaught exceptions are recorded.
	b.Navigate(url + "/errors")
	errs := strings.Join(b.Errors(), "\n")
	if !strings.Contains(errs, "console.error: boom 42") || !strings.Contains(errs, "bad thing") {
		t.Errorf("errors:\n%s", errs)
	}

	// So are the blocks of a Content-Security-Policy: the inline style
	// and the inline script.
	before := len(b.Errors())
	b.Navigate(url + "/csp")
	after := b.Errors()[before:]
	var csp []string
	for _, e := range after {
		if strings.Contains(e, "Content Security Policy") {
			csp = append(csp, e)
		}
	}
	if len(csp) < 2 {
		t.Errorf("want the inline style and script blocked, got:\n%s", strings.Join(after, "\n"))
	}

	p, err := b.Screenshot("page")
	if err != nil {
		t.Fatal(err)
	}
	png, err := os.ReadFile(p)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("screenshot %s: %v", p, err)
	}
	// Without -artifacts the picture outlives the test, so it is kept
	// where the test's own directories are not.
	if flag.Lookup("test.artifacts").Value.String() != "true" {
		if kept := filepath.Join(os.TempDir(), "vouch-browsertest"); !strings.HasPrefix(p, kept+string(filepath.Separator)) {
			t.Errorf("screenshot at %s, want it under %s, which outlives the test", p, kept)
		}
		os.Remove(p)
	}
}

func TestFind(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	var have []string
	lookPath := func(p string) (string, error) {
		for _, h := range have {
			if p == h || "/opt/bin/"+p == h {
				return h, nil
			}
		}
		return "", fs.ErrNotExist
	}
	check := func(want string, wantErr bool) {
		t.Helper()
		got, err := find(getenv, lookPath)
		if got != want || (err != nil) != wantErr {
			t.Errorf("env %v, have %v: find = %q, %v; want %q (error %v)", env, have, got, err, want, wantErr)
		}
	}
	check("", false)
	have = []string{"/opt/bin/chromium"}
	check("/opt/bin/chromium", false)
	have = append(have, "/usr/bin/chromium")
	check("/usr/bin/chromium", false)
	env[EnvChromium] = "/srv/chrome"
	check("", true)
	have = append(have, "/srv/chrome")
	check("/srv/chrome", false)
}
