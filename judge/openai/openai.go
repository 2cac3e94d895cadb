// Package openai is a [judge.Provider] for any OpenAI-compatible Chat
// Completions API: OpenAI itself, OpenRouter, Ollama, vLLM, the llama.cpp
// server, LM Studio. It is a thin client over net/http, with no SDK: one
// call to [Client.Complete] is one POST to {BaseURL}/chat/completions and
// nothing more. It neither retries nor sleeps; the judge does both, on its
// own clock.
//
// The structured answer is asked for in one of two ways, chosen by
// [judge.Call.Structured]. By function calling (the default): the call
// offers one function and tool_choice forces it, and the answer is the
// function call's arguments string, taken unparsed. By response_format
// json_schema, for servers without tool calling: the answer is the
// message's content.
//
// A forced function call ends, on OpenAI and on vLLM, with finish_reason
// "stop" rather than "tool_calls"; the client therefore reports
// [judge.StopTool] whenever the model called the tool and was not cut off,
// whatever finish_reason says.
//
// The API key goes into the Authorization header and nowhere else: it is
// cut out of every error, including a message the server echoes back, and
// a [Client] prints without it, with any fmt verb.
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/vouchgate/vouch/judge"
	"github.com/vouchgate/vouch/judge/internal/apiwire"
)

// DefaultBaseURL is OpenAI's API, used when no base URL is given.
const DefaultBaseURL = "https://api.openai.com/v1"

// maxBody bounds the response body read (8 MiB): a chat completion is far
// smaller, so anything larger is a broken or hostile server. An error's
// body is read up to maxErrorBody (64 KiB); the rest is not needed.
const (
	maxBody      = 8 << 20
	maxErrorBody = 64 << 10
)

// Doer sends an HTTP request and returns its response; *http.Client is
// one.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// Options configure a [Client].
type Options struct {
	// BaseURL is the API's URL up to and including its version:
	// "https://api.openai.com/v1", "https://openrouter.ai/api/v1",
	// "http://localhost:11434/v1". Empty means DefaultBaseURL; a trailing
	// slash is ignored.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer KEY". When empty no
	// Authorization header is sent: Ollama, vLLM and llama.cpp need none.
	APIKey string
	// HTTPClient sends the requests. Nil means judge.HTTPClient: no
	// timeout of its own (the context passed to Complete bounds each
	// call), and idle connections kept for many calls at once.
	HTTPClient Doer
	// Headers are set on every request after the client's own headers,
	// which they replace when they name the same one (OpenRouter's
	// HTTP-Referer, OpenAI-Organization, a gateway's own key header).
	Headers map[string]string
	// Now is the clock a Retry-After HTTP date is measured against. Nil
	// means time.Now.
	Now func() time.Time
}

// Client is a [judge.Provider] for an OpenAI-compatible Chat Completions
// API. It is safe for concurrent use.
type Client struct {
	conn apiwire.Conn
}

var _ judge.Provider = (*Client)(nil)

// New returns a client configured by o.
func New(o Options) *Client {
	return &Client{conn: apiwire.NewConn("openai", DefaultBaseURL, o.BaseURL, o.APIKey, o.HTTPClient, o.Headers, o.Now,
		func() apiwire.Doer { return judge.HTTPClient() })}
}

// FromEnv returns a client configured as OpenAI's own SDKs are: the base
// URL from OPENAI_BASE_URL (DefaultBaseURL when unset or empty), the key
// from OPENAI_API_KEY.
func FromEnv() *Client {
	return New(Options{
		BaseURL: os.Getenv("OPENAI_BASE_URL"),
		APIKey:  os.Getenv("OPENAI_API_KEY"),
	})
}

// Name returns "openai".
func (c *Client) Name() string { return "openai" }

// String describes the client by its endpoint, never its key.
func (c *Client) String() string { return c.conn.String() }

// GoString is String, so that %#v does not print the key either.
func (c *Client) GoString() string { return c.String() }

// Format prints String for every verb, so that no verb (%d, %x, %+v...)
// reaches the key.
func (c *Client) Format(f fmt.State, verb rune) { c.conn.Format(f, verb) }

