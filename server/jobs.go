package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/wire"
)

// On a PostgreSQL store, batches are worked through River, a job queue
// in the same database, its jobs inserted in the transaction that makes
// the batch visible (the one that creates a batch written whole, or the
// one that ends the upload of a batch stored a chunk at a time). A job
// verifies a run of a batch's items: one item in a small batch, up to
// maxRunItems in a large one, cut so that a batch has at least
// minBatchJobs jobs to spread over the workers. A run's job reads its
// pending items with one query and completes those it verified in one
// transaction: a job per item cost PostgreSQL about 13 statements and 6
// transactions an item, a run's job a few statements an item and its
// transactions shared by the run. A run's job stops taking items after
// runSlice, or when cut short, and leaves the rest to a run's job
// of their own, inserted with its completions, so that a job lasts no
// longer than runSlice and one verification's deadline (the bound of the
// rescue of a job whose worker died). A run's job tried again (its
// process died under it, or its store write failed) leaves each of its
// pending items to a job of its own, so that a request that ends the
// process it is verified in fails alone, its item's error after its
// attempts, and not its run's; so does an item whose verification
// crashed (the crash counted among its attempts), or was cut short.
//
// The transaction that writes an item's report claims the item (only a
// pending one can be completed), so a report row exists exactly once per
// item however often a job is tried. River then completes the job, with
// others' in one statement: completing each in the items' transaction
// cost PostgreSQL a statement per job. A job whose completion is lost
// (its process died between the two) is tried again and finds its items
// done; if that was its last attempt, River's rescuer discards it
// instead, its items done all the same (the sweep ends only pending
// items). A job whose worker died is made available again by River's
// rescuer (after Queue.RescueAfter), and tried by another.
//
// A batch stored as it is uploaded has no job while it loads: its jobs
// are inserted when its last chunk is stored, in the commit's
// transaction, a chunk of item indexes at a time read back from the
// store, so that no job of an unfinished batch can be worked, an upload
// that fails leaves no job to delete, and no more than a chunk of jobs
// is held in memory. Inserting them with each chunk of items instead
// would need the workers to put off (snooze) the jobs of a loading batch
// for as long as its upload lasts, and the failed uploads' jobs to be
// found and deleted. The commit's transaction is longer for it (a
// million jobs, the most a batch has, took 16 s on two cores), but no
// other transaction waits on the rows it writes: the batch's own, and
// jobs no one sees before it commits.
//
// `vouch worker` processes work the jobs; a `vouch serve` process works
// them too while no worker is running, so that one process still
// completes batches. Workers announce themselves with a shared advisory
// lock held on a connection of their own, which PostgreSQL releases when
// the process dies.

// queueName is the River queue of verification jobs.
const queueName = "vouch_verify"

// itemArgs is a job: verify one item of a batch. The request stays in
// the item's row; the job only names it.
type itemArgs struct {
	Tenant string `json:"tenant"`
	Batch  string `json:"batch"`
	Index  int    `json:"index"`
	// Crashed counts the crashes of the item's verification in a run's
	// job before this one: they are among its queue.attempts (see
	// jobParams).
	Crashed int `json:"crashed,omitempty"`
}

// Kind implements river.JobArgs.
func (itemArgs) Kind() string { return "vouch.verify_item" }

// runArgs is a job: verify the pending items of a batch whose indexes
// lie in [From, To).
type runArgs struct {
	Tenant string `json:"tenant"`
	Batch  string `json:"batch"`
	From   int    `json:"from"`
	To     int    `json:"to"`
}

// Kind implements river.JobArgs.
func (runArgs) Kind() string { return "vouch.verify_items" }

