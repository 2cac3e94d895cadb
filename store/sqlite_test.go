package store_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/store/storetest"
)

func TestSQLite(t *testing.T) {
	storetest.Run(t, func(t *testing.T) func() (store.Store, error) {
		dsn := "sqlite:" + filepath.Join(t.TempDir(), "vouch.db")
		return func() (store.Store, error) {
			return store.Open(context.Background(), dsn, store.Options{})
		}
	})
}

func TestSQLiteSynchronousNormal(t *testing.T) {
	storetest.Run(t, func(t *testing.T) func() (store.Store, error) {
		dsn := filepath.Join(t.TempDir(), "vouch.db") + "?synchronous=normal"
		return func() (store.Store, error) {
			return store.Open(context.Background(), dsn, store.Options{})
		}
	})
}

func TestOpenSQLiteDSN(t *testing.T) {
	dir := t.TempDir()
	for _, dsn := range []string{
		filepath.Join(dir, "plain.db"),
		"sqlite:" + filepath.Join(dir, "scheme.db"),
		"sqlite://" + filepath.Join(dir, "slashes.db"),
		"file:" + filepath.Join(dir, "file.db") + "?synchronous=NORMAL&busy_timeout=100",
	} {
		s, err := store.Open(t.Context(), dsn, store.Options{})
		if err != nil {
			t.Errorf("Open(%q): %v", dsn, err)
			continue
		}
		if err := s.Ping(t.Context()); err != nil {
			t.Errorf("Open(%q): Ping: %v", dsn, err)
		}
		s.Close()
	}
	for _, name := range []string{"plain.db", "scheme.db", "slashes.db", "file.db"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("Open did not create %s: %v", name, err)
		}
	}
	// A relative path.
	t.Chdir(dir)
	s, err := store.Open(t.Context(), "./relative.db", store.Options{})
	if err != nil {
		t.Fatalf("Open(./relative.db): %v", err)
	}
	s.Close()
	if _, err := os.Stat(filepath.Join(dir, "relative.db")); err != nil {
		t.Errorf("Open did not create relative.db: %v", err)
	}
}

func TestOpenBadDSN(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ dsn, want string }{
		{"", "empty DSN"},
		{"mysql://localhost/vouch", `scheme "mysql" is not supported`},
		{"sqlite:", "names no file"},
		{":memory:", "in-memory"},
		{"sqlite::memory:", "in-memory"},
		{filepath.Join(dir, "x.db") + "?synchronous=off", "want full or normal"},
		{filepath.Join(dir, "x.db") + "?busy_timeout=soon", "want milliseconds"},
		{filepath.Join(dir, "x.db") + "?cache=shared", `unknown parameter "cache"`},
		{filepath.Join(dir, "missing", "x.db"), "no such file or directory"},
		{dir, "is a directory"},
	} {
		s, err := store.Open(t.Context(), tc.dsn, store.Options{})
		if err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", tc.dsn)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%q) error %q, want it to say %q", tc.dsn, err, tc.want)
		}
	}
}
