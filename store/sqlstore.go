package store

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vouchgate/vouch/internal/wait"
)

// engine is what differs between SQLite and PostgreSQL beneath the
// queries both share.
type engine interface {
	// reader returns the connection reads go through.
	reader() conn
	// write runs fn in a transaction and returns once that transaction
	// committed (nil) or failed. A write whose ctx is done before its
	// transaction begins is not run and returns ctx.Err(); once begun, it
	// is not interrupted (the wait for a PostgreSQL connection before it
	// ends with the caller's ctx). fn may share its transaction with other
	// writes (group commits): an error from fn undoes fn's own writes
	// only. mode says what fn does (see writeMode).
	write(ctx context.Context, mode writeMode, fn func(ctx context.Context, tx conn) error) error
	// insert runs an Insert's write, one (rerunnable): as write does, or,
	// on PostgreSQL, together with the other insertions of its group
	// transaction in a statement for all (see insertMany).
	insert(ctx context.Context, in *insertion, one func(ctx context.Context, tx conn) error) error
	// insertEvent writes one event in a write transaction and returns
	// its Seq; args are its columns in the order of eventColumns. place
	// is its index among the events of its write; PostgreSQL numbers the
	// events of a write transaction itself, across the writes that share
	// it (at most maxTxEvents), and uses place only in a transaction not
	// begun by write (tests); SQLite ignores it.
	insertEvent(ctx context.Context, tx conn, place int, args ...any) (int64, error)
	// insertLog writes a verification's row in a write transaction
	// (args in the order of insertVerificationSQL) and returns its Seq,
	// or an error matching sql.ErrNoRows when a unique constraint
	// matched a stored row and nothing was written.
	insertLog(ctx context.Context, tx conn, args ...any) (int64, error)
	// eventHorizon returns the Seq below which the events are final: no
	// transaction still running or yet to begin can commit an event with
	// a smaller Seq (those that write events are written with writesEvents).
	// Events reads below it, so that a reader that resumes after a Seq
	// never skips an event committed late.
	eventHorizon(ctx context.Context) (int64, error)
	// counts returns what the engine's write transactions committed.
	counts() *writeCounts
	// ping reports whether the database answers.
	ping(ctx context.Context) error
	// close drains the writes under way and releases the database.
	close() error
}

// writeMode says what a write's fn does, for its engine.
type writeMode uint8

const (
	// writesEvents marks a transaction that may insert events: on
	// PostgreSQL it announces itself first, before it has an id, so that
	// eventHorizon stays below the events it will write.
	writesEvents writeMode = 1 << iota
	// rerunnable marks an fn that may run more than once, each run in a
	// transaction that has undone the earlier runs: it touches nothing
	// outside its transaction and sets its results anew on each run.
	// SQLite's writer commits a group of such writes without a savepoint
	// each, and runs the group again, each in its savepoint, if one of
	// them fails. PostgreSQL commits such writes in shared transactions,
	// and runs again those of a group that failed.
	rerunnable
)

// sqlStore is the Store of both engines: the queries are shared, the
// engine runs them.
type sqlStore struct {
	eng    engine
	d      dialect
	now    func() time.Time
	log    *slog.Logger
	closed atomic.Bool
	// packs compresses reports and requests (see pack.go).
	packs *packer
	// eventWait bounds how long Events waits for events committed above
	// the event horizon (see Events); 0 for SQLite, which has none.
	eventWait time.Duration

	closeOnce sync.Once
	closeErr  error
}

var (
	_ Store        = (*sqlStore)(nil)
	_ WriteCounter = (*sqlStore)(nil)
)

// Defaults and bounds of the limits the methods take.
const (
	defaultListLimit  = 50
	maxListLimit      = 1000
	defaultEventLimit = 100
	defaultItemLimit  = 100
	defaultPruneLimit = 1000
	pruneEventsChunk  = 5000
	batchInsertRows   = 500
	batchResultsChunk = 500
)

// verificationCols are the columns of a Verification but its Request, in
// the order scanVerification reads them.
const verificationCols = `seq, tenant, id, attempt, idempotency_key, request_hash, request_digest, interaction_id,
	verification_type, target_id, task_id, goal, kind, verdict, action, score, confidence,
	needs_review, criticality, executor_model, judge_models, cost_usd, duration_ms, result,
	request_bytes, created_at, verdict_row, dims, must_undecided, injection, codes, task_cost_usd,
	judge_calls, cache_hits, cache_misses, self_confidence, complexity, issue, ` + ledgerCols

// listCols are verificationCols as a list reads them: with nothing for
// the request hash, which only a replay of a request compares; and
// listBriefCols the same with NULL for the result, a list without its
// reports.
var (
	listCols      = strings.Replace(verificationCols, " request_hash, request_digest,", " '', NULL,", 1)
	listBriefCols = strings.Replace(listCols, " result,", " NULL,", 1)
)

// insertVerificationSQL inserts a verification's row, unless a unique
// key matches a stored row.
const insertVerificationSQL = `INSERT INTO verification_logs (` + insertedCols + `)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
	?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT DO NOTHING`

// insertedCols are the columns a verification's row is inserted with, in
// the order of verificationArgs.
const insertedCols = `tenant, id, attempt,
	idempotency_key, request_hash, request_digest, interaction_id, verification_type, target_id, task_id, goal,
	kind, verdict, action, score, confidence, needs_review, criticality, executor_model,
	judge_models, cost_usd, duration_ms, result, request, request_bytes, created_at,
	verdict_row, dims, must_undecided, injection, codes, task_cost_usd, judge_calls, cache_hits,
	cache_misses, self_confidence, complexity, issue, ` + ledgerCols

// eventColumns are the columns of an event row but its Seq, which each
// engine assigns in its own way (see insertEvent).
const eventColumns = `tenant, type, data, created_at, report_at, report_seq`

// maxTxEvents bounds the events one transaction writes: a PostgreSQL
// event's Seq is its transaction's id times 1<<16 plus its place (see
// pgEngine).
const maxTxEvents = 1<<16 - 1

func (s *sqlStore) check() error {
	if s.closed.Load() {
		return ErrClosed
	}
	return nil
}

// fail wraps err with the operation; a database error of a store that
// was closed meanwhile becomes ErrClosed.
func (s *sqlStore) fail(op string, err error) error {
	if s.closed.Load() && !errors.Is(err, ErrClosed) && !errors.Is(err, context.Canceled) &&
		!errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, ErrNotFound) {
		err = ErrClosed
	}
	return fmt.Errorf("%s: %w", op, err)
}

// stamp returns t in UTC at the precision stored, or now when t is zero.
func (s *sqlStore) stamp(t time.Time) time.Time {
	if t.IsZero() {
		t = s.now()
	}
	return t.UTC().Truncate(time.Microsecond)
}

// pending is a verification ready to be written: a copy of the
// caller's with its defaults filled in, and its report and request as the
// row holds them (compressed: see pack.go),
// made before the write is queued.
type pending struct {
	*Verification
	result, request []byte
}

// prepareVerification checks v and returns the row to write.
func (s *sqlStore) prepareVerification(v *Verification) (*pending, error) {
	if v == nil {
		return nil, errors.New("nil verification")
	}
	if !ValidTenant(v.Tenant) {
		return nil, fmt.Errorf("invalid tenant %q", v.Tenant)
	}
	if v.ID == "" {
		return nil, errors.New("empty id")
	}
	if v.Attempt < 1 {
		return nil, fmt.Errorf("attempt %d: attempts count from 1", v.Attempt)
	}
	if len(v.Result) == 0 {
		return nil, errors.New("empty result")
	}
	nv := *v
	nv.Seq = 0
	if nv.IdempotencyKey == "" {
		nv.IdempotencyKey = fmt.Sprintf("%s/%d", v.ID, v.Attempt)
	}
	nv.CreatedAt = s.stamp(v.CreatedAt)
	if l := v.Ledger; l != nil {
		if l.Claims < 0 || l.Unverified < 0 || l.Refuted < 0 || l.Unverified+l.Refuted > l.Claims {
			return nil, fmt.Errorf("ledger of %d claims with %d unverified and %d refuted", l.Claims, l.Unverified, l.Refuted)
		}
		lc := *l
		nv.Ledger = &lc
	}
	if len(nv.Request) == 0 {
		nv.Request = nil
	}
	if nv.Attempt == 1 && nv.Issue == "" {
		nv.Issue = IssueOf(nv.Codes)
	}
	if c := nv.Complexity; c != nil {
		if *c < 0 {
			return nil, fmt.Errorf("complexity %d is negative", *c)
		}
		cc := *c
		nv.Complexity = &cc
	}
	return &pending{Verification: &nv, result: s.packs.pack(blobReport, nv.Result), request: s.packs.pack(blobRequest, nv.Request)}, nil
}

func (s *sqlStore) verificationArgs(p *pending) ([]any, error) {
	v := p.Verification
	judges := v.JudgeModels
	if judges == nil {
		judges = []string{}
	}
	jm, err := json.Marshal(judges)
	if err != nil {
		return nil, err
	}
	// A report without a ledger keeps claims NULL and the other ledger
	// columns at their defaults.
	var (
		claims any
		l      Ledger
	)
	if v.Ledger != nil {
		l = *v.Ledger
		claims = l.Claims
	}
	hash, digest := splitHash(v.RequestHash)
	return []any{v.Tenant, v.ID, v.Attempt, v.IdempotencyKey, hash, digest, v.InteractionID,
		v.VerificationType, v.TargetID, v.TaskID, v.Goal, v.Kind, v.Verdict, v.Action, v.Score,
		v.Confidence, v.NeedsReview, v.Criticality, v.ExecutorModel, string(jm), v.CostUSD,
		v.DurationMs, p.result, p.request, v.RequestBytes, s.d.ts(v.CreatedAt),
		v.VerdictRow, formatDims(v.Dims), v.MustUndecided, v.Injection, strings.Join(v.Codes, " "),
		v.TaskCostUSD, v.JudgeCalls, v.CacheHits, v.CacheMisses, v.SelfConfidence, v.Complexity,
		v.Issue, claims, l.Unverified, l.Refuted, l.LeftUnverified}, nil
}

