package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// The SQLite engine: one database file in WAL mode, one connection that
// writes and a pool of read-only connections that read beside it.
//
// Every write goes through one goroutine. It takes the first write
// queued, lets the goroutines ready to run go first (see yielding),
// gathers every write queued meanwhile (up to maxGroup), runs
// them in one transaction, each in its own savepoint (so that a write
// that fails undoes only itself), commits once, then answers each
// caller. Under load, many writes share one commit and its fsync; alone,
// a write commits at once.
//
// A group of rerunnable writes (the verifications) runs without the
// savepoints: each cost three statements, and SQLite copies every page a
// write inside a savepoint touches into a journal first (together about
// a sixth of the writer's time). If one of them fails, the transaction
// is rolled back and the group run again, each in its savepoint.
const (
	// pageSize is the page size of a database the store creates (one
	// made before keeps its own): a verification's row, its report and
	// request compressed, is about 2.5 KB, of which a 4 KiB page holds
	// one and wastes the rest; an 8 KiB page holds three (16 KiB pages
	// stored no less, and wrote more per commit).
	pageSize   = 8192
	maxGroup   = 256
	queueDepth = 1024
	// readerMmap is how much of the file readers map instead of reading
	// page by page: metrics and calibration read a month of rows.
	readerMmap = 1 << 30
)

type sqliteEngine struct {
	path     string
	wdb, rdb *sql.DB
	log      *slog.Logger
	// writes is the writer: one committer, as SQLite has one writer.
	writes *groupWriter

	written writeCounts  // the write transactions committed, and their writes (WriteStats)
	reruns  atomic.Int64 // groups of rerunnable writes run again, each in its savepoint

	// stmts are prepared on the writer's connection, used by the writer
	// goroutine only.
	stmts map[string]*sql.Stmt
	// reads are the read pool's prepared statements.
	reads *stmtCache
	// addTallies adds a group's inserted verifications to their tallies,
	// once per group commit rather than once per verification.
	addTallies func(ctx context.Context, tx conn, vs []*Verification) error
}

// The savepoint around each write of a group.
const (
	sqlSavepoint  = `SAVEPOINT w`
	sqlRelease    = `RELEASE w`
	sqlRollbackTo = `ROLLBACK TO w`
)

// openSQLite opens (creating if need be) and migrates an SQLite store.
func openSQLite(ctx context.Context, cfg sqliteConfig, opt Options, hooks writerHooks) (*sqlStore, error) {
	log := opt.logger()
	fail := func(err error) (*sqlStore, error) {
		return nil, fmt.Errorf("store: sqlite %s: %w", cfg.path, err)
	}
	if fi, err := os.Stat(filepath.Dir(cfg.path)); err != nil {
		return fail(err)
	} else if !fi.IsDir() {
		return fail(fmt.Errorf("%s is not a directory", filepath.Dir(cfg.path)))
	}
	if fi, err := os.Stat(cfg.path); err == nil && fi.IsDir() {
		return fail(errors.New("is a directory"))
	} else if err == nil && fi.Mode().Perm()&0o077 != 0 {
		log.Warn("store: the database file can be read by other users of this host; it holds every tenant's requests and the dashboard's session key: chmod 600 it", "path", cfg.path, "mode", fi.Mode().Perm().String())
	}
	// The file holds every tenant's requests and reports and the session
	// key: it is created readable by its owner only, whatever the umask,
	// and SQLite gives its -wal and -shm files the same mode.
	if f, err := os.OpenFile(cfg.path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		if err := f.Close(); err != nil {
			return fail(err)
		}
	} else if !errors.Is(err, fs.ErrExist) {
		return fail(err)
	}
	busy := fmt.Sprintf("_pragma=busy_timeout(%d)", cfg.busyTimeout)
	wdb, err := sql.Open("sqlite", cfg.path+"?"+strings.Join([]string{busy,
		// A new database's page size (see pageSize). The WAL mode is
		// set below, after the page size (the driver would set it first).
		"_pragma=page_size(" + strconv.Itoa(pageSize) + ")",
		"_pragma=synchronous(" + cfg.synchronous + ")",
		"_pragma=foreign_keys(1)",
		// The savepoints' journals in memory, not in temporary files.
		"_pragma=temp_store(MEMORY)",
		"_txlock=immediate"}, "&"))
	if err != nil {
		return fail(err)
	}
	wdb.SetMaxOpenConns(1)
	wdb.SetMaxIdleConns(1)
	wdb.SetConnMaxLifetime(0)
	wdb.SetConnMaxIdleTime(0)
	e := &sqliteEngine{path: cfg.path, wdb: wdb, log: log}
	var mode string
	if err := wdb.QueryRowContext(ctx, `PRAGMA journal_mode=WAL`).Scan(&mode); err != nil {
		wdb.Close()
		return fail(err)
	}
	if !strings.EqualFold(mode, "wal") {
		log.Warn("store: sqlite is not in WAL mode; readers will wait for the writer", "path", cfg.path, "journal_mode", mode)
	}
	if err := e.migrate(ctx, opt); err != nil {
		wdb.Close()
		return fail(err)
	}
	// The statements every write runs, prepared once on the writer's
	// connection (while no transaction holds it).
	e.stmts = map[string]*sql.Stmt{}
	for _, q := range []string{sqlSavepoint, sqlRelease, sqlRollbackTo, insertVerificationSQL, sqliteInsertEventSQL, upserts[0].tally, upserts[0].code, upserts[0].issue} {
		st, err := wdb.PrepareContext(ctx, q)
		if err != nil {
			wdb.Close()
			return fail(err)
		}
		e.stmts[q] = st
	}
	readers := opt.MaxConns
	if readers <= 0 {
		readers = max(4, runtime.GOMAXPROCS(0))
	}
	rdb, err := sql.Open("sqlite", cfg.path+"?"+busy+"&_pragma=query_only(1)&_pragma=mmap_size("+strconv.Itoa(readerMmap)+")")
	if err != nil {
		wdb.Close()
		return fail(err)
	}
	rdb.SetMaxOpenConns(readers)
	rdb.SetMaxIdleConns(readers)
	if err := rdb.PingContext(ctx); err != nil {
		rdb.Close()
		wdb.Close()
		return fail(err)
	}
	e.rdb = rdb
	e.reads = newStmtCache(rdb)
	st := &sqlStore{eng: e, d: sqliteDialect, now: opt.clock(), log: log}
	e.addTallies = st.addTalliesOf
	e.writes = newGroupWriter(1, yielding, hooks, e.commit)
	if st.packs, err = newPacker(ctx, st, log); err != nil {
		st.Close()
		return fail(err)
	}
	log.Debug("store: opened sqlite", "path", cfg.path, "synchronous", cfg.synchronous, "readers", readers)
	return st, nil
}

