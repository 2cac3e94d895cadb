package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/web"
)

// Options are what a [Server] is built from.
type Options struct {
	// Config is the server's configuration; see [DefaultConfig].
	Config Config
	// Store is the log. The server closes it when [Server.Run] ends.
	Store store.Store
	// Policy is the resolved policy (defaults, then Config.Policies); nil
	// means the built-in defaults.
	Policy *vouch.Policy
	// Judge decides what no rule can; nil means no judge.
	Judge vouch.Judge
	// Logger receives the server's logs; nil discards them.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Registry receives the server's Prometheus metrics and is what
	// /metrics serves; nil means a new registry with the Go and process
	// collectors.
	Registry *prometheus.Registry
	// SessionKey signs the dashboard's session cookies (at least 32
	// bytes); nil means Config.SessionKeyFile's contents, else the
	// default key file, made at the first start and never kept in the
	// store: beside a SQLite database (shared by every server on it), or
	// in the user's configuration directory for PostgreSQL.
	SessionKey []byte
	// Version is the version the server introduces itself with over
	// MCP; empty means "dev".
	Version string
	// Worker builds the server of a `vouch worker` ([Server.Work]): it
	// always works the job queue, and announces itself so that servers
	// leave the jobs to it. It needs a PostgreSQL store.
	Worker bool
}

// Server is the verification service. Make one with [New], serve it with
// [Server.Run] or mount [Server.Handler].
type Server struct {
	cfg     Config
	st      store.Store
	log     *slog.Logger
	now     func() time.Time
	policy  vouch.Policy
	judge   vouch.Judge
	metrics *metrics
	hub     *hub
	auth    *authenticator
	batches *batchPool // the in-process pool (SQLite)
	jobs    *jobQueue  // the job queue (PostgreSQL); nil on SQLite
	// reverify caches the engines of re-verification batches.
	reverify reverifyEngines
	// slots bound the requests served at once, uploads the batch bodies
	// being stored, bodies the bytes of request bodies held (admit.go).
	slots, uploads *slots
	bodies         *budget
	handler        http.Handler
	web            *web.Handler // nil when the dashboard is off
	mcp            http.Handler // nil when MCP is off
	version        string

	// engines: with and without the policy's allow-listed commands, and
	// per verifier model (verify-task).
	plain, commands *engine.Engine
	byModel         sync.Map // model -> *engine.Engine

	stopOnce sync.Once
	stopping chan struct{}

	// policyPrint fingerprints policy: part of every stored request hash,
	// so that a replay under another policy is a conflict (verify.go).
	policyPrint string
}