// ledgerCols are the columns of a Verification's Ledger, in the order
// verificationArgs writes them and ledgerScan reads them.
const ledgerCols = `claims, claims_unverified, claims_refuted, left_unverified`

// ledgerScan reads the ledgerCols into v's Ledger: nil when claims is
// NULL (a row written before the ledger was kept).
type ledgerScan struct {
	claims              sql.NullInt64
	unverified, refuted int
	leftUnverified      bool
}

// appendDest appends the scan destinations of the ledgerCols to dest.
func (l *ledgerScan) appendDest(dest []any) []any {
	return append(dest, &l.claims, &l.unverified, &l.refuted, &l.leftUnverified)
}

// ledger returns the Ledger read, nil when claims was NULL.
func (l *ledgerScan) ledger() *Ledger {
	if !l.claims.Valid {
		return nil
	}
	return &Ledger{Claims: int(l.claims.Int64), Unverified: l.unverified, Refuted: l.refuted, LeftUnverified: l.leftUnverified}
}

// prepareEvents checks events and returns the rows to write: copies with
// their tenant (tenant when empty, if tenant is given) and time filled in.
//
// result is the Result of the verification written with the events, nil
// for none: an event's ReportAt must locate it in its Data, and the copy
// returned holds Data without it. The copy's Data is then compressed (see
// pack.go), as the store keeps it; readEvents gives it back as it was.
func (s *sqlStore) prepareEvents(events []Event, tenant string, result []byte) ([]Event, error) {
	out := make([]Event, len(events))
	for i, e := range events {
		if e.ReportAt != 0 {
			at := e.ReportAt
			if result == nil {
				return nil, fmt.Errorf("event %d: a report offset, but no verification is written with it", i)
			}
			if at < 0 || at+len(result) > len(e.Data) || !bytes.Equal(e.Data[at:at+len(result)], result) {
				return nil, fmt.Errorf("event %d: the verification's report is not at offset %d of its data", i, at)
			}
			data := make([]byte, 0, len(e.Data)-len(result))
			e.Data = append(append(data, e.Data[:at]...), e.Data[at+len(result):]...)
		}
		if e.Tenant == "" {
			e.Tenant = tenant
		}
		if !ValidTenant(e.Tenant) {
			return nil, fmt.Errorf("event %d: invalid tenant %q", i, e.Tenant)
		}
		if tenant != "" && e.Tenant != tenant {
			return nil, fmt.Errorf("event %d: tenant %q, not the verification's %q", i, e.Tenant, tenant)
		}
		e.Seq = 0
		e.CreatedAt = s.stamp(e.CreatedAt)
		e.Data = s.packs.pack(blobEvent, e.Data)
		out[i] = e
	}
	return out, nil
}

// applyEvents writes back what the store assigned to the caller's events.
func applyEvents(dst, written []Event, seqs []int64) {
	for i := range dst {
		dst[i].Seq = seqs[i]
		dst[i].Tenant = written[i].Tenant
		dst[i].CreatedAt = written[i].CreatedAt
	}
}

// insertVerification writes v and adds it to its tallies (see tally),
// or finds the stored verification it duplicates.
func (s *sqlStore) insertVerification(ctx context.Context, tx conn, p *pending) (seq int64, dup *Verification, err error) {
	v := p.Verification
	seq, dup, err = s.insertRow(ctx, tx, p)
	if err != nil || dup != nil {
		return seq, dup, err
	}
	return seq, nil, s.tally(ctx, tx, v)
}

// tally adds v, just inserted, to its tallies: at the end of the
// transaction when it defers them (see deferred), or at once.
func (s *sqlStore) tally(ctx context.Context, tx conn, v *Verification) error {
	if d, ok := tx.(interface{ deferTally(*Verification) bool }); ok && d.deferTally(v) {
		return nil
	}
	return s.addTallies(ctx, tx, v.Tenant, v)
}

// rowArgs returns the columns of p's row (see verificationArgs), its
// issue first filled in from its task's first attempt when it is a later
// attempt without one.
func (s *sqlStore) rowArgs(ctx context.Context, tx conn, p *pending) ([]any, error) {
	if v := p.Verification; v.Attempt > 1 && v.Issue == "" {
		var err error
		if v.Issue, err = s.firstIssue(ctx, tx, v.Tenant, v.ID); err != nil {
			return nil, fmt.Errorf("the issue of attempt 1: %w", err)
		}
	}
	return s.verificationArgs(p)
}

// insertRow writes v's row, or finds the stored verification it
// duplicates.
func (s *sqlStore) insertRow(ctx context.Context, tx conn, p *pending) (seq int64, dup *Verification, err error) {
	v := p.Verification
	args, err := s.rowArgs(ctx, tx, p)
	if err != nil {
		return 0, nil, err
	}
	seq, err = s.eng.insertLog(ctx, tx, args...)
	if err == nil {
		return seq, nil, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, nil, err
	}
	// Nothing was inserted: a unique constraint matched a stored row.
	dup, err = s.duplicated(ctx, tx, v)
	return 0, dup, err
}

// duplicated returns the stored verification whose unique key matched
// v's when v's row was not inserted.
func (s *sqlStore) duplicated(ctx context.Context, tx conn, v *Verification) (*Verification, error) {
	dup, err := s.getVerification(ctx, tx, `tenant = ? AND idempotency_key = ?`, v.Tenant, v.IdempotencyKey)
	if errors.Is(err, ErrNotFound) {
		dup, err = s.getVerification(ctx, tx, `tenant = ? AND id = ? AND attempt = ?`, v.Tenant, v.ID, v.Attempt)
	}
	if errors.Is(err, ErrNotFound) {
		return nil, errors.New("insert conflicted, but no stored verification matches")
	}
	return dup, err
}

// firstIssue returns the issue of a task's first attempt, as the log
// holds it, or "" when the log does not hold it. A first attempt written
// before the log kept issues has its issue read off its codes.
func (s *sqlStore) firstIssue(ctx context.Context, tx conn, tenant, id string) (string, error) {
	var issue, codes string
	err := tx.queryRow(ctx, `SELECT issue, codes FROM verification_logs WHERE tenant = ? AND id = ? AND attempt = 1`,
		tenant, id).Scan(&issue, &codes)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", nil
	case err != nil:
		return "", err
	case issue != "":
		return issue, nil
	}
	return IssueOf(strings.Fields(codes)), nil
}

// eventsMode returns the write mode of a transaction that inserts
// events: writesEvents when there are any.
func eventsMode(events []Event) writeMode {
	if len(events) > 0 {
		return writesEvents
	}
	return 0
}

// insertEvents writes events (prepared), once per write transaction begun
// with writesEvents, and returns their Seqs; reportSeq is the row of the
// verification written with them (0 for none), whose report those with a
// ReportAt refer to.
func (s *sqlStore) insertEvents(ctx context.Context, tx conn, events []Event, reportSeq int64) ([]int64, error) {
	if len(events) == 0 {
		return nil, nil
	}
	seqs := make([]int64, len(events))
	for i, e := range events {
		seq, err := s.eng.insertEvent(ctx, tx, i, s.eventArgs(e, reportSeq)...)
		if err != nil {
			return nil, fmt.Errorf("event %d: %w", i, err)
		}
		seqs[i] = seq
	}
	return seqs, nil
}

// eventArgs returns the columns of event e (prepared) in the order of
// eventColumns; reportSeq is the row of the verification written with
// it.
func (s *sqlStore) eventArgs(e Event, reportSeq int64) []any {
	var at, ref any // NULL: no report
	if e.ReportAt != 0 {
		at, ref = e.ReportAt, reportSeq
	}
	return []any{e.Tenant, e.Type, e.Data, s.d.ts(e.CreatedAt), at, ref}
}

// Insert implements [Log.Insert].
func (s *sqlStore) Insert(ctx context.Context, v *Verification, events []Event) (*Verification, error) {
	const op = "store: insert verification"
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	in, err := s.prepareInsertion(v, events)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if err := s.eng.insert(ctx, in, func(ctx context.Context, tx conn) error { return s.insertOne(ctx, tx, in) }); err != nil {
		return nil, s.fail(op, err)
	}
	if in.dup != nil {
		return in.dup, ErrDuplicate
	}
	v.Seq, v.IdempotencyKey, v.CreatedAt, v.Issue = in.seq, in.p.IdempotencyKey, in.p.CreatedAt, in.p.Issue
	applyEvents(events, in.evs, in.seqs)
	return v, nil
}

// prepareInsertion readies v and its events for their write, before the
// writer's turn: validated, encoded and compressed.
func (s *sqlStore) prepareInsertion(v *Verification, events []Event) (*insertion, error) {
	nv, err := s.prepareVerification(v)
	if err != nil {
		return nil, err
	}
	evs, err := s.prepareEvents(events, nv.Tenant, nv.Result)
	if err != nil {
		return nil, err
	}
	return &insertion{p: nv, evs: evs, issue: nv.Issue}, nil
}

