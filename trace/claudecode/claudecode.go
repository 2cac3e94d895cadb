// Package claudecode imports Claude Code session logs (JSONL, one event a
// line) as vouch transcripts: [Read] returns the tool calls the session made
// with their results (the evidence) and the output its assistant claimed
// (its closing report, the tools and commands it used).
package claudecode

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/trace"
	"github.com/vouchgate/vouch/trace/internal/agentlog"
)

// MaxLineBytes bounds one line of a session log.
const MaxLineBytes = 64 << 20

// LineError is an error in one line of a session log.
type LineError struct {
	Line int // 1-based
	Err  error
}

// Error returns "line N: " and the error.
func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Unwrap returns the underlying error.
func (e *LineError) Unwrap() error { return e.Err }

// claudeLine is what Read reads of one line of a session log.
type claudeLine struct {
	Type              string         `json:"type"`
	IsSidechain       bool           `json:"isSidechain"`
	IsMeta            bool           `json:"isMeta"`
	IsCompactSummary  bool           `json:"isCompactSummary"`
	IsAPIErrorMessage bool           `json:"isApiErrorMessage"`
	Timestamp         string         `json:"timestamp"`
	Cwd               string         `json:"cwd"`
	SessionID         string         `json:"sessionId"`
	Message           *claudeMessage `json:"message"`
	ToolUseResult     jsontext.Value `json:"toolUseResult"`
}

type claudeMessage struct {
	ID      string         `json:"id"`
	Role    string         `json:"role"`
	Model   string         `json:"model"`
	Content jsontext.Value `json:"content"`
}

type claudeBlock struct {
	Type      string         `json:"type"`
	Text      string         `json:"text"`
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Input     jsontext.Value `json:"input"`
	ToolUseID string         `json:"tool_use_id"`
	Content   jsontext.Value `json:"content"`
	IsError   bool           `json:"is_error"`
}

// claudeToolResult is what Read reads of a line's toolUseResult
// object.
type claudeToolResult struct {
	BackgroundTaskID string `json:"backgroundTaskId"`
}

// claudeCall is what Read keeps about one call beside its entry.
type claudeCall struct {
	background string // the task id of a command run in the background
}

// claudeReader holds the state of one Read.
type claudeReader struct {
	t     trace.Transcript
	calls []claudeCall
	byID  map[string]int
	// report holds the texts the assistant wrote after its last piece of
	// work: a tool call made in answer to a user prompt, not to a task
	// notification.
	report []string
	// aside is true after a task notification that came once the
	// assistant had finished (its last block was text), until the next
	// prompt: the calls it makes then look at old work, they do not add
	// to it.
	aside bool
	// said is true when the assistant's last block was text.
	said     bool
	prompts  []string // the prompts users typed, in order, each once
	model    string
	session  string
	messages int
	// exits holds the exit status of background tasks from
	// <task-notification> messages, by task id.
	exits map[string]int
}

