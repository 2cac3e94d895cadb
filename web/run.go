package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/trace"
)

// callsPerPage is how many tool calls a page of the timeline shows.
const callsPerPage = 200

// maxToolOptions bounds the tools the timeline's filter offers (the
// most called).
const maxToolOptions = 60

// timelineQuery is what the address asks of the timeline: a tool, the
// cited calls only, and a page (1-based; 0 is the first).
type timelineQuery struct {
	Tool  string
	Cited bool
	Page  int
}

// readTimelineQuery reads the timeline's parameters: tool, cited=1 and
// calls (the page); a page that is not a positive number is the first.
func readTimelineQuery(q url.Values) timelineQuery {
	t := timelineQuery{Tool: q.Get("tool"), Cited: q.Get("cited") == "1"}
	if len(t.Tool) > 200 {
		t.Tool = t.Tool[:200]
	}
	if p, err := strconv.Atoi(q.Get("calls")); err == nil && p > 0 {
		t.Page = p
	}
	return t
}

// callLink links a tool call of the trace, on the page of the timeline
// that shows it.
type callLink struct {
	Index int
	URL   string
	// Tool and Digest say what the call did (the tool, its command or
	// file); Failed is whether it failed.
	Tool, Digest string
	Failed       bool
	// ByCommand is set when the evidence names the call by its command
	// rather than its index: the link goes to the last call that ran it.
	ByCommand bool
}

// claimCite is a claim that cites a call (through a check).
type claimCite struct {
	ID, Anchor string
	State      vouch.ClaimState
}

// checkCite is a check that cites a call.
type checkCite struct {
	Index  int
	Name   string
	Status vouch.Status
}

// callRow is one tool call of the timeline.
type callRow struct {
	Index  int
	Anchor string
	// ID is the entry's own id; Tool and Digest say what it did.
	ID, Tool, Digest string
	// Status is the call's exit status in words ("exit 1", "error",
	// "ok"); StatusClass colours it (pass, fail, or none when nothing
	// says).
	Status, StatusClass string
	// At is the call's time since the first call of the trace; Took its
	// duration, or what bounds it, with TookNote saying which.
	At, Took, TookNote string
	// Key are the lines of its result that say the most (a test summary,
	// an error), shown without opening it.
	Key []textLine
	// Input are the call's arguments; Change is an edit's change (the
	// text it replaced against the new text), when the input holds one.
	Input  []evNode
	Change *lineDiff
	// Output is the call's result as lines; OutputNote says why there is
	// none.
	Output     []textLine
	OutputNote string
	// Claims and Checks cite the call; Open is set when a check that
	// failed cites it, so that its result shows.
	Claims []claimCite
	Checks []checkCite
	Open   bool
}

// toolOption is a tool the timeline's filter offers, with its calls.
type toolOption struct {
	Name  string
	Calls int
}

// pageLink is a page of the timeline in its pager.
type pageLink struct {
	N       int
	URL     string
	Current bool
	// Gap marks the place of pages left out of the pager.
	Gap bool
}

// runView is a verification's trace as a timeline, one page of it, and
// what cites its calls.
type runView struct {
	// Note says why there is no timeline (no trace, no stored request).
	Note string
	// Total counts the trace's calls; Matching those the filter keeps;
	// Cited those a check cites.
	Total, Matching, Cited int
	// Query is the filter and page asked for; Page and Pages are the
	// page shown (after clamping) and the count of pages.
	Query       timelineQuery
	Page, Pages int
	// From and To are the positions (1-based, in the filtered list) of
	// the page's first and last calls.
	From, To int
	Calls    []callRow
	Tools    []toolOption
	// Prev, Next and Pager link the pages; Clear drops the filter.
	Prev, Next, Clear string
	Pager             []pageLink
	// Action is the filter form's address; Attempt is sent with it.
	Action  string
	Attempt int
	// Span says how long the run took, when its calls have times.
	Span string
	// Failed counts the calls that failed.
	Failed int
	// FirstCited links the first call a check cites, for the page's keys
	// and its summary.
	FirstCited *callLink

	entries []vouch.TraceEntry
	base    string
	// pos is each call's position among those the filter keeps, or -1.
	pos []int
	// cites are the checks and claims citing each call.
	checks map[int][]checkCite
	claims map[int][]claimCite
	// byCmd is the last call of each command; ids the calls by entry id.
	byCmd map[string]int
	ids   map[string]int
	// links caches the links made.
	links map[int]*callLink
}

