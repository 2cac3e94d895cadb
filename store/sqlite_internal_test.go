package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)

func testVerification(tenant, id string, attempt int) *Verification {
	return &Verification{Tenant: tenant, ID: id, Attempt: attempt, Verdict: "pass",
		Result: []byte(`{"id":"` + id + `"}`), CreatedAt: t0}
}

// openGated opens an SQLite store whose writer stops on gate after it
// took the first write of its first group.
func openGated(t *testing.T, path string, hooks writerHooks) (*sqlStore, *sqliteEngine) {
	t.Helper()
	cfg, err := parseSQLiteDSN(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := openSQLite(t.Context(), cfg, Options{}, hooks)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, s.eng.(*sqliteEngine)
}

// openHeldWriter opens a store whose writer, once it has taken a first
// write, holds it until release is called: the writes queued meanwhile
// (each announced on queued, which holds n) then form one group with it.
func openHeldWriter(t *testing.T, n int) (s *sqlStore, e *sqliteEngine, queued <-chan struct{}, release func()) {
	t.Helper()
	q, gate := make(chan struct{}, n), make(chan struct{})
	var once sync.Once
	s, e = openGated(t, filepath.Join(t.TempDir(), "held.db"), writerHooks{
		queued: func() { q <- struct{}{} },
		taken:  func() { once.Do(func() { <-gate }) },
	})
	return s, e, q, func() { close(gate) }
}

// TestGroupCommit shows that writes queued while the writer is busy share
// one transaction, and that each gets its own result: a duplicate or a
// failed write in the group fails alone.
func TestGroupCommit(t *testing.T) {
	const n = 48
	ctx := t.Context()
	s, e, queued, release := openHeldWriter(t, n)
	before := e.written.commits.Load()

	// Writes 0-39 are new; 40-43 repeat 0-3's idempotency keys; 44-47
	// add overrides to verifications that do not exist. The repeats are
	// started only once all the originals are queued, so that the group
	// holds each original ahead of its repeat.
	errs := make([]error, n)
	got := make([]*Verification, n)
	var wg sync.WaitGroup
	write := func(i int) {
		switch {
		case i < 40:
			got[i], errs[i] = s.Insert(ctx, testVerification("acme", fmt.Sprintf("v%d", i), 1), []Event{{Type: "created", Data: []byte(`{}`)}})
		case i < 44:
			v := testVerification("acme", fmt.Sprintf("dup%d", i), 1)
			v.IdempotencyKey = fmt.Sprintf("v%d/1", i-40)
			got[i], errs[i] = s.Insert(ctx, v, nil)
		default:
			errs[i] = s.AddOverride(ctx, &Override{Tenant: "acme", VerificationID: "missing", Attempt: 1, Verdict: "fail"})
		}
	}
	for i := range 40 {
		wg.Go(func() { write(i) })
	}
	for range 40 {
		<-queued
	}
	for i := 40; i < n; i++ {
		wg.Go(func() { write(i) })
	}
	for range n - 40 {
		<-queued
	}
	release()
	wg.Wait()

	if commits := e.written.commits.Load() - before; commits != 1 {
		t.Errorf("%d concurrent writes took %d transactions, want 1", n, commits)
	}
	for i := range 40 {
		if errs[i] != nil || got[i].Seq == 0 {
			t.Errorf("write %d: %v (Seq %d)", i, errs[i], got[i].Seq)
		}
	}
	for i := 40; i < 44; i++ {
		if !errors.Is(errs[i], ErrDuplicate) || got[i] == nil || got[i].ID != fmt.Sprintf("v%d", i-40) {
			t.Errorf("duplicate write %d: %v, %+v; want ErrDuplicate and v%d", i, errs[i], got[i], i-40)
		}
	}
	for i := 44; i < n; i++ {
		if !errors.Is(errs[i], ErrNotFound) {
			t.Errorf("override of a missing verification %d: %v, want ErrNotFound", i, errs[i])
		}
	}
	p, err := s.List(ctx, "acme", Filter{Limit: 1000})
	if err != nil || len(p.Items) != 40 {
		t.Errorf("List = %d rows, %v; want 40", len(p.Items), err)
	}
	if last, _ := s.LastEventSeq(ctx, "acme"); last != 40 {
		t.Errorf("LastEventSeq = %d, want 40", last)
	}
}

// TestGroupCommitAlone shows that a write alone commits at once.
func TestGroupCommitAlone(t *testing.T) {
	s, e := openGated(t, filepath.Join(t.TempDir(), "a.db"), writerHooks{})
	before := e.written.commits.Load()
	for i := range 3 {
		if _, err := s.Insert(t.Context(), testVerification("acme", fmt.Sprintf("v%d", i), 1), nil); err != nil {
			t.Fatal(err)
		}
	}
	if commits := e.written.commits.Load() - before; commits != 3 {
		t.Errorf("3 writes one after the other took %d transactions, want 3", commits)
	}
}

// TestCancelQueued shows that a write whose caller gives up while it is
// queued is not done, and that one taken by the writer completes.
func TestCancelQueued(t *testing.T) {
	gate := make(chan struct{})
	taken := make(chan struct{})
	queued := make(chan struct{}, 2)
	var once sync.Once
	s, _ := openGated(t, filepath.Join(t.TempDir(), "c.db"), writerHooks{
		queued: func() { queued <- struct{}{} },
		taken: func() {
			once.Do(func() {
				close(taken)
				<-gate
			})
		},
	})
	// The first write is taken, and its caller gives up: it completes.
	ctxA, cancelA := context.WithCancel(t.Context())
	errA := make(chan error)
	go func() {
		_, err := s.Insert(ctxA, testVerification("acme", "taken", 1), nil)
		errA <- err
	}()
	<-queued
	<-taken
	// The second waits in the queue, and its caller gives up: not done.
	ctxB, cancelB := context.WithCancel(t.Context())
	errB := make(chan error)
	go func() {
		_, err := s.Insert(ctxB, testVerification("acme", "queued", 1), nil)
		errB <- err
	}()
	<-queued
	cancelA()
	cancelB()
	if err := <-errB; !errors.Is(err, context.Canceled) {
		t.Errorf("queued write given up: %v, want context.Canceled", err)
	}
	close(gate)
	if err := <-errA; err != nil {
		t.Errorf("taken write given up: %v, want it to complete", err)
	}
	if _, err := s.Get(t.Context(), "acme", "taken", 1); err != nil {
		t.Errorf("the taken write is missing: %v", err)
	}
	if _, err := s.Get(t.Context(), "acme", "queued", 1); !errors.Is(err, ErrNotFound) {
		t.Errorf("the given-up write was done: %v", err)
	}
}

// TestCloseDrains shows that Close commits the writes queued before it,
// and that writes after it fail with ErrClosed.
func TestCloseDrains(t *testing.T) {
	const n = 10
	path := filepath.Join(t.TempDir(), "d.db")
	gate := make(chan struct{})
	queued := make(chan struct{}, n)
	var once sync.Once
	s, _ := openGated(t, path, writerHooks{
		queued:  func() { queued <- struct{}{} },
		taken:   func() { once.Do(func() { <-gate }) },
		closing: func() { close(gate) },
	})
	errs := make(chan error, n)
	for i := range n {
		go func() {
			_, err := s.Insert(t.Context(), testVerification("acme", fmt.Sprintf("v%d", i), 1), nil)
			errs <- err
		}()
	}
	for range n {
		<-queued
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for range n {
		if err := <-errs; err != nil {
			t.Errorf("write queued before Close: %v", err)
		}
	}
	if _, err := s.Insert(t.Context(), testVerification("acme", "late", 1), nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Insert after Close: %v, want ErrClosed", err)
	}
	s2, _ := openGated(t, path, writerHooks{})
	p, err := s2.List(t.Context(), "acme", Filter{})
	if err != nil || len(p.Items) != n {
		t.Errorf("after reopening: %d rows, %v; want %d", len(p.Items), err, n)
	}
}

// writeFailing writes v in a write of the mode given that inserts it and
// then fails with fail, counting its runs in runs (when not nil).
func writeFailing(ctx context.Context, s *sqlStore, mode writeMode, v *Verification, fail error, runs *atomic.Int32) error {
	nv, err := s.prepareVerification(v)
	if err != nil {
		return err
	}
	return s.eng.write(ctx, mode, func(ctx context.Context, tx conn) error {
		if runs != nil {
			runs.Add(1)
		}
		if _, _, err := s.insertVerification(ctx, tx, nv); err != nil {
			return err
		}
		return fail
	})
}

// tallied returns how many verifications, and how many of their failure
// codes, the tallies of tenant count within two days of t0.
func tallied(t *testing.T, s *sqlStore, tenant string) (verifications, codes int) {
	t.Helper()
	wt, err := s.Tally(t.Context(), tenant, Window{Since: t0.Add(-48 * time.Hour), Until: t0.Add(48 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range wt.Groups {
		verifications += int(g.Tally.N)
	}
	for _, c := range wt.Codes {
		codes += int(c.N)
	}
	return verifications, codes
}

// TestGroupCommitTallies shows that a group's verifications are added to
// the tallies at the end of its transaction, and that a write failing
// after its insert takes its verification out of them.
func TestGroupCommitTallies(t *testing.T) {
	const n = 12
	ctx := t.Context()
	s, e, queued, release := openHeldWriter(t, n)
	before := e.written.commits.Load()
	errFailed := errors.New("failed after its insert")
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			v := testVerification("acme", fmt.Sprintf("v%d", i), 1)
			v.Codes = []string{"CODE"}
			if i%3 != 2 {
				_, errs[i] = s.Insert(ctx, v, nil)
				return
			}
			// Every third write inserts, then fails: its savepoint is
			// rolled back, its row and its tally with it.
			errs[i] = writeFailing(ctx, s, 0, v, errFailed, nil)
		})
	}
	for range n {
		<-queued
	}
	release()
	wg.Wait()
	if commits := e.written.commits.Load() - before; commits != 1 {
		t.Errorf("%d writes took %d transactions, want 1", n, commits)
	}
	for i, err := range errs {
		if want := i%3 == 2; errors.Is(err, errFailed) != want || (!want && err != nil) {
			t.Errorf("write %d: %v", i, err)
		}
	}
	if got, codes := tallied(t, s, "acme"); got != n-n/3 || codes != n-n/3 {
		t.Errorf("tallies count %d verifications and %d codes, want %d of each", got, codes, n-n/3)
	}
}

// TestGroupCommitRerunnable shows that a group of rerunnable writes
// commits without savepoints, and that when one of them fails the group
// runs again, each write in its savepoint: the failing write alone is
// undone, and every other is written once, with its events and tallies.
func TestGroupCommitRerunnable(t *testing.T) {
	for _, fail := range []bool{false, true} {
		t.Run(fmt.Sprintf("fail=%v", fail), func(t *testing.T) {
			const n = 9
			ctx := t.Context()
			s, e, queued, release := openHeldWriter(t, n)
			commits, reruns := e.written.commits.Load(), e.reruns.Load()
			errFailed := errors.New("failed after its insert")
			errs := make([]error, n)
			var runs atomic.Int32
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					v := testVerification("acme", fmt.Sprintf("v%d", i), 1)
					v.Codes = []string{"CODE"}
					if !fail || i != n/2 {
						ev := []Event{{Type: "verification", Data: []byte(`{"id":"` + v.ID + `"}`)}}
						_, errs[i] = s.Insert(ctx, v, ev)
						return
					}
					errs[i] = writeFailing(ctx, s, rerunnable, v, errFailed, &runs)
				})
			}
			for range n {
				<-queued
			}
			release()
			wg.Wait()
			if got := e.written.commits.Load() - commits; got != 1 {
				t.Errorf("%d writes took %d transactions, want 1", n, got)
			}
			wantReruns, wantRows := int64(0), n
			if fail {
				wantReruns, wantRows = 1, n-1
				if got := runs.Load(); got != 2 {
					t.Errorf("the failing write ran %d times, want 2", got)
				}
			}
			if got := e.reruns.Load() - reruns; got != wantReruns {
				t.Errorf("the group ran again %d times, want %d", got, wantReruns)
			}
			for i, err := range errs {
				if want := fail && i == n/2; errors.Is(err, errFailed) != want || (!want && err != nil) {
					t.Errorf("write %d: %v", i, err)
				}
			}
			p, err := s.List(ctx, "acme", Filter{Limit: 100})
			if err != nil || len(p.Items) != wantRows {
				t.Fatalf("List: %d rows, %v; want %d", len(p.Items), err, wantRows)
			}
			evs, err := s.Events(ctx, "acme", 0, 100)
			if err != nil || len(evs) != wantRows {
				t.Fatalf("Events: %d, %v; want %d", len(evs), err, wantRows)
			}
			for i := 1; i < len(evs); i++ {
				if evs[i].Seq != evs[i-1].Seq+1 {
					t.Errorf("event Seqs %d then %d: a rolled-back run left a gap", evs[i-1].Seq, evs[i].Seq)
				}
			}
			if got, codes := tallied(t, s, "acme"); got != wantRows || codes != wantRows {
				t.Errorf("tallies count %d verifications and %d codes, want %d of each", got, codes, wantRows)
			}
		})
	}
}

