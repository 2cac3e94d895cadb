package server

import (
	"context"
	"errors"

	"github.com/vouchgate/vouch/store"
)

// Event streams across processes. A stream reads its tenant's events from
// the store and waits to be woken when there are new ones. The process
// that stores events wakes its own streams directly (hub.notify); when
// the store is shared by several processes (a store.Notifier:
// PostgreSQL), it also tells the others through the store, and each
// process wakes its streams of the tenants it hears of. A process hears
// its own notifications too: a harmless extra wake. Notifications sent
// while a process was not listening (a lost connection) are lost, so
// after each connection it wakes every stream, which then reads what it
// missed.

// shareEvents makes the hub tell the other processes on the store of
// the events this one stores, when the store is shared. st is the store
// as given, not the instrumented wrapper, which hides the capability.
func (s *Server) shareEvents(st store.Store) {
	if n, ok := st.(store.Notifier); ok {
		s.hub.notifier = n
	}
}

// listenEvents wakes the streams of each tenant notified by any process
// on the store, and every stream after each connection, until ctx is
// done; it returns at once when the store is not shared.
func (s *Server) listenEvents(ctx context.Context) {
	n := s.hub.notifier
	if n == nil {
		return
	}
	err := n.Listen(ctx, func(tenant string) {
		if tenant == "" {
			s.hub.wakeAll()
			return
		}
		s.hub.wake(tenant)
	})
	if err != nil && ctx.Err() == nil && !errors.Is(err, store.ErrClosed) {
		s.log.Error("events: listening for the events of other processes", "err", err)
	}
}

// wakeAll wakes every stream in this process.
func (h *hub) wakeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, subs := range h.subs {
		for c := range subs {
			select {
			case c <- struct{}{}:
			default: // already woken
			}
		}
	}
}
