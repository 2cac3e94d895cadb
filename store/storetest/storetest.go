// Package storetest is the conformance suite of [store.Store]: every
// implementation runs [Run] and must pass it whole.
//
// The suite uses fixed times, no sleeps and no clock: each subtest gets a
// fresh, empty database from the NewDB it is given, and may reopen it to
// check that data outlives a close.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/store"
)

// NewDB makes a fresh, empty database for one test, registers its removal
// with t.Cleanup, and returns a function that opens a Store on it. The
// suite closes every store it opens; it may call open again after a close
// to reopen the same data.
type NewDB func(t *testing.T) (open func() (store.Store, error))

// Run runs the conformance suite, each subtest on a database of its own
// (subtests run in parallel).
func Run(t *testing.T, newDB NewDB) {
	tests := []struct {
		name string
		fn   func(t *testing.T, h *harness)
	}{
		{"InsertGetRoundtrip", testRoundtrip},
		{"NilFields", testNilFields},
		{"TimesUTC", testTimesUTC},
		{"DefaultIdempotencyKey", testDefaultKey},
		{"RequestHashForms", testRequestHashForms},
		{"GetLatestAttempt", testLatestAttempt},
		{"ByKey", testByKey},
		{"DuplicateByKey", testDuplicateByKey},
		{"DuplicateByIDAttempt", testDuplicateByIDAttempt},
		{"ConcurrentInserts", testConcurrentInserts},
		{"InvalidInsert", testInvalidInsert},
		{"CancelledContext", testCancelled},
		{"ListPagination", testPagination},
		{"ListLimits", testListLimits},
		{"ListFilters", testFilters},
		{"ListTimeRange", testTimeRange},
		{"ListOldestUnreviewed", testOldestUnreviewed},
		{"TenantIsolation", testTenantIsolation},
		{"Overrides", testOverrides},
		{"Events", testEvents},
		{"EventReports", testEventReports},
		{"Batches", testBatches},
		{"BatchBornDone", testBatchBornDone},
		{"BatchItemConflict", testBatchItemConflict},
		{"ReverifyBatch", testReverifyBatch},
		{"LargeBatch", testLargeBatch},
		{"LoadingBatch", testLoadingBatch},
		{"LoadingBatchBornDone", testLoadingBatchBornDone},
		{"AbortBatch", testAbortBatch},
		{"PruneLoading", testPruneLoading},
		{"ConcurrentCompleteItems", testConcurrentComplete},
		{"CrossedTwins", testCrossedTwins},
		{"PendingItemsOrder", testPendingOrder},
		{"Keys", testKeys},
		{"Prune", testPrune},
		{"Tally", testTally},
		{"TallyFilters", testTallyFilters},
		{"Issues", testIssues},
		{"Scan", testScan},
		{"Outcomes", testOutcomes},
		{"Labels", testLabels},
		{"Alerts", testAlerts},
		{"Tenants", testTenants},
		{"PruneTallies", testPruneTallies},
		{"Import", testImport},
		{"Secret", testSecret},
		{"Ping", testPing},
		{"Closed", testClosed},
		{"Reopen", testReopen},
		{"CompressionDictionary", testCompressionDictionary},
		{"WriteStats", testWriteStats},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := &harness{t: t, open: newDB(t)}
			h.s = h.reopen()
			tc.fn(t, h)
		})
	}
}

// harness is one subtest's database and its open store.
type harness struct {
	t    *testing.T
	open func() (store.Store, error)
	s    store.Store
}

// reopen opens a store on the subtest's database (closed at cleanup).
func (h *harness) reopen() store.Store {
	h.t.Helper()
	s, err := h.open()
	if err != nil {
		h.t.Fatalf("open: %v", err)
	}
	h.t.Cleanup(func() { s.Close() })
	return s
}

// base is the suite's clock: every time is base plus a fixed offset.
var base = time.Date(2026, 11, 3, 9, 30, 0, 123456000, time.UTC)

// at returns base plus i minutes.
func at(i int) time.Time { return base.Add(time.Duration(i) * time.Minute) }

const tenant = "acme"

// sample returns a verification with every field set.
func sample(tenant, id string, attempt int, created time.Time) *store.Verification {
	score := 0.8125
	return &store.Verification{
		Tenant:           tenant,
		ID:               id,
		Attempt:          attempt,
		IdempotencyKey:   fmt.Sprintf("key-%s-%d", id, attempt),
		RequestHash:      "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		InteractionID:    "run-7",
		TargetID:         "step-3",
		VerificationType: "agent",
		TaskID:           "task-" + id,
		Goal:             "Add a CHANGELOG entry for 1.2.0",
		Kind:             vouch.KindSubtask,
		Verdict:          vouch.VerdictPass,
		Action:           vouch.ActionAccept,
		Score:            &score,
		Confidence:       0.9,
		NeedsReview:      false,
		Criticality:      "normal",
		ExecutorModel:    "claude-sonnet",
		JudgeModels:      []string{"judge-a", "judge-b"},
		CostUSD:          0.0123,
		DurationMs:       1234.5,
		// Odd spacing and key order: the bytes must come back as stored.
		Result:       []byte(`{"id":"` + id + `",  "verdict":"pass","score":0.8125, "a":[1,2,{"z":null}]}`),
		Request:      []byte(`{"task":{"goal":"Add a CHANGELOG entry for 1.2.0"},"id":"` + id + `"}`),
		RequestBytes: 64,
		CreatedAt:    created,
		VerdictRow:   7,
		Dims:         map[string]float64{"completeness": 0.75, "groundedness": 1},
		// The store keeps what it is given; it does not check that the
		// ledger agrees with the verdict.
		Ledger:      &store.Ledger{Claims: 7, Unverified: 2, Refuted: 1, LeftUnverified: true},
		Codes:       []string{"UNCLAIMED_CHANGE", "MUST_UNDECIDED"},
		TaskCostUSD: ptr(0.5),
		JudgeCalls:  2,
		CacheHits:   1,
		CacheMisses: 1,
		// A figure with no short decimal form must come back exactly.
		SelfConfidence: ptr(0.1 + 0.2),
		Complexity:     ptr(5),
	}
}

func ptr[T any](x T) *T { return &x }

func event(tenant, typ string, i int) store.Event {
	return store.Event{Tenant: tenant, Type: typ, Data: []byte(fmt.Sprintf(`{"type":%q,"n":%d}`, typ, i)), CreatedAt: at(i)}
}

func (h *harness) insert(v *store.Verification, events ...store.Event) *store.Verification {
	h.t.Helper()
	got, err := h.s.Insert(h.t.Context(), v, events)
	if err != nil {
		h.t.Fatalf("Insert(%s/%d): %v", v.ID, v.Attempt, err)
	}
	return got
}

// insertAll inserts vs from 16 goroutines (so SQLite groups them), and
// fails on any error.
func (h *harness) insertAll(vs []*store.Verification) {
	h.t.Helper()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	next := make(chan *store.Verification)
	for range 16 {
		wg.Go(func() {
			for v := range next {
				if _, err := h.s.Insert(h.t.Context(), v, nil); err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("%s/%d: %w", v.ID, v.Attempt, err))
					mu.Unlock()
				}
			}
		})
	}
	for _, v := range vs {
		next <- v
	}
	close(next)
	wg.Wait()
	if len(errs) > 0 {
		h.t.Fatalf("Insert: %v", errors.Join(errs...))
	}
}

// listAll pages through a tenant's list with f and returns every row.
func (h *harness) listAll(tenant string, f store.Filter) []store.Verification {
	h.t.Helper()
	var out []store.Verification
	for range 10000 {
		p, err := h.s.List(h.t.Context(), tenant, f)
		if err != nil {
			h.t.Fatalf("List(%+v): %v", f, err)
		}
		out = append(out, p.Items...)
		if p.Next == 0 {
			return out
		}
		f.Before = p.Next
	}
	h.t.Fatal("List: pages never end")
	return nil
}

func ids(vs []store.Verification) []string {
	var out []string
	for _, v := range vs {
		out = append(out, fmt.Sprintf("%s/%d", v.ID, v.Attempt))
	}
	return out
}

// withoutRequest is v as List returns it.
func withoutRequest(v store.Verification) store.Verification {
	v.Request, v.RequestHash = nil, ""
	return v
}

// listed is v as a list without reports gives it: no Request (nor its
// hash), no Result.
func listed(v store.Verification) store.Verification {
	v.Request, v.RequestHash, v.Result = nil, "", nil
	return v
}

func diff(t *testing.T, what string, want, got any) {
	t.Helper()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s: mismatch (-want +got):\n%s", what, d)
	}
}

func isErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: error %v, want %v", what, err, target)
	}
}

func testRoundtrip(t *testing.T, h *harness) {
	ctx := t.Context()
	v := sample(tenant, "v1", 1, at(0))
	evs := []store.Event{event(tenant, "verification.created", 0), event("", "verification.done", 1)}
	got := h.insert(v, evs...)
	if got != v {
		t.Errorf("Insert returned another value than v")
	}
	if v.Seq <= 0 {
		t.Fatalf("Insert: Seq %d, want > 0", v.Seq)
	}
	if evs[0].Seq <= 0 || evs[1].Seq <= evs[0].Seq {
		t.Errorf("event Seqs %d, %d: want increasing and > 0", evs[0].Seq, evs[1].Seq)
	}
	if evs[1].Tenant != tenant {
		t.Errorf("event without a tenant got tenant %q, want the verification's %q", evs[1].Tenant, tenant)
	}
	want := *sample(tenant, "v1", 1, at(0))
	// The store gives a first attempt its issue: its first code.
	want.Seq, want.Issue = v.Seq, "UNCLAIMED_CHANGE"
	diff(t, "Insert's v", want, *v)

	g, err := h.s.Get(ctx, tenant, "v1", 1)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	diff(t, "Get", want, *g)
	if string(g.Result) != string(want.Result) {
		t.Errorf("Result bytes %q, want %q", g.Result, want.Result)
	}

	v2 := h.insert(sample(tenant, "v2", 1, at(1)))
	if v2.Seq <= v.Seq {
		t.Errorf("second Seq %d not after first %d", v2.Seq, v.Seq)
	}
	p, err := h.s.List(ctx, tenant, store.Filter{})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	want2 := *sample(tenant, "v2", 1, at(1))
	want2.Seq, want2.Issue = v2.Seq, "UNCLAIMED_CHANGE"
	diff(t, "List", store.Page{Items: []store.Verification{listed(want2), listed(want)}}, p)
	// With their reports.
	p, err = h.s.List(ctx, tenant, store.Filter{Reports: true})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	diff(t, "List with reports", store.Page{Items: []store.Verification{withoutRequest(want2), withoutRequest(want)}}, p)

	got2, err := h.s.Events(ctx, tenant, 0, 10)
	if err != nil {
		t.Fatalf("Events: %v", err)
	}
	diff(t, "Events", evs, got2)
}

