package server

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/vouchgate/vouch/internal/atomicfile"
	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/web"
)

// The dashboard's session key, when neither Options nor Config gives one,
// is a file of random bytes made at the first start, readable by its owner
// alone, and never in the store: whoever reads the database (a backup, a
// replica, a file left readable) cannot sign a session. For a SQLite store
// the file sits beside the database, so that every server on that file
// signs sessions alike; for PostgreSQL it is in the user's configuration
// directory, and servers that share a store share sessions by being given
// one sessionKeyFile.
const (
	sessionKeySize   = 32
	sessionKeySuffix = ".session-key"
)

// newDashboard builds the web dashboard over the server's store, key
// cache, alerts and event hub. Its session key is sessionKey, else the
// contents of Config.SessionKeyFile, else the default key file (made if
// missing). dbFile is the SQLite store's file, "" for PostgreSQL.
func (s *Server) newDashboard(sessionKey []byte, dbFile string) (*web.Handler, error) {
	if sessionKey == nil {
		file, made := s.cfg.SessionKeyFile, false
		if file == "" {
			var err error
			if file, made, err = defaultSessionKey(dbFile); err != nil {
				return nil, fmt.Errorf("server: session key: %w (or give one with sessionKeyFile)", err)
			}
		}
		b, perm, err := readSessionKey(file)
		if err != nil {
			return nil, fmt.Errorf("server: session key: %w", err)
		}
		if perm&0o077 != 0 {
			s.log.Warn("dashboard: the session key file can be read by other users of this host, who could then sign in as anyone: chmod 600 it", "file", file, "mode", perm.String())
		}
		if made {
			s.log.Info("dashboard: made a session key", "file", file)
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

// defaultSessionKey returns the default session key file, making it (32
// random bytes, mode 0600, its directory 0700 when made) if it does not
// exist; made says whether this call made it.
func defaultSessionKey(dbFile string) (file string, made bool, err error) {
	if dbFile != "" {
		file = dbFile + sessionKeySuffix
	} else {
		dir, err := os.UserConfigDir()
		if err != nil {
			return "", false, err
		}
		dir = filepath.Join(dir, "vouch")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", false, err
		}
		file = filepath.Join(dir, "session-key")
	}
	if _, err := os.Lstat(file); err == nil {
		return file, false, nil
	}
	key := make([]byte, sessionKeySize)
	if _, err := rand.Read(key); err != nil {
		return "", false, err
	}
	switch err := atomicfile.Create(file, key, 0o600); {
	case err == nil:
		return file, true, nil
	case errors.Is(err, fs.ErrExist):
		return file, false, nil // another server made it first
	default:
		return "", false, err
	}
}

// readSessionKey reads a session key file: a regular file of at least 32
// bytes. It returns the file's permissions too: one that other users can
// read is used, with a warning.
func readSessionKey(file string) ([]byte, fs.FileMode, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s is not a regular file", file)
	}
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return nil, 0, err
	}
	if len(b) < sessionKeySize {
		return nil, 0, fmt.Errorf("%s holds %d bytes, fewer than the %d a session key needs", file, len(b), sessionKeySize)
	}
	return b, fi.Mode().Perm(), nil
}

var _ web.KeySource = authKeys{}

// authKeys lends the dashboard the API's key cache.
type authKeys struct{ a *authenticator }

// Key implements [web.KeySource.Key] from the cache.
func (k authKeys) Key(ctx context.Context, id string) (*store.Key, error) { return k.a.key(ctx, id) }

// OpenMode implements [web.KeySource.OpenMode] from the cache.
func (k authKeys) OpenMode(ctx context.Context) (bool, error) { return k.a.openMode(ctx) }
