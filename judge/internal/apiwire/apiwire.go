// Package apiwire holds what the model API clients share: reading error
// responses (a status text, a body's start, Retry-After), keeping the API
// key out of every message, and encoding and reading bodies.
package apiwire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Redacted replaces the API key wherever a message would show it.
const Redacted = "[redacted]"

// Redactor cuts one key out of messages.
type Redactor struct {
	// Prefix starts every error's message ("openai: ").
	Prefix string
	// Key is the key to cut out; empty cuts nothing.
	Key string
}

// Redact cuts the key out of s.
func (r Redactor) Redact(s string) string {
	if r.Key == "" {
		return s
	}
	return strings.ReplaceAll(s, r.Key, Redacted)
}

// Wrap returns err prefixed with the prefix and what was being done, with
// the key cut out of its message; errors.Is and errors.As still see err.
func (r Redactor) Wrap(doing string, err error) error {
	prefix := r.Prefix
	if doing != "" {
		prefix += doing + ": "
	}
	return &wrapped{msg: prefix + r.Redact(err.Error()), err: err}
}

// Errorf formats an error with the prefix, the key cut out of the whole
// message (a body or a field the server sent may hold it).
func (r Redactor) Errorf(format string, args ...any) error {
	return &wrapped{msg: r.Redact(r.Prefix + fmt.Sprintf(format, args...))}
}

// wrapped is an error with a message of its own over the error it wraps.
type wrapped struct {
	msg string
	err error
}

func (e *wrapped) Error() string { return e.msg }
func (e *wrapped) Unwrap() error { return e.err }

// OrCode returns typ, or when it is empty the code if the code is a
// string.
func OrCode(typ string, code json.RawMessage) string {
	if typ != "" {
		return typ
	}
	var s string
	if json.Unmarshal(code, &s) == nil {
		return s
	}
	return ""
}

// FallbackMessage is an error's message when its body gives none: the
// status text, followed by the start of the body when the body is not
// JSON.
func FallbackMessage(status int, body []byte) string {
	msg := http.StatusText(status)
	if msg == "" {
		msg = "HTTP " + strconv.Itoa(status)
	}
	if b := bytes.TrimSpace(body); len(b) > 0 && !json.Valid(b) {
		msg += ": " + Snippet(b)
	}
	return msg
}

// Snippet returns the start of a body on one line, for an error message.
func Snippet(b []byte) string {
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

// RetryAfter returns how long a response asks to wait: retry-after-ms in
// milliseconds, else Retry-After in seconds or as an HTTP date measured
// against now; 0 when neither says.
func RetryAfter(h http.Header, now time.Time) time.Duration {
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

// Marshal encodes a request body as JSON without escaping <, > and &, so
// that a prompt's tags reach the wire, and a log of it, as written.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// ReadBody reads at most limit bytes of r.
func ReadBody(r io.Reader, limit int) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return data, err
	}
	if len(data) > limit {
		return data[:limit], fmt.Errorf("response body larger than %d KiB", limit>>10)
	}
	return data, nil
}

// Doer sends an HTTP request and returns its response; *http.Client is
// one.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// Conn is what a model API client holds of its endpoint: its name, base
// URL, key, sender, extra headers and clock. Its String, GoString and
// Format name the endpoint and never the key, whatever the verb.
type Conn struct {
	// Name is the provider's name ("openai"): it starts String and every
	// error's message.
	Name    string
	BaseURL string
	Key     string
	Doer    Doer
	// Headers are set on every request after the client's own.
	Headers map[string]string
	// Now is the clock a Retry-After HTTP date is measured against.
	Now func() time.Time
}

// NewConn makes a client's Conn from its options: the base URL without
// a trailing slash (defaultBaseURL when empty), doer (defaultDoer's when
// nil), a copy of headers, and now (time.Now when nil).
func NewConn(name, defaultBaseURL, baseURL, key string, doer Doer, headers map[string]string, now func() time.Time, defaultDoer func() Doer) Conn {
	c := Conn{Name: name, BaseURL: strings.TrimRight(baseURL, "/"), Key: key, Doer: doer, Now: now}
	if c.BaseURL == "" {
		c.BaseURL = defaultBaseURL
	}
	if c.Doer == nil {
		c.Doer = defaultDoer()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if len(headers) > 0 {
		c.Headers = make(map[string]string, len(headers))
		for k, v := range headers {
			c.Headers[k] = v
		}
	}
	return c
}

// String describes the connection by its endpoint, never its key.
func (c *Conn) String() string { return c.Name + "(" + c.BaseURL + ")" }

// GoString is String, so that %#v does not print the key either.
func (c *Conn) GoString() string { return c.String() }

// Format prints String for every verb, so that no verb (%d, %x, %+v...)
// reaches the key.
func (c *Conn) Format(f fmt.State, verb rune) { io.WriteString(f, c.String()) }

// Redactor returns the connection's redactor: its name as the prefix of
// messages, its key cut out of them.
func (c *Conn) Redactor() Redactor { return Redactor{Prefix: c.Name + ": ", Key: c.Key} }

// Send sets the key header (when there is a key: name and value made by
// auth) and the extra headers on req, and sends it.
func (c *Conn) Send(req *http.Request, auth func(key string) (name, value string)) (*http.Response, error) {
	if c.Key != "" {
		k, v := auth(c.Key)
		req.Header.Set(k, v)
	}
	for k, v := range c.Headers {
		req.Header.Set(k, v)
	}
	return c.Doer.Do(req)
}
