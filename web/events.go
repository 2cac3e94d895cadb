package web

import (
	"net/http"
	"time"
)

// Live stream bounds and pacing: the streams open at once, the least gap
// between two change notices (changes within it are told once, at its
// end), and the comment that keeps proxies from closing a quiet stream.
const (
	maxStreams     = 200
	minNoticeGap   = time.Second
	heartbeatEvery = 20 * time.Second
)

// handleEvents is the live stream of a browser (Server-Sent Events,
// cookie-authenticated): an "event: changed" after the tenant's log
// changed, told at most once a second, and a heartbeat comment. It
// carries no data of the log: the page asks for its rows again. It ends
// when the client goes, or the server shuts down.
func (h *Handler) handleEvents(w http.ResponseWriter, r *http.Request) {
	if h.subscribe == nil {
		// 204 tells EventSource not to reconnect.
		w.WriteHeader(http.StatusNoContent)
		return
	}
	select {
	case h.streams <- struct{}{}:
		defer func() { <-h.streams }()
	default:
		w.Header().Set("Retry-After", "30")
		http.Error(w, "too many live streams are open", http.StatusServiceUnavailable)
		return
	}
	p := principalOf(r.Context())
	wake, cancel := h.subscribe(p.Tenant)
	if wake == nil {
		w.Header().Set("Retry-After", "30")
		http.Error(w, "too many live streams are open", http.StatusServiceUnavailable)
		return
	}
	defer cancel()

	rc := http.NewResponseController(w)
	rc.SetWriteDeadline(time.Time{}) // a stream outlives the write timeout
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write([]byte("retry: 5000\n\n")); err != nil {
		return
	}
	if rc.Flush() != nil {
		return
	}
	heartbeat := time.NewTicker(heartbeatEvery)
	defer heartbeat.Stop()
	var (
		gap     *time.Timer // running while notices wait for the gap to end
		gapC    <-chan time.Time
		pending bool
	)
	defer func() {
		if gap != nil {
			gap.Stop()
		}
	}()
	send := func(msg string) bool {
		if _, err := w.Write([]byte(msg)); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case <-h.done:
			return
		case <-wake:
			if gapC != nil {
				pending = true
				continue
			}
			if !send("event: changed\ndata: 1\n\n") {
				return
			}
			gap = time.NewTimer(minNoticeGap)
			gapC = gap.C
		case <-gapC:
			gap, gapC = nil, nil
			if pending {
				pending = false
				if !send("event: changed\ndata: 1\n\n") {
					return
				}
				gap = time.NewTimer(minNoticeGap)
				gapC = gap.C
			}
		case <-heartbeat.C:
			if !send(": heartbeat\n\n") {
				return
			}
		}
	}
}
