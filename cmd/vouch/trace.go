package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/policy"
	"github.com/vouchgate/vouch/trace"
	"github.com/vouchgate/vouch/trace/claudecode"
	"github.com/vouchgate/vouch/trace/miniswe"
	"github.com/vouchgate/vouch/wire"
)

// requestOptions print a request: indented, map keys sorted, omitempty as
// the contract's tags mean it (zero counts and false flags left out), and
// invalid UTF-8 from agent text replaced rather than failing.
var requestOptions = json.JoinOptions(
	jsontext.WithIndent("  "),
	json.Deterministic(true),
	jsonv1.OmitEmptyWithLegacySemantics(true),
	jsontext.AllowInvalidUTF8(true),
)

func newTraceCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trace",
		Short: "Turn agent session logs into requests, and summarise the trace of a request",
		Long: `Read what agents actually did.

  vouch trace from-claude FILE|-      a Claude Code session log (JSONL) as a request
  vouch trace from-mini-swe FILE|-    a mini-swe-agent trajectory as a request
  vouch trace summary REQUEST|-       the digest of a request's trace

The requests are printed as JSON, ready for vouch verify: the session's tool
calls as the trace (evidence), its last message as the summary, and the files
created and modified, the tool calls and commands as the claimed output.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErr(fmt.Errorf("unknown trace subcommand %q: want from-claude, from-mini-swe or summary", args[0]))
			}
			return usageErr(errors.New("trace needs a subcommand: from-claude, from-mini-swe or summary"))
		},
	}
	from := func(use, short string, read func(io.Reader) (*trace.Transcript, error)) *cobra.Command {
		var o fromOptions
		c := &cobra.Command{
			Use:   use + " [--goal TEXT] [--criteria FILE] [--workspace DIR] [--base REF] FILE|-",
			Short: short,
			Args:  oneFile(use),
			RunE: func(cmd *cobra.Command, args []string) error {
				return runFrom(cmd, args[0], read, &o)
			},
		}
		fl := c.Flags()
		fl.StringVar(&o.goal, "goal", "", "the task's goal `TEXT`, in place of the prompts read from the log")
		fl.StringVar(&o.criteria, "criteria", "", "a YAML or JSON `FILE` holding a list of success criteria for the task")
		fl.StringVar(&o.workspace, "workspace", "", "the workspace `DIR` the agent worked in")
		fl.StringVar(&o.base, "base", "", "the git `REF` the agent started from")
		return c
	}
	var (
		policies []string
		maxBytes int
		maxReq   int64
	)
	summary := &cobra.Command{
		Use:   "summary [--policy FILE]... [--max-bytes N] REQUEST|-",
		Short: "Print what a request's trace shows the agent did: files read and written, commands run with their exit status...",
		Args:  oneFile("summary"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if maxBytes < 0 {
				return usageErr(fmt.Errorf("--max-bytes must not be negative, got %d", maxBytes))
			}
			pol, err := policy.Load(policies...)
			if err != nil {
				return usageErr(err)
			}
			if maxReq <= 0 {
				maxReq = wire.DefaultMaxBytes
			}
			data, name, err := readInput(cmd, args[0], maxReq)
			if err != nil {
				return usageErr(err)
			}
			req, err := wire.DecodeRequest(data, wire.Options{MaxBytes: maxReq, Name: name})
			if err != nil {
				return usageErr(err)
			}
			text := trace.Summarize(req.Trace, trace.NewTable(pol.Tools)).Text(maxBytes)
			if text == "" {
				text = "(no tool calls)"
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), text)
			return err
		},
	}
	fl := summary.Flags()
	fl.StringArrayVar(&policies, "policy", nil, "a policy `FILE` whose tools map names tools; repeat to layer")
	fl.IntVar(&maxBytes, "max-bytes", 0, "cut the digest to `N` bytes (0: no limit)")
	fl.Int64Var(&maxReq, "max-request-bytes", wire.DefaultMaxBytes, "refuse requests over `N` bytes")
	cmd.AddCommand(
		from("from-claude", "Print a Claude Code session log (JSONL) as a request", claudecode.Read),
		from("from-mini-swe", "Print a mini-swe-agent trajectory as a request", miniswe.Read),
		summary,
	)
	return cmd
}

// oneFile checks that a trace subcommand got exactly one file argument.
func oneFile(name string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != 1 {
			return usageErr(fmt.Errorf("trace %s needs exactly one FILE (or - for standard input)", name))
		}
		return nil
	}
}

// runFrom converts one session log and prints it as a request.
// fromOptions complete a request read from a session log, so that nobody
// edits its JSON by hand.
type fromOptions struct {
	goal, criteria, workspace, base string
}

func runFrom(cmd *cobra.Command, src string, read func(io.Reader) (*trace.Transcript, error), o *fromOptions) error {
	var r io.Reader
	name := src
	if src == "-" {
		r, name = cmd.InOrStdin(), "<stdin>"
	} else {
		f, err := os.Open(src)
		if err != nil {
			return usageErr(openErr(src, err))
		}
		defer f.Close()
		r = f
	}
	t, err := read(r)
	if err != nil {
		var le *claudecode.LineError
		if errors.As(err, &le) {
			return usageErr(&vouch.Error{Code: vouch.ErrSyntax, File: name, Line: le.Line, Message: le.Err.Error()})
		}
		return usageErr(fmt.Errorf("%s: %w", name, err))
	}
	req := t.Request()
	if o.goal != "" {
		req.Task.Goal = o.goal
	}
	req.Workspace, req.Base = o.workspace, o.base
	if o.criteria != "" {
		if err := addCriteria(req, o.criteria); err != nil {
			return usageErr(err)
		}
	}
	b, err := json.Marshal(req, requestOptions)
	if err != nil {
		return &exitError{code: exitInput, err: err}
	}
	_, err = cmd.OutOrStdout().Write(append(b, '\n'))
	return err
}

// addCriteria reads a list of criteria (YAML or JSON) into the request,
// checked by the request decoder: a bad criterion is an error naming its
// path in the file.
func addCriteria(req *vouch.Request, file string) error {
	data, err := readLimited(file, wire.DefaultMaxBytes)
	if err != nil {
		return err
	}
	var list []any
	if err := yaml.Unmarshal(data, &list); err != nil {
		return fmt.Errorf("%s: want a list of criteria: %w", file, err)
	}
	doc := map[string]any{"apiVersion": vouch.APIVersion, "kind": string(vouch.KindSubtask),
		"task": map[string]any{"goal": "x", "criteria": list}, "output": map[string]any{"summary": ""}}
	b, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	parsed, err := wire.DecodeRequest(b, wire.Options{Name: file})
	if err != nil {
		return withoutPositions(err)
	}
	req.Task.Criteria = parsed.Task.Criteria
	return nil
}

// withoutPositions drops the line and column of a decoding error of a
// document built from a file's contents: they point into the built
// document, not the file; the path names the member.
func withoutPositions(err error) error {
	var one *vouch.Error
	var many vouch.Errors
	switch {
	case errors.As(err, &many):
		for _, e := range many {
			e.Line, e.Column = 0, 0
		}
	case errors.As(err, &one):
		one.Line, one.Column = 0, 0
	}
	return err
}

// readInput reads a file, or standard input for "-", up to max bytes.
func readInput(cmd *cobra.Command, src string, max int64) ([]byte, string, error) {
	if src == "-" {
		data, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), max+1))
		return data, "<stdin>", err
	}
	data, err := readLimited(src, max)
	return data, src, err
}

// openErr phrases a failure to open a file.
func openErr(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("cannot read %s: %v", path, pe.Err)
	}
	return err
}
