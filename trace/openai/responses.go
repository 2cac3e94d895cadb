package openai

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/vouchgate/vouch/trace"
	"github.com/vouchgate/vouch/trace/internal/agentlog"
	"github.com/vouchgate/vouch/trace/internal/session"
)

// The tool names given to the Responses API's built-in tools. Web searches
// and page fetches, local and hosted shells and patches get names the
// trace table knows (web_search searches, web_fetch fetches, local_shell
// and shell run commands, apply_patch writes); the hosted tools that act
// outside the agent's workspace (a vector store, OpenAI's code container,
// a computer, image generation) are plugins, black boxes vouch cannot
// re-run. An MCP call is named as Claude Code names them,
// mcp__SERVER__TOOL, so the table reads the tool's own name.
const (
	ToolWebSearch       = "web_search"
	ToolWebFetch        = "web_fetch"
	ToolFileSearch      = "openai:file_search"
	ToolComputer        = "openai:computer"
	ToolCodeInterpreter = "openai:code_interpreter"
	ToolImageGeneration = "openai:image_generation"
	ToolLocalShell      = "local_shell"
	ToolShell           = "shell"
	ToolApplyPatch      = "apply_patch"
)

// respItem is one item of the Responses API, input or output: the members
// of every kind of item read, each kind using some.
type respItem struct {
	Type        string         `json:"type"`
	ID          string         `json:"id"`
	CallID      string         `json:"call_id"`
	Role        string         `json:"role"`
	Content     jsontext.Value `json:"content"`
	Name        string         `json:"name"`
	Arguments   jsontext.Value `json:"arguments"`
	Input       jsontext.Value `json:"input"`
	Output      jsontext.Value `json:"output"`
	Status      string         `json:"status"`
	Action      jsontext.Value `json:"action"`
	Queries     jsontext.Value `json:"queries"`
	Results     jsontext.Value `json:"results"`
	Code        string         `json:"code"`
	Outputs     jsontext.Value `json:"outputs"`
	Operation   jsontext.Value `json:"operation"`
	ServerLabel string         `json:"server_label"`
	Error       jsontext.Value `json:"error"`
	// IsError is not part of the API: an orchestrator may add it to an
	// output item.
	IsError *bool `json:"is_error"`
}

// ReadResponses reads a log of the Responses API: a JSON list of input and
// output items, a request ({"input": [...]} or an input string), a
// response object ({"object": "response", "output": [...]}), an object
// holding both (input and output, or "request" and "response", or a
// response.completed event), or JSONL with one of these a line.
//
// Items are read in order:
//
//   - message: a user's text (input_text parts) is a prompt, an
//     assistant's (output_text, refusal) is what it said; system and
//     developer messages are neither;
//   - function_call: a trace entry with its call_id, name and arguments (a
//     JSON object encoded in a string, read leniently: arguments that are
//     not a JSON object are kept whole as the input's "arguments" member);
//     function_call_output gives it its output (a string, or the text of
//     its parts); custom_tool_call and its output likewise, the free-form
//     input as the input's "input" member;
//   - local_shell_call: a [ToolLocalShell] call whose input's "command" is
//     the argv (a shell's -c script taken out of "sh -c SCRIPT"), its
//     local_shell_call_output the output; shell_call: a [ToolShell] call
//     a command (with ids CALLID#1, CALLID#2... when it runs several),
//     answered by shell_call_output, one output a command. An output that states
//     an exit status becomes <returncode>N</returncode> and
//     <output>…</output>, so the status is evidence; a status other than
//     0, or a timeout, is an error;
//   - apply_patch_call: an [ToolApplyPatch] call with the operation's type,
//     path and diff, its output failed when its status says so;
//   - web_search_call: a [ToolWebSearch] call for a search ({"query"}), a
//     [ToolWebFetch] call for a page opened or searched ({"url"}); its
//     output is the sources it lists, else its status; a failed search is
//     an error;
//   - file_search_call, code_interpreter_call, computer_call (with
//     computer_call_output), image_generation_call: the plugin tools
//     [ToolFileSearch], [ToolCodeInterpreter], [ToolComputer],
//     [ToolImageGeneration], their results and queries, code, actions or
//     prompt as logged; screenshots and images are not kept ("[image]");
//   - mcp_call: a call of mcp__SERVER__NAME with its output, or its
//     error as an error;
//   - other items whose type ends in _call and _call_output are read as
//     function calls and outputs; reasoning and other items are dropped.
//
// The claimed output is what the assistant said: the summary is the text
// of the assistant messages after its last tool call, joined by blank
// lines. The goal is the text of the user messages, each once, joined by
// blank lines. The executor is the model of the last request or response
// that names one. Commands and commandResults come from the calls, with
// the exit status the output states, else 0 for a result flagged as a
// success.
//
// As with [ReadChat], a request's items that repeat, in order, the start
// of the conversation already read (system and developer messages and
// reasoning aside) are not read again.
//
// A log that is not valid JSON, truncated included, or in which an item
// has members of the wrong type, is an error naming the line and the
// record. A log without any item gives [trace.ErrNoMessages].
func ReadResponses(r io.Reader) (*trace.Transcript, error) {
	data, err := readAll(r)
	if err != nil {
		return nil, err
	}
	return readResponses(data)
}

