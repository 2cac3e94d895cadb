package fake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/vouchgate/vouch/judge"
)

// openaiProtocol is OpenAI's Chat Completions wire format.
type openaiProtocol struct{}

func (openaiProtocol) name() string            { return OpenAI }
func (openaiProtocol) requestIDHeader() string { return "x-request-id" }

func (openaiProtocol) authorized(r *http.Request, key string) (bool, string) {
	if key == "" {
		return true, ""
	}
	auth := r.Header.Get("Authorization")
	if auth == "" {
		return false, "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
	}
	if auth != "Bearer "+key {
		return false, "Incorrect API key provided."
	}
	return true, ""
}

// The wire format of a request, as far as the fake reads it.
type (
	oaRequest struct {
		Model               *string           `json:"model"`
		Messages            []oaMessage       `json:"messages"`
		MaxTokens           int               `json:"max_tokens"`
		MaxCompletionTokens int               `json:"max_completion_tokens"`
		Temperature         float64           `json:"temperature"`
		Tools               []oaTool          `json:"tools"`
		ToolChoice          json.RawMessage   `json:"tool_choice"`
		ResponseFormat      *oaResponseFormat `json:"response_format"`
	}
	oaMessage struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	oaTool struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	oaResponseFormat struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Schema      json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	}
)

