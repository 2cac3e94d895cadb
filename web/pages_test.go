package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/store"
)

// hostile is agent text that would run as script if it were not
// escaped.
const hostile = `Done. <script>alert("x")</script><img src=x onerror=alert(1)> in src/parser.ts, see tokenize.`

// rowIDs returns the ids of the list's rows, in order.
var rowLink = regexp.MustCompile(`<a class="mono" href="/verifications/([^?"]+)\?attempt=(\d+)">`)

func rowIDs(page string) []string {
	var out []string
	for _, m := range rowLink.FindAllStringSubmatch(page, -1) {
		out = append(out, m[1]+"/"+m[2])
	}
	return out
}

func TestListFiltersAndPages(t *testing.T) {
	e := newEnv(t)
	var fs []fixture
	for i := range 230 {
		f := fixture{id: fmt.Sprintf("v%03d", i), at: epoch.Add(time.Duration(i) * time.Minute)}
		switch i % 3 {
		case 0:
			f.verdict, f.passDocs = "pass", true
		case 1:
			f.verdict, f.review = "fail", true
		default:
			if i%7 == 0 {
				f.verdict = "unverified"
			}
		}
		if i%5 == 0 {
			f.kind, f.model = "answer", "claude-haiku"
		}
		fs = append(fs, f)
	}
	e.insert(fs...)

	// Page 1: the 100 newest; Older goes on, and so on to the last.
	res := e.get("/verifications", nil)
	if res.status != http.StatusOK {
		t.Fatalf("list: %d\n%s", res.status, res.body)
	}
	got := rowIDs(res.body)
	if len(got) != 100 || got[0] != "v229/1" || got[99] != "v130/1" {
		t.Fatalf("page 1: %d rows, %v … %v", len(got), got[:1], got[len(got)-1:])
	}
	if !strings.Contains(res.body, "data-live") {
		t.Error("the first page is not live")
	}
	var all []string
	next := "/verifications"
	for pages := 0; next != ""; pages++ {
		if pages > 5 {
			t.Fatal("pages never end")
		}
		res := e.get(next, nil)
		all = append(all, rowIDs(res.body)...)
		m := regexp.MustCompile(`href="([^"]+)" rel="next"`).FindStringSubmatch(res.body)
		next = ""
		if m != nil {
			next = strings.ReplaceAll(m[1], "&amp;", "&")
			if strings.Contains(res.body, "data-live") && pages > 0 {
				t.Error("a later page is live")
			}
		}
	}
	if len(all) != 230 || all[229] != "v000/1" {
		t.Errorf("all pages: %d rows, last %v", len(all), all[len(all)-1])
	}

	// Filters, alone and together, and the Older link keeps them.
	for q, want := range map[string]func(i int) bool{
		"verdict=fail":                    func(i int) bool { return i%3 == 1 },
		"verdict=unverified":              func(i int) bool { return i%3 == 2 && i%7 == 0 },
		"kind=answer":                     func(i int) bool { return i%5 == 0 },
		"model=claude-haiku&verdict=pass": func(i int) bool { return i%5 == 0 && i%3 == 0 },
		"review=yes":                      func(i int) bool { return i%3 == 1 },
		"review=no&action=accept":         func(i int) bool { return i%3 == 0 || i%3 == 2 && i%7 == 0 },
		"task=task-v007":                  func(i int) bool { return i == 7 },
		"since=2026-11-02T11:00&until=2026-11-02T11:10": func(i int) bool { return i >= 60 && i < 70 },
		"since=2026-11-02T13:00:00Z":                    func(i int) bool { return i >= 180 },
	} {
		var wantIDs []string
		for i := 229; i >= 0; i-- {
			if want(i) {
				wantIDs = append(wantIDs, fmt.Sprintf("v%03d/1", i))
			}
		}
		var gotIDs []string
		next := "/verifications?" + q
		for next != "" {
			res := e.get(next, nil)
			if res.status != http.StatusOK {
				t.Fatalf("%s: %d", q, res.status)
			}
			gotIDs = append(gotIDs, rowIDs(res.body)...)
			m := regexp.MustCompile(`href="([^"]+)" rel="next"`).FindStringSubmatch(res.body)
			next = ""
			if m != nil {
				next = strings.ReplaceAll(m[1], "&amp;", "&")
			}
		}
		if strings.Join(gotIDs, " ") != strings.Join(wantIDs, " ") {
			t.Errorf("%s: got %d rows %v, want %d %v", q, len(gotIDs), gotIDs, len(wantIDs), wantIDs)
		}
	}

	// Every verdict is a filter, unverified in its own colour.
	res = e.get("/verifications?verdict=unverified", nil)
	for _, want := range []string{`<option selected>unverified</option>`, `<span class="verdict v-unverified">unverified</span>`} {
		if !strings.Contains(res.body, want) {
			t.Errorf("the list filtered by unverified lacks %q", want)
		}
	}
	// The form echoes the filters, selected.
	res = e.get("/verifications?verdict=fail&model=claude-haiku", nil)
	if !strings.Contains(res.body, `<option selected>fail</option>`) || !strings.Contains(res.body, `value="claude-haiku"`) {
		t.Error("the form does not echo the filters")
	}

	// htmx asks for the table alone.
	res = e.get("/verifications?verdict=fail", nil, "HX-Request", "true", "HX-Target", "rows")
	if !strings.HasPrefix(strings.TrimSpace(res.body), `<tbody id="rows"`) || strings.Contains(res.body, "<html") {
		t.Errorf("rows partial: %.200s", res.body)
	}
	// The filter form sends every field, empty ones too; the address
	// htmx pushes is the filters' alone.
	res = e.get("/verifications?kind=&verdict=fail&action=&model=&review=&task=&since=&until=", nil, "HX-Request", "true", "HX-Target", "results")
	if !strings.HasPrefix(strings.TrimSpace(res.body), `<div id="results">`) || len(rowIDs(res.body)) != 77 {
		t.Errorf("results partial: %d rows %.200s", len(rowIDs(res.body)), res.body)
	}
	if got := res.header.Get("HX-Push-Url"); got != "/verifications?verdict=fail" {
		t.Errorf("the results partial pushes %q", got)
	}
}

