package event_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vouchgate/vouch/event"
)

var secret = []byte("whsec-test-0123456789")

// receiver is a loopback endpoint that verifies each delivery's signature
// and answers with the statuses it is given, in order (then 200).
type receiver struct {
	srv *httptest.Server
	now time.Time

	mu       sync.Mutex
	statuses []int
	got      []delivered
	bad      []error
	hold     chan struct{} // when set, each request waits on it
	arrived  chan struct{}
}

type delivered struct {
	header http.Header
	body   []byte
}

func newReceiver(t *testing.T, statuses ...int) *receiver {
	r := &receiver{statuses: statuses, now: time.Unix(1_800_000_000, 0), arrived: make(chan struct{}, 100)}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.arrived <- struct{}{}
	if r.hold != nil {
		<-r.hold
	}
	r.mu.Lock()
	if err := event.VerifySignature(secret, req.Header, body, r.now, 0); err != nil {
		r.bad = append(r.bad, err)
	}
	r.got = append(r.got, delivered{req.Header.Clone(), body})
	status := 200
	if len(r.statuses) > 0 {
		status, r.statuses = r.statuses[0], r.statuses[1:]
	}
	r.mu.Unlock()
	if status == 429 {
		w.Header().Set("Retry-After", "7")
	}
	w.WriteHeader(status)
}

// deliveries returns what the receiver got and the signature errors.
func (r *receiver) deliveries() ([]delivered, []error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivered(nil), r.got...), append([]error(nil), r.bad...)
}

// waits records the webhook's backoff instead of sleeping.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *waits) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *waits) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

func newWebhook(t *testing.T, r *receiver, w *waits, queue int) *event.Webhook {
	t.Helper()
	wh, err := event.NewWebhook(event.WebhookOptions{URL: r.srv.URL + "/hook", Secret: secret, Queue: queue,
		Sleep: w.sleep, Now: func() time.Time { return r.now }})
	if err != nil {
		t.Fatal(err)
	}
	return wh
}

