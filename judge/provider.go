package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Provider sends one structured call to a model API and returns what the
// model answered. Complete makes exactly one HTTP request: retries,
// backoff, circuit breaking and caching belong to the caller ([Judge]), so
// that all of them run on one injected clock and are tested without
// sleeping. Complete honours ctx's deadline and cancellation. Complete may
// be called concurrently.
//
// Complete returns an [*APIError] when the API answered with an error
// status, and any other error when no answer came (connection refused,
// reset, a deadline); it returns a [Reply] whenever the API answered with
// success, even when the model made no tool call, refused, or was cut off:
// the caller decides what such a reply is worth.
type Provider interface {
	// Name is the provider's name as configuration writes it: "openai"
	// (any OpenAI-compatible chat-completions API) or "anthropic".
	Name() string
	Complete(ctx context.Context, c *Call) (*Reply, error)
}

// Call is one request to a model: a system prompt, a conversation, and the
// one tool the model is told to call with its structured answer.
type Call struct {
	// Model is the model's name as the API knows it ("gpt-4o",
	// "claude-sonnet-4-5").
	Model string
	// System is the system prompt.
	System string
	// Messages is the conversation, starting with a user message.
	Messages []Message
	// Tool is the tool the model must call; its arguments are the answer.
	Tool Tool
	// MaxTokens bounds the answer's length.
	MaxTokens int
	// Temperature is the sampling temperature; 0 asks for the most likely
	// answer.
	Temperature float64
	// Structured selects how an OpenAI-compatible API is asked for the
	// structured answer: StructuredTool (function calling, the default when
	// empty) or StructuredSchema (response_format json_schema, for servers
	// without tool calling). Anthropic always uses tool use.
	Structured string
}

// Ways to ask an OpenAI-compatible API for a structured answer.
const (
	StructuredTool   = "tool"
	StructuredSchema = "json_schema"
)

// Message is one turn of a conversation.
type Message struct {
	// Role is "user" or "assistant".
	Role    string
	Content string
}

// Tool is a tool offered to the model.
type Tool struct {
	Name        string
	Description string
	// Schema is the JSON Schema of the tool's arguments, an object schema.
	Schema json.RawMessage
}

// Stop reasons, the same across providers.
const (
	// StopTool: the model called the tool (OpenAI finish_reason
	// "tool_calls", or "stop" when tool_choice named the function, as it
	// does on OpenAI and vLLM; Anthropic stop_reason "tool_use"; in
	// json_schema mode, "stop" with content).
	StopTool = "tool"
	// StopEnd: the model ended its turn without calling the tool ("stop",
	// "end_turn", "stop_sequence").
	StopEnd = "end"
	// StopMaxTokens: the answer was cut off ("length", "max_tokens").
	StopMaxTokens = "max_tokens"
	// StopRefusal: the model refused (Anthropic "refusal"; OpenAI a
	// message.refusal or finish_reason "content_filter").
	StopRefusal = "refusal"
	// StopOther: any other reason the API gave.
	StopOther = "other"
)

// Reply is what a model answered.
type Reply struct {
	// Arguments are the tool call's arguments as the model wrote them:
	// for OpenAI the function.arguments string, unparsed (in json_schema
	// mode the message content); for Anthropic the tool_use block's input.
	// Empty when the model called no tool. They may be malformed or cut
	// off; the caller validates them.
	Arguments []byte
	// Text is what the model wrote outside the tool call: prose, a
	// refusal's explanation.
	Text string
	// Stop is one of the Stop* reasons.
	Stop string
	// Usage is what the call consumed, as the API reports it.
	Usage Usage
	// Model is the model that answered, as the API names it.
	Model string
	// RequestID is the API's id of the request, when it gives one.
	RequestID string
}

// Usage is the tokens one call consumed.
type Usage struct {
	InputTokens  int
	OutputTokens int
}

// APIError is an error status a model API answered with. Its message never
// holds the API key.
type APIError struct {
	// Provider is the provider's name.
	Provider string
	// StatusCode is the HTTP status (400 or more).
	StatusCode int
	// Type is the error's type as the body gives it ("rate_limit_error",
	// "invalid_request_error", "server_error"), or "".
	Type string
	// Message is the body's error message, or the status text.
	Message string
	// RetryAfter is how long the API asks to wait before trying again
	// (the Retry-After header in seconds or as an HTTP date, or
	// retry-after-ms); 0 when it does not say.
	RetryAfter time.Duration
	// RequestID is the API's id of the request, when it gives one.
	RequestID string
}

// Error implements error.
func (e *APIError) Error() string {
	s := fmt.Sprintf("%s: HTTP %d", e.Provider, e.StatusCode)
	if e.Type != "" {
		s += " " + e.Type
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Retryable reports whether the same call may succeed if sent again: a
// timeout (408), a conflict (409), a rate limit (429) or a server error
// (5xx, including Anthropic's 529 overloaded).
func (e *APIError) Retryable() bool {
	return e.StatusCode == 408 || e.StatusCode == 409 || e.StatusCode == 429 || e.StatusCode >= 500
}
