package store

import (
	"context"
	"testing"
	"time"
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
	if seqs, err = ps.insertEvents(ctx, pgConn{q: tx}, evs, 0); err != nil {
		tx.Rollback(ctx)
		return nil, nil, err
	}
	return seqs, func() error { return tx.Commit(ctx) }, nil
}

// SetEventWait sets how long Events waits for events committed above the
// horizon of a PostgreSQL store.
func SetEventWait(s Store, d time.Duration) { s.(*pgStore).eventWait = d }