// newRunView indexes a trace for the page of verification id's attempt
// at base (its address with ?attempt=N), with the filter and page of q.
// The calls' citations come later (cite).
func newRunView(entries []vouch.TraceEntry, base string, attempt int, q timelineQuery) *runView {
	rv := &runView{entries: entries, base: base, Total: len(entries), Query: q, Attempt: attempt,
		checks: map[int][]checkCite{}, claims: map[int][]claimCite{}, links: map[int]*callLink{}}
	rv.Action, _, _ = strings.Cut(base, "?")
	return rv
}

// byIndex implements callResolver.
func (rv *runView) byIndex(i int) *callLink {
	if rv == nil || i < 0 || i >= len(rv.entries) {
		return nil
	}
	if l := rv.links[i]; l != nil {
		return l
	}
	e := &rv.entries[i]
	l := &callLink{Index: i, URL: rv.callURL(i), Tool: e.Tool, Digest: clip(digest(e), 120), Failed: failed(e)}
	rv.links[i] = l
	return l
}

// byID implements callResolver.
func (rv *runView) byID(id string) int {
	if rv == nil || id == "" {
		return -1
	}
	if rv.ids == nil {
		rv.ids = make(map[string]int, len(rv.entries))
		for i := range rv.entries {
			if e := &rv.entries[i]; e.ID != "" {
				if _, dup := rv.ids[e.ID]; !dup {
					rv.ids[e.ID] = i
				}
			}
		}
	}
	if i, ok := rv.ids[id]; ok {
		return i
	}
	return -1
}

// byCommand implements callResolver.
func (rv *runView) byCommand(s string) int {
	if rv == nil || s == "" {
		return -1
	}
	if rv.byCmd == nil {
		rv.byCmd = map[string]int{}
		for i := range rv.entries {
			if c := strings.TrimSpace(trace.Command(rv.entries[i].Input)); c != "" {
				rv.byCmd[c] = i
			}
		}
	}
	s = strings.TrimSpace(s)
	if i, ok := rv.byCmd[s]; ok {
		return i
	}
	// "go test ./...: 3 passed, 1 failed": a run with its counts.
	for k := 0; k < 4; k++ {
		j := strings.LastIndex(s, ": ")
		if j <= 0 {
			break
		}
		s = s[:j]
		if i, ok := rv.byCmd[strings.TrimSpace(s)]; ok {
			return i
		}
	}
	return -1
}

// cite records the calls each check's evidence cites, and the claims
// citing them through their checks.
func (rv *runView) cite(rep *vouch.Report) {
	byCheck := make([][]int, len(rep.Checks))
	for ci := range rep.Checks {
		c := &rep.Checks[ci]
		citedCalls(c.Evidence, rv, func(i int, _ bool) {
			if !slices.Contains(byCheck[ci], i) {
				byCheck[ci] = append(byCheck[ci], i)
				rv.checks[i] = append(rv.checks[i], checkCite{Index: ci, Name: c.Name, Status: c.Status})
			}
		})
	}
	for n, cl := range rep.Claims {
		var seen []int
		for _, ci := range cl.Checks {
			if ci < 0 || ci >= len(rep.Checks) {
				continue
			}
			for _, i := range byCheck[ci] {
				if !slices.Contains(seen, i) {
					seen = append(seen, i)
					rv.claims[i] = append(rv.claims[i], claimCite{ID: cl.ID, Anchor: claimAnchor(n), State: cl.State})
				}
			}
		}
	}
	rv.Cited = len(rv.checks)
}

