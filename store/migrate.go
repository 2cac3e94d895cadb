package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// migrationFiles holds the schema of each dialect as numbered SQL files,
// migrations/<dialect>/NNNN_name.sql, applied in order and once, as
// recorded in the table schema_migrations. Both dialects have the same
// numbers, tables and columns.
//
//go:embed migrations
var migrationFiles embed.FS

// migration is one numbered SQL file.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the migrations of a dialect in order.
func migrations(dialect string) ([]migration, error) {
	dir := path.Join("migrations", dialect)
	entries, err := fs.ReadDir(migrationFiles, dir)
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 || !strings.HasSuffix(name, ".sql") {
			return nil, fmt.Errorf("migration %s/%s: not named NNNN_name.sql", dialect, name)
		}
		b, err := fs.ReadFile(migrationFiles, path.Join(dir, name))
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: strings.TrimSuffix(name, ".sql"), sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i := 1; i < len(out); i++ {
		if out[i].version == out[i-1].version {
			return nil, fmt.Errorf("migrations %s and %s have one number", out[i-1].name, out[i].name)
		}
	}
	return out, nil
}

// migrate applies the migrations of d that tx's database lacks, in tx
// (which the caller commits), and refuses a database whose schema is
// newer than this program's.
func migrate(ctx context.Context, tx conn, d dialect, now time.Time, log *slog.Logger) error {
	ms, err := migrations(d.name)
	if err != nil {
		return fmt.Errorf("store: migrations: %w", err)
	}
	tsType := "TEXT"
	if d.name == postgresDialect.name {
		tsType = "TIMESTAMPTZ"
	}
	if _, err := tx.exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at `+tsType+` NOT NULL
	)`); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	applied := map[int]bool{}
	rs, err := tx.query(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	maxApplied := 0
	for rs.Next() {
		var v int
		if err := rs.Scan(&v); err != nil {
			rs.Close()
			return fmt.Errorf("store: migrate: %w", err)
		}
		applied[v] = true
		maxApplied = max(maxApplied, v)
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	if latest := ms[len(ms)-1].version; maxApplied > latest {
		return fmt.Errorf("store: migrate: the database's schema is at version %d, newer than this program's %d", maxApplied, latest)
	}
	for _, m := range ms {
		if applied[m.version] {
			continue
		}
		if _, err := tx.exec(ctx, m.sql); err != nil {
			return fmt.Errorf("store: migrate %s: %w", m.name, err)
		}
		if _, err := tx.exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
			m.version, m.name, d.ts(now)); err != nil {
			return fmt.Errorf("store: migrate %s: %w", m.name, err)
		}
		log.Info("store: applied migration", "dialect", d.name, "migration", m.name)
	}
	return nil
}
