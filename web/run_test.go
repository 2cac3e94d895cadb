package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

var (
	callItem = regexp.MustCompile(`<li id="call-(\d+)" class="call`)
	rawBlock = regexp.MustCompile(`(?s)<details class="raw">.*?</details>`)
)

// callIDs returns the indexes of the timeline's calls on a page, in
// order.
func callIDs(page string) []string {
	var out []string
	for _, m := range callItem.FindAllStringSubmatch(page, -1) {
		out = append(out, m[1])
	}
	return out
}

// callItemOf returns the timeline's item of call i on a page, or "".
func callItemOf(page string, i int) string {
	start := strings.Index(page, fmt.Sprintf(`<li id="call-%d" `, i))
	if start < 0 {
		return ""
	}
	rest := page[start+1:]
	end := strings.Index(rest, `<li id="call-`)
	if end < 0 {
		end = strings.Index(rest, "</ol>")
	}
	return page[start : start+1+end]
}

// TestRunTimeline: the trace as a timeline, each call with what it did,
// its exit status, its time and duration, the lines that matter marked,
// and the claims and checks that cite it; a refuted claim links to its
// check and to the call, and the check's evidence to the call, read for
// people (the JSON only under "raw").
func TestRunTimeline(t *testing.T) {
	e := newEnv(t)
	e.insert(fixture{id: "run", calls: 12})
	res := e.get("/verifications/run", nil)
	if res.status != http.StatusOK {
		t.Fatalf("detail: %d\n%s", res.status, res.body)
	}
	body := res.body
	if got := strings.Join(callIDs(body), " "); got != "0 1 2 3 4 5 6 7 8 9 10 11" {
		t.Errorf("the timeline shows calls %s", got)
	}
	for _, want := range []string{
		"12 tool calls, 1 failed; 1 cited by a check; from 2026-11-02 10:00:00 UTC to the last call 17 s later.",
		// The refuted claim, above the ledger: its check and the call
		// that shows it.
		`<strong>Found false:</strong>`,
		`<a href="#claim-2" class="mono">c3</a> “the tests pass”: the last run of npm test failed · check <a href="#check-4" class="mono">claims.tests</a> · shown by <a href="#call-10" class="call-ref failed">call 10</a>`,
		// Its row in the ledger, with the same links.
		`<tr id="claim-2" class="claim" tabindex="-1">`,
		`<a href="#check-4" class="mono">claims.tests</a> <span class="note">(check 4, fail)</span><br>shown by <a href="#call-10" class="call-ref failed">call 10</a>`,
		// The check's evidence, for people: the run and its call linked,
		// the runs with their counts beside the call that made them.
		`<tr id="check-4" class="check" tabindex="-1">`,
		`<span class="ev-key">run</span>: <ul class="ev"><li><span class="ev-key">call</span>: <a href="#call-10" class="call-ref failed">call 10</a>`,
		`<span class="ev-key">failed commands</span>: <span class="mono">npm test</span>, <a href="#call-10" class="call-ref failed">call 10</a>`,
		`<span class="mono">npm test: 11 passed, 1 failed</span>, <a href="#call-10"`,
		`<details class="raw"><summary>raw</summary><pre>{`,
		// A mention's evidence cites a call by its entry's id.
		`<span class="ev-key">call</span>: <a href="#call-1" class="call-ref">call 1</a>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// No evidence as JSON outside "raw".
	if strings.Contains(rawBlock.ReplaceAllString(body, ""), "&#34;call&#34;:") {
		t.Error("evidence is shown as JSON outside its raw block")
	}
	// The failed run: its command, exit status, time, duration bound,
	// the claim and check citing it, the lines that matter; open, since
	// a failed check cites it.
	run := callItemOf(body, 10)
	for _, want := range []string{
		`class="call cited failed" tabindex="-1" data-cited>`,
		`<span class="tool mono">Bash</span>`, `<span class="status st-fail">exit 1, error</span>`,
		`<span class="note" title="since the first call">&#43;0:15</span>`, `took ≤ 1.5 s`,
		`<div class="digest mono">$ npm test</div>`,
		`Cited by claim <a href="#claim-2" class="mono">c3</a> <span class="verdict s-refuted">refuted</span>; check <a href="#check-4" class="mono">claims.tests</a> <span class="verdict s-fail">fail</span>`,
		`<div class="key-lines"><pre class="lines"><mark class="hl-err" title="an error">    TypeError: Cannot read properties of undefined (reading &#39;split&#39;)</mark>
<mark class="hl-err" title="the test summary: some failed">Tests:       1 failed, 11 passed, 12 total</mark>`,
		`<details class="io" open>`, `<span class="ev-key">command</span>: npm test`,
		`<mark class="hl-err" title="an error">Exit code 1</mark>`,
	} {
		if !strings.Contains(run, want) {
			t.Errorf("call 10 lacks %q:\n%s", want, run)
		}
	}
	// A passing run: its summary marked, not as an error; closed.
	ok := callItemOf(body, 3)
	for _, want := range []string{`<span class="status st-pass">exit 0</span>`, `<mark class="hl-sum" title="the test summary">Tests:       4 passed, 4 total</mark>`, `<details class="io">`} {
		if !strings.Contains(ok, want) {
			t.Errorf("call 3 lacks %q:\n%s", want, ok)
		}
	}
	// An edit: its change as a diff of the text replaced and the new.
	edit := callItemOf(body, 2)
	for _, want := range []string{`<mark class="hl-add" title="added">+ /** Parses s. */</mark>`, `<span class="ev-key">file_path</span>: src/parser.ts`} {
		if !strings.Contains(edit, want) {
			t.Errorf("call 2 lacks %q:\n%s", want, edit)
		}
	}
	if strings.Contains(edit, "old_string") {
		t.Error("the edit's replaced text is shown as an input field beside its diff")
	}
}