func readResponses(data []byte) (*trace.Transcript, error) {
	rd := &reader{format: Responses, key: respKey}
	rd.item = rd.respItem
	return rd.read(data)
}

func (r *reader) respItem(v jsontext.Value) error {
	var it respItem
	if err := session.Decode(v, &it); err != nil {
		return err
	}
	b := &r.b
	callID := it.CallID
	if callID == "" {
		callID = it.ID
	}
	switch it.Type {
	case "message", "":
		text, err := session.Text(it.Content, false)
		if err != nil {
			return fmt.Errorf("content: %w", err)
		}
		switch it.Role {
		case "user":
			b.Prompt(text)
		case "assistant":
			b.Say(text)
		}
	case "function_call":
		b.Add(callID, it.Name, session.Arguments(it.Arguments), "")
	case "custom_tool_call":
		in, err := str(it.Input)
		if err != nil {
			return fmt.Errorf("input: %w", err)
		}
		b.Add(callID, it.Name, map[string]any{"input": in}, "")
	case "function_call_output", "custom_tool_call_output", "computer_call_output", "apply_patch_call_output":
		out, err := outputText(it.Output)
		if err != nil {
			return fmt.Errorf("output: %w", err)
		}
		b.Result(it.CallID, agentlog.Quote(out), flag(it.IsError, it.Status))
	case "local_shell_call":
		var a struct {
			Command          jsontext.Value `json:"command"`
			WorkingDirectory string         `json:"working_directory"`
			TimeoutMs        jsontext.Value `json:"timeout_ms"`
		}
		if err := decodeIf(it.Action, &a); err != nil {
			return fmt.Errorf("action: %w", err)
		}
		in := map[string]any{}
		if argv, ok := stringList(a.Command); ok {
			in["command"] = shellCommand(argv)
			in["argv"] = toAny(argv)
		}
		if a.WorkingDirectory != "" {
			in["workdir"] = a.WorkingDirectory
		}
		b.Add(callID, ToolLocalShell, in, "")
	case "local_shell_call_output":
		out, err := str(it.Output)
		if err != nil {
			return fmt.Errorf("output: %w", err)
		}
		f := flag(it.IsError, it.Status)
		text, code, ok := session.Observation(out)
		if !ok {
			text = out
		} else if code != 0 {
			f = session.Failed
		}
		if !b.Result(it.CallID, agentlog.Quote(text), f) {
			b.Result(it.ID, agentlog.Quote(text), f)
		}
	case "shell_call":
		var a struct {
			Commands jsontext.Value `json:"commands"`
		}
		if err := decodeIf(it.Action, &a); err != nil {
			return fmt.Errorf("action: %w", err)
		}
		cmds, _ := stringList(a.Commands)
		if len(cmds) <= 1 {
			in := map[string]any{}
			if len(cmds) == 1 {
				in["command"] = cmds[0]
				in["commands"] = toAny(cmds)
			}
			b.Add(callID, ToolShell, in, "")
			break
		}
		// Each command its own entry, with its own output and status.
		for i, c := range cmds {
			b.Add(shellID(callID, i), ToolShell, map[string]any{"command": c}, "")
		}
	case "shell_call_output":
		outs, err := shellOutput(it.Output)
		if err != nil {
			return fmt.Errorf("output: %w", err)
		}
		f := flag(it.IsError, it.Status)
		if !b.Known(shellID(it.CallID, 0)) {
			// One command, or outputs that are not one a command: all of
			// them its result, failed when any failed.
			o := joinShell(outs)
			if o.failed {
				f = session.Failed
			}
			b.Result(it.CallID, agentlog.Quote(o.text), f)
			break
		}
		n := 0
		for b.Known(shellID(it.CallID, n)) {
			n++
		}
		if len(outs) != n {
			// Not one output a command: all of them the last command's
			// result, failed when any failed.
			o := joinShell(outs)
			if o.failed {
				f = session.Failed
			}
			b.Result(shellID(it.CallID, n-1), agentlog.Quote(o.text), f)
			break
		}
		for i := range n {
			o, fi := outs[i], f
			if o.failed {
				fi = session.Failed
			}
			b.Result(shellID(it.CallID, i), agentlog.Quote(o.text), fi)
		}
	case "apply_patch_call":
		var op struct {
			Type string `json:"type"`
			Path string `json:"path"`
			Diff string `json:"diff"`
		}
		if err := decodeIf(it.Operation, &op); err != nil {
			return fmt.Errorf("operation: %w", err)
		}
		in := map[string]any{"type": op.Type, "path": op.Path}
		if op.Diff != "" {
			in["diff"] = op.Diff
		}
		b.Add(callID, ToolApplyPatch, in, "")
	case "web_search_call":
		var a struct {
			Type    string         `json:"type"`
			Query   string         `json:"query"`
			Queries jsontext.Value `json:"queries"`
			URL     string         `json:"url"`
			Pattern string         `json:"pattern"`
			Sources jsontext.Value `json:"sources"`
		}
		if err := decodeIf(it.Action, &a); err != nil {
			return fmt.Errorf("action: %w", err)
		}
		tool, in := ToolWebSearch, map[string]any{}
		switch a.Type {
		case "open_page", "find_in_page":
			tool = ToolWebFetch
			in["url"] = a.URL
			if a.Pattern != "" {
				in["pattern"] = a.Pattern
			}
		default:
			qs, _ := stringList(a.Queries)
			if a.Query == "" && len(qs) > 0 {
				a.Query = qs[0]
			}
			in["query"] = a.Query
			if len(qs) > 0 {
				in["queries"] = toAny(qs)
			}
		}
		k := b.Add(callID, tool, in, "")
		r.hosted(k, it.Status, a.Sources)
	case "file_search_call":
		in := map[string]any{}
		if qs, ok := stringList(it.Queries); ok && len(qs) > 0 {
			in["query"] = qs[0]
			in["queries"] = toAny(qs)
		}
		k := b.Add(callID, ToolFileSearch, in, "")
		r.hosted(k, it.Status, it.Results)
	case "computer_call":
		in := map[string]any{}
		if it.Action.Kind() == '{' {
			in = session.Arguments(it.Action)
		}
		b.Add(callID, ToolComputer, in, "")
	case "code_interpreter_call":
		k := b.Add(callID, ToolCodeInterpreter, map[string]any{"code": it.Code}, "")
		logs, err := interpreterLogs(it.Outputs)
		if err != nil {
			return fmt.Errorf("outputs: %w", err)
		}
		r.hosted(k, it.Status, logs)
	case "image_generation_call":
		k := b.Add(callID, ToolImageGeneration, nil, "")
		r.hosted(k, it.Status, []byte(`"[image]"`))
	case "mcp_call":
		tool := "mcp__" + it.ServerLabel + "__" + it.Name
		k := b.Add(callID, tool, session.Arguments(it.Arguments), "")
		switch {
		case it.Error.Kind() != 0 && it.Error.Kind() != 'n':
			b.ResultAt(k, agentlog.Quote(mcpError(it.Error)), session.Failed)
		case it.Output.Kind() == '"':
			out, err := str(it.Output)
			if err != nil {
				return fmt.Errorf("output: %w", err)
			}
			b.ResultAt(k, agentlog.Quote(out), flag(it.IsError, it.Status))
		}
	default:
		switch {
		case strings.HasSuffix(it.Type, "_call_output"):
			out, err := outputText(it.Output)
			if err != nil {
				return fmt.Errorf("output: %w", err)
			}
			b.Result(it.CallID, agentlog.Quote(out), flag(it.IsError, it.Status))
		case strings.HasSuffix(it.Type, "_call") && it.Type != "tool_search_call":
			name := it.Name
			if name == "" {
				name = strings.TrimSuffix(it.Type, "_call")
			}
			b.Add(callID, name, session.Arguments(it.Arguments), "")
		}
	}
	return nil
}

