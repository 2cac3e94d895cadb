package storetest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/store"
)

// history returns n verifications of varied verdicts, actions, scores,
// costs and codes, one every 7 minutes from base, across 2 kinds, 3
// executor models and 2 criticalities; every third task has a second
// attempt.
func history(tenant string, n int) []*store.Verification {
	r := rand.New(rand.NewPCG(7, 11))
	kinds := []vouch.Kind{vouch.KindSubtask, vouch.KindAnswer}
	models := []string{"", "openai:gpt-x", "anthropic:claude-y"}
	crits := []string{"normal", "high"}
	verdicts := []vouch.Verdict{vouch.VerdictPass, vouch.VerdictRetry, vouch.VerdictFail, vouch.VerdictUnverified}
	actions := []vouch.Action{vouch.ActionAccept, vouch.ActionRetry, vouch.ActionReformulate, vouch.ActionFollowUp, vouch.ActionEscalate}
	codes := []string{"COUNT_MISMATCH", "UNCLAIMED_CHANGE", "UNVERIFIED_MENTION", "PROMPT_INJECTION"}
	var out []*store.Verification
	for i := range n {
		v := sample(tenant, fmt.Sprintf("t%d", i/2), 1+i%2, at(7*i))
		if i%2 == 1 && (i/2)%3 != 0 {
			continue // only every third task has a second attempt
		}
		v.IdempotencyKey = ""
		v.Kind, v.ExecutorModel, v.Criticality = kinds[r.IntN(2)], models[r.IntN(3)], crits[r.IntN(2)]
		v.Verdict, v.Action = verdicts[r.IntN(4)], actions[r.IntN(5)]
		// Most reports have a claim ledger; one in five was stored before
		// vouch kept it.
		v.Ledger = nil
		if r.IntN(5) > 0 {
			claims := r.IntN(6)
			unverified := r.IntN(claims + 1)
			refuted := r.IntN(claims - unverified + 1)
			v.Ledger = &store.Ledger{Claims: claims, Unverified: unverified, Refuted: refuted,
				LeftUnverified: unverified > 0 || claims == 0 && r.IntN(2) == 0}
		}
		v.NeedsReview = r.IntN(4) == 0
		v.Confidence = float64(r.IntN(101)) / 100
		if r.IntN(5) == 0 {
			v.Score = nil
		} else {
			v.Score = ptr(float64(r.IntN(101)) / 100)
		}
		v.CostUSD = float64(r.IntN(1000)) / 1e5
		v.TaskCostUSD = nil
		if r.IntN(3) > 0 {
			v.TaskCostUSD = ptr(float64(r.IntN(1000)+1) / 1e3)
		}
		v.SelfConfidence = nil
		if r.IntN(2) == 0 {
			v.SelfConfidence = ptr(float64(r.IntN(101)) / 100)
		}
		v.JudgeCalls, v.CacheHits, v.CacheMisses = r.IntN(3), r.IntN(2), r.IntN(2)
		v.Codes = nil
		for _, c := range codes {
			if r.IntN(3) == 0 {
				v.Codes = append(v.Codes, c)
			}
		}
		// One in six was stored before the log kept complexities.
		v.Complexity = nil
		if r.IntN(6) > 0 {
			v.Complexity = ptr(r.IntN(11))
		}
		v.Issue = ""
		out = append(out, v)
	}
	return out
}

// inWindow reports whether v is in w.
func inWindow(v *store.Verification, w store.Window) bool {
	return !v.CreatedAt.Before(w.Since) && v.CreatedAt.Before(w.Until) &&
		(w.Kind == "" || string(v.Kind) == w.Kind) && (w.ExecutorModel == "" || v.ExecutorModel == w.ExecutorModel) &&
		(w.Criticality == "" || v.Criticality == w.Criticality)
}