// Runs of items in a job.
const (
	// maxRunItems bounds the items of one job: the statements of a run's
	// transaction, and the work done again when its job is.
	maxRunItems = 32
	// minBatchJobs is the fewest jobs a batch is cut into while they
	// hold more than one item each: the jobs a batch's items can be
	// verified by at once. A run's items are verified one after another,
	// so a batch of slow verifications (a judge's answers) cut in fewer
	// runs than there are places to work jobs would leave places idle.
	minBatchJobs = 256
	// runSlice is how long a run's job takes new items.
	runSlice = time.Second
)

// runItems is how many pending items one job verifies in a batch of n.
func runItems(n int) int { return max(1, min(maxRunItems, n/minBatchJobs)) }

// fetchCooldown is the least time between two fetches of jobs by one
// process.
const fetchCooldown = 5 * time.Millisecond

// presenceGap is how often a server looks for workers, and a worker
// checks its announcement's connection.
const presenceGap = 2 * time.Second

// jobQueue works batches through River on a PostgreSQL store.
type jobQueue struct {
	s      *Server
	st     store.Queue
	driver *riverpgxv5.Driver
	// inserter inserts jobs; it never works them.
	inserter *river.Client[pgx.Tx]
	// worker: this process is a `vouch worker`, which always works jobs
	// and announces itself; otherwise it works them only while no worker
	// is announced.
	worker  bool
	workers int
	// runItems is how many items one job verifies, of a batch of n
	// pending items; slice is how long a run's job takes new items.
	runItems func(n int) int
	slice    time.Duration

	mu       sync.Mutex
	presence int64                 // the advisory lock key of workers, per schema; 0 until read
	running  *river.Client[pgx.Tx] // the client working jobs, nil when none
	draining bool                  // set by drain: no client starts again
	stopped  chan struct{}         // closed when the run loop has ended
}

func newJobQueue(s *Server, st store.Queue, worker bool) (*jobQueue, error) {
	q := &jobQueue{s: s, st: st, driver: riverpgxv5.New(st.Pool()), worker: worker, workers: JobWorkers(s.cfg),
		runItems: runItems, slice: runSlice, stopped: make(chan struct{})}
	if f := s.cfg.Queue.runItems; f != nil {
		q.runItems = f
	}
	if d := s.cfg.Queue.runSlice; d != 0 {
		q.slice = d
	}
	ctx, cancel := context.WithTimeout(context.Background(), queueMigrateTimeout)
	defer cancel()
	if err := migrateQueue(ctx, st.Pool(), s.log); err != nil {
		return nil, fmt.Errorf("server: job queue: %w", err)
	}
	var err error
	if q.inserter, err = river.NewClient(q.driver, &river.Config{Logger: riverLogger(s.log)}); err != nil {
		return nil, fmt.Errorf("server: job queue: %w", err)
	}
	return q, nil
}

// JobWorkers is how many jobs a process works at once on a PostgreSQL
// store configured with cfg: its BatchWorkers, else four per CPU, as a
// job waits on the database (its items, their reports' commit) as long
// as it verifies, and more jobs than CPUs keep them busy.
func JobWorkers(cfg Config) int {
	if cfg.BatchWorkers > 0 {
		return cfg.BatchWorkers
	}
	return 4 * runtime.GOMAXPROCS(0)
}

// queueMigrateTimeout bounds migrating the job queue's tables when a
// server or worker starts.
const queueMigrateTimeout = 5 * time.Minute

// queueMigrateLock is the advisory lock key around the job queue's
// migrations, so that processes starting together migrate it once.
var queueMigrateLock = store.LockKey("vouch.queue.migrate")

// migrateQueue brings the job queue's tables (River's, by River's own
// migrator) up to date on the store's database: one migration per
// transaction, as some of River's cannot share one, each under
// queueMigrateLock.
func migrateQueue(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) error {
	m, err := rivermigrate.New(riverpgxv5.New(nil), &rivermigrate.Config{Logger: riverLogger(log)})
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	for {
		tx, err := pool.Begin(ctx)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, queueMigrateLock); err != nil {
			tx.Rollback(context.WithoutCancel(ctx))
			return fmt.Errorf("migrate: lock: %w", err)
		}
		res, err := m.MigrateTx(ctx, tx, rivermigrate.DirectionUp, &rivermigrate.MigrateOpts{MaxSteps: 1})
		if err != nil {
			tx.Rollback(context.WithoutCancel(ctx))
			return fmt.Errorf("migrate: %w", err)
		}
		if err := tx.Commit(ctx); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		if len(res.Versions) == 0 {
			return nil
		}
	}
}

