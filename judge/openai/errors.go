package openai

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/vouchgate/vouch/judge"
	"github.com/vouchgate/vouch/judge/internal/apiwire"
)

// redactor keeps the client's key out of its errors.
func (c *Client) redactor() apiwire.Redactor { return c.conn.Redactor() }

func (c *Client) redact(s string) string { return c.redactor().Redact(s) }

func (c *Client) wrap(doing string, err error) error { return c.redactor().Wrap(doing, err) }

func (c *Client) errorf(format string, args ...any) error {
	return c.redactor().Errorf(format, args...)
}

// apiError reads an error response as a [judge.APIError].
func (c *Client) apiError(resp *http.Response, body []byte, requestID string) *judge.APIError {
	typ, msg := errorBody(body)
	if msg == "" {
		msg = apiwire.FallbackMessage(resp.StatusCode, body)
	}
	return &judge.APIError{
		Provider:   "openai",
		StatusCode: resp.StatusCode,
		Type:       c.redact(typ),
		Message:    c.redact(msg),
		RetryAfter: apiwire.RetryAfter(resp.Header, c.conn.Now()),
		RequestID:  requestID,
	}
}

// errorBody returns the type and message of an error body. It reads
// OpenAI's {"error": {"message", "type", "code"}}, the {"error": "..."}
// of Ollama and the top-level {"message", "type", "code"} of vLLM; the
// code stands in for a missing type.
func errorBody(body []byte) (typ, msg string) {
	var env struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	if json.Unmarshal(body, &env) != nil {
		return "", ""
	}
	e := bytes.TrimSpace(env.Error)
	if len(e) > 0 && e[0] == '"' {
		var s string
		if json.Unmarshal(e, &s) == nil && s != "" {
			return "", s
		}
	}
	if len(e) > 0 && e[0] == '{' {
		var o struct {
			Message string          `json:"message"`
			Type    string          `json:"type"`
			Code    json.RawMessage `json:"code"`
		}
		if json.Unmarshal(e, &o) == nil && (o.Message != "" || o.Type != "") {
			return apiwire.OrCode(o.Type, o.Code), o.Message
		}
	}
	return apiwire.OrCode(env.Type, env.Code), env.Message
}
