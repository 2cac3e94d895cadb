package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"

	"github.com/vouchgate/vouch/internal/demo"
	"github.com/vouchgate/vouch/server"
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
	fl.StringVar(&f.config, "config", "", "read settings from `FILE` (YAML)")
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
	log, err := newLogger(st)
	if err != nil {
		return usageErr(err)
	}
	pol, j, err := policyAndJudge(st, cfg.Policies, f.noCache)
	if err != nil {
		return usageErr(err)
	}
	stopTracing, err := startTracing(ctx, st)
	if err != nil {
		return usageErr(err)
	}
	defer stopTracing()
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
	opts := server.Options{Config: cfg, Store: s, Policy: &pol, Logger: log, Version: version()}
	if j != nil {
		opts.Judge = j
	}
	srv, err := server.New(opts)
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

// keysFlags are the flags shared by the vouch keys commands.
type keysFlags struct {
	store  string
	tenant string
	name   string
	scopes []string
	json   bool
}

func newKeysCmd(st Streams) *cobra.Command {
	var f keysFlags
	cmd := &cobra.Command{
		Use:   "keys create|list|revoke --store DSN",
		Short: "Manage the API keys of a server's store (works on the store directly)",
		Long: `Manage the API keys of 'vouch serve'. The commands work on the store itself
(--store, else VOUCH_STORE, else ./vouch.db), so the first key needs no server.
A key is shown once, when it is made; the store keeps only its hash. Scopes:
verify (POST requests and batches), read (reports, lists, events), review
(overrides and outcomes), admin (every scope of its tenant), operator (the
Prometheus /metrics, which names every tenant: no tenant's admin key reads it;
give it to the operator's scraper alone). A running server notices a new or
revoked key within a few seconds.

A server on a store with no key runs in open mode: it takes requests without
a key as tenant "default". The first key ends open mode, and the verifications
made in it stay with tenant "default": only a key of that tenant reads them
('keys create --tenant default'). keys create says so when it makes the first
key of a store that holds such verifications.`,
	}
	fl := cmd.PersistentFlags()
	fl.StringVar(&f.store, "store", "", "the store's `DSN` (default: VOUCH_STORE, else ./vouch.db)")
	create := &cobra.Command{
		Use:   "create --tenant NAME [--scope verify,read] [--name TEXT]",
		Short: "Make a key for a tenant and print it (once)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.tenant == "" {
				return usageErr(fmt.Errorf("keys create needs --tenant NAME, the tenant whose verifications the key reaches; "+
					"those a server made without a key (open mode) belong to tenant %q: --tenant %s keeps them readable", server.DefaultTenant, server.DefaultTenant))
			}
			if !store.ValidTenant(f.tenant) {
				return usageErr(fmt.Errorf("--tenant %q: want lower-case letters, digits, - and _ (at most 63, starting with a letter or digit)", f.tenant))
			}
			var scopes []string
			for _, s := range f.scopes {
				for _, p := range strings.Split(s, ",") {
					if p = strings.TrimSpace(p); p != "" {
						scopes = append(scopes, p)
					}
				}
			}
			secret, k, err := store.NewKey(f.tenant, f.name, scopes, time.Now())
			if err != nil {
				return usageErr(err)
			}
			return withStore(cmd.Context(), st, f.store, func(s store.Store) error {
				openData, err := openModeData(cmd.Context(), s)
				if err != nil {
					return err
				}
				if err := s.CreateKey(cmd.Context(), k); err != nil {
					return err
				}
				if openData {
					defer firstKeyNote(st.Err, k.Tenant, f.store)
				}
				if f.json {
					return json.MarshalWrite(st.Out, map[string]any{"id": k.ID, "tenant": k.Tenant, "name": k.Name, "scopes": k.Scopes, "key": secret}, jsontext.WithIndent("  "))
				}
				fmt.Fprintln(st.Out, secret)
				fmt.Fprintf(st.Err, "key %s for tenant %s (%s): shown once, keep it secret\n", k.ID, k.Tenant, strings.Join(k.Scopes, ","))
				return nil
			})
		},
	}
	create.Flags().StringVar(&f.tenant, "tenant", "", "the key's `TENANT`")
	create.Flags().StringVar(&f.name, "name", "", "a `NAME` to tell the key by")
	create.Flags().StringSliceVar(&f.scopes, "scope", []string{store.ScopeVerify, store.ScopeRead}, "the key's `SCOPES`: verify, read, review, admin, operator")
	create.Flags().BoolVar(&f.json, "json", false, "print the key as JSON")
	list := &cobra.Command{
		Use:   "list [--tenant NAME] [--json]",
		Short: "List the keys (never their secrets)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withStore(cmd.Context(), st, f.store, func(s store.Store) error {
				keys, err := s.Keys(cmd.Context(), f.tenant)
				if err != nil {
					return err
				}
				if f.json {
					type row struct {
						ID        string     `json:"id"`
						Tenant    string     `json:"tenant"`
						Name      string     `json:"name"`
						Scopes    []string   `json:"scopes"`
						CreatedAt time.Time  `json:"createdAt"`
						RevokedAt *time.Time `json:"revokedAt,omitempty"`
					}
					rows := make([]row, len(keys))
					for i, k := range keys {
						rows[i] = row{ID: k.ID, Tenant: k.Tenant, Name: k.Name, Scopes: k.Scopes, CreatedAt: k.CreatedAt}
						if !k.RevokedAt.IsZero() {
							t := k.RevokedAt
							rows[i].RevokedAt = &t
						}
					}
					return json.MarshalWrite(st.Out, rows, jsontext.WithIndent("  "))
				}
				tw := tabwriter.NewWriter(st.Out, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tTENANT\tNAME\tSCOPES\tCREATED\tREVOKED")
				for _, k := range keys {
					revoked := "-"
					if !k.RevokedAt.IsZero() {
						revoked = k.RevokedAt.UTC().Format(time.RFC3339)
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Tenant, k.Name, strings.Join(k.Scopes, ","), k.CreatedAt.UTC().Format(time.RFC3339), revoked)
				}
				return tw.Flush()
			})
		},
	}
	list.Flags().StringVar(&f.tenant, "tenant", "", "only the keys of `TENANT`")
	list.Flags().BoolVar(&f.json, "json", false, "print JSON")
	revoke := &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a key",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(cmd.Context(), st, f.store, func(s store.Store) error {
				if err := s.RevokeKey(cmd.Context(), args[0], time.Now()); err != nil {
					if errors.Is(err, store.ErrNotFound) {
						return usageErr(fmt.Errorf("no key %q", args[0]))
					}
					return err
				}
				fmt.Fprintf(st.Err, "key %s revoked\n", args[0])
				if n, err := s.ActiveKeys(cmd.Context()); err == nil && n == 0 {
					fmt.Fprintln(st.Err, "that was the last live key: a running server on this store stays closed and refuses every request until a key is created; a server started on it now would run in open mode (loopback only, every request without a key)")
				}
				return nil
			})
		},
	}
	cmd.AddCommand(create, list, revoke)
	return cmd
}

