package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/vouchgate/vouch/internal/browsertest"
	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/web"
)

// TestBrowserRunView: a verification whose request carries a trace of
// 2,000 tool calls opens, signed in, with the first page of its
// timeline; the refuted claim is followed to the tool call that shows it
// by clicking, and the call's row is the page's target, in view, open;
// the page's keys move between the claims, open a claim's raw evidence
// and go to the cited call, on its page. (How fast the page is drawn is measured by
// BenchmarkDetailLongTrace, not timed here.)
func TestBrowserRunView(t *testing.T) {
	const calls = 2000
	run := web.FailedRun(calls)
	var reader string
	s := newSite(t, func(s *site) {
		reader = s.key(store.ScopeRead)
		s.insert(web.Fixture{ID: "long", Verdict: "retry", Calls: calls})
	})
	b := browsertest.New(t)
	signedIn(b, t, s, reader, "/verifications/long")

	// It renders: the trace's summary and the first page of 200 calls.
	if got := b.Text("#trace > p"); !strings.HasPrefix(got, "2000 tool calls, 1 failed; 1 cited by a check;") {
		t.Errorf("the trace's summary reads %q", got)
	}
	if n := eval[int](b, t, `document.querySelectorAll(".timeline > li.call").length`); n != 200 {
		t.Errorf("the timeline shows %d calls, want a page of 200", n)
	}
	if got := b.Text(".found"); !strings.Contains(got, "c3 “the tests pass”: the last run of npm test failed") ||
		!strings.Contains(got, fmt.Sprintf("call %d (Bash: $ npm test, failed)", run)) {
		t.Errorf("what was found false reads %q", got)
	}
	if low := lowContrast(b, t); len(low) > 0 {
		t.Errorf("text the page draws below 4.5:1: %q", low)
	}

	// The refuted claim, followed to its call: a click on the call that
	// shows it loads the timeline's page that holds it, at its row.
	if status := load(b, t, chromedp.Click(chromedp.CSS(`.found a.call-ref`))); status != http.StatusOK {
		t.Fatalf("following the refuted claim: %d", status)
	}
	if got := location(b, t); got != "/verifications/long?attempt=1&calls=10" {
		t.Errorf("the call's link went to %s", got)
	}
	b.Do(chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf("#call-%d", run))))
	target := eval[[]string](b, t, `(() => { const el = document.querySelector(":target"), r = el.getBoundingClientRect();
		return [location.hash, el.id, String(r.top >= 0 && r.top < innerHeight), String(el.querySelector("details.io").open),
			el.querySelector(".key-lines").textContent.trim()] })()`)
	if target[0] != fmt.Sprintf("#call-%d", run) || target[1] != fmt.Sprintf("call-%d", run) {
		t.Errorf("the target is %q (%q), want call %d", target[1], target[0], run)
	}
	if target[2] != "true" {
		t.Error("the call's row is not in view")
	}
	if target[3] != "true" {
		t.Error("the call's input and output are closed")
	}
	if !strings.Contains(target[4], "Tests:       1 failed, 11 passed, 12 total") {
		t.Errorf("the call's key lines read %q", target[4])
	}
	// From the call, back to the claim and the check that cite it.
	if got := b.Text(fmt.Sprintf("#call-%d .cites", run)); got != "Cited by claim c3 refuted; check claims.tests fail" {
		t.Errorf("the call's citations read %q", got)
	}

	// The keys: j and k move between the claims; r opens the raw
	// evidence of the claim's checks; c goes to the next cited call.
	focusedID := func() string { return eval[string](b, t, `document.activeElement ? document.activeElement.id : ""`) }
	b.Do(chromedp.KeyEvent("j"))
	if got := focusedID(); got != "claim-0" {
		t.Errorf("focus after j: %q, want claim-0", got)
	}
	b.Do(chromedp.KeyEvent("jjk"))
	if got := focusedID(); got != "claim-1" {
		t.Errorf("focus after j j k: %q, want claim-1", got)
	}
	b.Do(chromedp.KeyEvent("jr"))
	if got := focusedID(); got != "check-4" {
		t.Errorf("focus after r on claim c3: %q, want its check, check-4", got)
	}
	if !eval[bool](b, t, `document.querySelector("#check-4 details.raw").open`) {
		t.Error("r left the check's raw evidence closed")
	}
	if got := b.Text("#check-4 details.raw pre"); !strings.Contains(got, fmt.Sprintf(`"call": %d`, run)) {
		t.Errorf("the raw evidence reads %q", got)
	}
	b.Do(chromedp.KeyEvent("c"))
	if got := focusedID(); got != fmt.Sprintf("call-%d", run) {
		t.Errorf("focus after c: %q, want the cited call", got)
	}
	// On a page of the timeline without a cited call, c goes to the page
	// of the first.
	b.Navigate(s.url + "/verifications/long?calls=2")
	if status := load(b, t, chromedp.KeyEvent("c")); status != http.StatusOK {
		t.Fatalf("c to the cited call's page: %d", status)
	}
	if got := location(b, t) + eval[string](b, t, "location.hash"); got != fmt.Sprintf("/verifications/long?attempt=1&calls=10#call-%d", run) {
		t.Errorf("c from page 2 went to %s", got)
	}
	b.NoErrors()
	b.NoDialogs()
}