func (e *sqliteEngine) migrate(ctx context.Context, opt Options) error {
	tx, err := e.wdb.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := migrate(ctx, sqlConn{q: tx}, sqliteDialect, opt.clock()(), opt.logger()); err != nil {
		return err
	}
	return tx.Commit()
}

// counts implements engine.
func (e *sqliteEngine) counts() *writeCounts { return &e.written }

func (e *sqliteEngine) reader() conn { return sqlConn{q: e.rdb, cache: e.reads} }

// sqliteInsertEventSQL inserts an event; SQLite gives it the next Seq.
//
// SQLite's inserts read their rowid back from the connection rather than
// by RETURNING: a RETURNING clause makes SQLite open a statement journal
// and copy every page the statement changes into it first (a tenth of
// the writer's time). An insert's own changes need no undoing of their
// own here: a write that fails is undone by its savepoint, or with its
// whole group (see commit).
const sqliteInsertEventSQL = `INSERT INTO events (` + eventColumns + `) VALUES (?, ?, ?, ?, ?, ?)`

// insertEvent implements engine: the Seq is the next rowid. One writer
// commits one transaction at a time, so Seqs become visible in order.
func (e *sqliteEngine) insertEvent(ctx context.Context, tx conn, _ int, args ...any) (int64, error) {
	seq, _, err := tx.(sqlConn).insert(ctx, sqliteInsertEventSQL, args...)
	return seq, err
}

// insertLog implements engine.
func (e *sqliteEngine) insertLog(ctx context.Context, tx conn, args ...any) (int64, error) {
	seq, n, err := tx.(sqlConn).insert(ctx, insertVerificationSQL, args...)
	if err == nil && n == 0 {
		return 0, sql.ErrNoRows
	}
	return seq, err
}

// eventHorizon implements engine: every committed event is final.
func (e *sqliteEngine) eventHorizon(context.Context) (int64, error) {
	return math.MaxInt64, nil
}

func (e *sqliteEngine) ping(ctx context.Context) error {
	var one int
	return e.rdb.QueryRowContext(ctx, `SELECT 1`).Scan(&one)
}

// write implements engine: it queues fn for the writer and waits for its
// transaction. One writer commits in Seq order, so writesEvents needs
// nothing more.
func (e *sqliteEngine) write(ctx context.Context, mode writeMode, fn func(ctx context.Context, tx conn) error) error {
	return e.writes.write(ctx, mode, nil, fn)
}

// insert implements engine: one is a write like any other (the writer
// prepares its statements once, and runs each in-process), but the
// writer is told it is one verification's insertion, for which its
// committer may linger (see yielding).
func (e *sqliteEngine) insert(ctx context.Context, in *insertion, one func(ctx context.Context, tx conn) error) error {
	return e.writes.write(ctx, eventsMode(in.evs)|rerunnable, in, one)
}

