package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/vouchgate/vouch/store"
)

// The suite's cases for batches stored as they are uploaded: BeginBatch,
// AppendItems, CommitBatch, AbortBatch and PruneLoading.

// hidden checks that no read shows the batch: Batch and BatchResults
// answer ErrNotFound, and PendingItems returns none of its items.
func (h *harness) hidden(tenant, id string) {
	h.t.Helper()
	ctx := h.t.Context()
	if b, err := h.s.Batch(ctx, tenant, id); !errors.Is(err, store.ErrNotFound) {
		h.t.Errorf("Batch(%s) = %+v, %v; want ErrNotFound", id, b, err)
	}
	err := h.s.BatchResults(ctx, tenant, id, func(it store.BatchItem, _ []byte) error {
		return fmt.Errorf("item %d listed", it.Index)
	})
	if !errors.Is(err, store.ErrNotFound) {
		h.t.Errorf("BatchResults(%s): %v, want ErrNotFound", id, err)
	}
	pending, err := h.s.PendingItems(ctx, 1000)
	if err != nil {
		h.t.Fatalf("PendingItems: %v", err)
	}
	for _, it := range pending {
		if it.BatchID == id {
			h.t.Errorf("PendingItems returns item %d of %s", it.Index, id)
		}
	}
}

// appendN appends n items to a loading batch, of which those whose index
// is a multiple of failEvery (when not 0) are born failed, chunk at a
// time.
func (h *harness) appendN(id string, from, n, chunk, failEvery int) {
	h.t.Helper()
	for start := from; start < from+n; start += chunk {
		end := min(start+chunk, from+n)
		items := make([]store.BatchItem, 0, end-start)
		for i := start; i < end; i++ {
			it := store.BatchItem{Request: fmt.Appendf(nil, `{"n":%d}`, i)}
			if failEvery > 0 && i%failEvery == 0 {
				it.State, it.Error = store.ItemError, fmt.Appendf(nil, `{"line":%d,"error":{"code":"syntax"}}`, i+1)
			}
			items = append(items, it)
		}
		if err := h.s.AppendItems(h.t.Context(), tenant, id, items); err != nil {
			h.t.Fatalf("AppendItems(%s, %d..%d): %v", id, start, end-1, err)
		}
		for k, it := range items {
			if it.Index != start+k || it.BatchID != id || it.Tenant != tenant {
				h.t.Fatalf("AppendItems numbered item %d of the chunk %d (batch %q, tenant %q), want %d", k, it.Index, it.BatchID, it.Tenant, start+k)
			}
		}
	}
}