// expectTally folds vs one by one: what Store.Tally must equal.
func expectTally(vs []*store.Verification, w store.Window) *store.WindowTally {
	groups := map[[2]string]*store.Tally{}
	type acc struct {
		n    int64
		refs []*store.Verification
	}
	codes := map[string]*acc{}
	// Each verification counts under the issue Insert gave it (a retry
	// inserted before its attempt 1 has none: testIssues checks which).
	issues := map[string]*store.IssueTally{}
	for _, v := range vs {
		if !inWindow(v, w) {
			continue
		}
		k := [2]string{string(v.Kind), v.ExecutorModel}
		if groups[k] == nil {
			groups[k] = &store.Tally{}
		}
		groups[k].Add(v)
		if issue := v.Issue; issue != "" {
			it := issues[issue]
			if it == nil {
				it = &store.IssueTally{Issue: issue}
			}
			switch {
			case v.Attempt == 1 && v.Verdict.SentBack():
				it.SentBack++
			case v.Attempt == 2:
				it.Retried++
			}
			if v.Attempt > 1 && v.Verdict == vouch.VerdictPass {
				it.RetryPass++
			}
			if it.SentBack+it.Retried+it.RetryPass > 0 {
				issues[issue] = it
			}
		}
		for _, c := range v.Codes {
			if codes[c] == nil {
				codes[c] = &acc{}
			}
			codes[c].n++
			codes[c].refs = append(codes[c].refs, v)
		}
	}
	out := &store.WindowTally{}
	for k, t := range groups {
		out.Groups = append(out.Groups, store.GroupTally{Kind: k[0], ExecutorModel: k[1], Tally: *t})
	}
	sort.Slice(out.Groups, func(i, j int) bool {
		a, b := out.Groups[i], out.Groups[j]
		return a.Kind < b.Kind || a.Kind == b.Kind && a.ExecutorModel < b.ExecutorModel
	})
	for c, a := range codes {
		cc := store.CodeCount{Code: c, N: a.n}
		slices.SortStableFunc(a.refs, func(x, y *store.Verification) int { return y.CreatedAt.Compare(x.CreatedAt) })
		for _, v := range a.refs[:min(3, len(a.refs))] {
			cc.Examples = append(cc.Examples, store.Ref{ID: v.ID, Attempt: v.Attempt})
		}
		out.Codes = append(out.Codes, cc)
	}
	sort.Slice(out.Codes, func(i, j int) bool {
		a, b := out.Codes[i], out.Codes[j]
		return a.N > b.N || a.N == b.N && a.Code < b.Code
	})
	for _, it := range issues {
		out.Issues = append(out.Issues, *it)
	}
	store.SortIssues(out.Issues)
	return out
}

var approx = cmpopts.EquateApprox(0, 1e-9)

func (h *harness) checkTally(name, tenant string, vs []*store.Verification, w store.Window) {
	h.t.Helper()
	got, err := h.s.Tally(h.t.Context(), tenant, w)
	if err != nil {
		h.t.Fatalf("%s: Tally: %v", name, err)
	}
	want := expectTally(vs, w)
	// Examples are the newest verifications per code, but the tallies
	// keep one per hour: compare their counts, and the first example (the
	// newest one) exactly.
	trim := cmp.Transformer("firstExample", func(c store.CodeCount) store.CodeCount {
		c.Examples = c.Examples[:min(1, len(c.Examples))]
		return c
	})
	if d := cmp.Diff(want, got, approx, trim, cmpopts.EquateEmpty()); d != "" {
		h.t.Errorf("%s: Tally mismatch (-fold one by one +store):\n%s", name, d)
	}
	for _, c := range got.Codes {
		if len(c.Examples) == 0 || len(c.Examples) > 3 {
			h.t.Errorf("%s: code %s has %d examples, want 1 to 3", name, c.Code, len(c.Examples))
		}
	}
}

