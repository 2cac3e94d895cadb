// Package openai imports logs of agents built on the OpenAI APIs as vouch
// transcripts: the message lists of the Chat Completions API, which most
// orchestrators log ([ReadChat]), and the input and output items of the
// Responses API ([ReadResponses]). [Read] tells the two apart.
//
// As with the other importers, the tool calls and their results are the
// evidence (the trace), and what the assistant said is the claim: its
// last words after its last tool call are the summary. Neither API has an
// error flag on a tool result: a call is an error when the log adds one
// (an "is_error": true or "status": "error" member on the result, as some
// orchestrators do), when a built-in tool item reports a failure, or, for
// a command, when its output states an exit status other than 0.
package openai

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/vouchgate/vouch/trace"
	"github.com/vouchgate/vouch/trace/internal/agentlog"
	"github.com/vouchgate/vouch/trace/internal/session"
)

// MaxBytes bounds a log.
const MaxBytes = 256 << 20

// sniffBytes is how much of a log [Read] looks at to tell the APIs apart.
const sniffBytes = 1 << 20

// The formats, as [Sniff] names them and as a transcript's
// output.metadata.source gives them.
const (
	Chat      = "openai-chat"      // Chat Completions messages
	Responses = "openai-responses" // Responses API items
)

// maxDepth bounds the nesting of containers ({"request": {"input": ...}}).
const maxDepth = 4

// Read reads a log of either API, telling them apart with [Sniff] on its
// first MiB; a log that looks like neither is read as chat messages.
func Read(r io.Reader) (*trace.Transcript, error) {
	data, err := readAll(r)
	if err != nil {
		return nil, err
	}
	if Sniff(data[:min(len(data), sniffBytes)]) == Responses {
		return readResponses(data)
	}
	return readChat(data)
}

// readAll reads a whole log, up to MaxBytes.
func readAll(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("trace: openai: %w", err)
	}
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("trace: openai: log over %d bytes", MaxBytes)
	}
	return data, nil
}

// responsesTypes are item and content types only the Responses API has.
var responsesTypes = map[string]bool{
	"function_call": true, "function_call_output": true, "input_text": true, "output_text": true,
	"reasoning": true, "web_search_call": true, "file_search_call": true, "computer_call": true,
	"computer_call_output": true, "local_shell_call": true, "local_shell_call_output": true,
	"shell_call": true, "shell_call_output": true, "apply_patch_call": true, "apply_patch_call_output": true,
	"custom_tool_call": true, "custom_tool_call_output": true, "mcp_call": true, "mcp_list_tools": true,
	"code_interpreter_call": true, "image_generation_call": true, "item_reference": true,
	"response.completed": true, "response.done": true,
}

// Sniff tells which API's log data (or a prefix of it) looks like: [Chat]
// for messages with tool_calls or tool_call_id members, a request body with
// messages or a response with choices; [Responses] for items with a call_id
// or a type only the Responses API has (function_call, output_text...), a
// request with input or a response object with output. A plain list of
// role and content messages is [Chat]. Sniff returns "" when data looks
// like neither.
func Sniff(data []byte) string {
	var topChat, topResp, itemChat, itemResp, roles bool
	_ = session.Scan(data, func(depth int, name string, kind jsontext.Kind, s string) bool {
		switch {
		case depth == 1 && (name == "messages" || name == "choices"):
			topChat = true
		case depth == 1 && (name == "input" || name == "output") && (kind == '[' || name == "input" && kind == '"'):
			topResp = true
		case name == "object" && kind == '"':
			topChat = topChat || strings.HasPrefix(s, "chat.completion")
			topResp = topResp || s == "response"
		case name == "tool_calls" || name == "tool_call_id":
			itemChat = true
		case name == "call_id":
			itemResp = true
		case name == "type" && responsesTypes[s]:
			itemResp = true
		case name == "role":
			roles = true
		}
		return true
	})
	switch {
	case topResp && !topChat:
		return Responses
	case topChat && !topResp:
		return Chat
	case itemResp && !itemChat:
		return Responses
	case itemChat || topChat || roles:
		return Chat
	}
	return ""
}

