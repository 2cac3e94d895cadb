// Package session builds a transcript from the events of an agent
// session, whatever log they were read from: the prompts users gave, the
// text the assistant said, the tool calls it made and their results. The
// importers of message-list logs (OpenAI chat, the Responses API,
// OpenTelemetry GenAI spans) read their format and feed a [Builder]; the
// builder applies the rules the importers share: claims come from what
// the assistant says, evidence from its tool calls.
package session

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/trace"
	"github.com/vouchgate/vouch/trace/internal/agentlog"
)

// Flag is what a log says of a tool result's success.
type Flag int

// The flags.
const (
	// Unflagged: the log says nothing (the OpenAI APIs have no error flag).
	Unflagged Flag = iota
	// Failed: the log flags the result as an error.
	Failed
	// Succeeded: the log says explicitly that the call succeeded.
	Succeeded
)

// RawKey is the input member that holds a tool call's arguments when
// they are not a JSON object: a string that is not JSON, or JSON of
// another kind, kept as written.
const RawKey = "arguments"

// Unnamed is the tool name of a call the log names no tool for: a
// request needs one.
const Unnamed = "unnamed"

// Builder accumulates a session's events in order. The zero Builder is
// ready to use.
type Builder struct {
	t       trace.Transcript
	byID    map[string][]int // the calls of each id, in order
	byTool  map[string][]int // the calls of each tool that may lack a result, in order
	ok      []bool           // per entry: the log said the call succeeded
	batch   []int            // per entry: the run of calls made together it is in
	runs    int              // runs of calls so far
	inRun   bool             // the last event was a call
	report  []string
	prompts []string
	seen    map[string]bool
	model   string
	calls   int // tool calls seen, duplicates included
}

// Prompt records a message a user gave. Blank prompts and prompts already
// given are ignored.
func (b *Builder) Prompt(text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	if b.seen == nil {
		b.seen = make(map[string]bool)
	}
	b.prompts = agentlog.AppendDistinct(b.prompts, b.seen, text)
}

// Say records text the assistant wrote. The texts written after its last
// tool call are its report, the transcript's summary. A text the same as
// the last one is the same words logged again, and is not repeated.
func (b *Builder) Say(text string) {
	text = strings.TrimSpace(text)
	if text == "" || (len(b.report) > 0 && b.report[len(b.report)-1] == text) {
		return
	}
	b.inRun = false
	b.report = append(b.report, text)
}

// Stamp sets the timestamp of the call at index k, when ts is not empty.
func (b *Builder) Stamp(k int, ts string) {
	if k >= 0 && k < len(b.t.Trace) && ts != "" {
		b.t.Trace[k].Timestamp = ts
	}
}

// Fill gives the call at index k the input and timestamp it lacks: a
// call logged twice, once without them.
func (b *Builder) Fill(k int, input map[string]any, ts string) {
	if k < 0 || k >= len(b.t.Trace) {
		return
	}
	e := &b.t.Trace[k]
	if len(e.Input) == 0 && len(input) > 0 {
		e.Input = input
	}
	if e.Timestamp == "" {
		e.Timestamp = ts
	}
}

// Model records the model that ran the session; the last one recorded
// is the executor.
func (b *Builder) Model(name string) {
	if name = strings.TrimSpace(name); name != "" {
		b.model = name
	}
}

// Known reports whether a call with the given id was recorded.
func (b *Builder) Known(id string) bool {
	return id != "" && len(b.byID[id]) > 0
}

// Call records a tool call and returns its index in the trace. A call
// whose id was recorded before is the same call logged again: Call
// returns the index of the latest call of that id and false, and changes
// nothing. A new call ends the assistant's report: what it says next is a
// new one. A call without a tool name is named [Unnamed].
func (b *Builder) Call(id, tool string, input map[string]any, ts string) (int, bool) {
	if ks := b.byID[id]; id != "" && len(ks) > 0 {
		b.calls++
		return ks[len(ks)-1], false
	}
	return b.Add(id, tool, input, ts), true
}