func testTally(t *testing.T, h *harness) {
	vs := history(tenant, 400) // about 47 hours from base (09:30)
	h.insertAll(vs)
	h.insertAll(history("other", 50))
	hour := base.Truncate(time.Hour)
	for _, w := range []struct {
		name string
		w    store.Window
	}{
		{"everything", store.Window{Since: base.Add(-time.Hour), Until: base.Add(72 * time.Hour)}},
		{"whole hours", store.Window{Since: hour.Add(2 * time.Hour), Until: hour.Add(20 * time.Hour)}},
		{"part hours at both ends", store.Window{Since: hour.Add(2*time.Hour + 17*time.Minute), Until: hour.Add(30*time.Hour + 41*time.Minute)}},
		{"whole days between part hours", store.Window{Since: hour.Add(2*time.Hour + 17*time.Minute), Until: hour.Add(60*time.Hour + 41*time.Minute)}},
		{"whole days only", store.Window{Since: hour.Add(-9 * time.Hour), Until: hour.Add(39 * time.Hour)}},
		{"within one hour", store.Window{Since: hour.Add(5*time.Hour + 10*time.Minute), Until: hour.Add(5*time.Hour + 50*time.Minute)}},
		{"across one hour boundary", store.Window{Since: hour.Add(5*time.Hour + 10*time.Minute), Until: hour.Add(6*time.Hour + 50*time.Minute)}},
		{"before anything", store.Window{Since: hour.Add(-48 * time.Hour), Until: hour.Add(-time.Hour)}},
	} {
		h.checkTally(w.name, tenant, vs, w.w)
	}
	// And after reopening: the tallies are durable.
	h.s.Close()
	h.s = h.reopen()
	h.checkTally("reopened", tenant, vs, store.Window{Since: hour.Add(time.Hour + time.Minute), Until: hour.Add(40 * time.Hour)})

	_, err := h.s.Tally(t.Context(), tenant, store.Window{Since: base, Until: base})
	if err == nil {
		t.Errorf("Tally of an empty window: no error")
	}
}

func testTallyFilters(t *testing.T, h *harness) {
	vs := history(tenant, 300)
	h.insertAll(vs)
	hour := base.Truncate(time.Hour)
	for _, w := range []store.Window{
		{Kind: "answer"},
		{ExecutorModel: "openai:gpt-x"},
		{ExecutorModel: ""},
		{Criticality: "high", Kind: "subtask"},
		{Kind: "nothing-of-this-kind"},
	} {
		w.Since, w.Until = hour.Add(90*time.Minute), hour.Add(30*time.Hour+5*time.Minute)
		h.checkTally(fmt.Sprintf("%+v", w), tenant, vs, w)
	}
}

