package server

import (
	"context"
	"errors"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vouchgate/vouch/internal/loopback"
	"github.com/vouchgate/vouch/store"
)

// DefaultTenant is the tenant of requests without a key when the store
// holds no keys.
const DefaultTenant = "default"

// principal is who is calling: a tenant and the scopes of its key.
type principal struct {
	tenant string
	key    *store.Key // nil in open mode: every scope
}

func (p principal) has(scope string) bool { return p.key == nil || p.key.Has(scope) }

type principalKey struct{}

// tenantOf returns the caller's tenant (set by requireScope).
func tenantOf(ctx context.Context) string { return principalOf(ctx).tenant }

// principalOf returns the caller (set by requireScope).
func principalOf(ctx context.Context) principal {
	p, _ := ctx.Value(principalKey{}).(principal)
	return p
}

// Cache lifetimes: a revoked key stops working, and a first key ends open
// mode, within these.
const (
	keyTTL  = 5 * time.Second
	openTTL = 2 * time.Second
)

// authenticator resolves API keys, caching what the store said for a few
// seconds so that a request costs no store read.
type authenticator struct {
	st  store.Keyring
	now func() time.Time

	// mayOpen is set while open mode may hold: the store held no live key
	// when the server started and has not held one since. Once cleared it
	// is never set again: revoking every key leaves a closed server.
	may atomic.Bool

	mu       sync.Mutex
	keys     map[string]cachedKey
	openTill time.Time

	// log, when set, is told once when a closed server finds no live key
	// left (every key revoked): it stays closed.
	log        *slog.Logger
	closedTill time.Time
	toldEmpty  bool
}

type cachedKey struct {
	k    *store.Key // nil: no such key
	till time.Time
}

// newAuthenticator returns an authenticator of the keys of st; open says
// whether the store held no live key at start, so that open mode may hold.
func newAuthenticator(st store.Keyring, now func() time.Time, open bool) *authenticator {
	a := &authenticator{st: st, now: now, keys: map[string]cachedKey{}}
	a.may.Store(open)
	return a
}

// mayOpen reports whether open mode may still hold.
func (a *authenticator) mayOpen() bool { return a.may.Load() }

// close ends open mode for good.
func (a *authenticator) close() { a.may.Store(false) }

var (
	errNoKey  = errors.New("an API key is required: Authorization: Bearer vk_...")
	errBadKey = errors.New("the API key is unknown or revoked")
	// errForeignHost: in open mode, a request without a key that names a
	// Host other than the loopback (a page elsewhere rebinding its name
	// to 127.0.0.1) is refused.
	errForeignHost = errors.New("without API keys the server answers only requests addressed to the loopback (Host localhost or 127.0.0.1); create a key to serve other names")
)

// errCrossSite and errSimpleRequest refuse, in open mode, what a web page
// elsewhere can make the operator's browser send: a request that says it
// comes from another site, or a write a page can send without asking
// (a "simple" request, with no Content-Type or a form's).
var (
	errCrossSite     = errors.New("without an API key the server refuses requests from another site's pages (Sec-Fetch-Site or Origin)")
	errSimpleRequest = errors.New("without an API key a request that writes must say Content-Type: application/json (or application/jsonl for a batch), which a web page cannot send to another site without its consent")
)

// sameSiteOnly checks a keyless request in open mode. A browser marks
// where a request comes from (Sec-Fetch-Site, Origin): one from another
// origin is refused. A write must carry a Content-Type that no web page
// can send across sites without a CORS preflight, which the server never
// grants; curl and every client send one.
func sameSiteOnly(r *http.Request) error {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "none", "same-origin":
	default:
		return errCrossSite
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if o == "null" || err != nil || !strings.EqualFold(u.Host, r.Host) {
			return errCrossSite
		}
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return nil
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return errSimpleRequest
	}
	switch mt {
	case "application/json", "application/jsonl", "application/x-ndjson", "application/jsonlines", "application/x-jsonlines":
		return nil
	}
	return errSimpleRequest
}

