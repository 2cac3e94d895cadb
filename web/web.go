package web

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/quality"
	"github.com/vouchgate/vouch/store"
)

// KeySource resolves the API keys people sign in with. The server
// adapts its own cache of keys to it, so that a page costs no store read
// for its key. Its methods may be called concurrently.
type KeySource interface {
	// Key returns the key with that id, revoked ones included; a key
	// that does not exist is nil, or an error matching store.ErrNotFound.
	Key(ctx context.Context, id string) (*store.Key, error)
	// OpenMode reports whether the store holds no live key: then nobody
	// signs in, and every page acts as tenant "default" with every scope.
	OpenMode(ctx context.Context) (bool, error)
}

// Options are what a [Handler] is built from. Only Store is required.
type Options struct {
	// Store is the log the pages read and the overrides are written to.
	Store store.Store
	// Keys resolves the keys of sessions and sign-ins; nil means the
	// store, asked on every request (for tests and tools; the server
	// passes its cache).
	Keys KeySource
	// Alerts evaluates a tenant's alerts, for the overview; nil means no
	// alerts are shown.
	Alerts func(ctx context.Context, tenant string) ([]quality.Status, error)
	// Policy is the server's resolved policy (thresholds, weights), for
	// the pages that show them; nil means the built-in defaults.
	Policy *vouch.Policy
	// Subscribe wakes the live pages of a tenant: it returns a channel
	// signalled after each change of the tenant's log, and a function
	// that ends the subscription; a nil channel means no more
	// subscriptions can be taken now. Nil: pages are not live.
	Subscribe func(tenant string) (<-chan struct{}, func())
	// SessionKey signs session cookies and CSRF tokens (at least 32
	// bytes). Nil means a random key made when the handler is built: the
	// sessions then end when the process does, and servers behind one
	// address do not share them.
	SessionKey []byte
	// Done, when closed, ends the live streams (the server's shutdown).
	Done <-chan struct{}
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives the handler's logs; nil discards them.
	Logger *slog.Logger
}

// Handler serves the dashboard. It is an [http.Handler]; mount it on the
// patterns [Handler.Patterns] lists. It is safe for concurrent use.
type Handler struct {
	st        store.Store
	keys      KeySource
	alerts    func(ctx context.Context, tenant string) ([]quality.Status, error)
	policy    vouch.Policy
	subscribe func(tenant string) (<-chan struct{}, func())
	done      <-chan struct{}
	secret    []byte
	now       func() time.Time
	log       *slog.Logger

	pages    map[string]*template.Template
	mux      *http.ServeMux
	patterns []string
	streams  chan struct{} // one slot per open live stream
}

// minSessionKey is the shortest session key accepted.
const minSessionKey = 32

// New builds the dashboard: it parses the templates and the route table.
func New(opt Options) (*Handler, error) {
	if opt.Store == nil {
		return nil, errors.New("web: no store")
	}
	h := &Handler{
		st:        opt.Store,
		keys:      opt.Keys,
		alerts:    opt.Alerts,
		subscribe: opt.Subscribe,
		done:      opt.Done,
		now:       opt.Now,
		log:       opt.Logger,
		streams:   make(chan struct{}, maxStreams),
	}
	if h.keys == nil {
		h.keys = storeKeys{opt.Store}
	}
	h.policy = vouch.DefaultPolicy()
	if opt.Policy != nil {
		h.policy = *opt.Policy
	}
	if h.now == nil {
		h.now = time.Now
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	switch {
	case opt.SessionKey == nil:
		h.secret = make([]byte, minSessionKey)
		if _, err := rand.Read(h.secret); err != nil {
			return nil, fmt.Errorf("web: session key: %w", err)
		}
	case len(opt.SessionKey) < minSessionKey:
		return nil, fmt.Errorf("web: the session key has %d bytes, at least %d are needed", len(opt.SessionKey), minSessionKey)
	default:
		h.secret = append([]byte(nil), opt.SessionKey...)
	}
	var err error
	if h.pages, err = parsePages(); err != nil {
		return nil, err
	}
	h.mux = http.NewServeMux()
	for _, rt := range h.routes() {
		h.mux.Handle(rt.pattern, h.wrap(rt))
		h.patterns = append(h.patterns, rt.pattern)
	}
	return h, nil
}

// Patterns returns the route patterns the dashboard serves (ServeMux
// syntax), for mounting it beside other routes: each on the same
// Handler.
func (h *Handler) Patterns() []string { return append([]string(nil), h.patterns...) }

// ServeHTTP serves a dashboard request, with the security headers every
// answer carries.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", contentSecurityPolicy)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("X-Frame-Options", "DENY")
	h.mux.ServeHTTP(w, r)
}

// contentSecurityPolicy allows no inline script or style, nothing from
// elsewhere, and no framing.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// Interface guards.
var (
	_ http.Handler = (*Handler)(nil)
	_ KeySource    = storeKeys{}
)

// storeKeys is a KeySource that asks the store every time.
type storeKeys struct{ st store.Keyring }

// Key implements [KeySource.Key].
func (s storeKeys) Key(ctx context.Context, id string) (*store.Key, error) { return s.st.Key(ctx, id) }

// OpenMode implements [KeySource.OpenMode].
func (s storeKeys) OpenMode(ctx context.Context) (bool, error) {
	n, err := s.st.ActiveKeys(ctx)
	return n == 0, err
}
