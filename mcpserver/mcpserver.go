// Package mcpserver serves vouch over the Model Context Protocol, so that an
// agent, or the host it runs in (Claude Code, Claude Desktop, Cursor), can
// verify work before it claims it done.
//
// [New] builds an MCP server (the official Go SDK's) with five tools, one
// per checkpoint kind: verify_output (a subtask's output), verify_plan (a
// decomposition), verify_synthesis, verify_answer and verify_moderation.
// A tool's arguments are the request's own fields (task, output, trace,
// context, workspace, base, attempt, id, interactionId, target); the tool
// sets the kind. The result carries the report as structured content and a
// short text summary for the model. A request the decoder refuses comes
// back as a tool error naming each problem, so the model can correct its
// call.
//
// Where a workspace lies is the caller's decision, made in
// [Options.Verify]: `vouch mcp` (stdio) takes a path under the roots it
// allows, `vouch serve` (streamable HTTP at /mcp) the name of one of its
// workspaces. With [Options.Report] set, stored reports are resources at
// vouch://verifications/{id}. The prompt self_check tells an agent how to
// check its own work before saying it is done.
package mcpserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/wire"
)

// ResourceTemplate is the URI template of a stored report.
const ResourceTemplate = "vouch://verifications/{id}"

// resourcePrefix is what a stored report's URI starts with.
const resourcePrefix = "vouch://verifications/"

// VerifyFunc verifies one request: the tool's arguments decoded, with the
// kind the tool names. body is the request as JSON, as it was decoded
// (what a log stores). An error that is a [*vouch.Error] or [vouch.Errors]
// is the request's fault and is shown to the model as such.
type VerifyFunc func(ctx context.Context, req *vouch.Request, body []byte) (Verified, error)

// Verified is what a [VerifyFunc] returns.
type Verified struct {
	// Report is the report as JSON.
	Report []byte
	// Replayed is true when the report is one stored earlier for the
	// same id and attempt, not a verification made now.
	Replayed bool
}

// ReportFunc returns the stored report of a verification, as JSON, by
// its id; an error wrapping [ErrNotFound] when there is none.
type ReportFunc func(ctx context.Context, id string) ([]byte, error)

// ErrNotFound is what a [ReportFunc] wraps when no report has the id.
var ErrNotFound = errors.New("no such verification")

// Options configure [New].
type Options struct {
	// Verify verifies a request; required.
	Verify VerifyFunc
	// Report reads stored reports; nil means no resources.
	Report ReportFunc
	// Workspace describes, for the tools' descriptions, what the
	// workspace argument names here: a path under the allowed roots, or
	// the name of one of the server's workspaces.
	Workspace string
	// MaxRequestBytes bounds a tool call's arguments; 0 means
	// wire.DefaultMaxBytes.
	MaxRequestBytes int64
	// Version is the server's version, as it introduces itself.
	Version string
	// Logger receives the SDK's logs; nil discards them.
	Logger *slog.Logger
}

// tool is one of the verify tools: its name, the kind it sets, and what
// it is for.
type tool struct {
	name  string
	kind  vouch.Kind
	title string
	desc  string
}

// Tools are the verify tools, one per checkpoint kind.
var tools = []tool{
	{"verify_output", vouch.KindSubtask, "Verify an agent's work",
		"Check an agent's output against what it actually did, before anyone relies on it: " +
			"the files it says it created or changed, the tests it says pass, the commands it says it ran, " +
			"the counts it gives (\"documented all 4 methods\"), the files, symbols and packages it cites. " +
			"Give task.goal, output.summary (the report exactly as the agent would give it), and the evidence: " +
			"trace (its tool calls with their results) and/or workspace (where the files are) and base (the git commit it started from). " +
			"Returns pass / retry / fail with a score, a confidence, the evidence per check, and feedback to act on."},
	{"verify_plan", vouch.KindDecomposition, "Verify a plan",
		"Check an orchestrator's decomposition of a task: subgoals that cover the goal, dependencies without cycles, " +
			"routing to agents that exist. Give task.goal and output.metadata.plan (or context.plan), and context.agents when routing is checked."},
	{"verify_synthesis", vouch.KindSynthesis, "Verify a synthesis",
		"Check a final answer built from several agents' outputs: that it rests on what they returned (context.outputs) " +
			"and drops nothing they found. Give task.goal, output.summary (the synthesis) and context.outputs."},
	{"verify_answer", vouch.KindAnswer, "Verify a research answer",
		"Check an answer against its sources: that what it states and cites is in context.sources or in the trace of the tool calls that found it. " +
			"Give task.goal, output.summary (the answer), and context.sources and/or trace."},
	{"verify_moderation", vouch.KindModeration, "Verify a moderator's summary",
		"Check a moderator's summary of a discussion against the discussion itself (context.discussion): " +
			"who said what, what was agreed, nothing invented. Give task.goal, output.summary and context.discussion."},
}

