package store_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/store/storetest"
)

// heardWait bounds how long a test waits for a notification.
const heardWait = 20 * time.Second

// heard records what a Listen called its fn with. Notifications of other
// tests (other schemas of the same database share the channel) may come
// too, so tests wait for what they expect among them.
type heard struct {
	mu       sync.Mutex
	tenants  map[string]int
	connects int
	changed  chan struct{}
}

func newHeard() *heard {
	return &heard{tenants: map[string]int{}, changed: make(chan struct{}, 1)}
}

func (h *heard) fn(tenant string) {
	h.mu.Lock()
	if tenant == "" {
		h.connects++
	} else {
		h.tenants[tenant]++
	}
	h.mu.Unlock()
	select {
	case h.changed <- struct{}{}:
	default:
	}
}

// waitFor waits until cond, read under the lock, holds; it fails the test
// after heardWait.
func (h *heard) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(heardWait)
	defer deadline.Stop()
	for {
		h.mu.Lock()
		ok := cond()
		h.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-h.changed:
		case <-deadline.C:
			t.Fatalf("after %s: still waiting for %s", heardWait, what)
		}
	}
}

// listen runs s.Listen into a new heard until the test ends, and waits
// for its first connection; the returned channel has Listen's result.
func listen(t *testing.T, ctx context.Context, s store.Store) (*heard, <-chan error) {
	t.Helper()
	n, ok := s.(store.Notifier)
	if !ok {
		t.Fatalf("%T is not a store.Notifier", s)
	}
	h := newHeard()
	done := make(chan error, 1)
	go func() { done <- n.Listen(ctx, h.fn) }()
	h.waitFor(t, "the listener to connect", func() bool { return h.connects >= 1 })
	return h, done
}

// uniqueTenant returns a tenant name no other test notifies.
func uniqueTenant(t *testing.T) string {
	b := make([]byte, 6)
	rand.Read(b)
	return "n-" + hex.EncodeToString(b)
}

func openPG(t *testing.T, dsn string) store.Store {
	t.Helper()
	s, err := store.Open(t.Context(), dsn, store.Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestPostgresNotify checks that a tenant notified through one store is
// heard by a Listen on another store of the same database, and by one on
// the notifying store itself.
func TestPostgresNotify(t *testing.T) {
	dsn := storetest.PostgresSchema(t, storetest.PostgresServer(t))
	a, b := openPG(t, dsn), openPG(t, dsn)
	ctx, cancel := context.WithCancel(t.Context())
	hb, doneB := listen(t, ctx, b)
	ha, doneA := listen(t, ctx, a)

	tenant := uniqueTenant(t)
	a.(store.Notifier).Notify(tenant)
	hb.waitFor(t, "store B to hear "+tenant, func() bool { return hb.tenants[tenant] > 0 })
	ha.waitFor(t, "store A to hear "+tenant, func() bool { return ha.tenants[tenant] > 0 })

	cancel()
	for name, done := range map[string]<-chan error{"A": doneA, "B": doneB} {
		if err := <-done; err != nil {
			t.Errorf("Listen on %s after its context ended: %v, want nil", name, err)
		}
	}
}

// TestPostgresNotifyMany notifies many tenants from many goroutines at
// once (sent together while a send is under way): every one is heard.
func TestPostgresNotifyMany(t *testing.T) {
	dsn := storetest.PostgresSchema(t, storetest.PostgresServer(t))
	a, b := openPG(t, dsn), openPG(t, dsn)
	hb, _ := listen(t, t.Context(), b)

	prefix := uniqueTenant(t)
	const n, workers = 300, 8
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				a.(store.Notifier).Notify(fmt.Sprintf("%s-%d", prefix, i))
				a.(store.Notifier).Notify(fmt.Sprintf("%s-%d", prefix, i)) // again: coalesced or not, harmless
			}
		})
	}
	wg.Wait()
	hb.waitFor(t, fmt.Sprintf("all %d tenants", n), func() bool {
		for i := range n {
			if hb.tenants[fmt.Sprintf("%s-%d", prefix, i)] == 0 {
				return false
			}
		}
		return true
	})
}

// TestPostgresListenReconnects kills the listening connection's backend:
// the listener connects again, says so with fn(""), and hears the
// notifications sent after that.
func TestPostgresListenReconnects(t *testing.T) {
	server := storetest.PostgresServer(t)
	dsn := storetest.PostgresSchema(t, server)
	// The listener's connections carry a name of their own, so that this
	// test finds its backend among those of the tests beside it.
	app := uniqueTenant(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	a, b := openPG(t, dsn), openPG(t, u.String())
	hb, _ := listen(t, t.Context(), b)

	before := uniqueTenant(t)
	a.(store.Notifier).Notify(before)
	hb.waitFor(t, "the first notification", func() bool { return hb.tenants[before] > 0 })

	admin, err := pgx.Connect(t.Context(), server)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	var killed int
	if err := admin.QueryRow(t.Context(), `SELECT COUNT(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE application_name = $1 AND query LIKE 'LISTEN %') AS k`, app).Scan(&killed); err != nil {
		t.Fatal(err)
	}
	if killed != 1 {
		t.Fatalf("terminated %d listening backends, want 1", killed)
	}
	hb.waitFor(t, "the listener to connect again", func() bool { return hb.connects >= 2 })

	after := uniqueTenant(t)
	a.(store.Notifier).Notify(after)
	hb.waitFor(t, "a notification after the reconnection", func() bool { return hb.tenants[after] > 0 })
}

// TestPostgresNotifyClose checks Close with a Listen running and
// notifications queued: it ends the Listen (ErrClosed) and returns; after
// it, Notify is ignored and Listen returns ErrClosed.
func TestPostgresNotifyClose(t *testing.T) {
	dsn := storetest.PostgresSchema(t, storetest.PostgresServer(t))
	s := openPG(t, dsn)
	n := s.(store.Notifier)
	_, done := listen(t, t.Context(), s)
	for i := range 50 {
		n.Notify(fmt.Sprintf("closing-%d", i))
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := <-done; !errors.Is(err, store.ErrClosed) {
		t.Errorf("Listen ended by Close: %v, want ErrClosed", err)
	}
	n.Notify("after-close")
	if err := n.Listen(t.Context(), func(string) { t.Error("fn called after Close") }); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Listen after Close: %v, want ErrClosed", err)
	}
}

// TestSQLiteIsNotNotifier: one process uses an SQLite file, so its store
// has no notifications to share.
func TestSQLiteIsNotNotifier(t *testing.T) {
	s, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "vouch.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, ok := s.(store.Notifier); ok {
		t.Errorf("the SQLite store (%T) is a store.Notifier", s)
	}
}
