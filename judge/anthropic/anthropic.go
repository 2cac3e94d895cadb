// Package anthropic is a [judge.Provider] for Anthropic's Messages API. One
// call to [Client.Complete] is one POST to {BaseURL}/v1/messages that
// offers the call's tool and forces it (tool_choice {"type": "tool"}); the
// answer is the tool_use block's input, taken as the raw JSON the API sent.
//
// It is a thin client over net/http rather than the official SDK
// (github.com/anthropics/anthropic-sdk-go), on purpose. The SDK retries
// failed calls by itself, twice by default, sleeping on the wall clock
// between tries, while the judge owns retries, backoff and circuit breaking
// on an injected clock and needs one call to be one request; the SDK can
// be told not to, but every call would then carry options to undo its
// defaults. The judge uses one endpoint, with plain text messages and one
// tool: a hundred lines of wire types, which the tests check byte for byte
// against the fake server in package judge/fake, cost less than the SDK's
// generated code and dependencies, and leave the request the client sends
// fully visible.
//
// The API key goes into the x-api-key header and nowhere else: it is cut
// out of every error, including a message the server echoes back, and a
// [Client] prints without it, with any fmt verb.
package anthropic

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

// DefaultBaseURL is Anthropic's API, used when no base URL is given.
const DefaultBaseURL = "https://api.anthropic.com"

// Version is the anthropic-version header the client sends.
const Version = "2023-06-01"

// DefaultMaxTokens is the max_tokens sent when a call gives none: the API
// requires one.
const DefaultMaxTokens = 1024

// maxBody bounds the response body read (8 MiB): a message is far
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
	// BaseURL is the API's URL without the version:
	// "https://api.anthropic.com". Empty means DefaultBaseURL; a trailing
	// slash is ignored.
	BaseURL string
	// APIKey is sent as the x-api-key header. When empty no x-api-key
	// header is sent (a gateway may authenticate by a header of its own,
	// given in Headers).
	APIKey string
	// HTTPClient sends the requests. Nil means judge.HTTPClient: no
	// timeout of its own (the context passed to Complete bounds each
	// call), and idle connections kept for many calls at once.
	HTTPClient Doer
	// Headers are set on every request after the client's own headers,
	// which they replace when they name the same one (anthropic-beta, a
	// different anthropic-version).
	Headers map[string]string
	// Now is the clock a Retry-After HTTP date is measured against. Nil
	// means time.Now.
	Now func() time.Time
}

// Client is a [judge.Provider] for Anthropic's Messages API. It is safe for
// concurrent use.
type Client struct {
	conn apiwire.Conn
}

var _ judge.Provider = (*Client)(nil)

// New returns a client configured by o.
func New(o Options) *Client {
	return &Client{conn: apiwire.NewConn("anthropic", DefaultBaseURL, o.BaseURL, o.APIKey, o.HTTPClient, o.Headers, o.Now,
		func() apiwire.Doer { return judge.HTTPClient() })}
}

// FromEnv returns a client configured as Anthropic's own SDKs are: the
// base URL from ANTHROPIC_BASE_URL (DefaultBaseURL when unset or empty),
// the key from ANTHROPIC_API_KEY.
func FromEnv() *Client {
	return New(Options{
		BaseURL: os.Getenv("ANTHROPIC_BASE_URL"),
		APIKey:  os.Getenv("ANTHROPIC_API_KEY"),
	})
}

// Name returns "anthropic".
func (c *Client) Name() string { return "anthropic" }

// String describes the client by its endpoint, never its key.
func (c *Client) String() string { return c.conn.String() }

// GoString is String, so that %#v does not print the key either.
func (c *Client) GoString() string { return c.String() }

// Format prints String for every verb, so that no verb (%d, %x, %+v...)
// reaches the key.
func (c *Client) Format(f fmt.State, verb rune) { c.conn.Format(f, verb) }

