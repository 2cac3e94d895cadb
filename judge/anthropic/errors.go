package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vouchgate/vouch/judge"
)

// redacted replaces the API key wherever a message would show it.
const redacted = "[redacted]"

// redact cuts the client's key out of s.
func (c *Client) redact(s string) string {
	if c.key == "" {
		return s
	}
	return strings.ReplaceAll(s, c.key, redacted)
}

// wrap returns err prefixed with "anthropic: " and what was being done, with
// the key cut out of its message; errors.Is and errors.As still see err.
func (c *Client) wrap(doing string, err error) error {
	prefix := "anthropic: "
	if doing != "" {
		prefix += doing + ": "
	}
	return &wrapped{msg: prefix + c.redact(err.Error()), err: err}
}

// errorf formats an error prefixed with "anthropic: ", with the key cut out of
// the whole message (a body or a field the server sent may hold it).
func (c *Client) errorf(format string, args ...any) error {
	return errors.New(c.redact("anthropic: " + fmt.Sprintf(format, args...)))
}

// wrapped is an error with a message of its own over the error it wraps.
type wrapped struct {
	msg string
	err error
}

func (e *wrapped) Error() string { return e.msg }
func (e *wrapped) Unwrap() error { return e.err }

// apiError reads an error response as a [judge.APIError].
func (c *Client) apiError(resp *http.Response, body []byte, requestID string) *judge.APIError {
	typ, msg, bodyID := errorBody(body)
	if msg == "" {
		msg = fallbackMessage(resp.StatusCode, body)
	}
	if requestID == "" {
		requestID = bodyID
	}
	return &judge.APIError{
		Provider:   "anthropic",
		StatusCode: resp.StatusCode,
		Type:       c.redact(typ),
		Message:    c.redact(msg),
		RetryAfter: retryAfter(resp.Header, c.now()),
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
			return orCode(o.Type, o.Code), o.Message, env.RequestID
		}
	}
	return "", "", env.RequestID
}

// orCode returns typ, or when it is empty the code if the code is a
// string.
func orCode(typ string, code json.RawMessage) string {
	if typ != "" {
		return typ
	}
	var s string
	if json.Unmarshal(code, &s) == nil {
		return s
	}
	return ""
}

// fallbackMessage is an error's message when its body gives none: the
// status text, followed by the start of the body when the body is not
// JSON.
func fallbackMessage(status int, body []byte) string {
	msg := http.StatusText(status)
	if msg == "" {
		msg = "HTTP " + strconv.Itoa(status)
	}
	if b := bytes.TrimSpace(body); len(b) > 0 && !json.Valid(b) {
		msg += ": " + snippet(b)
	}
	return msg
}

// snippet returns the start of a body on one line, for an error message.
func snippet(b []byte) string {
	const max = 200
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) <= max {
		return strconv.Quote(s)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "..."
}

// retryAfter returns how long a response asks to wait: retry-after-ms in
// milliseconds, else Retry-After in seconds or as an HTTP date measured
// against now; 0 when neither says.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil {
			return duration(ms, float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		return duration(s, float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// duration returns n units, 0 for a negative or not-a-number n, and the
// longest duration rather than an overflow.
func duration(n, unit float64) time.Duration {
	d := n * unit
	switch {
	case !(d > 0):
		return 0
	case d >= math.MaxInt64:
		return math.MaxInt64
	}
	return time.Duration(d)
}