func TestListBadFilters(t *testing.T) {
	e := newEnv(t)
	e.insert(fixture{id: "a"})
	for _, q := range []string{"kind=nope", "verdict=maybe", "review=perhaps", "since=yesterday", "until=2026-13-01", "before=-3", "before=x",
		"since=2026-11-02T12:00&until=2026-11-02T11:00"} {
		res := e.get("/verifications?"+q, nil)
		if res.status != http.StatusBadRequest || !strings.Contains(res.body, `class="error" role="alert"`) || len(rowIDs(res.body)) != 0 {
			t.Errorf("%s: %d, want 400 with a message and no rows", q, res.status)
		}
	}
}

func TestDetail(t *testing.T) {
	e := newEnv(t)
	e.insert(
		fixture{id: "task-7", attempt: 1, verdict: "retry"},
		fixture{id: "task-7", attempt: 2, verdict: "pass", passDocs: true, at: epoch.Add(time.Minute)},
	)
	res := e.get("/verifications/task-7", nil)
	if res.status != http.StatusOK {
		t.Fatalf("detail: %d\n%s", res.status, res.body)
	}
	body := res.body
	for _, want := range []string{
		"attempt 2",
		"Row 7: every claim was checked and holds", // the deciding row, in words
		// The claim ledger, at the top: each claim's state in its
		// colour, kind, text and reason, and links to its checks.
		`<h2 id="h-claims">Claims</h2>`, "2 claims: 2 verified, 0 refuted, 0 unverified; 2 of 2 decided (coverage 100%).",
		`<span class="verdict s-verified">verified</span>`, "Added JSDoc comments to all 4 exported functions", "4 functions claimed, 4 found",
		`<a href="#check-1" class="mono">claims.count</a>`, `<tr id="check-1" class="check" tabindex="-1">`,
		"every claim was checked and holds",
		"claims.count", "COUNT_MISMATCH", // a check and its evidence
		"doc comments on parse, tokenize, format, validate", "(inferred from the task)", "rule", // criteria and who decided
		"groundedness", "undecided", // dimensions
		`<mark class="ok" title="verified file">src/parser.ts</mark>`, `<mark class="unv" title="unverified symbol">tokenize</mark>`,
		"Previous attempt: COUNT_MISMATCH",             // feedback
		"openai:gpt-4o", "$0.0042", "1200 in, 180 out", // judge and cost
		"Attempt 1", "Attempt 2", "verdict retry → pass", "score 0.55 → 0.92", "check claims.count: fail → pass", "criterion c1: unmet → met",
		`action="/verifications/task-7/override"`, // open mode: every scope
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the detail page lacks %q", want)
		}
	}
	if i, j := strings.Index(body, `id="h-claims"`), strings.Index(body, `id="h-verdict"`); i < 0 || j < 0 || i > j {
		t.Errorf("the claims are not at the top, before the verdict's reasons")
	}
	// An earlier attempt by ?attempt: a claim refuted, one unverified, a
	// mention refuted.
	res = e.get("/verifications/task-7?attempt=1", nil)
	if res.status != http.StatusOK || !strings.Contains(res.body, "attempt 1</h1>") {
		t.Errorf("attempt 1: %d", res.status)
	}
	for _, want := range []string{
		"Row 1: a must-pass check failed", "the must-pass check claims.count failed",
		"3 claims: 1 verified, 1 refuted, 1 unverified; 2 of 3 decided (coverage 67%).",
		`<span class="verdict s-refuted">refuted</span>`, "4 functions claimed, 1 found",
		`<span class="verdict s-unverified">unverified</span>`, "the tests pass", "no test run in the evidence shows it",
		`<mark class="bad" title="refuted file">src/lexer.ts</mark>`, "src/lexer.ts</mark> (file): not in the workspace",
	} {
		if !strings.Contains(res.body, want) {
			t.Errorf("attempt 1's page lacks %q", want)
		}
	}
	// An unverified verification: its verdict in its own colour, and a
	// form that asks a person for pass, retry or fail.
	e.insert(fixture{id: "u1", verdict: "unverified"})
	res = e.get("/verifications/u1", nil)
	for _, want := range []string{
		`<span class="verdict v-unverified">unverified</span>`, "Row 6: nothing was found false",
		`<option value="" selected disabled>choose one</option><option>pass</option><option>retry</option><option>fail</option></select>`,
	} {
		if !strings.Contains(res.body, want) {
			t.Errorf("the unverified verification's page lacks %q", want)
		}
	}
	if strings.Contains(res.body, "<option>unverified</option>") {
		t.Error("the override form offers unverified")
	}
	// A report made before the claim ledger: said so, and its row told
	// by the six-row table.
	old := fixture{id: "old", verdict: "pass", passDocs: true}.verification(t)
	var rep map[string]any
	if err := json.Unmarshal(old.Result, &rep); err != nil {
		t.Fatal(err)
	}
	delete(rep, "claims")
	delete(rep, "coverage")
	rep["verdictRow"] = 6
	var err error
	if old.Result, err = json.Marshal(rep); err != nil {
		t.Fatal(err)
	}
	old.VerdictRow, old.Ledger = 6, nil
	if _, err := e.st.Insert(t.Context(), old, nil); err != nil {
		t.Fatal(err)
	}
	res = e.get("/verifications/old", nil)
	for _, want := range []string{"made before vouch kept a claim ledger", "Row 6 (the six-row verdict table of the time", "so it passed"} {
		if !strings.Contains(res.body, want) {
			t.Errorf("the old verification's page lacks %q", want)
		}
	}
	for path, status := range map[string]int{
		"/verifications/nope":             http.StatusNotFound,
		"/verifications/task-7?attempt=3": http.StatusNotFound,
		"/verifications/task-7?attempt=0": http.StatusBadRequest,
		"/verifications/task-7?attempt=x": http.StatusBadRequest,
	} {
		if res := e.get(path, nil); res.status != status {
			t.Errorf("%s: %d, want %d", path, res.status, status)
		}
	}
}