// testLoadingBatch: a batch begun and appended to is invisible until its
// commit; the commit makes it visible and workable with its items in
// order, and ends its loading (no more appends, no abort).
func testLoadingBatch(t *testing.T, h *harness) {
	ctx := t.Context()
	// A running batch beside it, whose items PendingItems does return.
	if err := h.s.CreateBatch(ctx, &store.Batch{Tenant: tenant, ID: "other", CreatedAt: at(0)}, []store.BatchItem{{Request: []byte(`{}`)}}); err != nil {
		t.Fatalf("CreateBatch: %v", err)
	}
	b := &store.Batch{Tenant: tenant, ID: "up", CreatedAt: at(1)}
	if err := h.s.BeginBatch(ctx, b); err != nil {
		t.Fatalf("BeginBatch: %v", err)
	}
	diff(t, "BeginBatch's b", store.Batch{Tenant: tenant, ID: "up", State: store.BatchLoading, CreatedAt: at(1), Kind: store.BatchVerify}, *b)
	h.hidden(tenant, "up")
	if err := h.s.BeginBatch(ctx, &store.Batch{Tenant: tenant, ID: "up", CreatedAt: at(2)}); err == nil {
		t.Error("BeginBatch(an existing id) succeeded")
	}
	if err := h.s.BeginBatch(ctx, &store.Batch{Tenant: tenant, ID: "odd", Kind: "other"}); err == nil {
		t.Error("BeginBatch(an unknown kind) succeeded")
	}
	if err := h.s.AppendItems(ctx, tenant, "up", []store.BatchItem{{State: store.ItemDone}}); err == nil {
		t.Error("AppendItems(an item born done) succeeded")
	}

	// Three chunks; every third item is born failed (0, 3, 6, 9).
	h.appendN("up", 0, 4, 4, 3)
	h.appendN("up", 4, 3, 3, 3)
	h.appendN("up", 7, 4, 4, 3)
	h.hidden(tenant, "up")
	err := h.s.CompleteItem(ctx, store.Completion{Tenant: "other-tenant", BatchID: "up", Index: 1, Error: []byte(`{}`)})
	isErr(t, "CompleteItem(an item of the batch, in another tenant)", err, store.ErrNotFound)
	isErr(t, "AppendItems(another tenant's batch)", h.s.AppendItems(ctx, "other-tenant", "up", []store.BatchItem{{Request: []byte(`{}`)}}), store.ErrNotFound)
	if _, err := h.s.CommitBatch(ctx, "other-tenant", "up"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("CommitBatch(another tenant's batch): %v, want ErrNotFound", err)
	}

	got, err := h.s.CommitBatch(ctx, tenant, "up")
	if err != nil {
		t.Fatalf("CommitBatch: %v", err)
	}
	want := store.Batch{Tenant: tenant, ID: "up", State: store.BatchRunning, Total: 11, Failed: 4, CreatedAt: at(1), Kind: store.BatchVerify}
	diff(t, "CommitBatch's batch", want, *got)
	if got, err := h.s.Batch(ctx, tenant, "up"); err != nil {
		t.Fatalf("Batch after the commit: %v", err)
	} else {
		diff(t, "Batch after the commit", want, *got)
	}
	pending, err := h.s.PendingItems(ctx, 100)
	if err != nil {
		t.Fatalf("PendingItems: %v", err)
	}
	var idx []int
	for _, it := range pending {
		if it.BatchID == "up" {
			idx = append(idx, it.Index)
			if want := fmt.Sprintf(`{"n":%d}`, it.Index); string(it.Request) != want {
				t.Errorf("pending item %d carries %s, want %s", it.Index, it.Request, want)
			}
		}
	}
	diff(t, "the committed batch's pending items", []int{1, 2, 4, 5, 7, 8, 10}, idx)
	items, res := h.results(tenant, "up")
	if len(items) != 11 || res[0] != `{"line":1,"error":{"code":"syntax"}}` || res[1] != "<nil>" || items[10].Index != 10 {
		t.Errorf("BatchResults after the commit: %d items, results %q", len(items), res)
	}

	// Loading is over: no append, no second commit, and an abort leaves
	// the batch as it is.
	isErr(t, "AppendItems after the commit", h.s.AppendItems(ctx, tenant, "up", []store.BatchItem{{Request: []byte(`{}`)}}), store.ErrNotFound)
	if _, err := h.s.CommitBatch(ctx, tenant, "up"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("CommitBatch again: %v, want ErrNotFound", err)
	}
	if err := h.s.AbortBatch(ctx, tenant, "up"); err != nil {
		t.Errorf("AbortBatch(a running batch): %v", err)
	}
	if got, err := h.s.Batch(ctx, tenant, "up"); err != nil || got.Total != 11 {
		t.Errorf("Batch after aborting a running batch = %+v, %v; want it as it was", got, err)
	}

	// Its items complete as any batch's do, and finish it.
	for _, i := range idx {
		if err := h.s.CompleteItem(ctx, store.Completion{Tenant: tenant, BatchID: "up", Index: i, Error: []byte(`{"error":"x"}`)}); err != nil {
			t.Fatalf("CompleteItem(%d): %v", i, err)
		}
	}
	if got, _ := h.s.Batch(ctx, tenant, "up"); got.State != store.BatchDone || got.Failed != 11 || got.FinishedAt.IsZero() {
		t.Errorf("the batch after its items completed = %+v, want done", got)
	}
}

// testLoadingBatchBornDone: a committed batch whose every item failed, or
// that has none, is done at once.
func testLoadingBatchBornDone(t *testing.T, h *harness) {
	ctx := t.Context()
	if err := h.s.BeginBatch(ctx, &store.Batch{Tenant: tenant, ID: "bad", CreatedAt: at(0)}); err != nil {
		t.Fatal(err)
	}
	h.appendN("bad", 0, 3, 2, 1)
	got, err := h.s.CommitBatch(ctx, tenant, "bad")
	if err != nil {
		t.Fatalf("CommitBatch: %v", err)
	}
	if got.State != store.BatchDone || got.Total != 3 || got.Failed != 3 || got.FinishedAt.IsZero() {
		t.Errorf("a committed batch of failed items = %+v, want done", got)
	}
	if err := h.s.BeginBatch(ctx, &store.Batch{Tenant: tenant, ID: "none", CreatedAt: at(1)}); err != nil {
		t.Fatal(err)
	}
	if got, err := h.s.CommitBatch(ctx, tenant, "none"); err != nil || got.State != store.BatchDone || got.Total != 0 {
		t.Errorf("CommitBatch(no items) = %+v, %v; want done with none", got, err)
	}
	if p, _ := h.s.PendingItems(ctx, 10); len(p) != 0 {
		t.Errorf("PendingItems = %v, want none", p)
	}
}