// Complete sends call as one message request and returns the model's
// answer; see [judge.Provider] for what it returns when.
// [judge.Call.Structured] is ignored: Anthropic always uses tool use.
func (c *Client) Complete(ctx context.Context, call *judge.Call) (*judge.Reply, error) {
	if call == nil {
		return nil, errors.New("anthropic: nil call")
	}
	body, err := apiwire.Marshal(newRequest(call))
	if err != nil {
		return nil, fmt.Errorf("anthropic: encoding the request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.conn.BaseURL+"/v1/messages", bytes.NewReader(body))
	if err != nil {
		return nil, c.wrap("building the request", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("anthropic-version", Version)
	resp, err := c.conn.Send(req, func(key string) (string, string) { return "x-api-key", key })
	if err != nil {
		return nil, c.wrap("", err)
	}
	defer resp.Body.Close()
	limit := maxBody
	if resp.StatusCode >= 400 {
		limit = maxErrorBody
	}
	data, readErr := apiwire.ReadBody(resp.Body, limit)
	requestID := resp.Header.Get("request-id")

	if resp.StatusCode >= 400 {
		// The status is the answer even if the body was cut short.
		return nil, c.apiError(resp, data, requestID)
	}
	if readErr != nil {
		return nil, c.wrap("reading the response", readErr)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("anthropic: unexpected HTTP status %d", resp.StatusCode)
	}
	var r messageResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, c.errorf("HTTP %d response is not a message: %v (body %s)",
			resp.StatusCode, err, apiwire.Snippet(data))
	}
	if r.Type != "message" {
		return nil, c.errorf("HTTP %d response is of type %q, not a message (body %s)",
			resp.StatusCode, r.Type, apiwire.Snippet(data))
	}
	reply := toReply(call, &r)
	reply.RequestID = requestID
	return reply, nil
}

// newRequest builds the wire request for call.
func newRequest(call *judge.Call) *messageRequest {
	r := &messageRequest{
		Model:       call.Model,
		MaxTokens:   call.MaxTokens,
		System:      call.System,
		Messages:    make([]message, 0, len(call.Messages)),
		Temperature: call.Temperature,
	}
	if r.MaxTokens <= 0 {
		r.MaxTokens = DefaultMaxTokens
	}
	for _, m := range call.Messages {
		r.Messages = append(r.Messages, message{Role: m.Role, Content: m.Content})
	}
	schema := call.Tool.Schema
	if len(bytes.TrimSpace(schema)) == 0 {
		schema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	r.Tools = []tool{{Name: call.Tool.Name, Description: call.Tool.Description, InputSchema: schema}}
	r.ToolChoice = toolChoice{Type: "tool", Name: call.Tool.Name}
	return r
}

// toReply reads r as a [judge.Reply].
func toReply(call *judge.Call, r *messageResponse) *judge.Reply {
	reply := &judge.Reply{
		Model: r.Model,
		Usage: judge.Usage{
			InputTokens:  r.Usage.InputTokens,
			OutputTokens: r.Usage.OutputTokens,
		},
	}
	var text strings.Builder
	var use, first *block
	for i := range r.Content {
		b := &r.Content[i]
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			if first == nil {
				first = b
			}
			if use == nil && b.Name == call.Tool.Name {
				use = b
			}
		}
	}
	if use == nil {
		use = first
	}
	reply.Text = text.String()
	if use != nil {
		reply.Arguments = append([]byte(nil), bytes.TrimSpace(use.Input)...)
	}
	stop := ""
	if r.StopReason != nil {
		stop = *r.StopReason
	}
	switch stop {
	case "tool_use":
		reply.Stop = judge.StopTool
	case "end_turn", "stop_sequence":
		// A turn that ended with the tool called is a tool call, whatever
		// a compatible server calls it.
		if use != nil {
			reply.Stop = judge.StopTool
		} else {
			reply.Stop = judge.StopEnd
		}
	case "max_tokens", "model_context_window_exceeded":
		reply.Stop = judge.StopMaxTokens
	case "refusal":
		reply.Stop = judge.StopRefusal
	default:
		reply.Stop = judge.StopOther
	}
	return reply
}

// The wire format of a request.
type (
	messageRequest struct {
		Model       string     `json:"model"`
		MaxTokens   int        `json:"max_tokens"`
		System      string     `json:"system,omitempty"`
		Messages    []message  `json:"messages"`
		Temperature float64    `json:"temperature"`
		Tools       []tool     `json:"tools"`
		ToolChoice  toolChoice `json:"tool_choice"`
	}
	message struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	tool struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	toolChoice struct {
		Type string `json:"type"`
		Name string `json:"name"`
	}
)

// The wire format of a response: only what the client reads.
type (
	messageResponse struct {
		Type       string  `json:"type"`
		Model      string  `json:"model"`
		Content    []block `json:"content"`
		StopReason *string `json:"stop_reason"`
		Usage      struct {
			InputTokens  int `json:"input_tokens"`
			OutputTokens int `json:"output_tokens"`
		} `json:"usage"`
	}
	block struct {
		Type  string          `json:"type"`
		Text  string          `json:"text"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	}
)
