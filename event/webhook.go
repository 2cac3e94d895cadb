package event

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vouchgate/vouch/internal/wait"
)

// The headers of a webhook delivery.
const (
	// HeaderSignature is "sha256=" and the hex HMAC-SHA256, keyed with the
	// webhook's secret, of the timestamp header's value, a ".", and the
	// body (see [Sign]).
	HeaderSignature = "X-Vouch-Signature"
	// HeaderTimestamp is the Unix time, in seconds, at which the delivery
	// was signed; each retry is signed anew.
	HeaderTimestamp = "X-Vouch-Timestamp"
	// HeaderEvent is the event's type.
	HeaderEvent = "X-Vouch-Event"
	// HeaderDelivery is the event's id, the same on every retry.
	HeaderDelivery = "X-Vouch-Delivery"
)

// Errors of [VerifySignature].
var (
	ErrSignature = errors.New("event: webhook signature missing or invalid")
	ErrTimestamp = errors.New("event: webhook timestamp missing, malformed or outside the tolerance")
)

// Sign returns the signature header's value for a body signed at
// timestamp (Unix seconds): "sha256=" and the hex HMAC-SHA256 of
// "TIMESTAMP.BODY" keyed with secret. The timestamp is signed so that a
// captured delivery cannot be replayed later than the receiver's
// tolerance.
func Sign(secret []byte, timestamp int64, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(strconv.FormatInt(timestamp, 10)))
	m.Write([]byte{'.'})
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// VerifySignature checks a delivery as its receiver gets it: the headers
// and the raw body, read before any decoding. It returns [ErrTimestamp]
// when the timestamp is missing or more than tolerance away from now (0
// means 5 minutes), and [ErrSignature] when the signature is missing or
// does not match; the comparison takes constant time.
func VerifySignature(secret []byte, h http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	if tolerance <= 0 {
		tolerance = 5 * time.Minute
	}
	ts, err := strconv.ParseInt(h.Get(HeaderTimestamp), 10, 64)
	if err != nil {
		return ErrTimestamp
	}
	if d := now.Sub(time.Unix(ts, 0)); d > tolerance || d < -tolerance {
		return ErrTimestamp
	}
	got := h.Get(HeaderSignature)
	if got == "" || !hmac.Equal([]byte(got), []byte(Sign(secret, ts, body))) {
		return ErrSignature
	}
	return nil
}

// WebhookOptions configure a [Webhook]. URL and Secret are required; the
// zero value of every other field is a default.
type WebhookOptions struct {
	// URL is where events are POSTed (http or https).
	URL string
	// Secret keys the signature. It must not be empty.
	Secret []byte
	// Client sends the requests; nil is a client with a 10 s timeout.
	Client *http.Client
	// Queue is how many events may wait for delivery; default 256. When
	// it is full, Send drops the event and counts it.
	Queue int
	// MaxAttempts bounds the tries of one delivery; default 5.
	MaxAttempts int
	// Backoff is the wait after the first failed try, doubled after each
	// further one; default 1 s.
	Backoff time.Duration
	// MaxBackoff caps a wait, a Retry-After the receiver asks for
	// included; default 1 min.
	MaxBackoff time.Duration
	// Sleep waits between tries; nil waits on a timer, returning early
	// with ctx's error. Tests give one that records the wait and returns.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock of the signature's timestamp; nil is time.Now.
	Now func() time.Time
}

// WebhookStats count what a [Webhook] did with the events it was given.
type WebhookStats struct {
	// Delivered: answered with a 2xx status.
	Delivered int64
	// Failed: given up after MaxAttempts tries, or answered with a status
	// a retry would not change (4xx other than 408 and 429).
	Failed int64
	// Dropped: refused because the queue was full, or still queued when
	// Close gave up waiting.
	Dropped int64
	// Retries: tries after the first.
	Retries int64
	// LastError is the last failure, "" when none.
	LastError string
}

// Webhook is a [Sink] that POSTs each event, as JSON, signed, to a URL. Send
// only queues the event; one goroutine delivers the queue in order,
// retrying a delivery that failed for a passing reason (no answer, 408,
// 429, 5xx) with exponential backoff. A full queue drops the event and
// counts it: delivery never holds up a verification. Close drains the
// queue. Safe for concurrent use.
type Webhook struct {
	o      WebhookOptions
	queue  chan delivery
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu     sync.RWMutex
	closed bool

	delivered, failed, dropped, retries atomic.Int64
	lastErr                             atomic.Value // string
}

type delivery struct {
	typ  Type
	id   string
	body []byte
}

var (
	_ Sink   = (*Webhook)(nil)
	_ Closer = (*Webhook)(nil)
)

