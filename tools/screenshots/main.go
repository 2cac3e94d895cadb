// Command screenshots makes the dashboard's pictures in docs/screenshots:
//
//	go run ./tools/screenshots [-out docs/screenshots]
//
// It fills a temporary store with the demo data (server/demo, the
// seed and size of `vouch serve --demo`, on a fixed clock), serves it in
// this process on loopback in open mode, and captures each main page in
// headless Chromium (the one internal/browsertest finds) at two widths,
// device scale 1: 1400x900 pixels (NAME-1400.png) and 800x1100
// (NAME-800.png). The pages: overview, verifications, verification (a
// coding agent's fix sent back: the claims found false, and the tool
// calls that show it), verification-call (the same page at the tool call
// that refutes a claim, as its link opens it), verification-attempt (the
// fix's next attempt at its comparison with the first: what the agent
// changed, which claims changed state), review, quality and calibration.
// A page the dashboard does not have (404), or that sends elsewhere (the
// root, before the overview page exists), is skipped with a note. The
// same inputs give the same pictures, but for the times the store stamps
// on labels.
//
// It is a program rather than a test: it writes into the source tree,
// and it needs Chromium always, where the tests skip without it.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	_ "github.com/vouchgate/vouch/check/all" // every built-in check type: this program runs a server

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/browsertest"
	"github.com/vouchgate/vouch/server"
	"github.com/vouchgate/vouch/server/demo"
	"github.com/vouchgate/vouch/store"
)

// The fixed inputs: the demo's seed and size as `vouch serve --demo`
// makes them, the end of its month, and the viewports.
const (
	demoSeed       = 1
	pageTimeout    = 30 * time.Second
	startupTimeout = 30 * time.Second
)

// viewport is a size pictures are taken at; each is saved as
// NAME-WIDTH.png.
type viewport struct{ width, height int64 }

// viewports are the sizes of the pictures: a wide screen and a narrow
// one.
var viewports = []viewport{{1400, 900}, {800, 1100}}

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

// page is one picture: the name it is saved under, the page's path
// (with an anchor, the page is shown scrolled to it, as a link to it
// opens it), and an element to scroll into view ("" for none).
type page struct {
	name, path, scroll string
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
	fix, err := findFix(ctx, st)
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
		{"overview", "/", ""},
		{"verifications", "/verifications", ""},
		{"verification", fix.sentBack, ""},
		{"verification-call", fix.call, ""},
		{"verification-attempt", fix.next, "attempts"},
		{"review", "/review", ""},
		{"quality", "/quality", ""},
		{"calibration", "/calibration", ""},
	}
	for _, vp := range viewports {
		for _, p := range pages {
			if p.path == "" {
				fmt.Fprintf(w, "%-26s skipped: the demo data have no such page\n", p.name)
				continue
			}
			if err := shoot(tab, w, base, out, p, vp); err != nil {
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
	}
	return nil
}

// fixPages are the pages of a coding agent's fix that was sent back:
// the attempt sent back, the same page at the tool call that shows a
// claim false (its anchor), and the next attempt ("" when there is
// none).
type fixPages struct {
	sentBack, call, next string
}

// findFix finds the newest verification sent back whose request holds
// an agent session's trace and whose report refutes a claim by a check
// that cites a tool call of it, preferring one that was tried again.
func findFix(ctx context.Context, st store.Log) (fixPages, error) {
	var before int64
	var found fixPages
	for {
		page, err := st.List(ctx, tenant, store.Filter{Verdict: vouch.VerdictRetry, Kind: vouch.KindSubtask, Limit: 200, Before: before})
		if err != nil {
			return found, err
		}
		for _, item := range page.Items {
			v, err := st.Get(ctx, tenant, item.ID, item.Attempt)
			if err != nil {
				return found, err
			}
			call, ok := refutingCall(v)
			if !ok {
				continue
			}
			p := fixPages{sentBack: "/verifications/" + url.PathEscape(v.ID) + "?attempt=" + strconv.Itoa(v.Attempt)}
			p.call = p.sentBack + "#call-" + strconv.Itoa(call)
			if next, err := st.Get(ctx, tenant, v.ID, v.Attempt+1); err == nil {
				p.next = "/verifications/" + url.PathEscape(next.ID) + "?attempt=" + strconv.Itoa(next.Attempt)
				return p, nil
			} else if !errors.Is(err, store.ErrNotFound) {
				return found, err
			}
			if found.sentBack == "" {
				found = p
			}
		}
		if page.Next == 0 {
			if found.sentBack == "" {
				return found, errors.New("the demo data hold no coding agent's fix sent back for a claim a tool call refutes")
			}
			return found, nil
		}
		before = page.Next
	}
}

// refutingCall returns the tool call of v's trace that a check of a
// refuted claim cites ("call" in its evidence, or in its "run").
func refutingCall(v *store.Verification) (int, bool) {
	var req vouch.Request
	var rep vouch.Report
	if v.Request == nil || json.Unmarshal(v.Request, &req) != nil || json.Unmarshal(v.Result, &rep) != nil || len(req.Trace) < 5 {
		return 0, false
	}
	for _, c := range rep.Claims {
		if c.State != vouch.ClaimRefuted {
			continue
		}
		for _, i := range c.Checks {
			if i < 0 || i >= len(rep.Checks) {
				continue
			}
			ev := rep.Checks[i].Evidence
			if run, ok := ev["run"].(map[string]any); ok {
				ev = run
			}
			if n, ok := ev["call"].(float64); ok && n >= 0 && int(n) < len(req.Trace) {
				return int(n), true
			}
		}
	}
	return 0, false
}

// shoot captures one page at a viewport into out/NAME-WIDTH.png; a page
// that is not there (404) or sends elsewhere is skipped with a note.
func shoot(tab context.Context, w io.Writer, base, out string, p page, vp viewport) error {
	ctx, cancel := context.WithTimeout(tab, pageTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(vp.width, vp.height, chromedp.EmulateScale(1))); err != nil {
		return err
	}
	name := p.name + "-" + strconv.FormatInt(vp.width, 10)
	// From a blank page: a link to an anchor of the page shown would not
	// load it again.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		return err
	}
	res, err := chromedp.RunResponse(ctx, chromedp.Navigate(base+p.path))
	if err != nil {
		return err
	}
	if res == nil {
		return errors.New("no response")
	}
	if res.Status == 404 {
		fmt.Fprintf(w, "%-26s skipped: the dashboard has no %s page (404)\n", name, p.path)
		return nil
	}
	if res.Status != 200 {
		return fmt.Errorf("status %d", res.Status)
	}
	at, err := chromedp.Run(ctx, chromedp.Evaluate[string]("location.pathname + location.search"))
	if err != nil {
		return err
	}
	path, anchor, _ := strings.Cut(p.path, "#")
	if at != path {
		fmt.Fprintf(w, "%-26s skipped: %s sends to %s\n", name, p.path, at)
		return nil
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("main"))); err != nil {
		return err
	}
	// The anchor's element at the top, as the browser scrolls to it (the
	// picture does not depend on when the page finished loading), or the
	// element asked for.
	if id := cmp.Or(p.scroll, anchor); id != "" {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const el = document.getElementById(`+strconv.Quote(id)+`);
			if (!el) return false; el.scrollIntoView({block: "start"}); return true })()`))
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("no element %q to scroll to", id)
		}
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		return err
	}
	file := filepath.Join(out, name+".png")
	if err := os.WriteFile(file, png, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(w, "%-26s %s (%d KB)\n", name, file, (len(png)+1023)/1024)
	return nil
}
