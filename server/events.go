package server

import (
	"bufio"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/store"
)

// hub wakes the event streams of a tenant when its events are stored.
// Streams read the events themselves from the store, so a stream that
// falls behind loses nothing and a wake-up carries no data.
type hub struct {
	mu   sync.Mutex
	subs map[string]map[chan struct{}]struct{}
	n    int
	// max bounds the streams open at once, perTenant each tenant's share
	// of them: one tenant's idle streams cannot shut the others out.
	max, perTenant int
	// notifier, when the store is shared by several processes, tells
	// the others of the events this one stores (see fanout.go).
	notifier store.Notifier
}

func newHub(max, perTenant int) *hub {
	return &hub{subs: map[string]map[chan struct{}]struct{}{}, max: max, perTenant: perTenant}
}

// subscribe returns a channel that is signalled when the tenant has new
// events, or nil when the server, or the tenant, has as many streams
// open as it may.
func (h *hub) subscribe(tenant string) chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n >= h.max || len(h.subs[tenant]) >= h.perTenant {
		return nil
	}
	c := make(chan struct{}, 1)
	if h.subs[tenant] == nil {
		h.subs[tenant] = map[chan struct{}]struct{}{}
	}
	h.subs[tenant][c] = struct{}{}
	h.n++
	return c
}

func (h *hub) unsubscribe(tenant string, c chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[tenant][c]; ok {
		delete(h.subs[tenant], c)
		h.n--
		if len(h.subs[tenant]) == 0 {
			delete(h.subs, tenant)
		}
	}
}

// notify wakes the tenant's streams: at once in this process and,
// through the store's notifier, in the other processes on the store.
func (h *hub) notify(tenant string) {
	h.wake(tenant)
	if h.notifier != nil {
		h.notifier.Notify(tenant)
	}
}

// wake wakes the tenant's streams in this process.
func (h *hub) wake(tenant string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.subs[tenant] {
		select {
		case c <- struct{}{}:
		default: // already woken
		}
	}
}

// Stream pacing: events read per store query, and the interval of the
// comment that keeps proxies from closing a quiet stream.
const (
	eventPage    = 500
	keepAliveGap = 15 * time.Second
)

// handleEvents streams the caller's events as Server-Sent Events: each
// with its store sequence as id, its type as event and the event JSON as
// data. A client that reconnects with Last-Event-ID (or ?after=SEQ)
// resumes after that event; without one the stream starts with the
// events stored from then on.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	tenant := tenantOf(r.Context())
	ctx := r.Context()
	after := int64(-1)
	for _, v := range []string{r.Header.Get("Last-Event-ID"), r.URL.Query().Get("after")} {
		if v == "" {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			writeError(w, http.StatusBadRequest, string(vouch.ErrInvalid), "Last-Event-ID (or after) is not an event id of this server")
			return
		}
		after = n
		break
	}
	if after < 0 {
		last, err := s.st.LastEventSeq(ctx, tenant)
		if err != nil {
			s.writeStoreError(w, "reading the event stream", err)
			return
		}
		after = last
	}
	wake, unsubscribe := s.subscribe(tenant)
	if wake == nil {
		w.Header().Set("Retry-After", "10")
		writeError(w, http.StatusServiceUnavailable, "overloaded", fmt.Sprintf("too many event streams are open: at most %d per tenant, %d in all", s.hub.perTenant, s.hub.max))
		return
	}
	defer unsubscribe()

	rc := http.NewResponseController(w)
	rc.SetWriteDeadline(time.Time{}) // a stream outlives the write timeout
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "retry: 2000\n\n")
	keepAlive := time.NewTicker(keepAliveGap)
	defer keepAlive.Stop()
	for {
		evs, err := s.st.Events(ctx, tenant, after, eventPage)
		if err != nil {
			if ctx.Err() == nil {
				s.log.Error("store: reading events", "err", err)
			}
			return
		}
		for _, e := range evs {
			fmt.Fprintf(bw, "id: %d\nevent: %s\ndata: %s\n\n", e.Seq, e.Type, e.Data)
			after = e.Seq
		}
		if err := bw.Flush(); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
		if len(evs) == eventPage {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-s.stopping:
			return
		case <-wake:
		case <-keepAlive.C:
			if _, err := bw.WriteString(": keep-alive\n\n"); err != nil {
				return
			}
		}
	}
}

// subscribe wakes an event stream (the API's, or a dashboard page's) when
// the tenant's log changes, counting it in the streams gauge; it returns
// nil when too many are open.
func (s *Server) subscribe(tenant string) (<-chan struct{}, func()) {
	c := s.hub.subscribe(tenant)
	if c == nil {
		return nil, nil
	}
	s.metrics.streams.Inc()
	return c, func() {
		s.hub.unsubscribe(tenant, c)
		s.metrics.streams.Dec()
	}
}
