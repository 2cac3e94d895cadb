package judge

import (
	"errors"
	"sync"
	"time"
)

// ErrCircuitOpen is returned instead of calling a model whose recent calls
// all failed: the breaker is open until its cooldown has passed.
var ErrCircuitOpen = errors.New("judge: circuit open: recent calls to this model failed; not calling it until the cooldown has passed")

// breaker stops calling a model after failures in a row. Closed, it lets
// calls through and counts failures; at the limit it opens and refuses
// calls for the cooldown; then it lets one trial call through (half open):
// a success closes it, a failure opens it again. All times come from the
// judge's clock.
type breaker struct {
	mu       sync.Mutex
	failures int
	openAt   time.Time // zero when closed
	trial    bool      // a half-open trial call is in flight
}

// allow reports whether a call may be made now.
func (b *breaker) allow(now time.Time, cooldown time.Duration) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.openAt.IsZero() {
		return nil
	}
	if now.Before(b.openAt.Add(cooldown)) || b.trial {
		return ErrCircuitOpen
	}
	b.trial = true
	return nil
}

// done records a call's outcome.
func (b *breaker) done(ok bool, now time.Time, limit int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if ok {
		b.failures, b.openAt, b.trial = 0, time.Time{}, false
		return
	}
	b.failures++
	if b.trial || b.failures >= limit {
		b.openAt, b.trial = now, false
	}
}
