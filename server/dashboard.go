package server

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/web"
)

// Where the dashboard's session key is kept when neither Options nor
// Config gives one: a secret of the store, made at the first start, so
// that every server on the store signs sessions alike.
const (
	sessionKeyName    = "dashboard.session_key"
	sessionKeySize    = 32
	sessionKeyTimeout = 30 * time.Second
)

// newDashboard builds the web dashboard over the server's store, key
// cache, alerts and event hub. Its session key is sessionKey, else the
// contents of Config.SessionKeyFile, else the store's secret.
func (s *Server) newDashboard(sessionKey []byte) (*web.Handler, error) {
	switch {
	case sessionKey != nil:
	case s.cfg.SessionKeyFile != "":
		b, err := os.ReadFile(s.cfg.SessionKeyFile)
		if err != nil {
			return nil, fmt.Errorf("server: session key: %w", err)
		}
		sessionKey = b
	default:
		ctx, cancel := context.WithTimeout(context.Background(), sessionKeyTimeout)
		defer cancel()
		b, err := s.st.Secret(ctx, sessionKeyName, sessionKeySize)
		if err != nil {
			return nil, fmt.Errorf("server: session key: %w", err)
		}
		sessionKey = b
	}
	return web.New(web.Options{
		Store:      s.st,
		Keys:       authKeys{s.auth},
		Alerts:     s.evaluateAlerts,
		Policy:     &s.policy,
		Subscribe:  s.subscribe,
		SessionKey: sessionKey,
		Done:       s.stopping,
		Now:        s.now,
		Logger:     s.log,
	})
}

var _ web.KeySource = authKeys{}

// authKeys lends the dashboard the API's key cache.
type authKeys struct{ a *authenticator }

// Key implements [web.KeySource.Key] from the cache.
func (k authKeys) Key(ctx context.Context, id string) (*store.Key, error) { return k.a.key(ctx, id) }

// OpenMode implements [web.KeySource.OpenMode] from the cache.
func (k authKeys) OpenMode(ctx context.Context) (bool, error) { return k.a.openMode(ctx) }
