package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/store/storetest"
)

// TestCommitBatchTx: the commit of a loading batch hands the indexes of
// its pending items, in order and in chunks, to the queue's function in
// the commit's transaction; an error from it undoes the commit and what
// the function wrote, and the batch stays loading and hidden. Item does
// not find the items of a loading batch.
func TestCommitBatchTx(t *testing.T) {
	dsn := storetest.PostgresSchema(t, storetest.PostgresServer(t))
	st, err := store.Open(t.Context(), dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	q := st.(store.Queue)
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
	_, err = q.CommitBatchTx(ctx, tenant, id, func(ctx context.Context, tx pgx.Tx, indexes []int) error {
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