// TestRunTimelinePages: a long trace is paged, 200 calls a page; a cited
// call is linked on the page that shows it; the filters by tool and by
// citation keep their calls, and a link to a call the filter leaves out
// goes to the unfiltered page.
func TestRunTimelinePages(t *testing.T) {
	e := newEnv(t)
	const n = 450
	run := failedRun(n) // 448, on page 3
	e.insert(fixture{id: "long", calls: n})
	page := func(q string) string {
		t.Helper()
		res := e.get("/verifications/long"+q, nil)
		if res.status != http.StatusOK {
			t.Fatalf("%s: %d", q, res.status)
		}
		return res.body
	}
	first := page("")
	ids := callIDs(first)
	if len(ids) != 200 || ids[0] != "0" || ids[199] != "199" {
		t.Fatalf("page 1: %d calls, %v…", len(ids), ids[:min(3, len(ids))])
	}
	link := fmt.Sprintf(`href="/verifications/long?attempt=1&amp;calls=3#call-%d" class="call-ref failed">call %d</a>`, run, run)
	for _, want := range []string{
		"Calls 1–200 of the 450 in the trace, in their order, page 1 of 3.",
		`<a href="/verifications/long?attempt=1&amp;calls=2#trace" rel="next">Next calls</a>`,
		`<span aria-current="page">1</span>`,
		link, // from the claims, to the page that shows the call
	} {
		if !strings.Contains(first, want) {
			t.Errorf("page 1 lacks %q", want)
		}
	}
	third := page("?attempt=1&calls=3")
	if ids := callIDs(third); len(ids) != 50 || ids[0] != "400" || ids[48] != fmt.Sprint(run) {
		t.Errorf("page 3: %d calls, from %v", len(ids), ids[:1])
	}
	if !strings.Contains(third, fmt.Sprintf(`<a href="#call-%d" class="call-ref failed">call %d</a>`, run, run)) {
		t.Error("on its own page, the cited call is not linked by its anchor")
	}
	// A page past the last is the last.
	if ids := callIDs(page("?calls=99")); len(ids) != 50 {
		t.Errorf("page 99: %d calls, want the last page's 50", len(ids))
	}
	// By tool: the edits alone (every fifth call from 2), one page; the
	// cited run is not among them, so its link goes to the unfiltered
	// page.
	edits := page("?tool=Edit")
	ids = callIDs(edits)
	if len(ids) != 90 || ids[0] != "2" || ids[1] != "7" {
		t.Errorf("tool=Edit: %d calls, from %v", len(ids), ids[:min(2, len(ids))])
	}
	for _, want := range []string{`<option value="Edit" selected>Edit (90)</option>`, link, "Calls 1–90 of the 90 the filter keeps",
		`<a class="button" href="/verifications/long?attempt=1#trace">Every call</a>`} {
		if !strings.Contains(edits, want) {
			t.Errorf("tool=Edit lacks %q", want)
		}
	}
	// Cited calls alone: the failed run, on the first page.
	cited := page("?cited=1")
	if ids := callIDs(cited); len(ids) != 1 || ids[0] != fmt.Sprint(run) {
		t.Errorf("cited=1: calls %v", ids)
	}
	if !strings.Contains(cited, `<input type="checkbox" id="t-cited" name="cited" value="1" checked>`) {
		t.Error("cited=1: the box is not checked")
	}
	// Both: Bash calls that a check cites.
	if ids := callIDs(page("?tool=Bash&cited=1")); len(ids) != 1 {
		t.Errorf("tool=Bash&cited=1: calls %v", ids)
	}
	// A tool that is not in the trace: no call, and why.
	none := page("?tool=Nope")
	if ids := callIDs(none); len(ids) != 0 || !strings.Contains(none, "No call of Nope is in the trace.") {
		t.Errorf("tool=Nope: calls %v", ids)
	}
}