func testScan(t *testing.T, h *harness) {
	vs := history(tenant, 60)
	h.insertAll(vs)
	w := store.Window{Since: at(30), Until: at(300), Kind: "subtask"}
	var got []store.Verification
	err := h.s.Scan(t.Context(), tenant, w, func(v *store.Verification) error {
		got = append(got, *v)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var want []store.Verification
	for _, v := range vs {
		if inWindow(v, w) {
			// Scan reads the fields calibration needs.
			want = append(want, store.Verification{Seq: v.Seq, Tenant: v.Tenant, ID: v.ID, Attempt: v.Attempt,
				Kind: v.Kind, Verdict: v.Verdict, VerdictRow: v.VerdictRow, Score: v.Score, Confidence: v.Confidence,
				Dims: v.Dims, MustUndecided: v.MustUndecided, Injection: v.Injection, Ledger: v.Ledger, CreatedAt: v.CreatedAt})
		}
	}
	sort.Slice(got, func(i, j int) bool { return got[i].Seq < got[j].Seq })
	sort.Slice(want, func(i, j int) bool { return want[i].Seq < want[j].Seq })
	if len(want) == 0 {
		t.Fatal("the window holds nothing; the test proves nothing")
	}
	diff(t, "Scan", want, got)

	stop := fmt.Errorf("stop")
	n := 0
	err = h.s.Scan(t.Context(), tenant, w, func(*store.Verification) error { n++; return stop })
	if err == nil || n != 1 {
		t.Errorf("Scan after fn's error: %d calls, %v; want 1 call and the error", n, err)
	}
}

func testOutcomes(t *testing.T, h *harness) {
	ctx := t.Context()
	a1 := sample(tenant, "a", 1, at(0))
	a1.TaskID, a1.InteractionID = "task-1", "run-1"
	a2 := sample(tenant, "a", 2, at(1))
	a2.TaskID, a2.InteractionID = "task-1", "run-1"
	b := sample(tenant, "b", 1, at(2))
	b.TaskID, b.InteractionID = "task-1", "run-2"
	for _, v := range []*store.Verification{a1, a2, b} {
		h.insert(v)
	}
	for _, tc := range []struct {
		name        string
		o           store.Outcome
		wantID      string
		wantAttempt int
	}{
		{"by id, latest attempt", store.Outcome{VerificationID: "a", Good: true}, "a", 2},
		{"by id and attempt", store.Outcome{VerificationID: "a", Attempt: 1}, "a", 1},
		{"by task: its latest verification", store.Outcome{TaskID: "task-1"}, "b", 1},
		{"by task and interaction", store.Outcome{TaskID: "task-1", InteractionID: "run-1", Detail: "broke the build"}, "a", 2},
	} {
		o := tc.o
		o.Tenant = tenant
		if err := h.s.AddOutcome(ctx, &o); err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if o.VerificationID != tc.wantID || o.Attempt != tc.wantAttempt || o.CreatedAt.IsZero() {
			t.Errorf("%s: labelled %s/%d at %v, want %s/%d", tc.name, o.VerificationID, o.Attempt, o.CreatedAt, tc.wantID, tc.wantAttempt)
		}
	}
	for _, o := range []store.Outcome{
		{Tenant: tenant, VerificationID: "nope"},
		{Tenant: tenant, VerificationID: "a", Attempt: 3},
		{Tenant: tenant, TaskID: "task-2"},
		{Tenant: tenant, TaskID: "task-1", InteractionID: "run-3"},
		{Tenant: "other", VerificationID: "a"},
	} {
		isErr(t, fmt.Sprintf("AddOutcome(%+v)", o), h.s.AddOutcome(ctx, &o), store.ErrNotFound)
	}
	for _, o := range []store.Outcome{{Tenant: tenant}, {Tenant: "bad tenant", VerificationID: "a"}, {Tenant: tenant, VerificationID: "a", Attempt: -1}} {
		if err := h.s.AddOutcome(ctx, &o); err == nil || errors.Is(err, store.ErrNotFound) {
			t.Errorf("AddOutcome(%+v) = %v, want a usage error", o, err)
		}
	}
}

func testLabels(t *testing.T, h *harness) {
	ctx := t.Context()
	in := sample(tenant, "in", 1, at(10))
	in.Kind, in.Verdict, in.VerdictRow = "answer", "unverified", 6
	in.Ledger = &store.Ledger{Claims: 3, Unverified: 1, LeftUnverified: true}
	out := sample(tenant, "out", 1, at(100))
	other := sample(tenant, "kind", 1, at(11))
	other.Kind = "plan"
	for _, v := range []*store.Verification{in, out, other} {
		h.insert(v)
	}
	add := func(o store.Override) {
		o.Tenant = tenant
		if err := h.s.AddOverride(ctx, &o); err != nil {
			t.Fatal(err)
		}
	}
	add(store.Override{VerificationID: "in", Verdict: "fail", Reason: "it lied", Reviewer: "ana", CreatedAt: at(20)})
	add(store.Override{VerificationID: "out", Verdict: "pass", CreatedAt: at(21)})
	add(store.Override{VerificationID: "kind", Verdict: "pass", CreatedAt: at(22)})
	o := store.Outcome{Tenant: tenant, VerificationID: "in", Good: true, Detail: "held up", Reporter: "ci", CreatedAt: at(30)}
	if err := h.s.AddOutcome(ctx, &o); err != nil {
		t.Fatal(err)
	}
	bad := store.Outcome{Tenant: tenant, VerificationID: "in", Good: false, CreatedAt: at(25)}
	if err := h.s.AddOutcome(ctx, &bad); err != nil {
		t.Fatal(err)
	}

	got, err := h.s.Labels(ctx, tenant, store.Window{Since: at(0), Until: at(50), Kind: "answer"})
	if err != nil {
		t.Fatal(err)
	}
	type lab struct {
		ID, Source string
		Verdict    vouch.Verdict
		Note, By   string
		Good       bool
		At         time.Time
		Kind       vouch.Kind
		Dims       map[string]float64
		Verdict0   vouch.Verdict
		Ledger     *store.Ledger
	}
	var gl []lab
	for _, l := range got {
		gl = append(gl, lab{l.V.ID, l.Source, l.Verdict, l.Note, l.By, l.Good, l.At, l.V.Kind, l.V.Dims, l.V.Verdict, l.V.Ledger})
	}
	dims, ledger := in.Dims, in.Ledger
	diff(t, "Labels (oldest first, only the window's)", []lab{
		{"in", store.SourceOverride, "fail", "it lied", "ana", false, at(20).Truncate(time.Microsecond), "answer", dims, "unverified", ledger},
		{"in", store.SourceOutcome, "", "", "", false, at(25).Truncate(time.Microsecond), "answer", dims, "unverified", ledger},
		{"in", store.SourceOutcome, "", "held up", "ci", true, at(30).Truncate(time.Microsecond), "answer", dims, "unverified", ledger},
	}, gl)

	none, err := h.s.Labels(ctx, "other", store.Window{Since: at(0), Until: at(500)})
	if err != nil || len(none) != 0 {
		t.Errorf("another tenant's labels: %d, %v; want none", len(none), err)
	}
}

func testAlerts(t *testing.T, h *harness) {
	ctx := t.Context()
	ev := func(a *store.Alert) (store.Event, error) {
		return store.Event{Type: "alert", Data: []byte(fmt.Sprintf(`{"name":%q,"firing":%t}`, a.Name, a.Firing))}, nil
	}
	set := func(firing bool, value float64, when int) (bool, store.Alert) {
		t.Helper()
		a := store.Alert{Tenant: tenant, Name: "catchRate", Severity: "high", Firing: firing,
			Value: ptr(value), Threshold: 0.6, Labels: 40, Message: "m", UpdatedAt: at(when)}
		changed, err := h.s.SetAlert(ctx, &a, ev)
		if err != nil {
			t.Fatal(err)
		}
		return changed, a
	}
	if changed, a := set(false, 0.8, 0); changed || !a.Since.Equal(at(0).Truncate(time.Microsecond)) {
		t.Errorf("a new alert not firing: changed %v since %v; want false and its first time", changed, a.Since)
	}
	if changed, a := set(true, 0.5, 1); !changed || !a.Since.Equal(at(1).Truncate(time.Microsecond)) {
		t.Errorf("starting to fire: changed %v since %v; want true, now", changed, a.Since)
	}
	if changed, a := set(true, 0.4, 2); changed || !a.Since.Equal(at(1).Truncate(time.Microsecond)) {
		t.Errorf("still firing: changed %v since %v; want false, since it started", changed, a.Since)
	}
	if changed, _ := set(false, 0.7, 3); !changed {
		t.Errorf("stopping: changed false, want true")
	}
	evs, err := h.s.Events(ctx, tenant, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	var data []string
	for _, e := range evs {
		data = append(data, string(e.Data))
	}
	diff(t, "alert events", []string{`{"name":"catchRate","firing":true}`, `{"name":"catchRate","firing":false}`}, data)
	got, err := h.s.Alerts(ctx, tenant)
	if err != nil {
		t.Fatal(err)
	}
	diff(t, "Alerts", []store.Alert{{Tenant: tenant, Name: "catchRate", Severity: "high", Value: ptr(0.7),
		Threshold: 0.6, Labels: 40, Message: "m", Since: at(3).Truncate(time.Microsecond), UpdatedAt: at(3).Truncate(time.Microsecond)}}, got)
	if other, err := h.s.Alerts(ctx, "other"); err != nil || len(other) != 0 {
		t.Errorf("another tenant's alerts: %v, %v", other, err)
	}

	// Evaluations at once raise a change once.
	var (
		wg      sync.WaitGroup
		changes atomic.Int32
	)
	for range 8 {
		wg.Go(func() {
			a := store.Alert{Tenant: "race", Name: "retrySuccess", Severity: "medium", Firing: true, Threshold: 0.5, UpdatedAt: at(5)}
			changed, err := h.s.SetAlert(ctx, &a, ev)
			if err != nil {
				t.Error(err)
			}
			if changed {
				changes.Add(1)
			}
		})
	}
	wg.Wait()
	if evs, _ := h.s.Events(ctx, "race", 0, 10); changes.Load() != 1 || len(evs) != 1 {
		t.Errorf("8 evaluations at once: %d changes, %d events; want 1 and 1", changes.Load(), len(evs))
	}
}

func testTenants(t *testing.T, h *harness) {
	h.insert(sample("zeta", "z", 1, at(0)))
	h.insert(sample("alpha", "a", 1, at(120)))
	got, err := h.s.Tenants(t.Context(), at(60))
	if err != nil {
		t.Fatal(err)
	}
	diff(t, "Tenants since an hour on", []string{"alpha"}, got)
	got, _ = h.s.Tenants(t.Context(), at(-60))
	diff(t, "Tenants", []string{"alpha", "zeta"}, got)
}

func testPruneTallies(t *testing.T, h *harness) {
	vs := history(tenant, 100)
	h.insertAll(vs)
	cutoff := at(7 * 50).Truncate(time.Hour).Add(30 * time.Minute)
	if _, err := h.s.Prune(t.Context(), cutoff, 10000); err != nil {
		t.Fatal(err)
	}
	var kept []*store.Verification
	for _, v := range vs {
		if !v.CreatedAt.Before(cutoff) {
			kept = append(kept, v)
		}
	}
	// Windows from the cutoff on are what they were; the hours wholly
	// before it are gone.
	h.checkTally("from the cutoff", tenant, kept, store.Window{Since: cutoff, Until: at(7 * 200)})
	h.checkTally("before the cutoff", tenant, nil, store.Window{Since: at(-60), Until: cutoff.Truncate(time.Hour)})
}

func testImport(t *testing.T, h *harness) {
	vs := history(tenant, 300)
	h.insert(vs[0])
	for _, v := range vs[1:] {
		v.Seq = 0
	}
	n, err := h.s.Import(t.Context(), vs)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(vs)-1 {
		t.Errorf("Import wrote %d, want %d (one was there already)", n, len(vs)-1)
	}
	for _, v := range vs {
		if v.Seq == 0 {
			t.Errorf("%s/%d has no Seq", v.ID, v.Attempt)
		}
	}
	// Imported rows are tallied as inserted ones, the one skipped once.
	h.checkTally("imported", tenant, vs, store.Window{Since: at(-60), Until: at(7 * 400)})
	if n, err := h.s.Import(t.Context(), vs[:10]); n != 0 || err != nil {
		t.Errorf("importing again: %d, %v; want 0 written", n, err)
	}
	bad := []*store.Verification{sample(tenant, "ok", 1, at(0)), sample(tenant, "", 1, at(0))}
	if _, err := h.s.Import(t.Context(), bad); err == nil {
		t.Errorf("Import of a verification without an id: no error")
	}
	if _, err := h.s.Get(t.Context(), tenant, "ok", 1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a refused import wrote its valid rows: %v", err)
	}
}

// testIssues checks the issue the store gives each attempt (the first
// code of the task's first attempt, read from the log for a retry) and
// the tallies of issues and of complexity built from them.
func testIssues(t *testing.T, h *harness) {
	ctx := t.Context()
	att := func(tn, id string, attempt int, verdict vouch.Verdict, codes ...string) *store.Verification {
		v := sample(tn, id, attempt, at(attempt))
		v.Verdict, v.Codes, v.Complexity = verdict, codes, ptr(attempt)
		return v
	}
	// Task a: sent back for TEST_NOT_RUN, then for something else, then
	// passed. Task b: sent back with no code, then passed.
	for _, v := range []*store.Verification{
		att(tenant, "a", 1, "retry", "TEST_NOT_RUN", "UNCLAIMED_CHANGE"),
		att(tenant, "a", 2, "retry", "COUNT_MISMATCH"),
		att(tenant, "a", 3, "pass"),
		att(tenant, "b", 1, "fail"),
		att(tenant, "b", 2, "pass", "LOW_CONFIDENCE"),
		// A retry whose first attempt the log does not hold (here: only
		// another tenant's): its issue is unknown, and no issue counts it.
		att("other", "c", 1, "retry", "GIT_NOT_RUN"),
		att(tenant, "c", 2, "pass"),
	} {
		h.insert(v)
	}
	// A caller may give the issue itself.
	given := att(tenant, "d", 2, "retry")
	given.Issue = "TEXT_MISSING"
	h.insert(given)
	// Import finds attempt 1 written earlier in the same call.
	imp := []*store.Verification{att(tenant, "e", 1, "retry", "SCHEMA_VIOLATION"), att(tenant, "e", 2, "retry")}
	if _, err := h.s.Import(ctx, imp); err != nil {
		t.Fatalf("Import: %v", err)
	}
	for _, c := range []struct {
		id      string
		attempt int
		want    string
	}{
		{"a", 1, "TEST_NOT_RUN"}, {"a", 2, "TEST_NOT_RUN"}, {"a", 3, "TEST_NOT_RUN"},
		{"b", 1, store.IssueNone}, {"b", 2, store.IssueNone},
		{"c", 2, ""}, {"d", 2, "TEXT_MISSING"},
		{"e", 1, "SCHEMA_VIOLATION"}, {"e", 2, "SCHEMA_VIOLATION"},
	} {
		g, err := h.s.Get(ctx, tenant, c.id, c.attempt)
		if err != nil {
			t.Fatalf("Get(%s, %d): %v", c.id, c.attempt, err)
		}
		if g.Issue != c.want {
			t.Errorf("%s/%d: issue %q, want %q", c.id, c.attempt, g.Issue, c.want)
		}
	}

	// The tallies, read from whole hours (hourly rows) and from the log
	// itself (a window within an hour), agree.
	for _, w := range []store.Window{
		{Since: base.Add(-24 * time.Hour), Until: base.Add(24 * time.Hour)},
		{Since: base, Until: base.Add(10 * time.Minute)},
	} {
		got, err := h.s.Tally(ctx, tenant, w)
		if err != nil {
			t.Fatalf("Tally: %v", err)
		}
		diff(t, "issues", []store.IssueTally{
			{Issue: store.IssueNone, SentBack: 1, Retried: 1, RetryPass: 1},
			{Issue: "SCHEMA_VIOLATION", SentBack: 1, Retried: 1},
			{Issue: "TEST_NOT_RUN", SentBack: 1, Retried: 1, RetryPass: 1},
			{Issue: "TEXT_MISSING", Retried: 1},
		}, got.Issues)
		var all store.Tally
		for _, g := range got.Groups {
			all.Merge(&g.Tally)
		}
		// Complexity is the attempt here: 1 (a, b, e), 2 (a, b, c, d, e),
		// 3 (a); the score of sample is 0.8125.
		diff(t, "complexity", [store.ComplexityBins]store.ComplexityTally{
			1: {N: 3, Scored: 3, ScoreSum: 3 * 0.8125},
			2: {N: 6, Pass: 3, Scored: 6, ScoreSum: 6 * 0.8125},
		}, all.Complexity)
	}
}