// riverLogger passes River's warnings and errors to the server's log;
// its routine messages (leadership, queue polls) are left out.
func riverLogger(l *slog.Logger) *slog.Logger {
	return slog.New(levelFloor{l.Handler(), slog.LevelWarn})
}

// levelFloor drops records below a level.
type levelFloor struct {
	slog.Handler
	min slog.Level
}

func (h levelFloor) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h levelFloor) WithAttrs(as []slog.Attr) slog.Handler {
	return levelFloor{h.Handler.WithAttrs(as), h.min}
}

func (h levelFloor) WithGroup(name string) slog.Handler {
	return levelFloor{h.Handler.WithGroup(name), h.min}
}

// jobMargin is the time a job has beyond its verification's deadline,
// for reading its item and writing the report.
const jobMargin = 10 * time.Second

// jobTimeout bounds one job: the time a run's job takes new items
// (runSlice), the last verification's own deadline, and the store reads
// and writes around them. A job taken for dead while it still runs is
// harmless: an item and its report are written once whichever try
// commits first.
func (q *jobQueue) jobTimeout() time.Duration {
	return q.slice + time.Duration(q.s.policy.Timeout) + jobMargin
}

// rescueAfter is how long a job may run before River's rescuer takes it
// for dead and makes it available again: at least the longest a job
// runs, its timeout and the store write it lets finish past it.
func (q *jobQueue) rescueAfter() time.Duration {
	if d := time.Duration(q.s.cfg.Queue.RescueAfter); d > 0 {
		return max(d, q.jobTimeout()+storeTimeout+time.Second)
	}
	return q.jobTimeout() + time.Minute
}

// createBatch writes a batch whole, with the jobs of its pending items
// in its transaction.
func (q *jobQueue) createBatch(ctx context.Context, b *store.Batch, items []store.BatchItem) error {
	return q.st.CreateBatchTx(ctx, b, items, func(ctx context.Context, tx pgx.Tx) error {
		var pending []int
		for i, it := range items {
			if it.State != store.ItemPending && it.State != "" || it.Error != nil {
				continue
			}
			pending = append(pending, i)
		}
		return q.insertJobs(ctx, tx, b.Tenant, b.ID, pending, q.runItems(len(pending)))
	})
}

// commitBatch ends the upload of a loading batch, inserting the jobs of
// its pending items in the commit's transaction, a chunk at a time, in
// runs sized by the batch's pending items (its total less those born
// failed: none is done yet).
func (q *jobQueue) commitBatch(ctx context.Context, tenant, id string) (*store.Batch, error) {
	per := 0
	return q.st.CommitBatchTx(ctx, tenant, id, func(ctx context.Context, tx pgx.Tx, indexes []int) error {
		if per == 0 {
			var pending int
			if err := tx.QueryRow(ctx, `SELECT total - failed FROM batches WHERE tenant = $1 AND id = $2`, tenant, id).Scan(&pending); err != nil {
				return fmt.Errorf("the batch's pending items: %w", err)
			}
			per = q.runItems(pending)
		}
		return q.insertJobs(ctx, tx, tenant, id, indexes, per)
	})
}