// insertion is a verification Insert writes with its events, and what
// its write found. Its write is rerunnable: each run starts again from
// what was prepared.
type insertion struct {
	p   *pending
	evs []Event
	// issue is p's Issue as prepared: a write may fill it in from the
	// task's first attempt.
	issue string
	// Set by the write: the row's Seq, or the stored verification it
	// duplicates; the events' Seqs.
	seq  int64
	dup  *Verification
	seqs []int64
}

// reset readies in for a run of its write.
func (in *insertion) reset() {
	in.seq, in.dup, in.seqs, in.p.Issue = 0, nil, nil, in.issue
}

// insertOne runs in's write alone in tx.
func (s *sqlStore) insertOne(ctx context.Context, tx conn, in *insertion) error {
	in.reset()
	var err error
	in.seq, in.dup, err = s.insertVerification(ctx, tx, in.p)
	if err != nil || in.dup != nil {
		return err
	}
	in.seqs, err = s.insertEvents(ctx, tx, in.evs, in.seq)
	return err
}

// Import implements [Log.Import].
func (s *sqlStore) Import(ctx context.Context, vs []*Verification) (int, error) {
	const op = "store: import"
	if err := s.check(); err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	rows := make([]*pending, len(vs))
	for i, v := range vs {
		nv, err := s.prepareVerification(v)
		if err != nil {
			return 0, fmt.Errorf("%s: verification %d: %w", op, i, err)
		}
		rows[i] = nv
	}
	var n int
	err := s.eng.write(ctx, 0, func(ctx context.Context, tx conn) error {
		n = 0
		var written []*Verification
		for _, v := range rows {
			seq, dup, err := s.insertRow(ctx, tx, v)
			if err != nil {
				return fmt.Errorf("%s/%d: %w", v.ID, v.Attempt, err)
			}
			if dup != nil {
				continue
			}
			v.Seq = seq
			n++
			written = append(written, v.Verification)
		}
		return s.addTalliesOf(ctx, tx, written)
	})
	if err != nil {
		return 0, s.fail(op, err)
	}
	for i, v := range rows {
		if v.Seq != 0 {
			vs[i].Seq, vs[i].Issue = v.Seq, v.Issue
		}
	}
	return n, nil
}

func (s *sqlStore) getVerification(ctx context.Context, c conn, where string, args ...any) (*Verification, error) {
	q := `SELECT ` + verificationCols + `, request FROM verification_logs WHERE ` + where + ` ORDER BY attempt DESC LIMIT 1`
	v, err := scanVerification(c.queryRow(ctx, q, args...), true)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return v, s.unpackVerification(ctx, v)
}

// unpackVerification decompresses the report and the request of a
// scanned verification.
func (s *sqlStore) unpackVerification(ctx context.Context, v *Verification) error {
	var err error
	if v.Result, err = s.packs.unpack(ctx, v.Result); err != nil {
		return fmt.Errorf("result of %s/%d: %w", v.ID, v.Attempt, err)
	}
	if v.Request, err = s.packs.unpack(ctx, v.Request); err != nil {
		return fmt.Errorf("request of %s/%d: %w", v.ID, v.Attempt, err)
	}
	if len(v.Request) == 0 {
		v.Request = nil
	}
	return nil
}

// scanVerification reads the verificationCols (and request when full).
func scanVerification(r row, full bool) (*Verification, error) {
	var (
		v                   Verification
		judges, dims, codes string
		ls                  ledgerScan
	)
	dest := []any{&v.Seq, &v.Tenant, &v.ID, &v.Attempt, &v.IdempotencyKey, &v.RequestHash, digestScan{&v.RequestHash},
		&v.InteractionID, &v.VerificationType, &v.TargetID, &v.TaskID, &v.Goal, &v.Kind,
		&v.Verdict, &v.Action, &v.Score, &v.Confidence, &v.NeedsReview, &v.Criticality,
		&v.ExecutorModel, &judges, &v.CostUSD, &v.DurationMs, &v.Result, &v.RequestBytes,
		utcTime{&v.CreatedAt}, &v.VerdictRow, &dims, &v.MustUndecided, &v.Injection, &codes,
		&v.TaskCostUSD, &v.JudgeCalls, &v.CacheHits, &v.CacheMisses, &v.SelfConfidence,
		&v.Complexity, &v.Issue}
	dest = ls.appendDest(dest)
	if full {
		dest = append(dest, &v.Request)
	}
	if err := r.Scan(dest...); err != nil {
		return nil, err
	}
	v.Ledger = ls.ledger()
	if err := json.Unmarshal([]byte(judges), &v.JudgeModels); err != nil {
		return nil, fmt.Errorf("judge_models of %s/%d: %w", v.ID, v.Attempt, err)
	}
	if len(v.JudgeModels) == 0 {
		v.JudgeModels = nil
	}
	if err := scanFeatures(&v, dims, codes); err != nil {
		return nil, err
	}
	return &v, nil
}

// ByKey implements [Log.ByKey].
func (s *sqlStore) ByKey(ctx context.Context, tenant, key string) (*Verification, error) {
	const op = "store: verification by key"
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	v, err := s.getVerification(ctx, s.eng.reader(), `tenant = ? AND idempotency_key = ?`, tenant, key)
	if err != nil {
		return nil, s.fail(op, err)
	}
	return v, nil
}

// Get implements [Log.Get].
func (s *sqlStore) Get(ctx context.Context, tenant, id string, attempt int) (*Verification, error) {
	const op = "store: get verification"
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	var (
		v   *Verification
		err error
	)
	if attempt == 0 {
		v, err = s.getVerification(ctx, s.eng.reader(), `tenant = ? AND id = ?`, tenant, id)
	} else {
		v, err = s.getVerification(ctx, s.eng.reader(), `tenant = ? AND id = ? AND attempt = ?`, tenant, id, attempt)
	}
	if err != nil {
		return nil, s.fail(op, err)
	}
	return v, nil
}

// List implements [Log.List].
func (s *sqlStore) List(ctx context.Context, tenant string, f Filter) (Page, error) {
	const op = "store: list verifications"
	if err := s.check(); err != nil {
		return Page{}, fmt.Errorf("%s: %w", op, err)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = defaultListLimit
	}
	limit = min(limit, maxListLimit)
	var q strings.Builder
	cols := listCols
	if !f.Reports {
		cols = listBriefCols
	}
	q.WriteString(`SELECT ` + cols + ` FROM verification_logs WHERE tenant = ?`)
	args := []any{tenant}
	eq := func(col, val string) {
		if val != "" {
			q.WriteString(` AND ` + col + ` = ?`)
			args = append(args, val)
		}
	}
	eq("kind", string(f.Kind))
	eq("verdict", string(f.Verdict))
	eq("action", string(f.Action))
	// The task's, the interaction's and the review queue's indexes hold
	// only the rows these conditions name (migration 0016).
	if f.TaskID != "" {
		q.WriteString(` AND task_id <> ''`)
		eq("task_id", f.TaskID)
	}
	if f.InteractionID != "" {
		q.WriteString(` AND interaction_id <> ''`)
		eq("interaction_id", f.InteractionID)
	}
	eq("executor_model", f.ExecutorModel)
	switch {
	case f.NeedsReview == nil:
	case *f.NeedsReview:
		q.WriteString(` AND needs_review`)
	default:
		q.WriteString(` AND NOT needs_review`)
	}
	if !f.Since.IsZero() {
		q.WriteString(` AND ` + s.d.scanCreatedAt + ` >= ?`)
		args = append(args, s.d.ts(f.Since))
	}
	if !f.Until.IsZero() {
		q.WriteString(` AND ` + s.d.scanCreatedAt + ` < ?`)
		args = append(args, s.d.ts(f.Until))
	}
	if f.Unreviewed {
		q.WriteString(` AND NOT EXISTS (SELECT 1 FROM overrides o WHERE o.tenant = verification_logs.tenant
			AND o.verification_id = verification_logs.id AND o.attempt = verification_logs.attempt)`)
	}
	if f.Before > 0 {
		q.WriteString(` AND seq < ?`)
		args = append(args, f.Before)
	}
	if f.Oldest && f.After > 0 {
		q.WriteString(` AND seq > ?`)
		args = append(args, f.After)
	}
	if f.Oldest {
		q.WriteString(` ORDER BY seq ASC LIMIT ?`)
	} else {
		q.WriteString(` ORDER BY seq DESC LIMIT ?`)
	}
	args = append(args, limit+1)
	rs, err := s.eng.reader().query(ctx, q.String(), args...)
	if err != nil {
		return Page{}, s.fail(op, err)
	}
	defer rs.Close()
	var p Page
	for rs.Next() {
		v, err := scanVerification(rs, false)
		if err == nil {
			err = s.unpackVerification(ctx, v)
		}
		if err != nil {
			return Page{}, s.fail(op, err)
		}
		p.Items = append(p.Items, *v)
	}
	if err := rs.Err(); err != nil {
		return Page{}, s.fail(op, err)
	}
	if len(p.Items) > limit {
		p.Items = p.Items[:limit]
		p.Next = p.Items[limit-1].Seq
	}
	return p, nil
}

// latestAttempt returns the highest attempt of a verification, or
// ErrNotFound.
func latestAttempt(ctx context.Context, c conn, tenant, id string) (int, error) {
	var a sql.NullInt64
	if err := c.queryRow(ctx, `SELECT MAX(attempt) FROM verification_logs WHERE tenant = ? AND id = ?`, tenant, id).Scan(&a); err != nil {
		return 0, err
	}
	if !a.Valid {
		return 0, ErrNotFound
	}
	return int(a.Int64), nil
}

