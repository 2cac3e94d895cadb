package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/client"
	"github.com/vouchgate/vouch/server"
)

// remoteExitCodes is the exit-code paragraph of the commands that call a
// server.
const remoteExitCodes = `Exit codes: 0 done; 2 bad usage or input, or the server refused the call
(400 bad input, 401 no or unknown key, 403 the key lacks the scope, 404 no such
verification, 409 conflict), with the server's message; 3 the server (or the
store) could not be reached or failed (network errors, 429 and 5xx after the
client's retries).`

// remoteHelp is the paragraph on how the commands that call a server
// find it and authenticate.
const remoteHelp = `The server is --server URL, else VOUCH_SERVER (http://host:port), else the
address 'vouch serve' takes from VOUCH_ADDR, else the addr of the config file
VOUCH_CONFIG names, else http://127.0.0.1:8080 (vouch serve's default); the
command says on standard error which it called. The API
key is read from --api-key-file FILE, else VOUCH_API_KEY; never from a flag,
which others on the machine could read in the process list. A server with no
key in its store takes calls without one.`

// remoteFlags name the server a command calls and where its key is.
type remoteFlags struct {
	server  string
	keyFile string
}

func (f *remoteFlags) add(fl *pflag.FlagSet) {
	fl.StringVar(&f.server, "server", "", "the server's `URL` (default: VOUCH_SERVER, else VOUCH_ADDR, else VOUCH_CONFIG's addr, else http://127.0.0.1:8080)")
	fl.StringVar(&f.keyFile, "api-key-file", "", "read the API key from `FILE` (default: VOUCH_API_KEY)")
}

// resolveServer returns the URL of the server to call and where it came
// from: --server, else VOUCH_SERVER, else the address vouch serve listens
// on: VOUCH_ADDR, else the addr of the config file VOUCH_CONFIG names
// (which vouch serve reads when --config is not given), else vouch
// serve's default address. An unspecified host, as in :8080 or
// 0.0.0.0:8080, is called on 127.0.0.1.
func (f *remoteFlags) resolveServer(st Streams) (u, from string, err error) {
	if f.server != "" {
		return f.server, "--server", nil
	}
	if v := strings.TrimSpace(st.getenv("VOUCH_SERVER")); v != "" {
		return v, "VOUCH_SERVER", nil
	}
	if v := strings.TrimSpace(st.getenv("VOUCH_ADDR")); v != "" {
		u, err := listenURL(v)
		if err != nil {
			return "", "", usageErr(fmt.Errorf("VOUCH_ADDR %q: want HOST:PORT, as vouch serve takes it (or set VOUCH_SERVER to the server's URL)", v))
		}
		return u, "VOUCH_ADDR", nil
	}
	if file := strings.TrimSpace(st.getenv("VOUCH_CONFIG")); file != "" {
		cfg, err := server.LoadConfig(file)
		if err != nil {
			return "", "", usageErr(fmt.Errorf("VOUCH_CONFIG: %w", err))
		}
		if u, err := listenURL(cfg.Addr); err == nil {
			return u, "the addr of " + file + " (VOUCH_CONFIG)", nil
		}
	}
	u, err = listenURL(server.DefaultConfig().Addr)
	return u, "vouch serve's default address", err
}

// listenURL is the URL that reaches a server listening on addr.
func listenURL(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port), nil
}

// client returns a client of the server with the key, and the server's
// URL, saying on standard error which server it is and why; a bad URL or
// an unreadable key file is a usage error.
func (f *remoteFlags) client(st Streams) (*client.Client, string, error) {
	u, from, err := f.resolveServer(st)
	if err != nil {
		return nil, "", err
	}
	key := strings.TrimSpace(st.getenv("VOUCH_API_KEY"))
	if f.keyFile != "" {
		b, err := os.ReadFile(f.keyFile)
		if err != nil {
			return nil, "", usageErr(fmt.Errorf("--api-key-file: %w", err))
		}
		if key = strings.TrimSpace(string(b)); key == "" {
			return nil, "", usageErr(fmt.Errorf("--api-key-file %s is empty", f.keyFile))
		}
	}
	var opts []client.Option
	if key != "" {
		opts = append(opts, client.WithAPIKey(key))
	}
	c, err := client.New(u, opts...)
	if err != nil {
		return nil, "", usageErr(fmt.Errorf("the server %q (from %s): want http://host:port or https://host", u, from))
	}
	fmt.Fprintf(st.Err, "vouch: server %s (from %s)\n", u, from)
	return c, u, nil
}

// remoteErr turns a failed call into the command's exit: the server's
// message, with exit 2 for a call the server refused (4xx but 429), and 3
// for a server that could not be reached or failed.
func remoteErr(server string, err error) error {
	var e *client.Error
	if errors.Is(err, context.Canceled) {
		return &exitError{code: exitUnavailable, err: errors.New("interrupted")}
	}
	if !errors.As(err, &e) {
		return &exitError{code: exitUnavailable, err: fmt.Errorf("cannot reach the server at %s: %w", server, err)}
	}
	var msg error
	if len(e.Problems) > 1 {
		msg = vouch.Errors(e.Problems)
	} else {
		msg = fmt.Errorf("the server answered %d %s: %s", e.Status, e.Code, e.Message)
	}
	switch {
	case e.Status == http.StatusTooManyRequests || e.Status >= 500:
		return &exitError{code: exitUnavailable, err: msg}
	case e.Status == http.StatusUnauthorized:
		msg = fmt.Errorf("%w (set VOUCH_API_KEY or give --api-key-file)", msg)
	}
	return usageErr(msg)
}
