package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/store/storetest"
)

// opened returns what opens a store for the test: the store, closed when
// the test ends, or the test's end when it fails to open.
func opened(t *testing.T) func(store.Store, error) store.Store {
	return func(s store.Store, err error) store.Store {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
}

func TestPostgres(t *testing.T) {
	server := storetest.PostgresServer(t)
	storetest.Run(t, func(t *testing.T) func() (store.Store, error) {
		dsn := storetest.PostgresSchema(t, server)
		return func() (store.Store, error) {
			return store.Open(context.Background(), dsn, store.Options{MaxConns: 4})
		}
	})
}

// TestPostgresConcurrentOpen opens one fresh database from many
// goroutines at once: the migration runs once, under its lock.
func TestPostgresConcurrentOpen(t *testing.T) {
	dsn := storetest.PostgresSchema(t, storetest.PostgresServer(t))
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			s, err := store.Open(t.Context(), dsn, store.Options{MaxConns: 2})
			if err == nil {
				err = s.Ping(t.Context())
				s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("open %d: %v", i, err)
		}
	}
	c, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(t.Context())
	var rows, applied int
	if err := c.QueryRow(t.Context(), `SELECT COUNT(*), COUNT(DISTINCT version) FROM schema_migrations`).Scan(&rows, &applied); err != nil {
		t.Fatal(err)
	}
	if rows != applied || rows == 0 {
		t.Errorf("schema_migrations: %d rows for %d versions", rows, applied)
	}
}

func TestOpenPostgresErrors(t *testing.T) {
	for _, tc := range []struct{ dsn, want string }{
		{"postgres://127.0.0.1:1/vouch?sslmode=disable&connect_timeout=5", "store: postgres 127.0.0.1:1/vouch: connect"},
		{"postgres://user:secret@[::1/x", "store: postgres"},
		{"postgresql://127.0.0.1:1/vouch?sslmode=bogus", "store: postgres"},
	} {
		s, err := store.Open(t.Context(), tc.dsn, store.Options{})
		if err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", tc.dsn)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%q) error %q, want it to say %q", tc.dsn, err, tc.want)
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("Open(%q) error shows the password: %q", tc.dsn, err)
		}
	}
}

// TestPostgresLateCommit holds a transaction that wrote an event open
// while a younger one commits its own: a reader sees neither until the
// older commits, then both in Seq order, and a stream that starts
// meanwhile starts below both.
func TestPostgresLateCommit(t *testing.T) {
	ctx := t.Context()
	s := opened(t)(store.Open(ctx, storetest.PostgresSchema(t, storetest.PostgresServer(t)), store.Options{MaxConns: 4})) // after the open transactions' cleanups
	ev := func(typ string) store.Event {
		return store.Event{Tenant: "acme", Type: typ, Data: []byte(`{"type":"` + typ + `"}`)}
	}
	late, commit, err := store.BeginEvents(t, ctx, s, []store.Event{ev("late")})
	if err != nil {
		t.Fatal(err)
	}
	early := []store.Event{ev("early")}
	if err := s.AppendEvents(ctx, early); err != nil {
		t.Fatal(err)
	}
	if early[0].Seq <= late[0] {
		t.Fatalf("the younger transaction's Seq %d is not above the older's %d", early[0].Seq, late[0])
	}
	store.SetEventWait(s, 0)
	if got, err := s.Events(ctx, "acme", 0, 10); err != nil || len(got) != 0 {
		t.Fatalf("Events while the older transaction runs = %d events, %v; want none", len(got), err)
	}
	if last, err := s.LastEventSeq(ctx, "acme"); err != nil || last >= late[0] {
		t.Fatalf("LastEventSeq while the older transaction runs = %d, %v; want below %d", last, err, late[0])
	}
	// A reader that waits sees both once the older commits.
	store.SetEventWait(s, time.Hour)
	type read struct {
		evs []store.Event
		err error
	}
	done := make(chan read, 1)
	go func() {
		evs, err := s.Events(ctx, "acme", 0, 10)
		done <- read{evs, err}
	}()
	if err := commit(); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	var got []string
	for _, e := range r.evs {
		got = append(got, fmt.Sprintf("%s@%d", e.Type, e.Seq))
	}
	want := []string{fmt.Sprintf("late@%d", late[0]), fmt.Sprintf("early@%d", early[0].Seq)}
	if !slices.Equal(got, want) {
		t.Errorf("Events after the late commit = %v, want %v", got, want)
	}
}

