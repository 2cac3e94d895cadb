package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vouchgate/vouch/server"
	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/text/plural"
)

// reverifyFlags are the flags of vouch reverify.
type reverifyFlags struct {
	store, config  string
	tenant, kind   string
	since, until   string
	policies       []string
	workspaces     bool
	batch          string
	noWait, noWork bool
	out            string
	json           bool
	noCache        bool
}

func newReverifyCmd(st Streams) *cobra.Command {
	var f reverifyFlags
	cmd := &cobra.Command{
		Use:   "reverify --store DSN --since TIME --policy FILE [--until TIME] [--tenant T] [--kind K]",
		Short: "Verify stored verifications again under a new policy, and compare the verdicts",
		Long: `Verify the stored verifications of a window again, under the policy files given
(layered over the defaults, as 'vouch verify --policy' layers them), and
compare each new verdict with the old: what a policy change would have
changed. The log is left as it is.

The re-verification is a batch of the store (GET /v1/batches/ID/results on a
server gives its lines). On PostgreSQL its items are jobs, worked by this
command and by any 'vouch worker' or server on the store; on SQLite this
command works them. It waits until the batch is done (on a terminal, showing
its progress on standard error, unless --json), then prints how many verdicts
changed, old by new, and the changed verifications; --out FILE
writes every result line (JSONL: id, attempt, old and new verdict, score and
codes, and the new report when the verdict changed). --no-wait prints the
batch's id and leaves the work to the workers; --batch ID waits for an
existing re-verification and prints its summary.

Requests that name a workspace are skipped unless --workspaces: the state
they were verified against is gone, and they would be verified against the
workspace as it is now. A request over storedRequestBytes was not kept, and
is skipped. No command runs. Exit status: 0 when no verdict changed, 1 when
some did, 2 on bad input, 3 when the store cannot be reached.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runReverify(cmd, st, &f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.store, "store", "", "the store's `DSN` (else the config's, else VOUCH_STORE, else ./vouch.db)")
	fl.StringVar(&f.config, "config", "", "read server settings from `FILE` (YAML; default: VOUCH_CONFIG), as vouch serve does")
	fl.StringVar(&f.tenant, "tenant", server.DefaultTenant, "the `TENANT` whose verifications to re-verify")
	fl.StringVar(&f.since, "since", "", "re-verify the verifications created from `TIME` on (RFC 3339 or YYYY-MM-DD)")
	fl.StringVar(&f.until, "until", "", "and before `TIME` (default: now)")
	fl.StringVar(&f.kind, "kind", "", "only verifications of this `KIND`")
	fl.StringArrayVar(&f.policies, "policy", nil, "a policy `FILE` layered over the defaults (repeatable); the config's policies are not used")
	fl.BoolVar(&f.workspaces, "workspaces", false, "re-verify requests that name a workspace too, against the workspace as it is now")
	fl.StringVar(&f.batch, "batch", "", "wait for the re-verification batch `ID` made earlier, and summarize it")
	fl.BoolVar(&f.noWait, "no-wait", false, "create the batch, print its id and leave (workers or servers work it)")
	fl.BoolVar(&f.noWork, "no-work", false, "on PostgreSQL, wait while workers work the batch, without working it here")
	fl.StringVar(&f.out, "out", "", "write every result line to `FILE` (JSONL)")
	fl.BoolVar(&f.json, "json", false, "print the summary as JSON")
	fl.BoolVar(&f.noCache, "no-cache", false, "neither read nor write the judge's answer cache")
	return cmd
}

func runReverify(cmd *cobra.Command, st Streams, f *reverifyFlags) error {
	ctx := cmd.Context()
	cfg, err := serverConfig(st, f.config, f.store)
	if err != nil {
		return usageErr(err)
	}
	if err := cfg.Validate(); err != nil {
		return usageErr(err)
	}
	var opt server.ReverifyOptions
	if f.batch == "" {
		if f.since == "" {
			return usageErr(errors.New("--since is required: the start of the window to re-verify"))
		}
		if opt.Since, err = parseTime("since", f.since); err != nil {
			return usageErr(err)
		}
		if opt.Until, err = parseTime("until", f.until); err != nil {
			return usageErr(err)
		}
		if !opt.Until.IsZero() && !opt.Since.Before(opt.Until) {
			return usageErr(errors.New("--since must be before --until"))
		}
		opt.Tenant, opt.Kind, opt.Workspaces = f.tenant, f.kind, f.workspaces
	} else if f.since != "" || f.until != "" || f.kind != "" || len(f.policies) > 0 || f.workspaces {
		return usageErr(errors.New("--batch waits for an existing re-verification: it takes no window, kind, policy or --workspaces"))
	}
	eng, err := openEngine(ctx, st, f.policies, f.noCache, false)
	if err != nil {
		return err
	}
	defer eng.close()
	opt.Policy = eng.pol
	s, err := store.Open(ctx, cfg.Store, store.Options{Logger: eng.log})
	if err != nil {
		return &exitError{code: exitUnavailable, err: err}
	}
	// The server's own policy stays its default: the batch carries the
	// one re-verified under (opt.Policy).
	opts := eng.serverOptions(cfg, s)
	opts.Policy = nil
	_, onPG := s.(store.Queue)
	opts.Worker = onPG
	log := eng.log
	srv, err := server.New(opts)
	if err != nil {
		s.Close()
		return usageErr(err)
	}
	show := st.showProgress(f.json)
	id := f.batch
	if id == "" {
		act := startActivity(show, st.Err, "vouch reverify: selecting the verifications to re-verify")
		b, err := srv.Reverify(ctx, opt)
		act.stop()
		if err != nil {
			s.Close()
			if errors.Is(err, server.ErrNoneToReverify) {
				return &exitError{code: exitInput, err: err}
			}
			return &exitError{code: exitUnavailable, err: err}
		}
		id = b.ID
		fmt.Fprintf(st.Err, "vouch reverify: batch %s: %s to re-verify\n", id, plural.Count(b.Total, "verification"))
	}
	if f.noWait {
		s.Close()
		fmt.Fprintln(st.Out, id)
		return nil
	}
	workCtx, stopWork := context.WithCancel(ctx)
	defer stopWork()
	worked := make(chan error, 1)
	if onPG && f.noWork {
		close(worked)
	} else {
		go func() { worked <- srv.Work(workCtx) }()
	}
	// Work closes the store when it ends; read the batch through a
	// store of its own.
	rs, err := store.Open(ctx, cfg.Store, store.Options{Logger: log})
	if err != nil {
		stopWork()
		<-worked
		return &exitError{code: exitUnavailable, err: err}
	}
	defer rs.Close()
	if onPG && f.noWork {
		defer s.Close() // Work, which closes it, did not run
	}
	b, err := waitReverify(ctx, show, st.Err, rs, f.tenant, id)
	stopWork()
	if werr := <-worked; werr != nil && err == nil {
		err = werr
	}
	if err != nil {
		return &exitError{code: exitUnavailable, err: err}
	}
	act := startActivity(show, st.Err, "vouch reverify: reading the results")
	sum, err := summarize(ctx, rs, b, f.out)
	act.stop()
	if err != nil {
		return &exitError{code: exitUnavailable, err: err}
	}
	if f.json {
		enc := json.NewEncoder(st.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sum); err != nil {
			return err
		}
	} else {
		sum.print(st.Out)
	}
	if sum.Changed > 0 {
		return &exitError{code: exitNotOK}
	}
	return nil
}

// waitReverify polls a re-verification batch until it is done, drawing
// its progress on w when show is set.
func waitReverify(ctx context.Context, show bool, w io.Writer, s store.Batches, tenant, id string) (*store.Batch, error) {
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	var bar *progress
	defer func() { bar.finish() }() // bar is made at the first poll
	for {
		b, err := s.Batch(ctx, tenant, id)
		if errors.Is(err, store.ErrNotFound) {
			return nil, fmt.Errorf("no batch %q in tenant %q", id, tenant)
		}
		if err != nil {
			return nil, err
		}
		if b.Kind != store.BatchReverify {
			return nil, fmt.Errorf("batch %s is not a re-verification", id)
		}
		if show && bar == nil {
			bar = newLabelledProgress(w, "vouch reverify", b.Total)
		}
		bar.set(b.Done+b.Failed, b.Total)
		if b.State == store.BatchDone {
			return b, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("stopped before batch %s was done (it goes on; vouch reverify --batch %s waits for it): %w", id, id, ctx.Err())
		case <-tick.C:
		}
	}
}

// reverifySummary is what a re-verification came to.
type reverifySummary struct {
	Batch    string `json:"batch"`
	Total    int    `json:"total"`
	Compared int    `json:"compared"`
	Changed  int    `json:"changed"`
	Skipped  int    `json:"skipped"`
	Failed   int    `json:"failed"`
	// Verdicts counts the comparisons by "old -> new".
	Verdicts map[string]int `json:"verdicts"`
	// ChangedIDs lists the first changed verifications as id/attempt.
	ChangedIDs []string `json:"changedIds"`
}

// maxChangedListed bounds the changed verifications a summary names.
const maxChangedListed = 20

// summarize reads a re-verification's results, writing them to out when
// it is not empty.
func summarize(ctx context.Context, s store.Batches, b *store.Batch, out string) (*reverifySummary, error) {
	sum := &reverifySummary{Batch: b.ID, Total: b.Total, Verdicts: map[string]int{}}
	var w *bufio.Writer
	if out != "" {
		f, err := os.Create(out)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		w = bufio.NewWriter(f)
	}
	err := s.BatchResults(ctx, b.Tenant, b.ID, func(it store.BatchItem, result []byte) error {
		if w != nil {
			w.Write(result)
			w.WriteByte('\n')
		}
		if it.State != store.ItemDone {
			sum.Failed++
			return nil
		}
		var r server.ReverifyResult
		if err := json.Unmarshal(result, &r); err != nil {
			return fmt.Errorf("line %d: %w", it.Index+1, err)
		}
		if r.Skipped != "" || r.Old == nil || r.New == nil {
			sum.Skipped++
			return nil
		}
		sum.Compared++
		sum.Verdicts[r.Old.Verdict+" -> "+r.New.Verdict]++
		if r.Changed {
			sum.Changed++
			if len(sum.ChangedIDs) < maxChangedListed {
				sum.ChangedIDs = append(sum.ChangedIDs, fmt.Sprintf("%s/%d", r.ID, r.Attempt))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if w != nil {
		if err := w.Flush(); err != nil {
			return nil, err
		}
	}
	return sum, nil
}

func (s *reverifySummary) print(w io.Writer) {
	fmt.Fprintf(w, "re-verification %s: %s, %d compared, %d changed verdict, %d skipped, %d failed\n",
		s.Batch, plural.Count(s.Total, "verification"), s.Compared, s.Changed, s.Skipped, s.Failed)
	keys := make([]string, 0, len(s.Verdicts))
	for k := range s.Verdicts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		mark := " "
		if old, nw, _ := strings.Cut(k, " -> "); old != nw {
			mark = "*"
		}
		fmt.Fprintf(w, " %s %-22s %d\n", mark, k, s.Verdicts[k])
	}
	if len(s.ChangedIDs) > 0 {
		fmt.Fprintf(w, "changed: %s", strings.Join(s.ChangedIDs, ", "))
		if s.Changed > len(s.ChangedIDs) {
			fmt.Fprintf(w, " and %d more", s.Changed-len(s.ChangedIDs))
		}
		fmt.Fprintln(w)
	}
}