func TestWebhookSignsAndRetries(t *testing.T) {
	r := newReceiver(t, 503, 429, 500)
	w := &waits{}
	wh := newWebhook(t, r, w, 8)
	em := event.NewEmitter(fixed(), wh)
	sent, err := em.Emit(event.Event{Type: event.VerificationRetry, TaskID: "t-1", Attempt: 1, Data: &event.Retry{Feedback: "fix it"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := wh.Stats()
	if st.Delivered != 1 || st.Retries != 3 || st.Failed != 0 || st.Dropped != 0 {
		t.Errorf("stats %+v", st)
	}
	// Backoff doubles from 1 s; the 429's Retry-After of 7 s wins over 2 s.
	if want := []time.Duration{time.Second, 7 * time.Second, 4 * time.Second}; !equalDurations(w.all(), want) {
		t.Errorf("waits %v, want %v", w.d, want)
	}
	got, bad := r.deliveries()
	if len(bad) != 0 || len(got) != 4 {
		t.Fatalf("bad signatures %v, %d deliveries", bad, len(got))
	}
	for _, d := range got {
		if d.header.Get(event.HeaderDelivery) != sent.ID || d.header.Get(event.HeaderEvent) != "verification:retry" {
			t.Errorf("headers %v", d.header)
		}
		var ev event.Event
		if err := json.Unmarshal(d.body, &ev); err != nil || ev.Data.(*event.Retry).Feedback != "fix it" {
			t.Errorf("body %s: %v", d.body, err)
		}
	}
}

func TestVerifySignature(t *testing.T) {
	body := []byte(`{"type":"verification:retry"}`)
	now := time.Unix(1_800_000_000, 0)
	h := http.Header{}
	h.Set(event.HeaderTimestamp, "1800000000")
	h.Set(event.HeaderSignature, event.Sign(secret, 1_800_000_000, body))
	if err := event.VerifySignature(secret, h, body, now, 0); err != nil {
		t.Fatal(err)
	}
	for name, tt := range map[string]struct {
		secret []byte
		body   []byte
		now    time.Time
		want   error
	}{
		"other secret":  {[]byte("other"), body, now, event.ErrSignature},
		"body changed":  {secret, []byte(`{"type":"verification:complete"}`), now, event.ErrSignature},
		"replayed late": {secret, body, now.Add(6 * time.Minute), event.ErrTimestamp},
	} {
		if err := event.VerifySignature(tt.secret, h, tt.body, tt.now, 0); !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", name, err, tt.want)
		}
	}
	h.Del(event.HeaderSignature)
	if err := event.VerifySignature(secret, h, body, now, 0); !errors.Is(err, event.ErrSignature) {
		t.Errorf("no signature: %v", err)
	}
	// The timestamp is signed: moving it forward breaks the signature.
	h.Set(event.HeaderSignature, event.Sign(secret, 1_800_000_000, body))
	h.Set(event.HeaderTimestamp, "1800000060")
	if err := event.VerifySignature(secret, h, body, now, 0); !errors.Is(err, event.ErrSignature) {
		t.Errorf("moved timestamp: %v", err)
	}
}

// A status a retry would not change fails at once; running out of tries
// fails too. Neither blocks the emitter.
func TestWebhookGivesUp(t *testing.T) {
	r := newReceiver(t, 400, 500, 500, 500, 500, 500)
	w := &waits{}
	wh := newWebhook(t, r, w, 8)
	em := event.NewEmitter(fixed(), wh)
	for range 2 {
		if _, err := em.Emit(event.Event{Type: event.VerificationRetry, Data: &event.Retry{}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := wh.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := wh.Stats()
	if st.Delivered != 0 || st.Failed != 2 || st.Retries != 4 || !strings.Contains(st.LastError, "after 5 tries") {
		t.Errorf("stats %+v", st)
	}
	if got, _ := r.deliveries(); len(got) != 6 {
		t.Errorf("%d requests, want 1 + 5", len(got))
	}
}

// With the receiver stuck, the queue fills and further events are dropped
// and counted at once: Emit never waits for the network.
func TestWebhookNeverBlocks(t *testing.T) {
	r := newReceiver(t)
	r.hold = make(chan struct{})
	wh := newWebhook(t, r, &waits{}, 2)
	em := event.NewEmitter(fixed(), wh)
	emit := func() error {
		_, err := em.Emit(event.Event{Type: event.VerificationRetry, Data: &event.Retry{}})
		return err
	}
	if err := emit(); err != nil {
		t.Fatal(err)
	}
	<-r.arrived // the first is in flight, held by the receiver
	for i := range 2 {
		if err := emit(); err != nil {
			t.Fatalf("queued %d: %v", i, err)
		}
	}
	done := make(chan int)
	go func() {
		dropped := 0
		for range 5 {
			if err := emit(); errors.Is(err, event.ErrDropped) {
				dropped++
			}
		}
		done <- dropped
	}()
	select {
	case n := <-done:
		if n != 5 {
			t.Errorf("%d of 5 dropped", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Emit blocked on a stuck receiver")
	}
	close(r.hold)
	if err := wh.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := wh.Stats(); st.Delivered != 3 || st.Dropped != 5 {
		t.Errorf("stats %+v", st)
	}
	if err := emit(); !errors.Is(err, event.ErrDropped) {
		t.Errorf("emit after close: %v", err)
	}
}

// Close gives up on a receiver that never answers when its context ends.
func TestWebhookCloseDeadline(t *testing.T) {
	r := newReceiver(t)
	r.hold = make(chan struct{})
	defer close(r.hold)
	wh := newWebhook(t, r, &waits{}, 4)
	em := event.NewEmitter(fixed(), wh)
	for range 3 {
		em.Emit(event.Event{Type: event.VerificationRetry, Data: &event.Retry{}})
	}
	<-r.arrived
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := wh.Close(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("close: %v", err)
	}
	if st := wh.Stats(); st.Delivered != 0 || st.Failed != 1 || st.Dropped != 2 {
		t.Errorf("stats %+v", st)
	}
}

func TestNewWebhookRefuses(t *testing.T) {
	for _, o := range []event.WebhookOptions{
		{URL: "ftp://x/hook", Secret: secret},
		{URL: "http:///hook", Secret: secret},
		{URL: "http://127.0.0.1/hook"},
	} {
		if _, err := event.NewWebhook(o); err == nil {
			t.Errorf("NewWebhook(%+v) succeeded", o)
		}
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