// TestRunEscapesAgentText: hostile text in a tool call's input and
// output is shown as text, never as markup.
func TestRunEscapesAgentText(t *testing.T) {
	e := newEnv(t)
	e.insert(fixture{id: "hostile", calls: 3, callText: hostile, summary: hostile})
	res := e.get("/verifications/hostile", nil)
	if res.status != http.StatusOK {
		t.Fatalf("detail: %d", res.status)
	}
	if strings.Contains(res.body, "<script>") || strings.Contains(res.body, "<img src=x") {
		t.Error("raw agent markup in the page")
	}
	call := callItemOf(res.body, 0)
	want := `Done. &lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt; in src/parser.ts, see tokenize.`
	if strings.Count(call, want) != 2 {
		t.Errorf("call 0 does not show the hostile text, escaped, in its input and its output:\n%s", call)
	}
}

// TestNoPlaceholders: the page writes no "—" or "None" for a field with
// no value: the field is left out, or says why it is empty.
func TestNoPlaceholders(t *testing.T) {
	e := newEnv(t)
	e.insert(fixture{id: "p1"}, fixture{id: "p2", calls: 6, verdict: "unverified"}, fixture{id: "p3", verdict: "pass", passDocs: true})
	// A bare one: no score, no mention, no judge, no executor model, no
	// duration, no request.
	bare := fixture{id: "bare", kind: "synthesis"}.verification(t)
	var rep map[string]any
	if err := json.Unmarshal(bare.Result, &rep); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"mentions", "judge", "score", "feedback", "dimensions", "criteria", "checks"} {
		delete(rep, k)
	}
	var err error
	if bare.Result, err = json.Marshal(rep); err != nil {
		t.Fatal(err)
	}
	bare.Score, bare.ExecutorModel, bare.DurationMs, bare.Request, bare.RequestBytes, bare.TaskID = nil, "", 0, nil, 0, ""
	if _, err := e.st.Insert(t.Context(), bare, nil); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"p1", "p2", "p3", "bare"} {
		body := e.get("/verifications/"+id, nil).body
		for _, bad := range []string{"—", "None", "(0)", ">none<"} {
			if strings.Contains(body, bad) {
				i := strings.Index(body, bad)
				t.Errorf("%s: %q in the page: …%s…", id, bad, body[max(0, i-120):min(len(body), i+40)])
			}
		}
	}
	body := e.get("/verifications/bare", nil).body
	for _, want := range []string{"no score (nothing was decided)", "The output mentions no file", "No judge took part", "The request was not stored, so its task, criteria and trace cannot be shown."} {
		if !strings.Contains(body, want) {
			t.Errorf("the bare verification's page lacks %q", want)
		}
	}
	if strings.Contains(body, "<dt>Duration</dt>") || strings.Contains(body, "<dt>Executor model</dt>") {
		t.Error("the bare verification's page shows a duration or a model it does not have")
	}
}