// New returns an MCP server with the verify tools, the self_check prompt
// and, with o.Report, the stored reports as resources. Serve it over any
// of the SDK's transports: mcp.StdioTransport, or
// mcp.NewStreamableHTTPHandler.
func New(o Options) (*mcp.Server, error) {
	if o.Verify == nil {
		return nil, errors.New("mcpserver: no Verify function")
	}
	if o.MaxRequestBytes <= 0 {
		o.MaxRequestBytes = wire.DefaultMaxBytes
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "vouch", Title: "vouch verification gate", Version: o.Version}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       log,
		// No logging capability: the server sends no log messages.
		Capabilities: &mcp.ServerCapabilities{},
	})
	in, err := inputSchema(o.Workspace)
	if err != nil {
		return nil, err
	}
	for _, t := range tools {
		s.AddTool(&mcp.Tool{
			Name:         t.name,
			Title:        t.title,
			Description:  t.desc,
			InputSchema:  in,
			OutputSchema: outputSchema,
			Annotations: &mcp.ToolAnnotations{
				ReadOnlyHint:   true,
				IdempotentHint: true,
				OpenWorldHint:  ptr(false),
			},
		}, o.handler(t.kind))
	}
	s.AddPrompt(selfCheckPrompt, selfCheck)
	if o.Report != nil {
		s.AddResourceTemplate(&mcp.ResourceTemplate{
			Name:        "verification",
			Title:       "A stored verification report",
			Description: "The report of a verification in the log, by its id (the report's id).",
			MIMEType:    "application/json",
			URITemplate: ResourceTemplate,
		}, o.readReport)
	}
	return s, nil
}

func ptr[T any](v T) *T { return &v }

// handler is the tool handler of a kind.
func (o *Options) handler(kind vouch.Kind) mcp.ToolHandler {
	return func(ctx context.Context, call *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		// A panic in one verification fails its call, not the server
		// and every other caller's calls with it.
		defer func() {
			if p := recover(); p != nil {
				o.log().Error("mcp: verification panicked", "tool", call.Params.Name, "panic", fmt.Sprint(p))
				res, err = toolError(fmt.Errorf("internal error: the verification failed (%v)", p)), nil
			}
		}()
		body, err := requestBody(call.Params.Arguments, kind, o.MaxRequestBytes)
		if err != nil {
			return toolError(err), nil
		}
		req, err := wire.DecodeRequest(body, wire.Options{MaxBytes: o.MaxRequestBytes + 128, Name: "arguments"})
		if err != nil {
			return toolError(err), nil
		}
		v, err := o.Verify(ctx, req, body)
		if err != nil {
			return toolError(err), nil
		}
		text, err := Summary(v.Report, o.Report != nil)
		if err != nil {
			return toolError(fmt.Errorf("reading the report: %w", err)), nil
		}
		if v.Replayed {
			text = "This is the report stored for this id and attempt earlier; nothing was verified now. To verify the work again, raise attempt.\n" + text
		}
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: text}},
			StructuredContent: json.RawMessage(v.Report),
		}, nil
	}
}