// AddOverride implements [LabelLog.AddOverride]. An Attempt of 0 means the
// latest attempt, and o.Attempt is set to it. A zero CreatedAt is set to
// now.
func (s *sqlStore) AddOverride(ctx context.Context, o *Override) error {
	const op = "store: add override"
	if err := s.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if o == nil || !ValidTenant(o.Tenant) || o.VerificationID == "" || o.Verdict == "" || o.Attempt < 0 {
		return fmt.Errorf("%s: needs a valid tenant, a verification id, an attempt and a verdict", op)
	}
	created := s.stamp(o.CreatedAt)
	attempt := o.Attempt
	err := s.eng.write(ctx, 0, func(ctx context.Context, tx conn) error {
		if attempt == 0 {
			a, err := latestAttempt(ctx, tx, o.Tenant, o.VerificationID)
			if err != nil {
				return err
			}
			attempt = a
		} else {
			var one int
			err := tx.queryRow(ctx, `SELECT 1 FROM verification_logs WHERE tenant = ? AND id = ? AND attempt = ?`,
				o.Tenant, o.VerificationID, attempt).Scan(&one)
			if errors.Is(err, sql.ErrNoRows) {
				return ErrNotFound
			}
			if err != nil {
				return err
			}
		}
		_, err := tx.exec(ctx, `INSERT INTO overrides (tenant, verification_id, attempt, verdict, reason, reviewer, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`,
			o.Tenant, o.VerificationID, attempt, o.Verdict, o.Reason, o.Reviewer, s.d.ts(created))
		return err
	})
	if err != nil {
		return s.fail(op, err)
	}
	o.Attempt, o.CreatedAt = attempt, created
	return nil
}

// Overrides implements [LabelLog.Overrides]. An attempt of 0 means the latest
// attempt; a verification that does not exist has no overrides.
func (s *sqlStore) Overrides(ctx context.Context, tenant, id string, attempt int) ([]Override, error) {
	const op = "store: overrides"
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	c := s.eng.reader()
	if attempt == 0 {
		a, err := latestAttempt(ctx, c, tenant, id)
		if errors.Is(err, ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, s.fail(op, err)
		}
		attempt = a
	}
	rs, err := c.query(ctx, `SELECT tenant, verification_id, attempt, verdict, reason, reviewer, created_at
		FROM overrides WHERE tenant = ? AND verification_id = ? AND attempt = ? ORDER BY created_at, seq`,
		tenant, id, attempt)
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer rs.Close()
	var out []Override
	for rs.Next() {
		var o Override
		if err := rs.Scan(&o.Tenant, &o.VerificationID, &o.Attempt, &o.Verdict, &o.Reason, &o.Reviewer, utcTime{&o.CreatedAt}); err != nil {
			return nil, s.fail(op, err)
		}
		out = append(out, o)
	}
	if err := rs.Err(); err != nil {
		return nil, s.fail(op, err)
	}
	return out, nil
}

// AppendEvents implements [EventLog.AppendEvents]. Each event names its
// tenant; a zero CreatedAt is set to now.
func (s *sqlStore) AppendEvents(ctx context.Context, events []Event) error {
	const op = "store: append events"
	if err := s.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if len(events) == 0 {
		return nil
	}
	evs, err := s.prepareEvents(events, "", nil)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	var seqs []int64
	err = s.eng.write(ctx, writesEvents, func(ctx context.Context, tx conn) error {
		var err error
		seqs, err = s.insertEvents(ctx, tx, evs, 0)
		return err
	})
	if err != nil {
		return s.fail(op, err)
	}
	applyEvents(events, evs, seqs)
	return nil
}

