// Package miniswe imports mini-swe-agent trajectories as vouch transcripts:
// [Read] returns the shell commands the agent ran with their observations
// (the evidence) and the output it claimed (its last message, its
// submission, the commands it ran).
package miniswe

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/jsonerr"
	"github.com/vouchgate/vouch/trace"
	"github.com/vouchgate/vouch/trace/internal/agentlog"
)

// MaxBytes bounds a mini-swe-agent trajectory.
const MaxBytes = 256 << 20

// Tool is the tool name of the commands of a mini-swe-agent
// trajectory.
const Tool = "shell:exec"

// msweMessage is one message of a trajectory.
type msweMessage struct {
	Role       string         `json:"role"`
	Content    jsontext.Value `json:"content"`
	ToolCalls  jsontext.Value `json:"tool_calls"`
	ToolCallID string         `json:"tool_call_id"`
	Extra      jsontext.Value `json:"extra"`
}

type msweToolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string         `json:"name"`
		Arguments jsontext.Value `json:"arguments"`
	} `json:"function"`
}

// msweTrajectory is a trajectory saved as an object.
type msweTrajectory struct {
	Messages jsontext.Value `json:"messages"`
	Info     struct {
		ExitStatus string `json:"exit_status"`
		Submission string `json:"submission"`
		Config     struct {
			Model struct {
				ModelName string `json:"model_name"`
			} `json:"model"`
		} `json:"config"`
	} `json:"info"`
}

// actionRE matches a command code block, as mini-swe-agent parses them.
var actionRE = regexp.MustCompile("(?s)```(?:mswea_bash_command|bash)\\s*\\n(.*?)\\n```")

// submitMarkers start the output of the command that ends a run.
var submitMarkers = []string{"COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "MINI_SWE_AGENT_FINAL_OUTPUT"}

// Read reads a mini-swe-agent trajectory: either a bare list of
// {role, content} messages, or the object mini-swe-agent saves,
// {"info": {...}, "messages": [...]}.
//
// Each command the agent issued becomes a [Tool] call with input
// {"command": ...}: the actions recorded in an assistant message's
// extra.actions, else its tool_calls (a "bash" function's command
// argument), else the body of each ```mswea_bash_command (or ```bash) code
// block in its text. The observation that answers it (the next user
// message, or the tool message with its tool_call_id) is its output:
// <returncode>N</returncode> and <output>…</output>, an error when N is not
// 0 or an exception is reported; a timeout notice is an error without an
// exit status. mini-swe-agent runs exactly one code block a turn: a message
// with none or several is answered by a format error and nothing runs, so
// such blocks make no calls. The submission (what followed the
// COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT line) answers the command that
// submitted.
//
// The claimed output is what the agent said at the end, never what its
// commands did: the summary is the text of its last message besides its
// command (a leading "THOUGHT:" label dropped), empty when that message
// is only the command that submits (it then claims nothing); metadata
// holds the exit status when the trajectory records it. The submission
// (the patch) is evidence: the output of the call that submitted. Commands and commandResults (with
// the exit status when the observation states it) come from the calls;
// created and modified are left empty (a shell command's effect on files
// is not read from its text). The goal is the task the first user message
// states ("Please solve this issue: …", a <pr_description>), else that
// whole message.
//
// A trajectory that is not valid JSON, truncated included, is an error.
func Read(r io.Reader) (*trace.Transcript, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("trace: mini-swe-agent: %w", err)
	}
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("trace: mini-swe-agent: trajectory over %d bytes", MaxBytes)
	}
	body := bytes.TrimLeft(data, " \t\r\n\ufeff")
	var list []msweMessage
	var traj msweTrajectory
	switch {
	case len(body) == 0:
		return nil, errors.New("trace: mini-swe-agent: empty trajectory")
	case body[0] == '[':
		if err := json.Unmarshal(body, &list, agentlog.DecodeOptions); err != nil {
			return nil, msweError(body, err)
		}
	case body[0] == '{':
		if err := json.Unmarshal(body, &traj, agentlog.DecodeOptions); err != nil {
			return nil, msweError(body, err)
		}
		if traj.Messages.Kind() != '[' {
			return nil, errors.New(`trace: mini-swe-agent: the trajectory object has no "messages" list`)
		}
		if err := json.Unmarshal(traj.Messages, &list, agentlog.DecodeOptions); err != nil {
			return nil, msweError(body, err)
		}
	default:
		return nil, errors.New("trace: mini-swe-agent: want a JSON list of messages or an object with messages")
	}
	if len(list) == 0 {
		return nil, trace.ErrNoMessages
	}
	m := &msweReader{submission: traj.Info.Submission, exitStatus: traj.Info.ExitStatus}
	for i := range list {
		if err := m.message(&list[i]); err != nil {
			return nil, fmt.Errorf("trace: mini-swe-agent: message %d: %w", i+1, err)
		}
	}
	m.settle()
	t := m.finish()
	if name := traj.Info.Config.Model.ModelName; name != "" {
		t.Executor = &vouch.Executor{Model: name}
	}
	return t, nil
}