// testAbortBatch: an abort deletes a loading batch and every item of it,
// over more items than one of the abort's transactions deletes.
func testAbortBatch(t *testing.T, h *harness) {
	ctx := t.Context()
	if err := h.s.BeginBatch(ctx, &store.Batch{Tenant: tenant, ID: "ab", CreatedAt: at(0)}); err != nil {
		t.Fatal(err)
	}
	const n = 12_345
	h.appendN("ab", 0, n, 1000, 7)
	if err := h.s.AbortBatch(ctx, tenant, "ab"); err != nil {
		t.Fatalf("AbortBatch: %v", err)
	}
	h.hidden(tenant, "ab")
	isErr(t, "AppendItems after the abort", h.s.AppendItems(ctx, tenant, "ab", []store.BatchItem{{Request: []byte(`{}`)}}), store.ErrNotFound)
	if _, err := h.s.CommitBatch(ctx, tenant, "ab"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("CommitBatch after the abort: %v, want ErrNotFound", err)
	}
	if err := h.s.AbortBatch(ctx, tenant, "ab"); err != nil {
		t.Errorf("AbortBatch again: %v", err)
	}
	if err := h.s.AbortBatch(ctx, tenant, "never"); err != nil {
		t.Errorf("AbortBatch(no such batch): %v", err)
	}
	// The id is free again, and nothing of the old items is left under
	// it: the new batch has only its own.
	if err := h.s.BeginBatch(ctx, &store.Batch{Tenant: tenant, ID: "ab", CreatedAt: at(1)}); err != nil {
		t.Fatalf("BeginBatch(the aborted id): %v", err)
	}
	h.appendN("ab", 0, 2, 2, 0)
	if _, err := h.s.CommitBatch(ctx, tenant, "ab"); err != nil {
		t.Fatal(err)
	}
	items, _ := h.results(tenant, "ab")
	if len(items) != 2 {
		t.Errorf("the batch begun again under the aborted id has %d items, want its 2", len(items))
	}
}

// testPruneLoading: loading batches not written to for the age given
// are deleted with their items, after a reopen too (an upload whose
// process ended); younger ones, and batches not loading, are kept.
func testPruneLoading(t *testing.T, h *harness) {
	ctx := t.Context()
	if err := h.s.CreateBatch(ctx, &store.Batch{Tenant: tenant, ID: "done", CreatedAt: at(0)}, []store.BatchItem{{Request: []byte(`{}`)}}); err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{"left1", "left2"} {
		if err := h.s.BeginBatch(ctx, &store.Batch{Tenant: tenant, ID: id, CreatedAt: at(i + 1)}); err != nil {
			t.Fatal(err)
		}
		h.appendN(id, 0, 3, 3, 2)
	}
	if err := h.s.BeginBatch(ctx, &store.Batch{Tenant: "other-tenant", ID: "left3", CreatedAt: at(3)}); err != nil {
		t.Fatal(err)
	}
	if err := h.s.Close(); err != nil {
		t.Fatal(err)
	}
	h.s = h.reopen()
	h.hidden(tenant, "left1")
	h.hidden(tenant, "left2")
	if n, err := h.s.PruneLoading(ctx, time.Hour); err != nil || n != 0 {
		t.Errorf("PruneLoading(an hour) = %d, %v; want 0: each was written just now", n, err)
	}
	n, err := h.s.PruneLoading(ctx, 0)
	if err != nil || n != 3 {
		t.Fatalf("PruneLoading(0) = %d, %v; want the 3 loading batches", n, err)
	}
	for _, id := range []string{"left1", "left2"} {
		h.hidden(tenant, id)
		isErr(t, "AppendItems to a pruned batch", h.s.AppendItems(ctx, tenant, id, []store.BatchItem{{Request: []byte(`{}`)}}), store.ErrNotFound)
		if _, err := h.s.CommitBatch(ctx, tenant, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("CommitBatch(a pruned batch): %v, want ErrNotFound", err)
		}
	}
	if _, err := h.s.CommitBatch(ctx, "other-tenant", "left3"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("CommitBatch(a pruned batch of another tenant): %v, want ErrNotFound", err)
	}
	if b, err := h.s.Batch(ctx, tenant, "done"); err != nil || b.State != store.BatchRunning {
		t.Errorf("the running batch after PruneLoading = %+v, %v", b, err)
	}
	if n, err := h.s.PruneLoading(ctx, 0); err != nil || n != 0 {
		t.Errorf("PruneLoading again = %d, %v; want 0", n, err)
	}
	// Nothing of their items is left: the ids begin afresh.
	if err := h.s.BeginBatch(ctx, &store.Batch{Tenant: tenant, ID: "left1", CreatedAt: at(4)}); err != nil {
		t.Fatalf("BeginBatch(a pruned id): %v", err)
	}
	if b, err := h.s.CommitBatch(ctx, tenant, "left1"); err != nil || b.Total != 0 {
		t.Errorf("CommitBatch(a pruned id begun again) = %+v, %v", b, err)
	}
	if items, _ := h.results(tenant, "left1"); len(items) != 0 {
		t.Errorf("%d items of the pruned batch are left", len(items))
	}
}