// filter works out which calls the filter keeps, the page to show and
// its links; then rows draws the page's calls.
func (rv *runView) filter() {
	q := rv.Query
	rv.pos = make([]int, len(rv.entries))
	counts := map[string]int{}
	n := 0
	for i := range rv.entries {
		e := &rv.entries[i]
		counts[e.Tool]++
		if failed(e) {
			rv.Failed++
		}
		if (q.Tool == "" || e.Tool == q.Tool) && (!q.Cited || rv.checks[i] != nil) {
			rv.pos[i] = n
			n++
		} else {
			rv.pos[i] = -1
		}
	}
	rv.Matching = n
	for name, c := range counts {
		rv.Tools = append(rv.Tools, toolOption{Name: name, Calls: c})
	}
	slices.SortFunc(rv.Tools, func(a, b toolOption) int {
		if a.Calls != b.Calls {
			return b.Calls - a.Calls
		}
		return strings.Compare(a.Name, b.Name)
	})
	if len(rv.Tools) > maxToolOptions {
		rv.Tools = rv.Tools[:maxToolOptions]
	}
	if q.Tool != "" && counts[q.Tool] == 0 {
		rv.Tools = append(rv.Tools, toolOption{Name: q.Tool})
	}
	rv.Pages = max(1, (n+callsPerPage-1)/callsPerPage)
	rv.Page = min(max(q.Page, 1), rv.Pages)
	if n > 0 {
		rv.From = (rv.Page-1)*callsPerPage + 1
		rv.To = min(n, rv.Page*callsPerPage)
	}
	if rv.Page > 1 {
		rv.Prev = rv.pageURL(q.Tool, q.Cited, rv.Page-1) + "#trace"
	}
	if rv.Page < rv.Pages {
		rv.Next = rv.pageURL(q.Tool, q.Cited, rv.Page+1) + "#trace"
	}
	if q.Tool != "" || q.Cited {
		rv.Clear = rv.pageURL("", false, 1) + "#trace"
	}
	if rv.Pages > 1 {
		for _, p := range pagerPages(rv.Page, rv.Pages) {
			if p == 0 {
				rv.Pager = append(rv.Pager, pageLink{Gap: true})
				continue
			}
			rv.Pager = append(rv.Pager, pageLink{N: p, URL: rv.pageURL(q.Tool, q.Cited, p) + "#trace", Current: p == rv.Page})
		}
	}
	rv.Span = rv.span()
	// The links made before the page was known point nowhere in
	// particular: they are made again.
	clear(rv.links)
}

// pagerPages are the pages a pager lists: the first, the last, and
// those near the current one; 0 marks a gap.
func pagerPages(cur, pages int) []int {
	var out []int
	for p := 1; p <= pages; p++ {
		if p == 1 || p == pages || p >= cur-2 && p <= cur+2 {
			out = append(out, p)
		} else if len(out) > 0 && out[len(out)-1] != 0 {
			out = append(out, 0)
		}
	}
	return out
}

// pageURL is the address of a page of the timeline under a filter.
func (rv *runView) pageURL(tool string, cited bool, page int) string {
	u := rv.base
	if tool != "" {
		u += "&tool=" + url.QueryEscape(tool)
	}
	if cited {
		u += "&cited=1"
	}
	if page > 1 {
		u += "&calls=" + strconv.Itoa(page)
	}
	return u
}

// callURL is the address of call i: on the page shown, its anchor; else
// the page that shows it under the filter, or without the filter when
// the filter leaves it out.
func (rv *runView) callURL(i int) string {
	anchor := "#call-" + strconv.Itoa(i)
	if rv.pos == nil {
		return anchor
	}
	if p := rv.pos[i]; p >= 0 {
		page := p/callsPerPage + 1
		if page == rv.Page {
			return anchor
		}
		return rv.pageURL(rv.Query.Tool, rv.Query.Cited, page) + anchor
	}
	return rv.pageURL("", false, i/callsPerPage+1) + anchor
}

