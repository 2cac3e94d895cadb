package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/store/storetest"
)

// openQueue opens a PostgreSQL store on a schema of its own, closed at
// the test's end.
func openQueue(t *testing.T) store.Queue {
	t.Helper()
	st, err := store.Open(t.Context(), storetest.PostgresSchema(t, storetest.PostgresServer(t)), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st.(store.Queue)
}

// TestCommitBatchTx: the commit of a loading batch hands the indexes of
// its pending items, in order and in chunks, to the queue's function in
// the commit's transaction; an error from it undoes the commit and what
// the function wrote, and the batch stays loading and hidden. Item does
// not find the items of a loading batch.
func TestCommitBatchTx(t *testing.T) {
	q := openQueue(t)
	ctx := t.Context()
	if _, err := q.Pool().Exec(ctx, `CREATE TABLE marks (idx INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	const tenant, id, n = "acme", "up", 12_001
	if err := q.BeginBatch(ctx, &store.Batch{Tenant: tenant, ID: id}); err != nil {
		t.Fatal(err)
	}
	var want []int // the pending items: every tenth is born failed
	for start := 0; start < n; start += 1000 {
		items := make([]store.BatchItem, min(1000, n-start))
		for k := range items {
			i := start + k
			items[k].Request = fmt.Appendf(nil, `{"n":%d}`, i)
			if i%10 == 0 {
				items[k].Error = []byte(`{"error":1}`)
			} else {
				want = append(want, i)
			}
		}
		if err := q.AppendItems(ctx, tenant, id, items); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := q.Item(ctx, tenant, id, 1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Item of a loading batch: %v, want ErrNotFound", err)
	}
	marks := func() int {
		t.Helper()
		var c int
		if err := q.Pool().QueryRow(ctx, `SELECT count(*) FROM marks`).Scan(&c); err != nil {
			t.Fatal(err)
		}
		return c
	}

	// The function fails on its second chunk: nothing is committed.
	boom := errors.New("boom")
	calls := 0
	_, err := q.CommitBatchTx(ctx, tenant, id, func(ctx context.Context, tx pgx.Tx, indexes []int) error {
		calls++
		if calls == 2 {
			return boom
		}
		_, err := tx.Exec(ctx, `INSERT INTO marks SELECT unnest($1::int[])`, indexes)
		return err
	})
	if !errors.Is(err, boom) || calls != 2 {
		t.Fatalf("CommitBatchTx failing on the second chunk: %v after %d calls", err, calls)
	}
	if c := marks(); c != 0 {
		t.Errorf("the failed commit left %d marks", c)
	}
	if _, err := q.Batch(ctx, tenant, id); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Batch after a failed commit: %v, want ErrNotFound (still loading)", err)
	}

	var got []int
	chunks := 0
	b, err := q.CommitBatchTx(ctx, tenant, id, func(ctx context.Context, tx pgx.Tx, indexes []int) error {
		chunks++
		got = append(got, indexes...)
		_, err := tx.Exec(ctx, `INSERT INTO marks SELECT unnest($1::int[])`, indexes)
		return err
	})
	if err != nil {
		t.Fatalf("CommitBatchTx: %v", err)
	}
	if b.State != store.BatchRunning || b.Total != n || b.Failed != n/10+1 {
		t.Errorf("committed batch = %+v", b)
	}
	if chunks < 2 || !slices.Equal(got, want) {
		t.Errorf("CommitBatchTx handed %d indexes in %d chunks, want the %d pending ones in order, in more than one chunk", len(got), chunks, len(want))
	}
	if c := marks(); c != len(want) {
		t.Errorf("%d marks after the commit, want %d", c, len(want))
	}
	if it, err := q.Item(ctx, tenant, id, 1); err != nil || it.State != store.ItemPending || string(it.Request) != `{"n":1}` {
		t.Errorf("Item after the commit = %+v, %v", it, err)
	}
	if _, err := q.CommitBatchTx(ctx, tenant, id, nil); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("CommitBatchTx again: %v, want ErrNotFound", err)
	}
}

// TestCompleteItemsTx: PendingRange reads a run of a batch's pending
// items; CompleteItemsTx completes many in one transaction, passing by an
// item done already and one the store does not hold, writes each
// verification once, counts each batch once, finishes a batch whose
// items are all counted, and runs the queue's function in the
// transaction: an error from it undoes every completion.
func TestCompleteItemsTx(t *testing.T) {
	q := openQueue(t)
	ctx := t.Context()
	const tenant, id = "acme", "runs"
	items := make([]store.BatchItem, 6)
	for i := range items {
		items[i].Request = fmt.Appendf(nil, `{"n":%d}`, i)
	}
	items[5].Error = []byte(`{"error":"bad line"}`) // born failed
	if err := q.CreateBatch(ctx, &store.Batch{Tenant: tenant, ID: id}, items); err != nil {
		t.Fatal(err)
	}
	indexes := func(its []store.BatchItem) []int {
		var out []int
		for _, it := range its {
			out = append(out, it.Index)
			if want := fmt.Sprintf(`{"n":%d}`, it.Index); string(it.Request) != want || it.State != store.ItemPending {
				t.Errorf("item %d: %s %q, want pending %s", it.Index, it.State, it.Request, want)
			}
		}
		return out
	}
	if got, err := q.PendingRange(ctx, tenant, id, 0, 10); err != nil || !slices.Equal(indexes(got), []int{0, 1, 2, 3, 4}) {
		t.Errorf("PendingRange [0, 10) = %v, %v; want 0-4 (5 failed)", indexes(got), err)
	}
	if got, err := q.PendingRange(ctx, tenant, id, 2, 4); err != nil || !slices.Equal(indexes(got), []int{2, 3}) {
		t.Errorf("PendingRange [2, 4) = %v, %v", indexes(got), err)
	}
	if err := q.BeginBatch(ctx, &store.Batch{Tenant: tenant, ID: "loading"}); err != nil {
		t.Fatal(err)
	}
	if err := q.AppendItems(ctx, tenant, "loading", items[:2]); err != nil {
		t.Fatal(err)
	}
	if got, err := q.PendingRange(ctx, tenant, "loading", 0, 10); err != nil || len(got) != 0 {
		t.Errorf("PendingRange of a loading batch = %v, %v; want none", indexes(got), err)
	}

	if err := q.CompleteItem(ctx, store.Completion{Tenant: tenant, BatchID: id, Index: 1, Error: []byte(`{"error":"first"}`)}); err != nil {
		t.Fatal(err)
	}
	verification := func(vid string) *store.Verification {
		return &store.Verification{ID: vid, Attempt: 1, Verdict: "pass", Result: []byte(`{"id":"` + vid + `"}`)}
	}
	v0 := verification("v0")
	marked := 0
	mark := func(ctx context.Context, tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `SELECT 1`)
		marked++
		return err
	}
	err := q.CompleteItemsTx(ctx, []store.Completion{
		{Tenant: tenant, BatchID: id, Index: 0, Verification: v0, Events: []store.Event{{Type: "verification.completed", Data: []byte(`{}`)}}},
		{Tenant: tenant, BatchID: id, Index: 1, Error: []byte(`{"error":"second"}`)}, // done already
		{Tenant: tenant, BatchID: id, Index: 2, Error: []byte(`{"error":"crashed"}`)},
		{Tenant: tenant, BatchID: id, Index: 99, Error: []byte(`{"error":"none"}`)}, // no such item
	}, mark)
	if err != nil || marked != 1 {
		t.Fatalf("CompleteItemsTx: %v (the function ran %d times)", err, marked)
	}
	if v0.Seq == 0 {
		t.Error("the completed verification has no Seq")
	}
	b, err := q.Batch(ctx, tenant, id)
	if err != nil || b.Done != 1 || b.Failed != 3 || b.State != store.BatchRunning {
		t.Errorf("batch after the completions = %+v, %v; want running, 1 done, 3 failed", b, err)
	}
	if it, err := q.Item(ctx, tenant, id, 1); err != nil || string(it.Error) != `{"error":"first"}` {
		t.Errorf("an item done already was completed again: %+v, %v", it, err)
	}

	// The queue's function fails: neither item is completed.
	boom := errors.New("boom")
	v3 := verification("v3")
	err = q.CompleteItemsTx(ctx, []store.Completion{
		{Tenant: tenant, BatchID: id, Index: 3, Verification: v3},
		{Tenant: tenant, BatchID: id, Index: 4, Error: []byte(`{"error":"x"}`)},
	}, func(context.Context, pgx.Tx) error { return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("CompleteItemsTx with a failing function: %v", err)
	}
	if got, err := q.PendingRange(ctx, tenant, id, 0, 10); err != nil || !slices.Equal(indexes(got), []int{3, 4}) {
		t.Errorf("pending after the undone completions = %v, %v; want 3, 4", indexes(got), err)
	}
	if _, err := q.Get(ctx, tenant, "v3", 1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the undone completion's verification: %v, want ErrNotFound", err)
	}

	// The last two: the batch is done, counted once each.
	err = q.CompleteItemsTx(ctx, []store.Completion{
		{Tenant: tenant, BatchID: id, Index: 3, Verification: verification("v3")},
		{Tenant: tenant, BatchID: id, Index: 4, Verification: verification("v4")},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := q.Batch(ctx, tenant, id); err != nil || b.Done != 3 || b.Failed != 3 || b.State != store.BatchDone {
		t.Errorf("batch after its last items = %+v, %v; want done, 3 done, 3 failed", b, err)
	}
	var rows int
	if err := q.Pool().QueryRow(ctx, `SELECT count(*) FROM verification_logs`).Scan(&rows); err != nil || rows != 3 {
		t.Errorf("%d verification rows (%v), want 3", rows, err)
	}

	// A run whose verification is stored already (a request verified
	// before, in another batch): its item points at the stored one, and
	// the other's is written, with one statement for both.
	if err := q.CreateBatch(ctx, &store.Batch{Tenant: tenant, ID: "again"}, items[:2]); err != nil {
		t.Fatal(err)
	}
	again, v5 := verification("v0"), verification("v5")
	if err := q.CompleteItemsTx(ctx, []store.Completion{
		{Tenant: tenant, BatchID: "again", Index: 0, Verification: again},
		{Tenant: tenant, BatchID: "again", Index: 1, Verification: v5},
	}, nil); err != nil {
		t.Fatal(err)
	}
	if again.Seq != 0 || v5.Seq == 0 {
		t.Errorf("Seqs: the duplicate's %d (want 0: not written), the new one's %d", again.Seq, v5.Seq)
	}
	if it, err := q.Item(ctx, tenant, "again", 0); err != nil || it.State != store.ItemDone || it.VerificationID != "v0" || it.Attempt != 1 {
		t.Errorf("the duplicate's item = %+v, %v; want done, pointing at v0/1", it, err)
	}
	if err := q.Pool().QueryRow(ctx, `SELECT count(*) FROM verification_logs`).Scan(&rows); err != nil || rows != 4 {
		t.Errorf("%d verification rows (%v), want 4", rows, err)
	}
}

// TestByKeys: the verifications stored under a tenant's idempotency keys,
// read with one query, as ByKey reads each.
func TestByKeys(t *testing.T) {
	q := openQueue(t)
	ctx := t.Context()
	for i, key := range []string{"k1", "k2"} {
		// Long enough to be stored compressed, and read back whole.
		pad := strings.Repeat("all four methods are documented; ", 20)
		v := &store.Verification{Tenant: "acme", ID: fmt.Sprintf("v%d", i), Attempt: 1, IdempotencyKey: key, Verdict: "pass",
			Result:  []byte(`{"id":"v` + fmt.Sprint(i) + `","feedback":"` + pad + `"}`),
			Request: []byte(`{"n":` + fmt.Sprint(i) + `,"summary":"` + pad + `"}`)}
		if _, err := q.Insert(ctx, v, nil); err != nil {
			t.Fatal(err)
		}
	}
	other := &store.Verification{Tenant: "other", ID: "o", Attempt: 1, IdempotencyKey: "k1", Verdict: "pass", Result: []byte(`{}`)}
	if _, err := q.Insert(ctx, other, nil); err != nil {
		t.Fatal(err)
	}
	got, err := q.ByKeys(ctx, "acme", []string{"k1", "k2", "none"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("ByKeys = %d verifications, want 2", len(got))
	}
	for _, key := range []string{"k1", "k2"} {
		one, err := q.ByKey(ctx, "acme", key)
		if err != nil {
			t.Fatal(err)
		}
		v := got[key]
		if v != nil && !strings.Contains(string(v.Result), "methods are documented") {
			t.Errorf("ByKeys[%s] reads its report as %.40q", key, v.Result)
		}
		if v == nil || v.ID != one.ID || v.Tenant != "acme" || string(v.Result) != string(one.Result) || string(v.Request) != string(one.Request) {
			t.Errorf("ByKeys[%s] = %+v, want as ByKey reads it: %+v", key, v, one)
		}
	}
	if none, err := q.ByKeys(ctx, "acme", nil); err != nil || len(none) != 0 {
		t.Errorf("ByKeys of no keys = %v, %v", none, err)
	}
}