// Events implements [EventLog.Events]; a limit of 0 or less means 100.
//
// It reads below the engine's event horizon. When events of the tenant
// are already committed above it (their transaction younger than one
// still running) and the page is not full, it waits for the horizon to
// pass them, polling up to s.eventWait, and returns what is final then:
// the rest comes with a later call.
func (s *sqlStore) Events(ctx context.Context, tenant string, after int64, limit int) ([]Event, error) {
	const op = "store: events"
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if limit <= 0 {
		limit = defaultEventLimit
	}
	var out []Event
	pause, waited := time.Millisecond, time.Duration(0)
	for {
		horizon, err := s.eng.eventHorizon(ctx)
		if err != nil {
			return nil, s.fail(op, err)
		}
		page, err := s.readEvents(ctx, tenant, after, horizon, limit-len(out))
		if err != nil {
			return nil, s.fail(op, err)
		}
		out = append(out, page...)
		if len(page) > 0 {
			after = page[len(page)-1].Seq
		}
		if len(out) >= limit || horizon == math.MaxInt64 || waited >= s.eventWait {
			return out, nil
		}
		var held bool
		if err := s.eng.reader().queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM events WHERE tenant = ? AND seq >= ?)`,
			tenant, max(horizon, after+1)).Scan(&held); err != nil {
			return nil, s.fail(op, err)
		}
		if !held {
			return out, nil
		}
		if err := wait.For(ctx, pause); err != nil {
			return nil, s.fail(op, err)
		}
		waited += pause
		pause = min(2*pause, 64*time.Millisecond)
	}
}

// readEvents reads up to limit of the tenant's events with after < Seq <
// horizon, in Seq order, their reports back in place.
func (s *sqlStore) readEvents(ctx context.Context, tenant string, after, horizon int64, limit int) ([]Event, error) {
	rs, err := s.eng.reader().query(ctx, `SELECT e.seq, e.tenant, e.type, e.data, e.created_at, e.report_at, v.result
		FROM events e LEFT JOIN verification_logs v ON v.seq = e.report_seq
		WHERE e.tenant = ? AND e.seq > ? AND e.seq < ? ORDER BY e.seq LIMIT ?`, tenant, after, horizon, limit)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []Event
	for rs.Next() {
		var (
			e      Event
			at     sql.NullInt64
			report []byte
		)
		if err := rs.Scan(&e.Seq, &e.Tenant, &e.Type, &e.Data, utcTime{&e.CreatedAt}, &at, &report); err != nil {
			return nil, err
		}
		var err error
		if e.Data, err = s.packs.unpack(ctx, e.Data); err != nil {
			return nil, fmt.Errorf("event %d: %w", e.Seq, err)
		}
		if at.Valid {
			// The report back in place; a verification pruned before its
			// event reads as null.
			if report == nil {
				report = []byte("null")
			}
			if report, err = s.packs.unpack(ctx, report); err != nil {
				return nil, fmt.Errorf("event %d: %w", e.Seq, err)
			}
			i := min(max(int(at.Int64), 0), len(e.Data))
			data := make([]byte, 0, len(e.Data)+len(report))
			e.Data = append(append(append(data, e.Data[:i]...), report...), e.Data[i:]...)
		}
		out = append(out, e)
	}
	return out, rs.Err()
}

// LastEventSeq implements [EventLog.LastEventSeq]: the tenant's highest
// final Seq, or, when events of a running transaction may still commit
// below the highest, the Seq just below the event horizon, so that a
// stream that starts there misses none of them.
func (s *sqlStore) LastEventSeq(ctx context.Context, tenant string) (int64, error) {
	const op = "store: last event seq"
	if err := s.check(); err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	horizon, err := s.eng.eventHorizon(ctx)
	if err != nil {
		return 0, s.fail(op, err)
	}
	var seq int64
	if err := s.eng.reader().queryRow(ctx, `SELECT COALESCE(MAX(seq), 0) FROM events WHERE tenant = ?`, tenant).Scan(&seq); err != nil {
		return 0, s.fail(op, err)
	}
	return min(seq, horizon-1), nil
}

// CreateBatch implements [Batches.CreateBatch]. Items are numbered by their
// position; an item with State ItemError (or an Error) is born failed,
// any other must be pending ("" or ItemPending). A batch whose every item
// failed (or that has none) is born done. A zero CreatedAt is set to now;
// b and items get the stored state.
func (s *sqlStore) CreateBatch(ctx context.Context, b *Batch, items []BatchItem) error {
	return s.createBatch(ctx, b, items, nil)
}

// checkBatch checks a batch to write and returns its kind and policy
// column.
func checkBatch(b *Batch) (kind string, policy any, err error) {
	if b == nil || !ValidTenant(b.Tenant) || b.ID == "" {
		return "", nil, errors.New("needs a valid tenant and an id")
	}
	kind = b.Kind
	switch kind {
	case "":
		kind = BatchVerify
	case BatchVerify, BatchReverify:
	default:
		return "", nil, fmt.Errorf("kind %q: want %s or %s", kind, BatchVerify, BatchReverify)
	}
	if b.Policy != nil {
		policy = string(b.Policy)
	}
	return kind, policy, nil
}

// itemStates returns the state each item is born in, and how many are
// born failed.
func itemStates(items []BatchItem) (states []string, failed int, err error) {
	states = make([]string, len(items))
	for i, it := range items {
		switch {
		case it.State == ItemError || (it.State == "" && it.Error != nil):
			if len(it.Error) == 0 {
				return nil, 0, fmt.Errorf("item %d: failed without an error", i)
			}
			states[i] = ItemError
			failed++
		case it.State == "" || it.State == ItemPending:
			states[i] = ItemPending
		default:
			return nil, 0, fmt.Errorf("item %d: born %q; an item is born pending or failed", i, it.State)
		}
	}
	return states, failed, nil
}

// insertItems inserts items of a batch in their born states, numbered
// from first, batchInsertRows to a statement.
func insertItems(ctx context.Context, tx conn, tenant, batchID string, first int, items []BatchItem, states []string) error {
	const cols = 8
	for start := 0; start < len(items); start += batchInsertRows {
		end := min(start+batchInsertRows, len(items))
		var q strings.Builder
		q.WriteString(`INSERT INTO batch_items (tenant, batch_id, idx, state, request, error, ref_id, ref_attempt) VALUES `)
		args := make([]any, 0, (end-start)*cols)
		for i := start; i < end; i++ {
			if i > start {
				q.WriteString(", ")
			}
			q.WriteString("(?, ?, ?, ?, ?, ?, ?, ?)")
			var req any
			if len(items[i].Request) > 0 {
				req = items[i].Request
			}
			var errJSON any
			if states[i] == ItemError {
				errJSON = string(items[i].Error)
			}
			args = append(args, tenant, batchID, first+i, states[i], req, errJSON, items[i].RefID, items[i].RefAttempt)
		}
		if _, err := tx.exec(ctx, q.String(), args...); err != nil {
			return err
		}
	}
	return nil
}

// createBatch is CreateBatch whose transaction runs then (when not nil)
// after the store's own statements: an error from then undoes the batch.
func (s *sqlStore) createBatch(ctx context.Context, b *Batch, items []BatchItem, then func(ctx context.Context, tx conn) error) error {
	const op = "store: create batch"
	if err := s.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	kind, policy, err := checkBatch(b)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	states, failed, err := itemStates(items)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	created := s.stamp(b.CreatedAt)
	state, finished := BatchRunning, time.Time{}
	if failed == len(items) {
		state, finished = BatchDone, created
	}
	err = s.eng.write(ctx, 0, func(ctx context.Context, tx conn) error {
		_, err := tx.exec(ctx, `INSERT INTO batches (tenant, id, state, total, done, failed, created_at, finished_at, kind, policy)
			VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?)`,
			b.Tenant, b.ID, state, len(items), failed, s.d.ts(created), s.d.nullTS(finished), kind, policy)
		if err != nil {
			return err
		}
		if err := insertItems(ctx, tx, b.Tenant, b.ID, 0, items, states); err != nil {
			return err
		}
		if then != nil {
			return then(ctx, tx)
		}
		return nil
	})
	if err != nil {
		return s.fail(op, err)
	}
	b.State, b.Total, b.Done, b.Failed, b.CreatedAt, b.FinishedAt, b.Kind = state, len(items), 0, failed, created, finished, kind
	for i := range items {
		items[i].Tenant, items[i].BatchID, items[i].Index, items[i].State = b.Tenant, b.ID, i, states[i]
	}
	return nil
}

// BeginBatch implements [Batches.BeginBatch].
func (s *sqlStore) BeginBatch(ctx context.Context, b *Batch) error {
	const op = "store: begin batch"
	if err := s.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	kind, policy, err := checkBatch(b)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	created, loaded := s.stamp(b.CreatedAt), s.stamp(time.Time{})
	err = s.eng.write(ctx, 0, func(ctx context.Context, tx conn) error {
		_, err := tx.exec(ctx, `INSERT INTO batches (tenant, id, state, total, done, failed, created_at, finished_at, kind, policy, loaded_at)
			VALUES (?, ?, ?, 0, 0, 0, ?, NULL, ?, ?, ?)`,
			b.Tenant, b.ID, BatchLoading, s.d.ts(created), kind, policy, s.d.ts(loaded))
		return err
	})
	if err != nil {
		return s.fail(op, err)
	}
	b.State, b.Total, b.Done, b.Failed, b.CreatedAt, b.FinishedAt, b.Kind = BatchLoading, 0, 0, 0, created, time.Time{}, kind
	return nil
}

// AppendItems implements [Batches.AppendItems].
func (s *sqlStore) AppendItems(ctx context.Context, tenant, id string, items []BatchItem) error {
	const op = "store: append batch items"
	if err := s.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	states, failed, err := itemStates(items)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	loaded := s.stamp(time.Time{})
	var first int
	err = s.eng.write(ctx, 0, func(ctx context.Context, tx conn) error {
		// The batch's row first: it must still be loading, and it hands
		// out the items' indexes (in PostgreSQL, it stays locked to the
		// commit, so appends to one batch run one at a time).
		var total int
		err := tx.queryRow(ctx, `UPDATE batches SET total = total + ?, failed = failed + ?, loaded_at = ?
			WHERE tenant = ? AND id = ? AND state = ? RETURNING total`,
			len(items), failed, s.d.ts(loaded), tenant, id, BatchLoading).Scan(&total)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		first = total - len(items)
		return insertItems(ctx, tx, tenant, id, first, items, states)
	})
	if err != nil {
		return s.fail(op, err)
	}
	for i := range items {
		items[i].Tenant, items[i].BatchID, items[i].Index, items[i].State = tenant, id, first+i, states[i]
	}
	return nil
}

// CommitBatch implements [Batches.CommitBatch].
func (s *sqlStore) CommitBatch(ctx context.Context, tenant, id string) (*Batch, error) {
	return s.commitBatch(ctx, tenant, id, nil)
}

// commitChunk is how many indexes of pending items commitBatch hands to
// its each function at a time.
const commitChunk = 5000

// commitBatch is CommitBatch whose transaction, after the batch's own
// update, calls each (when not nil) with the indexes of the batch's
// pending items in index order, commitChunk at a time: an error from
// each undoes the commit.
func (s *sqlStore) commitBatch(ctx context.Context, tenant, id string, each func(ctx context.Context, tx conn, indexes []int) error) (*Batch, error) {
	const op = "store: commit batch"
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	now := s.stamp(time.Time{})
	var b *Batch
	err := s.eng.write(ctx, 0, func(ctx context.Context, tx conn) error {
		n, err := tx.exec(ctx, `UPDATE batches SET
				state = CASE WHEN failed >= total THEN 'done' ELSE 'running' END,
				finished_at = CASE WHEN failed >= total THEN ? ELSE finished_at END,
				loaded_at = NULL
			WHERE tenant = ? AND id = ? AND state = ?`,
			s.d.ts(now), tenant, id, BatchLoading)
		if err != nil {
			return err
		}
		if n == 0 {
			return ErrNotFound
		}
		if each != nil {
			for after := -1; ; {
				indexes, err := pendingIndexes(ctx, tx, tenant, id, after, commitChunk)
				if err != nil {
					return err
				}
				if len(indexes) > 0 {
					if err := each(ctx, tx, indexes); err != nil {
						return err
					}
				}
				if len(indexes) < commitChunk {
					break
				}
				after = indexes[len(indexes)-1]
			}
		}
		b, err = s.readBatch(ctx, tx, tenant, id, true)
		return err
	})
	if err != nil {
		return nil, s.fail(op, err)
	}
	return b, nil
}

// pendingIndexes returns up to limit indexes of a batch's pending items
// after the given one, in order.
func pendingIndexes(ctx context.Context, c conn, tenant, id string, after, limit int) ([]int, error) {
	rs, err := c.query(ctx, `SELECT idx FROM batch_items WHERE tenant = ? AND batch_id = ? AND state = ? AND idx > ? ORDER BY idx LIMIT ?`,
		tenant, id, ItemPending, after, limit)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []int
	for rs.Next() {
		var i int
		if err := rs.Scan(&i); err != nil {
			return nil, err
		}
		out = append(out, i)
	}
	return out, rs.Err()
}

// AbortBatch implements [Batches.AbortBatch].
func (s *sqlStore) AbortBatch(ctx context.Context, tenant, id string) error {
	const op = "store: abort batch"
	if err := s.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if _, err := s.deleteLoading(ctx, tenant, id, time.Time{}); err != nil {
		return s.fail(op, err)
	}
	return nil
}

// deleteItemsChunk bounds the items one transaction of AbortBatch or
// PruneLoading deletes.
const deleteItemsChunk = 5000

// deleteLoading deletes a loading batch (one last written at or before
// cutoff, when cutoff is not zero) and its items, deleteItemsChunk items
// to a transaction by ranges of their indexes (all below the batch's
// Total), then the batch's row; it reports whether it deleted the batch.
// Each transaction first locks the batch's row while it is still
// loading, so that no commit turns it running half deleted.
func (s *sqlStore) deleteLoading(ctx context.Context, tenant, id string, cutoff time.Time) (bool, error) {
	cond, args := `tenant = ? AND id = ? AND state = ?`, []any{tenant, id, BatchLoading}
	if !cutoff.IsZero() {
		cond += ` AND loaded_at <= ?`
		args = append(args, s.d.ts(cutoff))
	}
	for from := 0; ; from += deleteItemsChunk {
		var gone, deleted bool
		err := s.eng.write(ctx, 0, func(ctx context.Context, tx conn) error {
			gone, deleted = false, false
			var total int
			err := tx.queryRow(ctx, `UPDATE batches SET loaded_at = loaded_at WHERE `+cond+` RETURNING total`, args...).Scan(&total)
			if errors.Is(err, sql.ErrNoRows) {
				gone = true
				return nil
			}
			if err != nil {
				return err
			}
			if from < total {
				_, err := tx.exec(ctx, `DELETE FROM batch_items WHERE tenant = ? AND batch_id = ? AND idx >= ? AND idx < ?`,
					tenant, id, from, from+deleteItemsChunk)
				return err
			}
			// The items are gone; any left (there is none) would go with
			// the batch's row.
			if _, err := tx.exec(ctx, `DELETE FROM batches WHERE `+cond, args...); err != nil {
				return err
			}
			deleted = true
			return nil
		})
		if err != nil {
			return false, err
		}
		if gone || deleted {
			return deleted, nil
		}
	}
}

// pruneLoadingPage is how many stale loading batches PruneLoading reads
// at once.
const pruneLoadingPage = 100

// PruneLoading implements [Batches.PruneLoading].
func (s *sqlStore) PruneLoading(ctx context.Context, age time.Duration) (int, error) {
	const op = "store: prune loading batches"
	if err := s.check(); err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	cutoff := s.stamp(time.Time{}).Add(-age)
	type key struct{ tenant, id string }
	total := 0
	for {
		var stale []key
		rs, err := s.eng.reader().query(ctx, `SELECT tenant, id FROM batches WHERE state = ? AND loaded_at <= ? ORDER BY created_at, seq LIMIT ?`,
			BatchLoading, s.d.ts(cutoff), pruneLoadingPage)
		if err != nil {
			return total, s.fail(op, err)
		}
		for rs.Next() {
			var k key
			if err := rs.Scan(&k.tenant, &k.id); err != nil {
				rs.Close()
				return total, s.fail(op, err)
			}
			stale = append(stale, k)
		}
		rs.Close()
		if err := rs.Err(); err != nil {
			return total, s.fail(op, err)
		}
		for _, k := range stale {
			deleted, err := s.deleteLoading(ctx, k.tenant, k.id, cutoff)
			if err != nil {
				return total, s.fail(op, err)
			}
			if deleted {
				total++
			}
		}
		if len(stale) < pruneLoadingPage {
			return total, nil
		}
	}
}

// Batch implements [Batches.Batch]; a loading batch is not found.
func (s *sqlStore) Batch(ctx context.Context, tenant, id string) (*Batch, error) {
	const op = "store: batch"
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	b, err := s.readBatch(ctx, s.eng.reader(), tenant, id, false)
	if err == nil && b.State == BatchRunning && b.Done+b.Failed >= b.Total {
		// Every item counted, and the completion that should have
		// finished the batch did not (see completeItem).
		if err = s.finishBatch(ctx, tenant, id, s.stamp(time.Time{})); err == nil {
			b, err = s.readBatch(ctx, s.eng.reader(), tenant, id, false)
		}
	}
	if err != nil {
		return nil, s.fail(op, err)
	}
	return b, nil
}

// readBatch reads a batch with its counts; a loading one only when
// loading is set, else it is ErrNotFound.
func (s *sqlStore) readBatch(ctx context.Context, c conn, tenant, id string, loading bool) (*Batch, error) {
	q := `SELECT tenant, id, state, total,
		done + COALESCE((SELECT SUM(c.done) FROM batch_counts c WHERE c.tenant = b.tenant AND c.batch_id = b.id), 0),
		failed + COALESCE((SELECT SUM(c.failed) FROM batch_counts c WHERE c.tenant = b.tenant AND c.batch_id = b.id), 0),
		created_at, finished_at, kind, policy
		FROM batches b WHERE tenant = ? AND id = ?`
	args := []any{tenant, id}
	if !loading {
		q += ` AND state <> ?`
		args = append(args, BatchLoading)
	}
	var b Batch
	var policy *string
	err := c.queryRow(ctx, q, args...).
		Scan(&b.Tenant, &b.ID, &b.State, &b.Total, &b.Done, &b.Failed, utcTime{&b.CreatedAt}, utcTime{&b.FinishedAt}, &b.Kind, &policy)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	if policy != nil {
		b.Policy = []byte(*policy)
	}
	return &b, nil
}

// CompleteItem implements [Batches.CompleteItem]. It returns ErrNotFound
// when the tenant has no such item; the verification's tenant, when
// given, must be the batch's.
func (s *sqlStore) CompleteItem(ctx context.Context, c Completion) error {
	return s.completeItems(ctx, "store: complete batch item", []Completion{c}, false, nil)
}

// CompleteItems implements [Batches.CompleteItems].
func (s *sqlStore) CompleteItems(ctx context.Context, cs []Completion) error {
	return s.completeItems(ctx, "store: complete batch items", cs, true, nil)
}

// itemWrite is one completion of completeItems, prepared, and what its
// write found. Its write is rerunnable: each run starts again from what
// was prepared.
type itemWrite struct {
	c      Completion
	result []byte // a re-verification's result
	errs   []byte // the item's error
	// in is the verification to write with its events, as Insert writes
	// one; nil for a result or an error.
	in *insertion
	// Set by the write: whether the store holds no such item (gone), or
	// the item was pending and is claimed; whether its verification was
	// inserted (with the others', see insertClaimed), and whether the
	// item was completed (written).
	gone, claimed, inserted, written bool
	// conflict, set by the write, is the item's error when the
	// verification stored under its key is another request's (see
	// Completion.Conflict).
	conflict []byte
}

// key is the unique key of w's verification; for a result or an error,
// its tenant's with no key.
func (w *itemWrite) key() uniqueKey {
	if w.in == nil {
		return uniqueKey{tenant: w.c.Tenant}
	}
	return w.in.key()
}

// reset readies w for a run of its write.
func (w *itemWrite) reset() {
	w.gone, w.claimed, w.inserted, w.written = false, false, false, false
	w.conflict = nil
	if w.in != nil {
		w.in.reset()
	}
}

// failed reports whether w ends its item as an error.
func (w *itemWrite) failed() bool { return w.in == nil && w.result == nil || w.conflict != nil }

// batchKey names a batch.
type batchKey struct{ tenant, id string }

// compare orders batch keys by tenant, then id.
func (k batchKey) compare(o batchKey) int {
	return cmp.Or(strings.Compare(k.tenant, o.tenant), strings.Compare(k.id, o.id))
}

// claimItems claims the pending items of ws in tx, with a read of each
// batch's run of them that holds them (on PostgreSQL, locked until the
// commit): each is then claimed, or, when its batch's items in ws name
// one index only, gone when the store holds no such item (of a run, an
// item gone is one not claimed). Only a pending item can be completed:
// a claim is read first and the item updated once (see completeItem),
// as each update of a row writes all of it again, its request included.
func (s *sqlStore) claimItems(ctx context.Context, tx conn, ws []itemWrite) error {
	type run struct {
		batchKey
		from, to int
	}
	var runs []run
	at := map[batchKey]int{} // a batch's place in runs
	for i := range ws {
		w := &ws[i]
		w.reset()
		k := batchKey{w.c.Tenant, w.c.BatchID}
		j, ok := at[k]
		if !ok {
			j = len(runs)
			at[k] = j
			runs = append(runs, run{k, w.c.Index, w.c.Index + 1})
		}
		runs[j].from, runs[j].to = min(runs[j].from, w.c.Index), max(runs[j].to, w.c.Index+1)
	}
	for _, r := range runs {
		// An item alone is read whatever its state, to tell one gone
		// from one done; of a run, only the pending are read (and
		// locked, in index order), as a run's span may hold many done or
		// failed ones.
		q, args := `SELECT idx, state FROM batch_items WHERE tenant = ? AND batch_id = ? AND idx >= ? AND idx < ?`, []any{r.tenant, r.id, r.from, r.to}
		lone := r.to-r.from == 1
		if !lone {
			q += ` AND state = ?`
			args = append(args, ItemPending)
		}
		rs, err := tx.query(ctx, q+` ORDER BY idx`+s.d.forUpdate, args...)
		if err != nil {
			return err
		}
		states := map[int]string{}
		for rs.Next() {
			var idx int
			var state string
			if err := rs.Scan(&idx, &state); err != nil {
				rs.Close()
				return err
			}
			states[idx] = state
		}
		rs.Close()
		if err := rs.Err(); err != nil {
			return err
		}
		for i := range ws {
			w := &ws[i]
			if (batchKey{w.c.Tenant, w.c.BatchID}) != r.batchKey {
				continue
			}
			state, ok := states[w.c.Index]
			w.gone, w.claimed = lone && !ok, state == ItemPending
			states[w.c.Index] = "" // an item named twice is completed once
		}
	}
	return nil
}

// insertClaimed writes the verifications of the claimed items of ws, with
// their events, with a statement for all (see insertMany) where the
// engine has one and they are independent of each other; completeItem
// writes the others one by one.
func (s *sqlStore) insertClaimed(ctx context.Context, tx conn, ws []itemWrite) error {
	mw, ok := s.eng.(manyWriter)
	if !ok {
		return nil
	}
	var (
		ins  []*insertion
		from []*itemWrite
	)
	for i := range ws {
		if w := &ws[i]; w.claimed && w.in != nil {
			ins, from = append(ins, w.in), append(from, w)
		}
	}
	if len(ins) < 2 {
		return nil
	}
	written, err := s.insertMany(ctx, tx, mw, ins)
	if err != nil || !written {
		return err
	}
	for _, w := range from {
		w.inserted = true
	}
	return nil
}

// completeItems completes the items cs name in one transaction, in
// order, as CompleteItem says, and runs then (when not nil) in it after
// them. An item no longer pending is passed by; one the store does not
// hold is ErrNotFound when one alone is completed (many is false) and
// passed by when many are (a batch pruned under its job). Each batch's
// counts get one write, and each batch whose items are all counted is
// finished after the commit.
func (s *sqlStore) completeItems(ctx context.Context, op string, cs []Completion, many bool, then func(ctx context.Context, tx conn) error) error {
	if err := s.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	ws := make([]itemWrite, len(cs))
	var mode writeMode
	for i, c := range cs {
		w := &ws[i]
		w.c = c
		v := c.Verification
		switch {
		case v != nil:
		case len(c.Result) > 0:
			w.result = c.Result
		case len(c.Error) > 0:
			w.errs = c.Error
		default:
			return fmt.Errorf("%s: item %d: neither a verification, a result nor an error", op, c.Index)
		}
		if v == nil {
			continue
		}
		if v.Tenant != "" && v.Tenant != c.Tenant {
			return fmt.Errorf("%s: verification of tenant %q in a batch of %q", op, v.Tenant, c.Tenant)
		}
		withTenant := *v
		withTenant.Tenant = c.Tenant
		in, err := s.prepareInsertion(&withTenant, c.Events)
		if err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		w.in = in
		mode |= eventsMode(in.evs)
	}
	// The items are written in the order of their verifications' keys
	// (the others' first), twins in the order given: as insertMany
	// inserts rows, so that of two transactions writing the same keys
	// one waits for the other, never each for the other.
	order := make([]int, len(ws))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return ws[a].key().compare(ws[b].key()) })
	now := s.stamp(time.Time{})
	var finish []batchKey // the batches written to
	err := s.eng.write(ctx, mode, func(ctx context.Context, tx conn) error {
		finish = finish[:0]
		counts := map[batchKey][2]int{} // done, failed
		if err := s.claimItems(ctx, tx, ws); err != nil {
			return err
		}
		if err := s.insertClaimed(ctx, tx, ws); err != nil {
			return err
		}
		for _, i := range order {
			w := &ws[i]
			if w.gone {
				if many {
					continue
				}
				return ErrNotFound
			}
			if !w.claimed {
				continue
			}
			if err := s.completeItem(ctx, tx, w); err != nil {
				return err
			}
			k := batchKey{w.c.Tenant, w.c.BatchID}
			n, seen := counts[k]
			if !seen {
				finish = append(finish, k)
			}
			if w.failed() {
				n[1]++
			} else {
				n[0]++
			}
			counts[k] = n
		}
		// Each batch's counts, in one of its shards (migration 0012):
		// every completion of the batch writes one, and holds it to the
		// commit. The batches in the order of their keys, so that two
		// transactions counting in the same two never lock them in
		// opposite orders.
		slices.SortFunc(finish, batchKey.compare)
		for _, k := range finish {
			n := counts[k]
			if _, err := tx.exec(ctx, `INSERT INTO batch_counts (tenant, batch_id, shard, done, failed) VALUES (?, ?, ?, ?, ?)
				ON CONFLICT (tenant, batch_id, shard) DO UPDATE
				SET done = batch_counts.done + excluded.done, failed = batch_counts.failed + excluded.failed`,
				k.tenant, k.id, shard(tx, s.d.countShards), n[0], n[1]); err != nil {
				return err
			}
		}
		if then != nil {
			return then(ctx, tx)
		}
		return nil
	})
	if err != nil {
		return s.fail(op, err)
	}
	for i := range ws {
		w := &ws[i]
		if in, v := w.in, w.c.Verification; w.written && in != nil && in.dup == nil {
			v.Seq, v.Tenant, v.IdempotencyKey, v.CreatedAt, v.Issue = in.seq, in.p.Tenant, in.p.IdempotencyKey, in.p.CreatedAt, in.p.Issue
			applyEvents(w.c.Events, in.evs, in.seqs)
		}
	}
	// The items are complete whatever comes of this: a batch left
	// running by a failure here is finished when it is next read or
	// scanned for pending items.
	for _, k := range finish {
		if err := s.finishBatch(context.WithoutCancel(ctx), k.tenant, k.id, now); err != nil {
			s.log.Warn("store: finishing a batch", "tenant", k.tenant, "batch", k.id, "err", err)
		}
	}
	return nil
}

// completeItem completes w's item, claimed, in tx: its verification and
// events written (unless insertClaimed wrote them), or its result or
// error, and the item updated.
func (s *sqlStore) completeItem(ctx context.Context, tx conn, w *itemWrite) error {
	c := w.c
	state := ItemDone
	if w.failed() {
		state = ItemError
	}
	set, args := `state = ?, error = ?`, []any{state, string(w.errs)}
	switch in := w.in; {
	case in != nil:
		if !w.inserted {
			if err := s.insertOne(ctx, tx, in); err != nil {
				return err
			}
		}
		if in.dup != nil && c.Conflict != nil {
			if w.conflict = c.Conflict(in.dup); w.conflict != nil {
				args = []any{ItemError, string(w.conflict)}
				break
			}
		}
		id, attempt := in.p.ID, in.p.Attempt
		if in.dup != nil {
			id, attempt = in.dup.ID, in.dup.Attempt
		}
		// The request is stored once: a verification written with it
		// holds it from now on, and the item keeps a reference.
		set, args = `state = ?, verification_id = ?, attempt = ?`, []any{state, id, attempt}
		if in.dup == nil && in.p.Request != nil {
			set += `, request = NULL`
		}
	case w.result != nil:
		set, args = `state = ?, result = ?`, []any{state, string(w.result)}
	}
	if _, err := tx.exec(ctx, `UPDATE batch_items SET `+set+` WHERE tenant = ? AND batch_id = ? AND idx = ?`,
		append(args, c.Tenant, c.BatchID, c.Index)...); err != nil {
		return err
	}
	w.written = true
	return nil
}

// finishBatch turns a running batch done, finished at now, when every
// one of its items is counted. It runs after the commit of each
// completion: of completions that commit together, none may see the
// others' counts in its own transaction, but the last to commit sees
// them all after it.
func (s *sqlStore) finishBatch(ctx context.Context, tenant, id string, now time.Time) error {
	var complete bool
	err := s.eng.reader().queryRow(ctx, `SELECT b.done + b.failed + COALESCE((SELECT SUM(c.done + c.failed) FROM batch_counts c
		WHERE c.tenant = b.tenant AND c.batch_id = b.id), 0) >= b.total
		FROM batches b WHERE b.tenant = ? AND b.id = ? AND b.state = ?`, tenant, id, BatchRunning).Scan(&complete)
	if errors.Is(err, sql.ErrNoRows) || err == nil && !complete {
		return nil
	}
	if err != nil {
		return err
	}
	return s.eng.write(ctx, 0, func(ctx context.Context, tx conn) error {
		_, err := tx.exec(ctx, `UPDATE batches SET state = ?, finished_at = ? WHERE tenant = ? AND id = ? AND state = ?`,
			BatchDone, s.d.ts(now), tenant, id, BatchRunning)
		return err
	})
}

// shard picks the shard of n (1: none) that a write transaction tx adds
// to, of a tally or of a batch's counts: on PostgreSQL the one of its
// session (the backend's process id modulo n), as a session runs one
// transaction at a time; two transactions at once take the same shard
// only when their sessions' ids are alike modulo n, where a shard drawn
// at random put about a third of 16 concurrent ones on a shard another
// held. (Behind a pooler that multiplexes sessions, the id is the
// pooler's: no worse than chance.)
func shard(tx conn, n int) int {
	if n <= 1 {
		return 0
	}
	if c, ok := tx.(interface{ session() uint32 }); ok {
		if id := c.session(); id != 0 {
			return int(id % uint32(n))
		}
	}
	return rand.IntN(n)
}

// PendingItems implements [Batches.PendingItems]; a limit of 0 or less
// means 100.
func (s *sqlStore) PendingItems(ctx context.Context, limit int) ([]BatchItem, error) {
	const op = "store: pending batch items"
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if limit <= 0 {
		limit = defaultItemLimit
	}
	c := s.eng.reader()
	type key struct{ tenant, id string }
	var batches []key
	rs, err := c.query(ctx, `SELECT tenant, id FROM batches WHERE state = 'running' ORDER BY created_at, seq`)
	if err != nil {
		return nil, s.fail(op, err)
	}
	for rs.Next() {
		var k key
		if err := rs.Scan(&k.tenant, &k.id); err != nil {
			rs.Close()
			return nil, s.fail(op, err)
		}
		batches = append(batches, k)
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return nil, s.fail(op, err)
	}
	var out []BatchItem
	for _, b := range batches {
		if len(out) >= limit {
			break
		}
		rs, err := c.query(ctx, `SELECT tenant, batch_id, idx, state, request, ref_id, ref_attempt FROM batch_items
			WHERE tenant = ? AND batch_id = ? AND state = 'pending' ORDER BY idx LIMIT ?`, b.tenant, b.id, limit-len(out))
		if err != nil {
			return nil, s.fail(op, err)
		}
		n := len(out)
		for rs.Next() {
			var it BatchItem
			if err := rs.Scan(&it.Tenant, &it.BatchID, &it.Index, &it.State, &it.Request, &it.RefID, &it.RefAttempt); err != nil {
				rs.Close()
				return nil, s.fail(op, err)
			}
			out = append(out, it)
		}
		rs.Close()
		if err := rs.Err(); err != nil {
			return nil, s.fail(op, err)
		}
		if len(out) == n {
			// Running with no item pending: the completion that should
			// have finished it did not (see completeItem).
			if err := s.finishBatch(ctx, b.tenant, b.id, s.stamp(time.Time{})); err != nil {
				return nil, s.fail(op, err)
			}
		}
	}
	return out, nil
}

// BatchResults implements [Batches.BatchResults]. The items have no
// Request. A done item whose verification was pruned has a nil result.
// Items are read in chunks, so no query stays open while fn runs.
func (s *sqlStore) BatchResults(ctx context.Context, tenant, id string, fn func(it BatchItem, result []byte) error) error {
	const op = "store: batch results"
	if err := s.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	c := s.eng.reader()
	var one int
	err := c.queryRow(ctx, `SELECT 1 FROM batches WHERE tenant = ? AND id = ? AND state <> ?`, tenant, id, BatchLoading).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
	}
	if err != nil {
		return s.fail(op, err)
	}
	type item struct {
		it     BatchItem
		result []byte
	}
	after := -1
	for {
		rs, err := c.query(ctx, `SELECT i.tenant, i.batch_id, i.idx, i.state, i.verification_id, i.attempt, i.error, i.ref_id, i.ref_attempt, i.result, v.result
			FROM batch_items i LEFT JOIN verification_logs v
				ON v.tenant = i.tenant AND v.id = i.verification_id AND v.attempt = i.attempt
			WHERE i.tenant = ? AND i.batch_id = ? AND i.idx > ? ORDER BY i.idx LIMIT ?`,
			tenant, id, after, batchResultsChunk)
		if err != nil {
			return s.fail(op, err)
		}
		var chunk []item
		for rs.Next() {
			var x item
			if err := rs.Scan(&x.it.Tenant, &x.it.BatchID, &x.it.Index, &x.it.State, &x.it.VerificationID,
				&x.it.Attempt, &x.it.Error, &x.it.RefID, &x.it.RefAttempt, &x.it.Result, &x.result); err != nil {
				rs.Close()
				return s.fail(op, err)
			}
			chunk = append(chunk, x)
		}
		rs.Close()
		if err := rs.Err(); err != nil {
			return s.fail(op, err)
		}
		for _, x := range chunk {
			var result []byte
			switch x.it.State {
			case ItemDone:
				result = x.result
				if x.it.Result != nil {
					result = x.it.Result
				}
				var err error
				if result, err = s.packs.unpack(ctx, result); err != nil {
					return s.fail(op, fmt.Errorf("item %d: %w", x.it.Index, err))
				}
			case ItemError:
				result = x.it.Error
			}
			if err := fn(x.it, result); err != nil {
				return err
			}
		}
		if len(chunk) < batchResultsChunk {
			return nil
		}
		after = chunk[len(chunk)-1].it.Index
	}
}

// CreateKey implements [Keyring.CreateKey]. A zero CreatedAt is set to now.
func (s *sqlStore) CreateKey(ctx context.Context, k *Key) error {
	const op = "store: create key"
	if err := s.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if k == nil || k.ID == "" || !ValidTenant(k.Tenant) || len(k.Hash) == 0 {
		return fmt.Errorf("%s: needs an id, a valid tenant and a hash", op)
	}
	if err := checkScopes(k.Scopes); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	scopes, err := json.Marshal(k.Scopes)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	created := s.stamp(k.CreatedAt)
	err = s.eng.write(ctx, 0, func(ctx context.Context, tx conn) error {
		_, err := tx.exec(ctx, `INSERT INTO api_keys (id, tenant, name, hash, scopes, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			k.ID, k.Tenant, k.Name, k.Hash, string(scopes), s.d.ts(created), s.d.nullTS(k.RevokedAt))
		return err
	})
	if err != nil {
		return s.fail(op, err)
	}
	k.CreatedAt = created
	if !k.RevokedAt.IsZero() {
		k.RevokedAt = s.stamp(k.RevokedAt)
	}
	return nil
}

