package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/vouchgate/vouch/server"
	"github.com/vouchgate/vouch/store"
)

// workerFlags are the flags of vouch worker.
type workerFlags struct {
	store    string
	config   string
	policies []string
	workers  int
	noCache  bool
}

func newWorkerCmd(st Streams) *cobra.Command {
	var f workerFlags
	cmd := &cobra.Command{
		Use:   "worker --store postgres://... [--config FILE] [--workers N]",
		Short: "Work the batch jobs of a PostgreSQL store, beside any number of servers",
		Long: `Work the verification jobs of the batches of a PostgreSQL store: each item of a
batch posted to any 'vouch serve' on that store is a job, which a worker takes
and verifies. The transaction that writes the item's report completes the item,
which only a pending item can be, so a report is written once however often a
job is tried; the job is completed after it. Run any number of
workers, on any machines that reach the database; while one runs, the servers
leave the jobs to the workers (with none running, a server works them itself).

A job whose worker died (killed, or its machine lost) is tried again by
another after queue.rescueAfter; a verification that crashed is tried
queue.attempts times (default 5), then ends as its item's error.

Settings are those of 'vouch serve' (--config FILE, VOUCH_STORE, --store,
--policy): a worker verifies as the servers do, with the same policies,
workspaces and judge, so give it the same configuration. --workers (else
batchWorkers, else four times the number of CPUs) is how many jobs it works at
once, a job being one batch item, or in a large batch a run of up to 32; its
pool has a connection for each, and four more, unless the store's DSN sets
pool_max_conns.
SIGINT or SIGTERM stops taking jobs and lets the ones under way finish (within
timeouts.shutdown); the rest are tried again by another worker.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runWorker(cmd, st, &f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.store, "store", "", "the store's `DSN`: postgres://... (else the config's, else VOUCH_STORE)")
	fl.StringVar(&f.config, "config", "", "read settings from `FILE` (YAML; default: VOUCH_CONFIG), as vouch serve does")
	fl.StringArrayVar(&f.policies, "policy", nil, "a policy `FILE` layered after the config's policies (repeatable)")
	fl.IntVar(&f.workers, "workers", 0, "work `N` jobs at once (default: batchWorkers, else four times the number of CPUs)")
	fl.BoolVar(&f.noCache, "no-cache", false, "neither read nor write the judge's answer cache")
	return cmd
}

// workerSpareConns are the connections of a worker's pool beyond one
// per job.
const workerSpareConns = 4

func runWorker(cmd *cobra.Command, st Streams, f *workerFlags) error {
	ctx := cmd.Context()
	cfg, err := serverConfig(st, f.config, f.store)
	if err != nil {
		return usageErr(err)
	}
	if f.workers < 0 {
		return usageErr(fmt.Errorf("--workers %d: want a positive number", f.workers))
	}
	if f.workers > 0 {
		cfg.BatchWorkers = f.workers
	}
	if !store.IsPostgres(cfg.Store) {
		return usageErr(errors.New("vouch worker needs a PostgreSQL store (--store postgres://..., or store in --config, or VOUCH_STORE): batches on SQLite are worked by vouch serve itself"))
	}
	cfg.Policies = append(cfg.Policies, f.policies...)
	if err := cfg.Validate(); err != nil {
		return usageErr(err)
	}
	eng, err := openEngine(ctx, st, cfg.Policies, f.noCache, true)
	if err != nil {
		return err
	}
	defer eng.close()
	// A connection for each job at once, and a few for the queue's own
	// (the worker's announcement holds one, River's listener another),
	// unless the DSN sizes the pool (pool_max_conns): pgx's default, four
	// on up to four CPUs, kept jobs waiting for one.
	s, err := store.Open(ctx, cfg.Store, store.Options{Logger: eng.log, MaxConns: server.JobWorkers(cfg) + workerSpareConns})
	if err != nil {
		return &exitError{code: exitNotOK, err: err}
	}
	opts := eng.serverOptions(cfg, s)
	opts.Worker = true
	srv, err := server.New(opts)
	if err != nil {
		s.Close()
		return usageErr(err)
	}
	fmt.Fprintf(st.Err, "vouch worker: working batch jobs (store %s)\n", store.DisplayDSN(cfg.Store))
	if err := srv.Work(ctx); err != nil {
		return &exitError{code: exitNotOK, err: err}
	}
	return nil
}