// TestAttemptDiff: a retried task's second attempt shows what the agent
// changed in its output (a line diff against the first attempt) and
// which claims changed state.
func TestAttemptDiff(t *testing.T) {
	e := newEnv(t)
	e.insert(
		fixture{id: "ad", attempt: 1, verdict: "retry", summary: "Added JSDoc comments to all 4 exported functions in src/parser.ts.\nThe tests pass."},
		fixture{id: "ad", attempt: 2, verdict: "pass", passDocs: true, at: epoch.Add(time.Minute),
			summary: "Added JSDoc comments to all 4 exported functions in src/parser.ts.\nDocumented tokenize, format and validate too."},
	)
	body := e.get("/verifications/ad?attempt=2", nil).body
	for _, want := range []string{
		`<h3>Attempt 2 against <a href="/verifications/ad?attempt=1">attempt 1</a></h3>`,
		`<span class="verdict s-refuted">refuted</span> → <span class="verdict s-verified">verified</span> “Added JSDoc comments to all 4 exported functions” <span class="note">(symbol)</span>`,
		`<span class="verdict s-unverified">unverified</span> → no longer claimed “the tests pass”`,
		"1 line removed, 1 added",
		`  Added JSDoc comments to all 4 exported functions in src/parser.ts.`,
		`<mark class="hl-del" title="removed">- The tests pass.</mark>`,
		`<mark class="hl-add" title="added">+ Documented tokenize, format and validate too.</mark>`,
		// The attempts' columns name the claims that changed too.
		"claim “Added JSDoc comments to all 4 exported functions” (symbol): refuted → verified",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("attempt 2's page lacks %q", want)
		}
	}
	// The first attempt has none before it.
	if first := e.get("/verifications/ad?attempt=1", nil).body; strings.Contains(first, "against") {
		t.Error("attempt 1's page compares it with an attempt before")
	}
}

// TestTaskAndPolicy: the request's goal, criteria with how each is
// decided, and the policy overrides the task carried, or that the
// server's policy applied.
func TestTaskAndPolicy(t *testing.T) {
	e := newEnv(t)
	v := fixture{id: "pol"}.verification(t)
	var req map[string]any
	if err := json.Unmarshal(v.Request, &req); err != nil {
		t.Fatal(err)
	}
	task := req["task"].(map[string]any)
	task["criticality"] = "high"
	task["policy"] = map[string]any{"passAt": 0.85, "infer": map[string]any{"counts": false}}
	task["criteria"] = []any{map[string]any{"id": "c1", "text": "doc comments on parse, tokenize, format, validate", "must": true,
		"check": map[string]any{"type": "regex", "pattern": "JSDoc"}}}
	var err error
	if v.Request, err = json.Marshal(req); err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.Insert(t.Context(), v, nil); err != nil {
		t.Fatal(err)
	}
	e.insert(fixture{id: "plain"})
	body := e.get("/verifications/pol", nil).body
	for _, want := range []string{
		"<dt>Criticality</dt><dd>high</dd>",
		"the server's policy, with the task's overrides:",
		`<span class="ev-key">passAt</span>: 0.85`, `<span class="ev-key">counts</span>: no`,
		"1 written by the task",
		`doc comments on parse, tokenize, format, validate <span class="note">(inferred from the task)</span> <span class="note">(rule: regex)</span>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if plain := e.get("/verifications/plain", nil).body; !strings.Contains(plain, "the server's policy applied: the task carried no overrides") {
		t.Error("a task without overrides does not say the server's policy applied")
	}
}