// Read reads a Claude Code session log: one JSON object a line.
//
// Assistant lines carry the model's content blocks; each tool_use block
// becomes a trace entry (id, tool name, input, the line's timestamp), in
// order. User lines carry tool_result blocks; each is paired with its
// tool_use by id: its content (a string, or text blocks joined by
// newlines) is the entry's output and is_error its error flag. A tool_use
// without a result is kept with no output. Thinking blocks are dropped.
//
// Lines of other types (progress, system, summaries, file-history
// snapshots, queue operations, and types yet unknown) are skipped, as are
// sidechain lines (a sub-agent's own messages): a delegation is one call
// whose result is the sub-agent's answer. A server tool's result, which
// comes in the assistant's own message, is paired the same way, its
// content kept as JSON. Blank lines are skipped; a line that is not a JSON
// object is an error (a *[LineError]) naming it, so a truncated log fails.
// Lines may be of any length up to [MaxLineBytes].
//
// The claimed output is what the assistant said, never what its tools did
// (a file a tool wrote is evidence, in the trace, not a claim that it
// exists):
//
//   - summary: the assistant's report, the text it wrote after its last
//     piece of work (non-blank text blocks, joined by blank lines; API
//     error messages are skipped). Work is a tool call; one made after a
//     task notification that came once the assistant had finished, before
//     the next prompt, looks at old work and does not end the report, so the replies to a background task's
//     notice and to a follow-up question ("did you push?") are read with
//     the completion report that came before them;
//   - created and modified stay empty: the engine reads the changes the
//     agent claims from its summary, and holds them against the trace
//     and the workspace;
//   - toolCalls: the distinct tool names, in order of first call;
//   - commands: the distinct commands run, in order; commandResults: every
//     run with its exit status when known: "Exit code N" in the result,
//     0 for a result without an error flag (Claude Code flags every
//     non-zero exit), and for a command run in the background the status a
//     later TaskOutput result or task notification reported.
//
// The goal is the prompts users typed, in order, each once, joined by blank
// lines: neither meta messages, compaction summaries, task notifications,
// local command output nor interruption notices. A slash command with
// arguments counts ("/fix the parser"). The executor is the model of the
// last assistant message, Cwd the directory the session started in.
//
// Read streams the log: it holds the transcript it builds and one
// line at a time. A log without any user or assistant message gives
// [trace.ErrNoMessages].
func Read(r io.Reader) (*trace.Transcript, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	c := &claudeReader{byID: make(map[string]int)}
	var buf []byte
	for n := 1; ; n++ {
		line, err := readLine(br, &buf)
		if err != nil && err != io.EOF {
			return nil, &LineError{Line: n, Err: err}
		}
		if n == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff"))
		}
		if len(line) > 0 {
			if lerr := c.line(line); lerr != nil {
				return nil, &LineError{Line: n, Err: lerr}
			}
		}
		if err == io.EOF {
			break
		}
	}
	if c.messages == 0 {
		return nil, trace.ErrNoMessages
	}
	return c.finish(), nil
}

// errLineTooLong reports a line over MaxLineBytes.
var errLineTooLong = fmt.Errorf("longer than %d bytes", MaxLineBytes)

// readLine reads one line, without its end, reusing *buf for lines longer
// than the reader's buffer. It returns io.EOF with the last line.
func readLine(br *bufio.Reader, buf *[]byte) ([]byte, error) {
	*buf = (*buf)[:0]
	for {
		frag, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if len(*buf)+len(frag) > MaxLineBytes {
				return nil, errLineTooLong
			}
			*buf = append(*buf, frag...)
			continue
		}
		line := frag
		if len(*buf) > 0 {
			*buf = append(*buf, frag...)
			line = *buf
		}
		if len(line) > MaxLineBytes {
			return nil, errLineTooLong
		}
		return trimLine(line), err
	}
}

