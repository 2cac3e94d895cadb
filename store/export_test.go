package store

import (
	"context"
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
