// Package browsertest runs tests in a headless Chromium through the
// DevTools protocol (chromedp): the dashboard's pages as a browser loads
// them, with their scripts, styles and Content-Security-Policy.
//
// [New] finds Chromium (the VOUCH_CHROMIUM environment variable, else
// /usr/bin/chromium, else chromium on the PATH) and starts it in a
// profile of its own under the test's temporary directory. Without
// Chromium the test is skipped, unless VOUCH_TEST_BROWSER_REQUIRED is set
// (CI sets it): then it fails, so that browser tests cannot pass by not
// running.
//
// Everything a test does in the browser is bounded by one deadline
// ([Timeout] from New). What the page reports is recorded as it happens:
// console errors, uncaught exceptions and the browser's own errors
// (a Content-Security-Policy violation, a failed load; but for the
// browser's own request of /favicon.ico) in [Browser.Errors],
// and JavaScript dialogs (alert, confirm, prompt), each accepted at once so
// that the page goes on, in [Browser.Dialogs]: a test of script injection
// asserts that none opened. When the test fails, a full-page screenshot is
// saved and its path logged: in the test's artifact directory with go
// test -artifacts -outputdir DIR, otherwise under the system's temporary
// directory, in vouch-browsertest/TEST (an artifact directory without
// -artifacts is removed with the test, and the picture with it).
package browsertest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Timeout bounds all a test does in the browser, from its start.
const Timeout = 30 * time.Second

// The environment variables the package reads.
const (
	// EnvChromium names the Chromium binary to run.
	EnvChromium = "VOUCH_CHROMIUM"
	// EnvRequired, when set, makes a missing Chromium fail the test
	// instead of skipping it.
	EnvRequired = "VOUCH_TEST_BROWSER_REQUIRED"
)

// defaultChromium is where Debian's chromium package installs the
// browser.
const defaultChromium = "/usr/bin/chromium"

// Browser is one test's headless Chromium, with one tab.
type Browser struct {
	t testing.TB
	// ctx is the tab's context, bounded by Timeout: every action runs in
	// it.
	ctx context.Context
	// tab is the tab's context without the deadline, for the screenshot
	// of a test that failed by running out of time.
	tab context.Context

	mu      sync.Mutex
	errs    []string
	dialogs []string
}

// find returns the Chromium to run: the binary env names, else
// /usr/bin/chromium, else chromium on the PATH; "" when there is none.
// A binary env names that cannot run is an error, not a skip.
func find(getenv func(string) string, lookPath func(string) (string, error)) (string, error) {
	if p := getenv(EnvChromium); p != "" {
		if _, err := lookPath(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvChromium, p, err)
		}
		return p, nil
	}
	if _, err := lookPath(defaultChromium); err == nil {
		return defaultChromium, nil
	}
	if p, err := lookPath("chromium"); err == nil {
		return p, nil
	}
	return "", nil
}

// Chromium returns the Chromium binary [New] runs: the one
// VOUCH_CHROMIUM names, else /usr/bin/chromium, else chromium on the
// PATH; "" when there is none. A binary VOUCH_CHROMIUM names that cannot
// run is an error.
func Chromium() (string, error) { return find(os.Getenv, exec.LookPath) }

// NoChromium says what to do when [Chromium] finds none.
const NoChromium = "no Chromium: install Debian's chromium (apt-get install chromium) or set " +
	EnvChromium + " to a Chromium binary"

// AllocatorOptions are the options [New] starts Chromium with: bin,
// headless, in a fresh profile in userDataDir, a 1280x900 window, and
// none of the browser's own background traffic (updates, sync, first-run
// pages). Programs that drive the dashboard outside tests (the README's
// screenshots) start it the same way.
func AllocatorOptions(bin, userDataDir string) []chromedp.ExecAllocatorOption {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.UserDataDir(userDataDir),
		chromedp.WindowSize(1280, 900),
	}
	for _, f := range []string{"headless", "no-sandbox", "disable-gpu", "disable-quic", "no-first-run",
		"disable-background-networking", "disable-component-update", "disable-sync", "disable-dev-shm-usage",
		"no-default-browser-check", "disable-extensions", "disable-default-apps"} {
		opts = append(opts, chromedp.Flag(f, true))
	}
	return opts
}

// New starts a headless Chromium for t, in a fresh profile, and returns
// its tab; the browser stops when the test ends. Without Chromium it
// skips t, or fails it when VOUCH_TEST_BROWSER_REQUIRED is set.
func New(t testing.TB) *Browser {
	t.Helper()
	bin, err := Chromium()
	if err != nil {
		t.Fatalf("browsertest: %v", err)
	}
	if bin == "" {
		msg := "browsertest: " + NoChromium
		if os.Getenv(EnvRequired) != "" {
			t.Fatal(msg + " (" + EnvRequired + " is set, so browser tests may not be skipped)")
		}
		t.Skip(msg)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), AllocatorOptions(bin, filepath.Join(t.TempDir(), "chromium"))...)
	tab, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
	})
	b := &Browser{t: t, tab: tab}
	// The first action starts the browser; it must not run under the
	// deadline, which would stop the browser with it. It is bounded by a
	// deadline of its own all the same.
	started := make(chan error, 1)
	go func() { started <- chromedp.Listen(tab, b.record) }()
	select {
	case err = <-started:
	case <-time.After(Timeout):
		err = errors.New("the browser did not start in time")
	}
	if err != nil {
		t.Fatalf("browsertest: starting %s: %v", bin, err)
	}
	ctx, cancel := context.WithTimeout(tab, Timeout)
	t.Cleanup(cancel)
	b.ctx = ctx
	if _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("browsertest: enabling the browser's log: %v", err)
	}
	// Registered last, so run first: the browser is still up.
	t.Cleanup(func() {
		if t.Failed() {
			if p, err := b.Screenshot("failure"); err != nil {
				t.Logf("browsertest: no screenshot of the failure: %v", err)
			} else {
				t.Logf("browsertest: screenshot of the failure: %s", p)
			}
		}
	})
	return b
}