func testNilFields(t *testing.T, h *harness) {
	v := sample(tenant, "nil", 1, at(0))
	v.Score, v.Request, v.JudgeModels, v.RequestBytes = nil, nil, nil, 2_000_000
	v.Dims, v.Codes, v.TaskCostUSD, v.SelfConfidence, v.Ledger, v.Complexity = nil, nil, nil, nil, nil, nil
	h.insert(v)
	g, err := h.s.Get(t.Context(), tenant, "nil", 1)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if g.Score != nil {
		t.Errorf("Score = %v, want nil", *g.Score)
	}
	if g.Request != nil {
		t.Errorf("Request = %q, want nil", g.Request)
	}
	if g.JudgeModels != nil {
		t.Errorf("JudgeModels = %q, want nil", g.JudgeModels)
	}
	if g.Ledger != nil {
		t.Errorf("Ledger = %+v, want nil: a report without a ledger", *g.Ledger)
	}
	diff(t, "Get", *v, *g)

	// Zero is not nothing: a score of 0, and a ledger of no claim (an
	// output that claims nothing), come back as such.
	zero := 0.0
	v0 := sample(tenant, "zero", 1, at(1))
	v0.Score = &zero
	v0.JudgeModels = []string{"only"}
	v0.Ledger = &store.Ledger{LeftUnverified: true}
	h.insert(v0)
	g0, err := h.s.Get(t.Context(), tenant, "zero", 1)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if g0.Score == nil || *g0.Score != 0 {
		t.Errorf("Score = %v, want a pointer to 0", g0.Score)
	}
	if g0.Ledger == nil || g0.Ledger.Claims != 0 || !g0.Ledger.LeftUnverified {
		t.Errorf("Ledger = %+v, want a ledger of no claim, left unverified", g0.Ledger)
	}
	diff(t, "Get", *v0, *g0)
}

func testTimesUTC(t *testing.T, h *harness) {
	zone := time.FixedZone("UTC+5", 5*3600)
	created := time.Date(2026, 11, 3, 14, 30, 0, 123456789, zone) // nanoseconds too
	v := sample(tenant, "tz", 1, created)
	h.insert(v)
	g, err := h.s.Get(t.Context(), tenant, "tz", 1)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	want := created.Truncate(time.Microsecond)
	if !g.CreatedAt.Equal(want) || g.CreatedAt.Location() != time.UTC {
		t.Errorf("CreatedAt = %v, want %v in UTC", g.CreatedAt, want.UTC())
	}
	if !v.CreatedAt.Equal(g.CreatedAt) {
		t.Errorf("Insert set CreatedAt %v, stored %v", v.CreatedAt, g.CreatedAt)
	}
	// Since in another zone selects the same instant.
	p, err := h.s.List(t.Context(), tenant, store.Filter{Since: want.In(zone)})
	if err != nil || len(p.Items) != 1 {
		t.Errorf("List(Since = its own time in another zone) = %d items, %v; want 1", len(p.Items), err)
	}
	p, err = h.s.List(t.Context(), tenant, store.Filter{Since: want.Add(time.Microsecond)})
	if err != nil || len(p.Items) != 0 {
		t.Errorf("List(Since = 1µs after) = %d items, %v; want 0", len(p.Items), err)
	}
}

func testDefaultKey(t *testing.T, h *harness) {
	v := sample(tenant, "dk", 2, at(0))
	v.IdempotencyKey = ""
	h.insert(v)
	if v.IdempotencyKey != "dk/2" {
		t.Errorf("IdempotencyKey = %q, want dk/2", v.IdempotencyKey)
	}
	g, err := h.s.ByKey(t.Context(), tenant, "dk/2")
	if err != nil || g.ID != "dk" {
		t.Errorf("ByKey(dk/2) = %v, %v", g, err)
	}
}

// testRequestHashForms: every request hash reads back as it was
// written, whether the store keeps it as bytes (the server's forms: a
// body's SHA-256, with or without a policy's fingerprint) or as text.
func testRequestHashForms(t *testing.T, h *harness) {
	const body = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	hashes := []string{
		body + "/ef92ff2fb3a78a3e", // the server's, with its policy
		body,                       // Record's: the body alone
		strings.ToUpper(body),      // hex, but not the server's
		body + "/ef92ff2fb3a78a3",  // a fingerprint one digit short
		body + "/ef92ff2fb3a78a3e/",
		body[1:],
		"h",
		"",
		"not/hex",
	}
	var vs []*store.Verification
	for i, hash := range hashes {
		v := sample(tenant, fmt.Sprintf("rh%d", i), 1, at(i))
		v.RequestHash = hash
		vs = append(vs, v)
	}
	h.insertAll(vs)
	for _, v := range vs {
		g, err := h.s.Get(t.Context(), tenant, v.ID, 1)
		if err != nil || g.RequestHash != v.RequestHash {
			t.Errorf("Get(%s).RequestHash = %q, %v; want %q", v.ID, g.RequestHash, err, v.RequestHash)
		}
		g, err = h.s.ByKey(t.Context(), tenant, v.IdempotencyKey)
		if err != nil || g.RequestHash != v.RequestHash {
			t.Errorf("ByKey(%s).RequestHash = %q, %v; want %q", v.ID, g.RequestHash, err, v.RequestHash)
		}
	}
	// A list leaves the hash out, as it does the request.
	for _, f := range []store.Filter{{}, {Reports: true}} {
		for _, g := range h.listAll(tenant, f) {
			if g.RequestHash != "" {
				t.Errorf("List(Reports %v): %s has RequestHash %q, want none", f.Reports, g.ID, g.RequestHash)
			}
		}
	}
}

func testLatestAttempt(t *testing.T, h *harness) {
	ctx := t.Context()
	for _, a := range []int{1, 3, 2} {
		v := sample(tenant, "la", a, at(a))
		v.Verdict = vouch.Verdict(fmt.Sprintf("verdict-%d", a))
		h.insert(v)
	}
	for _, tc := range []struct{ ask, want int }{{0, 3}, {1, 1}, {2, 2}, {3, 3}} {
		g, err := h.s.Get(ctx, tenant, "la", tc.ask)
		if err != nil {
			t.Errorf("Get(attempt %d): %v", tc.ask, err)
			continue
		}
		if g.Attempt != tc.want || g.Verdict != vouch.Verdict(fmt.Sprintf("verdict-%d", tc.want)) {
			t.Errorf("Get(attempt %d) = attempt %d (%s), want %d", tc.ask, g.Attempt, g.Verdict, tc.want)
		}
		if g.Request == nil {
			t.Errorf("Get(attempt %d): no Request", tc.ask)
		}
	}
	_, err := h.s.Get(ctx, tenant, "la", 4)
	isErr(t, "Get(attempt 4)", err, store.ErrNotFound)
	_, err = h.s.Get(ctx, tenant, "missing", 0)
	isErr(t, "Get(missing)", err, store.ErrNotFound)
}

func testByKey(t *testing.T, h *harness) {
	v := h.insert(sample(tenant, "bk", 1, at(0)))
	g, err := h.s.ByKey(t.Context(), tenant, v.IdempotencyKey)
	if err != nil {
		t.Fatalf("ByKey: %v", err)
	}
	diff(t, "ByKey", *v, *g)
	_, err = h.s.ByKey(t.Context(), tenant, "nope")
	isErr(t, "ByKey(missing)", err, store.ErrNotFound)
}

func testDuplicateByKey(t *testing.T, h *harness) {
	ctx := t.Context()
	first := h.insert(sample(tenant, "d1", 1, at(0)), event(tenant, "created", 0))
	last, _ := h.s.LastEventSeq(ctx, tenant)

	again := sample(tenant, "d2", 1, at(1))
	again.IdempotencyKey = first.IdempotencyKey
	again.Result = []byte(`{"other":true}`)
	evs := []store.Event{event(tenant, "created", 1)}
	got, err := h.s.Insert(ctx, again, evs)
	isErr(t, "Insert(same key)", err, store.ErrDuplicate)
	if got == nil {
		t.Fatal("Insert(same key) returned no stored verification")
	}
	diff(t, "stored verification", *first, *got)
	if again.Seq != 0 || evs[0].Seq != 0 {
		t.Errorf("a duplicate was given Seqs: verification %d, event %d", again.Seq, evs[0].Seq)
	}
	if n, _ := h.s.LastEventSeq(ctx, tenant); n != last {
		t.Errorf("a duplicate wrote its events: last event %d, was %d", n, last)
	}
	if _, err := h.s.Get(ctx, tenant, "d2", 1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a duplicate was written: Get(d2) error %v", err)
	}
}

func testDuplicateByIDAttempt(t *testing.T, h *harness) {
	first := h.insert(sample(tenant, "same", 2, at(0)))
	again := sample(tenant, "same", 2, at(1))
	again.IdempotencyKey = "another-key"
	got, err := h.s.Insert(t.Context(), again, nil)
	isErr(t, "Insert(same id and attempt)", err, store.ErrDuplicate)
	if got == nil {
		t.Fatal("Insert(same id and attempt) returned no stored verification")
	}
	diff(t, "stored verification", *first, *got)
	if _, err := h.s.ByKey(t.Context(), tenant, "another-key"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a duplicate was written: ByKey(another-key) error %v", err)
	}
}

func testConcurrentInserts(t *testing.T, h *harness) {
	ctx := t.Context()
	const n, pairs = 64, 16
	// Writes i and i+48 (i < 16) conflict: 0-7 by idempotency key,
	// 8-15 by id and attempt. The other 32 are unique.
	vs := make([]*store.Verification, n)
	for i := range n {
		vs[i] = sample(tenant, fmt.Sprintf("c%02d", i), 1, at(i))
		vs[i].IdempotencyKey = fmt.Sprintf("k%02d", i)
	}
	for i := range pairs {
		j := n - pairs + i
		if i < pairs/2 {
			vs[j].IdempotencyKey = vs[i].IdempotencyKey
		} else {
			vs[j].ID = vs[i].ID
		}
	}
	type result struct {
		v   *store.Verification
		err error
	}
	results := make([]result, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			v, err := h.s.Insert(ctx, vs[i], []store.Event{event(tenant, "created", i)})
			results[i] = result{v, err}
		})
	}
	close(start)
	wg.Wait()
	for i := range n - pairs {
		r := results[i]
		if i >= pairs {
			if r.err != nil {
				t.Errorf("unique insert %d: %v", i, r.err)
			}
			continue
		}
		o := results[n-pairs+i]
		winner, loser := r, o
		if r.err != nil {
			winner, loser = o, r
		}
		if winner.err != nil || !errors.Is(loser.err, store.ErrDuplicate) {
			t.Errorf("pair %d: errors %v and %v, want nil and ErrDuplicate", i, r.err, o.err)
			continue
		}
		if loser.v == nil || loser.v.Seq != winner.v.Seq || loser.v.ID != winner.v.ID || string(loser.v.Result) != string(winner.v.Result) {
			t.Errorf("pair %d: the duplicate returned %+v, want the stored %s (Seq %d)", i, loser.v, winner.v.ID, winner.v.Seq)
		}
	}
	all := h.listAll(tenant, store.Filter{Limit: 1000})
	if len(all) != n-pairs {
		t.Errorf("stored %d verifications, want %d", len(all), n-pairs)
	}
	evs, err := h.s.Events(ctx, tenant, 0, 1000)
	if err != nil || len(evs) != n-pairs {
		t.Errorf("Events = %d, %v; want %d events (one per stored verification)", len(evs), err, n-pairs)
	}
}

