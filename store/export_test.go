package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// BeginEvents writes events in a transaction of a PostgreSQL store that
// stays open until commit is called: a writer that commits late. A
// transaction the test leaves open is rolled back at its cleanup.
func BeginEvents(t testing.TB, ctx context.Context, s Store, events []Event) (seqs []int64, commit func() error, err error) {
	ps := s.(*pgStore)
	evs, err := ps.prepareEvents(events, "", nil)
	if err != nil {
		return nil, nil, err
	}
	tx, err := ps.pg.pool.Begin(ctx)
	if err != nil {
		return nil, nil, err
	}
	t.Cleanup(func() { tx.Rollback(context.Background()) }) // a no-op once committed
	// As a write with writesEvents begins.
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock_shared($1)`, ps.pg.eventWriters); err != nil {
		return nil, nil, err
	}
	if seqs, err = ps.insertEvents(ctx, pgConn{q: tx}, evs, 0); err != nil {
		tx.Rollback(ctx)
		return nil, nil, err
	}
	return seqs, func() error { return tx.Commit(ctx) }, nil
}

// SetEventWait sets how long Events waits for events committed above the
// horizon of a PostgreSQL store.
func SetEventWait(s Store, d time.Duration) { s.(*pgStore).eventWait = d }

// MigratePostgresTo applies the PostgreSQL migrations up to version alone
// to the database at dsn, as an older vouch left it.
func MigratePostgresTo(ctx context.Context, dsn string, version int) error {
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	ms, err := migrations(postgresDialect.name)
	if err != nil {
		return err
	}
	if _, err := c.Exec(ctx, `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL)`); err != nil {
		return err
	}
	for _, m := range ms {
		if m.version > version {
			break
		}
		if _, err := c.Exec(ctx, m.sql); err != nil {
			return err
		}
		if _, err := c.Exec(ctx, `INSERT INTO schema_migrations VALUES ($1, $2, now())`, m.version, m.name); err != nil {
			return err
		}
	}
	return nil
}

// OpenPostgresGated opens a PostgreSQL store with maxConns connections
// (half of them committers of grouped writes) whose committers call
// queued after a write was queued and taken after taking the first write
// of a group, before gathering the rest; a write that commits itself
// (nothing queued, a place free) calls taken too.
func OpenPostgresGated(ctx context.Context, dsn string, maxConns int, queued, taken func()) (Store, error) {
	return openPostgres(ctx, dsn, Options{MaxConns: maxConns, hooks: writerHooks{queued: queued, taken: taken}})
}

// GroupCounts returns how many group transactions the committers of a
// PostgreSQL store committed, and how many groups they ran again write
// by write.
func GroupCounts(s Store) (commits, reruns int64) {
	e := s.(*pgStore).pg
	return e.commits.Load(), e.reruns.Load()
}

// GroupsTogether returns how many group transactions of a PostgreSQL
// store wrote their verifications with a statement for all.
func GroupsTogether(s Store) int64 {
	return s.(*pgStore).pg.together.Load()
}

// WriteFailing queues on a PostgreSQL store a rerunnable write, as a
// verification's is, that inserts an event of tenant and then fails with
// fail.
func WriteFailing(ctx context.Context, s Store, tenant string, fail error) error {
	ps := s.(*pgStore)
	evs, err := ps.prepareEvents([]Event{{Type: "failing", Data: []byte(`{"failing":true}`)}}, tenant, nil)
	if err != nil {
		return err
	}
	return ps.eng.write(ctx, writesEvents|rerunnable, func(ctx context.Context, tx conn) error {
		if _, err := ps.insertEvents(ctx, tx, evs, 0); err != nil {
			return err
		}
		return fail
	})
}

// SetGroupLockTimeout sets how long a lock wait of a PostgreSQL store's
// group transaction may last.
func SetGroupLockTimeout(s Store, d time.Duration) { s.(*pgStore).pg.lockTimeout = d }

// TrainLock takes the training lock of report dictionaries of a store.
func TrainLock(ctx context.Context, s Store) (unlock func(), ok bool, err error) {
	return s.(*pgStore).trainLock(ctx, blobReport)
}

// ReadyInserts readies vs with their events (events[i] are vs[i]'s) for
// the writer of a SQLite store, as Insert does before it queues them:
// validated, their reports, requests and events encoded and compressed.
// The commit it returns hands those in [lo, hi) to the writer's commit
// as one group, in its caller's goroutine, and returns their errors: the
// writer's work alone, with nothing queued and no goroutine woken.
func ReadyInserts(s Store, vs []*Verification, events [][]Event) (commit func(lo, hi int) error, err error) {
	ss := s.(*sqlStore)
	e := ss.eng.(*sqliteEngine)
	reqs := make([]*writeReq, len(vs))
	for i, v := range vs {
		in, err := ss.prepareInsertion(v, events[i])
		if err != nil {
			return nil, err
		}
		r := &writeReq{ctx: context.Background(), mode: eventsMode(in.evs) | rerunnable, ins: in, done: make(chan error, 1),
			fn: func(ctx context.Context, tx conn) error { return ss.insertOne(ctx, tx, in) }}
		r.state.Store(reqTaken)
		reqs[i] = r
	}
	return func(lo, hi int) error {
		group := reqs[lo:hi]
		e.commit(group)
		var errs []error
		for _, r := range group {
			errs = append(errs, <-r.done)
		}
		return errors.Join(errs...)
	}, nil
}