func (openaiProtocol) parse(body []byte, _ http.Header, req *Request) (parsed, string) {
	var in oaRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return parsed{}, fmt.Sprintf("We could not parse the JSON body of your request. (%v)", err)
	}
	if in.Model == nil || *in.Model == "" {
		return parsed{}, "you must provide a model parameter"
	}
	req.Model = *in.Model
	if len(in.Messages) == 0 {
		return parsed{}, "'messages' is a required property and must not be empty"
	}
	var system []string
	for i, m := range in.Messages {
		text, ok := textContent(m.Content)
		if !ok {
			return parsed{}, fmt.Sprintf("Invalid type for 'messages[%d].content': expected a string or an array of content parts", i)
		}
		switch m.Role {
		case "system", "developer":
			system = append(system, text)
		case "user", "assistant", "tool":
			req.Messages = append(req.Messages, judge.Message{Role: m.Role, Content: text})
		default:
			return parsed{}, fmt.Sprintf("Invalid value for 'messages[%d].role': %q", i, m.Role)
		}
	}
	req.System = strings.Join(system, "\n")
	req.MaxTokens = in.MaxTokens
	if req.MaxTokens == 0 {
		req.MaxTokens = in.MaxCompletionTokens
	}
	req.Temperature = in.Temperature

	var p parsed
	if rf := in.ResponseFormat; rf != nil && rf.Type == "json_schema" {
		if rf.JSONSchema == nil || rf.JSONSchema.Name == "" {
			return parsed{}, "Missing required parameter: 'response_format.json_schema.name'."
		}
		req.Structured = judge.StructuredSchema
		req.Tool = judge.Tool{
			Name:        rf.JSONSchema.Name,
			Description: rf.JSONSchema.Description,
			Schema:      rf.JSONSchema.Schema,
		}
		return p, ""
	}
	if len(in.Tools) == 0 {
		return p, ""
	}
	for i, t := range in.Tools {
		if t.Type != "function" {
			return parsed{}, fmt.Sprintf("Invalid value for 'tools[%d].type': %q (want \"function\")", i, t.Type)
		}
		if t.Function.Name == "" {
			return parsed{}, fmt.Sprintf("Missing required parameter: 'tools[%d].function.name'.", i)
		}
	}
	chosen := 0
	choice := bytes.TrimSpace(in.ToolChoice)
	switch {
	case len(choice) == 0, string(choice) == "null", string(choice) == `"auto"`:
	case string(choice) == `"required"`:
		p.forced = true
	case string(choice) == `"none"`:
		// The model may not call a tool: the reply is prose.
		return p, ""
	default:
		var c struct {
			Type     string `json:"type"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if json.Unmarshal(choice, &c) != nil || c.Type != "function" || c.Function.Name == "" {
			return parsed{}, fmt.Sprintf("Invalid value for 'tool_choice': %s", choice)
		}
		chosen = -1
		for i, t := range in.Tools {
			if t.Function.Name == c.Function.Name {
				chosen = i
				break
			}
		}
		if chosen < 0 {
			return parsed{}, fmt.Sprintf("Invalid value for 'tool_choice': no function named %q is in 'tools'.", c.Function.Name)
		}
		p.forced = true
	}
	t := in.Tools[chosen].Function
	req.Structured = judge.StructuredTool
	req.Tool = judge.Tool{Name: t.Name, Description: t.Description, Schema: t.Parameters}
	return p, ""
}

// oaErrorType is OpenAI's usual error type for a status.
func oaErrorType(status int) string {
	switch {
	case status == http.StatusTooManyRequests:
		return "requests"
	case status >= 500:
		return "server_error"
	default:
		return "invalid_request_error"
	}
}

// oaErrorCode is OpenAI's usual error code for a status, or nil.
func oaErrorCode(status int) *string {
	code := ""
	switch status {
	case http.StatusUnauthorized:
		code = "invalid_api_key"
	case http.StatusTooManyRequests:
		code = "rate_limit_exceeded"
	default:
		return nil
	}
	return &code
}

func (openaiProtocol) writeError(w http.ResponseWriter, status int, typ, msg string) {
	if typ == "" {
		typ = oaErrorType(status)
	}
	if msg == "" {
		msg = fmt.Sprintf("fake: %d %s", status, http.StatusText(status))
	}
	writeJSON(w, status, map[string]any{
		"error": map[string]any{
			"message": msg,
			"type":    typ,
			"param":   nil,
			"code":    oaErrorCode(status),
		},
	})
}

// The wire format of a response.
type (
	oaResponse struct {
		ID      string     `json:"id"`
		Object  string     `json:"object"`
		Created int64      `json:"created"`
		Model   string     `json:"model"`
		Choices []oaChoice `json:"choices"`
		Usage   oaUsage    `json:"usage"`
	}
	oaChoice struct {
		Index        int          `json:"index"`
		Message      oaMessageOut `json:"message"`
		Logprobs     *struct{}    `json:"logprobs"`
		FinishReason string       `json:"finish_reason"`
	}
	oaMessageOut struct {
		Role      string       `json:"role"`
		Content   *string      `json:"content"`
		ToolCalls []oaToolCall `json:"tool_calls,omitempty"`
		Refusal   *string      `json:"refusal"`
	}
	oaToolCall struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	oaUsage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	}
)

// oaStop translates the judge's stop names to OpenAI's.
var oaStop = map[string]string{
	judge.StopTool:      "tool_calls",
	judge.StopEnd:       "stop",
	judge.StopMaxTokens: "length",
	judge.StopRefusal:   "content_filter",
}

func (openaiProtocol) writeReply(w http.ResponseWriter, req *Request, p parsed, rep Reply, seq int, now time.Time) {
	msg := oaMessageOut{Role: "assistant"}
	var finish string
	written := 0
	switch {
	case rep.Refusal != "":
		msg.Refusal = &rep.Refusal
		finish = "stop"
		written = len(rep.Refusal)
	case rep.NoToolCall || req.Structured == "":
		text := prose(rep)
		msg.Content = &text
		finish = "stop"
		written = len(text)
	case req.Structured == judge.StructuredSchema:
		args := oaArguments(rep)
		msg.Content = &args
		finish = "stop"
		written = len(args)
	default:
		if rep.Text != "" {
			msg.Content = &rep.Text
		}
		call := oaToolCall{ID: fmt.Sprintf("call_fake_%d", seq), Type: "function"}
		call.Function.Name = req.Tool.Name
		call.Function.Arguments = oaArguments(rep)
		msg.ToolCalls = []oaToolCall{call}
		// A forced call ends with "stop", as OpenAI's and vLLM's do.
		finish = "tool_calls"
		if p.forced {
			finish = "stop"
		}
		written = len(rep.Text) + len(call.Function.Arguments)
	}
	if rep.Stop != "" {
		finish = rep.Stop
		if s, ok := oaStop[rep.Stop]; ok {
			finish = s
		}
	}
	in, out := usage(rep, req.prompt(), written)
	writeJSON(w, http.StatusOK, oaResponse{
		ID:      fmt.Sprintf("chatcmpl-fake-%d", seq),
		Object:  "chat.completion",
		Created: now.Unix(),
		Model:   req.Model,
		Choices: []oaChoice{{Index: 0, Message: msg, FinishReason: finish}},
		Usage:   oaUsage{PromptTokens: in, CompletionTokens: out, TotalTokens: in + out},
	})
}

// oaArguments returns the arguments string rep sends, cut in the middle
// when it is Malformed.
func oaArguments(rep Reply) string {
	args := string(arguments(rep))
	if rep.Malformed {
		args = args[:len(args)/2]
	}
	return args
}