// openModeData reports whether s has no live key (a server on it runs in
// open mode) and holds verifications of the tenant of open mode,
// "default": the data the first key hides from every other tenant.
func openModeData(ctx context.Context, s store.Store) (bool, error) {
	n, err := s.ActiveKeys(ctx)
	if err != nil || n > 0 {
		return false, err
	}
	page, err := s.List(ctx, server.DefaultTenant, store.Filter{Limit: 1})
	if err != nil {
		return false, err
	}
	return len(page.Items) > 0, nil
}

// firstKeyNote tells whoever made the first key of a store that holds
// open mode's verifications what becomes of them, and how to reach them.
func firstKeyNote(w io.Writer, tenant, dsn string) {
	fmt.Fprintln(w, "note: this is the store's first key: a server on it leaves open mode and takes only requests with a key.")
	if tenant == server.DefaultTenant {
		fmt.Fprintf(w, "  The verifications made without a key belong to tenant %q, this key's: it reads them.\n", server.DefaultTenant)
		return
	}
	flag := ""
	switch {
	case store.IsPostgres(dsn):
		flag = " --store DSN"
	case dsn != "":
		flag = " --store " + dsn
	}
	fmt.Fprintf(w, "  The verifications made without a key (open mode) belong to tenant %q; this key, of tenant %q,\n"+
		"  does not reach them, nor does the dashboard signed in with it. To keep reading them, make a key for\n"+
		"  tenant %q too: vouch keys create%s --tenant %s --scope read,review\n", server.DefaultTenant, tenant, server.DefaultTenant, flag, server.DefaultTenant)
}

// withStore opens the store named by dsn (else VOUCH_STORE, else
// ./vouch.db), runs fn and closes it.
func withStore(ctx context.Context, st Streams, dsn string, fn func(store.Store) error) error {
	if dsn == "" {
		dsn = st.getenv("VOUCH_STORE")
	}
	if dsn == "" {
		dsn = server.DefaultConfig().Store
	}
	s, err := store.Open(ctx, dsn, store.Options{})
	if err != nil {
		return &exitError{code: exitNotOK, err: err}
	}
	err = fn(s)
	if cerr := s.Close(); err == nil && cerr != nil {
		err = cerr
	}
	var ee *exitError
	if err != nil && !errors.As(err, &ee) {
		err = &exitError{code: exitNotOK, err: err}
	}
	return err
}