// Complete sends call as one chat completion and returns the model's
// answer; see [judge.Provider] for what it returns when.
func (c *Client) Complete(ctx context.Context, call *judge.Call) (*judge.Reply, error) {
	if call == nil {
		return nil, errors.New("openai: nil call")
	}
	wire, err := newRequest(call)
	if err != nil {
		return nil, err
	}
	body, err := apiwire.Marshal(wire)
	if err != nil {
		return nil, fmt.Errorf("openai: encoding the request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.conn.BaseURL+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return nil, c.wrap("building the request", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.conn.Send(req, func(key string) (string, string) { return "Authorization", "Bearer " + key })
	if err != nil {
		return nil, c.wrap("", err)
	}
	defer resp.Body.Close()
	limit := maxBody
	if resp.StatusCode >= 400 {
		limit = maxErrorBody
	}
	data, readErr := apiwire.ReadBody(resp.Body, limit)
	requestID := resp.Header.Get("x-request-id")

	if resp.StatusCode >= 400 {
		// The status is the answer even if the body was cut short.
		return nil, c.apiError(resp, data, requestID)
	}
	if readErr != nil {
		return nil, c.wrap("reading the response", readErr)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("openai: unexpected HTTP status %d", resp.StatusCode)
	}
	var r chatResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, c.errorf("HTTP %d response is not a chat completion: %v (body %s)",
			resp.StatusCode, err, apiwire.Snippet(data))
	}
	if len(r.Choices) == 0 {
		return nil, c.errorf("HTTP %d response has no choices (body %s)",
			resp.StatusCode, apiwire.Snippet(data))
	}
	reply := toReply(call, &r)
	reply.RequestID = requestID
	return reply, nil
}

// newRequest builds the wire request for call.
func newRequest(call *judge.Call) (*chatRequest, error) {
	r := &chatRequest{
		Model:       call.Model,
		MaxTokens:   call.MaxTokens,
		Temperature: call.Temperature,
	}
	if call.System != "" {
		r.Messages = append(r.Messages, chatMessage{Role: "system", Content: call.System})
	}
	for _, m := range call.Messages {
		r.Messages = append(r.Messages, chatMessage{Role: m.Role, Content: m.Content})
	}
	if r.Messages == nil {
		r.Messages = []chatMessage{}
	}
	schema := call.Tool.Schema
	if len(bytes.TrimSpace(schema)) == 0 {
		schema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	switch call.Structured {
	case "", judge.StructuredTool:
		r.Tools = []chatTool{{
			Type: "function",
			Function: functionDef{
				Name:        call.Tool.Name,
				Description: call.Tool.Description,
				Parameters:  schema,
			},
		}}
		r.ToolChoice = &toolChoice{Type: "function", Function: toolChoiceFunction{Name: call.Tool.Name}}
	case judge.StructuredSchema:
		r.ResponseFormat = &responseFormat{
			Type: "json_schema",
			JSONSchema: &jsonSchemaFormat{
				Name:        call.Tool.Name,
				Description: call.Tool.Description,
				Schema:      schema,
				Strict:      false,
			},
		}
	default:
		return nil, fmt.Errorf("openai: unknown structured mode %q (want %q or %q)",
			call.Structured, judge.StructuredTool, judge.StructuredSchema)
	}
	return r, nil
}

// toReply reads the first choice of r as a [judge.Reply].
func toReply(call *judge.Call, r *chatResponse) *judge.Reply {
	choice := r.Choices[0]
	msg := choice.Message
	content := contentText(msg.Content)
	reply := &judge.Reply{
		Model: r.Model,
		Usage: judge.Usage{
			InputTokens:  r.Usage.PromptTokens,
			OutputTokens: r.Usage.CompletionTokens,
		},
	}
	called := false
	if call.Structured == judge.StructuredSchema {
		if content != "" {
			reply.Arguments = []byte(content)
			called = true
		}
	} else {
		reply.Text = content
		if tc := pickToolCall(msg.ToolCalls, call.Tool.Name); tc != nil {
			reply.Arguments = argumentsBytes(tc.Function.Arguments)
			called = true
		}
	}
	refusal := ""
	if msg.Refusal != nil {
		refusal = *msg.Refusal
	}
	finish := ""
	if choice.FinishReason != nil {
		finish = *choice.FinishReason
	}
	switch {
	case refusal != "":
		reply.Stop = judge.StopRefusal
		reply.Text = refusal
	case finish == "content_filter":
		reply.Stop = judge.StopRefusal
	case finish == "length":
		reply.Stop = judge.StopMaxTokens
	case finish == "tool_calls":
		reply.Stop = judge.StopTool
	case finish == "stop" && called:
		reply.Stop = judge.StopTool
	case finish == "stop":
		reply.Stop = judge.StopEnd
	default:
		reply.Stop = judge.StopOther
	}
	return reply
}

// pickToolCall returns the first call of the function named name, else
// the first call, else nil.
func pickToolCall(calls []toolCall, name string) *toolCall {
	for i := range calls {
		if calls[i].Function.Name == name {
			return &calls[i]
		}
	}
	if len(calls) > 0 {
		return &calls[0]
	}
	return nil
}

// argumentsBytes returns a function call's arguments as the model wrote
// them. The API sends them as a JSON string; a few compatible servers send
// the object itself, which is taken as it is.
func argumentsBytes(raw json.RawMessage) []byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return []byte(s)
		}
	}
	return append([]byte(nil), raw...)
}

// contentText returns a message's content: a string, or the text of an
// array of content parts, or "" for null.
func contentText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	case '[':
		var parts []struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(raw, &parts) == nil {
			var b strings.Builder
			for _, p := range parts {
				b.WriteString(p.Text)
			}
			return b.String()
		}
	}
	return ""
}

// The wire format of a request.
type (
	chatRequest struct {
		Model          string          `json:"model"`
		Messages       []chatMessage   `json:"messages"`
		MaxTokens      int             `json:"max_tokens,omitempty"`
		Temperature    float64         `json:"temperature"`
		Tools          []chatTool      `json:"tools,omitempty"`
		ToolChoice     *toolChoice     `json:"tool_choice,omitempty"`
		ResponseFormat *responseFormat `json:"response_format,omitempty"`
	}
	chatMessage struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	chatTool struct {
		Type     string      `json:"type"`
		Function functionDef `json:"function"`
	}
	functionDef struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	toolChoice struct {
		Type     string             `json:"type"`
		Function toolChoiceFunction `json:"function"`
	}
	toolChoiceFunction struct {
		Name string `json:"name"`
	}
	responseFormat struct {
		Type       string            `json:"type"`
		JSONSchema *jsonSchemaFormat `json:"json_schema,omitempty"`
	}
	jsonSchemaFormat struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Schema      json.RawMessage `json:"schema"`
		Strict      bool            `json:"strict"`
	}
)

// The wire format of a response: only what the client reads.
type (
	chatResponse struct {
		Model   string   `json:"model"`
		Choices []choice `json:"choices"`
		Usage   struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	choice struct {
		Message struct {
			Content   json.RawMessage `json:"content"`
			Refusal   *string         `json:"refusal"`
			ToolCalls []toolCall      `json:"tool_calls"`
		} `json:"message"`
		FinishReason *string `json:"finish_reason"`
	}
	toolCall struct {
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	}
)