// Add records a tool call, as [Builder.Call] does, even when a call with
// the same id was recorded before: for a log whose ids are unique only
// within one response, and which repeats no call. A result for that id
// goes to the latest of its calls that has none.
func (b *Builder) Add(id, tool string, input map[string]any, ts string) int {
	b.calls++
	if strings.TrimSpace(tool) == "" {
		tool = Unnamed
	}
	k := len(b.t.Trace)
	if id != "" {
		if b.byID == nil {
			b.byID = make(map[string][]int)
		}
		b.byID[id] = append(b.byID[id], k)
	}
	if b.byTool == nil {
		b.byTool = make(map[string][]int)
	}
	b.byTool[tool] = append(b.byTool[tool], k)
	if !b.inRun {
		b.runs, b.inRun = b.runs+1, true
	}
	b.report = b.report[:0]
	b.t.Trace = append(b.t.Trace, vouch.TraceEntry{ID: id, Tool: tool, Input: input, Timestamp: ts})
	b.ok = append(b.ok, false)
	b.batch = append(b.batch, b.runs)
	return k
}

// Result gives the call with the given id its output (JSON), unless it
// has one, and reports whether it did. The entry is an error when flag is
// Failed, or, for a command the log does not flag, when the output states
// an exit status other than 0. A command's output that is a JSON object
// stating its exit status is rewritten as [Observation] says, so that the
// status is evidence.
func (b *Builder) Result(id string, out []byte, flag Flag) bool {
	if id == "" {
		return false
	}
	// The calls of an id are those of the latest run of calls (the calls
	// of one response) that has one without a result; the first of them
	// without one gets it, results coming in the order of the calls.
	ks := b.byID[id]
	at := -1
	for i := len(ks) - 1; i >= 0; i-- {
		if !b.answered(ks[i]) {
			at = i
			for at > 0 && b.batch[ks[at-1]] == b.batch[ks[i]] && !b.answered(ks[at-1]) {
				at--
			}
			break
		}
	}
	if at < 0 {
		return false
	}
	return b.ResultAt(ks[at], out, flag)
}

// answered reports whether the call at index k has a result.
func (b *Builder) answered(k int) bool {
	e := &b.t.Trace[k]
	return e.Output != nil || e.IsError
}

// ResultAt is [Builder.Result] for the call at index k of the trace.
func (b *Builder) ResultAt(k int, out []byte, flag Flag) bool {
	if k < 0 || k >= len(b.t.Trace) {
		return false
	}
	e := &b.t.Trace[k]
	if e.Output != nil || e.IsError {
		return false // a result already paired
	}
	if out == nil {
		out = []byte(`""`)
	}
	if trace.Builtin().CallOp(e.Tool, e.Input) == trace.OpExec && len(out) > 0 && out[0] == '"' {
		// A command's output that is a JSON object with its exit status.
		var text string
		if json.Unmarshal(out, &text, agentlog.DecodeOptions) == nil {
			if obs, _, ok := Observation(text); ok {
				out = agentlog.Quote(obs)
			}
		}
	}
	b.inRun = false
	e.Output = out
	switch flag {
	case Failed:
		e.IsError = true
	case Succeeded:
		b.ok[k] = true
	default:
		if trace.Builtin().CallOp(e.Tool, e.Input) == trace.OpExec {
			if code, ok := trace.ExitCode(e); ok && code != 0 {
				e.IsError = true
			}
		}
	}
	return true
}

// Pending returns the index of the oldest call of tool that has no
// result yet, for a log that pairs results by name (the legacy function
// messages).
func (b *Builder) Pending(tool string) (int, bool) {
	return b.PendingMatch(tool, nil)
}

// PendingMatch is [Builder.Pending] for a result that names the call's
// input too: it returns the oldest call of tool without a result whose
// input is input, or that has none, or any input when input is empty.
// Calls answered are forgotten, so that pairing a result costs no more
// than the calls of tool still waiting for one.
func (b *Builder) PendingMatch(tool string, input map[string]any) (int, bool) {
	ks := b.byTool[tool]
	for len(ks) > 0 && b.answered(ks[0]) {
		ks = ks[1:]
	}
	if b.byTool != nil {
		b.byTool[tool] = ks
	}
	for _, k := range ks {
		in := b.t.Trace[k].Input
		if !b.answered(k) && (len(input) == 0 || len(in) == 0 || reflect.DeepEqual(in, input)) {
			return k, true
		}
	}
	return 0, false
}

// Calls returns how many tool calls were recorded, duplicates included.
func (b *Builder) Calls() int { return b.calls }

