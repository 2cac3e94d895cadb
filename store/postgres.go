package store

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The PostgreSQL engine: a pgx pool. The verifications written at the
// same time share a transaction (see pgEngine.writes and commitGroup);
// every other write is a transaction of its own.
//
// Transactions commit in an order of their own, so an event's Seq cannot
// come from a sequence: a reader could see Seq 11 before the transaction
// that drew Seq 10 commits, and skip 10 when it resumes after 11. Nor
// may a tenant's writes commit one at a time, as they did behind a lock
// (about 590 verifications/s on 2 cores). Instead an event's Seq is the
// id of the transaction that writes it times 1<<16, plus its place among
// that transaction's events, and readers read only below the horizon:
// the oldest transaction still running among those that write events
// (each takes a shared advisory lock of the schema as its first
// statement, before it has an id, and the horizon reads the ids of the
// lock's holders), or the next id to be given when none runs. A writer
// that has not committed has an id at or above the horizon, and so has
// every later one; below it, every event is final. A reader that resumes
// after a Seq therefore never skips an event committed late, writers
// never wait for one another, and no other transaction (another
// application's, a batch being created, a prune) holds the events back.
// An event committed above the horizon waits, unread, for the older
// writers to end (see sqlStore.Events); they are short.
//
// Other rows are written by every transaction of a tenant: the tallies of
// the hour and the day (metric_tallies, metric_codes, metric_issues),
// each locked from its write to the commit. They are kept in shards
// (migration 0011): a transaction adds to one shard of each row, that of
// its session (see shard), so that concurrent transactions seldom wait
// on one another's, and readers sum the shards; and it adds to them
// last, so that it holds them for its commit alone.
type pgEngine struct {
	pool *pgxpool.Pool
	// eventWriters is the advisory lock key (below 1<<31) of the
	// transactions that write events to this schema, each holding it
	// shared (see writeTx and groupTx).
	eventWriters int64
	// schema is the schema the store's tables are in.
	schema string
	// notes carries the notifications of events between processes.
	notes *notifier
	// writes groups the rerunnable writes (verifications) into shared
	// transactions: its committers, half the pool's connections, each
	// commit what was queued while they were busy. A transaction and its
	// commit cost PostgreSQL and the round trips to it more than one
	// more row does.
	writes *groupWriter
	// addTallies adds a write transaction's inserted verifications to
	// their tallies at its end.
	addTallies func(ctx context.Context, tx conn, vs []*Verification) error
	// insertMany writes the insertions of a group together (see
	// sqlStore.insertMany), with the statements of many.
	insertMany func(ctx context.Context, tx conn, w manyWriter, ins []*insertion) (bool, error)
	many       pgMany
	log        *slog.Logger

	// lockTimeout is groupLockTimeout, but in tests.
	lockTimeout time.Duration

	commits  atomic.Int64 // group transactions committed
	reruns   atomic.Int64 // groups run again: write by write, or without a write that failed
	together atomic.Int64 // group transactions committed whose insertions were written together
	written  writeCounts  // for WriteStats
}

// eventWait bounds how long Events waits for events committed above the
// horizon: those of transactions that end soon. An event held back longer
// (behind a long transaction) comes with a later read.
const eventWait = 2 * time.Second

// migrationLock is the advisory lock key around migrations, so that
// concurrent opens of one database migrate it once.
var migrationLock = LockKey("vouch.store.migrate")

// LockKey maps a name to a PostgreSQL advisory lock key: the store's
// locks and those of the processes that share its database (the job
// queue's) are named, so that they do not collide.
func LockKey(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return int64(h.Sum64())
}

// dsnSets reports whether a PostgreSQL DSN, a URL or key=value pairs,
// sets the parameter name.
func dsnSets(dsn, name string) bool {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		return u.Query().Has(name)
	}
	for _, f := range strings.Fields(dsn) {
		if k, _, ok := strings.Cut(f, "="); ok && k == name {
			return true
		}
	}
	return false
}

