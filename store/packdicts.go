package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
)

// saveDict implements dictStore.
func (s *sqlStore) saveDict(ctx context.Context, id uint32, kind blobKind, d []byte) error {
	now := s.stamp(time.Time{})
	return s.eng.write(ctx, 0, func(ctx context.Context, tx conn) error {
		_, err := tx.exec(ctx, `INSERT INTO pack_dicts (id, kind, dict, created_at) VALUES (?, ?, ?, ?)`,
			int64(id), kind.String(), d, s.d.ts(now))
		return err
	})
}

// loadDict implements dictStore.
func (s *sqlStore) loadDict(ctx context.Context, id uint32) ([]byte, bool, error) {
	var d []byte
	err := s.eng.reader().queryRow(ctx, `SELECT dict FROM pack_dicts WHERE id = ?`, int64(id)).Scan(&d)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	return d, err == nil, err
}

// newestDicts implements dictStore.
func (s *sqlStore) newestDicts(ctx context.Context) (map[blobKind][]byte, error) {
	out := map[blobKind][]byte{}
	for kind := range blobKinds {
		d, ok, err := s.newestDict(ctx, kind)
		if err != nil {
			return nil, err
		}
		if ok {
			out[kind] = d
		}
	}
	return out, nil
}

// newestDict implements dictStore.
func (s *sqlStore) newestDict(ctx context.Context, kind blobKind) ([]byte, bool, error) {
	var d []byte
	err := s.eng.reader().queryRow(ctx, `SELECT dict FROM pack_dicts WHERE kind = ? ORDER BY created_at DESC, id DESC LIMIT 1`,
		kind.String()).Scan(&d)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	return d, err == nil, err
}

// trainLock implements dictStore: on PostgreSQL an advisory lock of the
// schema and kind, held while the dictionary is trained and written by a
// connection of its own, outside the pool (a worker's pool is a few
// connections, which its jobs need; holding one of four for the seconds
// of training halved a worker's throughput), and released with it should
// the process die. SQLite's processes each train their own, as one
// seldom shares a store.
func (s *sqlStore) trainLock(ctx context.Context, kind blobKind) (func(), bool, error) {
	pg, ok := s.eng.(*pgEngine)
	if !ok {
		return func() {}, true, nil
	}
	c, err := pgx.ConnectConfig(ctx, pg.pool.Config().ConnConfig.Copy())
	if err != nil {
		return nil, false, err
	}
	key := LockKey("vouch.store.packdict\x00" + pg.schema + "\x00" + kind.String())
	var got bool
	if err := c.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&got); err != nil || !got {
		c.Close(context.WithoutCancel(ctx))
		return nil, false, err
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), dictLookupWait)
		defer cancel()
		c.Close(ctx) // the lock goes with the session
	}, true, nil
}