// insertJobs inserts in tx the jobs of a batch's pending items, named by
// their indexes in increasing order: runs of up to per of them, or a job
// each when per is 1.
func (q *jobQueue) insertJobs(ctx context.Context, tx pgx.Tx, tenant, batch string, indexes []int, per int) error {
	if len(indexes) == 0 {
		return nil
	}
	if per <= 1 {
		return q.insertItemJobs(ctx, tx, tenant, batch, indexes, nil)
	}
	params := make([]river.InsertManyParams, 0, (len(indexes)+per-1)/per)
	for k := 0; k < len(indexes); k += per {
		run := indexes[k:min(k+per, len(indexes))]
		params = append(params, q.jobParams(runArgs{Tenant: tenant, Batch: batch, From: run[0], To: run[len(run)-1] + 1}))
	}
	_, err := q.inserter.InsertManyFastTx(ctx, tx, params)
	return err
}

// insertItemJobs inserts in tx a job for each of a batch's items, by
// index; those in crashed crashed once in a run's job.
func (q *jobQueue) insertItemJobs(ctx context.Context, tx pgx.Tx, tenant, batch string, indexes []int, crashed map[int]bool) error {
	if len(indexes) == 0 {
		return nil
	}
	params := make([]river.InsertManyParams, len(indexes))
	for k, i := range indexes {
		a := itemArgs{Tenant: tenant, Batch: batch, Index: i}
		if crashed[i] {
			a.Crashed = 1
		}
		params[k] = q.jobParams(a)
	}
	_, err := q.inserter.InsertManyFastTx(ctx, tx, params)
	return err
}

// jobParams are the insert parameters of a verification job. A run's
// job has two attempts at least: only its first verifies, and a second
// hands its items on (see runWorker.Work). An item's job after crashes
// in a run's has as many fewer attempts (one at least), so that a
// verification that crashes is tried queue.attempts times in all.
func (q *jobQueue) jobParams(args river.JobArgs) river.InsertManyParams {
	attempts := q.s.cfg.Queue.Attempts
	switch a := args.(type) {
	case runArgs:
		if attempts > 0 {
			attempts = max(attempts, 2)
		}
	case itemArgs:
		if attempts > 0 && a.Crashed > 0 {
			attempts = max(1, attempts-a.Crashed)
		}
	}
	return river.InsertManyParams{Args: args, InsertOpts: &river.InsertOpts{Queue: queueName, MaxAttempts: attempts}}
}

// start runs the queue until ctx is done: a worker works jobs at once; a
// server works them while no worker is announced.
// Both sweep the batches of unfinished uploads.
func (q *jobQueue) start(ctx context.Context) {
	var sweeping sync.WaitGroup
	sweeping.Go(func() { q.s.sweepLoadingEvery(ctx) })
	go func() {
		defer close(q.stopped)
		if q.worker {
			q.announce(ctx)
		} else {
			q.follow(ctx)
		}
		q.stopWorking(context.WithoutCancel(ctx), true)
		sweeping.Wait()
	}()
}

// drain stops taking jobs and waits until the jobs being worked are done
// or ctx is done; the rest are cancelled and retried later, elsewhere.
func (q *jobQueue) drain(ctx context.Context) {
	q.mu.Lock()
	q.draining = true
	q.mu.Unlock()
	q.stopWorking(ctx, false)
}

// wait waits for the run loop to end (after its context is done).
func (q *jobQueue) wait() { <-q.stopped }

// startWorking starts a River client working the queue, unless one runs.
func (q *jobQueue) startWorking(ctx context.Context) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.running != nil || q.draining {
		return nil
	}
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, &itemWorker{q: q}); err != nil {
		return err
	}
	if err := river.AddWorkerSafely(workers, &runWorker{q: q}); err != nil {
		return err
	}
	c, err := river.NewClient(q.driver, &river.Config{
		Queues:  map[string]river.QueueConfig{queueName: {MaxWorkers: q.workers}},
		Workers: workers,
		// River fetches at most this often, up to the free workers; its
		// default (100ms) would cap a process at ten fetches a second.
		FetchCooldown:               fetchCooldown,
		JobTimeout:                  q.jobTimeout(),
		RescueStuckJobsAfter:        q.rescueAfter(),
		MaxAttempts:                 q.s.cfg.Queue.Attempts,
		RetryPolicy:                 backoff{base: time.Duration(q.s.cfg.Queue.RetryBackoff)},
		CompletedJobRetentionPeriod: time.Hour,
		Logger:                      riverLogger(q.s.log),
		ErrorHandler:                jobErrors{q.s.log},
	})
	if err != nil {
		return fmt.Errorf("job queue: %w", err)
	}
	if err := c.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("job queue: start: %w", err)
	}
	q.running = c
	q.s.log.Info("working batch jobs", "workers", q.workers)
	return nil
}