func TestDetailWithoutRequest(t *testing.T) {
	e := newEnv(t)
	v := fixture{id: "big"}.verification(t)
	v.Request, v.RequestBytes = nil, 900000
	if _, err := e.st.Insert(t.Context(), v, nil); err != nil {
		t.Fatal(err)
	}
	res := e.get("/verifications/big", nil)
	if res.status != http.StatusOK || !strings.Contains(res.body, "The request (900000 bytes) was over the server") {
		t.Errorf("detail without a request: %d", res.status)
	}
}

func TestOverride(t *testing.T) {
	e := newEnv(t)
	e.insert(fixture{id: "o1", verdict: "retry"})
	reviewer, _ := e.key("default", store.ScopeRead, store.ScopeReview)
	reader, _ := e.key("default", store.ScopeRead)
	rc := e.login(reviewer)

	page := e.get("/verifications/o1", rc)
	token := csrfOf(t, page.body)
	form := url.Values{"csrf": {token}, "attempt": {"1"}, "verdict": {"fail"}, "reason": {"the doc comments are <b>missing</b>"}}
	res := e.do(http.MethodPost, "/verifications/o1/override", form, rc)
	if res.status != http.StatusSeeOther || res.header.Get("Location") != "/verifications/o1?attempt=1#overrides" {
		t.Fatalf("override: %d %q\n%s", res.status, res.header.Get("Location"), res.body)
	}
	ovs, err := e.st.Overrides(t.Context(), "default", "o1", 1)
	if err != nil || len(ovs) != 1 || ovs[0].Verdict != vouch.VerdictFail || ovs[0].Reviewer != "key-default-read-review" {
		t.Fatalf("stored overrides: %+v %v", ovs, err)
	}
	// Without an attempt, the latest is overridden, and the answer goes
	// back to it.
	e.insert(fixture{id: "o1", attempt: 2, verdict: "pass", passDocs: true})
	latest := url.Values{"csrf": {token}, "verdict": {"retry"}}
	if res := e.do(http.MethodPost, "/verifications/o1/override", latest, rc); res.status != http.StatusSeeOther || res.header.Get("Location") != "/verifications/o1?attempt=2#overrides" {
		t.Fatalf("override of the latest: %d %q\n%s", res.status, res.header.Get("Location"), res.body)
	}
	if ovs, err := e.st.Overrides(t.Context(), "default", "o1", 2); err != nil || len(ovs) != 1 || ovs[0].Verdict != vouch.VerdictRetry {
		t.Fatalf("overrides of attempt 2: %+v %v", ovs, err)
	}
	page = e.get("/verifications/o1?attempt=1", rc)
	if !strings.Contains(page.body, "the doc comments are &lt;b&gt;missing&lt;/b&gt;") || !strings.Contains(page.body, "key-default-read-review") {
		t.Error("the detail page does not show the override")
	}

	// Bad input: the page again, with the problem, 400; nothing stored.
	for _, bad := range []url.Values{
		{"csrf": {token}, "attempt": {"1"}, "verdict": {"maybe"}},
		{"csrf": {token}, "attempt": {"1"}, "verdict": {"pass"}, "reason": {strings.Repeat("x", store.MaxReasonRunes+1)}},
	} {
		res := e.do(http.MethodPost, "/verifications/o1/override", bad, rc)
		if res.status != http.StatusBadRequest || !strings.Contains(res.body, `role="alert"`) {
			t.Errorf("bad override %.40v: %d", bad["verdict"], res.status)
		}
	}
	for _, bad := range []url.Values{
		{"csrf": {token}, "attempt": {"x"}, "verdict": {"pass"}},
	} {
		if res := e.do(http.MethodPost, "/verifications/o1/override", bad, rc); res.status != http.StatusBadRequest {
			t.Errorf("bad attempt: %d", res.status)
		}
	}
	if res := e.do(http.MethodPost, "/verifications/nope/override", url.Values{"csrf": {token}, "verdict": {"pass"}}, rc); res.status != http.StatusNotFound {
		t.Errorf("override of nothing: %d", res.status)
	}

	// CSRF: no token, a wrong one, another session's.
	for name, tok := range map[string]string{"none": "", "wrong": "abc", "other session": e.h.sign("csrf", "another")} {
		f := url.Values{"attempt": {"1"}, "verdict": {"pass"}}
		if tok != "" {
			f.Set("csrf", tok)
		}
		if res := e.do(http.MethodPost, "/verifications/o1/override", f, rc); res.status != http.StatusForbidden {
			t.Errorf("CSRF %s: %d", name, res.status)
		}
	}
	// The header htmx sends is as good as the field.
	if res := e.do(http.MethodPost, "/verifications/o1/override", url.Values{"attempt": {"1"}, "verdict": {"pass"}}, rc, "X-CSRF-Token", token); res.status != http.StatusSeeOther {
		t.Errorf("CSRF header: %d", res.status)
	}

	// A read key looks but cannot override: no form, and 403.
	rd := e.login(reader)
	page = e.get("/verifications/o1", rd)
	if strings.Contains(page.body, `action="/verifications/o1/override"`) || !strings.Contains(page.body, "lacks the review scope") {
		t.Error("a read key is shown the override form")
	}
	res = e.do(http.MethodPost, "/verifications/o1/override", url.Values{"csrf": {csrfOf(t, page.body)}, "attempt": {"1"}, "verdict": {"pass"}}, rd)
	if res.status != http.StatusForbidden || !strings.Contains(res.body, "review scope") {
		t.Errorf("override with a read key: %d", res.status)
	}
	if ovs, _ := e.st.Overrides(t.Context(), "default", "o1", 1); len(ovs) != 2 {
		t.Errorf("%d overrides stored, want 2", len(ovs))
	}
}

