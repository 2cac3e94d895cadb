package openai

import (
	"fmt"
	"io"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/vouchgate/vouch/trace"
	"github.com/vouchgate/vouch/trace/internal/agentlog"
	"github.com/vouchgate/vouch/trace/internal/session"
)

// chatMessage is one message of a Chat Completions conversation.
type chatMessage struct {
	Role         string         `json:"role"`
	Content      jsontext.Value `json:"content"`
	Refusal      string         `json:"refusal"`
	Name         string         `json:"name"`
	ToolCalls    []chatToolCall `json:"tool_calls"`
	FunctionCall *chatFunction  `json:"function_call"`
	ToolCallID   string         `json:"tool_call_id"`
	// IsError and Status are not part of the API: an orchestrator may
	// add either to a tool message.
	IsError *bool  `json:"is_error"`
	Status  string `json:"status"`
}

// chatToolCall is one call of an assistant message's tool_calls: a
// function call, or a call of a custom (free-form) tool.
type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
	Custom   struct {
		Name  string `json:"name"`
		Input string `json:"input"`
	} `json:"custom"`
}

// chatFunction is a function call: its name and arguments, a JSON object
// encoded in a string.
type chatFunction struct {
	Name      string         `json:"name"`
	Arguments jsontext.Value `json:"arguments"`
}

// ReadChat reads a log of the Chat Completions API: a JSON list of
// messages, a request body ({"model": ..., "messages": [...]}), a response
// ({"choices": [{"message": ...}]}), an object holding both (messages and
// choices, or "request" and "response"), or JSONL with one of these a line.
// The messages are read in order; only the first choice of a response is.
//
// Each call in an assistant message's tool_calls becomes a trace entry:
// its id, the function's name, and its arguments (a JSON object encoded
// in a string) as the input, read leniently: arguments that are not a JSON
// object are kept whole as the input's "arguments" member. A custom tool's
// free-form input is the input's "input" member. A tool message is the
// result of the call its tool_call_id names: its content (a string, or the
// text of its parts joined by newlines) is the output. A call without a
// tool message keeps no output; a result for an unknown call, or a second
// result for a call, is ignored. Ids need be unique only within a
// response: a call whose id an earlier call had is a new call, and a
// result goes to the latest call of its id without one. The legacy
// function_call, and a function message answering it by name, are read
// the same way.
//
// When each line of a log holds a request with the whole conversation so
// far, the messages of a request that repeat, in order, the start of the
// conversation already read (system messages aside) are not read again:
// only those that follow them are, then the response's.
//
// The claimed output is what the assistant said: the summary is the
// content of the assistant messages after its last tool call, joined by
// blank lines (a refusal counts as content). The goal is the content of
// the user messages, each once, joined by blank lines; system and
// developer messages are neither. The executor is the model of the last
// request or response that names one. Commands and commandResults come
// from the calls, with the exit status the output states (see
// [trace.ExitCode]), else 0 for a result flagged as a success.
//
// A log that is not valid JSON, truncated included, or in which a message
// has members of the wrong type, is an error naming the line and the
// record. A log without any message gives [trace.ErrNoMessages].
func ReadChat(r io.Reader) (*trace.Transcript, error) {
	data, err := readAll(r)
	if err != nil {
		return nil, err
	}
	return readChat(data)
}

func readChat(data []byte) (*trace.Transcript, error) {
	rd := &reader{format: Chat, key: chatKey}
	rd.item = rd.chatMessage
	return rd.read(data)
}

func (r *reader) chatMessage(v jsontext.Value) error {
	var m chatMessage
	if err := session.Decode(v, &m); err != nil {
		return err
	}
	switch m.Role {
	case "user":
		text, err := session.Text(m.Content, false)
		if err != nil {
			return fmt.Errorf("content: %w", err)
		}
		r.b.Prompt(text)
	case "assistant":
		return r.chatAssistant(&m)
	case "tool", "function":
		text, err := session.Text(m.Content, true)
		if err != nil {
			return fmt.Errorf("content: %w", err)
		}
		out, f := agentlog.Quote(text), flag(m.IsError, m.Status)
		if m.Role == "tool" && m.ToolCallID != "" {
			r.b.Result(m.ToolCallID, out, f)
		} else if k, ok := r.b.Pending(m.Name); ok && m.Name != "" {
			r.b.ResultAt(k, out, f)
		}
	}
	return nil
}

func (r *reader) chatAssistant(m *chatMessage) error {
	text, err := session.Text(m.Content, false)
	if err != nil {
		return fmt.Errorf("content: %w", err)
	}
	if text == "" {
		text = m.Refusal
	}
	r.b.Say(text)
	for _, c := range m.ToolCalls {
		if c.Type == "custom" {
			r.b.Add(c.ID, c.Custom.Name, map[string]any{"input": c.Custom.Input}, "")
			continue
		}
		r.b.Add(c.ID, c.Function.Name, session.Arguments(c.Function.Arguments), "")
	}
	if f := m.FunctionCall; f != nil && f.Name != "" {
		r.b.Add("", f.Name, session.Arguments(f.Arguments), "")
	}
	return nil
}

// chatKey returns what a message says, for [reader.line]: its role,
// content, tool calls and the call it answers, whatever members a log adds
// or leaves out (an assistant message sent back in the next request may
// lose its null members). System and developer messages are skipped.
func chatKey(v jsontext.Value) (string, bool, error) {
	var m chatMessage
	if err := session.Decode(v, &m); err != nil {
		return "", false, err
	}
	switch m.Role {
	case "system", "developer":
		return "", true, nil
	}
	text, err := session.Text(m.Content, true)
	if err != nil {
		return "", false, fmt.Errorf("content: %w", err)
	}
	k := struct {
		Role, Text, Refusal, Name, ToolCallID string
		Calls                                 []any
	}{m.Role, text, m.Refusal, m.Name, m.ToolCallID, nil}
	for _, c := range m.ToolCalls {
		k.Calls = append(k.Calls, []any{c.ID, c.Type, c.Function.Name, session.Arguments(c.Function.Arguments), c.Custom.Name, c.Custom.Input})
	}
	if f := m.FunctionCall; f != nil {
		k.Calls = append(k.Calls, []any{f.Name, session.Arguments(f.Arguments)})
	}
	return key(k), false, nil
}