// TestPostgresEventsUnderLateCommits runs writers in pairs, the older of
// each committing only after the younger has committed, while a reader tails
// the stream from its last Seq without waiting: it sees every event
// once, in increasing Seq order, and misses none.
func TestPostgresEventsUnderLateCommits(t *testing.T) {
	ctx := t.Context()
	const writers, per = 24, 3
	// A connection for each writer, as every other one holds its own
	// while it waits for the next, and one for the reader.
	s := opened(t)(store.Open(ctx, storetest.PostgresSchema(t, storetest.PostgresServer(t)), store.Options{MaxConns: writers + 1}))
	store.SetEventWait(s, 0)
	begun, committed := make([]chan struct{}, writers), make([]chan struct{}, writers)
	for i := range committed {
		begun[i], committed[i] = make(chan struct{}), make(chan struct{})
	}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		written = map[int64]bool{}
		errs    []error
	)
	for i := range writers {
		wg.Go(func() {
			defer close(committed[i])
			if i%2 == 1 {
				<-begun[i-1] // younger than the writer before
			}
			evs := make([]store.Event, per)
			for j := range evs {
				evs[j] = store.Event{Tenant: "acme", Type: "w", Data: fmt.Appendf(nil, `{"w":%d,"j":%d}`, i, j)}
			}
			seqs, commit, err := store.BeginEvents(t, ctx, s, evs)
			close(begun[i])
			if err == nil {
				if i%2 == 0 && i+1 < writers {
					<-committed[i+1] // late: after a younger writer committed
				}
				err = commit()
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			for _, q := range seqs {
				written[q] = true
			}
		})
	}
	writersDone := make(chan struct{})
	go func() { wg.Wait(); close(writersDone) }()
	seen := map[int64]bool{}
	after := int64(0)
	tail := func() {
		evs, err := s.Events(ctx, "acme", after, 7)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			if e.Seq <= after || seen[e.Seq] {
				t.Fatalf("Seq %d after %d (seen before: %v)", e.Seq, after, seen[e.Seq])
			}
			seen[e.Seq] = true
			after = e.Seq
		}
	}
	reads := 0
	for running := true; running; reads++ {
		select {
		case <-writersDone:
			running = false
		default:
		}
		tail()
	}
	for n := -1; n != len(seen); {
		n = len(seen)
		tail()
	}
	for _, err := range errs {
		t.Error(err)
	}
	for q := range written {
		if !seen[q] {
			t.Errorf("event %d was committed and never read", q)
		}
	}
	if len(seen) != len(written) || len(written) != writers*per {
		t.Errorf("read %d events of %d written (%d meant)", len(seen), len(written), writers*per)
	}
	t.Logf("%d reads while %d writers ran", reads, writers)
}

