package anthropic

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
	typ, msg, bodyID := errorBody(body)
	if msg == "" {
		msg = apiwire.FallbackMessage(resp.StatusCode, body)
	}
	if requestID == "" {
		requestID = bodyID
	}
	return &judge.APIError{
		Provider:   "anthropic",
		StatusCode: resp.StatusCode,
		Type:       c.redact(typ),
		Message:    c.redact(msg),
		RetryAfter: apiwire.RetryAfter(resp.Header, c.conn.Now()),
		RequestID:  requestID,
	}
}

// errorBody returns the type, message and request id of an error body:
// Anthropic's {"type": "error", "error": {"type", "message"},
// "request_id"}, or the {"error": {"message", "type", "code"}} of an
// OpenAI-style gateway, whose code stands in for a missing type.
func errorBody(body []byte) (typ, msg, requestID string) {
	var env struct {
		Error     json.RawMessage `json:"error"`
		RequestID string          `json:"request_id"`
	}
	if json.Unmarshal(body, &env) != nil {
		return "", "", ""
	}
	e := bytes.TrimSpace(env.Error)
	if len(e) > 0 && e[0] == '"' {
		var s string
		if json.Unmarshal(e, &s) == nil {
			return "", s, env.RequestID
		}
	}
	if len(e) > 0 && e[0] == '{' {
		var o struct {
			Type    string          `json:"type"`
			Message string          `json:"message"`
			Code    json.RawMessage `json:"code"`
		}
		if json.Unmarshal(e, &o) == nil {
			return apiwire.OrCode(o.Type, o.Code), o.Message, env.RequestID
		}
	}
	return "", "", env.RequestID
}
