package store_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/store/storetest"
)

// pgDSN returns the PostgreSQL server to test against, or skips.
func pgDSN(t testing.TB) string {
	dsn := os.Getenv("VOUCH_TEST_PG_DSN")
	if dsn == "" {
		t.Skip("VOUCH_TEST_PG_DSN is not set: set it to a PostgreSQL server " +
			"(e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable) to run the " +
			"store's tests on PostgreSQL; each test gets a schema of its own, dropped after")
	}
	return dsn
}

// pgSchema creates a fresh schema on the server and returns a DSN whose
// connections use it; the schema is dropped when the test ends.
func pgSchema(t testing.TB, server string) string {
	t.Helper()
	ctx := context.Background()
	b := make([]byte, 6)
	rand.Read(b)
	schema := "vouch_test_" + hex.EncodeToString(b)
	c, err := pgx.Connect(ctx, server)
	if err != nil {
		t.Fatalf("connect to %s: %v", server, err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, `CREATE SCHEMA `+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(ctx, server)
		if err != nil {
			t.Errorf("connect to drop %s: %v", schema, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func TestPostgres(t *testing.T) {
	server := pgDSN(t)
	storetest.Run(t, func(t *testing.T) func() (store.Store, error) {
		dsn := pgSchema(t, server)
		return func() (store.Store, error) {
			return store.Open(context.Background(), dsn, store.Options{MaxConns: 4})
		}
	})
}

// TestPostgresConcurrentOpen opens one fresh database from many
// goroutines at once: the migration runs once, under its lock.
func TestPostgresConcurrentOpen(t *testing.T) {
	dsn := pgSchema(t, pgDSN(t))
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