const keyCols = `id, tenant, name, hash, scopes, created_at, revoked_at`

func scanKey(r row) (*Key, error) {
	var (
		k      Key
		scopes string
	)
	if err := r.Scan(&k.ID, &k.Tenant, &k.Name, &k.Hash, &scopes, utcTime{&k.CreatedAt}, utcTime{&k.RevokedAt}); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(scopes), &k.Scopes); err != nil {
		return nil, fmt.Errorf("scopes of key %s: %w", k.ID, err)
	}
	return &k, nil
}

// Key implements [Keyring.Key].
func (s *sqlStore) Key(ctx context.Context, id string) (*Key, error) {
	const op = "store: key"
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	k, err := scanKey(s.eng.reader().queryRow(ctx, `SELECT `+keyCols+` FROM api_keys WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
	}
	if err != nil {
		return nil, s.fail(op, err)
	}
	return k, nil
}

// Keys implements [Keyring.Keys].
func (s *sqlStore) Keys(ctx context.Context, tenant string) ([]Key, error) {
	const op = "store: keys"
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	q, args := `SELECT `+keyCols+` FROM api_keys ORDER BY created_at, id`, []any(nil)
	if tenant != "" {
		q, args = `SELECT `+keyCols+` FROM api_keys WHERE tenant = ? ORDER BY created_at, id`, []any{tenant}
	}
	rs, err := s.eng.reader().query(ctx, q, args...)
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer rs.Close()
	var out []Key
	for rs.Next() {
		k, err := scanKey(rs)
		if err != nil {
			return nil, s.fail(op, err)
		}
		out = append(out, *k)
	}
	if err := rs.Err(); err != nil {
		return nil, s.fail(op, err)
	}
	return out, nil
}

// RevokeKey implements [Keyring.RevokeKey]. Revoking a revoked key keeps
// its first revocation time.
func (s *sqlStore) RevokeKey(ctx context.Context, id string, at time.Time) error {
	const op = "store: revoke key"
	if err := s.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	at = s.stamp(at)
	err := s.eng.write(ctx, 0, func(ctx context.Context, tx conn) error {
		n, err := tx.exec(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`, s.d.ts(at), id)
		if err == nil && n == 0 {
			err = ErrNotFound
		}
		return err
	})
	if err != nil {
		return s.fail(op, err)
	}
	return nil
}