// openPostgres opens and migrates a PostgreSQL store.
func openPostgres(ctx context.Context, dsn string, opt Options) (Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("store: postgres: %w", err)
	}
	if opt.MaxConns > 0 && !dsnSets(dsn, "pool_max_conns") {
		cfg.MaxConns = int32(opt.MaxConns)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	where := fmt.Sprintf("%s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: postgres %s: %w", where, err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: postgres %s: connect: %w", where, err)
	}
	e := &pgEngine{pool: pool}
	if err := e.migrate(ctx, opt); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: postgres %s: %w", where, err)
	}
	if e.many, err = newPGMany(ctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: postgres %s: %w", where, err)
	}
	var schema string
	if err := pool.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: postgres %s: %w", where, err)
	}
	e.schema = schema
	e.eventWriters = LockKey("vouch.store.events\x00"+schema) & (1<<31 - 1)
	// After a restore into another cluster, the next Seq may not be above
	// the stored ones (see migration 0015).
	if _, err := pool.Exec(ctx, `UPDATE event_seq_base
		SET base = (SELECT COALESCE(MAX(seq), 0) FROM events) + 1 - (pg_current_xact_id()::text::bigint << 16)
		WHERE base + (pg_current_xact_id()::text::bigint << 16) <= (SELECT COALESCE(MAX(seq), 0) FROM events)`); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: postgres %s: event seqs: %w", where, err)
	}
	log := opt.logger()
	log.Debug("store: opened postgres", "server", where, "max_conns", cfg.MaxConns)
	e.notes = newNotifier(pool, log)
	st := &sqlStore{eng: e, d: postgresDialect, now: opt.clock(), log: log, eventWait: eventWait}
	e.log, e.addTallies, e.insertMany, e.lockTimeout = log, st.addTalliesOf, st.insertMany, groupLockTimeout
	e.writes = newGroupWriter(max(1, int(cfg.MaxConns)/2), inlining, opt.hooks, e.commitGroup)
	if st.packs, err = newPacker(ctx, st, log); err != nil {
		st.Close()
		return nil, fmt.Errorf("store: postgres %s: %w", where, err)
	}
	return &pgStore{sqlStore: st, pg: e}, nil
}

// migrate runs the migrations in one transaction under migrationLock.
func (e *pgEngine) migrate(ctx context.Context, opt Options) error {
	c, err := e.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer c.Release()
	tx, err := c.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
		return fmt.Errorf("store: migrate: lock: %w", err)
	}
	if err := migrate(ctx, pgConn{q: tx}, postgresDialect, opt.clock()(), opt.logger()); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// reader plans each read for its values. pgx prepares a query once per
// connection, and after five runs PostgreSQL may switch a prepared query
// to a generic plan, one that cannot see that a time range covers an hour
// rather than a month, and scans the log (GET /v1/metrics went from 85 ms
// to 2 s at 1M rows). Writes keep their prepared statements, which
// PostgreSQL then runs without planning them again (planning every
// insert, as plan_cache_mode=force_custom_plan for the whole pool did,
// cost 16% of the throughput of POST /v1/verify).
func (e *pgEngine) reader() conn { return pgConn{q: e.pool, planEach: true} }

// counts implements engine.
func (e *pgEngine) counts() *writeCounts { return &e.written }

// write implements engine. A rerunnable write is queued for the
// committers, which run it in a transaction it may share; any other runs
// in a transaction of its own.
func (e *pgEngine) write(ctx context.Context, mode writeMode, fn func(ctx context.Context, tx conn) error) error {
	if mode&rerunnable != 0 {
		return e.writes.write(ctx, mode, nil, fn)
	}
	return e.writeTx(ctx, mode, fn)
}

// insert implements engine: the committers write the insertions of a
// group with a statement for all (see groupTx).
func (e *pgEngine) insert(ctx context.Context, in *insertion, one func(ctx context.Context, tx conn) error) error {
	return e.writes.write(ctx, eventsMode(in.evs)|rerunnable, in, one)
}