// hosted gives the call of a hosted tool at k its result: the results the
// item lists, else its status; a failed call is an error, one still in
// progress has no result.
func (r *reader) hosted(k int, status string, results []byte) {
	switch status {
	case "failed", "incomplete":
		r.b.ResultAt(k, agentlog.Quote(status), session.Failed)
	case "in_progress", "searching", "interpreting", "generating":
	default:
		if len(results) > 0 && results[0] != 'n' {
			r.b.ResultAt(k, results, session.Unflagged)
		} else if status != "" {
			r.b.ResultAt(k, agentlog.Quote(status), session.Unflagged)
		}
	}
}

// decodeIf decodes an object into v; other kinds leave it zero.
func decodeIf(data jsontext.Value, v any) error {
	if data.Kind() != '{' {
		return nil
	}
	return session.Decode(data, v)
}

// str decodes a string; other kinds give "".
func str(v jsontext.Value) (string, error) {
	if v.Kind() != '"' {
		return "", nil
	}
	var s string
	err := session.Decode(v, &s)
	return s, err
}

// strings_ decodes a list of strings, skipping other elements.
func stringList(v jsontext.Value) ([]string, bool) {
	if v.Kind() != '[' {
		return nil, false
	}
	var list []any
	if json.Unmarshal(v, &list, agentlog.DecodeOptions) != nil {
		return nil, false
	}
	var out []string
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out, len(out) > 0
}

