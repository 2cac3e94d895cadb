package store

import (
	"context"
	"database/sql"
	"errors"
	"time"
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
		var d []byte
		err := s.eng.reader().queryRow(ctx, `SELECT dict FROM pack_dicts WHERE kind = ? ORDER BY created_at DESC, id DESC LIMIT 1`,
			kind.String()).Scan(&d)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[kind] = d
	}
	return out, nil
}
