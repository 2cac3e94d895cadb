package store

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Notifier is implemented by the stores that several processes share
// (PostgreSQL; not SQLite, whose file one process uses): through it, a
// process that stored a tenant's events tells the others, so that event
// streams served by one process wake for events another stored (a server
// behind the same load balancer, a batch worker). Test for it with a type
// assertion. A notification carries no data: the listener reads the
// events from the store.
//
// Its methods are safe for concurrent use.
type Notifier interface {
	// Notify tells every process listening on the store, this one
	// included, that the tenant has new events; call it once they are
	// committed. It does not wait: the notifications are sent in the
	// background right away, and together (each tenant once) while a
	// send is under way. An invalid tenant, or a call after Close, is
	// ignored.
	Notify(tenant string)
	// Listen calls fn with each tenant notified, by any process on the
	// store, until ctx is done (it then returns nil) or the store is
	// closed (ErrClosed). Each Listen takes a connection out of the pool
	// for itself (the pool may open another in its place). After a lost
	// connection it connects again, waiting longer after each failed
	// attempt (up to 10 s). After each connection, the first included,
	// it calls fn(""): notifications sent while it was not listening are
	// lost, so the caller should then act as if every tenant were
	// notified. A tenant may be notified more than once for one change,
	// and stores in other schemas of the same database share the
	// notifications. fn is called from one goroutine at a time and
	// should return quickly.
	Listen(ctx context.Context, fn func(tenant string)) error
}

// notifyChannel is the PostgreSQL channel of the notifications; the
// payload is the tenant. Channels are per database, not per schema.
const notifyChannel = "vouch_events"

// How Listen waits between attempts to connect, and how long a send of
// notifications may take.
const (
	listenRetryMin = 100 * time.Millisecond
	listenRetryMax = 10 * time.Second
	notifyTimeout  = 5 * time.Second
	// lastNotifyTimeout bounds the send of what is queued when the
	// store closes, so that Close does not hang on a lost database.
	lastNotifyTimeout = time.Second
)

var _ Notifier = (*pgStore)(nil)

// Notify implements [Notifier.Notify]. NOTIFY is not sent in the
// transactions that write events, as PostgreSQL serialises the commits of
// every transaction that notifies, across tenants: a goroutine of the
// store sends the tenants queued since its last send in one statement.
func (s *pgStore) Notify(tenant string) { s.pg.notes.queue.add(tenant) }

// Listen implements [Notifier.Listen].
func (s *pgStore) Listen(ctx context.Context, fn func(tenant string)) error {
	return s.pg.notes.listen(ctx, fn)
}

// notifier is the notifications of a PostgreSQL store: the queue Notify
// adds to, and the Listens, which end when the store closes.
type notifier struct {
	pool  *pgxpool.Pool
	log   *slog.Logger
	queue *notifyQueue

	// life ends when the store closes, and with it every Listen; close
	// waits for them.
	life      context.Context
	endLife   context.CancelFunc
	mu        sync.Mutex
	closing   bool
	listeners sync.WaitGroup
}

func newNotifier(pool *pgxpool.Pool, log *slog.Logger) *notifier {
	life, end := context.WithCancel(context.Background())
	return &notifier{pool: pool, log: log, queue: newNotifyQueue(pool, log), life: life, endLife: end}
}

// listen implements [Notifier.Listen].
func (nt *notifier) listen(ctx context.Context, fn func(tenant string)) error {
	nt.mu.Lock()
	if nt.closing {
		nt.mu.Unlock()
		return fmt.Errorf("store: listen: %w", ErrClosed)
	}
	nt.listeners.Add(1)
	nt.mu.Unlock()
	defer nt.listeners.Done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(nt.life, cancel)()
	// ended is what Listen returns once ctx is done.
	ended := func() error {
		if nt.life.Err() != nil {
			return fmt.Errorf("store: listen: %w", ErrClosed)
		}
		return nil
	}
	wait := time.Duration(0)
	for {
		connected, err := nt.listenOnce(ctx, fn)
		if ctx.Err() != nil {
			return ended()
		}
		if connected {
			wait = 0
		}
		wait = min(max(2*wait, listenRetryMin), listenRetryMax)
		nt.log.Warn("store: not listening for notifications: connecting again", "err", err, "in", wait)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ended()
		case <-t.C:
		}
	}
}

