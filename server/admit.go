package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// Admission. A request is served in two steps, so that a client that
// sends slowly holds nothing another caller needs:
//
//  1. its body is read whole, bounded in size and in time (holdBody), its
//     bytes counted as they arrive against a server-wide budget of held
//     bodies, of which each address has a share;
//  2. only then does it take an in-flight slot (limitInFlight), of which
//     each caller (an API key, or the address of a caller without one)
//     has its own share.
//
// A slow body therefore costs its sender a connection and the bytes it
// actually sent, for at most the body timeout; it never holds a slot.

// budget is a count of bytes that may be held at once, server-wide and
// per caller; take never waits.
type budget struct {
	max, perCaller int64

	mu     sync.Mutex
	used   int64
	byWhom map[string]int64
}

func newBudget(max, perCaller int64) *budget {
	return &budget{max: max, perCaller: perCaller, byWhom: map[string]int64{}}
}

// take reserves n bytes for caller, or reports false (reserving nothing)
// when that would go over the server's budget or the caller's share.
func (b *budget) take(caller string, n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.max || b.byWhom[caller]+n > b.perCaller {
		return false
	}
	b.used += n
	b.byWhom[caller] += n
	return true
}

// give returns n bytes caller reserved.
func (b *budget) give(caller string, n int64) {
	if n <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
	if b.byWhom[caller] -= n; b.byWhom[caller] <= 0 {
		delete(b.byWhom, caller)
	}
}

// inUse returns the bytes held server-wide.
func (b *budget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// slots bounds the requests served at once, server-wide and per caller.
type slots struct {
	all       chan struct{}
	perCaller int

	mu      sync.Mutex
	callers map[string]int
}

func newSlots(max, perCaller int) *slots {
	return &slots{all: make(chan struct{}, max), perCaller: perCaller, callers: map[string]int{}}
}

// enter takes a slot for caller; it returns "" on success, else which
// limit was met: "caller" or "server".
func (s *slots) enter(caller string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.callers[caller] >= s.perCaller {
		return "caller"
	}
	select {
	case s.all <- struct{}{}:
	default:
		return "server"
	}
	s.callers[caller]++
	return ""
}

// leave gives back caller's slot.
func (s *slots) leave(caller string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	<-s.all
	if s.callers[caller]--; s.callers[caller] <= 0 {
		delete(s.callers, caller)
	}
}

// inUse returns the slots taken by caller.
func (s *slots) inUse(caller string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.callers[caller]
}

// callerOf names who a request is for the in-flight shares: its API key
// once authenticated, else its address. Callers without a key are told
// apart by address (without the port: one host's connections are one
// caller).
func callerOf(r *http.Request) string {
	if p := principalOf(r.Context()); p.key != nil {
		return "key:" + p.key.ID
	}
	return addrOf(r)
}

// addrOf names a request's caller by its address, without the port.
func addrOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "addr:" + host
}

// limitInFlight serves a request within its caller's share of the
// in-flight slots, and answers 429 with Retry-After when the share or the
// server's limit is met, instead of queueing without bound. It is placed
// after authentication and after the body is read: no slot waits on a
// client.
func (s *Server) limitInFlight(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		caller := callerOf(r)
		switch s.slots.enter(caller) {
		case "":
		case "caller":
			s.metrics.rejected.Inc()
			w.Header().Set("Retry-After", "1")
			writeError(w, http.StatusTooManyRequests, "overloaded", fmt.Sprintf("this caller already has %d requests in flight, its share of the server's limit; retry after a second", s.slots.perCaller))
			return
		default:
			s.metrics.rejected.Inc()
			w.Header().Set("Retry-After", "1")
			writeError(w, http.StatusTooManyRequests, "overloaded", fmt.Sprintf("%d requests are in flight, the server's limit; retry after a second", cap(s.slots.all)))
			return
		}
		s.metrics.inFlight.Inc()
		defer func() {
			s.slots.leave(caller)
			s.metrics.inFlight.Dec()
		}()
		h.ServeHTTP(w, r)
	})
}

// errBodyBudget: the server holds as many body bytes as it may.
var errBodyBudget = errors.New("body budget spent")