func toAny(list []string) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}

// outputText returns an output as text: a string, the text of a list of
// parts, or other JSON as written.
func outputText(v jsontext.Value) (string, error) {
	switch v.Kind() {
	case 0, 'n':
		return "", nil
	case '"', '[':
		return session.Text(v, true)
	case '{':
		var shot struct {
			Type string `json:"type"`
		}
		if session.Decode(v, &shot) == nil && (shot.Type == "computer_screenshot" || shot.Type == "input_image") {
			return "[image]", nil
		}
	}
	return string(v), nil
}

// shellCommand returns the command line an argv runs: the script of a
// shell's -c, else the words joined by spaces, quoted where they need it.
func shellCommand(argv []string) string {
	if len(argv) == 3 {
		sh := argv[0][strings.LastIndexByte(argv[0], '/')+1:]
		switch sh {
		case "sh", "bash", "zsh", "dash":
			switch argv[1] {
			case "-c", "-lc", "-ic":
				return argv[2]
			}
		}
	}
	words := make([]string, len(argv))
	for i, w := range argv {
		words[i] = shellQuote(w)
	}
	return strings.Join(words, " ")
}

// shellQuote quotes a word for a POSIX shell when it needs it.
func shellQuote(w string) string {
	if w != "" && strings.IndexFunc(w, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'"'"'`) + "'"
}

// shellID is the id of the command at index i of a shell_call that
// runs several: CALLID#1, CALLID#2...
func shellID(callID string, i int) string {
	return callID + "#" + strconv.Itoa(i+1)
}

// shellRun is the output of one command of a shell_call.
type shellRun struct {
	text   string
	failed bool // a status other than 0, or a timeout
	code   *int
}

// shellOutput reads a shell_call_output's output: a list of chunks
// {stdout, stderr, outcome: {type: exit, exit_code} | {type: timeout}},
// one a command, each with its own status. Output that is not a list is
// one command's, without a status.
func shellOutput(v jsontext.Value) ([]shellRun, error) {
	if v.Kind() != '[' {
		s, err := outputText(v)
		return []shellRun{{text: s}}, err
	}
	var chunks []struct {
		Stdout  string `json:"stdout"`
		Stderr  string `json:"stderr"`
		Outcome struct {
			Type     string `json:"type"`
			ExitCode *int   `json:"exit_code"`
		} `json:"outcome"`
	}
	if err := session.Decode(v, &chunks); err != nil {
		return nil, err
	}
	var out []shellRun
	for _, c := range chunks {
		body := c.Stdout + c.Stderr
		switch c.Outcome.Type {
		case "exit":
			if code := c.Outcome.ExitCode; code != nil {
				out = append(out, shellRun{session.Format(*code, body), *code != 0, code})
				continue
			}
		case "timeout":
			out = append(out, shellRun{text: body + "\n(timed out)", failed: true})
			continue
		}
		out = append(out, shellRun{text: body})
	}
	return out, nil
}

// joinShell joins the outputs of a shell_call's commands into one: its
// status the first that is not 0 (or a timeout), else the last stated.
func joinShell(runs []shellRun) shellRun {
	var body strings.Builder
	var code *int
	timeout := false
	for _, r := range runs {
		text := r.text
		if r.code != nil {
			// The body without the status's markup, the status kept apart.
			text = strings.TrimSuffix(strings.TrimPrefix(text, "<returncode>"+strconv.Itoa(*r.code)+"</returncode>\n<output>\n"), "</output>")
			if code == nil || *code == 0 {
				code = r.code
			}
		} else if r.failed {
			timeout = true
			text = strings.TrimSuffix(text, "\n(timed out)")
		}
		body.WriteString(text)
	}
	switch {
	case timeout:
		return shellRun{text: body.String() + "\n(timed out)", failed: true}
	case code != nil:
		return shellRun{session.Format(*code, body.String()), *code != 0, code}
	}
	return shellRun{text: body.String()}
}

// interpreterLogs returns a code interpreter's outputs as text: its logs,
// an image as "[image]".
func interpreterLogs(v jsontext.Value) ([]byte, error) {
	if v.Kind() != '[' {
		return nil, nil
	}
	var outs []struct {
		Type string `json:"type"`
		Logs string `json:"logs"`
	}
	if err := session.Decode(v, &outs); err != nil {
		return nil, err
	}
	var parts []string
	for _, o := range outs {
		switch o.Type {
		case "logs":
			parts = append(parts, o.Logs)
		case "image":
			parts = append(parts, "[image]")
		}
	}
	return agentlog.Quote(strings.Join(parts, "\n")), nil
}

// mcpError returns the text of an MCP call's error: a string, the text of
// its content or its message, else its JSON.
func mcpError(v jsontext.Value) string {
	if v.Kind() == '"' {
		s, _ := str(v)
		return s
	}
	var e struct {
		Message string         `json:"message"`
		Content jsontext.Value `json:"content"`
	}
	if decodeIf(v, &e) == nil {
		if text, err := session.Text(e.Content, false); err == nil && text != "" {
			return text
		}
		if e.Message != "" {
			return e.Message
		}
	}
	return string(v)
}

// respKey returns what an item says, for [reader.line]: its type, role,
// text, call id, name, arguments and the members of its action or output,
// whatever members a log adds or leaves out (an output item sent back as
// input may lose its id or status). System and developer messages and
// reasoning are skipped.
func respKey(v jsontext.Value) (string, bool, error) {
	var it respItem
	if err := session.Decode(v, &it); err != nil {
		return "", false, err
	}
	if it.Type == "" {
		it.Type = "message"
	}
	switch {
	case it.Type == "reasoning", it.Type == "message" && (it.Role == "system" || it.Role == "developer"):
		return "", true, nil
	}
	text, err := session.Text(it.Content, true)
	if err != nil {
		return "", false, fmt.Errorf("content: %w", err)
	}
	id := it.CallID
	if id == "" && it.Type != "message" {
		id = it.ID
	}
	return key([]any{it.Type, it.Role, text, id, it.Name, session.Arguments(it.Arguments),
		anyJSON(it.Input), anyJSON(it.Output), anyJSON(it.Action), anyJSON(it.Operation), it.Code,
		anyJSON(it.Queries), anyJSON(it.Error), it.ServerLabel}), false, nil
}