// msweError places a decoding error at its line and column.
func msweError(data []byte, err error) error {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		line, col := jsonerr.LineCol(data, se.ByteOffset)
		return fmt.Errorf("trace: mini-swe-agent: malformed JSON at line %d, column %d: %v", line, col, se.Err)
	}
	var te *json.SemanticError
	if errors.As(err, &te) {
		line, col := jsonerr.LineCol(data, te.ByteOffset)
		return fmt.Errorf("trace: mini-swe-agent: unexpected JSON at line %d, column %d (%s): %v", line, col, te.JSONPointer, te.Err)
	}
	return fmt.Errorf("trace: mini-swe-agent: %w", err)
}

// msweReader holds the state of one Read.
type msweReader struct {
	t          trace.Transcript
	pending    []int // entries awaiting their observation, in order
	fromText   bool  // the pending entries come from code blocks
	blocks     int   // how many code blocks the last assistant message had
	byCall     map[string]int
	prose      string
	submission string
	exitStatus string
	assistants int
}

func (m *msweReader) message(msg *msweMessage) error {
	text, err := contentText(msg.Content)
	if err != nil {
		return err
	}
	extra := map[string]any{}
	if msg.Extra.Kind() == '{' {
		if err := json.Unmarshal(msg.Extra, &extra, agentlog.DecodeOptions); err != nil {
			return agentlog.Error(err)
		}
	}
	switch msg.Role {
	case "assistant":
		return m.assistant(msg, text, extra)
	case "user", "tool":
		if m.assistants == 0 {
			if msg.Role == "user" && m.t.Goal == "" {
				m.t.Goal = taskOf(text)
			}
			return nil
		}
		m.observation(msg, text, extra)
	case "exit":
		if s, ok := extra["submission"].(string); ok {
			m.submission = s
		} else {
			m.submission = text
		}
		if s, ok := extra["exit_status"].(string); ok {
			m.exitStatus = s
		}
		if k, ok := m.pendingSubmit(); ok {
			m.answer(k, text, false)
		}
	}
	return nil
}

func (m *msweReader) assistant(msg *msweMessage, text string, extra map[string]any) error {
	m.settle()
	m.assistants++
	ts := timestamp(extra["timestamp"])
	type action struct{ command, callID string }
	var actions []action
	m.fromText, m.blocks = false, 0
	if list, ok := extra["actions"].([]any); ok && len(list) > 0 {
		for _, a := range list {
			if obj, ok := a.(map[string]any); ok {
				id, _ := obj["tool_call_id"].(string)
				actions = append(actions, action{trace.Command(obj), id})
			}
		}
	} else if msg.ToolCalls.Kind() == '[' {
		var calls []msweToolCall
		if err := json.Unmarshal(msg.ToolCalls, &calls, agentlog.DecodeOptions); err != nil {
			return agentlog.Error(err)
		}
		for _, c := range calls {
			actions = append(actions, action{toolCallCommand(c.Function.Arguments), c.ID})
		}
	} else {
		found := actionRE.FindAllStringSubmatch(text, -1)
		m.fromText, m.blocks = true, len(found)
		for _, f := range found {
			actions = append(actions, action{strings.TrimSpace(f[1]), ""})
		}
	}
	for _, a := range actions {
		k := len(m.t.Trace)
		m.t.Trace = append(m.t.Trace, vouch.TraceEntry{ID: a.callID, Tool: Tool,
			Input: map[string]any{"command": a.command}, Timestamp: ts})
		m.pending = append(m.pending, k)
		if a.callID != "" {
			if m.byCall == nil {
				m.byCall = make(map[string]int)
			}
			m.byCall[a.callID] = k
		}
	}
	// What the agent said at the end is what it claims: the text of its
	// last message, never an earlier narration.
	m.prose = prose(text)
	return nil
}