// span says how long the run took, from its first call's time to its
// last's.
func (rv *runView) span() string {
	var first, last time.Time
	for i := range rv.entries {
		if t, ok := stamp(rv.entries[i].Timestamp); ok {
			first = t
			break
		}
	}
	for i := len(rv.entries) - 1; i >= 0; i-- {
		if t, ok := stamp(rv.entries[i].Timestamp); ok {
			last = t
			break
		}
	}
	if first.IsZero() || !last.After(first) {
		return ""
	}
	return "from " + first.UTC().Format("2006-01-02 15:04:05") + " UTC to the last call " + human(last.Sub(first)) + " later"
}

// rows draws the page's calls.
func (rv *runView) rows() {
	if rv.Matching == 0 {
		return
	}
	var start time.Time
	for i := range rv.entries {
		if t, ok := stamp(rv.entries[i].Timestamp); ok {
			start = t
			break
		}
	}
	from, to := rv.From-1, rv.To
	rv.Calls = make([]callRow, 0, to-from)
	for i := range rv.entries {
		p := rv.pos[i]
		if p < from || p >= to {
			continue
		}
		rv.Calls = append(rv.Calls, rv.row(i, start))
	}
}

// row draws call i; start is the time of the trace's first call.
func (rv *runView) row(i int, start time.Time) callRow {
	e := &rv.entries[i]
	r := callRow{Index: i, Anchor: "call-" + strconv.Itoa(i), ID: e.ID, Tool: e.Tool, Digest: clip(digest(e), 300),
		Claims: rv.claims[i], Checks: rv.checks[i]}
	for _, c := range r.Checks {
		if c.Status == vouch.StatusFail {
			r.Open = true
		}
	}
	code, hasCode := trace.ExitCode(e)
	switch {
	case hasCode && code != 0:
		r.Status, r.StatusClass = "exit "+strconv.Itoa(code), "fail"
		if e.IsError {
			r.Status += ", error"
		}
	case e.IsError:
		r.Status, r.StatusClass = "error", "fail"
	case hasCode:
		r.Status, r.StatusClass = "exit 0", "pass"
	case len(bytes.TrimSpace(e.Output)) == 0:
		r.Status = "no result"
	default:
		r.Status = "ok"
	}
	out, obj := outputText(e)
	if t, ok := stamp(e.Timestamp); ok {
		if !start.IsZero() && !t.Before(start) {
			r.At = "+" + sinceStart(t.Sub(start))
		}
		if ms, ok := durationOf(obj); ok {
			r.Took, r.TookNote = human(time.Duration(ms*float64(time.Millisecond))), "as the call's result says"
		} else if i+1 < len(rv.entries) {
			if next, ok := stamp(rv.entries[i+1].Timestamp); ok && !next.Before(t) {
				r.Took, r.TookNote = "≤ "+human(next.Sub(t)), "the time to the next call, which bounds it"
			}
		}
	} else if ms, ok := durationOf(obj); ok {
		r.Took, r.TookNote = human(time.Duration(ms*float64(time.Millisecond))), "as the call's result says"
	}
	in := e.Input
	if old, nw, ok := edit(in); ok {
		d := diffLines(splitLines(old), splitLines(nw))
		r.Change = &d
		in = withoutEdit(in)
	}
	r.Input = members(in, &evDraw{keepKeys: true, budget: maxEvidenceNodes}, 0)
	if out == "" {
		r.OutputNote = "The call returned no output."
		if len(bytes.TrimSpace(e.Output)) == 0 {
			r.OutputNote = "The trace holds no result for this call."
		}
	} else {
		r.Output = textLines(out)
		r.Key = keyLines(r.Output)
	}
	return r
}