func (o *Options) log() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// requestBody turns a tool's arguments into a request of the tool's
// kind: the arguments object with apiVersion and kind put first, and,
// when the arguments give no id, a random one. The arguments may not set
// apiVersion or kind themselves.
//
// A request without an id would otherwise be named by a hash of its
// content, and a log keeps one report per id and attempt: the same
// arguments sent again after the work was fixed would get the report of
// the work before. A caller that wants a retry tied to its first try
// gives the id and raises attempt.
func requestBody(args json.RawMessage, kind vouch.Kind, max int64) ([]byte, error) {
	args = bytes.TrimSpace(args)
	if int64(len(args)) > max {
		return nil, &vouch.Error{Code: vouch.ErrTooLarge, Message: fmt.Sprintf("the arguments are %d bytes, over the limit of %d", len(args), max)}
	}
	if len(args) == 0 || string(args) == "null" {
		args = []byte("{}")
	}
	if args[0] != '{' {
		return nil, &vouch.Error{Code: vouch.ErrInvalid, Message: "the arguments must be an object holding the request's fields (task, output, trace, ...)"}
	}
	hasID, err := checkArgNames(args)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(len(args) + 80)
	fmt.Fprintf(&b, `{"apiVersion":%q,"kind":%q`, vouch.APIVersion, kind)
	if !hasID {
		var r [8]byte
		rand.Read(r[:])
		fmt.Fprintf(&b, `,"id":"mcp-%x"`, r)
	}
	rest := bytes.TrimSpace(args[1:])
	if len(rest) > 0 && rest[0] != '}' {
		b.WriteByte(',')
	}
	b.Write(rest)
	return b.Bytes(), nil
}

// checkArgNames refuses arguments that set the kind or the API version
// (the tool sets them), and reports whether they give a non-empty id.
// Malformed JSON is left for the decoder to report.
func checkArgNames(args []byte) (hasID bool, err error) {
	d := jsontext.NewDecoder(bytes.NewReader(args))
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '{' {
		return false, nil
	}
	for d.PeekKind() == '"' {
		name, err := d.ReadToken()
		if err != nil {
			return hasID, nil
		}
		switch name.String() {
		case "kind":
			return false, &vouch.Error{Code: vouch.ErrInvalid, Path: "kind", Message: "the tool sets the kind: call verify_output, verify_plan, verify_synthesis, verify_answer or verify_moderation instead of giving kind"}
		case "apiVersion":
			return false, &vouch.Error{Code: vouch.ErrInvalid, Path: "apiVersion", Message: "the tool sets apiVersion; leave it out"}
		case "id":
			v, err := d.ReadValue()
			if err != nil {
				return hasID, nil
			}
			hasID = string(v) != `""` && string(v) != "null"
			continue
		}
		if err := d.SkipValue(); err != nil {
			return hasID, nil
		}
	}
	return hasID, nil
}

// toolError is a tool result telling the model what was wrong: each
// problem of a refused request on its own line, with where it is.
func toolError(err error) *mcp.CallToolResult {
	var b strings.Builder
	if list := vouch.ErrorList(err); len(list) > 0 {
		b.WriteString("vouch could not verify this request:\n")
		for _, e := range list {
			b.WriteString("- ")
			if e.Path != "" {
				b.WriteString(e.Path)
				b.WriteString(": ")
			}
			b.WriteString(e.Message)
			b.WriteByte('\n')
		}
	} else {
		b.WriteString("vouch could not verify this request: ")
		b.WriteString(err.Error())
	}
	r := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.TrimRight(b.String(), "\n")}}}
	r.IsError = true
	return r
}

// readReport serves vouch://verifications/{id}.
func (o *Options) readReport(ctx context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := r.Params.URI
	id, ok := strings.CutPrefix(uri, resourcePrefix)
	if !ok || id == "" || strings.ContainsAny(id, "/?#") || len(id) > 256 {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	rep, err := o.Report(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, fmt.Errorf("reading verification %s: %w", id, err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(rep)}}}, nil
}

// instructions tell the client what the server is for.
const instructions = `vouch verifies an agent's work against ground truth: the files, git, the parsed code, the tool trace.
Before telling the user a task is done, call verify_output with the task's goal, the report you are about to give (output.summary),
and where the work is (workspace) or the tool calls you made (trace). On retry, fix what the feedback names and verify again
(with the report's id and attempt raised by one); never reword a claim to get past the check. Use verify_plan, verify_synthesis, verify_answer and verify_moderation for plans,
merged answers, researched answers and discussion summaries.`