// Bounds of a group transaction's trouble.
const (
	// groupLockTimeout bounds each lock wait of a group transaction: a
	// write that waits on a row another transaction holds (a retried
	// request while its first is being written, a long import) fails
	// there rather than hold up the rest of its group; it is then left
	// out, and waits as long as it must in a transaction of its own.
	groupLockTimeout = 2 * time.Second
	// groupRounds bounds how many times a group runs again without a
	// write that failed in it; after that, each write runs alone.
	groupRounds = 3
)

// commitGroup runs a group of rerunnable writes in one transaction and
// answers each. A group of insertions is written with a statement for
// all (see insertMany). If that fails, or a write fails, nothing of the
// group is written: in the first case the group runs again write by
// write; in the second the rest run again as a group, and the failing
// write alone afterwards, in a transaction of its own. A write whose
// caller gave up before its transaction began is answered with its
// caller's error, and not run.
func (e *pgEngine) commitGroup(group []*writeReq) {
	if len(group) == 1 { // a lone write, most often one that commits itself
		r := group[0]
		r.done <- e.writeTx(r.ctx, r.mode, r.fn)
		return
	}
	ctx, cancel := groupContext(group)
	defer cancel()
	var alone []*writeReq // to run each in a transaction of its own
	defer func() {
		for _, r := range alone {
			r.done <- e.writeTx(r.ctx, r.mode, r.fn)
		}
	}()
	// waited is set once the group's statement for all failed on a lock
	// wait: its writes are then written one by one for the rest of the
	// group's rounds, as each round of both would wait the timeout again.
	waited := false
	// Insertions run in the order of their keys, whether in a statement
	// for all (see insertMany) or one by one, twins in the order they
	// came: of two groups writing the same keys, one waits for the other,
	// never each for the other.
	all := allInsertions(group)
	if all {
		slices.SortStableFunc(group, func(a, b *writeReq) int { return compareKeys(a.ins, b.ins) })
	}
	many := e.insertMany != nil && all
	for round := 0; ; round++ {
		group = dropGivenUp(group)
		switch len(group) {
		case 0:
			return
		case 1:
			alone = append(alone, group[0])
			return
		}
		failed, err := e.groupTx(ctx, group, many)
		switch {
		case failed == failedMany:
			e.reruns.Add(1)
			// Not a write's fault yet: the group runs write by write.
			many, round, waited = false, round-1, waited || lockWait(err)
		case failed < 0:
			if err != nil {
				e.log.Error("store: postgres: group write", "err", err, "writes", len(group))
			}
			for _, r := range group {
				r.done <- err
			}
			return
		case failed < len(group) && round < groupRounds:
			e.reruns.Add(1)
			alone = append(alone, group[failed])
			group = append(group[:failed:failed], group[failed+1:]...)
			many = e.insertMany != nil && !waited && allInsertions(group)
		default: // rounds spent, or the tallies failed: no write to blame
			e.reruns.Add(1)
			alone = append(alone, group...)
			return
		}
	}
}

// dropGivenUp answers the writes of group whose callers gave up, which
// have not run, and returns the others.
func dropGivenUp(group []*writeReq) []*writeReq {
	live := group[:0:0]
	for _, r := range group {
		if err := r.ctx.Err(); err != nil {
			r.done <- err
			continue
		}
		live = append(live, r)
	}
	return live
}

// groupContext returns the context of what a group's commit waits for
// before it begins (a connection): it ends when every caller's has. Once
// begun, a commit runs to its end, whatever its callers do.
func groupContext(group []*writeReq) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	var left atomic.Int64
	left.Store(int64(len(group)))
	stops := make([]func() bool, 0, len(group))
	for _, r := range group {
		stops = append(stops, context.AfterFunc(r.ctx, func() {
			if left.Add(-1) == 0 {
				cancel()
			}
		}))
	}
	return ctx, func() {
		for _, stop := range stops {
			stop()
		}
		cancel()
	}
}