// toolCallCommand reads the command of a "bash" tool call's arguments: a
// JSON object, usually encoded in a string.
func toolCallCommand(args jsontext.Value) string {
	raw := []byte(args)
	if args.Kind() == '"' {
		var s string
		if json.Unmarshal(args, &s, agentlog.DecodeOptions) != nil {
			return ""
		}
		raw = []byte(s)
	}
	var in map[string]any
	if json.Unmarshal(raw, &in, agentlog.DecodeOptions) != nil {
		return ""
	}
	return trace.Command(in)
}

// observation pairs a user or tool message with the call it answers.
func (m *msweReader) observation(msg *msweMessage, text string, extra map[string]any) {
	if k, ok := m.byCall[msg.ToolCallID]; ok && msg.ToolCallID != "" {
		delete(m.byCall, msg.ToolCallID)
		m.answer(k, text, observationFailed(text, extra))
		return
	}
	if len(m.pending) == 0 {
		return
	}
	t := strings.TrimSpace(text)
	_, hasCode := agentlog.TextExitCode([]byte(t))
	switch {
	case extra["interrupt_type"] == "FormatError" || strings.Contains(t, "EXACTLY ONE action"):
		// Nothing ran.
		m.drop()
	case hasCode || extra["returncode"] != nil:
		m.answer(m.pending[0], text, observationFailed(text, extra))
	case strings.Contains(t, "timed out and has been killed"):
		m.answer(m.pending[0], text, true)
	default:
		if k, ok := m.pendingSubmit(); ok {
			// The text of the Submitted notice is the submission.
			if m.submission == "" {
				m.submission = text
			}
			m.answer(k, text, false)
		}
		// Otherwise a message from a human: the call keeps waiting.
	}
}

// observationFailed reports whether an observation reports a failure: an
// exit status other than 0 or an exception.
func observationFailed(text string, extra map[string]any) bool {
	if code, ok := agentlog.TextExitCode([]byte(strings.TrimSpace(text))); ok {
		return code != 0
	}
	if rc, ok := extra["returncode"].(float64); ok {
		return rc != 0
	}
	if s, ok := extra["exception_info"].(string); ok && s != "" {
		return true
	}
	return strings.HasPrefix(strings.TrimSpace(text), "<exception>")
}

// answer gives call k its output and takes it off the pending list.
func (m *msweReader) answer(k int, text string, failed bool) {
	e := &m.t.Trace[k]
	e.Output = agentlog.Quote(text)
	e.IsError = failed
	for i, p := range m.pending {
		if p == k {
			m.pending = append(m.pending[:i], m.pending[i+1:]...)
			break
		}
	}
}

// pendingSubmit returns the pending call that submits, if any.
func (m *msweReader) pendingSubmit() (int, bool) {
	for _, k := range m.pending {
		if isSubmit(trace.Command(m.t.Trace[k].Input)) {
			return k, true
		}
	}
	return 0, false
}

func isSubmit(cmd string) bool {
	for _, s := range submitMarkers {
		if strings.Contains(cmd, s) {
			return true
		}
	}
	return false
}

// drop removes the pending calls: they did not run. They are the last
// entries of the trace.
func (m *msweReader) drop() {
	if len(m.pending) == 0 {
		return
	}
	first := m.pending[0]
	for _, k := range m.pending {
		if id := m.t.Trace[k].ID; id != "" {
			delete(m.byCall, id)
		}
	}
	if first == len(m.t.Trace)-len(m.pending) {
		m.t.Trace = m.t.Trace[:first]
	}
	m.pending = m.pending[:0]
}