func TestEscapesAgentText(t *testing.T) {
	e := newEnv(t)
	e.insert(fixture{id: `x"><script>alert(1)</script>`, summary: hostile, review: true, model: "<script>m</script>"})
	pages := map[string]string{
		"list":   "/verifications",
		"detail": "/verifications/" + url.PathEscape(`x"><script>alert(1)</script>`),
		"review": "/review",
	}
	for name, path := range pages {
		res := e.get(path, nil)
		if res.status != http.StatusOK {
			t.Fatalf("%s: %d", name, res.status)
		}
		if strings.Contains(res.body, "<script>") || strings.Contains(res.body, "<img src=x") {
			t.Errorf("%s: raw agent markup in the page", name)
		}
		if !strings.Contains(res.body, "&lt;script&gt;") {
			t.Errorf("%s: the escaped text is missing", name)
		}
	}
}

func TestHighlight(t *testing.T) {
	m := vouch.Mentions{
		Verified:   []vouch.VerifiedMention{{Text: "parser.ts", Kind: "file"}, {Text: "src/parser.ts", Kind: "file"}, {Text: "", Kind: "file"}},
		Unverified: []vouch.UnverifiedMention{{Text: "tokenize", Kind: "symbol"}, {Text: "parse", Kind: "symbol"}, {Text: "lexer", Kind: "symbol"}},
		Refuted:    []vouch.RefutedMention{{Text: "lexer", Kind: "symbol"}},
	}
	segs := highlight("In src/parser.ts, tokenize and parse; tokenize again, not lexer.", m)
	var b strings.Builder
	for _, s := range segs {
		if s.Mark != "" {
			fmt.Fprintf(&b, "[%s:%s]", s.Mark, s.Text)
		} else {
			b.WriteString(s.Text)
		}
	}
	// "parse" inside "src/parser.ts" cuts a word; the longer file
	// mention is marked whole.
	// A mention both refuted and unverified is marked refuted.
	want := "In [ok:src/parser.ts], [unv:tokenize] and [unv:parse]; [unv:tokenize] again, not [bad:lexer]."
	if b.String() != want {
		t.Errorf("highlight:\n got %s\nwant %s", b.String(), want)
	}
}