// record is the listener of the tab's events: it runs on the goroutine
// that reads the browser's messages, so it only appends, and hands the
// dialogs' answers to another goroutine.
func (b *Browser) record(ev any) {
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			var parts []string
			for _, a := range ev.Args {
				parts = append(parts, remoteText(a))
			}
			b.addError("console." + string(ev.Type) + ": " + strings.Join(parts, " "))
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		text := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			text += " " + d.Exception.Description
		}
		b.addError(fmt.Sprintf("exception at %s:%d: %s", d.URL, d.LineNumber+1, text))
	case *log.EventEntryAdded:
		// The browser asks for /favicon.ico whatever the page says; its
		// absence is not the page's error.
		if e := ev.Entry; e != nil && e.Level == log.EntryLevelError && !strings.HasSuffix(e.URL, "/favicon.ico") {
			b.addError(fmt.Sprintf("%s: %s (%s)", e.Source, e.Text, e.URL))
		}
	case *page.EventJavascriptDialogOpening:
		b.mu.Lock()
		b.dialogs = append(b.dialogs, string(ev.Type)+": "+ev.Message)
		b.mu.Unlock()
		go chromedp.Call(b.tab, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
	}
}

func remoteText(o *runtime.RemoteObject) string {
	if o == nil {
		return ""
	}
	if o.Description != "" {
		return o.Description
	}
	if v := string(o.Value); v != "" {
		return strings.Trim(v, `"`)
	}
	return string(o.Type)
}

func (b *Browser) addError(s string) {
	b.mu.Lock()
	b.errs = append(b.errs, s)
	b.mu.Unlock()
}

// Context returns the tab's context, bounded by the test's deadline, to
// run chromedp actions in.
func (b *Browser) Context() context.Context { return b.ctx }

// Do runs actions in the tab, failing the test at the first error.
func (b *Browser) Do(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		b.t.Fatalf("browsertest: %v", err)
	}
}

// Navigate loads url in the tab and waits for it to load.
func (b *Browser) Navigate(url string) {
	b.t.Helper()
	b.Do(chromedp.Navigate(url))
}

// Text returns the visible text of the first element sel (a CSS
// selector) matches, waiting for it to be visible.
func (b *Browser) Text(sel string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS(sel), chromedp.NodeVisible))
	if err != nil {
		b.t.Fatalf("browsertest: text of %s: %v", sel, err)
	}
	return s
}

// sync makes a round trip to the tab: the events the browser sent before
// its answer have then been recorded.
func (b *Browser) sync() {
	b.t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool]("true")); err != nil {
		b.t.Fatalf("browsertest: %v", err)
	}
}

// Errors returns the errors the tab reported so far: console.error and
// console.assert calls, uncaught exceptions, and the browser's log errors
// (a blocked inline script or style, a resource that failed to load).
func (b *Browser) Errors() []string {
	b.t.Helper()
	b.sync()
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.errs)
}

// NoErrors fails the test when the tab reported any error.
func (b *Browser) NoErrors() {
	b.t.Helper()
	if errs := b.Errors(); len(errs) > 0 {
		b.t.Errorf("browsertest: the page reported %d errors:\n\t%s", len(errs), strings.Join(errs, "\n\t"))
	}
}

// Dialogs returns the JavaScript dialogs that opened so far, each as
// "type: message" ("alert: 1"); each was accepted when it opened.
func (b *Browser) Dialogs() []string {
	b.t.Helper()
	b.sync()
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.dialogs)
}

// NoDialogs fails the test when any JavaScript dialog opened: the check
// that no injected script ran.
func (b *Browser) NoDialogs() {
	b.t.Helper()
	if d := b.Dialogs(); len(d) > 0 {
		b.t.Errorf("browsertest: a script ran and opened %d dialogs: %q", len(d), d)
	}
}

// Screenshot saves a full-page PNG of the tab as name.png in the test's
// screenshot directory (see the package doc) and returns its path. It has
// a deadline of its own, so that it works after the test's ran out.
func (b *Browser) Screenshot(name string) (string, error) {
	ctx, cancel := context.WithTimeout(b.tab, 10*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		return "", err
	}
	dir, err := shotDir(b.t)
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		return "", err
	}
	return p, nil
}

// shotDir is where a test's screenshots go: its artifact directory when go
// test keeps those (-artifacts), else a directory of its own under the
// system's temporary directory, which outlives the test.
func shotDir(t testing.TB) (string, error) {
	if f := flag.Lookup("test.artifacts"); f != nil && f.Value.String() == "true" {
		return t.ArtifactDir(), nil
	}
	name := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' || r == ':' {
			return '_'
		}
		return r
	}, t.Name())
	dir := filepath.Join(os.TempDir(), "vouch-browsertest", name)
	return dir, os.MkdirAll(dir, 0o755)
}
