package server

import (
	"os"
	"testing"
)

// TestMain gives the tests a configuration directory of their own: a
// server on PostgreSQL makes its dashboard's session key there.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "vouch-server-test-config-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