// TestBatchItemRequestStoredOnce checks that an item completed with a
// verification that stored its request gives the request up (the log
// holds it), while one completed without it, or with an error, keeps it.
func TestBatchItemRequestStoredOnce(t *testing.T) {
	ctx := t.Context()
	s, _ := openGated(t, filepath.Join(t.TempDir(), "b.db"), writerHooks{})
	b := &Batch{Tenant: "acme", ID: "b1"}
	items := []BatchItem{{Request: []byte(`{"n":0}`)}, {Request: []byte(`{"n":1}`)}, {Request: []byte(`{"n":2}`)}}
	if err := s.CreateBatch(ctx, b, items); err != nil {
		t.Fatal(err)
	}
	withRequest := testVerification("acme", "v0", 1)
	withRequest.Request = []byte(`{"n":0}`)
	if err := s.CompleteItem(ctx, Completion{Tenant: "acme", BatchID: "b1", Index: 0, Verification: withRequest}); err != nil {
		t.Fatal(err)
	}
	// Over the cap: the log keeps no request.
	if err := s.CompleteItem(ctx, Completion{Tenant: "acme", BatchID: "b1", Index: 1, Verification: testVerification("acme", "v1", 1)}); err != nil {
		t.Fatal(err)
	}
	if err := s.CompleteItem(ctx, Completion{Tenant: "acme", BatchID: "b1", Index: 2, Error: []byte(`{"code":"internal"}`)}); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"", `{"n":1}`, `{"n":2}`} {
		var got []byte
		if err := s.eng.reader().queryRow(ctx, `SELECT request FROM batch_items WHERE tenant = 'acme' AND batch_id = 'b1' AND idx = ?`, i).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("item %d keeps request %q, want %q", i, got, want)
		}
	}
	if v, err := s.Get(ctx, "acme", "v0", 1); err != nil || string(v.Request) != `{"n":0}` {
		t.Errorf("the log's request of item 0: %v, %v", v, err)
	}
}

