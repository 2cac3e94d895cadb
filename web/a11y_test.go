package web

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/vouchgate/vouch/store"
)

// TestContrast holds the style sheet's text colours to WCAG AA: 4.5:1
// against the backgrounds they are drawn on.
func TestContrast(t *testing.T) {
	css, err := staticFS.ReadFile("static/style.css")
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	for _, m := range regexp.MustCompile(`--([a-z-]+):\s*(#[0-9a-f]{6})`).FindAllStringSubmatch(string(css), -1) {
		vars[m[1]] = m[2]
	}
	for _, p := range [][2]string{
		{"fg", "bg"}, {"fg", "panel"}, {"muted", "bg"}, {"muted", "panel"}, {"link", "bg"}, {"link", "panel"},
		{"pass-fg", "pass-bg"}, {"retry-fg", "retry-bg"}, {"fail-fg", "fail-bg"}, {"retry-fg", "bg"},
		{"fg", "mark-ok"}, {"fg", "mark-bad"}, {"focus", "bg"},
		{"unverified-fg", "unverified-bg"}, {"unverified-fg", "bg"}, {"fg", "mark-unv"},
		{"fg", "mark-sum"}, {"fg", "mark-del"}, {"fail-fg", "mark-bad"}, {"muted", "mark-sum"},
	} {
		a, b := vars[p[0]], vars[p[1]]
		if a == "" || b == "" {
			t.Errorf("no colour --%s or --%s", p[0], p[1])
			continue
		}
		if r := contrast(a, b); r < 4.5 {
			t.Errorf("--%s on --%s: %.2f:1, below 4.5:1", p[0], p[1], r)
		}
	}
}

func contrast(a, b string) float64 {
	la, lb := luminance(a), luminance(b)
	return (math.Max(la, lb) + 0.05) / (math.Min(la, lb) + 0.05)
}

func luminance(hex string) float64 {
	var c [3]float64
	for i := range 3 {
		n, _ := strconv.ParseUint(hex[1+2*i:3+2*i], 16, 8)
		v := float64(n) / 255
		if v <= 0.03928 {
			c[i] = v / 12.92
		} else {
			c[i] = math.Pow((v+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*c[0] + 0.7152*c[1] + 0.0722*c[2]
}

var (
	fieldTag = regexp.MustCompile(`<(input|select|textarea)\b[^>]*>`)
	idAttr   = regexp.MustCompile(`\bid="([^"]+)"`)
	thTag    = regexp.MustCompile(`<th[ >]`)
)

// TestPagesAccessible checks what can be checked as text on every page:
// one main landmark and a skip link to it, one h1, every visible form
// field with a label, tables with headers scoped, and no inline script
// or style that the CSP would block.
func TestPagesAccessible(t *testing.T) {
	e := newEnv(t)
	e.insert(fixture{id: "a11y", review: true}, fixture{id: "a11y", attempt: 2, review: true, passDocs: true, verdict: "pass"},
		fixture{id: "a11y-u", review: true, verdict: "unverified"}, fixture{id: "a11y-t", calls: 420})
	reviewer, _ := e.key("default", store.ScopeRead, store.ScopeReview)
	rc := e.login(reviewer)
	for _, path := range []string{"/verifications", "/verifications/a11y", "/verifications/a11y?attempt=1", "/verifications/a11y-u", "/verifications/a11y-t", "/verifications/a11y-t?calls=3&tool=Bash", "/review", "/verifications?kind=nope",
		"/", "/quality", "/quality?days=13", "/calibration", "/calibration?days=7"} {
		page := e.get(path, rc).body
		if strings.Count(page, "<main") != 1 || !strings.Contains(page, `<a class="skip" href="#main">`) || !strings.Contains(page, `<main id="main"`) {
			t.Errorf("%s: no main landmark with a skip link", path)
		}
		if n := strings.Count(page, "<h1"); n != 1 {
			t.Errorf("%s: %d h1", path, n)
		}
		if !strings.Contains(page, `<nav aria-label="Main">`) {
			t.Errorf("%s: no main navigation", path)
		}
		for _, tag := range fieldTag.FindAllString(page, -1) {
			if strings.Contains(tag, `type="hidden"`) {
				continue
			}
			m := idAttr.FindStringSubmatch(tag)
			if m == nil || !strings.Contains(page, `<label for="`+m[1]+`"`) {
				t.Errorf("%s: a field without a label: %s", path, tag)
			}
		}
		if len(thTag.FindAllString(page, -1)) != strings.Count(page, "<th scope=") {
			t.Errorf("%s: a table header without scope", path)
		}
		for _, bad := range []string{"<script>", " style=", "<style", " onclick", " onload", "javascript:"} {
			if strings.Contains(page, bad) {
				t.Errorf("%s: %q in the page", path, bad)
			}
		}
	}
	login := e.get("/login", nil).body
	if !strings.Contains(login, `<label for="key">`) {
		t.Error("the sign-in field has no label")
	}
}