// TestPostgresGroupCommit shows that concurrent verifications share a
// transaction on PostgreSQL, each with its events (numbered in the order
// of the group) and tallies, and that when one write of a group fails,
// the rest run again as a group and the failing one alone: it is not
// written, every other is written once. A first write, alone, commits
// itself; the others queue behind it and form the group. (The taken hook
// holds the first write inside sync.Once until the gate opens, and so
// the committer's call too: the group is whatever queued meanwhile.)
func TestPostgresGroupCommit(t *testing.T) {
	server := storetest.PostgresServer(t)
	for _, fail := range []bool{false, true} {
		t.Run(fmt.Sprintf("fail=%v", fail), func(t *testing.T) {
			const n = 9
			ctx := t.Context()
			queued := make(chan struct{}, n)
			gate, first := make(chan struct{}), make(chan struct{})
			var once sync.Once
			// Two connections: one committer, and one for the reads.
			s := opened(t)(store.OpenPostgresGated(ctx, storetest.PostgresSchema(t, server), 2,
				func() { queued <- struct{}{} }, func() { once.Do(func() { close(first); <-gate }) }))
			commits, reruns := store.GroupCounts(s)
			together := store.GroupsTogether(s)
			errFailed := errors.New("failed after its event")
			created := time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)
			errs := make([]error, n+1)
			var wg sync.WaitGroup
			wg.Go(func() {
				v := benchVerification("acme", n, created.Add(-time.Hour))
				v.Codes = []string{"CODE"}
				_, errs[n] = s.Insert(ctx, v, []store.Event{{Type: "verification", Data: []byte(`{"id":"first"}`)}})
			})
			<-first // it holds the one committer's place until the gate opens
			for i := range n {
				wg.Go(func() {
					if fail && i == n/2 {
						errs[i] = store.WriteFailing(ctx, s, "acme", errFailed)
						return
					}
					v := benchVerification("acme", i, created.Add(time.Duration(i)*time.Second))
					v.Codes = []string{"CODE"}
					ev := []store.Event{{Type: "verification", Data: []byte(`{"id":"` + v.ID + `"}`)}}
					_, errs[i] = s.Insert(ctx, v, ev)
				})
			}
			for range n {
				<-queued
			}
			close(gate)
			wg.Wait()
			wantRows, wantReruns := n+1, int64(0)
			if fail {
				wantRows, wantReruns = n, 1
			}
			gotCommits, gotReruns := store.GroupCounts(s)
			if gotCommits-commits != 1 {
				t.Errorf("%d group transactions committed, want 1", gotCommits-commits)
			}
			// A group of verifications is written with a statement for
			// all; with a failing write, which is no verification's, once
			// that write is left out.
			if got := store.GroupsTogether(s) - together; got != 1 {
				t.Errorf("%d groups written together, want 1", got)
			}
			if gotReruns-reruns != wantReruns {
				t.Errorf("%d groups ran again, want %d", gotReruns-reruns, wantReruns)
			}
			for i, err := range errs {
				if want := fail && i == n/2; errors.Is(err, errFailed) != want || (!want && err != nil) {
					t.Errorf("write %d: %v", i, err)
				}
			}
			p, err := s.List(ctx, "acme", store.Filter{Limit: 100})
			if err != nil || len(p.Items) != wantRows {
				t.Fatalf("List: %d rows, %v; want %d", len(p.Items), err, wantRows)
			}
			evs, err := s.Events(ctx, "acme", 0, 100)
			if err != nil || len(evs) != wantRows {
				t.Fatalf("Events: %d, %v; want %d", len(evs), err, wantRows)
			}
			for i, e := range evs {
				if e.Type != "verification" {
					t.Errorf("event %d is a %q: the failing write's event was kept", e.Seq, e.Type)
				}
				if i > 0 && e.Seq <= evs[i-1].Seq {
					t.Errorf("event Seqs %d then %d", evs[i-1].Seq, e.Seq)
				}
			}
			// The first event is the lone write's; the group's follow it.
			if group := evs[1:]; group[len(group)-1].Seq-group[0].Seq != int64(len(group)-1) {
				t.Errorf("one transaction's events are Seqs %d to %d, want %d in a row", group[0].Seq, group[len(group)-1].Seq, len(group))
			}
			wt, err := s.Tally(ctx, "acme", store.Window{Since: created.Add(-48 * time.Hour), Until: created.Add(48 * time.Hour)})
			if err != nil {
				t.Fatal(err)
			}
			var got, codes int64
			for _, g := range wt.Groups {
				got += g.Tally.N
			}
			for _, c := range wt.Codes {
				codes += c.N
			}
			if got != int64(wantRows) || codes != int64(wantRows) {
				t.Errorf("tallies count %d verifications and %d codes, want %d of each", got, codes, wantRows)
			}
		})
	}
}

// insertGroup inserts, on a store opened with OpenPostgresGated and one
// committer, a verification of tenant "gate" alone and then those of
// group together, in one group transaction, and returns each write's stored
// verification (the one it duplicates on ErrDuplicate) and error. The
// writes of group queue in their order.
func insertGroup(t *testing.T, s store.Store, queued, first, gate chan struct{},
	group []*store.Verification, events [][]store.Event) ([]*store.Verification, []error) {
	t.Helper()
	ctx := t.Context()
	var wg sync.WaitGroup
	wg.Go(func() {
		if _, err := s.Insert(ctx, benchVerification("gate", 999, time.Now()), nil); err != nil {
			t.Error(err)
		}
	})
	<-first // it holds the one committer's place until the gate opens
	got, errs := make([]*store.Verification, len(group)), make([]error, len(group))
	for i, v := range group { // queued in order
		wg.Go(func() { got[i], errs[i] = s.Insert(ctx, v, events[i]) })
		<-queued
	}
	close(gate)
	wg.Wait()
	return got, errs
}