// outputText is a call's result as text: a string as it is, a
// command's streams (stdout, output, stderr) from an object holding
// them, any other JSON indented; obj is the result when it is an
// object.
func outputText(e *vouch.TraceEntry) (string, map[string]any) {
	raw := bytes.TrimSpace(e.Output)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] != '{' && raw[0] != '[' {
		return e.OutputText(), nil
	}
	var obj map[string]any
	if raw[0] == '{' && json.Unmarshal(raw, &obj) == nil {
		var parts []string
		for _, k := range []string{"stdout", "output", "stderr"} {
			if s, ok := obj[k].(string); ok && s != "" {
				parts = append(parts, s)
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, "\n"), obj
		}
	}
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw), obj
	}
	return b.String(), obj
}

// durationOf reads a duration in milliseconds from a call's result.
func durationOf(obj map[string]any) (float64, bool) {
	for _, k := range []string{"durationMs", "duration_ms", "elapsedMs", "elapsed_ms"} {
		if v, ok := obj[k].(float64); ok && v >= 0 {
			return v, true
		}
	}
	return 0, false
}

// failed reports whether a call failed: the tool's error flag, or an
// exit status other than 0.
func failed(e *vouch.TraceEntry) bool {
	if e.IsError {
		return true
	}
	code, ok := trace.ExitCode(e)
	return ok && code != 0
}

// digest says in a line what a call did: the command it ran, the file
// it read or wrote, the search or the address; else its first short
// argument.
func digest(e *vouch.TraceEntry) string {
	in := e.Input
	if c := trace.Command(in); c != "" {
		line, _, more := strings.Cut(strings.TrimSpace(c), "\n")
		if more {
			line += " …"
		}
		return "$ " + line
	}
	if q := trace.Query(in); q != "" {
		if d := trace.DirPath(in); d != "" {
			return "“" + q + "” in " + d
		}
		return "“" + q + "”"
	}
	if p := trace.FilePath(in); p != "" {
		return p
	}
	if u := trace.URL(in); u != "" {
		return u
	}
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if s, ok := in[k].(string); ok && s != "" {
			line, _, _ := strings.Cut(s, "\n")
			return words(k) + ": " + line
		}
	}
	return ""
}

// editKeys are the input members of an edit: the text replaced and the
// new text.
var editKeys = [][2]string{{"old_string", "new_string"}, {"old_str", "new_str"}, {"oldString", "newString"}}

// edit returns the text an edit call replaced and the new text.
func edit(in map[string]any) (string, string, bool) {
	for _, k := range editKeys {
		o, ok1 := in[k[0]].(string)
		n, ok2 := in[k[1]].(string)
		if ok1 && ok2 {
			return o, n, true
		}
	}
	return "", "", false
}

// withoutEdit is an edit's input without the texts its change shows.
func withoutEdit(in map[string]any) map[string]any {
	out := make(map[string]any, len(in))
	for k, v := range in {
		out[k] = v
	}
	for _, k := range editKeys {
		if _, ok := out[k[0]].(string); ok {
			if _, ok := out[k[1]].(string); ok {
				delete(out, k[0])
				delete(out, k[1])
			}
		}
	}
	return out
}

// splitLines splits a text into its lines, at most maxDiffLines+1 of
// them (a longer text is not diffed).
func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.SplitN(s, "\n", maxDiffLines+2)
}

// stamp reads a trace entry's timestamp (RFC 3339).
func stamp(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// human says a duration for people: "850 ms", "2.3 s", "4 min 5 s",
// "2 h 3 min".
func human(d time.Duration) string {
	switch {
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + " ms"
	case d < 10*time.Second:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
	case d < time.Minute:
		return strconv.Itoa(int(d.Round(time.Second).Seconds())) + " s"
	case d < time.Hour:
		d = d.Round(time.Second)
		return fmt.Sprintf("%d min %d s", int(d.Minutes()), int(d.Seconds())%60)
	}
	d = d.Round(time.Minute)
	return fmt.Sprintf("%d h %d min", int(d.Hours()), int(d.Minutes())%60)
}

// sinceStart says a time since the start of a run as m:ss, or h:mm:ss.
func sinceStart(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