// TestPackedBlobs checks that SQLite keeps a report and a request
// compressed, gives them back byte for byte, and still reads a row
// written before compression as it is.
func TestPackedBlobs(t *testing.T) {
	ctx := t.Context()
	s, _ := openGated(t, filepath.Join(t.TempDir(), "z.db"), writerHooks{})
	report := []byte(`{"apiVersion":"vouch/v1",  "checks":[` + strings.Repeat(`{"name":"contains:done","status":"pass","reason":"output.summary contains \"DONE\""},`, 40) + `{}]}`)
	request := []byte(`{"task":{"goal":"` + strings.Repeat("say done ", 100) + `"}}`)
	short := []byte(`{"id":"s"}`)
	for _, c := range []struct {
		id              string
		result, request []byte
	}{{"big", report, request}, {"short", short, nil}} {
		v := testVerification("acme", c.id, 1)
		v.Result, v.Request = c.result, c.request
		if _, err := s.Insert(ctx, v, []Event{{Type: "complete", Data: append(append([]byte(`{"report":`), c.result...), '}'), ReportAt: len(`{"report":`)}}); err != nil {
			t.Fatal(err)
		}
	}
	var raw, rawReq []byte
	if err := s.eng.reader().queryRow(ctx, `SELECT result, request FROM verification_logs WHERE id = 'big'`).Scan(&raw, &rawReq); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(raw, zstdMagic) || len(raw) > len(report)/4 || !bytes.HasPrefix(rawReq, zstdMagic) {
		t.Errorf("stored %d bytes of a %d-byte report (compressed: %v), request compressed: %v", len(raw), len(report), bytes.HasPrefix(raw, zstdMagic), bytes.HasPrefix(rawReq, zstdMagic))
	}
	// A row written before compression: its JSON as it is.
	if _, err := s.eng.(*sqliteEngine).wdb.ExecContext(ctx, `UPDATE verification_logs SET result = ? WHERE id = 'short'`, string(short)); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string][]byte{"big": report, "short": short} {
		v, err := s.Get(ctx, "acme", id, 1)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(v.Result, want) {
			t.Errorf("%s: Result %.80q, want the bytes stored", id, v.Result)
		}
		if id == "big" && !bytes.Equal(v.Request, request) {
			t.Errorf("%s: Request %.80q, want the bytes stored", id, v.Request)
		}
	}
	evs, err := s.Events(ctx, "acme", 0, 10)
	if err != nil || len(evs) != 2 {
		t.Fatalf("Events: %d, %v", len(evs), err)
	}
	if want := append(append([]byte(`{"report":`), report...), '}'); !bytes.Equal(evs[0].Data, want) {
		t.Errorf("the complete event's data: %.80q, want the report in place", evs[0].Data)
	}
}

