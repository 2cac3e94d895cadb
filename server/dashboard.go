package server

import (
	"context"
	"fmt"
	"os"

	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/web"
)

// newDashboard builds the web dashboard over the server's store, key
// cache, alerts and event hub.
func (s *Server) newDashboard(sessionKey []byte) (*web.Handler, error) {
	if sessionKey == nil && s.cfg.SessionKeyFile != "" {
		b, err := os.ReadFile(s.cfg.SessionKeyFile)
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
