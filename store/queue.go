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