func testInvalidInsert(t *testing.T, h *harness) {
	for name, mod := range map[string]func(v *store.Verification){
		"empty tenant":    func(v *store.Verification) { v.Tenant = "" },
		"bad tenant":      func(v *store.Verification) { v.Tenant = "Acme Corp" },
		"empty id":        func(v *store.Verification) { v.ID = "" },
		"attempt 0":       func(v *store.Verification) { v.Attempt = 0 },
		"no result":       func(v *store.Verification) { v.Result = nil },
		"negative claims": func(v *store.Verification) { v.Ledger = &store.Ledger{Claims: -1} },
		"more unverified and refuted than claims": func(v *store.Verification) {
			v.Ledger = &store.Ledger{Claims: 3, Unverified: 2, Refuted: 2}
		},
		"foreign events": nil,
	} {
		v := sample(tenant, "bad", 1, at(0))
		var evs []store.Event
		if mod != nil {
			mod(v)
		} else {
			evs = []store.Event{event("other", "created", 0)}
		}
		_, err := h.s.Insert(t.Context(), v, evs)
		if err == nil || errors.Is(err, store.ErrDuplicate) {
			t.Errorf("Insert(%s) error %v, want a validation error", name, err)
		}
	}
	if p, _ := h.s.List(t.Context(), tenant, store.Filter{}); len(p.Items) != 0 {
		t.Errorf("invalid inserts stored %d rows", len(p.Items))
	}
}

func testCancelled(t *testing.T, h *harness) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := h.s.Insert(ctx, sample(tenant, "cx", 1, at(0)), []store.Event{event(tenant, "x", 0)})
	isErr(t, "Insert(cancelled)", err, context.Canceled)
	err = h.s.AppendEvents(ctx, []store.Event{event(tenant, "x", 0)})
	isErr(t, "AppendEvents(cancelled)", err, context.Canceled)
	if _, err := h.s.Get(t.Context(), tenant, "cx", 1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a cancelled insert was written: Get error %v", err)
	}
	if n, _ := h.s.LastEventSeq(t.Context(), tenant); n != 0 {
		t.Errorf("cancelled writes stored events up to %d", n)
	}
}

func testPagination(t *testing.T, h *harness) {
	const n = 250
	var vs []*store.Verification
	for i := range n {
		vs = append(vs, sample(tenant, fmt.Sprintf("p%03d", i), 1, at(i)))
	}
	h.insertAll(vs)
	want := map[int64]bool{}
	for _, v := range vs {
		want[v.Seq] = true
	}
	var (
		got    []int64
		before int64
		pages  int
	)
	for {
		p, err := h.s.List(t.Context(), tenant, store.Filter{Before: before, Limit: 40})
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		pages++
		if len(p.Items) > 40 {
			t.Fatalf("page of %d > limit 40", len(p.Items))
		}
		for _, v := range p.Items {
			got = append(got, v.Seq)
		}
		if p.Next == 0 {
			break
		}
		if p.Next != p.Items[len(p.Items)-1].Seq {
			t.Fatalf("Next = %d, want the last row's Seq %d", p.Next, p.Items[len(p.Items)-1].Seq)
		}
		before = p.Next
	}
	if pages != 7 {
		t.Errorf("%d pages of 40 over 250 rows, want 7", pages)
	}
	if !slices.IsSortedFunc(got, func(a, b int64) int { return int(b - a) }) {
		t.Errorf("Seqs not newest first: %v", got)
	}
	if len(got) != n {
		t.Errorf("%d rows over every page, want %d", len(got), n)
	}
	for i, s := range got {
		if !want[s] || (i > 0 && got[i-1] == s) {
			t.Errorf("row %d: Seq %d unexpected or repeated", i, s)
		}
	}
}

func testListLimits(t *testing.T, h *harness) {
	ctx := t.Context()
	var vs []*store.Verification
	for i := range 1001 {
		vs = append(vs, sample(tenant, fmt.Sprintf("l%04d", i), 1, at(i)))
	}
	h.insertAll(vs)
	p, err := h.s.List(ctx, tenant, store.Filter{})
	if err != nil || len(p.Items) != 50 || p.Next == 0 {
		t.Errorf("List(default limit) = %d items, next %d, %v; want 50 and a next page", len(p.Items), p.Next, err)
	}
	p, err = h.s.List(ctx, tenant, store.Filter{Limit: 5000})
	if err != nil || len(p.Items) != 1000 || p.Next == 0 {
		t.Fatalf("List(limit 5000) = %d items, next %d, %v; want 1000 and a next page", len(p.Items), p.Next, err)
	}
	p, err = h.s.List(ctx, tenant, store.Filter{Limit: 5000, Before: p.Next})
	if err != nil || len(p.Items) != 1 || p.Next != 0 {
		t.Errorf("List(last page) = %d items, next %d, %v; want 1 and no next page", len(p.Items), p.Next, err)
	}
	// A page that ends exactly at the last row has no next page.
	p, err = h.s.List(ctx, tenant, store.Filter{Limit: 1001})
	if err != nil || len(p.Items) != 1000 {
		t.Fatalf("List(limit 1001) = %d items, %v", len(p.Items), err)
	}
	last := p.Items[998].Seq // rows below it: exactly 2
	p, err = h.s.List(ctx, tenant, store.Filter{Limit: 2, Before: last})
	if err != nil || len(p.Items) != 2 || p.Next != 0 {
		t.Errorf("List(exactly the 2 last rows) = %d items, next %d, %v; want 2 and no next page", len(p.Items), p.Next, err)
	}
}

func testFilters(t *testing.T, h *harness) {
	yes, no := true, false
	type attrs struct {
		kind                     vouch.Kind
		verdict                  vouch.Verdict
		action                   vouch.Action
		task, interaction, model string
		review                   bool
	}
	rows := []attrs{
		{"subtask", "pass", "accept", "t1", "i1", "m1", false},
		{"subtask", "fail", "retry", "t1", "i1", "m2", true},
		{"plan", "pass", "accept", "t2", "i1", "m1", false},
		{"plan", "uncertain", "escalate", "t2", "i2", "m1", true},
		{"final", "pass", "accept", "t3", "i2", "m2", false},
		{"subtask", "fail", "escalate", "t3", "i2", "m1", true},
		{"final", "fail", "retry", "t1", "i3", "m3", false},
		{"subtask", "pass", "accept", "t1", "i3", "m3", false},
		{"answer", "unverified", "accept", "t4", "i3", "m1", false},
		{"subtask", "unverified", "escalate", "t4", "i1", "m2", true},
	}
	var stored []store.Verification
	for i, r := range rows {
		v := sample(tenant, fmt.Sprintf("f%d", i), 1, at(i))
		v.Kind, v.Verdict, v.Action, v.TaskID, v.InteractionID, v.ExecutorModel, v.NeedsReview =
			r.kind, r.verdict, r.action, r.task, r.interaction, r.model, r.review
		h.insert(v)
		stored = append(stored, withoutRequest(*v))
	}
	// Another tenant's rows match every filter and must never show.
	for i, r := range rows {
		v := sample("other", fmt.Sprintf("f%d", i), 1, at(i))
		v.Kind, v.Verdict, v.Action, v.TaskID, v.InteractionID, v.ExecutorModel, v.NeedsReview =
			r.kind, r.verdict, r.action, r.task, r.interaction, r.model, r.review
		h.insert(v)
	}
	cases := []struct {
		name string
		f    store.Filter
		keep func(v store.Verification) bool
	}{
		{"none", store.Filter{}, func(store.Verification) bool { return true }},
		{"kind", store.Filter{Kind: vouch.KindSubtask}, func(v store.Verification) bool { return v.Kind == vouch.KindSubtask }},
		{"verdict", store.Filter{Verdict: vouch.VerdictFail}, func(v store.Verification) bool { return v.Verdict == vouch.VerdictFail }},
		{"verdict unverified", store.Filter{Verdict: vouch.VerdictUnverified}, func(v store.Verification) bool { return v.Verdict == vouch.VerdictUnverified }},
		{"action", store.Filter{Action: vouch.ActionEscalate}, func(v store.Verification) bool { return v.Action == vouch.ActionEscalate }},
		{"task", store.Filter{TaskID: "t1"}, func(v store.Verification) bool { return v.TaskID == "t1" }},
		{"interaction", store.Filter{InteractionID: "i2"}, func(v store.Verification) bool { return v.InteractionID == "i2" }},
		{"model", store.Filter{ExecutorModel: "m3"}, func(v store.Verification) bool { return v.ExecutorModel == "m3" }},
		{"needs review", store.Filter{NeedsReview: &yes}, func(v store.Verification) bool { return v.NeedsReview }},
		{"no review", store.Filter{NeedsReview: &no}, func(v store.Verification) bool { return !v.NeedsReview }},
		{"kind and verdict", store.Filter{Kind: vouch.KindSubtask, Verdict: vouch.VerdictPass}, func(v store.Verification) bool {
			return v.Kind == vouch.KindSubtask && v.Verdict == vouch.VerdictPass
		}},
		{"task, review and time", store.Filter{TaskID: "t1", NeedsReview: &no, Since: at(1), Until: at(7)}, func(v store.Verification) bool {
			return v.TaskID == "t1" && !v.NeedsReview && !v.CreatedAt.Before(at(1)) && v.CreatedAt.Before(at(7))
		}},
		{"no match", store.Filter{Kind: "nope"}, func(store.Verification) bool { return false }},
	}
	for _, tc := range cases {
		var want []store.Verification
		for i := len(stored) - 1; i >= 0; i-- {
			if tc.keep(stored[i]) {
				want = append(want, stored[i])
			}
		}
		f := tc.f
		f.Reports = true
		diff(t, "List("+tc.name+")", want, h.listAll(tenant, f))
		// The same by pages of 1.
		f = tc.f
		f.Limit = 1
		diff(t, "List("+tc.name+") by pages of 1", ids(want), ids(h.listAll(tenant, f)))
	}
}

// listOldest pages through a tenant's list oldest first, by pages of
// limit, and returns every row.
func (h *harness) listOldest(tenant string, f store.Filter, limit int) []store.Verification {
	h.t.Helper()
	f.Oldest, f.Limit, f.After = true, limit, 0
	var out []store.Verification
	for range 10000 {
		p, err := h.s.List(h.t.Context(), tenant, f)
		if err != nil {
			h.t.Fatalf("List(%+v): %v", f, err)
		}
		out = append(out, p.Items...)
		if p.Next == 0 {
			return out
		}
		if p.Next != p.Items[len(p.Items)-1].Seq {
			h.t.Fatalf("Next = %d, want the last row's Seq %d", p.Next, p.Items[len(p.Items)-1].Seq)
		}
		f.After = p.Next
	}
	h.t.Fatal("List: pages never end")
	return nil
}