// reader holds the state of one read.
type reader struct {
	b      session.Builder
	format string // Chat or Responses
	// item reads one message or item.
	item func(v jsontext.Value) error
	// key returns what a message or an item says, as a string equal for
	// the same message logged twice; skip is set for one whose reading
	// changes nothing (a system message, reasoning), left out of the
	// conversation.
	key func(v jsontext.Value) (k string, skip bool, err error)
	// conv is the conversation read so far: the keys of its messages or
	// items, in order.
	conv []string
}

// elem is a message or an item of a record, read once the record is.
type elem struct {
	key  string
	v    jsontext.Value
	path string // where it is in the record, for errors
	text string // a prompt given as a request's input string
}

// line holds the messages or items of one record: those of a request
// (the conversation so far) and those that follow it (a response's, or
// a message or item alone).
type line struct {
	request []elem
	hasReq  bool
	next    []elem
	n       int // messages and items found
}

// read reads the records of a log.
func (r *reader) read(data []byte) (*trace.Transcript, error) {
	recs, err := session.Records(data)
	if err != nil {
		return nil, fmt.Errorf("trace: %s: %w", r.format, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("trace: %s: %w", r.format, trace.ErrNoMessages)
	}
	found := 0
	for _, rec := range recs {
		n, err := r.line(rec.Value)
		if err != nil {
			return nil, fmt.Errorf("trace: %s: line %d: record %d: %w", r.format, rec.Line, rec.Index, err)
		}
		found += n
	}
	if found == 0 {
		return nil, fmt.Errorf("trace: %s: %w", r.format, trace.ErrNoMessages)
	}
	return r.b.Finish(r.format, nil), nil
}

// line reads one record. A request's messages or items are the whole
// conversation so far, as when each line of a log holds a request and
// its response: the part of them that repeats, in order, the start of the
// conversation already read is not read again, only what follows. The
// messages or items of a response, and those alone on a line, continue
// the conversation.
func (r *reader) line(v jsontext.Value) (int, error) {
	var l line
	if err := r.record(v, 0, &l, false, ""); err != nil {
		return 0, err
	}
	conv := r.conv
	if l.hasReq {
		conv = make([]string, 0, len(l.request)+len(l.next))
		for _, e := range l.request {
			conv = append(conv, e.key)
		}
	}
	all := append(l.request[:len(l.request):len(l.request)], l.next...)
	for _, e := range l.next {
		conv = append(conv, e.key)
	}
	// The common start of the conversation read and this one: all that
	// was read, for a record that only continues it.
	p := 0
	if !l.hasReq {
		p = len(r.conv)
	}
	for p < len(conv) && p < len(r.conv) && conv[p] == r.conv[p] {
		p++
	}
	first := p - (len(conv) - len(all)) // the first element of the record not read
	if p < len(conv) {
		r.conv = conv
	}
	for _, e := range all[max(first, 0):] {
		if e.v == nil {
			r.b.Prompt(e.text)
			continue
		}
		if err := r.item(e.v); err != nil {
			if e.path != "" {
				return 0, fmt.Errorf("%s: %w", e.path, err)
			}
			return 0, err
		}
	}
	return l.n, nil
}

// container is what a read looks for in an object that is not a message
// or an item: a request, a response, or a log entry holding both.
type container struct {
	Type     string         `json:"type"`
	Role     jsontext.Value `json:"role"`
	Model    string         `json:"model"`
	ID       string         `json:"id"`
	Messages jsontext.Value `json:"messages"`
	Choices  jsontext.Value `json:"choices"`
	Input    jsontext.Value `json:"input"`
	Output   jsontext.Value `json:"output"`
	Request  jsontext.Value `json:"request"`
	Response jsontext.Value `json:"response"`
}

// isItem reports whether an object is a message or an item rather than a
// container.
func (r *reader) isItem(c *container) bool {
	if k := c.Role.Kind(); k != 0 && k != 'n' {
		return true // a message, its role read (or refused) by the item's reader
	}
	if r.format == Responses {
		return c.Type != "" && !strings.HasPrefix(c.Type, "response.")
	}
	return false
}

// record gathers the messages and items of a record, a message, an item
// or a container, into l: into its request when req is set.
func (r *reader) record(v jsontext.Value, depth int, l *line, req bool, path string) error {
	if v.Kind() != '{' {
		if v.Kind() == 'n' {
			return nil
		}
		return fmt.Errorf("want a JSON object, got %s", kindName(v.Kind()))
	}
	var c container
	if err := session.Decode(v, &c); err != nil {
		return err
	}
	if r.isItem(&c) {
		l.n++
		k, skip, err := r.key(v)
		if err != nil {
			return err
		}
		if !skip {
			e := elem{key: k, v: v, path: path}
			if req {
				l.request = append(l.request, e)
			} else {
				l.next = append(l.next, e)
			}
		}
		return nil
	}
	if depth >= maxDepth {
		return errors.New("containers nested too deep")
	}
	list := func(name string, lv jsontext.Value) error {
		req := name == "messages" || name == "input"
		switch lv.Kind() {
		case 0, 'n':
			return nil
		case '[':
		case '"':
			if r.format == Responses && name == "input" {
				// A request's input given as a string is a user prompt.
				var s string
				if err := session.Decode(lv, &s); err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
				l.n++
				l.hasReq = true
				l.request = append(l.request, elem{key: "prompt\x00" + s, text: s})
				return nil
			}
			fallthrough
		default:
			return fmt.Errorf("%s: want a list, got %s", name, kindName(lv.Kind()))
		}
		var elems []jsontext.Value
		if err := session.Decode(lv, &elems); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if req {
			l.hasReq = true
		}
		for i, e := range elems {
			if name == "choices" {
				if i > 0 {
					break // other choices were not taken
				}
				var ch struct {
					Message jsontext.Value `json:"message"`
				}
				if err := session.Decode(e, &ch); err != nil {
					return fmt.Errorf("choices[%d]: %w", i, err)
				}
				e = ch.Message
			}
			where := fmt.Sprintf("%s[%d]", name, i)
			if path != "" {
				where = path + ": " + where
			}
			if err := r.record(e, depth+1, l, req, where); err != nil {
				return fmt.Errorf("%s[%d]: %w", name, i, err)
			}
		}
		return nil
	}
	if r.format == Chat {
		if err := list("messages", c.Messages); err != nil {
			return err
		}
		if err := list("choices", c.Choices); err != nil {
			return err
		}
	} else {
		if err := list("input", c.Input); err != nil {
			return err
		}
		if err := list("output", c.Output); err != nil {
			return err
		}
	}
	for _, sub := range []struct {
		name string
		v    jsontext.Value
	}{{"request", c.Request}, {"response", c.Response}} {
		if sub.v.Kind() != '{' {
			continue
		}
		where := sub.name
		if path != "" {
			where = path + ": " + where
		}
		if err := r.record(sub.v, depth+1, l, false, where); err != nil {
			return fmt.Errorf("%s: %w", sub.name, err)
		}
	}
	r.b.Model(c.Model)
	return nil
}

// kindName names a JSON kind in an error.
func kindName(k jsontext.Kind) string {
	switch k {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "nothing"
}

// flag reads the error flag some orchestrators add to a tool result.
func flag(isError *bool, status string) session.Flag {
	switch {
	case isError != nil && *isError, status == "error", status == "failed":
		return session.Failed
	case isError != nil, status == "success":
		return session.Succeeded
	}
	return session.Unflagged
}

// key encodes a message's or an item's key.
func key(v any) string {
	b, _ := json.Marshal(v, json.Deterministic(true))
	return string(b)
}

// anyJSON decodes JSON for a key, nil when it does not decode.
func anyJSON(v jsontext.Value) any {
	if len(v) == 0 {
		return nil
	}
	var x any
	if json.Unmarshal(v, &x, agentlog.DecodeOptions) != nil {
		return string(v)
	}
	return x
}
