package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Queue is what a job queue working batches on a PostgreSQL store needs
// beyond [Store]: the store's connection pool, a batch item read alone,
// and batch writes whose transaction also carries the queue's own
// statements, so that a batch and its jobs, or an item's completion and
// its job's, commit together or not at all. Only a PostgreSQL store
// implements it; test with a type assertion.
type Queue interface {
	Store
	// Pool is the store's connection pool, which the store closes.
	Pool() *pgxpool.Pool
	// CreateBatchTx is [Batches.CreateBatch] whose transaction runs then
	// after the store's own statements; an error from then undoes the
	// batch.
	CreateBatchTx(ctx context.Context, b *Batch, items []BatchItem, then TxFunc) error
	// CommitBatchTx is [Batches.CommitBatch] whose transaction, after the
	// batch's own update, calls each with the indexes of the batch's
	// pending items in index order, a bounded number at a time, so that
	// the queue's jobs for them are inserted as the batch turns running
	// and none exists while it loads; an error from each undoes the
	// commit, and the batch stays loading.
	CommitBatchTx(ctx context.Context, tenant, id string, each ItemsTxFunc) (*Batch, error)
	// Item returns one batch item with its Request; ErrNotFound when the
	// tenant has no such item (its batch was pruned), or its batch is
	// still loading.
	Item(ctx context.Context, tenant, batchID string, index int) (*BatchItem, error)
	// PendingRange returns the pending items of a batch whose indexes
	// lie in [from, to), in index order, with their Requests; none when
	// the tenant has no such batch, or it is still loading.
	PendingRange(ctx context.Context, tenant, batchID string, from, to int) ([]BatchItem, error)
	// CompleteItemsTx completes many items in one transaction, in order,
	// each as [Batches.CompleteItem] does (an item no longer pending is
	// passed by, and so is one the store no longer holds), then runs
	// then (when not nil) in the transaction; an error from then undoes
	// it all.
	CompleteItemsTx(ctx context.Context, cs []Completion, then TxFunc) error
	// ByKeys returns the tenant's stored verifications of the idempotency
	// keys, each as [Log.ByKey] reads it, by key; a key with none has no
	// entry.
	ByKeys(ctx context.Context, tenant string, keys []string) (map[string]*Verification, error)
}

// TxFunc runs inside a write transaction of a PostgreSQL store.
type TxFunc func(ctx context.Context, tx pgx.Tx) error

// ItemsTxFunc runs inside a write transaction of a PostgreSQL store,
// once per chunk of a batch's items, named by their indexes.
type ItemsTxFunc func(ctx context.Context, tx pgx.Tx, indexes []int) error

// pgStore is the PostgreSQL store: the shared queries, and the queue's
// transactions.
type pgStore struct {
	*sqlStore
	pg *pgEngine
}

var _ Queue = (*pgStore)(nil)

// Pool implements [Queue.Pool].
func (s *pgStore) Pool() *pgxpool.Pool { return s.pg.pool }

// CreateBatchTx implements [Queue.CreateBatchTx].
func (s *pgStore) CreateBatchTx(ctx context.Context, b *Batch, items []BatchItem, then TxFunc) error {
	return s.createBatch(ctx, b, items, pgThen(then))
}

// CommitBatchTx implements [Queue.CommitBatchTx].
func (s *pgStore) CommitBatchTx(ctx context.Context, tenant, id string, each ItemsTxFunc) (*Batch, error) {
	if each == nil {
		return s.commitBatch(ctx, tenant, id, nil)
	}
	return s.commitBatch(ctx, tenant, id, func(ctx context.Context, c conn, indexes []int) error {
		tx, ok := c.(pgConn).q.(pgx.Tx)
		if !ok {
			return errors.New("store: a queue's statements outside a transaction")
		}
		return each(ctx, tx, indexes)
	})
}

// pgThen adapts a TxFunc to the engine's transaction, a pgx.Tx inside a
// pgConn.
func pgThen(then TxFunc) func(ctx context.Context, tx conn) error {
	if then == nil {
		return nil
	}
	return func(ctx context.Context, c conn) error {
		tx, ok := c.(pgConn).q.(pgx.Tx)
		if !ok {
			return errors.New("store: a queue's statements outside a transaction")
		}
		return then(ctx, tx)
	}
}

// Item implements [Queue.Item].
func (s *pgStore) Item(ctx context.Context, tenant, batchID string, index int) (*BatchItem, error) {
	const op = "store: batch item"
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	it := BatchItem{Tenant: tenant, BatchID: batchID, Index: index}
	var errJSON *string
	err := s.eng.reader().queryRow(ctx, `SELECT i.state, i.request, i.verification_id, i.attempt, i.error, i.ref_id, i.ref_attempt
		FROM batch_items i JOIN batches b ON b.tenant = i.tenant AND b.id = i.batch_id
		WHERE i.tenant = ? AND i.batch_id = ? AND i.idx = ? AND b.state <> ?`, tenant, batchID, index, BatchLoading).
		Scan(&it.State, &it.Request, &it.VerificationID, &it.Attempt, &errJSON, &it.RefID, &it.RefAttempt)
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
	}
	if err != nil {
		return nil, s.fail(op, err)
	}
	if errJSON != nil {
		it.Error = []byte(*errJSON)
	}
	return &it, nil
}

// PendingRange implements [Queue.PendingRange].
func (s *pgStore) PendingRange(ctx context.Context, tenant, batchID string, from, to int) ([]BatchItem, error) {
	const op = "store: pending batch items"
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	rs, err := s.eng.reader().query(ctx, `SELECT i.idx, i.request, i.ref_id, i.ref_attempt
		FROM batch_items i JOIN batches b ON b.tenant = i.tenant AND b.id = i.batch_id
		WHERE i.tenant = ? AND i.batch_id = ? AND i.idx >= ? AND i.idx < ? AND i.state = ? AND b.state <> ?
		ORDER BY i.idx`, tenant, batchID, from, to, ItemPending, BatchLoading)
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer rs.Close()
	var out []BatchItem
	for rs.Next() {
		it := BatchItem{Tenant: tenant, BatchID: batchID, State: ItemPending}
		if err := rs.Scan(&it.Index, &it.Request, &it.RefID, &it.RefAttempt); err != nil {
			return nil, s.fail(op, err)
		}
		out = append(out, it)
	}
	if err := rs.Err(); err != nil {
		return nil, s.fail(op, err)
	}
	return out, nil
}

// CompleteItemsTx implements [Queue.CompleteItemsTx].
func (s *pgStore) CompleteItemsTx(ctx context.Context, cs []Completion, then TxFunc) error {
	return s.completeItems(ctx, "store: complete batch items", cs, true, pgThen(then))
}

// ByKeys implements [Queue.ByKeys], with one query.
func (s *pgStore) ByKeys(ctx context.Context, tenant string, keys []string) (map[string]*Verification, error) {
	const op = "store: verifications by key"
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	out := map[string]*Verification{}
	if len(keys) == 0 {
		return out, nil
	}
	rs, err := s.eng.reader().query(ctx, `SELECT `+verificationCols+`, request FROM verification_logs
		WHERE tenant = ? AND idempotency_key = ANY(?::text[])`, tenant, keys)
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer rs.Close()
	for rs.Next() {
		v, err := scanVerification(rs, true)
		if err != nil {
			return nil, s.fail(op, err)
		}
		if err := s.unpackVerification(ctx, v); err != nil {
			return nil, s.fail(op, err)
		}
		out[v.IdempotencyKey] = v
	}
	if err := rs.Err(); err != nil {
		return nil, s.fail(op, err)
	}
	return out, nil
}