// testOldestUnreviewed checks the review queue's list: oldest first with
// an After cursor, and only the verifications no override labels yet
// (per attempt, per tenant).
func testOldestUnreviewed(t *testing.T, h *harness) {
	ctx := t.Context()
	yes := true
	var all, review []string
	for i := range 9 {
		v := sample(tenant, fmt.Sprintf("q%d", i), 1, at(i))
		v.NeedsReview = i%3 != 0
		h.insert(v)
		all = append(all, fmt.Sprintf("q%d/1", i))
		if v.NeedsReview {
			review = append(review, fmt.Sprintf("q%d/1", i))
		}
	}
	// A second attempt of q1, needing review too: its own item.
	v := sample(tenant, "q1", 2, at(20))
	v.NeedsReview = true
	h.insert(v)
	all = append(all, "q1/2")
	review = append(review, "q1/2")
	// Another tenant's rows of the same ids, and its overrides of them,
	// change nothing here.
	for i := range 9 {
		o := sample("other", fmt.Sprintf("q%d", i), 1, at(i))
		o.NeedsReview = true
		h.insert(o)
		if err := h.s.AddOverride(ctx, &store.Override{Tenant: "other", VerificationID: o.ID, Attempt: 1, Verdict: "pass", Reviewer: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	diff(t, "List(oldest)", all, ids(h.listOldest(tenant, store.Filter{}, 4)))
	diff(t, "List(oldest, needs review, unreviewed)", review, ids(h.listOldest(tenant, store.Filter{NeedsReview: &yes, Unreviewed: true}, 2)))

	// Overriding q1's first attempt takes it out of the queue, not its
	// second; q4 leaves too.
	for _, o := range []store.Override{
		{Tenant: tenant, VerificationID: "q1", Attempt: 1, Verdict: "fail", Reviewer: "ann"},
		{Tenant: tenant, VerificationID: "q4", Attempt: 1, Verdict: "pass", Reviewer: "ann"},
	} {
		if err := h.s.AddOverride(ctx, &o); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"q2/1", "q5/1", "q7/1", "q8/1", "q1/2"}
	diff(t, "List(queue after overrides)", want, ids(h.listOldest(tenant, store.Filter{NeedsReview: &yes, Unreviewed: true}, 2)))
	diff(t, "List(queue after overrides, one page)", want, ids(h.listOldest(tenant, store.Filter{NeedsReview: &yes, Unreviewed: true}, 100)))
	// Unreviewed alone, newest first.
	got := h.listAll(tenant, store.Filter{Unreviewed: true})
	if len(got) != len(all)-2 || got[0].ID != "q1" || got[0].Attempt != 2 {
		t.Errorf("List(unreviewed) = %v", ids(got))
	}
	// Other tenant: every row overridden, none in its queue.
	if got := h.listOldest("other", store.Filter{NeedsReview: &yes, Unreviewed: true}, 10); len(got) != 0 {
		t.Errorf("the other tenant's queue: %v", ids(got))
	}
}

func testTimeRange(t *testing.T, h *harness) {
	for i := range 10 {
		h.insert(sample(tenant, fmt.Sprintf("t%d", i), 1, at(i)))
	}
	span := func(from, to int) []string {
		var out []string
		for i := to - 1; i >= from; i-- {
			out = append(out, fmt.Sprintf("t%d/1", i))
		}
		return out
	}
	cases := []struct {
		name string
		f    store.Filter
		want []string
	}{
		{"since is inclusive", store.Filter{Since: at(3)}, span(3, 10)},
		{"until is exclusive", store.Filter{Until: at(7)}, span(0, 7)},
		{"both", store.Filter{Since: at(3), Until: at(7)}, span(3, 7)},
		{"one microsecond", store.Filter{Since: at(4), Until: at(4).Add(time.Microsecond)}, span(4, 5)},
		{"empty", store.Filter{Since: at(4), Until: at(4)}, nil},
		{"before everything", store.Filter{Until: at(0)}, nil},
		{"after everything", store.Filter{Since: at(10)}, nil},
	}
	for _, tc := range cases {
		diff(t, "List("+tc.name+")", tc.want, ids(h.listAll(tenant, tc.f)))
	}
}

func testTenantIsolation(t *testing.T, h *harness) {
	ctx := t.Context()
	const a, b = "tenant-a", "tenant-b"
	va := h.insert(sample(a, "shared", 1, at(0)), event(a, "created", 0))
	if err := h.s.AddOverride(ctx, &store.Override{Tenant: a, VerificationID: "shared", Attempt: 1, Verdict: "fail", Reviewer: "ann", CreatedAt: at(1)}); err != nil {
		t.Fatalf("AddOverride: %v", err)
	}
	if err := h.s.AppendEvents(ctx, []store.Event{event(a, "note", 2)}); err != nil {
		t.Fatalf("AppendEvents: %v", err)
	}
	batch := &store.Batch{Tenant: a, ID: "batch", CreatedAt: at(2)}
	if err := h.s.CreateBatch(ctx, batch, []store.BatchItem{{Request: []byte(`{"n":0}`)}, {Request: []byte(`{"n":1}`)}}); err != nil {
		t.Fatalf("CreateBatch: %v", err)
	}
	_, ka, err := store.NewKey(a, "ci", []string{store.ScopeVerify}, at(3))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.s.CreateKey(ctx, ka); err != nil {
		t.Fatalf("CreateKey: %v", err)
	}

	// Tenant b sees nothing of a.
	if _, err := h.s.Get(ctx, b, "shared", 1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("b: Get(a's verification) error %v, want ErrNotFound", err)
	}
	if _, err := h.s.Get(ctx, b, "shared", 0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("b: Get(a's verification, latest) error %v, want ErrNotFound", err)
	}
	if _, err := h.s.ByKey(ctx, b, va.IdempotencyKey); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("b: ByKey(a's key) error %v, want ErrNotFound", err)
	}
	if p, err := h.s.List(ctx, b, store.Filter{}); err != nil || len(p.Items) != 0 {
		t.Errorf("b: List = %d items, %v; want none", len(p.Items), err)
	}
	if os, err := h.s.Overrides(ctx, b, "shared", 1); err != nil || len(os) != 0 {
		t.Errorf("b: Overrides(a's verification) = %v, %v; want none", os, err)
	}
	if os, err := h.s.Overrides(ctx, b, "shared", 0); err != nil || len(os) != 0 {
		t.Errorf("b: Overrides(a's verification, latest) = %v, %v; want none", os, err)
	}
	err = h.s.AddOverride(ctx, &store.Override{Tenant: b, VerificationID: "shared", Attempt: 1, Verdict: "pass", CreatedAt: at(4)})
	isErr(t, "b: AddOverride(a's verification)", err, store.ErrNotFound)
	if evs, err := h.s.Events(ctx, b, 0, 100); err != nil || len(evs) != 0 {
		t.Errorf("b: Events = %v, %v; want none", evs, err)
	}
	if n, err := h.s.LastEventSeq(ctx, b); err != nil || n != 0 {
		t.Errorf("b: LastEventSeq = %d, %v; want 0", n, err)
	}
	if _, err := h.s.Batch(ctx, b, "batch"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("b: Batch(a's batch) error %v, want ErrNotFound", err)
	}
	err = h.s.BatchResults(ctx, b, "batch", func(store.BatchItem, []byte) error {
		t.Error("b: BatchResults called fn on a's batch")
		return nil
	})
	isErr(t, "b: BatchResults(a's batch)", err, store.ErrNotFound)
	err = h.s.CompleteItem(ctx, store.Completion{Tenant: b, BatchID: "batch", Index: 0, Verification: sample(b, "sneak", 1, at(5))})
	isErr(t, "b: CompleteItem(a's batch, a verification)", err, store.ErrNotFound)
	err = h.s.CompleteItem(ctx, store.Completion{Tenant: b, BatchID: "batch", Index: 1, Error: []byte(`{"error":"x"}`)})
	isErr(t, "b: CompleteItem(a's batch, an error)", err, store.ErrNotFound)
	got, err := h.s.Batch(ctx, a, "batch")
	if err != nil {
		t.Fatalf("a: Batch: %v", err)
	}
	diff(t, "a's batch after b's CompleteItem", *batch, *got)
	err = h.s.BatchResults(ctx, a, "batch", func(it store.BatchItem, res []byte) error {
		if it.State != store.ItemPending || res != nil {
			t.Errorf("a's item %d after b's CompleteItem: %s, %q; want pending", it.Index, it.State, res)
		}
		return nil
	})
	if err != nil {
		t.Errorf("a: BatchResults: %v", err)
	}
	if _, err := h.s.Get(ctx, b, "sneak", 1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("b's CompleteItem on a's batch wrote its verification: %v", err)
	}
	if ks, err := h.s.Keys(ctx, b); err != nil || len(ks) != 0 {
		t.Errorf("b: Keys = %v, %v; want none", ks, err)
	}

	// The same id, attempt and key in b are b's own.
	vb := sample(b, "shared", 1, at(6))
	vb.Verdict = vouch.VerdictFail
	if _, err := h.s.Insert(ctx, vb, []store.Event{event(b, "created", 6)}); err != nil {
		t.Fatalf("b: Insert(the same id, attempt and key as a's): %v", err)
	}
	ga, _ := h.s.Get(ctx, a, "shared", 0)
	gb, _ := h.s.Get(ctx, b, "shared", 0)
	if ga == nil || gb == nil || ga.Verdict != vouch.VerdictPass || gb.Verdict != vouch.VerdictFail {
		t.Errorf("after b's insert: a's = %+v, b's = %+v", ga, gb)
	}
	if evs, _ := h.s.Events(ctx, a, 0, 100); len(evs) != 2 {
		t.Errorf("a: %d events, want 2", len(evs))
	}
	if evs, _ := h.s.Events(ctx, b, 0, 100); len(evs) != 1 || evs[0].Tenant != b {
		t.Errorf("b: events %v, want its one", evs)
	}
	if p, _ := h.s.List(ctx, a, store.Filter{}); len(p.Items) != 1 || p.Items[0].Verdict != vouch.VerdictPass {
		t.Errorf("a: List = %v, want its one", ids(p.Items))
	}
}

func testOverrides(t *testing.T, h *harness) {
	ctx := t.Context()
	h.insert(sample(tenant, "o", 1, at(0)))
	h.insert(sample(tenant, "o", 2, at(1)))
	add := []store.Override{
		{Tenant: tenant, VerificationID: "o", Attempt: 1, Verdict: "fail", Reason: "the file is empty", Reviewer: "ann", CreatedAt: at(3)},
		{Tenant: tenant, VerificationID: "o", Attempt: 1, Verdict: "pass", Reason: "it was fine", Reviewer: "bob", CreatedAt: at(4)},
		{Tenant: tenant, VerificationID: "o", Attempt: 2, Verdict: "pass", Reviewer: "ann", CreatedAt: at(5)},
		// Attempt 0: the latest.
		{Tenant: tenant, VerificationID: "o", Attempt: 0, Verdict: "fail", Reviewer: "cy", CreatedAt: at(6)},
	}
	for i := range add {
		if err := h.s.AddOverride(ctx, &add[i]); err != nil {
			t.Fatalf("AddOverride %d: %v", i, err)
		}
	}
	if add[3].Attempt != 2 {
		t.Errorf("AddOverride(attempt 0) set Attempt %d, want the latest, 2", add[3].Attempt)
	}
	got, err := h.s.Overrides(ctx, tenant, "o", 1)
	if err != nil {
		t.Fatalf("Overrides: %v", err)
	}
	diff(t, "Overrides(attempt 1)", add[:2], got)
	got, err = h.s.Overrides(ctx, tenant, "o", 0)
	if err != nil {
		t.Fatalf("Overrides: %v", err)
	}
	diff(t, "Overrides(latest)", add[2:], got)
	if got, err := h.s.Overrides(ctx, tenant, "missing", 0); err != nil || len(got) != 0 {
		t.Errorf("Overrides(missing) = %v, %v; want none", got, err)
	}
	err = h.s.AddOverride(ctx, &store.Override{Tenant: tenant, VerificationID: "o", Attempt: 3, Verdict: "pass", CreatedAt: at(7)})
	isErr(t, "AddOverride(missing attempt)", err, store.ErrNotFound)
	err = h.s.AddOverride(ctx, &store.Override{Tenant: tenant, VerificationID: "missing", Verdict: "pass", CreatedAt: at(7)})
	isErr(t, "AddOverride(missing verification)", err, store.ErrNotFound)
	// The report itself never changes.
	g, _ := h.s.Get(ctx, tenant, "o", 1)
	if g == nil || g.Verdict != vouch.VerdictPass {
		t.Errorf("an override changed the verification: %+v", g)
	}
}

func testEvents(t *testing.T, h *harness) {
	ctx := t.Context()
	if n, err := h.s.LastEventSeq(ctx, tenant); err != nil || n != 0 {
		t.Errorf("LastEventSeq(empty) = %d, %v; want 0", n, err)
	}
	if err := h.s.AppendEvents(ctx, nil); err != nil {
		t.Errorf("AppendEvents(none): %v", err)
	}
	var want []store.Event
	first := []store.Event{event(tenant, "a", 0), event("other", "a", 1), event(tenant, "b", 2)}
	if err := h.s.AppendEvents(ctx, first); err != nil {
		t.Fatalf("AppendEvents: %v", err)
	}
	want = append(want, first[0], first[2])
	inserted := []store.Event{event(tenant, "created", 3)}
	h.insert(sample(tenant, "e", 1, at(3)), inserted...)
	want = append(want, inserted...)
	more := []store.Event{event(tenant, "c", 4), event(tenant, "d", 5)}
	if err := h.s.AppendEvents(ctx, more); err != nil {
		t.Fatalf("AppendEvents: %v", err)
	}
	want = append(want, more...)
	for i := 1; i < len(want); i++ {
		if want[i].Seq <= want[i-1].Seq {
			t.Fatalf("event Seqs not increasing: %d then %d", want[i-1].Seq, want[i].Seq)
		}
	}
	got, err := h.s.Events(ctx, tenant, 0, 100)
	if err != nil {
		t.Fatalf("Events: %v", err)
	}
	diff(t, "Events(all)", want, got)
	got, err = h.s.Events(ctx, tenant, want[1].Seq, 2)
	if err != nil {
		t.Fatalf("Events: %v", err)
	}
	diff(t, "Events(after the second, 2)", want[2:4], got)
	got, err = h.s.Events(ctx, tenant, want[len(want)-1].Seq, 100)
	if err != nil || len(got) != 0 {
		t.Errorf("Events(after the last) = %v, %v; want none", got, err)
	}
	got, err = h.s.Events(ctx, tenant, 0, 0)
	if err != nil || len(got) != len(want) {
		t.Errorf("Events(limit 0) = %d events, %v; want the default limit, so all %d", len(got), err, len(want))
	}
	if n, err := h.s.LastEventSeq(ctx, tenant); err != nil || n != want[len(want)-1].Seq {
		t.Errorf("LastEventSeq = %d, %v; want %d", n, err, want[len(want)-1].Seq)
	}
	if n, err := h.s.LastEventSeq(ctx, "other"); err != nil || n != first[1].Seq {
		t.Errorf("LastEventSeq(other) = %d, %v; want %d", n, err, first[1].Seq)
	}
	if err := h.s.AppendEvents(ctx, []store.Event{{Type: "no tenant", Data: []byte(`{}`)}}); err == nil {
		t.Error("AppendEvents(an event without a tenant) succeeded")
	}
}

// testEventReports: an event written with a verification may hold its
// report (ReportAt); it reads back whole, from Events, whether written by
// Insert or by CompleteItem, and an offset that does not locate the
// report is refused.
func testEventReports(t *testing.T, h *harness) {
	ctx := t.Context()
	withReport := func(v *store.Verification, typ string) store.Event {
		data := append(append([]byte(`{"type":"`+typ+`","data":{"report":`), v.Result...), `,"more":true}}`...)
		return store.Event{Tenant: v.Tenant, Type: typ, Data: data, ReportAt: len(`{"type":"` + typ + `","data":{"report":`), CreatedAt: v.CreatedAt}
	}
	v := sample(tenant, "r", 1, at(1))
	complete := withReport(v, "complete")
	wantData := string(complete.Data)
	plain := event(tenant, "retry", 1)
	h.insert(v, complete, plain)

	b := &store.Batch{Tenant: tenant, ID: "rb", CreatedAt: at(2)}
	if err := h.s.CreateBatch(ctx, b, []store.BatchItem{{Request: []byte(`{}`)}}); err != nil {
		t.Fatalf("CreateBatch: %v", err)
	}
	bv := sample(tenant, "rb-0", 1, at(2))
	bv.Result = []byte(`{"id":"rb-0","verdict":"fail"}`)
	batchEvent := withReport(bv, "complete")
	wantBatch := string(batchEvent.Data)
	if err := h.s.CompleteItem(ctx, store.Completion{Tenant: tenant, BatchID: "rb", Index: 0, Verification: bv, Events: []store.Event{batchEvent}}); err != nil {
		t.Fatalf("CompleteItem: %v", err)
	}
	got, err := h.s.Events(ctx, tenant, 0, 100)
	if err != nil {
		t.Fatalf("Events: %v", err)
	}
	if len(got) != 3 {
		t.Fatalf("Events = %d events, want 3", len(got))
	}
	for i, want := range []string{wantData, string(plain.Data), wantBatch} {
		if string(got[i].Data) != want || got[i].ReportAt != 0 {
			t.Errorf("event %d = %s (ReportAt %d), want %s", i, got[i].Data, got[i].ReportAt, want)
		}
	}

	bad := withReport(sample(tenant, "bad", 1, at(3)), "complete")
	bad.ReportAt++
	if _, err := h.s.Insert(ctx, sample(tenant, "bad", 1, at(3)), []store.Event{bad}); err == nil {
		t.Error("Insert with a ReportAt that misses the report succeeded")
	}
	if _, err := h.s.Get(ctx, tenant, "bad", 1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the refused insert was stored: %v", err)
	}
	lone := event(tenant, "lone", 4)
	lone.ReportAt = 1
	if err := h.s.AppendEvents(ctx, []store.Event{lone}); err == nil {
		t.Error("AppendEvents with a ReportAt and no verification succeeded")
	}
}

// results collects BatchResults.
func (h *harness) results(tenant, id string) (items []store.BatchItem, results []string) {
	h.t.Helper()
	err := h.s.BatchResults(h.t.Context(), tenant, id, func(it store.BatchItem, res []byte) error {
		items = append(items, it)
		if res == nil {
			results = append(results, "<nil>")
		} else {
			results = append(results, string(res))
		}
		return nil
	})
	if err != nil {
		h.t.Fatalf("BatchResults: %v", err)
	}
	return items, results
}

// testBatchItemConflict: an item whose verification's key is found
// stored at its completion is asked about the stored one: another
// request's is its error, and a copy of its own its report.
func testBatchItemConflict(t *testing.T, h *harness) {
	ctx := t.Context()
	items := []store.BatchItem{{Request: []byte(`{"n":0}`)}, {Request: []byte(`{"n":1}`)}, {Request: []byte(`{"n":2}`)}}
	if err := h.s.CreateBatch(ctx, &store.Batch{Tenant: tenant, ID: "twins", CreatedAt: at(0)}, items); err != nil {
		t.Fatalf("CreateBatch: %v", err)
	}
	first := sample(tenant, "twin", 1, at(1))
	if _, err := h.s.Insert(ctx, first, nil); err != nil {
		t.Fatalf("Insert: %v", err)
	}
	conflictErr := []byte(`{"error":{"code":"idempotency_conflict"}}`)
	var asked []string
	conflict := func(own *store.Verification) func(*store.Verification) []byte {
		return func(stored *store.Verification) []byte {
			asked = append(asked, stored.ID)
			if stored.RequestHash != own.RequestHash {
				return conflictErr
			}
			return nil
		}
	}
	other := sample(tenant, "twin", 1, at(2))
	other.RequestHash = strings.Repeat("0", 64)
	same := sample(tenant, "twin", 1, at(3))
	fresh := sample(tenant, "fresh", 1, at(4))
	for i, v := range []*store.Verification{other, same, fresh} {
		if err := h.s.CompleteItem(ctx, store.Completion{Tenant: tenant, BatchID: "twins", Index: i, Verification: v, Conflict: conflict(v)}); err != nil {
			t.Fatalf("CompleteItem(%d): %v", i, err)
		}
		if (v.Seq != 0) != (v == fresh) {
			t.Errorf("item %d: Seq %d; only the fresh verification is written", i, v.Seq)
		}
	}
	diff(t, "the stored verifications asked about", []string{"twin", "twin"}, asked)
	got, err := h.s.Batch(ctx, tenant, "twins")
	if err != nil || got.State != store.BatchDone || got.Done != 2 || got.Failed != 1 {
		t.Errorf("batch = %+v, %v; want done, 2 done and 1 failed", got, err)
	}
	_, res := h.results(tenant, "twins")
	diff(t, "BatchResults", []string{string(conflictErr), string(first.Result), string(fresh.Result)}, res)
}

func testBatches(t *testing.T, h *harness) {
	ctx := t.Context()
	b := &store.Batch{Tenant: tenant, ID: "b1", CreatedAt: at(0)}
	badLine := []byte(`{"error":{"code":"bad_request","line":4}}`)
	items := []store.BatchItem{
		{Request: []byte(`{"n":0}`)},
		{Request: []byte(`{"n":1}`)},
		{Request: []byte(`{"n":2}`)},
		{Request: []byte(`{"n":3`), State: store.ItemError, Error: badLine},
		{Request: []byte(`{"n":4}`)},
	}
	if err := h.s.CreateBatch(ctx, b, items); err != nil {
		t.Fatalf("CreateBatch: %v", err)
	}
	wantBatch := store.Batch{Tenant: tenant, ID: "b1", State: store.BatchRunning, Total: 5, Failed: 1, CreatedAt: at(0), Kind: store.BatchVerify}
	diff(t, "CreateBatch's b", wantBatch, *b)
	if err := h.s.CreateBatch(ctx, &store.Batch{Tenant: tenant, ID: "b1", CreatedAt: at(1)}, items[:1]); err == nil {
		t.Error("CreateBatch(an existing id) succeeded")
	}
	got, err := h.s.Batch(ctx, tenant, "b1")
	if err != nil {
		t.Fatalf("Batch: %v", err)
	}
	diff(t, "Batch", wantBatch, *got)
	if _, err := h.s.Batch(ctx, tenant, "missing"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Batch(missing) error %v, want ErrNotFound", err)
	}

	pending, err := h.s.PendingItems(ctx, 100)
	if err != nil {
		t.Fatalf("PendingItems: %v", err)
	}
	var wantPending []store.BatchItem
	for _, i := range []int{0, 1, 2, 4} {
		wantPending = append(wantPending, store.BatchItem{Tenant: tenant, BatchID: "b1", Index: i, State: store.ItemPending, Request: items[i].Request})
	}
	diff(t, "PendingItems", wantPending, pending)
	if p, err := h.s.PendingItems(ctx, 2); err != nil || len(p) != 2 || p[1].Index != 1 {
		t.Errorf("PendingItems(2) = %v, %v; want items 0 and 1", p, err)
	}

	_, res := h.results(tenant, "b1")
	diff(t, "BatchResults before any completes", []string{"<nil>", "<nil>", "<nil>", string(badLine), "<nil>"}, res)

	// Item 0: a verification and its event.
	v0 := sample(tenant, "bv0", 1, at(1))
	evs := []store.Event{event(tenant, "created", 1)}
	if err := h.s.CompleteItem(ctx, store.Completion{Tenant: tenant, BatchID: "b1", Index: 0, Verification: v0, Events: evs}); err != nil {
		t.Fatalf("CompleteItem(0): %v", err)
	}
	if v0.Seq == 0 || evs[0].Seq == 0 {
		t.Errorf("CompleteItem gave no Seqs: verification %d, event %d", v0.Seq, evs[0].Seq)
	}
	if g, err := h.s.Get(ctx, tenant, "bv0", 1); err != nil {
		t.Errorf("CompleteItem did not store its verification: %v", err)
	} else {
		diff(t, "the item's verification", *v0, *g)
	}
	// Again, with another verification: nothing changes, and its Seq
	// stays 0 (what tells the caller it wrote nothing).
	again := sample(tenant, "bv0-again", 1, at(2))
	if err := h.s.CompleteItem(ctx, store.Completion{Tenant: tenant, BatchID: "b1", Index: 0, Verification: again, Events: []store.Event{event(tenant, "created", 2)}}); err != nil {
		t.Errorf("CompleteItem(0) again: %v", err)
	}
	if again.Seq != 0 {
		t.Errorf("completing a done item gave its verification Seq %d, want 0", again.Seq)
	}
	if _, err := h.s.Get(ctx, tenant, "bv0-again", 1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("completing a done item wrote a verification: %v", err)
	}
	if err := h.s.CompleteItem(ctx, store.Completion{Tenant: tenant, BatchID: "b1", Index: 0, Error: []byte(`{"error":"late"}`)}); err != nil {
		t.Errorf("CompleteItem(0) with an error after done: %v", err)
	}
	// Item 1: an error.
	itemErr := []byte(`{"error":{"code":"judge_unavailable"}}`)
	if err := h.s.CompleteItem(ctx, store.Completion{Tenant: tenant, BatchID: "b1", Index: 1, Error: itemErr}); err != nil {
		t.Fatalf("CompleteItem(1, error): %v", err)
	}
	if err := h.s.CompleteItem(ctx, store.Completion{Tenant: tenant, BatchID: "b1", Index: 1, Error: itemErr}); err != nil {
		t.Errorf("CompleteItem(1, error) again: %v", err)
	}
	// Item 2: a duplicate of item 0's verification points at it.
	dup := sample(tenant, "bv2", 1, at(3))
	dup.IdempotencyKey = v0.IdempotencyKey
	if err := h.s.CompleteItem(ctx, store.Completion{Tenant: tenant, BatchID: "b1", Index: 2, Verification: dup, Events: []store.Event{event(tenant, "created", 3)}}); err != nil {
		t.Fatalf("CompleteItem(2, a duplicate): %v", err)
	}
	if dup.Seq != 0 {
		t.Errorf("a duplicate's completion gave it Seq %d, want 0: it wrote no verification", dup.Seq)
	}
	// Items that do not exist.
	err = h.s.CompleteItem(ctx, store.Completion{Tenant: tenant, BatchID: "b1", Index: 9, Error: itemErr})
	isErr(t, "CompleteItem(no such index)", err, store.ErrNotFound)
	err = h.s.CompleteItem(ctx, store.Completion{Tenant: tenant, BatchID: "nope", Index: 0, Error: itemErr})
	isErr(t, "CompleteItem(no such batch)", err, store.ErrNotFound)
	// Item 3 was born failed.
	if err := h.s.CompleteItem(ctx, store.Completion{Tenant: tenant, BatchID: "b1", Index: 3, Verification: sample(tenant, "bv3", 1, at(4))}); err != nil {
		t.Errorf("CompleteItem(3, born failed): %v", err)
	}
	if _, err := h.s.Get(ctx, tenant, "bv3", 1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("completing a failed item wrote a verification: %v", err)
	}

	got, _ = h.s.Batch(ctx, tenant, "b1")
	wantBatch.Done, wantBatch.Failed = 2, 2
	diff(t, "Batch with one item left", wantBatch, *got)
	if p, _ := h.s.PendingItems(ctx, 100); len(p) != 1 || p[0].Index != 4 {
		t.Errorf("PendingItems = %v, want item 4", p)
	}

	v4 := sample(tenant, "bv4", 1, at(5))
	if err := h.s.CompleteItem(ctx, store.Completion{Tenant: tenant, BatchID: "b1", Index: 4, Verification: v4}); err != nil {
		t.Fatalf("CompleteItem(4): %v", err)
	}
	got, _ = h.s.Batch(ctx, tenant, "b1")
	if got.State != store.BatchDone || got.Done != 3 || got.Failed != 2 || got.Total != 5 {
		t.Errorf("finished batch = %+v, want done with 3 done and 2 failed", got)
	}
	if got.FinishedAt.IsZero() || got.FinishedAt.Location() != time.UTC {
		t.Errorf("finished batch FinishedAt = %v, want a UTC time", got.FinishedAt)
	}
	if p, _ := h.s.PendingItems(ctx, 100); len(p) != 0 {
		t.Errorf("PendingItems after the batch finished = %v", p)
	}

	its, res := h.results(tenant, "b1")
	diff(t, "BatchResults", []string{string(v0.Result), string(itemErr), string(v0.Result), string(badLine), string(v4.Result)}, res)
	wantItems := []store.BatchItem{
		{Tenant: tenant, BatchID: "b1", Index: 0, State: store.ItemDone, VerificationID: "bv0", Attempt: 1},
		{Tenant: tenant, BatchID: "b1", Index: 1, State: store.ItemError, Error: itemErr},
		{Tenant: tenant, BatchID: "b1", Index: 2, State: store.ItemDone, VerificationID: "bv0", Attempt: 1},
		{Tenant: tenant, BatchID: "b1", Index: 3, State: store.ItemError, Error: badLine},
		{Tenant: tenant, BatchID: "b1", Index: 4, State: store.ItemDone, VerificationID: "bv4", Attempt: 1},
	}
	diff(t, "BatchResults items", wantItems, its)

	// fn's error stops the walk and is returned.
	stop := errors.New("stop")
	calls := 0
	err = h.s.BatchResults(ctx, tenant, "b1", func(store.BatchItem, []byte) error {
		calls++
		if calls == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 2 {
		t.Errorf("BatchResults with fn failing on the second item: %d calls, error %v", calls, err)
	}
	err = h.s.BatchResults(ctx, tenant, "missing", func(store.BatchItem, []byte) error { return nil })
	isErr(t, "BatchResults(missing)", err, store.ErrNotFound)
}

// testReverifyBatch: a re-verification batch keeps its kind and policy,
// its items name stored verifications, and a result completes an item.
func testReverifyBatch(t *testing.T, h *harness) {
	ctx := t.Context()
	b := &store.Batch{Tenant: tenant, ID: "rv", Kind: store.BatchReverify, Policy: []byte(`{"passAt":0.5}`), CreatedAt: at(0)}
	items := []store.BatchItem{{RefID: "a", RefAttempt: 1}, {RefID: "b", RefAttempt: 2}}
	if err := h.s.CreateBatch(ctx, b, items); err != nil {
		t.Fatalf("CreateBatch: %v", err)
	}
	got, err := h.s.Batch(ctx, tenant, "rv")
	if err != nil {
		t.Fatal(err)
	}
	want := store.Batch{Tenant: tenant, ID: "rv", State: store.BatchRunning, Total: 2, CreatedAt: at(0), Kind: store.BatchReverify, Policy: []byte(`{"passAt":0.5}`)}
	diff(t, "a re-verification batch", want, *got)
	pending, err := h.s.PendingItems(ctx, 10)
	if err != nil || len(pending) != 2 || pending[1].RefID != "b" || pending[1].RefAttempt != 2 || pending[1].Request != nil {
		t.Fatalf("PendingItems = %+v, %v", pending, err)
	}
	if err := h.s.CompleteItem(ctx, store.Completion{Tenant: tenant, BatchID: "rv", Index: 0, Result: []byte(`{"line":1,"changed":true}`)}); err != nil {
		t.Fatal(err)
	}
	if err := h.s.CompleteItem(ctx, store.Completion{Tenant: tenant, BatchID: "rv", Index: 0, Result: []byte(`{"again":true}`)}); err != nil {
		t.Errorf("completing a done item again: %v", err)
	}
	if err := h.s.CompleteItem(ctx, store.Completion{Tenant: tenant, BatchID: "rv", Index: 1, Error: []byte(`{"error":1}`)}); err != nil {
		t.Fatal(err)
	}
	var lines []string
	err = h.s.BatchResults(ctx, tenant, "rv", func(it store.BatchItem, result []byte) error {
		lines = append(lines, fmt.Sprintf("%s %s %d %s", it.State, it.RefID, it.RefAttempt, result))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	diff(t, "results", []string{`done a 1 {"line":1,"changed":true}`, `error b 2 {"error":1}`}, lines)
	if got, _ := h.s.Batch(ctx, tenant, "rv"); got.State != store.BatchDone || got.Done != 1 || got.Failed != 1 {
		t.Errorf("finished: %+v", got)
	}
	if err := h.s.CreateBatch(ctx, &store.Batch{Tenant: tenant, ID: "odd", Kind: "other"}, items); err == nil {
		t.Error("a batch of an unknown kind was created")
	}
}

func testBatchBornDone(t *testing.T, h *harness) {
	ctx := t.Context()
	b := &store.Batch{Tenant: tenant, ID: "bad", CreatedAt: at(0)}
	items := []store.BatchItem{{Error: []byte(`{"error":1}`)}, {State: store.ItemError, Error: []byte(`{"error":2}`)}}
	if err := h.s.CreateBatch(ctx, b, items); err != nil {
		t.Fatalf("CreateBatch: %v", err)
	}
	want := store.Batch{Tenant: tenant, ID: "bad", State: store.BatchDone, Total: 2, Failed: 2, CreatedAt: at(0), FinishedAt: at(0), Kind: store.BatchVerify}
	got, err := h.s.Batch(ctx, tenant, "bad")
	if err != nil {
		t.Fatalf("Batch: %v", err)
	}
	diff(t, "a batch of failed lines", want, *got)
	if p, _ := h.s.PendingItems(ctx, 10); len(p) != 0 {
		t.Errorf("PendingItems = %v, want none", p)
	}
	empty := &store.Batch{Tenant: tenant, ID: "empty", CreatedAt: at(1)}
	if err := h.s.CreateBatch(ctx, empty, nil); err != nil {
		t.Fatalf("CreateBatch(no items): %v", err)
	}
	if empty.State != store.BatchDone || empty.Total != 0 {
		t.Errorf("an empty batch = %+v, want done", empty)
	}
	if err := h.s.CreateBatch(ctx, &store.Batch{Tenant: tenant, ID: "weird"}, []store.BatchItem{{State: store.ItemDone}}); err == nil {
		t.Error("CreateBatch(an item born done) succeeded")
	}
}

func testLargeBatch(t *testing.T, h *harness) {
	ctx := t.Context()
	const n = 2345 // more than one chunk of inserts and of results
	items := make([]store.BatchItem, n)
	for i := range items {
		items[i].Request = []byte(fmt.Sprintf(`{"n":%d}`, i))
	}
	b := &store.Batch{Tenant: tenant, ID: "large", CreatedAt: at(0)}
	if err := h.s.CreateBatch(ctx, b, items); err != nil {
		t.Fatalf("CreateBatch: %v", err)
	}
	for _, i := range []int{0, 1000, n - 1} {
		v := sample(tenant, fmt.Sprintf("lb%d", i), 1, at(i))
		if err := h.s.CompleteItem(ctx, store.Completion{Tenant: tenant, BatchID: "large", Index: i, Verification: v}); err != nil {
			t.Fatalf("CompleteItem(%d): %v", i, err)
		}
	}
	next := 0
	err := h.s.BatchResults(ctx, tenant, "large", func(it store.BatchItem, res []byte) error {
		if it.Index != next {
			return fmt.Errorf("item %d, want %d", it.Index, next)
		}
		next++
		done := it.Index == 0 || it.Index == 1000 || it.Index == n-1
		if done != (res != nil) || done != (it.State == store.ItemDone) {
			return fmt.Errorf("item %d: state %s, result %q", it.Index, it.State, res)
		}
		return nil
	})
	if err != nil || next != n {
		t.Errorf("BatchResults: %v after %d items, want %d", err, next, n)
	}
	p, err := h.s.PendingItems(ctx, 5)
	if err != nil || len(p) != 5 || p[0].Index != 1 || string(p[0].Request) != `{"n":1}` {
		t.Errorf("PendingItems(5) = %v, %v", p, err)
	}
	got, _ := h.s.Batch(ctx, tenant, "large")
	if got.Done != 3 || got.Total != n || got.State != store.BatchRunning {
		t.Errorf("Batch = %+v", got)
	}
}

// testCrossedTwins: two batches whose items are the same requests, in
// opposite orders, completed at once, each batch's items in one
// transaction. Neither fails: where a store writes a transaction's rows
// in the order given, the two wait on each other's keys (a deadlock,
// which PostgreSQL breaks by failing one). In odd rounds each batch also
// holds a twin of its own first item, last: its rows are then written
// one by one rather than in a statement for all.
func testCrossedTwins(t *testing.T, h *harness) {
	ctx := t.Context()
	const n, rounds = 40, 6
	for r := range rounds {
		inner := r%2 == 1
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make([]error, 2)
		for side := range 2 {
			id := fmt.Sprintf("crossed-%d-%d", r, side)
			size := n
			if inner {
				size++
			}
			items := make([]store.BatchItem, size)
			for i := range items {
				items[i].Request = []byte(fmt.Sprintf(`{"n":%d}`, i))
			}
			if err := h.s.CreateBatch(ctx, &store.Batch{Tenant: tenant, ID: id, CreatedAt: at(r)}, items); err != nil {
				t.Fatalf("CreateBatch: %v", err)
			}
			// Item i of side 0 is the twin of item n-1-i of side 1, and
			// item n of each (in odd rounds) the twin of its item 0.
			twin := func(i int) int {
				if i == n {
					i = 0
				}
				if side == 1 {
					return n - 1 - i
				}
				return i
			}
			cs := make([]store.Completion, size)
			for i := range cs {
				v := sample(tenant, fmt.Sprintf("crossed-%d-%d", r, twin(i)), 1, at(r))
				cs[i] = store.Completion{Tenant: tenant, BatchID: id, Index: i, Verification: v}
			}
			wg.Go(func() {
				<-start
				errs[side] = h.s.CompleteItems(ctx, cs)
			})
		}
		close(start)
		wg.Wait()
		for side, err := range errs {
			if err != nil {
				t.Fatalf("round %d: CompleteItems of side %d: %v", r, side, err)
			}
		}
		for side := range 2 {
			b, err := h.s.Batch(ctx, tenant, fmt.Sprintf("crossed-%d-%d", r, side))
			if err != nil || b.State != store.BatchDone || b.Done != b.Total {
				t.Fatalf("round %d: batch %d = %+v, %v; want done, every item", r, side, b, err)
			}
		}
	}
}

func testConcurrentComplete(t *testing.T, h *harness) {
	ctx := t.Context()
	const n = 24
	items := make([]store.BatchItem, n)
	for i := range items {
		items[i].Request = []byte(fmt.Sprintf(`{"n":%d}`, i))
	}
	if err := h.s.CreateBatch(ctx, &store.Batch{Tenant: tenant, ID: "cc", CreatedAt: at(0)}, items); err != nil {
		t.Fatalf("CreateBatch: %v", err)
	}
	// Each item is completed three times at once: twice with a
	// verification (the same one), once with an error. One wins.
	start := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 3*n)
	for i := range n {
		for j := range 3 {
			wg.Go(func() {
				<-start
				var err error
				if j < 2 {
					v := sample(tenant, fmt.Sprintf("cc%d", i), 1, at(i))
					err = h.s.CompleteItem(ctx, store.Completion{Tenant: tenant, BatchID: "cc", Index: i, Verification: v, Events: []store.Event{event(tenant, "created", i)}})
				} else {
					err = h.s.CompleteItem(ctx, store.Completion{Tenant: tenant, BatchID: "cc", Index: i, Error: []byte(`{"error":"judge"}`)})
				}
				if err != nil {
					errs <- fmt.Errorf("item %d, completion %d: %w", i, j, err)
				}
			})
		}
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	b, err := h.s.Batch(ctx, tenant, "cc")
	if err != nil {
		t.Fatalf("Batch: %v", err)
	}
	if b.Done+b.Failed != n || b.State != store.BatchDone || b.FinishedAt.IsZero() {
		t.Errorf("batch = %+v, want %d items done or failed, and finished", b, n)
	}
	done := 0
	err = h.s.BatchResults(ctx, tenant, "cc", func(it store.BatchItem, res []byte) error {
		switch it.State {
		case store.ItemDone:
			done++
			if it.VerificationID != fmt.Sprintf("cc%d", it.Index) || res == nil {
				return fmt.Errorf("item %d: %+v, result %q", it.Index, it, res)
			}
		case store.ItemError:
			if string(res) != `{"error":"judge"}` {
				return fmt.Errorf("item %d: result %q", it.Index, res)
			}
		default:
			return fmt.Errorf("item %d still %s", it.Index, it.State)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("BatchResults: %v", err)
	}
	if done != b.Done {
		t.Errorf("%d items done, the batch counts %d", done, b.Done)
	}
	if p := h.listAll(tenant, store.Filter{}); len(p) != done {
		t.Errorf("%d verifications stored for %d done items", len(p), done)
	}
	if evs, _ := h.s.Events(ctx, tenant, 0, 1000); len(evs) != done {
		t.Errorf("%d events stored for %d done items", len(evs), done)
	}
}

func testPendingOrder(t *testing.T, h *harness) {
	ctx := t.Context()
	// Created later but dated earlier: the older batch comes first.
	for _, b := range []struct {
		tenant, id string
		created    int
	}{{"t1", "newer", 5}, {"t2", "older", 1}, {"t1", "oldest", 0}} {
		items := []store.BatchItem{{Request: []byte(`{"n":0}`)}, {Request: []byte(`{"n":1}`)}}
		if err := h.s.CreateBatch(ctx, &store.Batch{Tenant: b.tenant, ID: b.id, CreatedAt: at(b.created)}, items); err != nil {
			t.Fatalf("CreateBatch: %v", err)
		}
	}
	if err := h.s.CompleteItem(ctx, store.Completion{Tenant: "t1", BatchID: "oldest", Index: 0, Error: []byte(`{"e":1}`)}); err != nil {
		t.Fatal(err)
	}
	p, err := h.s.PendingItems(ctx, 100)
	if err != nil {
		t.Fatalf("PendingItems: %v", err)
	}
	var got []string
	for _, it := range p {
		got = append(got, fmt.Sprintf("%s/%s/%d", it.Tenant, it.BatchID, it.Index))
	}
	diff(t, "PendingItems", []string{"t1/oldest/1", "t2/older/0", "t2/older/1", "t1/newer/0", "t1/newer/1"}, got)
}

func testKeys(t *testing.T, h *harness) {
	ctx := t.Context()
	mint := func(tenant, name string, i int, scopes ...string) (string, *store.Key) {
		secret, k, err := store.NewKey(tenant, name, scopes, at(i))
		if err != nil {
			t.Fatalf("NewKey: %v", err)
		}
		if err := h.s.CreateKey(ctx, k); err != nil {
			t.Fatalf("CreateKey: %v", err)
		}
		return secret, k
	}
	secret, k1 := mint("t1", "ci", 2, store.ScopeVerify, store.ScopeRead)
	_, k2 := mint("t2", "admin", 1, store.ScopeAdmin)
	_, k3 := mint("t1", "dashboard", 3, store.ScopeRead)

	got, err := h.s.Key(ctx, k1.ID)
	if err != nil {
		t.Fatalf("Key: %v", err)
	}
	diff(t, "Key", *k1, *got)
	if !got.Matches(secret) {
		t.Error("the stored key does not match its secret")
	}
	if _, err := h.s.Key(ctx, "missing"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Key(missing) error %v, want ErrNotFound", err)
	}
	if err := h.s.CreateKey(ctx, k1); err == nil {
		t.Error("CreateKey(an existing id) succeeded")
	}
	if err := h.s.CreateKey(ctx, &store.Key{ID: "x", Tenant: "t1", Hash: []byte("h"), Scopes: []string{"root"}}); err == nil {
		t.Error("CreateKey(an unknown scope) succeeded")
	}

	keys, err := h.s.Keys(ctx, "t1")
	if err != nil {
		t.Fatalf("Keys: %v", err)
	}
	diff(t, "Keys(t1)", []store.Key{*k1, *k3}, keys)
	keys, err = h.s.Keys(ctx, "")
	if err != nil {
		t.Fatalf("Keys: %v", err)
	}
	diff(t, "Keys(every tenant)", []store.Key{*k2, *k1, *k3}, keys)
	if keys, err := h.s.Keys(ctx, "nobody"); err != nil || len(keys) != 0 {
		t.Errorf("Keys(nobody) = %v, %v", keys, err)
	}

	if n, err := h.s.ActiveKeys(ctx); err != nil || n != 3 {
		t.Errorf("ActiveKeys = %d, %v; want 3", n, err)
	}
	if err := h.s.RevokeKey(ctx, k1.ID, at(10)); err != nil {
		t.Fatalf("RevokeKey: %v", err)
	}
	if err := h.s.RevokeKey(ctx, k1.ID, at(20)); err != nil {
		t.Errorf("RevokeKey(again): %v", err)
	}
	got, _ = h.s.Key(ctx, k1.ID)
	if got == nil || !got.RevokedAt.Equal(at(10)) || got.RevokedAt.Location() != time.UTC {
		t.Errorf("revoked key = %+v, want RevokedAt %v", got, at(10))
	}
	if got != nil && got.Matches(secret) {
		t.Error("a revoked key matches its secret")
	}
	if n, err := h.s.ActiveKeys(ctx); err != nil || n != 2 {
		t.Errorf("ActiveKeys = %d, %v; want 2", n, err)
	}
	err = h.s.RevokeKey(ctx, "missing", at(11))
	isErr(t, "RevokeKey(missing)", err, store.ErrNotFound)
}

func testPrune(t *testing.T, h *harness) {
	ctx := t.Context()
	owner := func(i int) string {
		if i%3 == 2 {
			return "other"
		}
		return tenant
	}
	for i := range 10 {
		tn := owner(i)
		h.insert(sample(tn, fmt.Sprintf("pr%d", i), 1, at(i)), event(tn, "created", i))
		if err := h.s.AddOverride(ctx, &store.Override{Tenant: tn, VerificationID: fmt.Sprintf("pr%d", i), Attempt: 1, Verdict: "fail", CreatedAt: at(i)}); err != nil {
			t.Fatalf("AddOverride: %v", err)
		}
	}
	var counts []int
	for range 10 {
		n, err := h.s.Prune(ctx, at(5), 2)
		if err != nil {
			t.Fatalf("Prune: %v", err)
		}
		counts = append(counts, n)
		if n < 2 {
			break
		}
	}
	diff(t, "Prune counts", []int{2, 2, 1}, counts)
	var left []string
	for _, tn := range []string{tenant, "other"} {
		left = append(left, ids(h.listAll(tn, store.Filter{}))...)
		for i := range 10 {
			if owner(i) != tn {
				continue
			}
			os, err := h.s.Overrides(ctx, tn, fmt.Sprintf("pr%d", i), 1)
			if err != nil {
				t.Fatalf("Overrides: %v", err)
			}
			if (i < 5) != (len(os) == 0) {
				t.Errorf("pr%d (%s): %d overrides after the prune", i, tn, len(os))
			}
		}
	}
	sort.Strings(left)
	diff(t, "left after Prune", []string{"pr5/1", "pr6/1", "pr7/1", "pr8/1", "pr9/1"}, left)
	var evLeft []time.Time
	for _, tn := range []string{tenant, "other"} {
		evs, err := h.s.Events(ctx, tn, 0, 100)
		if err != nil {
			t.Fatalf("Events: %v", err)
		}
		for _, e := range evs {
			evLeft = append(evLeft, e.CreatedAt)
		}
	}
	if len(evLeft) != 5 {
		t.Errorf("%d events left, want the 5 from the cutoff on", len(evLeft))
	}
	for _, c := range evLeft {
		if c.Before(at(5)) {
			t.Errorf("an event of %v outlived the cutoff %v", c, at(5))
		}
	}
	if n, err := h.s.Prune(ctx, at(5), 0); err != nil || n != 0 {
		t.Errorf("Prune(nothing left, default limit) = %d, %v", n, err)
	}
}

func testPing(t *testing.T, h *harness) {
	if err := h.s.Ping(t.Context()); err != nil {
		t.Errorf("Ping: %v", err)
	}
}

func testClosed(t *testing.T, h *harness) {
	ctx := t.Context()
	h.insert(sample(tenant, "before", 1, at(0)))
	if err := h.s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	s := h.s
	calls := map[string]func() error{
		"Insert": func() error { _, err := s.Insert(ctx, sample(tenant, "after", 1, at(1)), nil); return err },
		"ByKey":  func() error { _, err := s.ByKey(ctx, tenant, "x"); return err },
		"Get":    func() error { _, err := s.Get(ctx, tenant, "before", 1); return err },
		"List":   func() error { _, err := s.List(ctx, tenant, store.Filter{}); return err },
		"AddOverride": func() error {
			return s.AddOverride(ctx, &store.Override{Tenant: tenant, VerificationID: "before", Attempt: 1, Verdict: "x"})
		},
		"Overrides":    func() error { _, err := s.Overrides(ctx, tenant, "before", 1); return err },
		"AppendEvents": func() error { return s.AppendEvents(ctx, []store.Event{event(tenant, "x", 0)}) },
		"Events":       func() error { _, err := s.Events(ctx, tenant, 0, 10); return err },
		"LastEventSeq": func() error { _, err := s.LastEventSeq(ctx, tenant); return err },
		"CreateBatch": func() error {
			return s.CreateBatch(ctx, &store.Batch{Tenant: tenant, ID: "b"}, []store.BatchItem{{Request: []byte(`{}`)}})
		},
		"BeginBatch": func() error { return s.BeginBatch(ctx, &store.Batch{Tenant: tenant, ID: "l"}) },
		"AppendItems": func() error {
			return s.AppendItems(ctx, tenant, "l", []store.BatchItem{{Request: []byte(`{}`)}})
		},
		"CommitBatch":  func() error { _, err := s.CommitBatch(ctx, tenant, "l"); return err },
		"AbortBatch":   func() error { return s.AbortBatch(ctx, tenant, "l") },
		"PruneLoading": func() error { _, err := s.PruneLoading(ctx, 0); return err },
		"Batch":        func() error { _, err := s.Batch(ctx, tenant, "b"); return err },
		"CompleteItem": func() error {
			return s.CompleteItem(ctx, store.Completion{Tenant: tenant, BatchID: "b", Index: 0, Error: []byte(`{}`)})
		},
		"PendingItems": func() error { _, err := s.PendingItems(ctx, 10); return err },
		"BatchResults": func() error {
			return s.BatchResults(ctx, tenant, "b", func(store.BatchItem, []byte) error { return nil })
		},
		"CreateKey": func() error {
			_, k, _ := store.NewKey(tenant, "k", []string{store.ScopeRead}, at(0))
			return s.CreateKey(ctx, k)
		},
		"Key":        func() error { _, err := s.Key(ctx, "k"); return err },
		"Keys":       func() error { _, err := s.Keys(ctx, ""); return err },
		"RevokeKey":  func() error { return s.RevokeKey(ctx, "k", at(0)) },
		"ActiveKeys": func() error { _, err := s.ActiveKeys(ctx); return err },
		"Prune":      func() error { _, err := s.Prune(ctx, at(0), 10); return err },
		"Secret":     func() error { _, err := s.Secret(ctx, "x", 32); return err },
		"Ping":       func() error { return s.Ping(ctx) },
	}
	for name, call := range calls {
		isErr(t, name+" after Close", call(), store.ErrClosed)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close again: %v", err)
	}
	// What was written before Close is there.
	s2 := h.reopen()
	if _, err := s2.Get(ctx, tenant, "before", 1); err != nil {
		t.Errorf("Get after reopening: %v", err)
	}
}

func testReopen(t *testing.T, h *harness) {
	ctx := t.Context()
	v := h.insert(sample(tenant, "r", 1, at(0)), event(tenant, "created", 0))
	if err := h.s.AddOverride(ctx, &store.Override{Tenant: tenant, VerificationID: "r", Attempt: 1, Verdict: "fail", CreatedAt: at(1)}); err != nil {
		t.Fatal(err)
	}
	b := &store.Batch{Tenant: tenant, ID: "rb", CreatedAt: at(2)}
	if err := h.s.CreateBatch(ctx, b, []store.BatchItem{{Request: []byte(`{"n":0}`)}, {Request: []byte(`{"n":1}`)}}); err != nil {
		t.Fatal(err)
	}
	if err := h.s.CompleteItem(ctx, store.Completion{Tenant: tenant, BatchID: "rb", Index: 0, Verification: sample(tenant, "rb0", 1, at(3))}); err != nil {
		t.Fatal(err)
	}
	_, k, _ := store.NewKey(tenant, "k", []string{store.ScopeRead}, at(4))
	if err := h.s.CreateKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	last, _ := h.s.LastEventSeq(ctx, tenant)
	if err := h.s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	h.s = h.reopen()
	g, err := h.s.Get(ctx, tenant, "r", 1)
	if err != nil {
		t.Fatalf("Get after reopening: %v", err)
	}
	diff(t, "verification after reopening", *v, *g)
	if os, _ := h.s.Overrides(ctx, tenant, "r", 1); len(os) != 1 {
		t.Errorf("%d overrides after reopening, want 1", len(os))
	}
	if n, _ := h.s.LastEventSeq(ctx, tenant); n != last {
		t.Errorf("LastEventSeq after reopening = %d, want %d", n, last)
	}
	gb, err := h.s.Batch(ctx, tenant, "rb")
	if err != nil || gb.Done != 1 || gb.State != store.BatchRunning {
		t.Errorf("batch after reopening = %+v, %v", gb, err)
	}
	if p, _ := h.s.PendingItems(ctx, 10); len(p) != 1 || p[0].Index != 1 {
		t.Errorf("pending items after reopening = %v, want item 1", p)
	}
	if gk, err := h.s.Key(ctx, k.ID); err != nil {
		t.Errorf("Key after reopening: %v", err)
	} else {
		diff(t, "key after reopening", *k, *gk)
	}
	// Seqs go on from where they were.
	v2 := h.insert(sample(tenant, "r2", 1, at(5)))
	if v2.Seq <= v.Seq {
		t.Errorf("Seq after reopening %d, not after %d", v2.Seq, v.Seq)
	}
	evs := []store.Event{event(tenant, "x", 6)}
	if err := h.s.AppendEvents(ctx, evs); err != nil || evs[0].Seq <= last {
		t.Errorf("event Seq after reopening %d (%v), not after %d", evs[0].Seq, err, last)
	}
}

// testWriteStats: a store counts its commits and the writes they held;
// concurrent writes may share commits, never the other way round.
func testWriteStats(t *testing.T, h *harness) {
	wc, ok := h.s.(store.WriteCounter)
	if !ok {
		t.Fatalf("%T does not count its writes", h.s)
	}
	before := wc.WriteStats()
	h.insert(sample(tenant, "ws", 1, at(0)))
	if got := wc.WriteStats(); got.Commits != before.Commits+1 || got.Writes != before.Writes+1 {
		t.Errorf("after one insert: %+v, want one commit and one write more than %+v", got, before)
	}
	before = wc.WriteStats()
	var vs []*store.Verification
	for i := range 20 {
		vs = append(vs, sample(tenant, fmt.Sprintf("ws%d", i), 1, at(i)))
	}
	// Beside them, writes that fail (items of no batch): not counted,
	// whether they run alone or beside others.
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Go(func() {
			err := h.s.CompleteItem(t.Context(), store.Completion{Tenant: tenant, BatchID: "none", Index: i, Error: []byte(`{"line":1}`)})
			if !errors.Is(err, store.ErrNotFound) {
				t.Errorf("completing an item of no batch: %v, want ErrNotFound", err)
			}
		})
	}
	h.insertAll(vs)
	wg.Wait()
	got := wc.WriteStats()
	if writes, commits := got.Writes-before.Writes, got.Commits-before.Commits; writes != 20 || commits < 1 || commits > writes {
		t.Errorf("20 inserts and 5 failing writes at once: %d writes in %d commits, want 20 in 1 to 20", writes, commits)
	}
}
