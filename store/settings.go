package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// maxSecretSize bounds the size of a secret [Secrets.Secret] makes.
const maxSecretSize = 4096

// Secret implements [Secrets.Secret]. A secret already stored is read
// without a write; otherwise one transaction inserts fresh random bytes
// unless another caller's are there first (ON CONFLICT DO NOTHING, which
// on PostgreSQL waits for a concurrent insert of the name to commit), and
// reads back whichever bytes were kept. The name must not be empty, and
// size must be between 1 and 4096.
func (s *sqlStore) Secret(ctx context.Context, name string, size int) ([]byte, error) {
	const op = "store: secret"
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if name == "" || size < 1 || size > maxSecretSize {
		return nil, fmt.Errorf("%s: needs a name and a size from 1 to %d bytes, not %q and %d", op, maxSecretSize, name, size)
	}
	const get = `SELECT value FROM settings WHERE name = ?`
	var value []byte
	err := s.eng.reader().queryRow(ctx, get, name).Scan(&value)
	if err == nil {
		return value, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, s.fail(op+" "+name, err)
	}
	fresh := make([]byte, size)
	if _, err := rand.Read(fresh); err != nil {
		return nil, fmt.Errorf("%s %s: %w", op, name, err)
	}
	created := s.stamp(time.Time{})
	err = s.eng.write(ctx, 0, func(ctx context.Context, tx conn) error {
		if _, err := tx.exec(ctx, `INSERT INTO settings (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING`,
			name, fresh, s.d.ts(created)); err != nil {
			return err
		}
		return tx.queryRow(ctx, get, name).Scan(&value)
	})
	if err != nil {
		return nil, s.fail(op+" "+name, err)
	}
	return value, nil
}