// NewWebhook returns a webhook sink and starts its delivery goroutine;
// Close stops it.
func NewWebhook(o WebhookOptions) (*Webhook, error) {
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("event: webhook: %q is not an http or https URL", o.URL)
	}
	if len(o.Secret) == 0 {
		return nil, errors.New("event: webhook: a secret is required to sign deliveries")
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if o.Queue <= 0 {
		o.Queue = 256
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 5
	}
	if o.Backoff <= 0 {
		o.Backoff = time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = time.Minute
	}
	if o.Sleep == nil {
		o.Sleep = wait.For
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	o.Secret = bytes.Clone(o.Secret)
	w := &Webhook{o: o, queue: make(chan delivery, o.Queue), done: make(chan struct{})}
	w.ctx, w.cancel = context.WithCancel(context.Background())
	go w.run()
	return w, nil
}

// Send implements [Sink]: it queues the event, or drops it and returns
// [ErrDropped] when the queue is full or the webhook is closed.
func (w *Webhook) Send(ev *Event, raw []byte) error {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.closed {
		w.dropped.Add(1)
		return fmt.Errorf("event: webhook closed: %w (%s %s)", ErrDropped, ev.Type, ev.ID)
	}
	select {
	case w.queue <- delivery{typ: ev.Type, id: ev.ID, body: raw}:
		return nil
	default:
		w.dropped.Add(1)
		return fmt.Errorf("event: webhook: %w (%s %s)", ErrDropped, ev.Type, ev.ID)
	}
}

// Close stops taking events and waits until the queue is delivered or ctx
// is done; then it abandons the delivery under way (counted as failed) and
// what is left in the queue (counted as dropped), and returns ctx's error.
func (w *Webhook) Close(ctx context.Context) error {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.queue)
	}
	w.mu.Unlock()
	select {
	case <-w.done:
	case <-ctx.Done():
		w.cancel()
		<-w.done
	}
	w.cancel()
	if ctx.Err() != nil {
		return fmt.Errorf("event: webhook: closed before every event was delivered: %w", ctx.Err())
	}
	return nil
}

// Stats returns the webhook's counts so far.
func (w *Webhook) Stats() WebhookStats {
	s := WebhookStats{Delivered: w.delivered.Load(), Failed: w.failed.Load(), Dropped: w.dropped.Load(), Retries: w.retries.Load()}
	s.LastError, _ = w.lastErr.Load().(string)
	return s
}

func (w *Webhook) run() {
	defer close(w.done)
	for d := range w.queue {
		if w.ctx.Err() != nil {
			w.dropped.Add(1)
			continue
		}
		w.deliver(d)
	}
}

// deliver tries one delivery until it succeeds, fails for good or runs
// out of tries.
func (w *Webhook) deliver(d delivery) {
	fail := func(err error) {
		w.failed.Add(1)
		w.lastErr.Store(fmt.Sprintf("%s %s: %v", d.typ, d.id, err))
	}
	for try := 1; ; try++ {
		status, retryAfter, err := w.post(d)
		if err == nil && status/100 == 2 {
			w.delivered.Add(1)
			return
		}
		if err == nil {
			err = fmt.Errorf("HTTP %d", status)
			if !(status == 408 || status == 429 || status >= 500) {
				fail(err)
				return
			}
		}
		if w.ctx.Err() != nil || try >= w.o.MaxAttempts {
			fail(fmt.Errorf("after %d tries: %w", try, err))
			return
		}
		wait := w.o.Backoff << (try - 1)
		if wait <= 0 || wait > w.o.MaxBackoff {
			wait = w.o.MaxBackoff
		}
		if retryAfter > wait {
			wait = min(retryAfter, w.o.MaxBackoff)
		}
		w.retries.Add(1)
		if serr := w.o.Sleep(w.ctx, wait); serr != nil {
			fail(fmt.Errorf("after %d tries, stopped waiting: %w", try, err))
			return
		}
	}
}

// post makes one try: the status and a Retry-After in seconds, or the
// error of a try that got no answer.
func (w *Webhook) post(d delivery) (int, time.Duration, error) {
	req, err := http.NewRequestWithContext(w.ctx, http.MethodPost, w.o.URL, bytes.NewReader(d.body))
	if err != nil {
		return 0, 0, err
	}
	ts := w.o.Now().Unix()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "vouch-webhook/1")
	req.Header.Set(HeaderEvent, string(d.typ))
	req.Header.Set(HeaderDelivery, d.id)
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	req.Header.Set(HeaderSignature, Sign(w.o.Secret, ts, d.body))
	resp, err := w.o.Client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	var after time.Duration
	if s, err := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After"))); err == nil && s > 0 {
		after = time.Duration(s) * time.Second
	}
	return resp.StatusCode, after, nil
}
