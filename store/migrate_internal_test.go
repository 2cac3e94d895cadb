package store

import (
	"database/sql"
	"path/filepath"
	"testing"
	"time"
)

// TestMigrateClaimLedger opens a database at schema 0006, written before
// the claim ledger, with one verification and its tally: after migration
// 0007 the old row reads back with no ledger and the old tally with no
// unverified verdict and no claim, while a new row adds its ledger to the
// same tally.
func TestMigrateClaimLedger(t *testing.T) {
	ctx := t.Context()
	path, db := sqliteAtSchema(t, 6)
	// An old engine's row: nothing decided, so a fail by row 1 of the
	// six-row table.
	if _, err := db.ExecContext(ctx, `INSERT INTO verification_logs (tenant, id, attempt, idempotency_key, kind,
		verdict, action, result, created_at, verdict_row) VALUES ('acme', 'old', 1, 'old/1', 'subtask', 'fail',
		'escalate', '{"id":"old"}', ?, 1)`, sqliteDialect.ts(t0)); err != nil {
		t.Fatal(err)
	}
	for _, p := range periods {
		if _, err := db.ExecContext(ctx, `INSERT INTO metric_tallies (tenant, period, bucket, kind, executor_model,
			criticality, n, first_attempts, verdict_fail, action_escalate, score_none) VALUES ('acme', ?, ?, 'subtask', '', '', 1, 1, 1, 1, 1)`,
			p, sqliteDialect.ts(bucketOf(t0, p))); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	s, err := Open(ctx, path, Options{Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	old, err := s.Get(ctx, "acme", "old", 1)
	if err != nil {
		t.Fatal(err)
	}
	if old.Ledger != nil || old.VerdictRow != 1 || old.Verdict != "fail" {
		t.Errorf("old row: ledger %+v, row %d, verdict %s; want no ledger, row 1, fail", old.Ledger, old.VerdictRow, old.Verdict)
	}
	var scanned []*Verification
	if err := s.Scan(ctx, "acme", Window{Since: t0, Until: t0.Add(time.Hour)}, func(v *Verification) error {
		c := *v
		scanned = append(scanned, &c)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(scanned) != 1 || scanned[0].Ledger != nil {
		t.Errorf("Scan of the old row: %+v; want one row without a ledger", scanned)
	}

	v := testVerification("acme", "new", 1)
	v.Kind, v.Verdict, v.Action, v.VerdictRow = "subtask", "unverified", "accept", 6
	v.Ledger = &Ledger{Claims: 4, Unverified: 1, LeftUnverified: true}
	if _, err := s.Insert(ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	wt, err := s.Tally(ctx, "acme", Window{Since: t0, Until: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if len(wt.Groups) != 1 {
		t.Fatalf("%d tally groups, want 1", len(wt.Groups))
	}
	got := wt.Groups[0].Tally
	if got.N != 2 || got.Fail != 1 || got.Pass != 0 || got.Unverified != 1 || got.Ledgers != 1 || got.Claims != 4 ||
		got.ClaimsDecided != 3 || got.ClaimsRefuted != 0 {
		t.Errorf("tally %+v: want 2 verifications, 1 fail and 1 unverified, 1 ledger of 4 claims, 3 decided", got)
	}
}

// TestMigrateSessionKeyOut opens a database at schema 0008 whose settings
// hold the dashboard's session key and another setting: migration 0009
// deletes the key and keeps the other.
func TestMigrateSessionKeyOut(t *testing.T) {
	ctx := t.Context()
	path, db := sqliteAtSchema(t, 8)
	for _, name := range []string{"dashboard.session_key", "other"} {
		if _, err := db.ExecContext(ctx, `INSERT INTO settings (name, value, created_at) VALUES (?, ?, ?)`, name, []byte("0123456789abcdef0123456789abcdef"), sqliteDialect.ts(t0)); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, path, Options{Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err = sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var names []string
	rows, err := db.QueryContext(ctx, `SELECT name FROM settings ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		rows.Scan(&n)
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(names) != 1 || names[0] != "other" {
		t.Errorf("settings after migration: %q, want only other", names)
	}
}

// sqliteAtSchema makes a SQLite database migrated up to version alone, as
// an older vouch left it, and returns its path and an open handle.
func sqliteAtSchema(t *testing.T, version int) (string, *sql.DB) {
	t.Helper()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := migrations(sqliteDialect.name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.version > version {
			break
		}
		if _, err := db.ExecContext(ctx, m.sql); err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO schema_migrations VALUES (?, ?, ?)`, m.version, m.name, sqliteDialect.ts(t0)); err != nil {
			t.Fatal(err)
		}
	}
	return path, db
}
