package server

import (
	"bufio"
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/store/storetest"
)

// fanOutWait bounds how long a test waits for an event to reach a stream
// of another server; it is below the keep-alive gap, though a keep-alive
// does not read the store anyway.
const fanOutWait = 10 * time.Second

// sseEvent is one event read from a stream.
type sseEvent struct{ typ, data string }

// openStream opens GET /v1/events on e, from the events stored from now
// on, and returns its events as they come; the stream ends with the test.
func openStream(t *testing.T, e *testEnv) <-chan sseEvent {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.http.URL+"/v1/events", nil)
	res, err := e.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	br := bufio.NewReader(res.Body)
	// The stream subscribes before it answers: once this line is read,
	// every event stored afterwards must reach it.
	if line, err := br.ReadString('\n'); err != nil || line != "retry: 2000\n" {
		t.Fatalf("stream: %d %q %v", res.StatusCode, line, err)
	}
	c := make(chan sseEvent)
	go func() {
		defer close(c)
		var ev sseEvent
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSuffix(line, "\n")
			switch {
			case strings.HasPrefix(line, "event: "):
				ev.typ = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.data = strings.TrimPrefix(line, "data: ")
			case line == "" && ev.typ != "":
				select {
				case c <- ev:
				case <-ctx.Done():
					return
				}
				ev = sseEvent{}
			}
		}
	}()
	return c
}

// waitEvent reads a stream until an event of type typ whose data
// mentions id, failing after fanOutWait.
func waitEvent(t *testing.T, c <-chan sseEvent, typ, id string) {
	t.Helper()
	deadline := time.NewTimer(fanOutWait)
	defer deadline.Stop()
	for {
		select {
		case ev, ok := <-c:
			if !ok {
				t.Fatalf("the stream ended before %s of %s", typ, id)
			}
			if ev.typ == typ && strings.Contains(ev.data, `"`+id+`"`) {
				return
			}
		case <-deadline.C:
			t.Fatalf("%s of %s did not reach the other server's stream within %s", typ, id, fanOutWait)
		}
	}
}

// testFanOut checks two servers on one store: a verification posted to A
// reaches a stream open on B, which stores nothing. The second one can
// only reach B through a notification: B's listener was connected by the
// time the first arrived (whether a notification or the wake after its
// connection brought that one).
func testFanOut(t *testing.T, a, b *testEnv) {
	events := openStream(t, b)
	for _, id := range []string{"fan-1", "fan-2"} {
		if res := a.do(http.MethodPost, "/v1/verify", "", request(id, 1, "DONE")); res.status != http.StatusOK {
			t.Fatalf("verify %s on A: %d %s", id, res.status, res.body)
		}
		waitEvent(t, events, "verification:complete", id)
	}
}

// TestEventsFanOutPostgres runs testFanOut on two servers, each with a
// store of its own, on one PostgreSQL schema (LISTEN/NOTIFY).
func TestEventsFanOutPostgres(t *testing.T) {
	dsn := storetest.PostgresSchema(t, storetest.PostgresServer(t))
	testFanOut(t, newEnvOn(t, dsn, nil), newEnvOn(t, dsn, nil))
}

// TestEventsFanOut runs testFanOut without PostgreSQL: two servers on one
// SQLite file, each store wrapped to share its notifications in process.
func TestEventsFanOut(t *testing.T) {
	bus := &fakeBus{deliver: true}
	dsn := filepath.Join(t.TempDir(), "vouch.db")
	testFanOut(t, newEnvStore(t, bus.wrap(t, dsn)), newEnvStore(t, bus.wrap(t, dsn)))
}

// TestEventsWakeAfterReconnect checks the wake after a listener connects
// again: a verification stored by A while B did not listen (its
// notification lost) reaches B's stream then.
func TestEventsWakeAfterReconnect(t *testing.T) {
	bus := &fakeBus{}
	dsn := filepath.Join(t.TempDir(), "vouch.db")
	a, b := newEnvStore(t, bus.wrap(t, dsn)), newEnvStore(t, bus.wrap(t, dsn))
	bus.waitListeners(t, 2)
	events := openStream(t, b)
	if res := a.do(http.MethodPost, "/v1/verify", "", request("lost-1", 1, "DONE")); res.status != http.StatusOK {
		t.Fatalf("verify on A: %d %s", res.status, res.body)
	}
	bus.reconnect()
	waitEvent(t, events, "verification:complete", "lost-1")
}

// newEnvStore builds a test server on st (closed when the test ends).
func newEnvStore(t *testing.T, st store.Store) *testEnv {
	t.Helper()
	t.Cleanup(func() { st.Close() })
	c := &clock{}
	srv, err := New(Options{Config: DefaultConfig(), Store: st, Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	return &testEnv{t: t, srv: srv, http: newHTTPTest(t, srv), store: st, clock: c}
}

// fakeBus is a store.Notifier in process, shared by the stores it wraps:
// Notify calls every Listen's fn when deliver is set, and drops the
// notification otherwise (as when the listeners' connections are lost).
type fakeBus struct {
	mu        sync.Mutex
	deliver   bool
	listeners map[int]func(string)
	next      int
	changed   chan struct{}
}

// busStore is a store that notifies through a fakeBus.
type busStore struct {
	store.Store
	bus *fakeBus
}

var _ store.Notifier = busStore{}

// wrap opens the store at dsn, notifying through b.
func (b *fakeBus) wrap(t *testing.T, dsn string) store.Store {
	t.Helper()
	st, err := store.Open(t.Context(), dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return busStore{Store: st, bus: b}
}

func (s busStore) Notify(tenant string) {
	s.bus.mu.Lock()
	var fns []func(string)
	if s.bus.deliver {
		for _, fn := range s.bus.listeners {
			fns = append(fns, fn)
		}
	}
	s.bus.mu.Unlock()
	for _, fn := range fns {
		fn(tenant)
	}
}

func (s busStore) Listen(ctx context.Context, fn func(string)) error {
	b := s.bus
	fn("") // connected, before waitListeners can see it
	b.mu.Lock()
	if b.listeners == nil {
		b.listeners = map[int]func(string){}
	}
	id := b.next
	b.next++
	b.listeners[id] = fn
	if b.changed != nil {
		close(b.changed)
		b.changed = nil
	}
	b.mu.Unlock()
	<-ctx.Done()
	b.mu.Lock()
	delete(b.listeners, id)
	b.mu.Unlock()
	return nil
}

// waitListeners waits until n Listens run.
func (b *fakeBus) waitListeners(t *testing.T, n int) {
	t.Helper()
	deadline := time.NewTimer(fanOutWait)
	defer deadline.Stop()
	for {
		b.mu.Lock()
		have := len(b.listeners)
		if have >= n {
			b.mu.Unlock()
			return
		}
		if b.changed == nil {
			b.changed = make(chan struct{})
		}
		changed := b.changed
		b.mu.Unlock()
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("%d listeners, want %d", have, n)
		}
	}
}

// reconnect calls every Listen's fn as after a new connection.
func (b *fakeBus) reconnect() {
	b.mu.Lock()
	var fns []func(string)
	for _, fn := range b.listeners {
		fns = append(fns, fn)
	}
	b.mu.Unlock()
	for _, fn := range fns {
		fn("")
	}
}