// listenOnce listens on a connection taken from the pool until ctx is
// done or the connection fails, and reports whether it was listening.
func (nt *notifier) listenOnce(ctx context.Context, fn func(tenant string)) (listening bool, err error) {
	pc, err := nt.pool.Acquire(ctx)
	if err != nil {
		return false, err
	}
	// A listening connection must not serve queries afterwards: it
	// leaves the pool, and is closed here.
	c := pc.Hijack()
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		c.Close(cctx)
	}()
	if _, err := c.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
		return false, err
	}
	fn("")
	for {
		msg, err := c.WaitForNotification(ctx)
		if err != nil {
			return true, err
		}
		if msg.Channel == notifyChannel && ValidTenant(msg.Payload) {
			fn(msg.Payload)
		}
	}
}

// close ends the Listens and sends the notifications still queued; the
// store then closes its pool. Listen and Notify do nothing after it.
func (nt *notifier) close() {
	if nt == nil {
		return
	}
	nt.mu.Lock()
	if nt.closing {
		nt.mu.Unlock()
		return
	}
	nt.closing = true
	nt.mu.Unlock()
	nt.endLife()
	nt.listeners.Wait()
	nt.queue.close()
}

// notifyQueue sends notifications from a goroutine of its own, started at
// the first one: the tenants queued while it sends go together in its
// next statement.
type notifyQueue struct {
	pool *pgxpool.Pool
	log  *slog.Logger

	mu      sync.Mutex
	pending map[string]struct{}
	started bool
	closed  bool

	wake chan struct{} // a send is due (capacity 1)
	stop chan struct{} // closed by close
	done chan struct{} // closed when the goroutine ends
}

func newNotifyQueue(pool *pgxpool.Pool, log *slog.Logger) *notifyQueue {
	return &notifyQueue{pool: pool, log: log, pending: map[string]struct{}{},
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
}

// add queues a tenant. A valid tenant is at most 63 bytes, far below
// PostgreSQL's limit on a payload (8000 bytes).
func (q *notifyQueue) add(tenant string) {
	if !ValidTenant(tenant) {
		return
	}
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.pending[tenant] = struct{}{}
	if !q.started {
		q.started = true
		go q.run()
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default: // a send is already due
	}
}

// run sends what is queued whenever there is something, until close; a
// failed send is tried again after a wait (the tenants stay queued), and
// once more when the queue closes.
func (q *notifyQueue) run() {
	defer close(q.done)
	wait := time.Duration(0)
	for {
		select {
		case <-q.stop:
			q.send(lastNotifyTimeout)
			return
		case <-q.wake:
		}
		if err := q.send(notifyTimeout); err != nil {
			wait = min(max(2*wait, listenRetryMin), listenRetryMax)
			q.log.Warn("store: sending notifications failed, trying again", "err", err, "in", wait)
			t := time.NewTimer(wait)
			select {
			case <-q.stop:
				t.Stop()
				q.send(lastNotifyTimeout)
				return
			case <-t.C:
			}
			select {
			case q.wake <- struct{}{}:
			default:
			}
			continue
		}
		wait = 0
	}
}

// send notifies the queued tenants in one statement, within timeout; on
// failure they are queued again.
func (q *notifyQueue) send(timeout time.Duration) error {
	q.mu.Lock()
	if len(q.pending) == 0 {
		q.mu.Unlock()
		return nil
	}
	tenants := make([]string, 0, len(q.pending))
	for t := range q.pending {
		tenants = append(tenants, t)
	}
	clear(q.pending)
	q.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	_, err := q.pool.Exec(ctx, `SELECT pg_notify($1, t) FROM unnest($2::text[]) AS t`, notifyChannel, tenants)
	if err != nil {
		q.mu.Lock()
		for _, t := range tenants {
			q.pending[t] = struct{}{}
		}
		q.mu.Unlock()
		return err
	}
	return nil
}

// close stops taking notifications and ends the goroutine after a last
// send of what is queued.
func (q *notifyQueue) close() {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.closed = true
	started := q.started
	q.mu.Unlock()
	close(q.stop)
	if started {
		<-q.done
	}
}