// commit runs a group of writes in one transaction and answers each.
func (e *sqliteEngine) commit(group []*writeReq) {
	ctx := context.Background()
	if e.commitRerunnable(ctx, group) {
		return
	}
	errs := make([]error, len(group))
	answer := func(all error) {
		for i, r := range group {
			if errs[i] == nil {
				errs[i] = all
			}
			r.done <- errs[i]
		}
	}
	tx, err := e.wdb.BeginTx(ctx, nil)
	if err != nil {
		e.log.Error("store: sqlite: begin", "err", err)
		answer(err)
		return
	}
	// The writes' verifications are added to the tallies together, at
	// the end: one upsert per hour and day touched instead of two per
	// verification. A write that fails takes its own back out.
	var tally []*Verification
	c := sqlConn{q: tx, tx: tx, stmts: e.stmts, deferred: deferred{&tally}}
	for i, r := range group {
		mark := len(tally)
		if _, err := c.exec(ctx, sqlSavepoint); err != nil {
			tx.Rollback()
			answer(fmt.Errorf("write transaction: %w", err))
			return
		}
		errs[i] = r.fn(ctx, c)
		if errs[i] != nil {
			clear(tally[mark:])
			tally = tally[:mark]
			if _, err := c.exec(ctx, sqlRollbackTo); err != nil {
				// SQLite rolled the whole transaction back (a full disk,
				// an I/O error): nothing of the group is written.
				tx.Rollback()
				e.log.Error("store: sqlite: write transaction aborted", "err", errs[i])
				answer(fmt.Errorf("write transaction aborted: %w", errs[i]))
				return
			}
		}
		if _, err := c.exec(ctx, sqlRelease); err != nil {
			tx.Rollback()
			answer(fmt.Errorf("write transaction: %w", err))
			return
		}
	}
	if len(tally) > 0 {
		if err := e.addTallies(ctx, sqlConn{q: tx, tx: tx, stmts: e.stmts}, tally); err != nil {
			tx.Rollback()
			e.log.Error("store: sqlite: tallies", "err", err, "writes", len(group))
			for i := range errs {
				errs[i] = nil // nothing was written: every write fails alike
			}
			answer(fmt.Errorf("write transaction: tallies: %w", err))
			return
		}
	}
	if err := tx.Commit(); err != nil {
		e.log.Error("store: sqlite: commit", "err", err, "writes", len(group))
		for i := range errs {
			errs[i] = nil // nothing was written: every write fails alike
		}
		answer(fmt.Errorf("commit: %w", err))
		return
	}
	n := 0
	for _, err := range errs {
		if err == nil {
			n++
		}
	}
	if n > 0 { // a transaction whose every write failed changed nothing
		e.written.committed(n)
	}
	answer(nil)
}

// commitRerunnable commits a group of rerunnable writes without their
// savepoints and answers each, and reports whether it did. It does not
// when a write is not rerunnable, nor when one fails: then it rolls back,
// and commit runs the group again, each write in its savepoint.
func (e *sqliteEngine) commitRerunnable(ctx context.Context, group []*writeReq) bool {
	if !allRerunnable(group) {
		return false
	}
	tx, err := e.wdb.BeginTx(ctx, nil)
	if err != nil {
		return false // commit begins again, and answers its error
	}
	var tally []*Verification
	c := sqlConn{q: tx, tx: tx, stmts: e.stmts, deferred: deferred{&tally}}
	for _, r := range group {
		if err := r.fn(ctx, c); err != nil {
			tx.Rollback()
			e.reruns.Add(1)
			return false
		}
	}
	answer := func(err error) {
		for _, r := range group {
			r.done <- err
		}
	}
	if len(tally) > 0 {
		if err := e.addTallies(ctx, sqlConn{q: tx, tx: tx, stmts: e.stmts}, tally); err != nil {
			tx.Rollback()
			e.log.Error("store: sqlite: tallies", "err", err, "writes", len(group))
			answer(fmt.Errorf("write transaction: tallies: %w", err))
			return true
		}
	}
	if err := tx.Commit(); err != nil {
		e.log.Error("store: sqlite: commit", "err", err, "writes", len(group))
		answer(fmt.Errorf("commit: %w", err))
		return true
	}
	e.written.committed(len(group))
	answer(nil)
	return true
}

// close stops taking writes, commits those queued, and closes the
// database.
func (e *sqliteEngine) close() error {
	e.writes.close()
	// Leave the query planner statistics for the next open.
	if _, err := e.wdb.Exec(`PRAGMA optimize`); err != nil {
		e.log.Warn("store: sqlite: optimize", "err", err)
	}
	for _, st := range e.stmts {
		st.Close()
	}
	e.reads.close()
	return errors.Join(e.rdb.Close(), e.wdb.Close())
}