// authenticate returns the caller of r.
func (a *authenticator) authenticate(r *http.Request) (principal, error) {
	secret := bearer(r)
	if secret == "" {
		open, err := a.openMode(r.Context())
		if err != nil {
			return principal{}, err
		}
		if !open {
			a.noteEmpty(r.Context())
		}
		if open {
			if !loopback.Host(r.Host) {
				return principal{}, errForeignHost
			}
			if err := sameSiteOnly(r); err != nil {
				return principal{}, err
			}
			return principal{tenant: DefaultTenant}, nil
		}
		return principal{}, errNoKey
	}
	id, _, ok := store.ParseSecret(secret)
	if !ok {
		return principal{}, errBadKey
	}
	k, err := a.key(r.Context(), id)
	if err != nil {
		return principal{}, err
	}
	if k == nil || !k.Matches(secret) {
		return principal{}, errBadKey
	}
	return principal{tenant: k.Tenant, key: k}, nil
}

// bearer returns the key of a request: Authorization: Bearer, or
// X-API-Key.
func bearer(r *http.Request) string {
	if h := r.Header.Get("Authorization"); h != "" {
		if scheme, rest, ok := strings.Cut(h, " "); ok && strings.EqualFold(scheme, "Bearer") {
			return strings.TrimSpace(rest)
		}
		return ""
	}
	return strings.TrimSpace(r.Header.Get("X-API-Key"))
}

func (a *authenticator) key(ctx context.Context, id string) (*store.Key, error) {
	now := a.now()
	a.mu.Lock()
	c, ok := a.keys[id]
	a.mu.Unlock()
	if ok && now.Before(c.till) {
		return c.k, nil
	}
	k, err := a.st.Key(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		k, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	if len(a.keys) > 10000 {
		clear(a.keys) // bounded: unknown ids are cached too
	}
	a.keys[id] = cachedKey{k: k, till: now.Add(keyTTL)}
	a.mu.Unlock()
	return k, nil
}

// openMode reports whether the server is in open mode: the store held no
// live key at start and has held none since. A first key ends it (seen
// within openTTL); nothing starts it again.
func (a *authenticator) openMode(ctx context.Context) (bool, error) {
	if !a.may.Load() {
		return false, nil
	}
	now := a.now()
	a.mu.Lock()
	if now.Before(a.openTill) {
		a.mu.Unlock()
		return a.may.Load(), nil
	}
	a.mu.Unlock()
	n, err := a.st.ActiveKeys(ctx)
	if err != nil {
		return false, err
	}
	if n > 0 {
		a.close()
		return false, nil
	}
	a.mu.Lock()
	a.openTill = now.Add(openTTL)
	a.mu.Unlock()
	return a.may.Load(), nil
}

// noteEmpty logs, once, that a closed server has no live key left: every
// request is refused until a key is created, and open mode does not come
// back. The store is asked at most every keyTTL, on requests without a
// key.
func (a *authenticator) noteEmpty(ctx context.Context) {
	if a.log == nil {
		return
	}
	now := a.now()
	a.mu.Lock()
	if a.toldEmpty || now.Before(a.closedTill) {
		a.mu.Unlock()
		return
	}
	a.closedTill = now.Add(keyTTL)
	a.mu.Unlock()
	n, err := a.st.ActiveKeys(ctx)
	if err != nil || n > 0 {
		return
	}
	a.mu.Lock()
	told := a.toldEmpty
	a.toldEmpty = true
	a.mu.Unlock()
	if !told {
		a.log.Warn("no live API key is left in the store (every key was revoked): the server stays closed and refuses every request until a key is created; open mode is decided at start only")
	}
}

// requireScope authenticates a request and checks that its key holds
// scope; it answers 401 or 403 otherwise.
func (s *Server) requireScope(scope string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := s.auth.authenticate(r)
		switch {
		case errors.Is(err, errNoKey) || errors.Is(err, errBadKey):
			w.Header().Set("WWW-Authenticate", `Bearer realm="vouch"`)
			writeError(w, http.StatusUnauthorized, "unauthorized", err.Error())
			return
		case errors.Is(err, errForeignHost) || errors.Is(err, errCrossSite):
			writeError(w, http.StatusForbidden, "forbidden", err.Error())
			return
		case errors.Is(err, errSimpleRequest):
			writeError(w, http.StatusUnsupportedMediaType, "unsupported_media_type", err.Error())
			return
		case err != nil:
			s.writeStoreError(w, "checking the API key", err)
			return
		case !p.has(scope):
			writeError(w, http.StatusForbidden, "forbidden", "the API key lacks the "+scope+" scope")
			return
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
	})
}
