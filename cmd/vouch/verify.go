package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/internal/jail"
	"github.com/vouchgate/vouch/judge"
	"github.com/vouchgate/vouch/wire"
)

// verifyFlags are the flags of vouch verify.
type verifyFlags struct {
	workspace   string
	roots       []string
	base        string
	policies    []string
	json        bool
	brief       bool
	timeout     time.Duration
	batch       string
	out         string
	concurrency int
	maxBytes    int64
	noCache     bool
	estimate    bool
	// transcript is a session log to verify, read as vouch trace from
	// reads it, completed by from's options.
	transcript string
	from       fromOptions
}

func newVerifyCmd(st Streams) *cobra.Command {
	var f verifyFlags
	cmd := &cobra.Command{
		Use:   "verify [flags] REQUEST|-",
		Short: "Verify one request, or a JSONL batch of requests",
		Long: `Verify one request (a JSON or YAML file, or - for standard input) and print
the report: readable by default, JSON with --json, or its brief form with
--brief (one line of JSON under 500 bytes: verdict, action, score, confidence,
coverage, at most three findings, the feedback). With --batch, verify every
line of a JSONL file and write one report per line to --out, in input order; a
bad line becomes {"line": N, "error": {...}} and the batch goes on.

--transcript LOG verifies an agent's session log in place of a REQUEST: its
format detected and read as vouch trace from reads it (Claude Code,
mini-swe-agent, OpenAI chat or Responses, OpenTelemetry GenAI spans), with
--goal and --criteria completing the request it makes.

--workspace names the agent's workspace. Without it, a workspace named in a
request (relative to the request file's directory) is used only when it lies
inside an allowed root: the current directory (unless it is / or your home
directory), or each --workspace-root.
Anything else is a usage error: the request is written by the agent under
verification, and must not choose what vouch reads. The filesystem root,
/proc, /sys and /dev are never a workspace. Files a criterion names (a
json_schema check's schemaFile) are read from the request file's directory,
never through a symlink out of it.

A judge model decides what no rule can when the policy names one (judge.models
or judge.tiers) or VOUCH_JUDGE does: a comma-separated list of provider:model,
e.g. VOUCH_JUDGE=openai:gpt-4o or anthropic:claude-sonnet-4-5; several form an
ensemble. The OpenAI client (any OpenAI-compatible API: OpenAI, OpenRouter,
Ollama, vLLM, llama.cpp, LM Studio) reads OPENAI_BASE_URL and OPENAI_API_KEY;
the Anthropic client ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY. Judge answers are
cached on disk under the user's cache directory (VOUCH_CACHE_DIR moves it;
--no-cache or VOUCH_CACHE=off switches it off). --estimate runs the rules and
prints the judge calls, tokens and most cost the rest would take, calling
nothing.

A bad request is refused with every problem it has, each with its path, line
and column: decoding's, a criterion that does not compile, a task policy that
widens the policy. With --json (or --brief) the problems are also printed on
standard output as JSON: {"error": {...}, "errors": [...]} (errors when there
are several), with the same exit code.

Exit codes: 0 pass; 1 retry or fail; 2 bad input or usage; 3 unverified
(nothing was found false, but claims could not be checked either way; the
report lists them). With --batch: 2 if any line was bad, else 1 if any report
was retry or fail, else 3 if any was unverified, else 0. With --estimate: 0
unless the input is bad.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := transcriptArgs(cmd, &f, args); err != nil || f.transcript != "" {
				return err
			}
			if f.estimate && f.batch != "" {
				return usageErr(errors.New("--estimate takes one REQUEST, not --batch"))
			}
			if f.batch != "" {
				if len(args) > 0 {
					return usageErr(errors.New("verify --batch takes no REQUEST argument"))
				}
				if f.out == "" {
					return usageErr(errors.New("verify --batch needs --out FILE"))
				}
				return nil
			}
			if f.out != "" || cmd.Flags().Changed("concurrency") {
				return usageErr(errors.New("--out and --concurrency go with --batch"))
			}
			if len(args) != 1 {
				return usageErr(errors.New("verify needs exactly one REQUEST file (or - for standard input)"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("concurrency") && f.concurrency < 1 {
				return usageErr(fmt.Errorf("--concurrency must be at least 1, got %d", f.concurrency))
			}
			if f.concurrency == 0 {
				f.concurrency = defaultConcurrency()
			}
			if f.timeout < 0 {
				return usageErr(fmt.Errorf("--timeout must not be negative"))
			}
			if f.brief && (f.batch != "" || f.estimate || f.json) {
				return usageErr(errors.New("--brief prints one report's brief form: it goes with neither --batch, --estimate nor --json"))
			}
			pol, j, err := policyAndJudge(st, f.policies, f.noCache)
			if err != nil {
				return usageErr(err)
			}
			if cmd.Flags().Changed("timeout") {
				pol.Timeout = vouch.Duration(f.timeout)
			}
			if f.batch != "" {
				return runBatch(cmd.Context(), st, &f, &pol, j)
			}
			if f.transcript != "" {
				return runTranscript(cmd.Context(), st, &f, &pol, j)
			}
			return runOne(cmd.Context(), st, &f, &pol, j, args[0])
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.workspace, "workspace", "", "the agent's workspace `DIR` (overrides the request's)")
	fl.StringArrayVar(&f.roots, "workspace-root", nil, "allow a request's own workspace under `DIR` (repeatable; default: the current directory)")
	fl.StringVar(&f.base, "base", "", "the commit `REF` the task started from (overrides the request's)")
	fl.StringArrayVar(&f.policies, "policy", nil, "a policy `FILE` (YAML); repeat to layer, later wins")
	fl.BoolVar(&f.json, "json", false, "print the report as JSON")
	fl.BoolVar(&f.brief, "brief", false, "print the report's brief form: one line of JSON under 500 bytes with the verdict, score, confidence, coverage, at most three findings and the feedback")
	fl.DurationVar(&f.timeout, "timeout", 0, "give up on a verification after `D` (default: the policy's timeout, 2m; 0: no limit); what is unchecked then stays undecided")
	fl.StringVar(&f.batch, "batch", "", "verify every line of `IN.jsonl`")
	fl.StringVar(&f.out, "out", "", "with --batch, write the reports to `OUT.jsonl`")
	fl.IntVar(&f.concurrency, "concurrency", 0, "with --batch, verify `N` requests at once (default: GOMAXPROCS, one per core)")
	fl.Int64Var(&f.maxBytes, "max-request-bytes", wire.DefaultMaxBytes, "refuse requests over `N` bytes")
	fl.BoolVar(&f.noCache, "no-cache", false, "neither read nor write the judge's answer cache")
	fl.BoolVar(&f.estimate, "estimate", false, "print the judge calls, tokens and cost the request would take, calling nothing")
	fl.StringVar(&f.transcript, "transcript", "", "verify an agent's session `LOG` (its format detected, as vouch trace from reads it) in place of a REQUEST")
	fl.StringVar(&f.from.goal, "goal", "", "with --transcript, the task's goal `TEXT`, in place of the prompts read from the log")
	fl.StringVar(&f.from.criteria, "criteria", "", "with --transcript, a YAML or JSON `FILE` holding a list of success criteria")
	return cmd
}

// newEngine builds the engine for a request source in dir, with the judge
// j (none when nil).
func newEngine(f *verifyFlags, pol *vouch.Policy, j vouch.Judge, dir string) (*engine.Engine, error) {
	// Files a criterion names sit beside the request, which the agent may
	// have written: they are opened as package jail opens (a FIFO is
	// refused, not waited on).
	files, err := jail.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot open %s: %w", dir, err)
	}
	roots := f.roots
	if len(roots) == 0 {
		roots = defaultRoots()
	}
	// The roots are opened once; a request's workspace is opened inside
	// one of them and the engine verifies that open directory.
	allowed := engine.OpenRoots(roots)
	return engine.New(engine.Options{
		Policy:          pol,
		Judge:           j,
		Files:           jail.FS(files),
		MaxRequestBytes: f.maxBytes,
		Workspace: func(req *vouch.Request) (*os.Root, error) {
			if f.workspace != "" {
				return engine.OpenDir(f.workspace)
			}
			if req.Workspace == "" {
				return nil, nil
			}
			ws := req.Workspace
			if !filepath.IsAbs(ws) {
				ws = filepath.Join(dir, ws)
			}
			return allowed.Open(ws)
		},
	})
}

// defaultRoots is where a request's own workspace may lie without
// --workspace-root: the current directory, unless it is the filesystem
// root or the user's home directory, which hold far more than a workspace
// (keys, configuration): then nowhere.
func defaultRoots() []string {
	cwd, err := os.Getwd()
	if err != nil {
		return nil
	}
	cwd, _ = filepath.EvalSymlinks(cwd)
	home, _ := os.UserHomeDir()
	if home != "" {
		home, _ = filepath.EvalSymlinks(home)
	}
	if cwd == "" || cwd == filepath.Dir(cwd) || cwd == home {
		return nil
	}
	return []string{cwd}
}

func runOne(ctx context.Context, st Streams, f *verifyFlags, pol *vouch.Policy, j *judge.Judge, src string) error {
	var data []byte
	var err error
	dir := "."
	if src == "-" {
		data, err = io.ReadAll(io.LimitReader(st.In, f.maxBytes+1))
	} else {
		data, err = readLimited(src, f.maxBytes)
		dir = filepath.Dir(src)
	}
	if err != nil {
		return usageErr(err)
	}
	name := src
	if src == "-" {
		name = "<stdin>"
	}
	return verifyData(ctx, st, f, pol, j, data, name, dir)
}

// verifyData verifies one request, data, read from name in dir.
func verifyData(ctx context.Context, st Streams, f *verifyFlags, pol *vouch.Policy, j *judge.Judge, data []byte, name, dir string) error {
	var err error
	var jv vouch.Judge
	var rec *judge.Recorder
	switch {
	case f.estimate:
		rec = &judge.Recorder{}
		jv = rec
	case j != nil:
		jv = j
	}
	eng, err := newEngine(f, pol, jv, dir)
	if err != nil {
		return usageErr(err)
	}
	// The engine's own problems (a criterion that does not compile, a
	// task.policy that widens the policy) are listed with decoding's,
	// each with its line and column, even when decoding found others.
	req, err := wire.DecodeRequest(data, wire.Options{MaxBytes: f.maxBytes, Name: name, Check: eng.Check})
	if err != nil {
		return usageErr(err)
	}
	if f.base != "" {
		req.Base = f.base
	}
	rep, err := eng.Verify(ctx, req)
	if err != nil {
		return usageErr(err)
	}
	if f.estimate {
		return printEstimate(st, j, rec, f.json)
	}
	switch {
	case f.brief:
		fmt.Fprintf(st.Out, "%s\n", vouch.MarshalBrief(rep.Brief()))
	case f.json:
		if err := wire.EncodeReport(st.Out, rep, true); err != nil {
			return &exitError{code: exitInput, err: err}
		}
	default:
		render(st.Out, rep, st.color(st.Out))
	}
	return verdictExit(rep.Verdict)
}

// verdictExit is the exit of vouch verify for a verdict: nil for pass, 1
// for retry or fail, 3 for unverified.
func verdictExit(v vouch.Verdict) error {
	switch {
	case v == vouch.VerdictPass:
		return nil
	case v == vouch.VerdictUnverified:
		return &exitError{code: exitUnverified}
	}
	return &exitError{code: exitNotOK}
}

// readLimited reads a file, refusing one over max bytes before reading it.
func readLimited(path string, max int64) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("cannot read %s: %v", path, pe.Err)
		}
		return nil, err
	}
	defer fh.Close()
	if fi, err := fh.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > max {
		return nil, &vouch.Error{Code: vouch.ErrTooLarge, File: path,
			Message: fmt.Sprintf("request is %d bytes, over the limit of %d", fi.Size(), max)}
	}
	return io.ReadAll(io.LimitReader(fh, max+1))
}