// TestPostgresInsertTogether shows that the verifications of a group
// transaction, written with a statement for all, are written as each
// alone would be: a duplicate answers with the stored row, a later
// attempt takes its issue from the first, and each event gets its Seq
// in order and its own verification's report; and that writes that
// depend on each other (a shared key, two attempts of a task) are
// written in turn.
func TestPostgresInsertTogether(t *testing.T) {
	server := storetest.PostgresServer(t)
	created := time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)
	// open opens a store whose first write taken after arm is called
	// holds the committer until the gate opens.
	open := func(t *testing.T) (s store.Store, queued, first, gate chan struct{}, arm func()) {
		queued, first, gate = make(chan struct{}, 16), make(chan struct{}), make(chan struct{})
		var (
			once  sync.Once
			armed atomic.Bool
		)
		s = opened(t)(store.OpenPostgresGated(t.Context(), storetest.PostgresSchema(t, server), 2,
			func() { queued <- struct{}{} }, func() {
				if armed.Load() {
					once.Do(func() { close(first); <-gate })
				}
			}))
		return s, queued, first, gate, func() { armed.Store(true) }
	}
	withReport := func(v *store.Verification) store.Event {
		prefix := `{"id":"` + v.ID + `","report":`
		return store.Event{Type: "verification", Data: []byte(prefix + string(v.Result) + `}`), ReportAt: len(prefix)}
	}

	t.Run("together", func(t *testing.T) {
		ctx := t.Context()
		s, queued, first, gate, arm := open(t)
		stored := benchVerification("acme", 100, created)
		stored.Issue = "STORED_ISSUE"
		other, third := benchVerification("acme", 101, created), benchVerification("acme", 102, created)
		for _, v := range []*store.Verification{stored, other, third} {
			if _, err := s.Insert(ctx, v, nil); err != nil {
				t.Fatal(err)
			}
		}
		arm()
		together := store.GroupsTogether(s)
		commits, reruns := store.GroupCounts(s)
		var (
			group  []*store.Verification
			events [][]store.Event
		)
		for i := range 4 { // 0, 1, 2 and 0 events
			v := benchVerification("acme", i, created.Add(time.Duration(i)*time.Second))
			v.Result = []byte(fmt.Sprintf(`{"verdict":"pass","n":%d}`, i))
			v.RequestHash += "/ef92ff2fb3a78a3e" // the server's form: kept as bytes
			if i%2 == 1 {                        // NULLs beside values in each nullable column
				cost, self, complexity := 0.25*float64(i), 0.5, i
				v.Score, v.TaskCostUSD, v.SelfConfidence, v.Complexity = nil, &cost, &self, &complexity
				v.Ledger = &store.Ledger{Claims: 3, Unverified: 1, Refuted: 1}
				v.RequestHash = fmt.Sprintf("not hex %d", i) // kept as text, its digest NULL
			}
			var evs []store.Event
			for j := range i % 3 {
				if j == 0 {
					evs = append(evs, withReport(v))
				} else {
					evs = append(evs, store.Event{Type: "note", Data: []byte(fmt.Sprintf(`{"v":%d,"j":%d}`, i, j))})
				}
			}
			group, events = append(group, v), append(events, evs)
		}
		dup := benchVerification("acme", 101, created) // the other stored one again
		dup.Goal = "a retried request"
		retry := benchVerification("acme", 100, created.Add(time.Minute))
		retry.Attempt, retry.IdempotencyKey = 2, "v0000100/2"
		rekeyed := benchVerification("acme", 102, created) // the third stored one under a new key
		rekeyed.IdempotencyKey = "a new key"
		group = append(group, dup, retry, rekeyed)
		events = append(events, []store.Event{{Type: "verification", Data: []byte(`{"dup":true}`)}}, nil, nil)

		written := make([][]store.Event, len(events)) // what each wrote, before the store fills it in
		for i, evs := range events {
			for _, e := range evs {
				written[i] = append(written[i], store.Event{Type: e.Type, Data: slices.Clone(e.Data)})
			}
		}
		got, errs := insertGroup(t, s, queued, first, gate, group, events)
		gotCommits, gotReruns := store.GroupCounts(s)
		if n := store.GroupsTogether(s) - together; n != 1 || gotCommits-commits != 1 || gotReruns != reruns {
			t.Fatalf("%d groups written together, %d committed, %d run again; want 1, 1 and 0", n, gotCommits-commits, gotReruns-reruns)
		}
		for i, err := range errs {
			if i == 4 || i == 6 {
				want := map[int]*store.Verification{4: other, 6: third}[i]
				if !errors.Is(err, store.ErrDuplicate) || got[i] == nil || got[i].IdempotencyKey != want.IdempotencyKey || got[i].Seq != want.Seq {
					t.Errorf("duplicate %d: %v, %+v; want ErrDuplicate and the stored row %d", i, err, got[i], want.Seq)
				}
				continue
			}
			if err != nil {
				t.Errorf("write %d: %v", i, err)
			}
		}
		if retry.Issue != "STORED_ISSUE" {
			t.Errorf("attempt 2's issue %q, want attempt 1's", retry.Issue)
		}
		if v, err := s.Get(ctx, "acme", retry.ID, 2); err != nil || v.Issue != "STORED_ISSUE" {
			t.Errorf("stored attempt 2: %v, %v", v, err)
		}
		var want []store.Event
		for i, v := range group[:4] {
			if v.Seq == 0 {
				t.Errorf("write %d has no Seq", i)
			}
			stored, err := s.Get(ctx, "acme", v.ID, 1)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(stored.Result, v.Result) || stored.Seq != v.Seq || stored.RequestHash != v.RequestHash || !reflect.DeepEqual(stored.Score, v.Score) ||
				!reflect.DeepEqual(stored.TaskCostUSD, v.TaskCostUSD) || !reflect.DeepEqual(stored.SelfConfidence, v.SelfConfidence) ||
				!reflect.DeepEqual(stored.Complexity, v.Complexity) || !reflect.DeepEqual(stored.Ledger, v.Ledger) {
				t.Errorf("write %d read back: %+v\nwritten: %+v", i, stored, v)
			}
			for j, e := range events[i] {
				if e.Seq == 0 {
					t.Errorf("write %d, event %d has no Seq", i, j)
				}
				want = append(want, store.Event{Seq: e.Seq, Type: written[i][j].Type, Data: written[i][j].Data})
			}
		}
		if events[4][0].Seq != 0 {
			t.Errorf("the duplicate's event has Seq %d: written", events[4][0].Seq)
		}
		var digests, texts int
		if err := s.(store.Queue).Pool().QueryRow(ctx, `SELECT count(*) FILTER (WHERE request_digest IS NOT NULL AND request_hash = ''),
				count(*) FILTER (WHERE request_digest IS NULL AND request_hash LIKE 'not hex %')
			FROM verification_logs WHERE seq = ANY($1)`, []int64{group[0].Seq, group[1].Seq, group[2].Seq, group[3].Seq}).Scan(&digests, &texts); err != nil {
			t.Fatal(err)
		}
		if digests != 2 || texts != 2 {
			t.Errorf("written together: %d hashes kept as bytes and %d as text, want 2 and 2", digests, texts)
		}
		evs, err := s.Events(ctx, "acme", 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != len(want) {
			t.Fatalf("%d events read, want %d", len(evs), len(want))
		}
		for i, e := range evs {
			if e.Seq != want[i].Seq || e.Type != want[i].Type || !bytes.Equal(e.Data, want[i].Data) {
				t.Errorf("event %d: %d %s %s; want %d %s %s", i, e.Seq, e.Type, e.Data, want[i].Seq, want[i].Type, want[i].Data)
			}
			if i > 0 && e.Seq != evs[i-1].Seq+1 {
				t.Errorf("event Seqs %d then %d: one transaction's, not in a row", evs[i-1].Seq, e.Seq)
			}
		}
		wt, err := s.Tally(ctx, "acme", store.Window{Since: created.Add(-48 * time.Hour), Until: created.Add(48 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, g := range wt.Groups {
			n += g.Tally.N
		}
		if n != 8 { // three stored, four new and attempt 2; no duplicate
			t.Errorf("tallies count %d verifications, want 8", n)
		}
	})

	t.Run("in turn", func(t *testing.T) {
		for _, name := range []string{"shared key", "two attempts"} {
			t.Run(name, func(t *testing.T) {
				s, queued, first, gate, arm := open(t)
				arm()
				a, b := benchVerification("acme", 1, created), benchVerification("acme", 1, created.Add(time.Second))
				a.Issue = "FIRST_ISSUE"
				b.Goal = "the second"
				if name == "two attempts" {
					b.Attempt, b.IdempotencyKey = 2, "v0000001/2"
				}
				together := store.GroupsTogether(s)
				commits, reruns := store.GroupCounts(s)
				_, errs := insertGroup(t, s, queued, first, gate, []*store.Verification{a, b}, make([][]store.Event, 2))
				gotCommits, gotReruns := store.GroupCounts(s)
				if n := store.GroupsTogether(s) - together; n != 0 || gotCommits-commits != 1 || gotReruns != reruns {
					t.Errorf("%d groups written together, %d committed, %d run again; want 0, 1 and 0", n, gotCommits-commits, gotReruns-reruns)
				}
				firstErr, secondErr := errs[0], errs[1]
				if firstErr != nil {
					t.Errorf("the first write: %v", firstErr)
				}
				if name == "shared key" && !errors.Is(secondErr, store.ErrDuplicate) {
					t.Errorf("the second write of a key: %v, want ErrDuplicate", secondErr)
				}
				if name == "two attempts" {
					if secondErr != nil {
						t.Errorf("write: %v", secondErr)
					}
					if b.Issue != "FIRST_ISSUE" {
						t.Errorf("attempt 2's issue %q, want that of attempt 1 in its group", b.Issue)
					}
				}
			})
		}
	})
}

// TestPostgresGroupLockWait shows that a verification whose write waits
// on a row another transaction holds does not hold up its group: the
// wait fails at the group's lock timeout, the others are written, and
// it is written alone once the row is free.
func TestPostgresGroupLockWait(t *testing.T) {
	const n = 5
	ctx := t.Context()
	dsn := storetest.PostgresSchema(t, storetest.PostgresServer(t))
	queued := make(chan struct{}, n)
	gate, first := make(chan struct{}), make(chan struct{})
	var once sync.Once
	s := opened(t)(store.OpenPostgresGated(ctx, dsn, 2,
		func() { queued <- struct{}{} }, func() { once.Do(func() { close(first); <-gate }) }))
	store.SetGroupLockTimeout(s, 100*time.Millisecond)
	// Another transaction inserts the key one verification will insert,
	// and stays open.
	raw, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close(context.Background())
	held, err := raw.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Rollback(context.Background())
	if _, err := held.Exec(ctx, `INSERT INTO verification_logs (tenant, id, attempt, idempotency_key, result, created_at)
		VALUES ('acme', 'held', 1, 'held/1', '\x7b7d'::bytea, now())`); err != nil {
		t.Fatal(err)
	}
	_, reruns := store.GroupCounts(s)
	together := store.GroupsTogether(s)
	created := time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)
	errs := make([]error, n+1)
	var others, waiter sync.WaitGroup
	others.Go(func() { _, errs[n] = s.Insert(ctx, benchVerification("acme", 100, created), nil) })
	<-first
	for i := range n {
		v := benchVerification("acme", i, created.Add(time.Duration(i)*time.Second))
		wg := &others
		if i == n/2 {
			v.ID, v.IdempotencyKey, wg = "held", "held/1", &waiter
		}
		wg.Go(func() { _, errs[i] = s.Insert(ctx, v, nil) })
	}
	for range n {
		<-queued
	}
	close(gate)
	others.Wait() // while the other transaction still holds the key
	for i, err := range errs {
		if i != n/2 && err != nil {
			t.Errorf("write %d: %v", i, err)
		}
	}
	// The insertions together wait and fail, then the group runs write
	// by write, where the write that waits fails again and is left out,
	// and the rest write by write too (a second wait in each round
	// otherwise).
	if _, got := store.GroupCounts(s); got-reruns != 2 {
		t.Errorf("%d groups ran again, want 2", got-reruns)
	}
	if n := store.GroupsTogether(s) - together; n != 0 {
		t.Errorf("%d groups written together after a lock wait, want 0", n)
	}
	if err := held.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	waiter.Wait()
	if err := errs[n/2]; err != nil {
		t.Errorf("the write that waited: %v", err)
	}
	if p, err := s.List(ctx, "acme", store.Filter{Limit: 100}); err != nil || len(p.Items) != n+1 {
		t.Errorf("List: %d rows, %v; want %d", len(p.Items), err, n+1)
	}
}

// TestPostgresGivenUpNotRun shows that a verification whose caller gives
// up after a committer took it, but before its transaction began, is
// answered with its caller's error and not written.
func TestPostgresGivenUpNotRun(t *testing.T) {
	ctx := t.Context()
	gaveUp, giveUp := context.WithCancel(ctx)
	s := opened(t)(store.OpenPostgresGated(ctx, storetest.PostgresSchema(t, storetest.PostgresServer(t)), 2, nil, giveUp))
	_, err := s.Insert(gaveUp, benchVerification("acme", 1, time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)), nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Insert given up once taken: %v, want the caller's error", err)
	}
	if p, err := s.List(ctx, "acme", store.Filter{}); err != nil || len(p.Items) != 0 {
		t.Errorf("after a write given up: %d rows, %v", len(p.Items), err)
	}
}

// TestPostgresGivenUpInGroup shows that a verification whose caller gives
// up after a committer took it, while the committer gathers its group,
// is answered with its caller's error and not written, and the rest of
// its group is.
func TestPostgresGivenUpInGroup(t *testing.T) {
	const n = 4
	ctx := t.Context()
	queued, taken := make(chan struct{}, n+1), make(chan struct{}, n+2)
	gate := make(chan struct{})
	var once sync.Once
	s := opened(t)(store.OpenPostgresGated(ctx, storetest.PostgresSchema(t, storetest.PostgresServer(t)), 2,
		func() { queued <- struct{}{} }, func() { taken <- struct{}{}; once.Do(func() { <-gate }) }))
	commits, _ := store.GroupCounts(s)
	created := time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	errs := make([]error, n+2)
	wg.Go(func() { _, errs[n+1] = s.Insert(ctx, benchVerification("acme", 100, created), nil) })
	<-taken // the first write commits itself, and holds the committer's place
	gaveUp, giveUp := context.WithCancel(ctx)
	wg.Go(func() { _, errs[n] = s.Insert(gaveUp, benchVerification("acme", 200, created), nil) })
	<-queued
	<-taken // the committer took it, and waits
	for i := range n {
		wg.Go(func() {
			_, errs[i] = s.Insert(ctx, benchVerification("acme", i, created.Add(time.Duration(i)*time.Second)), nil)
		})
	}
	for range n {
		<-queued
	}
	giveUp()
	close(gate)
	wg.Wait()
	for i, err := range errs {
		if want := i == n; errors.Is(err, context.Canceled) != want || (!want && err != nil) {
			t.Errorf("write %d: %v", i, err)
		}
	}
	if got, _ := store.GroupCounts(s); got-commits != 1 {
		t.Errorf("%d group transactions committed, want 1", got-commits)
	}
	p, err := s.List(ctx, "acme", store.Filter{Limit: 100})
	if err != nil || len(p.Items) != n+1 {
		t.Fatalf("List: %d rows, %v; want %d", len(p.Items), err, n+1)
	}
	for _, v := range p.Items {
		if v.ID == "v0000200" {
			t.Error("the write given up was written")
		}
	}
}

// TestPostgresWriteBoundedByDeadline shows that a verification's write
// waits for a connection no longer than its caller's deadline, though a
// committer runs it: with every connection of the pool held, Insert
// fails when its context does, and writes nothing.
func TestPostgresWriteBoundedByDeadline(t *testing.T) {
	ctx := t.Context()
	s := opened(t)(store.Open(ctx, storetest.PostgresSchema(t, storetest.PostgresServer(t)), store.Options{MaxConns: 2}))
	var commits []func() error
	for i := range 2 { // both connections, held in open transactions
		_, commit, err := store.BeginEvents(t, ctx, s, []store.Event{{Tenant: "acme", Type: "held", Data: fmt.Appendf(nil, `{"i":%d}`, i)}})
		if err != nil {
			t.Fatal(err)
		}
		commits = append(commits, commit)
	}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := s.Insert(short, benchVerification("acme", 1, time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)), nil)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Insert with no connection to be had: %v, want the deadline's error", err)
		}
	case <-time.After(30 * time.Second): // a bound on the test, not a synchronisation
		t.Fatal("Insert waited for a connection past its deadline")
	}
	for _, commit := range commits {
		if err := commit(); err != nil {
			t.Fatal(err)
		}
	}
	if p, err := s.List(ctx, "acme", store.Filter{}); err != nil || len(p.Items) != 0 {
		t.Errorf("after a failed Insert: %d rows, %v", len(p.Items), err)
	}
}