// failedMany is groupTx's failed when the statement for all the
// group's insertions failed (its error with it).
const failedMany = -2

// lockWait reports whether err is PostgreSQL's end of a lock wait: the
// lock timeout, or a deadlock.
func lockWait(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "55P03" || pe.Code == "40P01")
}

// groupTx runs a group of writes in one transaction; with many, every
// write is an insertion, and they are written together (see
// insertMany). It returns the index of the write that failed, the
// transaction rolled back, failedMany and the error when the insertions
// failed together, or len(group) when the tallies failed; otherwise -1
// and the transaction's outcome, the same for every write.
func (e *pgEngine) groupTx(ctx context.Context, group []*writeReq, many bool) (failed int, err error) {
	var mode writeMode
	for _, r := range group {
		mode |= r.mode
	}
	c, err := e.pool.Acquire(ctx)
	if err != nil {
		return -1, err
	}
	defer c.Release()
	// Once begun, the transaction runs to its end (see writeTx).
	ctx = context.WithoutCancel(ctx)
	tx, err := c.Begin(ctx)
	if err != nil {
		return -1, err
	}
	// The event writers' lock first (see writeTx), then the bound of the
	// lock waits, in one round trip.
	start, args := `SELECT set_config('lock_timeout', $1, true)`, []any{strconv.FormatInt(e.lockTimeout.Milliseconds(), 10)}
	if mode&writesEvents != 0 {
		start, args = `SELECT pg_advisory_xact_lock_shared($2), set_config('lock_timeout', $1, true)`, append(args, e.eventWriters)
	}
	if _, err := tx.Exec(ctx, start, args...); err != nil {
		tx.Rollback(ctx)
		return -1, fmt.Errorf("begin a group: %w", err)
	}
	var tally []*Verification
	pc := pgConn{q: tx, events: new(int), deferred: deferred{&tally}}
	written := false // by insertMany
	if many {
		ins := make([]*insertion, len(group))
		for i, r := range group {
			ins[i] = r.ins
		}
		if written, err = e.insertMany(ctx, pc, e, ins); err != nil {
			tx.Rollback(ctx)
			level := slog.LevelWarn
			if lockWait(err) { // a retried request while its first is written
				level = slog.LevelDebug
			}
			e.log.Log(ctx, level, "store: postgres: a group's insertions together", "err", err, "writes", len(group))
			return failedMany, err
		}
	}
	for i := 0; i < len(group) && !written; i++ {
		if err := group[i].fn(ctx, pc); err != nil {
			tx.Rollback(ctx)
			return i, nil
		}
	}
	if len(tally) > 0 {
		if err := e.addTallies(ctx, pgConn{q: tx}, tally); err != nil {
			tx.Rollback(ctx)
			e.log.Warn("store: postgres: a group's tallies", "err", err, "writes", len(group))
			return len(group), nil
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return -1, err
	}
	e.commits.Add(1)
	e.written.committed(len(group))
	if written {
		e.together.Add(1)
	}
	return -1, nil
}

// writeTx runs fn in a transaction of its own. A transaction that writes
// events takes the event writers' shared lock before anything else,
// while it has no id yet, so that eventHorizon, which reads the ids of
// the lock's holders, never passes it.
func (e *pgEngine) writeTx(ctx context.Context, mode writeMode, fn func(ctx context.Context, tx conn) error) error {
	events := mode&writesEvents != 0
	if err := ctx.Err(); err != nil {
		return err
	}
	c, err := e.pool.Acquire(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	defer c.Release()
	// Once begun, the transaction runs to its end: a caller that gives up
	// does not leave it unknown whether the write was committed.
	ctx = context.WithoutCancel(ctx)
	tx, err := c.Begin(ctx)
	if err != nil {
		return err
	}
	if events {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock_shared($1)`, e.eventWriters); err != nil {
			tx.Rollback(ctx)
			return fmt.Errorf("announce an event writer: %w", err)
		}
	}
	// The tallies are added last: their rows are the ones concurrent
	// transactions share, and each holds its lock until its commit.
	var tally []*Verification
	if err := fn(ctx, pgConn{q: tx, events: new(int), deferred: deferred{&tally}}); err != nil {
		tx.Rollback(ctx)
		return err
	}
	if len(tally) > 0 {
		if err := e.addTallies(ctx, pgConn{q: tx}, tally); err != nil {
			tx.Rollback(ctx)
			return fmt.Errorf("tallies: %w", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	e.written.committed(1)
	return nil
}

// pgInsertEventSQL inserts an event with its Seq: the store's base (see
// migration 0015), plus the transaction's id times 1<<16, plus the
// event's place (the first parameter).
const pgInsertEventSQL = `INSERT INTO events (seq, ` + eventColumns + `)
	VALUES (` + pgEventSeq + ` + ?, ?, ?, ?, ?, ?, ?) RETURNING seq`

// pgEventSeq is the Seq of the transaction's event at place 0.
const pgEventSeq = `(SELECT base FROM event_seq_base) + (pg_current_xact_id()::text::bigint << 16)`

// pgInsertLogSQL inserts a verification's row and returns its Seq.
const pgInsertLogSQL = insertVerificationSQL + ` RETURNING seq`

// insertLog implements engine.
func (e *pgEngine) insertLog(ctx context.Context, tx conn, args ...any) (int64, error) {
	var seq int64
	err := tx.queryRow(ctx, pgInsertLogSQL, args...).Scan(&seq)
	return seq, err
}

// insertEvent implements engine.
func (e *pgEngine) insertEvent(ctx context.Context, tx conn, place int, args ...any) (int64, error) {
	// In a write transaction the place counts every event the
	// transaction inserted, whatever write of a group inserts it.
	if c, ok := tx.(pgConn); ok && c.events != nil {
		place = *c.events
		*c.events++
	}
	if place > maxTxEvents {
		return 0, fmt.Errorf("more than %d events in one transaction", maxTxEvents)
	}
	var seq int64
	err := tx.queryRow(ctx, pgInsertEventSQL, append([]any{place}, args...)...).Scan(&seq)
	return seq, err
}

// pgHorizonSQL is eventHorizon's query. Its snapshot is taken before
// pg_locks is read, so that a writer missing from the locks gets its id
// after the snapshot's xmax (the next id to be given); the ids of the
// event writers' lock holders (each holds a lock on its own id) are 32
// bits, put back in the 64-bit count by xmax's epoch.
const pgHorizonSQL = `WITH s AS (SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS xmax),
	w AS (SELECT x.transactionid::text::bigint AS x32 FROM pg_locks l
		JOIN pg_locks x ON x.pid = l.pid AND x.locktype = 'transactionid' AND x.granted
		WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 0 AND l.objid = $1::bigint::oid AND l.objsubid = 1
		AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))
	SELECT (LEAST(s.xmax, COALESCE((SELECT MIN(((s.xmax >> 32) << 32) + w.x32
		- CASE WHEN w.x32 >= (s.xmax & 4294967295) THEN 4294967296 ELSE 0 END) FROM w), s.xmax)) << 16)
		+ (SELECT base FROM event_seq_base) FROM s`

// eventHorizon implements engine: the oldest event writer still running,
// or the next transaction id when none is, in Seqs. Transactions that
// write no events (another application's, a batch being created, a
// prune) do not hold it back.
func (e *pgEngine) eventHorizon(ctx context.Context) (int64, error) {
	var h int64
	err := e.pool.QueryRow(ctx, pgHorizonSQL, e.eventWriters).Scan(&h)
	return h, err
}

func (e *pgEngine) ping(ctx context.Context) error { return e.pool.Ping(ctx) }

func (e *pgEngine) close() error {
	if e.writes != nil {
		e.writes.close() // commits the writes queued
	}
	e.notes.close() // ends the Listens, sends what is queued
	e.pool.Close()  // waits for the connections in use
	return nil
}
