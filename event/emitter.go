package event

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Sink receives events from an [Emitter]. Send is given the event and its
// JSON encoding (no trailing newline), the same bytes for every sink; it
// must not modify either, nor keep the event's data beyond the call except
// through raw. Send must not block for long: a sink that delivers over a
// network queues the event and returns. Send may be called concurrently.
type Sink interface {
	Send(ev *Event, raw []byte) error
}

// Closer is a [Sink] that holds resources: [Emitter.Close] closes it,
// waiting at most until ctx is done for what it still has to deliver.
type Closer interface {
	Close(ctx context.Context) error
}

// Options configure an [Emitter]. The zero value is ready to use.
type Options struct {
	// Tenant is written into every event that does not name one.
	Tenant string
	// Now is the clock of the events' time; nil is time.Now.
	Now func() time.Time
	// NewID returns a fresh event id; nil is 16 random bytes in hex.
	NewID func() string
}

// Emitter stamps events and hands them to its sinks. A nil *Emitter
// accepts every event and does nothing, so a caller with no sinks needs no
// checks. An Emitter is safe for concurrent use.
type Emitter struct {
	sinks []Sink
	opts  Options

	mu     sync.Mutex
	failed int
}

// NewEmitter returns an emitter that sends every event to each sink, in
// the order given.
func NewEmitter(opts Options, sinks ...Sink) *Emitter {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.NewID == nil {
		opts.NewID = newID
	}
	return &Emitter{sinks: sinks, opts: opts}
}

// Emit fills in the event's id, time and tenant where they are empty,
// encodes it and sends it to every sink. It returns the event as sent, and
// the errors of the sinks that could not take it, joined (an event a sink
// dropped for want of room wraps [ErrDropped]); a failing sink does not
// stop the others. An event that cannot be encoded goes to no sink.
func (e *Emitter) Emit(ev Event) (Event, error) {
	if e == nil {
		return ev, nil
	}
	if ev.ID == "" {
		ev.ID = e.opts.NewID()
	}
	if ev.Time.IsZero() {
		ev.Time = e.opts.Now().UTC()
	}
	if ev.Tenant == "" {
		ev.Tenant = e.opts.Tenant
	}
	raw, err := json.Marshal(&ev)
	if err != nil {
		e.count(1)
		return ev, fmt.Errorf("event: encode %s: %w", ev.Type, err)
	}
	var errs []error
	for _, s := range e.sinks {
		if err := s.Send(&ev, raw); err != nil {
			errs = append(errs, err)
		}
	}
	e.count(len(errs))
	return ev, errors.Join(errs...)
}

func (e *Emitter) count(n int) {
	if n == 0 {
		return
	}
	e.mu.Lock()
	e.failed += n
	e.mu.Unlock()
}

// Failures returns how many times a sink could not take an event (or an
// event could not be encoded) since the emitter was made.
func (e *Emitter) Failures() int {
	if e == nil {
		return 0
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.failed
}

// Close closes every sink that is a [Closer], waiting at most until ctx is
// done, and returns their errors joined.
func (e *Emitter) Close(ctx context.Context) error {
	if e == nil {
		return nil
	}
	var errs []error
	for _, s := range e.sinks {
		if c, ok := s.(Closer); ok {
			if err := c.Close(ctx); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