// TestPostgresPackedReportsMigration reads, after migration 0013, a
// report written as text before it, beside one written compressed after.
func TestPostgresPackedReportsMigration(t *testing.T) {
	ctx := t.Context()
	dsn := storetest.PostgresSchema(t, storetest.PostgresServer(t))
	if err := store.MigratePostgresTo(ctx, dsn, 12); err != nil {
		t.Fatal(err)
	}
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	old := `{"verdict":"pass","note":"` + strings.Repeat("written before compression ", 40) + `"}`
	if _, err := c.Exec(ctx, `INSERT INTO verification_logs (tenant, id, attempt, idempotency_key, result, request, created_at)
		VALUES ('acme', 'old', 1, 'k-old', $1, $2, now())`, old, []byte(`{"task":"old"}`)); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(ctx, dsn, store.Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Get(ctx, "acme", "old", 1)
	if err != nil || string(got.Result) != old || string(got.Request) != `{"task":"old"}` {
		t.Fatalf("the row written before: %v; result %.40q, request %q", err, got.Result, got.Request)
	}
	v := &store.Verification{Tenant: "acme", ID: "new", Attempt: 1, Result: []byte(old), Request: []byte(`{"task":"` + strings.Repeat("new ", 100) + `"}`), CreatedAt: time.Now()}
	if _, err := s.Insert(ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	var stored []byte
	if err := c.QueryRow(ctx, `SELECT result FROM verification_logs WHERE id = 'new'`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if len(stored) >= len(old)/2 {
		t.Errorf("the new report is stored in %d bytes, of %d: not compressed", len(stored), len(old))
	}
	if got, err := s.Get(ctx, "acme", "new", 1); err != nil || string(got.Result) != old || string(got.Request) != string(v.Request) {
		t.Errorf("the row written after: %v", err)
	}
}

// TestPostgresEventsNotHeldByOthers keeps a transaction that writes no
// event open (another application's, a batch being created): events
// committed meanwhile are read at once, and a stream that starts then
// starts after them.
func TestPostgresEventsNotHeldByOthers(t *testing.T) {
	ctx := t.Context()
	dsn := storetest.PostgresSchema(t, storetest.PostgresServer(t))
	s := opened(t)(store.Open(ctx, dsn, store.Options{MaxConns: 4}))
	store.SetEventWait(s, 0)
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	other, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Rollback(ctx)
	if _, err := other.Exec(ctx, `CREATE TEMP TABLE held (x int); INSERT INTO held VALUES (1)`); err != nil {
		t.Fatal(err) // it has a transaction id now, older than the event's
	}
	evs := []store.Event{{Tenant: "acme", Type: "t", Data: []byte(`{}`)}}
	if err := s.AppendEvents(ctx, evs); err != nil {
		t.Fatal(err)
	}
	got, err := s.Events(ctx, "acme", 0, 10)
	if err != nil || len(got) != 1 || got[0].Seq != evs[0].Seq {
		t.Errorf("Events beside an open transaction that writes none = %v, %v; want the event", got, err)
	}
	if last, err := s.LastEventSeq(ctx, "acme"); err != nil || last != evs[0].Seq {
		t.Errorf("LastEventSeq = %d, %v; want %d", last, err, evs[0].Seq)
	}
}

// TestPostgresEventSeqsAfterRestore stands for a database restored into
// a cluster whose transaction ids are far below its event Seqs: once
// reopened, the store writes Seqs above the stored ones, and a reader
// that resumes after the highest old one reads the new event.
func TestPostgresEventSeqsAfterRestore(t *testing.T) {
	ctx := t.Context()
	dsn := storetest.PostgresSchema(t, storetest.PostgresServer(t))
	s, err := store.Open(ctx, dsn, store.Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	const old = int64(1) << 60 // a Seq of the cluster it came from
	if _, err := c.Exec(ctx, `INSERT INTO events (seq, tenant, type, data, created_at) VALUES ($1, 'acme', 'old', '{}', now())`, old); err != nil {
		t.Fatal(err)
	}
	s, err = store.Open(ctx, dsn, store.Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	evs := []store.Event{{Tenant: "acme", Type: "new", Data: []byte(`{}`)}}
	if err := s.AppendEvents(ctx, evs); err != nil {
		t.Fatal(err)
	}
	if evs[0].Seq <= old {
		t.Fatalf("the new event's Seq %d is not above the restored %d", evs[0].Seq, old)
	}
	got, err := s.Events(ctx, "acme", old, 10)
	if err != nil || len(got) != 1 || got[0].Type != "new" {
		t.Errorf("Events after the restored Seq = %v, %v; want the new event", got, err)
	}
	if last, err := s.LastEventSeq(ctx, "acme"); err != nil || last != evs[0].Seq {
		t.Errorf("LastEventSeq = %d, %v; want %d", last, err, evs[0].Seq)
	}
}

// TestPostgresTrainLock: one process at a time trains a kind's
// compression dictionary on a schema: the lock is refused while another
// store holds it, and taken once it is released; another schema's is
// its own.
func TestPostgresTrainLock(t *testing.T) {
	server := storetest.PostgresServer(t)
	dsn := storetest.PostgresSchema(t, server)
	open := func(dsn string) store.Store {
		st, err := store.Open(t.Context(), dsn, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	a, b, elsewhere := open(dsn), open(dsn), open(storetest.PostgresSchema(t, server))
	ctx := t.Context()
	unlock, ok, err := store.TrainLock(ctx, a)
	if err != nil || !ok {
		t.Fatalf("the first lock: %v, %v", ok, err)
	}
	if _, ok, err := store.TrainLock(ctx, b); err != nil || ok {
		t.Fatalf("a second process took the lock held by the first: %v, %v", ok, err)
	}
	unlockElsewhere, ok, err := store.TrainLock(ctx, elsewhere)
	if err != nil || !ok {
		t.Fatalf("another schema's lock: %v, %v", ok, err)
	}
	unlockElsewhere()
	unlock()
	unlock, ok, err = store.TrainLock(ctx, b)
	if err != nil || !ok {
		t.Fatalf("the lock after its release: %v, %v", ok, err)
	}
	unlock()
}