// holdBody reads a request's body whole before the request goes on, at
// most max bytes and within the body timeout, counting the bytes against
// the server's budget of held bodies, and the share of it of the caller's
// address (the key is not yet checked), until the request is done. Bytes
// are reserved as they arrive, never from a declared length, so a slow
// body holds what it sent and no more. The handler then reads the body
// from memory. A body over max is answered 413, one that does not arrive
// in time 408, and one the budget cannot hold 503 with Retry-After.
func (s *Server) holdBody(max int64, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
			h.ServeHTTP(w, r)
			return
		}
		if r.ContentLength > max {
			writeInputError(w, tooLarge(r.ContentLength, max))
			return
		}
		rc := http.NewResponseController(w)
		timeout := time.Duration(s.cfg.Timeouts.Body)
		// The deadline is the connection's; a recorder in tests has none.
		_ = rc.SetReadDeadline(time.Now().Add(timeout))
		who := addrOf(r)
		body, held, err := s.readHeld(who, r.Body, r.ContentLength, max)
		defer s.bodies.give(who, held)
		var ne net.Error
		switch {
		case err == nil:
		case errors.Is(err, errBodyBudget):
			s.metrics.rejected.Inc()
			w.Header().Set("Retry-After", "1")
			writeError(w, http.StatusServiceUnavailable, "overloaded", fmt.Sprintf("the server holds its limit of request bodies (%d bytes, %d per address); retry after a second", s.bodies.max, s.bodies.perCaller))
			return
		case errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
			w.Header().Set("Connection", "close")
			writeError(w, http.StatusRequestTimeout, "timeout", fmt.Sprintf("the body did not arrive within %s", timeout))
			return
		default:
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) || errors.Is(err, errOverMax) {
				writeInputError(w, tooLarge(-1, max))
				return
			}
			writeInputError(w, bodyError(err))
			return
		}
		// Read whole: no later read of this request waits on the client.
		// The next request on the connection gets the server's deadlines
		// afresh.
		_ = rc.SetReadDeadline(time.Time{})
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		h.ServeHTTP(w, r)
	})
}

// errOverMax: a body of unknown length went over its limit.
var errOverMax = errors.New("body over its limit")

// readHeld reads a body of at most limit bytes (n, when positive, is its
// declared length, which bounds it further), reserving from the server's
// budget for caller each byte of buffer before it is filled: the buffer
// starts small and doubles, so what is reserved is at most about twice
// what arrived. It returns what it reserved, to be given back when the
// request is done, also on error.
func (s *Server) readHeld(caller string, body io.Reader, n, limit int64) ([]byte, int64, error) {
	const first = 16 << 10
	declared := n > 0
	if declared {
		limit = min(limit, n)
	}
	var held int64
	var buf []byte
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) == limit {
				if declared {
					return buf, held, nil // the server reads no further than Content-Length
				}
				// Full: one more byte means over the limit.
				var probe [1]byte
				m, err := io.ReadFull(body, probe[:])
				switch {
				case m > 0:
					return nil, held, errOverMax
				case err == io.EOF:
					return buf, held, nil
				default:
					return nil, held, err
				}
			}
			grow := min(int64(max(cap(buf), first)), limit-int64(cap(buf)))
			if !s.bodies.take(caller, grow) {
				return nil, held, errBodyBudget
			}
			held += grow
			next := make([]byte, len(buf), int64(cap(buf))+grow)
			copy(next, buf)
			buf = next
		}
		m, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			if declared && int64(len(buf)) < n {
				return nil, held, fmt.Errorf("the body ended after %d of its %d bytes (Content-Length): %w", len(buf), n, io.ErrUnexpectedEOF)
			}
			return buf, held, nil
		}
		if err != nil {
			return nil, held, err
		}
	}
}

// Batch uploads: how many bodies are stored at once, server-wide and per
// caller. An upload holds no in-flight slot and no more memory than a
// line; these bound the connections and the store's writes it holds.
const (
	maxUploads          = 32
	maxUploadsPerCaller = 4
)

// limitUploads serves a batch upload within its caller's share of the
// upload slots, and answers 429 with Retry-After past it.
func (s *Server) limitUploads(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		caller := callerOf(r)
		if full := s.uploads.enter(caller); full != "" {
			s.metrics.rejected.Inc()
			w.Header().Set("Retry-After", "1")
			what := fmt.Sprintf("this caller already uploads %d batches, its share", maxUploadsPerCaller)
			if full == "server" {
				what = fmt.Sprintf("%d batches are being uploaded, the server's limit", maxUploads)
			}
			writeError(w, http.StatusTooManyRequests, "overloaded", what+"; retry after a second")
			return
		}
		defer s.uploads.leave(caller)
		h.ServeHTTP(w, r)
	})
}
