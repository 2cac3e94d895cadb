package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/judge"
	"github.com/vouchgate/vouch/policy"
	"github.com/vouchgate/vouch/trace"
	"github.com/vouchgate/vouch/trace/claudecode"
	"github.com/vouchgate/vouch/trace/miniswe"
	"github.com/vouchgate/vouch/trace/openai"
	"github.com/vouchgate/vouch/trace/otelgenai"
	"github.com/vouchgate/vouch/trace/transcript"
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
  vouch trace from-openai FILE|-      OpenAI Chat Completions messages or Responses
                                      API items (JSON, JSONL) as a request
  vouch trace from-otel FILE|-        OpenTelemetry GenAI spans (OTLP JSON) as a request
  vouch trace from FILE|-             any of these, its format detected
  vouch trace detect FILE|-           the format of a session log
  vouch trace summary REQUEST|-       the digest of a request's trace

The requests are printed as JSON, ready for vouch verify (or verify a log in
one step: vouch verify --transcript FILE): the session's tool calls as the
trace (evidence), its last message as the summary, and the tool calls and
commands as the claimed output. The formats detect names: ` + formatNames() + `.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErr(fmt.Errorf("unknown trace subcommand %q: want %s", args[0], traceSubcommands))
			}
			return usageErr(fmt.Errorf("trace needs a subcommand: %s", traceSubcommands))
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
		from("from-openai", "Print OpenAI Chat Completions messages or Responses API items as a request", openai.Read),
		from("from-otel", "Print OpenTelemetry GenAI spans (OTLP JSON) as a request", otelgenai.Read),
		from("from", "Print a session log of any known format as a request, its format detected", readTranscript),
		newTraceDetectCmd(),
		summary,
	)
	return cmd
}

// traceSubcommands lists the subcommands of vouch trace for its errors.
const traceSubcommands = "from-claude, from-mini-swe, from-openai, from-otel, from, detect or summary"

// formatNames lists the formats vouch trace detect names.
func formatNames() string {
	var names []string
	for _, f := range transcript.Formats() {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// readTranscript reads a session log of any known format.
func readTranscript(r io.Reader) (*trace.Transcript, error) {
	t, _, err := transcript.Read(r)
	return t, err
}

func newTraceDetectCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "detect FILE|-",
		Short: "Print the format of a session log: " + formatNames(),
		Args:  oneFile("detect"),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, name, err := readPrefix(cmd, args[0], transcript.DetectBytes)
			if err != nil {
				return usageErr(err)
			}
			f, err := transcript.Detect(data)
			if err != nil {
				return usageErr(fmt.Errorf("%s: %w", name, err))
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), f)
			return err
		},
	}
}

// readPrefix reads the first n bytes of a file, or of standard input for
// "-".
func readPrefix(cmd *cobra.Command, src string, n int64) ([]byte, string, error) {
	if src == "-" {
		data, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), n))
		return data, "<stdin>", err
	}
	f, err := os.Open(src)
	if err != nil {
		return nil, src, openErr(src, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, n))
	return data, src, err
}

// transcriptRequest reads a session log of any known format as a request,
// completed by the options, as vouch trace from prints it.
func transcriptRequest(in io.Reader, src, name string, o *fromOptions) ([]byte, error) {
	var r io.Reader = in
	if src != "-" {
		f, err := os.Open(src)
		if err != nil {
			return nil, openErr(src, err)
		}
		defer f.Close()
		r = f
	}
	t, err := readTranscript(r)
	if err != nil {
		return nil, logErr(name, err)
	}
	return requestJSON(t, o)
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
		return usageErr(logErr(name, err))
	}
	b, err := requestJSON(t, o)
	if err != nil {
		return usageErr(err)
	}
	_, err = cmd.OutOrStdout().Write(append(b, '\n'))
	return err
}

// logErr names the file in an importer's error: its line, for a Claude
// Code log.
func logErr(name string, err error) error {
	var le *claudecode.LineError
	if errors.As(err, &le) {
		return &vouch.Error{Code: vouch.ErrSyntax, File: name, Line: le.Line, Message: le.Err.Error()}
	}
	return fmt.Errorf("%s: %w", name, err)
}

// requestJSON builds the request of a transcript, completed by the
// options, as JSON.
func requestJSON(t *trace.Transcript, o *fromOptions) ([]byte, error) {
	req := t.Request()
	if o.goal != "" {
		req.Task.Goal = o.goal
	}
	req.Workspace, req.Base = o.workspace, o.base
	if o.criteria != "" {
		if err := addCriteria(req, o.criteria); err != nil {
			return nil, err
		}
	}
	return json.Marshal(req, requestOptions)
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

// transcriptArgs checks the arguments of vouch verify --transcript LOG:
// no REQUEST, no batch; --goal and --criteria go with it only.
func transcriptArgs(cmd *cobra.Command, f *verifyFlags, args []string) error {
	if f.transcript == "" {
		if f.from.goal != "" || f.from.criteria != "" {
			return usageErr(errors.New("--goal and --criteria go with --transcript"))
		}
		return nil
	}
	switch {
	case len(args) > 0:
		return usageErr(errors.New("verify --transcript takes no REQUEST argument"))
	case f.batch != "" || f.out != "" || cmd.Flags().Changed("concurrency"):
		return usageErr(errors.New("--transcript verifies one log: not with --batch, --out or --concurrency"))
	}
	return nil
}

// runTranscript verifies a session log: its format detected, read as a
// request as vouch trace from prints it, then verified as vouch verify
// verifies a request file. The request is held to --max-request-bytes.
func runTranscript(ctx context.Context, st Streams, f *verifyFlags, pol *vouch.Policy, j *judge.Judge) error {
	src, name, dir := f.transcript, f.transcript, filepath.Dir(f.transcript)
	if src == "-" {
		name, dir = "<stdin>", "."
	}
	data, err := transcriptRequest(st.In, src, name, &f.from)
	if err != nil {
		return usageErr(err)
	}
	return verifyData(ctx, st, f, pol, j, data, name, dir)
}
