package store

import (
	"context"
	"errors"
)

// openPostgres opens a PostgreSQL store.
func openPostgres(ctx context.Context, dsn string, opt Options) (Store, error) {
	return nil, errors.New("store: postgres: not implemented yet")
}
