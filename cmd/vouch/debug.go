package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
	"time"

	"github.com/vouchgate/vouch/internal/loopback"
)

// Sampling of the mutex and block profiles while a debug address is
// served: one contention event in mutexFraction, and blocking events
// of blockRate nanoseconds or more. Off otherwise: they cost every lock.
const (
	mutexFraction = 5
	blockRate     = 10_000
)

// startDebug serves the runtime's profiles (net/http/pprof: /debug/pprof/
// with profile, heap, mutex, block, goroutine and trace) on addr, which
// must be a loopback address: they show the process's internals and are
// served without a key. It turns mutex and block sampling on, and returns
// the address it listens on and what stops it.
func startDebug(addr string, log *slog.Logger) (string, func(), error) {
	if !loopback.Host(addr) {
		return "", nil, fmt.Errorf("--debug-addr %s: profiles are served on a loopback address only (127.0.0.1:PORT)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("--debug-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	runtime.SetMutexProfileFraction(mutexFraction)
	runtime.SetBlockProfileRate(blockRate)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("debug server", "err", err)
		}
	}()
	return ln.Addr().String(), func() {
		srv.Close()
		runtime.SetMutexProfileFraction(0)
		runtime.SetBlockProfileRate(0)
	}, nil
}
