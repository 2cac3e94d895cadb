package store

import (
	"context"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// The PostgreSQL engine: a pgx pool; each write is a transaction of its
// own (PostgreSQL groups concurrent commits itself).
//
// Sequences hand out numbers when rows are inserted, not when they are
// committed, so two transactions can commit their events out of Seq
// order, and a reader could see Seq 11 before Seq 10 exists and skip 10
// when it asks for events after 11. To keep a tenant's events visible in
// Seq order, a transaction takes a per-tenant advisory lock just before
// it inserts events, near its end, and holds it to its commit: the events
// of one tenant are written one transaction at a time.
//
// Other rows are written by every transaction of a tenant: the tallies of
// the hour and the day (metric_tallies, metric_codes, metric_issues),
// each locked from its write to the commit. They are kept in shards
// (migration 0011): a transaction adds to one shard of each row, chosen
// at random, so that concurrent transactions seldom wait on one
// another's, and readers sum the shards. The tallies are written with the
// verification, before the events' lock, which is then held only for the
// events and the commit. (With one row each, written after the events as
// they were, a tenant's verifications ran one commit at a time from the
// lock on: about 590/s on 2 cores, against 1,100/s with no tallies at
// all.)
type pgEngine struct {
	pool *pgxpool.Pool
	// notes carries the notifications of events between processes.
	notes *notifier
}

// migrationLock is the advisory lock key around migrations, so that
// concurrent opens of one database migrate it once.
var migrationLock = lockKey("vouch.store.migrate")

// lockKey maps a name to an advisory lock key.
func lockKey(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return int64(h.Sum64())
}

// openPostgres opens and migrates a PostgreSQL store.
func openPostgres(ctx context.Context, dsn string, opt Options) (Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("store: postgres: %w", err)
	}
	if opt.MaxConns > 0 {
		cfg.MaxConns = int32(opt.MaxConns)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	// pgx prepares each query once per connection; after five runs
	// PostgreSQL may switch a prepared query to a generic plan, one that
	// cannot see that a time range covers an hour rather than a month,
	// and scans the log (GET /v1/metrics went from 85 ms to 2 s at 1M
	// rows). Every query here is cheap to plan; plan each for its values.
	if _, ok := cfg.ConnConfig.RuntimeParams["plan_cache_mode"]; !ok {
		cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
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
	log := opt.logger()
	log.Debug("store: opened postgres", "server", where, "max_conns", cfg.MaxConns)
	e.notes = newNotifier(pool, log)
	st := &sqlStore{eng: e, d: postgresDialect, now: opt.clock(), log: log}
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
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	return e.migrateQueue(ctx, c, opt)
}

// migrateQueue brings the job queue's tables (River's, by River's own
// migrator) up to date: one migration per transaction, as some of
// River's cannot share one, each under migrationLock.
func (e *pgEngine) migrateQueue(ctx context.Context, c *pgxpool.Conn, opt Options) error {
	m, err := rivermigrate.New(riverpgxv5.New(nil), &rivermigrate.Config{Logger: opt.logger()})
	if err != nil {
		return fmt.Errorf("store: migrate the job queue: %w", err)
	}
	for {
		tx, err := c.Begin(ctx)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
			tx.Rollback(context.WithoutCancel(ctx))
			return fmt.Errorf("store: migrate the job queue: lock: %w", err)
		}
		res, err := m.MigrateTx(ctx, tx, rivermigrate.DirectionUp, &rivermigrate.MigrateOpts{MaxSteps: 1})
		if err != nil {
			tx.Rollback(context.WithoutCancel(ctx))
			return fmt.Errorf("store: migrate the job queue: %w", err)
		}
		if err := tx.Commit(ctx); err != nil {
			return err
		}
		if len(res.Versions) == 0 {
			return nil
		}
	}
}

func (e *pgEngine) reader() conn { return pgConn{q: e.pool} }

func (e *pgEngine) write(ctx context.Context, fn func(ctx context.Context, tx conn) error) error {
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
	if err := fn(ctx, pgConn{q: tx}); err != nil {
		tx.Rollback(ctx)
		return err
	}
	return tx.Commit(ctx)
}

func (e *pgEngine) lockEvents(ctx context.Context, tx conn, tenants []string) error {
	for _, t := range tenants {
		if _, err := tx.exec(ctx, `SELECT pg_advisory_xact_lock(?)`, lockKey("vouch.store.events\x00"+t)); err != nil {
			return fmt.Errorf("lock the events of %s: %w", t, err)
		}
	}
	return nil
}

func (e *pgEngine) ping(ctx context.Context) error { return e.pool.Ping(ctx) }

func (e *pgEngine) close() error {
	e.notes.close() // ends the Listens, sends what is queued
	e.pool.Close()  // waits for the connections in use
	return nil
}
