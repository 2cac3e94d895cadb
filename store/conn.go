package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// conn is what the queries shared by both engines need of a pool or a
// transaction. Queries are written with ? placeholders; the PostgreSQL
// adapter rewrites them to $1, $2, ...
type conn interface {
	exec(ctx context.Context, q string, args ...any) (int64, error)
	query(ctx context.Context, q string, args ...any) (rows, error)
	queryRow(ctx context.Context, q string, args ...any) row
	// execAll runs statements whose results are not read, in order, and
	// stops at the first error; PostgreSQL's are sent in one round trip.
	execAll(ctx context.Context, stmts []stmt) error
}

// stmt is a statement of execAll: what names it in an error.
type stmt struct {
	what string
	q    string
	args []any
}

// rows is a result set of either engine.
type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// row is a single-row result of either engine. Scan returns an error
// matching sql.ErrNoRows when there is no row (pgx.ErrNoRows does).
type row interface {
	Scan(dest ...any) error
}

// sqlQuerier is a *sql.DB or a *sql.Tx.
type sqlQuerier interface {
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

// sqlConn adapts database/sql (the SQLite engine). In the writer's
// transactions, tx and stmts are set: the statements prepared once on
// the writer's connection are used instead of parsing them again. On the
// read pool, cache is set: each query is prepared once and kept.
type sqlConn struct {
	q     sqlQuerier
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
	cache *stmtCache
	deferred
}

// deferred, in a write transaction that adds its tallies at its end
// (SQLite's and PostgreSQL's groups, PostgreSQL's own transactions),
// collects the inserted verifications to add.
type deferred struct {
	tally *[]*Verification
}

// deferTally leaves v's tallies to the end of the transaction, and
// reports whether it did: false in a transaction that does not defer
// them.
func (d deferred) deferTally(v *Verification) bool {
	if d.tally == nil {
		return false
	}
	*d.tally = append(*d.tally, v)
	return true
}

// querier returns what runs q: a prepared statement if there is one.
func (c sqlConn) querier(ctx context.Context, q string) (stmtQuerier, bool) {
	if c.tx == nil {
		if c.cache == nil {
			return nil, false
		}
		return c.cache.get(ctx, q)
	}
	st, ok := c.stmts[q]
	if !ok {
		return nil, false
	}
	return c.tx.StmtContext(ctx, st), true
}

// maxCachedStmts bounds a stmtCache: the store's queries are a fixed set
// and the filter combinations of its lists, far fewer than this.
const maxCachedStmts = 512

// stmtCache keeps the prepared statements of a pool by their SQL, so
// that a query is parsed once per connection rather than on every call
// (database/sql prepares a pool's statement on each connection as it is
// first used there). Past maxCachedStmts, queries run unprepared.
type stmtCache struct {
	db *sql.DB
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

func newStmtCache(db *sql.DB) *stmtCache {
	return &stmtCache{db: db, m: map[string]*sql.Stmt{}}
}

// get returns q prepared, or false when it cannot be prepared here (the
// caller then runs it unprepared, and reports any error in q itself).
func (c *stmtCache) get(ctx context.Context, q string) (stmtQuerier, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[q]; ok {
		return st, true
	}
	if c.m == nil || len(c.m) >= maxCachedStmts {
		return nil, false
	}
	st, err := c.db.PrepareContext(ctx, q)
	if err != nil {
		return nil, false
	}
	c.m[q] = st
	return st, true
}

// close closes the cached statements; later gets run unprepared.
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = nil
}

// stmtQuerier is a *sql.Stmt.
type stmtQuerier interface {
	ExecContext(ctx context.Context, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, args ...any) *sql.Row
}

func (c sqlConn) exec(ctx context.Context, q string, args ...any) (int64, error) {
	var (
		res sql.Result
		err error
	)
	if st, ok := c.querier(ctx, q); ok {
		res, err = st.ExecContext(ctx, args...)
	} else {
		res, err = c.q.ExecContext(ctx, q, args...)
	}
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// insert runs an INSERT and returns the rowid of its last row and how
// many it wrote.
func (c sqlConn) insert(ctx context.Context, q string, args ...any) (id, n int64, err error) {
	var res sql.Result
	if st, ok := c.querier(ctx, q); ok {
		res, err = st.ExecContext(ctx, args...)
	} else {
		res, err = c.q.ExecContext(ctx, q, args...)
	}
	if err != nil {
		return 0, 0, err
	}
	if n, err = res.RowsAffected(); err != nil || n == 0 {
		return 0, n, err
	}
	id, err = res.LastInsertId()
	return id, n, err
}

func (c sqlConn) execAll(ctx context.Context, stmts []stmt) error {
	for _, st := range stmts {
		if _, err := c.exec(ctx, st.q, st.args...); err != nil {
			return fmt.Errorf("%s: %w", st.what, err)
		}
	}
	return nil
}

func (c sqlConn) query(ctx context.Context, q string, args ...any) (rows, error) {
	var (
		r   *sql.Rows
		err error
	)
	if st, ok := c.querier(ctx, q); ok {
		r, err = st.QueryContext(ctx, args...)
	} else {
		r, err = c.q.QueryContext(ctx, q, args...)
	}
	if err != nil {
		return nil, err
	}
	return sqlRows{r}, nil
}

func (c sqlConn) queryRow(ctx context.Context, q string, args ...any) row {
	if st, ok := c.querier(ctx, q); ok {
		return st.QueryRowContext(ctx, args...)
	}
	return c.q.QueryRowContext(ctx, q, args...)
}

type sqlRows struct{ r *sql.Rows }

func (r sqlRows) Next() bool             { return r.r.Next() }
func (r sqlRows) Scan(dest ...any) error { return r.r.Scan(dest...) }
func (r sqlRows) Err() error             { return r.r.Err() }
func (r sqlRows) Close()                 { r.r.Close() }

// pgQuerier is a *pgxpool.Pool, a *pgxpool.Conn or a pgx.Tx.
type pgQuerier interface {
	Exec(ctx context.Context, q string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, q string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, q string, args ...any) pgx.Row
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// pgConn adapts pgx (the PostgreSQL engine).
type pgConn struct {
	q pgQuerier
	// planEach: each query is planned for its values (reads), rather
	// than prepared once per connection and planned as PostgreSQL sees
	// fit (writes; see pgEngine.reader).
	planEach bool
	// events, in a write transaction, counts the events it has inserted:
	// the next one's place (see pgEngine.insertEvent).
	events *int
	deferred
}

// args puts the query's mode before its arguments when it is planned for
// its values: pgx's exec mode, an unnamed statement, one round trip.
func (c pgConn) args(args []any) []any {
	if !c.planEach {
		return args
	}
	return append([]any{pgx.QueryExecModeExec}, args...)
}

// session returns the id of the database session (the backend's
// process id) c's transaction runs in; 0 outside a transaction.
func (c pgConn) session() uint32 {
	if t, ok := c.q.(pgx.Tx); ok {
		return t.Conn().PgConn().PID()
	}
	return 0
}

func (c pgConn) exec(ctx context.Context, q string, args ...any) (int64, error) {
	tag, err := c.q.Exec(ctx, rebind(q), c.args(args)...)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

func (c pgConn) execAll(ctx context.Context, stmts []stmt) error {
	if len(stmts) == 1 {
		_, err := c.exec(ctx, stmts[0].q, stmts[0].args...)
		if err != nil {
			return fmt.Errorf("%s: %w", stmts[0].what, err)
		}
		return nil
	}
	var b pgx.Batch
	for _, st := range stmts {
		b.Queue(rebind(st.q), st.args...)
	}
	br := c.q.SendBatch(ctx, &b)
	for _, st := range stmts {
		if _, err := br.Exec(); err != nil {
			br.Close()
			return fmt.Errorf("%s: %w", st.what, err)
		}
	}
	return br.Close()
}

func (c pgConn) query(ctx context.Context, q string, args ...any) (rows, error) {
	r, err := c.q.Query(ctx, rebind(q), c.args(args)...)
	if err != nil {
		return nil, err
	}
	return r, nil
}

func (c pgConn) queryRow(ctx context.Context, q string, args ...any) row {
	return c.q.QueryRow(ctx, rebind(q), c.args(args)...)
}

// rebound caches the PostgreSQL form of each query.
var rebound sync.Map

// rebind turns the ? placeholders of q into $1, $2, ... (no query of this
// package has a ? anywhere else).
func rebind(q string) string {
	if !strings.Contains(q, "?") {
		return q
	}
	if r, ok := rebound.Load(q); ok {
		return r.(string)
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(q[i])
	}
	r := b.String()
	rebound.Store(q, r)
	return r
}

// dialect holds what differs in the values the two engines bind.
type dialect struct {
	// name is the migrations directory: "sqlite" or "postgres".
	name string
	// ts gives the bound value of a timestamp column.
	ts func(time.Time) any
	// scanCreatedAt is how List names created_at in its time range:
	// SQLite's "+created_at" keeps its planner from reading the range by
	// the (tenant, created_at) index and sorting all of it by seq; it
	// walks (tenant, seq, created_at) newest first instead and stops at a
	// page.
	scanCreatedAt string
	// noIndex prefixes a column in a condition that must not choose the
	// index: SQLite's unary "+" (without statistics, its planner would
	// rather scan a looked-up table by a filter's index than look it up
	// by its key); nothing for PostgreSQL, whose planner has statistics.
	noIndex string
	// forUpdate locks the rows a SELECT reads until the transaction ends:
	// " FOR UPDATE" for PostgreSQL; nothing for SQLite, whose one writer
	// runs one write transaction at a time.
	forUpdate string
	// tallyShards is how many shards each tally row has (migration 0011):
	// a write transaction adds to one (see shard), so that concurrent
	// commits do not queue on one row. 1: no shard column.
	tallyShards int
	// countShards is how many shards a batch's counts have (migration
	// 0012): more than the tallies', whose every shard a metrics query
	// reads, where a batch's are read a few rows at a time.
	countShards int
	// sparseTallies: a tally upsert names only the sums it adds to
	// (PostgreSQL, whose driver prepares each such statement once per
	// connection); SQLite's writer runs one statement prepared at open
	// with every sum.
	sparseTallies bool
}

// sqliteTime is the layout of SQLite timestamps: UTC, microseconds, one
// width, so that text order is time order.
const sqliteTime = "2006-01-02T15:04:05.000000Z"

var (
	sqliteDialect = dialect{name: "sqlite", scanCreatedAt: "+created_at", noIndex: "+", tallyShards: 1, countShards: 1, ts: func(t time.Time) any {
		return t.UTC().Format(sqliteTime)
	}}
	postgresDialect = dialect{name: "postgres", scanCreatedAt: "created_at", forUpdate: " FOR UPDATE", tallyShards: 16, countShards: 64, sparseTallies: true, ts: func(t time.Time) any {
		return t.UTC().Truncate(time.Microsecond)
	}}
)

// nullTS is ts, with NULL for the zero time.
func (d dialect) nullTS(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return d.ts(t)
}

// utcTime scans a timestamp of either engine (SQLite text, PostgreSQL
// time.Time, or NULL for the zero time) into t, in UTC.
type utcTime struct{ t *time.Time }

// Scan implements sql.Scanner.
func (u utcTime) Scan(src any) error {
	switch x := src.(type) {
	case nil:
		*u.t = time.Time{}
		return nil
	case time.Time:
		*u.t = x.UTC()
		return nil
	case string:
		return u.parse(x)
	case []byte:
		return u.parse(string(x))
	}
	return fmt.Errorf("store: timestamp of type %T", src)
}

func (u utcTime) parse(s string) error {
	t, err := time.Parse(sqliteTime, s)
	if err != nil {
		if t, err = time.Parse(time.RFC3339Nano, s); err != nil {
			return fmt.Errorf("store: timestamp %q: %w", s, err)
		}
	}
	*u.t = t.UTC()
	return nil
}
