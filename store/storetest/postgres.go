package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// PostgresServer returns the PostgreSQL server to test against, from
// VOUCH_TEST_PG_DSN, or skips the test with a message when it is unset;
// with VOUCH_TEST_PG_REQUIRED set (as CI sets it) it fails instead.
func PostgresServer(t testing.TB) string {
	dsn := os.Getenv("VOUCH_TEST_PG_DSN")
	if dsn == "" && os.Getenv("VOUCH_TEST_PG_REQUIRED") != "" {
		t.Fatal("VOUCH_TEST_PG_REQUIRED is set but VOUCH_TEST_PG_DSN is not: the PostgreSQL tests cannot be skipped here")
	}
	if dsn == "" {
		t.Skip("VOUCH_TEST_PG_DSN is not set: set it to a PostgreSQL server " +
			"(e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable) to run the " +
			"store's tests on PostgreSQL; each test gets a schema of its own, dropped after")
	}
	return dsn
}

// PostgresSchema creates a fresh schema on server and returns a DSN
// whose connections use it; the schema is dropped when the test ends.
func PostgresSchema(t testing.TB, server string) string {
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