// Finish returns the transcript: the summary is the report, the goal the
// prompts joined by blank lines, the executor the model; toolCalls are
// the distinct tool names in order of first call; commands the distinct
// commands run and commandResults every run, with its exit status when the
// output states it (or a later poll of a background task), else 0 for a
// result the log marked as a success. metadata holds source and the
// members of meta.
func (b *Builder) Finish(source string, meta map[string]any) *trace.Transcript {
	t := &b.t
	o := &t.Output
	o.Summary = strings.Join(b.report, "\n\n")
	t.Goal = strings.Join(b.prompts, "\n\n")
	if b.model != "" {
		t.Executor = &vouch.Executor{Model: b.model}
	}
	o.Metadata = map[string]any{"source": source}
	for k, v := range meta {
		if v != "" && v != nil {
			o.Metadata[k] = v
		}
	}
	seen := map[string]bool{}
	for i := range t.Trace {
		o.ToolCalls = agentlog.AppendDistinct(o.ToolCalls, seen, t.Trace[i].Tool)
	}
	s := trace.Summarize(t.Trace, nil)
	seen = map[string]bool{}
	for _, cmd := range s.Commands {
		if cmd.Command == "" {
			continue
		}
		o.Commands = agentlog.AppendDistinct(o.Commands, seen, cmd.Command)
		code := cmd.ExitCode
		if code == nil && !cmd.Background && cmd.HasResult && !cmd.IsError && b.ok[cmd.Index] {
			zero := 0
			code = &zero
		}
		if o.Artifacts == nil {
			o.Artifacts = &vouch.Artifacts{}
		}
		o.Artifacts.CommandResults = append(o.Artifacts.CommandResults, vouch.CommandResult{Command: cmd.Command, ExitCode: code})
	}
	return t
}

// Arguments returns a tool call's input from its arguments as logged: a
// JSON object, or a string that holds one (the OpenAI APIs encode
// arguments as a string). Anything else, a string that is not a JSON
// object included, is kept whole as the input's [RawKey] member: the
// agent's own text, not lost and not guessed at. Empty arguments (null, "",
// "{}") give a nil input.
func Arguments(v jsontext.Value) map[string]any {
	switch v.Kind() {
	case 0, 'n':
		return nil
	case '"':
		var s string
		if json.Unmarshal(v, &s, agentlog.DecodeOptions) != nil {
			return nil
		}
		return ArgumentsText(s)
	case '{':
		return object(v)
	}
	return map[string]any{RawKey: string(v)}
}

// ArgumentsText is [Arguments] for arguments logged as text.
func ArgumentsText(s string) map[string]any {
	t := strings.TrimSpace(s)
	if t == "" {
		return nil
	}
	if t[0] == '{' {
		if m := object(jsontext.Value(t)); m != nil || jsontext.Value(t).IsValid() {
			return m
		}
	}
	return map[string]any{RawKey: s}
}

// object decodes a JSON object, nil when it is empty or not valid.
func object(v jsontext.Value) map[string]any {
	var m map[string]any
	if json.Unmarshal(v, &m, agentlog.DecodeOptions) != nil || len(m) == 0 {
		return nil
	}
	return m
}

// Observation reads a command's output that is a JSON object stating its
// exit status, as Codex and OpenAI's local shell tool log them:
// {"output": ..., "metadata": {"exit_code": N}}, or stdout, stderr and
// exit_code members. It returns the output in the form the trace reads a
// status from ([Format]), and the status; ok is false for any other
// output.
func Observation(out string) (text string, code int, ok bool) {
	t := strings.TrimSpace(out)
	if !strings.HasPrefix(t, "{") || !strings.Contains(t, "exit_code") {
		return "", 0, false
	}
	var o struct {
		Output   *string `json:"output"`
		Stdout   string  `json:"stdout"`
		Stderr   string  `json:"stderr"`
		ExitCode *int    `json:"exit_code"`
		Metadata struct {
			ExitCode *int `json:"exit_code"`
		} `json:"metadata"`
	}
	if json.Unmarshal([]byte(t), &o, agentlog.DecodeOptions) != nil {
		return "", 0, false
	}
	c := o.ExitCode
	if c == nil {
		c = o.Metadata.ExitCode
	}
	if c == nil {
		return "", 0, false
	}
	body := o.Stdout + o.Stderr
	if o.Output != nil {
		body = *o.Output
	}
	return Format(*c, body), *c, true
}

// Format writes a command's output with its exit status in the form the
// trace reads a status from (see [trace.ExitCode]):
// <returncode>N</returncode> and <output>…</output>.
func Format(code int, body string) string {
	return "<returncode>" + strconv.Itoa(code) + "</returncode>\n<output>\n" + body + "</output>"
}
