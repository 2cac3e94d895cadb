// Package loopback tells whether a request was addressed to this machine's
// loopback. A server that trusts callers without a key (open mode) must
// also check the Host a request names: a web page elsewhere can point a
// name of its own at 127.0.0.1 (DNS rebinding) and have a browser send it
// requests that reach the server, but with that name as their Host.
package loopback

import (
	"net"
	"net/netip"
	"strings"
)

// Host reports whether hostport, a request's Host (with or without a
// port), names the loopback: localhost (or a name under .localhost), an
// address in 127.0.0.0/8, or ::1.
func Host(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(host, "]"), "["), ".")
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}
