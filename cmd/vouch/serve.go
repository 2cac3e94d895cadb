package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/judge"
	"github.com/vouchgate/vouch/server"
	"github.com/vouchgate/vouch/server/demo"
	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/text/plural"
)

// serveFlags are the flags of vouch serve.
type serveFlags struct {
	addr        string
	store       string
	config      string
	policies    []string
	noCache     bool
	noDashboard bool
	noMCP       bool
	demo        bool
	demoN       int
	demoSeed    uint64
	debugAddr   string
}

func newServeCmd(st Streams) *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve [--addr HOST:PORT] [--store DSN | --demo] [--config FILE]",
		Short: "Serve the verification API, keeping every verification in a durable log",
		Long: `Serve the verification API over HTTP (described at /openapi.json) and keep
every verification, its report and its request in a log: a SQLite file
(default ./vouch.db, created on first start) or PostgreSQL
(--store postgres://user:pass@host/db). A report answered 200 is in the log.

Settings come from the defaults, then --config FILE (YAML: addr, store,
policies, workspaces, commandWorkspaces, maxRequestBytes, maxBatchBytes,
storedRequestBytes, retention, maxInFlight, batchWorkers, queue, timeouts,
alerts, dashboard, sessionKeyFile, mcp), then the
environment (VOUCH_ADDR, VOUCH_STORE, VOUCH_MAX_IN_FLIGHT), then flags.

Clients authenticate with API keys (Authorization: Bearer vk_...) made with
'vouch keys create'. With no key in the store the server listens only on
loopback and takes requests without a key as tenant "default".

The judge is configured as for 'vouch verify' (the policies' judge settings or
VOUCH_JUDGE, with OPENAI_* and ANTHROPIC_* for the clients). Logs are JSON
lines on standard error unless it is a terminal (VOUCH_LOG_LEVEL: debug, info,
warn, error). Traces go to OTEL_EXPORTER_OTLP_ENDPOINT over OTLP/HTTP when it
is set. SIGINT or SIGTERM drains the requests in flight, then stops.

Batches (POST /v1/batches) are verified in the background. On SQLite the
server works them itself. On PostgreSQL they are jobs of a queue in the
database, worked by 'vouch worker' processes, or by the server while no
worker runs; any number of servers and workers share one database.

The web dashboard is served at the same address (/), unless --no-dashboard:
sign in with an API key that has the read scope (review to override
verdicts); with no key in the store it is open on loopback.

The verify tools are served over the Model Context Protocol at /mcp
(streamable HTTP, stateless), unless --no-mcp: with a key that has the verify
scope, as for POST /v1/verify; a tool's workspace is the name of one of the
configured workspaces. Stored reports are resources
(vouch://verifications/{id}) for a key with the read scope.

With --demo the server serves a month of demonstration data instead of a
store: a temporary SQLite store (removed when the server stops) is filled
with --demo-n verifications of sample requests, made by this server's own
engine on a clock stepped through the last 30 days, then reviewed and given
outcomes (on a terminal, with a progress bar on standard error). The address
is bound first, so a port already taken fails at once. The store holds no
key, so the server listens on loopback only, open; --store does not apply.

--debug-addr serves the Go runtime's profiles (CPU, heap, mutex, block,
goroutines, execution trace) at /debug/pprof/ on a second, loopback-only
address, for 'go tool pprof http://127.0.0.1:6060/debug/pprof/profile'. It
samples lock contention and blocking while it is on, at some cost.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd, st, &f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.addr, "addr", "", "listen on `HOST:PORT` (default 127.0.0.1:8080)")
	fl.StringVar(&f.store, "store", "", "the log's `DSN`: a SQLite file or postgres://... (default ./vouch.db)")
	fl.StringVar(&f.config, "config", "", "read settings from `FILE` (YAML; default: VOUCH_CONFIG)")
	fl.StringArrayVar(&f.policies, "policy", nil, "a policy `FILE` layered after the config's policies (repeatable)")
	fl.BoolVar(&f.noCache, "no-cache", false, "neither read nor write the judge's answer cache")
	fl.BoolVar(&f.noDashboard, "no-dashboard", false, "serve the API only, without the web dashboard")
	fl.BoolVar(&f.noMCP, "no-mcp", false, "do not serve the verify tools over MCP at /mcp")
	fl.BoolVar(&f.demo, "demo", false, "serve a temporary store filled with a month of demonstration data")
	fl.IntVar(&f.demoN, "demo-n", demo.DefaultN, "with --demo, how many verifications to make (`N`)")
	fl.Uint64Var(&f.demoSeed, "demo-seed", 1, "with --demo, the `SEED` of the data: the same seed gives the same data")
	fl.StringVar(&f.debugAddr, "debug-addr", "", "serve the runtime's profiles (/debug/pprof/) on `HOST:PORT`, a loopback address, without a key")
	return cmd
}

func runServe(cmd *cobra.Command, st Streams, f *serveFlags) error {
	ctx := cmd.Context()
	cfg, err := serverConfig(st, f.config, f.store)
	if err != nil {
		return usageErr(err)
	}
	if f.addr != "" {
		cfg.Addr = f.addr
	}
	if f.demo && f.store != "" {
		return usageErr(errors.New("--demo serves a temporary store of its own: give --demo or --store, not both"))
	}
	if !f.demo && (cmd.Flags().Changed("demo-n") || cmd.Flags().Changed("demo-seed")) {
		return usageErr(errors.New("--demo-n and --demo-seed go with --demo"))
	}
	if f.demo && (f.demoN < 1 || f.demoN > 100_000) {
		return usageErr(fmt.Errorf("--demo-n %d: want 1 to 100000", f.demoN))
	}
	if f.demo {
		dir, err := os.MkdirTemp("", "vouch-demo-")
		if err != nil {
			return &exitError{code: exitNotOK, err: err}
		}
		defer os.RemoveAll(dir)
		cfg.Store = filepath.Join(dir, "demo.db")
	}
	cfg.Policies = append(cfg.Policies, f.policies...)
	if f.noDashboard {
		cfg.Dashboard = false
	}
	if f.noMCP {
		cfg.MCP = false
	}
	if err := cfg.Validate(); err != nil {
		return usageErr(err)
	}
	eng, err := openEngine(ctx, st, cfg.Policies, f.noCache, true)
	if err != nil {
		return err
	}
	defer eng.close()
	log := eng.log
	// Listen first: a port already taken is found at once, not after the
	// store is opened (or a demo store filled, which takes seconds).
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return &exitError{code: exitNotOK, err: fmt.Errorf("cannot listen on %s: %w", cfg.Addr, err)}
	}
	s, err := store.Open(ctx, cfg.Store, store.Options{Logger: log})
	if err != nil {
		ln.Close()
		return &exitError{code: exitNotOK, err: err}
	}
	var seeded demo.Summary
	if f.demo {
		fmt.Fprintf(st.Err, "vouch serve: making %s, then serving them on http://%s\n", plural.Count(f.demoN, "demonstration verification"), ln.Addr())
		start := time.Now()
		var bar *progress
		opt := demo.Options{N: f.demoN, Seed: f.demoSeed}
		if st.showProgress(false) {
			bar = newLabelledProgress(st.Err, "demo data", f.demoN)
			opt.Progress = bar.set
		}
		seeded, err = demo.Seed(ctx, s, opt)
		bar.finish()
		if err != nil {
			ln.Close()
			s.Close()
			return &exitError{code: exitNotOK, err: err}
		}
		log.Info("demo data", "verifications", seeded.Verifications, "overrides", seeded.Overrides,
			"outcomes", seeded.Outcomes, "took", time.Since(start).Round(time.Millisecond).String())
	}
	srv, err := server.New(eng.serverOptions(cfg, s))
	if err != nil {
		ln.Close()
		s.Close()
		return usageErr(err)
	}
	if f.debugAddr != "" {
		bound, stop, err := startDebug(f.debugAddr, log)
		if err != nil {
			ln.Close()
			s.Close()
			return usageErr(err)
		}
		defer stop()
		fmt.Fprintf(st.Err, "vouch serve: profiles at http://%s/debug/pprof/\n", bound)
	}
	fmt.Fprintf(st.Err, "vouch serve: listening on http://%s (store %s)\n", ln.Addr(), store.DisplayDSN(cfg.Store))
	if cfg.Dashboard {
		fmt.Fprintf(st.Err, "vouch serve: dashboard at http://%s/\n", ln.Addr())
	}
	if cfg.MCP {
		fmt.Fprintf(st.Err, "vouch serve: MCP at http://%s/mcp\n", ln.Addr())
	}
	if f.demo {
		open := fmt.Sprintf("open http://%s/", ln.Addr())
		if !cfg.Dashboard {
			open = fmt.Sprintf("the API at http://%s/v1/", ln.Addr())
		}
		fmt.Fprintf(st.Err, "demo data: %s in %s; %s\n", plural.Count(seeded.Verifications, "verification"), filepath.Dir(cfg.Store), open)
	}
	if err := srv.Run(ctx, ln); err != nil {
		return &exitError{code: exitNotOK, err: err}
	}
	return nil
}

// serverConfig returns the settings of a command that runs the server's
// engine (serve, worker, reverify): the defaults, then the config file
// when one is given, then the environment, then --store when given. The
// caller applies its own flags, then validates.
func serverConfig(st Streams, file, dsn string) (server.Config, error) {
	cfg := server.DefaultConfig()
	if file == "" {
		file = st.getenv("VOUCH_CONFIG")
	}
	if file != "" {
		var err error
		if cfg, err = server.LoadConfig(file); err != nil {
			return cfg, err
		}
	}
	if err := cfg.ApplyEnv(st.getenv); err != nil {
		return cfg, err
	}
	if dsn != "" {
		cfg.Store = dsn
	}
	return cfg, nil
}

// startTracing exports traces when the environment asks for it
// (OTEL_EXPORTER_OTLP_ENDPOINT), and returns what flushes them at the
// end, within five seconds.
func startTracing(ctx context.Context, st Streams) (func(), error) {
	shutdown, err := server.SetupTracing(ctx, st.getenv, version())
	if err != nil {
		return nil, err
	}
	return func() {
		c, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		shutdown(c)
	}, nil
}

// newLogger logs JSON lines to standard error, or text on a terminal, at
// VOUCH_LOG_LEVEL (default info).
func newLogger(st Streams) (*slog.Logger, error) {
	var level slog.Level
	if v := st.getenv("VOUCH_LOG_LEVEL"); v != "" {
		if err := level.UnmarshalText([]byte(v)); err != nil {
			return nil, fmt.Errorf("VOUCH_LOG_LEVEL: want debug, info, warn or error, got %q", v)
		}
	}
	o := &slog.HandlerOptions{Level: level}
	if st.terminal(st.Err) {
		return slog.New(slog.NewTextHandler(st.Err, o)), nil
	}
	return slog.New(slog.NewJSONHandler(st.Err, o)), nil
}

// engineParts are what the commands that run the server's engine (serve,
// worker, reverify) open before their store: the logger, the policy and
// its judge, and tracing.
type engineParts struct {
	log   *slog.Logger
	pol   vouch.Policy
	judge *judge.Judge
	// close stops tracing, flushing what it holds.
	close func()
}

// openEngine opens the logger, the policy files with their judge and,
// with trace, the exporting of traces. Every failure is a usage error;
// on success the caller defers close.
func openEngine(ctx context.Context, st Streams, policies []string, noCache, trace bool) (*engineParts, error) {
	log, err := newLogger(st)
	if err != nil {
		return nil, usageErr(err)
	}
	pol, j, err := policyAndJudge(st, policies, noCache)
	if err != nil {
		return nil, usageErr(err)
	}
	e := &engineParts{log: log, pol: pol, judge: j, close: func() {}}
	if trace {
		if e.close, err = startTracing(ctx, st); err != nil {
			return nil, usageErr(err)
		}
	}
	return e, nil
}

// serverOptions are the server's options for cfg and store s, with the
// parts' logger, policy and judge.
func (e *engineParts) serverOptions(cfg server.Config, s store.Store) server.Options {
	opts := server.Options{Config: cfg, Store: s, Policy: &e.pol, Logger: e.log, Version: version()}
	if e.judge != nil {
		opts.Judge = e.judge
	}
	return opts
}