// trimLine drops white space around a line.
func trimLine(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r' || b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}

// line reads one non-blank line.
func (c *claudeReader) line(data []byte) error {
	if data[0] != '{' {
		return errors.New("not a JSON object")
	}
	var l claudeLine
	if err := json.Unmarshal(data, &l, agentlog.DecodeOptions); err != nil {
		return agentlog.Error(err)
	}
	if l.IsSidechain || l.Message == nil {
		return nil
	}
	if l.Type == "assistant" || l.Type == "user" {
		if c.t.Cwd == "" {
			c.t.Cwd = l.Cwd
		}
		if c.session == "" {
			c.session = l.SessionID
		}
	}
	switch l.Type {
	case "assistant":
		c.messages++
		return c.assistant(&l)
	case "user":
		c.messages++
		return c.user(&l)
	}
	return nil
}

// blocks returns a message's content as blocks: a string is one text block.
func blocks(content jsontext.Value) ([]claudeBlock, error) {
	switch content.Kind() {
	case '"':
		var s string
		if err := json.Unmarshal(content, &s, agentlog.DecodeOptions); err != nil {
			return nil, agentlog.Error(err)
		}
		return []claudeBlock{{Type: "text", Text: s}}, nil
	case '[':
		var bs []claudeBlock
		if err := json.Unmarshal(content, &bs, agentlog.DecodeOptions); err != nil {
			return nil, agentlog.Error(err)
		}
		return bs, nil
	}
	return nil, nil
}

func (c *claudeReader) assistant(l *claudeLine) error {
	bs, err := blocks(l.Message.Content)
	if err != nil {
		return err
	}
	synthetic := l.IsAPIErrorMessage || l.Message.Model == "<synthetic>"
	if !synthetic && l.Message.Model != "" {
		c.model = l.Message.Model
	}
	for i := range bs {
		b := &bs[i]
		switch b.Type {
		case "text":
			if synthetic || strings.TrimSpace(b.Text) == "" {
				continue
			}
			c.report = append(c.report, strings.TrimSpace(b.Text))
			c.said = true
		case "tool_use", "server_tool_use":
			if b.ID != "" {
				if _, dup := c.byID[b.ID]; dup {
					continue // the same message logged twice
				}
				c.byID[b.ID] = len(c.t.Trace)
			}
			if !c.aside {
				c.report = c.report[:0]
			}
			c.said = false
			var input map[string]any
			if len(b.Input) > 0 && b.Input.Kind() == '{' {
				if err := json.Unmarshal(b.Input, &input, agentlog.DecodeOptions); err != nil {
					return agentlog.Error(err)
				}
			}
			c.t.Trace = append(c.t.Trace, vouch.TraceEntry{ID: b.ID, Tool: b.Name, Input: input, Timestamp: l.Timestamp})
			c.calls = append(c.calls, claudeCall{})
		default:
			// The result of a server tool (web_search_tool_result...) comes
			// in the assistant's own message, as JSON.
			if strings.HasSuffix(b.Type, "_tool_result") && b.ToolUseID != "" {
				out, isErr := serverResult(b)
				c.pair(b.ToolUseID, out, isErr)
			}
		}
	}
	return nil
}

// serverResult returns a server tool result's content as an output, and
// whether it reports an error.
func serverResult(b *claudeBlock) ([]byte, bool) {
	switch b.Content.Kind() {
	case '"', '[':
		if text, err := flatten(b.Content); err == nil && text != "" {
			return agentlog.Quote(text), b.IsError
		}
	}
	if len(b.Content) == 0 {
		return []byte(`""`), b.IsError
	}
	out := bytes.Clone(b.Content)
	if b.Content.Kind() == '{' {
		var head struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(b.Content, &head, agentlog.DecodeOptions) == nil && strings.HasSuffix(head.Type, "_error") {
			return out, true
		}
	}
	return out, b.IsError
}

// pair gives the call with the given id its result, unless it has one.
// It returns the call's index.
func (c *claudeReader) pair(id string, out []byte, isErr bool) (int, bool) {
	k, ok := c.byID[id]
	if !ok || c.t.Trace[k].Output != nil {
		return 0, false // no such call, or a result already paired
	}
	e := &c.t.Trace[k]
	e.Output = out
	e.IsError = isErr
	return k, true
}

func (c *claudeReader) user(l *claudeLine) error {
	bs, err := blocks(l.Message.Content)
	if err != nil {
		return err
	}
	var results []int // trace indexes of the results on this line
	var prompt []string
	for i := range bs {
		b := &bs[i]
		switch b.Type {
		case "tool_result":
			text, err := flatten(b.Content)
			if err != nil {
				return err
			}
			if k, ok := c.pair(b.ToolUseID, agentlog.Quote(text), b.IsError); ok {
				results = append(results, k)
			}
		case "text":
			if s := strings.TrimSpace(b.Text); s != "" {
				prompt = append(prompt, s)
			}
		}
	}
	if len(results) == 1 && l.ToolUseResult.Kind() == '{' {
		var tr claudeToolResult
		if json.Unmarshal(l.ToolUseResult, &tr, agentlog.DecodeOptions) == nil {
			call := &c.calls[results[0]]
			call.background = tr.BackgroundTaskID
		}
	}
	if len(results) > 0 || l.IsMeta || l.IsCompactSummary {
		return nil
	}
	text := strings.Join(prompt, "\n\n")
	if strings.HasPrefix(text, "<task-notification>") {
		c.notification(text)
		c.aside = c.aside || c.said
		return nil
	}
	if p := userPrompt(prompt); p != "" {
		c.aside = false
		if !slices.Contains(c.prompts, p) {
			c.prompts = append(c.prompts, p)
		}
	}
	return nil
}

// notification records the exit status a background task notification
// reports: <task-id>ID</task-id> and "(exit code N)" in its summary.
func (c *claudeReader) notification(text string) {
	b := []byte(text)
	id := string(agentlog.TagValue(b, "task-id"))
	summary := string(agentlog.TagValue(b, "summary"))
	const marker = "(exit code "
	i := strings.LastIndex(summary, marker)
	if id == "" || i < 0 {
		return
	}
	code, ok := agentlog.LeadingInt([]byte(summary[i+len(marker):]))
	if !ok {
		return
	}
	if c.exits == nil {
		c.exits = make(map[string]int)
	}
	c.exits[id] = code
}

// userPrompt returns the prompt a user typed from a message's text blocks,
// or "" when the message is none.
func userPrompt(blocks []string) string {
	var parts []string
	for _, s := range blocks {
		switch {
		case strings.HasPrefix(s, "<command-name>"):
			name := string(agentlog.TagValue([]byte(s), "command-name"))
			args := string(agentlog.TagValue([]byte(s), "command-args"))
			if name != "" && args != "" {
				parts = append(parts, name+" "+args)
			}
		case strings.HasPrefix(s, "<"), strings.HasPrefix(s, "Caveat: "), strings.HasPrefix(s, "[Request interrupted"):
			// Local command output, reminders, IDE context, notices.
		default:
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n\n")
}

// flatten returns a tool result's content as text: a string as it is,
// text blocks joined by newlines, an image as "[image]".
func flatten(content jsontext.Value) (string, error) {
	switch content.Kind() {
	case '"':
		var s string
		if err := json.Unmarshal(content, &s, agentlog.DecodeOptions); err != nil {
			return "", agentlog.Error(err)
		}
		return s, nil
	case '[':
		var bs []claudeBlock
		if err := json.Unmarshal(content, &bs, agentlog.DecodeOptions); err != nil {
			return "", agentlog.Error(err)
		}
		var parts []string
		for _, b := range bs {
			switch b.Type {
			case "text":
				parts = append(parts, b.Text)
			case "image":
				parts = append(parts, "[image]")
			}
		}
		return strings.Join(parts, "\n"), nil
	}
	return "", nil
}

// finish derives the claimed output.
func (c *claudeReader) finish() *trace.Transcript {
	t := &c.t
	o := &t.Output
	o.Summary = strings.Join(c.report, "\n\n")
	t.Goal = strings.Join(c.prompts, "\n\n")
	if c.model != "" {
		t.Executor = &vouch.Executor{Provider: "anthropic", Model: c.model}
	}
	o.Metadata = map[string]any{"source": "claude-code"}
	if c.session != "" {
		o.Metadata["sessionId"] = c.session
	}
	seen := map[string]bool{}
	for i := range t.Trace {
		o.ToolCalls = agentlog.AppendDistinct(o.ToolCalls, seen, t.Trace[i].Tool)
	}
	c.commands()
	return t
}

// commands derives commands and commandResults: see Read.
func (c *claudeReader) commands() {
	t := &c.t
	s := trace.Summarize(t.Trace, nil)
	seen := map[string]bool{}
	for _, cmd := range s.Commands {
		if cmd.Command == "" {
			continue
		}
		t.Output.Commands = agentlog.AppendDistinct(t.Output.Commands, seen, cmd.Command)
		code := cmd.ExitCode
		if code == nil && cmd.Background {
			id := c.calls[cmd.Index].background
			if id == "" {
				id = trace.BackgroundID(&t.Trace[cmd.Index])
			}
			if v, ok := c.exits[id]; ok {
				code = &v
			}
		}
		if code == nil && !cmd.Background && cmd.HasResult && !cmd.IsError {
			zero := 0
			code = &zero
		}
		if t.Output.Artifacts == nil {
			t.Output.Artifacts = &vouch.Artifacts{}
		}
		t.Output.Artifacts.CommandResults = append(t.Output.Artifacts.CommandResults, vouch.CommandResult{Command: cmd.Command, ExitCode: code})
	}
}