// ActiveKeys implements [Keyring.ActiveKeys].
func (s *sqlStore) ActiveKeys(ctx context.Context) (int, error) {
	const op = "store: active keys"
	if err := s.check(); err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	var n int
	if err := s.eng.reader().queryRow(ctx, `SELECT COUNT(*) FROM api_keys WHERE revoked_at IS NULL`).Scan(&n); err != nil {
		return 0, s.fail(op, err)
	}
	return n, nil
}

// Prune implements [Log.Prune]: one transaction deletes up to limit
// verifications, tenant by tenant, each tenant's oldest first (their
// overrides go with them); then each tenant's events older than cutoff
// are deleted, oldest first, in transactions of at most 5,000, until the
// oldest left is not. A limit of 0 or less means 1,000. Batches are kept;
// a done item whose verification was pruned has no result.
//
// Events are read in the order of their Seqs, which follows their times
// but for writes a few milliseconds apart: an event a little older than
// one after it may outlive the cutoff until the next prune.
func (s *sqlStore) Prune(ctx context.Context, cutoff time.Time, limit int) (int, error) {
	const op = "store: prune"
	if err := s.check(); err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	if limit <= 0 {
		limit = defaultPruneLimit
	}
	var n int64
	err := s.eng.write(ctx, 0, func(ctx context.Context, tx conn) error {
		n = 0
		tenant, ok, err := nextTenant(ctx, tx, "verification_logs", "")
		for ; err == nil && ok && n < int64(limit); tenant, ok, err = nextTenant(ctx, tx, "verification_logs", tenant) {
			var d int64
			d, err = tx.exec(ctx, `DELETE FROM verification_logs WHERE seq IN
				(SELECT seq FROM verification_logs WHERE tenant = ? AND created_at < ? ORDER BY created_at LIMIT ?)`,
				tenant, s.d.ts(cutoff), int64(limit)-n)
			n += d
		}
		if err != nil {
			return err
		}
		// The tallies of the hours and days wholly before the cutoff go
		// too; the hour and day it falls in keep theirs (a window that
		// starts after the cutoff reads the verifications of part hours
		// itself, and whole days only when they are wholly inside it).
		for _, t := range []string{"metric_tallies", "metric_codes", "metric_issues"} {
			for _, p := range periods {
				if _, err := tx.exec(ctx, `DELETE FROM `+t+` WHERE period = ? AND bucket < ?`,
					p, s.d.ts(bucketOf(cutoff, p))); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return 0, s.fail(op, err)
	}
	if err := s.pruneEvents(ctx, cutoff); err != nil {
		return int(n), s.fail(op+": events", err)
	}
	return int(n), nil
}

// pruneEvents deletes each tenant's events older than cutoff, oldest
// first, in transactions of at most pruneEventsChunk.
func (s *sqlStore) pruneEvents(ctx context.Context, cutoff time.Time) error {
	tenant, ok, err := nextTenant(ctx, s.eng.reader(), "events", "")
	for ; err == nil && ok; tenant, ok, err = nextTenant(ctx, s.eng.reader(), "events", tenant) {
		for {
			var d int64
			err = s.eng.write(ctx, 0, func(ctx context.Context, tx conn) error {
				var err error
				d, err = tx.exec(ctx, `DELETE FROM events WHERE seq IN
					(SELECT seq FROM events WHERE tenant = ? ORDER BY seq LIMIT ?) AND created_at < ?`,
					tenant, pruneEventsChunk, s.d.ts(cutoff))
				return err
			})
			if err != nil || d < pruneEventsChunk {
				break
			}
		}
		if err != nil {
			return err
		}
	}
	return err
}

// nextTenant returns the first tenant of table's rows after the tenant
// given ("" for the first), by the index that leads with the tenant: one
// lookup a tenant, however many rows each has.
func nextTenant(ctx context.Context, c conn, table, after string) (string, bool, error) {
	var t string
	err := c.queryRow(ctx, `SELECT tenant FROM `+table+` WHERE tenant > ? ORDER BY tenant LIMIT 1`, after).Scan(&t)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return t, err == nil, err
}

// Ping implements [Store.Ping].
func (s *sqlStore) Ping(ctx context.Context) error {
	const op = "store: ping"
	if err := s.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err := s.eng.ping(ctx); err != nil {
		return s.fail(op, err)
	}
	return nil
}

// Close implements [Store.Close]: writes already queued are committed
// first. Calls after Close return ErrClosed; Close itself may be called
// again and returns the first call's result.
func (s *sqlStore) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		if s.packs != nil {
			s.packs.close() // a dictionary in training is written first
		}
		if err := s.eng.close(); err != nil {
			s.closeErr = fmt.Errorf("store: close: %w", err)
		}
	})
	return s.closeErr
}
