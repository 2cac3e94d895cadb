package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Options tune a store; the zero value is ready to use.
type Options struct {
	// Logger receives the store's few messages (a migration applied, a
	// failed write transaction); nil discards them.
	Logger *slog.Logger
	// MaxConns caps the connections: SQLite's read pool (default the
	// larger of 4 and GOMAXPROCS; writes have their one connection
	// besides) or PostgreSQL's pool (default pgxpool's: the larger of 4
	// and the number of CPUs), unless the DSN sets pool_max_conns.
	MaxConns int
	// Now is the clock of the times the store fills in (a zero CreatedAt,
	// a batch's FinishedAt); nil means time.Now.
	Now func() time.Time

	// hooks let tests watch PostgreSQL's committers.
	hooks writerHooks
}

func (o Options) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.New(slog.DiscardHandler)
}

func (o Options) clock() func() time.Time {
	if o.Now != nil {
		return o.Now
	}
	return time.Now
}

// Open opens the store a DSN names, creating its tables or bringing them
// up to date:
//
//   - postgres://... or postgresql://... is PostgreSQL (a pgx connection
//     string: host, database, sslmode, pool_max_conns, search_path and
//     so on). Concurrent opens of one database migrate it once.
//   - anything else is an SQLite file: sqlite:PATH, file:PATH or a plain
//     PATH such as ./vouch.db, created if missing (its directory must
//     exist). Two query parameters are understood:
//     synchronous=full (the default) or normal, and busy_timeout=MS
//     (default 5000).
//
// On SQLite, synchronous=full makes every acknowledged write survive a
// power loss or an OS crash: each commit waits for the write-ahead log
// to reach the disk (one fsync per commit, shared by every write of a
// group commit). With synchronous=normal the log is synced only at
// checkpoints: commits are faster and the database is never corrupted,
// but the last commits before a power loss or an OS crash (not a crash
// of vouch alone) may be lost, so a report answered 200 may be missing
// afterwards.
//
// On PostgreSQL, an event's Seq derives from the id of the transaction
// that writes it, and readers read only below the oldest transaction
// still running among those that write events, so that a reader that
// resumes after a Seq never skips an event committed late, while writers
// never wait for one another's events. An event becomes readable once
// the event writers older than its own have ended (Events waits up to
// two seconds for them).
//
// A PostgreSQL store, which several processes may share, is also a
// [Notifier]: the processes tell one another of new events through it.
func Open(ctx context.Context, dsn string, opt Options) (Store, error) {
	if IsPostgres(dsn) {
		return openPostgres(ctx, dsn, opt)
	}
	cfg, err := parseSQLiteDSN(dsn)
	if err != nil {
		return nil, err
	}
	s, err := openSQLite(ctx, cfg, opt, writerHooks{})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// IsPostgres reports whether a DSN names a PostgreSQL store
// (postgres://... or postgresql://...); any other is an SQLite file.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// sqliteConfig is a parsed SQLite DSN.
type sqliteConfig struct {
	path        string
	synchronous string // FULL or NORMAL
	busyTimeout int    // milliseconds
}

// parseSQLiteDSN reads sqlite:PATH, file:PATH or PATH, with the query
// parameters Open documents.
func parseSQLiteDSN(dsn string) (sqliteConfig, error) {
	cfg := sqliteConfig{synchronous: "FULL", busyTimeout: 5000}
	if strings.TrimSpace(dsn) == "" {
		return cfg, errors.New("store: empty DSN: want postgres://..., sqlite:PATH or a file path")
	}
	rest := dsn
	switch {
	case strings.HasPrefix(dsn, "sqlite:"):
		rest = strings.TrimPrefix(dsn, "sqlite:")
	case strings.HasPrefix(dsn, "file:"):
		rest = strings.TrimPrefix(dsn, "file:")
	default:
		if scheme, _, ok := strings.Cut(dsn, "://"); ok && !strings.ContainsAny(scheme, `/\.`) {
			return cfg, fmt.Errorf("store: DSN scheme %q is not supported: want postgres://..., sqlite:PATH or a file path", scheme)
		}
	}
	if strings.HasPrefix(rest, "//") {
		rest = rest[2:]
	}
	p, query, _ := strings.Cut(rest, "?")
	if p == "" {
		return cfg, fmt.Errorf("store: DSN %q names no file", dsn)
	}
	if strings.HasPrefix(p, ":memory:") || strings.Contains(query, "mode=memory") {
		return cfg, fmt.Errorf("store: DSN %q: in-memory SQLite is not supported (the writer and the readers need one file); use a file in a temporary directory", dsn)
	}
	cfg.path = p
	q, err := url.ParseQuery(query)
	if err != nil {
		return cfg, fmt.Errorf("store: DSN %q: %w", dsn, err)
	}
	for k, vs := range q {
		v := vs[len(vs)-1]
		switch k {
		case "synchronous":
			switch strings.ToLower(v) {
			case "full":
				cfg.synchronous = "FULL"
			case "normal":
				cfg.synchronous = "NORMAL"
			default:
				return cfg, fmt.Errorf("store: DSN %q: synchronous=%q: want full or normal", dsn, v)
			}
		case "busy_timeout":
			ms, err := strconv.Atoi(v)
			if err != nil || ms < 0 {
				return cfg, fmt.Errorf("store: DSN %q: busy_timeout=%q: want milliseconds", dsn, v)
			}
			cfg.busyTimeout = ms
		default:
			return cfg, fmt.Errorf("store: DSN %q: unknown parameter %q (known: synchronous, busy_timeout)", dsn, k)
		}
	}
	return cfg, nil
}

// DisplayDSN is how a store's DSN is shown in banners, logs and errors:
// for PostgreSQL only the host, port and database, read by pgx's own
// parser, so that no password, user or option (a URL's password, a
// key=value password, a passfile) is ever printed; a DSN pgx cannot read
// is shown as "postgres (unreadable DSN)". A SQLite DSN is its path.
func DisplayDSN(dsn string) string {
	if !IsPostgres(dsn) {
		return dsn
	}
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return "postgres (unreadable DSN)"
	}
	return fmt.Sprintf("postgres://%s/%s", net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))), cfg.Database)
}
