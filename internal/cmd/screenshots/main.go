// Command screenshots makes the README's pictures of the dashboard:
//
//	go run ./internal/cmd/screenshots [-out docs/screenshots]
//
// It fills a temporary store with the demo data (internal/demo, the
// seed and size of `vouch serve --demo`, on a fixed clock), serves it in
// this process on loopback in open mode, and captures each main page in
// headless Chromium (the one internal/browsertest finds) at a fixed
// viewport of 1280x800 pixels, device scale 1: overview.png,
// verifications.png, verification.png (a task sent back once, then
// passed), review.png, quality.png and calibration.png. A page the
// dashboard does not have (404), or that sends elsewhere (the root,
// before the overview page exists), is skipped with a note. The same
// inputs give the same pictures, but for the few figures measured as the
// demo runs (durations) and the times the store stamps on labels.
//
// It is a program rather than a test: it writes into the source tree,
// and it needs Chromium always, where the tests skip without it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/vouchgate/vouch/internal/browsertest"
	"github.com/vouchgate/vouch/internal/demo"
	"github.com/vouchgate/vouch/server"
	"github.com/vouchgate/vouch/store"
)

// The fixed inputs: the demo's seed and size as `vouch serve --demo`
// makes them, the end of its month, and the viewport.
const (
	demoSeed       = 1
	width, height  = 1280, 800
	pageTimeout    = 30 * time.Second
	startupTimeout = 30 * time.Second
)

// demoNow is the end of the demo's month and the server's clock.
var demoNow = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

// tenant is the tenant of open mode, which the demo fills.
const tenant = "default"

func main() {
	out := flag.String("out", "docs/screenshots", "the `dir`ectory the PNG files are written to")
	n := flag.Int("n", demo.DefaultN, "how many demo verifications to make (`N`)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: screenshots [-out DIR] [-n N]")
		os.Exit(2)
	}
	if err := run(context.Background(), os.Stdout, *out, *n); err != nil {
		fmt.Fprintln(os.Stderr, "screenshots:", err)
		os.Exit(1)
	}
}

// page is one picture: the file it is saved as and the page's path.
type page struct {
	name, path string
}

// run makes the pictures into out from n demo verifications, telling w
// what it made and skipped.
func run(ctx context.Context, w io.Writer, out string, n int) error {
	bin, err := browsertest.Chromium()
	if err != nil {
		return err
	}
	if bin == "" {
		return errors.New(browsertest.NoChromium)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "vouch-screenshots-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	// The data.
	st, err := store.Open(ctx, filepath.Join(tmp, "demo.db"), store.Options{})
	if err != nil {
		return err
	}
	start := time.Now()
	sum, err := demo.Seed(ctx, st, demo.Options{N: n, Seed: demoSeed, Now: demoNow})
	if err != nil {
		st.Close()
		return err
	}
	fmt.Fprintf(w, "demo data: %d verifications, %d overrides, %d outcomes (%s)\n", sum.Verifications, sum.Overrides, sum.Outcomes, time.Since(start).Round(time.Millisecond))
	detail, err := retried(ctx, st)
	if err != nil {
		st.Close()
		return err
	}

	// The server, in this process, on loopback.
	srv, err := server.New(server.Options{Config: server.DefaultConfig(), Store: st, Now: func() time.Time { return demoNow }})
	if err != nil {
		st.Close()
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		st.Close()
		return err
	}
	base := "http://" + ln.Addr().String()
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.Run(sctx, ln) }() // Run closes the store
	defer func() {
		stop()
		<-served
	}()

	// The browser.
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, browsertest.AllocatorOptions(bin, filepath.Join(tmp, "chromium"))...)
	defer cancelAlloc()
	tab, cancelTab := chromedp.NewContext(actx)
	defer cancelTab()
	var (
		mu       sync.Mutex
		problems []string
	)
	started := make(chan error, 1)
	go func() {
		started <- chromedp.Listen(tab, func(ev any) {
			var p string
			switch ev := ev.(type) {
			case *runtime.EventExceptionThrown:
				p = "exception: " + ev.ExceptionDetails.Text
				if e := ev.ExceptionDetails.Exception; e != nil {
					p += " " + e.Description
				}
			case *runtime.EventConsoleAPICalled:
				if ev.Type == runtime.ConsoleAPICalledTypeError {
					p = "console.error"
					for _, a := range ev.Args {
						p += " " + string(a.Value) + a.Description
					}
				}
			}
			if p != "" {
				mu.Lock()
				problems = append(problems, p)
				mu.Unlock()
			}
		})
	}()
	select {
	case err = <-started:
	case <-time.After(startupTimeout):
		err = errors.New("the browser did not start in time")
	}
	if err != nil {
		return fmt.Errorf("starting %s: %w", bin, err)
	}

	pages := []page{
		{"overview", "/"},
		{"verifications", "/verifications"},
		{"verification", detail},
		{"review", "/review"},
		{"quality", "/quality"},
		{"calibration", "/calibration"},
	}
	for _, p := range pages {
		if err := shoot(tab, w, base, out, p); err != nil {
			return fmt.Errorf("%s: %w", p.path, err)
		}
		mu.Lock()
		ps := problems
		problems = nil
		mu.Unlock()
		if len(ps) > 0 {
			return fmt.Errorf("%s: the page reported errors:\n\t%s", p.path, strings.Join(ps, "\n\t"))
		}
	}
	return nil
}

// retried returns the path of the newest verification's page whose
// task was sent back once, on its second attempt: the page shows the
// attempts side by side.
func retried(ctx context.Context, st store.Store) (string, error) {
	var before int64
	for {
		page, err := st.List(ctx, tenant, store.Filter{Verdict: "pass", Limit: 200, Before: before})
		if err != nil {
			return "", err
		}
		for _, v := range page.Items {
			if v.Attempt == 2 {
				return "/verifications/" + url.PathEscape(v.ID) + "?attempt=2", nil
			}
		}
		if page.Next == 0 {
			return "", errors.New("the demo data hold no task that passed on its second attempt")
		}
		before = page.Next
	}
}

// shoot captures one page at the fixed viewport into out/name.png; a page
// that is not there (404) or sends elsewhere is skipped with a note.
func shoot(tab context.Context, w io.Writer, base, out string, p page) error {
	ctx, cancel := context.WithTimeout(tab, pageTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, height, chromedp.EmulateScale(1))); err != nil {
		return err
	}
	res, err := chromedp.RunResponse(ctx, chromedp.Navigate(base+p.path))
	if err != nil {
		return err
	}
	if res.Status == 404 {
		fmt.Fprintf(w, "%-14s skipped: the dashboard has no %s page (404)\n", p.name, p.path)
		return nil
	}
	if res.Status != 200 {
		return fmt.Errorf("status %d", res.Status)
	}
	at, err := chromedp.Run(ctx, chromedp.Evaluate[string]("location.pathname + location.search"))
	if err != nil {
		return err
	}
	if at != p.path {
		fmt.Fprintf(w, "%-14s skipped: %s sends to %s\n", p.name, p.path, at)
		return nil
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("main"))); err != nil {
		return err
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		return err
	}
	file := filepath.Join(out, p.name+".png")
	if err := os.WriteFile(file, png, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(w, "%-14s %s (%d KB)\n", p.name, file, (len(png)+1023)/1024)
	return nil
}