// New builds a server. It does not listen ([Server.Run] does); with the
// dashboard on and no session key given, it reads the key from the store
// (making it at the first start).
func New(opt Options) (*Server, error) {
	cfg := opt.Config
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if opt.Store == nil {
		return nil, errors.New("server: no store")
	}
	s := &Server{
		cfg:      cfg,
		log:      opt.Logger,
		now:      opt.Now,
		judge:    opt.Judge,
		slots:    newSlots(cfg.MaxInFlight, cfg.perCaller()),
		uploads:  newSlots(maxUploads, maxUploadsPerCaller),
		bodies:   newBudget(cfg.MaxHeldBodyBytes, cfg.heldPerCaller()),
		stopping: make(chan struct{}),
		version:  opt.Version,
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.policy = vouch.DefaultPolicy()
	if opt.Policy != nil {
		s.policy = *opt.Policy
	}
	if cfg.Timeouts.Verify > 0 {
		s.policy.Timeout = cfg.Timeouts.Verify
	}
	s.policyPrint = policyFingerprint(&s.policy)
	reg := opt.Registry
	if reg == nil {
		reg = newRegistry()
	}
	s.metrics = newMetrics(reg)
	if wc, ok := opt.Store.(store.WriteCounter); ok {
		registerWriteStats(reg, wc)
	}
	s.st = instrument(opt.Store, s.metrics)
	reg.MustRegister(&qualityCollector{s: s, refresh: 15 * time.Second})
	s.hub = newHub(cfg.MaxEventStreams, cfg.MaxEventStreamsPerTenant)
	s.shareEvents(opt.Store)
	// Open mode is decided once, here and at Run, never entered later: a
	// store with no live key now may serve keyless loopback requests until
	// its first key; a store with keys never does, even once every key is
	// revoked.
	keys, err := s.st.ActiveKeys(context.Background())
	if err != nil {
		return nil, fmt.Errorf("server: store: %w", err)
	}
	s.auth = newAuthenticator(s.st, s.now, keys == 0)
	s.auth.log = s.log
	if s.commands, err = s.newEngine(s.policy); err != nil {
		return nil, err
	}
	plain := s.policy
	plain.Commands.Allow = nil
	if s.plain, err = s.newEngine(plain); err != nil {
		return nil, err
	}
	if q, ok := opt.Store.(store.Queue); ok {
		if s.jobs, err = newJobQueue(s, &instrumentedQueue{Queue: q, m: s.metrics}, opt.Worker); err != nil {
			return nil, err
		}
	} else if opt.Worker {
		return nil, errors.New("server: a worker needs a PostgreSQL store, whose job queue it works; on SQLite, vouch serve works batches itself")
	} else {
		s.batches = newBatchPool(s, cfg.BatchWorkers)
	}
	if cfg.Dashboard {
		if s.web, err = s.newDashboard(opt.SessionKey, store.File(opt.Store)); err != nil {
			return nil, err
		}
	}
	if cfg.MCP {
		if s.mcp, err = s.newMCP(); err != nil {
			return nil, err
		}
	}
	s.handler = s.routes(reg)
	return s, nil
}

// newEngine builds an engine for a policy, resolving a request's
// workspace by name.
func (s *Server) newEngine(p vouch.Policy) (*engine.Engine, error) {
	return engine.New(engine.Options{
		Policy:          &p,
		Judge:           s.judge,
		Now:             s.now,
		MaxRequestBytes: s.cfg.MaxRequestBytes,
		Workspace:       s.workspaceDir,
	})
}

// workspaceDir maps a request's workspace name to its directory, opened
// for the engine (see engine.Options.Workspace).
func (s *Server) workspaceDir(req *vouch.Request) (*os.Root, error) {
	if req.Workspace == "" {
		return nil, nil
	}
	dir, ok := s.cfg.Workspaces[req.Workspace]
	if !ok {
		return nil, &vouch.Error{Code: vouch.ErrInvalid, Path: "workspace",
			Message: fmt.Sprintf("unknown workspace %q: a request names one of the server's workspaces (%s), never a path", truncate(req.Workspace, 80), s.workspaceNames())}
	}
	return engine.OpenDir(dir)
}

func (s *Server) workspaceNames() string {
	if len(s.cfg.Workspaces) == 0 {
		return "none configured"
	}
	names := make([]string, 0, len(s.cfg.Workspaces))
	for n := range s.cfg.Workspaces {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// engineFor picks the engine of a request: allow-listed commands run
// only in the workspaces that opt in.
func (s *Server) engineFor(req *vouch.Request) *engine.Engine {
	if s.cfg.commandsAllowed(req.Workspace) {
		return s.commands
	}
	return s.plain
}

// Handler returns the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// Run checks that the server may listen where it was told (without API
// keys, only on loopback), resumes unfinished batches, and serves on ln
// until ctx is done; then it stops taking requests, drains the ones in
// flight and the batch items being verified (within the shutdown
// timeout), and closes the store. It returns nil after a clean shutdown.
func (s *Server) Run(ctx context.Context, ln net.Listener) error {
	defer s.st.Close()
	n, err := s.st.ActiveKeys(ctx)
	if err != nil {
		ln.Close()
		return fmt.Errorf("server: store: %w", err)
	}
	switch {
	case n > 0:
		s.auth.close() // a key was created since New
	case !s.auth.mayOpen():
		s.log.Warn("no live API key in the store, but it held one when the server was made: every request needs a key (open mode is decided at start, from an empty store)", "addr", ln.Addr().String())
	case !isLoopback(ln.Addr()):
		ln.Close()
		return fmt.Errorf("server: no API keys in the store, so the server only listens on loopback, not %s: create a key with `vouch keys create --tenant NAME --scope verify,read`, or listen on 127.0.0.1", ln.Addr())
	default:
		s.log.Warn("no API keys in the store: listening on loopback only, requests without a key act as tenant \"default\" with every scope until the first key is created", "addr", ln.Addr().String())
	}
	t := s.cfg.Timeouts
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: time.Duration(t.ReadHeader),
		ReadTimeout:       time.Duration(t.Read),
		WriteTimeout:      time.Duration(t.Write),
		IdleTimeout:       time.Duration(t.Idle),
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	srv.RegisterOnShutdown(s.stop)
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	s.background(runCtx)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	s.log.Info("serving", "addr", ln.Addr().String(), "store", store.DisplayDSN(s.cfg.Store))
	select {
	case err := <-errc:
		cancel()
		s.runner().wait()
		return fmt.Errorf("server: %w", err)
	case <-ctx.Done():
	}
	s.log.Info("shutting down: draining requests in flight")
	sctx, scancel := context.WithTimeout(context.Background(), time.Duration(t.Shutdown))
	defer scancel()
	shutErr := srv.Shutdown(sctx)
	// Batch items being verified finish (or, past the deadline, stay
	// pending and resume at the next start).
	s.runner().drain(sctx)
	cancel()
	s.runner().wait()
	if err := s.st.Close(); err != nil && !errors.Is(err, store.ErrClosed) {
		return fmt.Errorf("server: closing the store: %w", err)
	}
	if shutErr != nil {
		return fmt.Errorf("server: shutdown: %w", shutErr)
	}
	s.log.Info("stopped")
	return nil
}

// background starts the work that goes on beside requests until ctx is
// done: the batch workers (resuming what is pending), the alerts, the
// retention, and hearing of the events other processes store.
func (s *Server) background(ctx context.Context) {
	s.runner().start(ctx)
	go s.watchAlerts(ctx)
	go s.listenEvents(ctx)
	if s.cfg.Retention > 0 {
		go s.retain(ctx)
	}
}

// batchRunner works batches: the in-process pool, or the job queue.
type batchRunner interface {
	start(ctx context.Context)
	drain(ctx context.Context)
	wait()
}

// runner returns what works the server's batches.
func (s *Server) runner() batchRunner {
	if s.jobs != nil {
		return s.jobs
	}
	return s.batches
}

// Work works batches until ctx is done, serving no requests and running
// no alerts or retention (the servers do): as `vouch worker` does, with
// a server built with Options.Worker on PostgreSQL, or, on SQLite, the
// pending items of the store's batches, as `vouch reverify` does. Then
// it stops taking work, lets what is under way finish within the
// shutdown timeout (the rest stays pending, or is tried again
// elsewhere), and closes the store.
func (s *Server) Work(ctx context.Context) error {
	defer s.st.Close()
	r := s.runner()
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	r.start(runCtx)
	<-ctx.Done()
	s.log.Info("shutting down: finishing the work under way")
	sctx, scancel := context.WithTimeout(context.Background(), time.Duration(s.cfg.Timeouts.Shutdown))
	defer scancel()
	r.drain(sctx)
	cancel()
	r.wait()
	if err := s.st.Close(); err != nil && !errors.Is(err, store.ErrClosed) {
		return fmt.Errorf("server: closing the store: %w", err)
	}
	s.log.Info("stopped")
	return nil
}

// stop tells long-lived handlers (event streams) to end.
func (s *Server) stop() { s.stopOnce.Do(func() { close(s.stopping) }) }

// retain deletes verifications older than the retention, every hour, in
// bounded batches.
func (s *Server) retain(ctx context.Context) {
	tick := time.NewTicker(time.Hour)
	defer tick.Stop()
	for {
		s.prune(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// pruneBatch bounds one delete of the retention.
const pruneBatch = 1000

func (s *Server) prune(ctx context.Context) {
	cutoff := s.now().Add(-time.Duration(s.cfg.Retention))
	total := 0
	for ctx.Err() == nil {
		n, err := s.st.Prune(ctx, cutoff, pruneBatch)
		total += n
		if err != nil {
			s.log.Error("retention: pruning the log", "err", err)
			return
		}
		if n < pruneBatch {
			break
		}
	}
	if total > 0 {
		s.log.Info("retention: pruned old verifications", "deleted", total, "before", cutoff)
	}
}

// isLoopback reports whether a listener's address is a loopback one.
func isLoopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		_, isUnix := a.(*net.UnixAddr)
		return isUnix
	}
	return tcp.IP.IsLoopback()
}

// newID returns a prefixed random id.
func newID(prefix string) string {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("server: no randomness: " + err.Error())
	}
	return prefix + hex.EncodeToString(b[:])
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
