// Package pgschema gives a benchmark a PostgreSQL schema of its own, so
// that it starts from an empty store whatever the database holds, and
// leaves the database as it found it.
package pgschema

import (
	"context"
	"fmt"
	"net/url"
	"os"

	"github.com/jackc/pgx/v5"
)

// Create makes a new schema named prefix_PID in the database of dsn and
// returns a DSN whose connections use it (search_path), and a function
// that drops it with all it holds, reporting a failure on stderr.
func Create(ctx context.Context, dsn, prefix string) (string, func(), error) {
	schema := fmt.Sprintf("%s_%d", prefix, os.Getpid())
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", nil, err
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		return "", nil, err
	}
	drop := func() {
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			fmt.Fprintln(os.Stderr, "dropping schema", schema+":", err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			fmt.Fprintln(os.Stderr, "dropping schema", schema+":", err)
		}
	}
	u, err := url.Parse(dsn)
	if err != nil {
		drop()
		return "", nil, err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), drop, nil
}

// Size returns the bytes the tables of the DSN's schema (its search_path)
// take on disk, with their indexes and TOAST.
func Size(ctx context.Context, dsn string) (int64, error) {
	var n int64
	err := Row(ctx, dsn, `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::bigint
		FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
		WHERE s.nspname = current_schema() AND c.relkind = 'r'`, &n)
	return n, err
}

// DictKinds returns how many kinds of blob (reports, requests, events)
// the store of the DSN's schema has a compression dictionary for.
func DictKinds(ctx context.Context, dsn string) (int, error) {
	var n int
	err := Row(ctx, dsn, `SELECT COUNT(DISTINCT kind) FROM pack_dicts`, &n)
	return n, err
}

// Row reads the one row query gives into dest, on a connection of its own
// to the DSN.
func Row(ctx context.Context, dsn, query string, dest ...any) error {
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	return c.QueryRow(ctx, query).Scan(dest...)
}