// stopWorking stops the River client working the queue, if one runs:
// gracefully within ctx, then by cancelling the jobs (hard, at once).
func (q *jobQueue) stopWorking(ctx context.Context, hard bool) {
	q.mu.Lock()
	c := q.running
	q.running = nil
	q.mu.Unlock()
	if c == nil {
		return
	}
	if !hard {
		if err := c.Stop(ctx); err == nil {
			return
		}
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	if err := c.StopAndCancel(sctx); err != nil {
		q.s.log.Error("job queue: stop", "err", err)
	}
}

// follow is a server's loop: it works jobs while no worker is announced,
// and leaves them to the workers while one is.
func (q *jobQueue) follow(ctx context.Context) {
	tick := time.NewTicker(presenceGap)
	defer tick.Stop()
	for {
		n, err := q.announced(ctx)
		switch {
		case err != nil:
			if ctx.Err() == nil {
				q.s.log.Warn("job queue: looking for workers", "err", err)
			}
		case n == 0:
			if err := q.startWorking(ctx); err != nil {
				q.s.log.Error("job queue", "err", err)
			}
			q.sweep(ctx)
		default:
			q.mu.Lock()
			working := q.running != nil
			q.mu.Unlock()
			if working {
				q.s.log.Info("workers are running: leaving batch jobs to them", "workers", n)
				q.stopWorking(ctx, false)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// presenceKey is the advisory lock key of the workers of the store's
// schema (servers of another schema on the same database are another
// deployment).
func (q *jobQueue) presenceKey(ctx context.Context) (int64, error) {
	q.mu.Lock()
	key := q.presence
	q.mu.Unlock()
	if key != 0 {
		return key, nil
	}
	var schema string
	if err := q.st.Pool().QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return 0, err
	}
	key = store.LockKey("vouch.worker\x00" + schema)
	q.mu.Lock()
	q.presence = key
	q.mu.Unlock()
	return key, nil
}

// announced counts the workers announced on the store's schema.
func (q *jobQueue) announced(ctx context.Context) (int, error) {
	key, err := q.presenceKey(ctx)
	if err != nil {
		return 0, err
	}
	var n int
	err = q.st.Pool().QueryRow(ctx, `SELECT count(*) FROM pg_locks
		WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
			AND classid = $1 AND objid = $2 AND objsubid = 1`,
		uint32(uint64(key)>>32), uint32(uint64(key))).Scan(&n)
	return n, err
}

// announce is a worker's loop: it works jobs, and holds the workers'
// shared advisory lock on a connection of its own, taking it again
// after the connection is lost (PostgreSQL restarted).
func (q *jobQueue) announce(ctx context.Context) {
	if err := q.startWorking(ctx); err != nil {
		q.s.log.Error("job queue", "err", err)
	}
	tick := time.NewTicker(presenceGap)
	defer tick.Stop()
	var held *pgxpool.Conn
	defer func() {
		if held != nil {
			held.Release()
		}
	}()
	for {
		if held == nil {
			if held = q.hold(ctx); held != nil {
				q.s.log.Info("announced: the servers of this store leave the batch jobs to the workers")
			}
		} else if err := held.Ping(ctx); err != nil {
			if ctx.Err() == nil {
				q.s.log.Warn("job queue: the announcement's connection is lost: announcing again", "err", err)
			}
			held.Conn().Close(context.WithoutCancel(ctx)) // not back to the pool, lock and all
			held.Release()
			held = nil
			continue
		}
		q.sweep(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// hold takes the workers' shared advisory lock on a connection of its
// own; nil when the database cannot be reached now.
func (q *jobQueue) hold(ctx context.Context) *pgxpool.Conn {
	key, err := q.presenceKey(ctx)
	if err != nil {
		return nil
	}
	c, err := q.st.Pool().Acquire(ctx)
	if err != nil {
		return nil
	}
	if _, err := c.Exec(ctx, `SELECT pg_advisory_lock_shared($1)`, key); err != nil {
		c.Release()
		return nil
	}
	return c
}

// sweepPage bounds the items one sweep ends.
const sweepPage = 100

// sweep ends, as errors, the pending items whose job River discarded (an
// item's, or a run's that never handed its items off), unless a job not
// yet finished covers them (a run's job discarded while its last try,
// taken for dead, still ran and handed them on): it failed on every
// attempt without completing its items, for one because
// the process working it died each time (a request that crashes the
// process, or exhausts its memory), which River's rescuer counts as a
// failed attempt. Without it such an item would leave its batch running
// for ever.
func (q *jobQueue) sweep(ctx context.Context) {
	rows, err := q.st.Pool().Query(ctx, `SELECT j.args->>'tenant', j.args->>'batch', i.idx, j.attempt + COALESCE((j.args->>'crashed')::int, 0),
			COALESCE(j.errors[array_length(j.errors, 1)]->>'error', '')
		FROM river_job j JOIN batch_items i
			ON i.tenant = j.args->>'tenant' AND i.batch_id = j.args->>'batch'
			AND i.idx >= COALESCE((j.args->>'from')::int, (j.args->>'index')::int)
			AND i.idx < COALESCE((j.args->>'to')::int, (j.args->>'index')::int + 1)
		WHERE j.state = 'discarded' AND j.kind IN ($1, $2) AND i.state = 'pending'
			AND NOT EXISTS (SELECT 1 FROM river_job k
				WHERE k.state NOT IN ('completed', 'discarded', 'cancelled') AND k.kind IN ($1, $2)
				AND k.args->>'tenant' = i.tenant AND k.args->>'batch' = i.batch_id
				AND i.idx >= COALESCE((k.args->>'from')::int, (k.args->>'index')::int)
				AND i.idx < COALESCE((k.args->>'to')::int, (k.args->>'index')::int + 1))
		LIMIT $3`, itemArgs{}.Kind(), runArgs{}.Kind(), sweepPage)
	if err != nil {
		if ctx.Err() == nil {
			q.s.log.Warn("job queue: looking for discarded jobs", "err", err)
		}
		return
	}
	type lost struct {
		a        itemArgs
		attempts int
		last     string
	}
	var found []lost
	for rows.Next() {
		var l lost
		if err := rows.Scan(&l.a.Tenant, &l.a.Batch, &l.a.Index, &l.attempts, &l.last); err != nil {
			rows.Close()
			q.s.log.Warn("job queue: reading discarded jobs", "err", err)
			return
		}
		found = append(found, l)
	}
	rows.Close()
	for _, l := range found {
		msg := fmt.Sprintf("the verification did not finish in %d attempts (the process working it may have died each time); the last attempt ended with: %s", l.attempts, l.last)
		errJSON := wire.ErrorLine(l.a.Index+1, &vouch.Error{Code: vouch.ErrInternal, Message: msg})
		if err := q.st.CompleteItem(ctx, store.Completion{Tenant: l.a.Tenant, BatchID: l.a.Batch, Index: l.a.Index, Error: errJSON}); err != nil {
			q.s.log.Warn("job queue: ending an item whose job was discarded", "batch", l.a.Batch, "index", l.a.Index, "err", err)
			continue
		}
		q.s.log.Error("batch item failed on every attempt", "batch", l.a.Batch, "index", l.a.Index, "attempts", l.attempts, "last", l.last)
		q.s.hub.notify(l.a.Tenant)
	}
}

// itemWorker works the verification jobs.
type itemWorker struct {
	river.WorkerDefaults[itemArgs]
	q *jobQueue
}

// Work verifies the job's item and completes it; River completes the
// job once Work returns. An item no longer pending (completed by an
// earlier try whose job completion was lost) completes the job alone. A
// verification that crashed is tried again while attempts remain; at the
// last, it is the item's error.
func (w *itemWorker) Work(ctx context.Context, job *river.Job[itemArgs]) error {
	q, a := w.q, job.Args
	it, err := q.st.Item(ctx, a.Tenant, a.Batch, a.Index)
	if errors.Is(err, store.ErrNotFound) || err == nil && it.State != store.ItemPending {
		return nil // the batch was pruned, or the item is done
	}
	if err != nil {
		return err
	}
	out := q.s.verifyBatchItem(ctx, *it)
	if err := ctx.Err(); err != nil {
		return err // cut short (shutdown, or the job's timeout): tried again
	}
	if out.panic != "" {
		if job.Attempt < job.MaxAttempts {
			return fmt.Errorf("the verification crashed: %s", out.panic)
		}
		out.crashed(a.Index, job.Attempt+a.Crashed)
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	if err := q.st.CompleteItem(wctx, out.completion(a.Tenant, a.Batch, a.Index)); err != nil {
		return fmt.Errorf("completing the item: %w", err)
	}
	q.s.completed(a.Tenant, out)
	return nil
}

// runWorker works the jobs of runs of items.
type runWorker struct {
	river.WorkerDefaults[runArgs]
	q *jobQueue
}

// Work verifies the pending items of the job's run, one after another,
// and completes them in one transaction; River completes the job once
// Work returns. After runSlice, or when cut short (a shutdown, or its
// timeout), it takes no new item, and leaves those left to a run's job
// of their own. An item whose verification crashed, or was cut short, is
// left to a job of its own, tried again there while attempts remain. A job tried again leaves each of
// its pending items to a job of its own (see the package's comment on
// jobs). The hand-offs commit with the items' completions and the job's,
// so that each item has a job working it once the transaction commits,
// and none if it does not (the job is then tried again).
func (w *runWorker) Work(ctx context.Context, job *river.Job[runArgs]) error {
	q, a := w.q, job.Args
	items, err := q.st.PendingRange(ctx, a.Tenant, a.Batch, a.From, a.To)
	if err != nil || len(items) == 0 {
		return err // none: the batch was pruned, or its items are done
	}
	var (
		outs    []itemOutcome
		done    []store.Completion
		handOff []int        // items left to a job each: crashed, or cut short
		crashed map[int]bool // of those, the items whose verification crashed
		rest    = a.To
	)
	if job.Attempt == 1 {
		pre := q.lookup(ctx, a.Tenant, items)
		stop := time.Now().Add(q.slice)
		for k, it := range items {
			// After the slice, the rest go to the next run's job.
			if k > 0 && time.Now().After(stop) {
				rest = it.Index
				break
			}
			out := q.s.verifyItemWith(ctx, it, pre[k])
			if ctx.Err() != nil {
				// Cut short (a shutdown, or the job's timeout): what was
				// verified is stored, the item under way goes to a job of
				// its own, whose attempts are counted (one that outlives
				// every job's timeout ends as its error), and the rest to
				// a run's job.
				handOff = append(handOff, it.Index)
				rest = a.To
				if k+1 < len(items) {
					rest = items[k+1].Index
				}
				break
			}
			if out.panic != "" {
				handOff = append(handOff, it.Index)
				if crashed == nil {
					crashed = map[int]bool{}
				}
				crashed[it.Index] = true
				continue
			}
			outs = append(outs, out)
			done = append(done, out.completion(a.Tenant, a.Batch, it.Index))
		}
	} else {
		rest = items[0].Index
	}
	if job.Attempt > 1 {
		for _, it := range items {
			handOff = append(handOff, it.Index)
		}
	}
	// The items not reached (after the slice, or cut short) go to a run's
	// job of their own.
	restOn := rest < a.To && job.Attempt == 1
	if len(done) == 0 && len(handOff) == 0 && !restOn {
		return nil
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	err = q.st.CompleteItemsTx(wctx, done, func(ctx context.Context, tx pgx.Tx) error {
		if len(handOff) == 0 && !restOn {
			return nil
		}
		if err := q.insertItemJobs(ctx, tx, a.Tenant, a.Batch, handOff, crashed); err != nil {
			return err
		}
		if restOn {
			left := runArgs{Tenant: a.Tenant, Batch: a.Batch, From: rest, To: a.To}
			if _, err := q.inserter.InsertManyFastTx(ctx, tx, []river.InsertManyParams{q.jobParams(left)}); err != nil {
				return err
			}
		}
		// Completed with its hand-offs: the job's items are all done or
		// another job's.
		_, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job)
		return err
	})
	if err != nil {
		return fmt.Errorf("completing the items: %w", err)
	}
	for _, out := range outs {
		q.s.completed(a.Tenant, out)
	}
	return nil
}

// lookup decodes the requests of a run's items and reads the
// verifications stored under their keys with one query, where a job of
// one item reads its own. An entry is nil for an item verified otherwise
// (a re-verification's), or whose request the decoder crashed on (its
// verification meets the crash again, and recovers it), and all are when
// the query fails (each item then reads its own).
func (q *jobQueue) lookup(ctx context.Context, tenant string, items []store.BatchItem) []*itemRequest {
	pre := make([]*itemRequest, len(items))
	var keys []string
	for k, it := range items {
		if it.RefID == "" {
			pre[k] = q.s.decodeItemSafely(it)
		}
		if p := pre[k]; p != nil && p.out == nil {
			keys = append(keys, p.key)
		}
	}
	stored, err := q.st.ByKeys(ctx, tenant, keys)
	if err != nil {
		return make([]*itemRequest, len(items))
	}
	for _, p := range pre {
		if p != nil && p.out == nil {
			p.stored = stored[p.key]
		}
	}
	return pre
}

// backoff is the retry policy of verification jobs: base, doubled per
// attempt, capped at five minutes, so that a crash that passes is tried
// again soon and a poison request ends after its attempts in minutes.
type backoff struct{ base time.Duration }

// NextRetry implements river.ClientRetryPolicy.
func (b backoff) NextRetry(job *rivertype.JobRow) time.Time {
	base := b.base
	if base <= 0 {
		base = time.Second
	}
	d := time.Duration(float64(base) * math.Pow(2, float64(max(job.Attempt-1, 0))))
	return time.Now().Add(min(d, 5*time.Minute))
}

// jobErrors logs the failed tries of jobs.
type jobErrors struct{ log *slog.Logger }

// HandleError implements river.ErrorHandler.
func (h jobErrors) HandleError(ctx context.Context, job *rivertype.JobRow, err error) *river.ErrorHandlerResult {
	h.log.Warn("batch job failed", "job", job.ID, "attempt", job.Attempt, "of", job.MaxAttempts, "err", err)
	return nil
}

// HandlePanic implements river.ErrorHandler.
func (h jobErrors) HandlePanic(ctx context.Context, job *rivertype.JobRow, v any, trace string) *river.ErrorHandlerResult {
	h.log.Error("batch job panicked", "job", job.ID, "attempt", job.Attempt, "of", job.MaxAttempts, "panic", v)
	return nil
}
