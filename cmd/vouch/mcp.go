package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/mcpserver"
	"github.com/vouchgate/vouch/server"
	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/wire"
)

// mcpFlags are the flags of vouch mcp.
type mcpFlags struct {
	roots    []string
	policies []string
	timeout  time.Duration
	noCache  bool
	maxBytes int64
	store    string
	tenant   string
}

func newMCPCmd(st Streams) *cobra.Command {
	var f mcpFlags
	cmd := &cobra.Command{
		Use:   "mcp [--workspace-root DIR]... [--policy FILE]... [--store DSN]",
		Short: "Serve the verify tools to an agent over the Model Context Protocol (stdio)",
		Long: `Serve vouch's verify tools over the Model Context Protocol on standard input
and output, for an agent's host to start (Claude Code, Claude Desktop, Cursor):

  verify_output      an agent's work: its claims against the files, git, the trace
  verify_plan        a decomposition
  verify_synthesis   an answer built from several agents' outputs
  verify_answer      a researched answer against its sources
  verify_moderation  a moderator's summary of a discussion

A tool's arguments are the request's fields (task, output, trace, context,
workspace, base, attempt, id, interactionId, target); the result is the report
as structured content with a short summary. The prompt self_check tells an
agent how to check its own work before it claims it done.

A tool's workspace is a path, relative to the directory vouch mcp started in,
and is honoured only inside an allowed root: each --workspace-root, or else the
directory it started in (unless that is / or your home directory, which allow
nothing). The arguments come from the agent under verification: they never
choose what else vouch reads.

With --store, each verification is recorded in that log (a SQLite file or
postgres://..., as vouch serve uses) under --tenant, and stored reports are
resources at vouch://verifications/{id}.

The judge is configured as for vouch verify (the policies, or VOUCH_JUDGE).
Logs go to standard error; standard output carries the protocol alone.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMCP(cmd.Context(), st, &f, cmd.Flags().Changed("timeout"))
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.roots, "workspace-root", nil, "allow workspaces under `DIR` (repeatable; default: the current directory)")
	fl.StringArrayVar(&f.policies, "policy", nil, "a policy `FILE` (YAML); repeat to layer, later wins")
	fl.DurationVar(&f.timeout, "timeout", 0, "give up on a verification after `D` (default: the policy's timeout, 2m)")
	fl.BoolVar(&f.noCache, "no-cache", false, "neither read nor write the judge's answer cache")
	fl.Int64Var(&f.maxBytes, "max-request-bytes", wire.DefaultMaxBytes, "refuse requests over `N` bytes")
	fl.StringVar(&f.store, "store", "", "record verifications in the log at `DSN` and serve its reports as resources")
	fl.StringVar(&f.tenant, "tenant", server.DefaultTenant, "with --store, the `TENANT` to record under and read from")
	return cmd
}

func runMCP(ctx context.Context, st Streams, f *mcpFlags, timeoutSet bool) error {
	if f.timeout < 0 {
		return usageErr(errors.New("--timeout must not be negative"))
	}
	if f.maxBytes <= 0 {
		return usageErr(fmt.Errorf("--max-request-bytes must be positive, got %d", f.maxBytes))
	}
	if f.tenant == "" {
		return usageErr(errors.New("--tenant must not be empty"))
	}
	pol, j, err := policyAndJudge(st, f.policies, f.noCache)
	if err != nil {
		return usageErr(err)
	}
	if timeoutSet {
		pol.Timeout = vouch.Duration(f.timeout)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return usageErr(err)
	}
	roots := f.roots
	if len(roots) == 0 {
		roots = defaultRoots()
	}
	for _, r := range roots {
		if fi, err := os.Stat(r); err != nil || !fi.IsDir() {
			return usageErr(fmt.Errorf("--workspace-root %s: not a directory", r))
		}
	}
	opts := engine.Options{Policy: &pol, MaxRequestBytes: f.maxBytes, Workspace: mcpserver.Within(cwd, roots)}
	if j != nil {
		opts.Judge = j
	}
	eng, err := engine.New(opts)
	if err != nil {
		return usageErr(err)
	}
	o := mcpserver.Options{
		Verify:          mcpserver.Engine(eng),
		Workspace:       "The directory the agent worked in (absolute, or relative to where vouch mcp started); it must lie under an allowed root.",
		MaxRequestBytes: f.maxBytes,
		Version:         version(),
	}
	if f.store != "" {
		s, err := store.Open(ctx, f.store, store.Options{})
		if err != nil {
			return usageErr(fmt.Errorf("--store: %w", err))
		}
		defer s.Close()
		o.Verify = func(ctx context.Context, req *vouch.Request, body []byte) (mcpserver.Verified, error) {
			rep, err := eng.Verify(ctx, req)
			if err != nil {
				return mcpserver.Verified{}, err
			}
			b, replayed, err := server.Record(ctx, s, f.tenant, body, req, rep)
			return mcpserver.Verified{Report: b, Replayed: replayed}, err
		}
		o.Report = func(ctx context.Context, id string) ([]byte, error) {
			v, err := s.Get(ctx, f.tenant, id, 0)
			if errors.Is(err, store.ErrNotFound) {
				return nil, mcpserver.ErrNotFound
			}
			if err != nil {
				return nil, err
			}
			return v.Result, nil
		}
	}
	srv, err := mcpserver.New(o)
	if err != nil {
		return usageErr(err)
	}
	where := "none (give --workspace-root)"
	if len(roots) > 0 {
		where = fmt.Sprint(roots)
	}
	fmt.Fprintf(st.Err, "vouch mcp: serving on stdio; workspaces under %s\n", where)
	err = srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(st.In), Writer: nopWriteCloser{st.Out}})
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return &exitError{code: exitNotOK, err: err}
}

// nopWriteCloser is a writer whose Close does nothing: the command does
// not own standard output.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