func TestDurationFormat(t *testing.T) {
	ms := funcs["ms"].(func(float64) string)
	for _, tc := range []struct {
		v    float64
		want string
	}{{0, "—"}, {0.004, "0.00 ms"}, {0.42, "0.42 ms"}, {3.25, "3.2 ms"}, {12.5, "12 ms"}, {1834.6, "1835 ms"}} {
		if got := ms(tc.v); got != tc.want {
			t.Errorf("ms(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

// TestClaimFigures: the overview and the quality page show the unverified
// rate and the claims' coverage with their counts, from the ledgers the
// rows keep, and the verdicts chart counts unverified apart.
func TestClaimFigures(t *testing.T) {
	e := newEnv(t)
	at := epoch.Add(-time.Hour)
	// Claims: retry 3 (1 verified, 1 refuted, 1 unverified), unverified
	// 3 (2 verified, 1 unverified), pass 2 (verified): 6 of 8 decided.
	e.insert(fixture{id: "r", verdict: "retry", at: at}, fixture{id: "u", verdict: "unverified", at: at}, fixture{id: "p", verdict: "pass", passDocs: true, at: at})
	if err := e.st.AddOutcome(t.Context(), &store.Outcome{Tenant: openTenant, VerificationID: "u", Good: false}); err != nil {
		t.Fatal(err)
	}
	overview := e.get("/", nil)
	for _, want := range []string{
		"1 of 3 verifications were left unverified", "6 of 8 claims decided (1 refuted), over 3 verifications with a claim ledger",
		"<dt>Unverified rate</dt>", "<dt>Claim coverage</dt>", "1 were left unverified in all",
		"<th scope=\"col\">unverified</th>",
	} {
		if !strings.Contains(overview.body, want) {
			t.Errorf("the overview lacks %q", want)
		}
	}
	q := e.get("/quality", nil)
	for _, want := range []string{
		`<h2 id="h-claims">Claims and the unverified verdict</h2>`, "1 of 3 verifications were left unverified",
		"6 of 8 claims decided", "0 of 1 labelled unverified outputs were good",
	} {
		if !strings.Contains(q.body, want) {
			t.Errorf("the quality page lacks %q", want)
		}
	}
}