// TestBatchFinishedAfterAFailedFinish undoes the step that turns a batch
// done after its last completion, as a crash between the two would: the
// next read of the batch, or the next scan for pending items, finishes
// it.
func TestBatchFinishedAfterAFailedFinish(t *testing.T) {
	ctx := t.Context()
	s, _ := openGated(t, filepath.Join(t.TempDir(), "b.db"), writerHooks{})
	for _, id := range []string{"read", "scanned"} {
		if err := s.CreateBatch(ctx, &Batch{Tenant: "acme", ID: id}, []BatchItem{{Request: []byte(`{}`)}, {Request: []byte(`{}`)}}); err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			if err := s.CompleteItem(ctx, Completion{Tenant: "acme", BatchID: id, Index: i, Error: []byte(`{"code":"internal"}`)}); err != nil {
				t.Fatal(err)
			}
		}
		if b, err := s.Batch(ctx, "acme", id); err != nil || b.State != BatchDone {
			t.Fatalf("batch %s after its last completion: %+v, %v", id, b, err)
		}
		err := s.eng.write(ctx, 0, func(ctx context.Context, tx conn) error {
			_, err := tx.exec(ctx, `UPDATE batches SET state = 'running', finished_at = NULL WHERE id = ?`, id)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if b, err := s.Batch(ctx, "acme", "read"); err != nil || b.State != BatchDone || b.Failed != 2 || b.FinishedAt.IsZero() {
		t.Errorf("a read of the unfinished batch: %+v, %v; want it done", b, err)
	}
	if p, err := s.PendingItems(ctx, 10); err != nil || len(p) != 0 {
		t.Fatalf("PendingItems = %v, %v", p, err)
	}
	var state string
	if err := s.eng.reader().queryRow(ctx, `SELECT state FROM batches WHERE id = 'scanned'`).Scan(&state); err != nil || state != BatchDone {
		t.Errorf("the scanned batch is %q (%v), want done", state, err)
	}
}
