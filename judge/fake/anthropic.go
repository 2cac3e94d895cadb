package fake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/vouchgate/vouch/judge"
)

// anthropicProtocol is Anthropic's Messages wire format.
type anthropicProtocol struct{}

func (anthropicProtocol) name() string            { return Anthropic }
func (anthropicProtocol) requestIDHeader() string { return "request-id" }

func (anthropicProtocol) authorized(r *http.Request, key string) (bool, string) {
	if key == "" {
		return true, ""
	}
	got := r.Header.Get("x-api-key")
	if got == "" {
		return false, "x-api-key header is required"
	}
	if got != key {
		return false, "invalid x-api-key"
	}
	return true, ""
}

// The wire format of a request, as far as the fake reads it.
type (
	anRequest struct {
		Model       *string         `json:"model"`
		MaxTokens   *int            `json:"max_tokens"`
		System      json.RawMessage `json:"system"`
		Messages    []anMessage     `json:"messages"`
		Temperature float64         `json:"temperature"`
		Tools       []anTool        `json:"tools"`
		ToolChoice  *struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"tool_choice"`
	}
	anMessage struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	anTool struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
)

func (anthropicProtocol) parse(body []byte, header http.Header, req *Request) (parsed, string) {
	if header.Get("anthropic-version") == "" {
		return parsed{}, "anthropic-version: header is required"
	}
	var in anRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return parsed{}, fmt.Sprintf("There was an issue with your request body: %v", err)
	}
	if in.Model == nil || *in.Model == "" {
		return parsed{}, "model: Field required"
	}
	req.Model = *in.Model
	if in.MaxTokens == nil {
		return parsed{}, "max_tokens: Field required"
	}
	if *in.MaxTokens < 1 {
		return parsed{}, "max_tokens: Input should be greater than or equal to 1"
	}
	req.MaxTokens = *in.MaxTokens
	if len(in.Messages) == 0 {
		return parsed{}, "messages: at least one message is required"
	}
	system, ok := textContent(in.System)
	if !ok {
		return parsed{}, "system: Input should be a valid string or a list of text blocks"
	}
	req.System = system
	for i, m := range in.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return parsed{}, fmt.Sprintf("messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
		text, ok := textContent(m.Content)
		if !ok || len(bytes.TrimSpace(m.Content)) == 0 {
			return parsed{}, fmt.Sprintf("messages.%d.content: Input should be a valid string or a list of content blocks", i)
		}
		req.Messages = append(req.Messages, judge.Message{Role: m.Role, Content: text})
	}
	req.Temperature = in.Temperature

	var p parsed
	if len(in.Tools) == 0 {
		if in.ToolChoice != nil && in.ToolChoice.Type != "none" && in.ToolChoice.Type != "auto" {
			return parsed{}, "tool_choice may only be specified while providing tools"
		}
		return p, ""
	}
	for i, t := range in.Tools {
		if t.Name == "" {
			return parsed{}, fmt.Sprintf("tools.%d.name: Field required", i)
		}
		if len(bytes.TrimSpace(t.InputSchema)) == 0 {
			return parsed{}, fmt.Sprintf("tools.%d.input_schema: Field required", i)
		}
	}
	chosen := 0
	if c := in.ToolChoice; c != nil {
		switch c.Type {
		case "auto":
		case "any":
			p.forced = true
		case "none":
			return p, ""
		case "tool":
			chosen = -1
			for i, t := range in.Tools {
				if t.Name == c.Name {
					chosen = i
					break
				}
			}
			if chosen < 0 {
				return parsed{}, fmt.Sprintf("tool_choice.name: tool %q was not found in tools", c.Name)
			}
			p.forced = true
		default:
			return parsed{}, fmt.Sprintf("tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none', not %q", c.Type)
		}
	}
	t := in.Tools[chosen]
	req.Structured = judge.StructuredTool
	req.Tool = judge.Tool{Name: t.Name, Description: t.Description, Schema: t.InputSchema}
	return p, ""
}

// anErrorType is Anthropic's error type for a status.
func anErrorType(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 402:
		return "billing_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 504:
		return "timeout_error"
	case 529:
		return "overloaded_error"
	}
	if status >= 500 {
		return "api_error"
	}
	return "invalid_request_error"
}

func (anthropicProtocol) writeError(w http.ResponseWriter, status int, typ, msg string) {
	if typ == "" {
		typ = anErrorType(status)
	}
	if msg == "" {
		text := http.StatusText(status)
		if status == 529 {
			text = "Overloaded"
		}
		msg = fmt.Sprintf("fake: %d %s", status, text)
	}
	writeJSON(w, status, map[string]any{
		"type": "error",
		"error": map[string]any{
			"type":    typ,
			"message": msg,
		},
	})
}

// The wire format of a response.
type (
	anResponse struct {
		ID           string  `json:"id"`
		Type         string  `json:"type"`
		Role         string  `json:"role"`
		Model        string  `json:"model"`
		Content      []any   `json:"content"`
		StopReason   string  `json:"stop_reason"`
		StopSequence *string `json:"stop_sequence"`
		Usage        anUsage `json:"usage"`
	}
	anText struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	anToolUse struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	}
	anUsage struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
	}
)

// anStop translates the judge's stop names to Anthropic's.
var anStop = map[string]string{
	judge.StopTool:      "tool_use",
	judge.StopEnd:       "end_turn",
	judge.StopMaxTokens: "max_tokens",
	judge.StopRefusal:   "refusal",
}

func (a anthropicProtocol) writeReply(w http.ResponseWriter, req *Request, _ parsed, rep Reply, seq int, _ time.Time) {
	content := []any{}
	var stop string
	written := 0
	switch {
	case rep.Refusal != "":
		content = append(content, anText{Type: "text", Text: rep.Refusal})
		stop = "refusal"
		written = len(rep.Refusal)
	case rep.NoToolCall || req.Structured == "":
		text := prose(rep)
		content = append(content, anText{Type: "text", Text: text})
		stop = "end_turn"
		written = len(text)
	default:
		input, err := anInput(rep)
		if err != nil {
			a.writeError(w, http.StatusInternalServerError, "api_error", "fake: "+err.Error())
			return
		}
		if rep.Text != "" {
			content = append(content, anText{Type: "text", Text: rep.Text})
		}
		content = append(content, anToolUse{
			Type:  "tool_use",
			ID:    fmt.Sprintf("toolu_fake_%d", seq),
			Name:  req.Tool.Name,
			Input: input,
		})
		stop = "tool_use"
		written = len(rep.Text) + len(input)
	}
	if rep.Stop != "" {
		stop = rep.Stop
		if s, ok := anStop[rep.Stop]; ok {
			stop = s
		}
	}
	in, out := usage(rep, req.prompt(), written)
	writeJSON(w, http.StatusOK, anResponse{
		ID:         fmt.Sprintf("msg_fake_%d", seq),
		Type:       "message",
		Role:       "assistant",
		Model:      req.Model,
		Content:    content,
		StopReason: stop,
		Usage:      anUsage{InputTokens: in, OutputTokens: out},
	})
}

// anInput returns the tool_use input rep sends, compacted; when rep is
// Malformed, an object loses the second half of its members.
func anInput(rep Reply) (json.RawMessage, error) {
	args := arguments(rep)
	var buf bytes.Buffer
	if err := json.Compact(&buf, args); err != nil {
		return nil, fmt.Errorf("the rule's arguments are not valid JSON, which the Anthropic protocol cannot send as a tool_use input (script Body for a body that is not JSON): %v", err)
	}
	if !rep.Malformed {
		return buf.Bytes(), nil
	}
	members, ok := objectMembers(buf.Bytes())
	if !ok {
		return json.RawMessage("{}"), nil
	}
	members = members[:len(members)/2]
	var out bytes.Buffer
	out.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			out.WriteByte(',')
		}
		out.Write(m)
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

// objectMembers splits a compact JSON object into its members, `"key":value`
// each, in order; false when data is not an object.
func objectMembers(data []byte) ([][]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var members [][]byte
	for dec.More() {
		start := dec.InputOffset()
		if _, err := dec.Token(); err != nil { // the key
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		m := bytes.TrimLeft(data[start:dec.InputOffset()], ",")
		members = append(members, m)
	}
	return members, true
}
