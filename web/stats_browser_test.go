package web_test

import (
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/vouchgate/vouch/internal/browsertest"
	"github.com/vouchgate/vouch/server/demo"
)

// TestStatsPagesInBrowser loads the overview, quality and calibration
// pages in Chromium, over demo data and verifications whose text is
// script: the charts are drawn, the page reports no error (no inline
// script or style the Content-Security-Policy blocks, no failed load),
// and no injected script runs.
func TestStatsPagesInBrowser(t *testing.T) {
	b := browsertest.New(t)
	st := openStore(t)
	if _, err := demo.Seed(t.Context(), st, demo.Options{N: 300, Seed: 5, Now: seededAt}); err != nil {
		t.Fatal(err)
	}
	hostileRows(t, st)
	s := newStatsSite(t, st)
	for _, c := range []struct {
		path   string
		h1     string
		charts int
	}{
		{"/", "Overview", 1},
		{"/quality", "Quality", 7},
		{"/calibration", "Calibration", 1},
	} {
		b.Navigate(s.url + c.path)
		if got := b.Text("h1"); got != c.h1 {
			t.Errorf("%s: h1 %q", c.path, got)
		}
		n, err := chromedp.Run(b.Context(), chromedp.Evaluate[int](`[...document.querySelectorAll('svg[role="img"]')].filter(e => e.getBoundingClientRect().width > 100).length`))
		if err != nil {
			t.Fatal(err)
		}
		if n != c.charts {
			t.Errorf("%s: %d charts drawn, want %d", c.path, n, c.charts)
		}
		// The data table of the first chart opens without script.
		b.Do(chromedp.Click(chromedp.CSS("details.data summary")))
		if got := b.Text("details.data[open] table caption"); got == "" {
			t.Errorf("%s: the data table did not open", c.path)
		}
	}
	b.NoErrors()
	b.NoDialogs()
}