// settle ends the wait of the pending calls when a new turn starts or the
// trajectory ends: calls from a message with other than one code block did
// not run; any other call is kept without output.
func (m *msweReader) settle() {
	if m.fromText && m.blocks != 1 {
		m.drop()
	}
	m.pending = m.pending[:0]
}

func (m *msweReader) finish() *trace.Transcript {
	t := &m.t
	o := &t.Output
	o.Summary = m.prose
	if m.submission != "" {
		// A submission the trajectory records, where no observation
		// answered the call that submitted, is that call's output.
		for i := len(t.Trace) - 1; i >= 0; i-- {
			if e := &t.Trace[i]; isSubmit(trace.Command(e.Input)) {
				if e.Output == nil {
					e.Output = agentlog.Quote(m.submission)
				}
				break
			}
		}
	}
	o.Metadata = map[string]any{"source": "mini-swe-agent"}
	if m.exitStatus != "" {
		o.Metadata["exitStatus"] = m.exitStatus
	}
	if len(t.Trace) > 0 {
		o.ToolCalls = []string{Tool}
	}
	seen := map[string]bool{}
	for i := range t.Trace {
		e := &t.Trace[i]
		cmd := trace.Command(e.Input)
		if cmd == "" {
			continue
		}
		o.Commands = agentlog.AppendDistinct(o.Commands, seen, cmd)
		cr := vouch.CommandResult{Command: cmd}
		if code, ok := trace.ExitCode(e); ok {
			cr.ExitCode = &code
		}
		if o.Artifacts == nil {
			o.Artifacts = &vouch.Artifacts{}
		}
		o.Artifacts.CommandResults = append(o.Artifacts.CommandResults, cr)
	}
	return t
}

// contentText returns a message's content as text: a string, or the text
// parts of a list joined by newlines.
func contentText(content jsontext.Value) (string, error) {
	switch content.Kind() {
	case '"':
		var s string
		if err := json.Unmarshal(content, &s, agentlog.DecodeOptions); err != nil {
			return "", agentlog.Error(err)
		}
		return s, nil
	case '[':
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(content, &parts, agentlog.DecodeOptions); err != nil {
			return "", agentlog.Error(err)
		}
		var out []string
		for _, p := range parts {
			if p.Type == "text" || p.Type == "" {
				out = append(out, p.Text)
			}
		}
		return strings.Join(out, "\n"), nil
	}
	return "", nil
}

// prose returns an assistant message's text without its code blocks and
// without a leading "THOUGHT:" label.
func prose(text string) string {
	t := actionRE.ReplaceAllString(text, "")
	t = strings.TrimSpace(t)
	t = strings.TrimSpace(strings.TrimPrefix(t, "THOUGHT:"))
	return t
}

// taskOf returns the task a first user message states.
func taskOf(text string) string {
	t := strings.TrimSpace(text)
	if body, ok := agentlog.Between(t, "<pr_description>", "</pr_description>"); ok {
		body = strings.TrimSpace(body)
		body = strings.TrimSpace(strings.TrimPrefix(body, "Consider the following PR description:"))
		if body != "" {
			return body
		}
	}
	for _, p := range []string{"Please solve this issue:", "Your task:"} {
		if rest, ok := strings.CutPrefix(t, p); ok {
			rest = strings.TrimSpace(rest)
			end := len(rest)
			for _, stop := range []string{"\n\nYou can execute", "\n\n## ", ". Please reply with"} {
				if i := strings.Index(rest, stop); i >= 0 && i < end {
					end = i
				}
			}
			if r := strings.TrimSpace(rest[:end]); r != "" {
				return r
			}
		}
	}
	return t
}

// timestamp formats a Unix time in seconds as RFC 3339, "" when v is not
// a plausible one.
func timestamp(v any) string {
	f, ok := v.(float64)
	if !ok || f <= 0 || f > 1e11 || math.IsNaN(f) {
		return ""
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC().Format(time.RFC3339Nano)
}
