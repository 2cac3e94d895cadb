package store_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/store/storetest"
)

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
