// Package fake is a fake language-model server for tests and
// demonstrations. It speaks both wire protocols the judge uses, OpenAI's
// Chat Completions (POST /v1/chat/completions) and Anthropic's Messages
// (POST /v1/messages), closely enough that the real clients in
// judge/openai and judge/anthropic cannot tell it from the APIs: the same
// request validation that matters to them, the same reply and error
// shapes, the same headers. Point an OpenAI client at [Server.URL]+"/v1"
// and an Anthropic client at [Server.URL].
//
// What it answers is scripted by [Rule]s, tried in order: the first
// unspent rule that matches a request gives the [Reply]. A reply can be a
// tool call with given arguments, or any fault the judge must survive: an
// error status (429 with Retry-After, 500, 503, Anthropic's 529), a
// latency beyond the caller's deadline or a request that hangs until the
// caller gives up, arguments cut off mid-JSON, an answer stopped at
// max_tokens, a refusal, prose instead of a tool call, arguments out of
// their schema's range (scripted as they are), or a raw body that is not
// JSON at all. A request no rule matches gets the [WithResponder]
// responder's reply, by default a 500 that says no rule matched.
//
// Every request received is recorded ([Handler.Requests], [Handler.Count])
// so that a test can check what the client sent and how many calls it
// made. Nothing waits on the wall clock unless a reply asks for latency,
// and [WithSleep] replaces even that wait.
//
// [NewServer] serves on a loopback port for tests; [NewHandler] is the
// [http.Handler] itself, for a command to serve on an address of its
// choosing.
package fake

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/vouchgate/vouch/internal/wait"
	"github.com/vouchgate/vouch/judge"
)

// The providers a [Rule] or a [Request] names.
const (
	OpenAI    = "openai"
	Anthropic = "anthropic"
)

// The paths the fake serves.
const (
	OpenAIPath    = "/v1/chat/completions"
	AnthropicPath = "/v1/messages"
)

// maxRequest bounds a request body.
const maxRequest = 32 << 20

// Rule answers the requests it matches with its Reply. Every condition
// given must hold; an empty one holds for every request.
type Rule struct {
	// Provider is "openai", "anthropic", or "" for either.
	Provider string
	// Model is the model the request must name, or "" for any.
	Model string
	// Contains is a substring the request's prompt text must contain:
	// the system prompt and every message's content, joined by newlines.
	Contains string
	// Pattern is a regular expression (package regexp's syntax) the
	// prompt text must match. It is compiled once, when the rule is set.
	Pattern string
	// Times is how many requests the rule answers before it is spent; 0
	// means every request. "Fail twice with 503, then answer" is two
	// rules: {Times: 2, Reply: {Status: 503}} then the answer.
	Times int
	// Reply is the answer.
	Reply Reply
}

// Reply is what the fake answers. Its zero value is a tool call with the
// arguments {}.
type Reply struct {
	// Arguments are the tool call's arguments. The OpenAI protocol sends
	// them as they are, in function.arguments (or as the message content
	// in json_schema mode), so they may be invalid JSON; the Anthropic
	// protocol sends them as the tool_use block's input, compacted, so
	// they must be valid JSON (a 500 says so otherwise). Empty means {}.
	Arguments json.RawMessage
	// Text is prose the model writes: alongside the tool call, or instead
	// of it with NoToolCall, or as the whole answer when the request
	// offers no tool.
	Text string
	// Stop replaces the stop reason the reply would have. The judge's
	// names (judge.StopTool "tool", StopEnd "end", StopMaxTokens
	// "max_tokens", StopRefusal "refusal") are translated to the
	// provider's ("tool_calls"/"tool_use", "stop"/"end_turn",
	// "length"/"max_tokens", "content_filter"/"refusal"); any other value
	// is sent as it is.
	Stop string
	// Status, when 400 or more, makes the reply an error with that status
	// in the provider's error shape (400, 401, 429, 500, 503, 529...).
	// 0 means 200.
	Status int
	// ErrorType is an error's type ("rate_limit_error"); empty means the
	// provider's usual type for the status.
	ErrorType string
	// ErrorMessage is an error's message; empty means a message naming
	// the status.
	ErrorMessage string
	// RetryAfter, when set, is sent as the Retry-After header: seconds
	// ("2") or an HTTP date. (Send retry-after-ms through Headers.)
	RetryAfter string
	// Headers are more response headers to send; they replace the fake's
	// own (the request id) when they name the same one.
	Headers map[string]string
	// Body, when set, is sent as the whole response body, as it is, with
	// Status (200 when 0) and Content-Type application/json unless Headers
	// give another: for a body that is not JSON, or any shape the other
	// fields cannot make.
	Body string
	// Latency is how long to wait before answering. The wait ends early,
	// with no answer, when the client goes away.
	Latency time.Duration
	// Malformed cuts the arguments off: OpenAI's arguments string is cut
	// in the middle, mid-JSON; Anthropic's input object loses its second
	// half of members (the API never sends invalid JSON inside its own
	// JSON). Add Stop "max_tokens" for an answer cut off at the token
	// limit.
	Malformed bool
	// NoToolCall answers in prose (Text, or a default sentence) without
	// calling the tool, ending the turn normally.
	NoToolCall bool
	// Refusal, when set, makes the model refuse with this explanation:
	// Anthropic's stop_reason "refusal" with the text, OpenAI's
	// message.refusal. No tool is called.
	Refusal string
	// InputTokens and OutputTokens, when positive, replace the usage the
	// fake computes: a quarter of the prompt text's bytes in, a quarter
	// of the written bytes (arguments, text, refusal) out, rounded up.
	InputTokens, OutputTokens int
	// Hang makes the fake never answer: it waits until the client goes
	// away (the request's context is done) or the fake is closed.
	Hang bool
}

// Request is a request as the fake received it, for a responder to answer
// and a test to inspect.
type Request struct {
	// Provider is the protocol the request spoke: "openai" or
	// "anthropic".
	Provider string
	// Model is the model the request named.
	Model string
	// System is the system prompt (OpenAI's system and developer
	// messages, joined by newlines).
	System string
	// Messages are the conversation's other messages, their content as
	// text.
	Messages []judge.Message
	// Tool is the tool offered: the function tool_choice names (else the
	// first tool), OpenAI's response_format json_schema, or Anthropic's
	// tool; zero when none.
	Tool judge.Tool
	// Structured is how the request asks for a structured answer:
	// judge.StructuredTool, judge.StructuredSchema (OpenAI's
	// response_format json_schema), or "" when it offers no tool.
	Structured string
	// MaxTokens is the request's max_tokens (OpenAI's
	// max_completion_tokens too), 0 when absent.
	MaxTokens int
	// Temperature is the request's temperature, 0 when absent.
	Temperature float64
	// Header is the request's HTTP header.
	Header http.Header
	// Body is the request's body as received.
	Body []byte
}

// prompt returns the text rules match and input tokens are counted on.
func (r *Request) prompt() string {
	parts := make([]string, 0, len(r.Messages)+1)
	if r.System != "" {
		parts = append(parts, r.System)
	}
	for _, m := range r.Messages {
		parts = append(parts, m.Content)
	}
	return strings.Join(parts, "\n")
}

// clone returns a copy of r that shares nothing with it.
func (r Request) clone() Request {
	r.Messages = slices.Clone(r.Messages)
	r.Tool.Schema = slices.Clone(r.Tool.Schema)
	r.Header = r.Header.Clone()
	r.Body = slices.Clone(r.Body)
	return r
}

// Option configures a [Handler].
type Option func(*Handler)

// WithRules sets the rules the handler starts with, as [Handler.Script]
// does.
func WithRules(rules ...Rule) Option {
	return func(h *Handler) { h.rules = compile(rules) }
}

// WithResponder sets what answers a request no rule matches. The default
// answers 500, with an error message saying that no rule matched, so that
// a test that forgot a rule fails loudly. f is called with a copy of the
// request, and may be called concurrently.
func WithResponder(f func(*Request) Reply) Option {
	return func(h *Handler) { h.responder = f }
}

// WithSleep replaces the wait for a reply's Latency: f is called with the
// request's context and the latency, and the reply is sent when f
// returns, unless the context is done by then (the client went away, or
// the handler was closed). The default waits on a timer, returning early
// when the context is done. A test passes an f that records d and
// returns at once, to check latency without waiting for it.
func WithSleep(f func(ctx context.Context, d time.Duration) error) Option {
	return func(h *Handler) { h.sleep = f }
}

// WithAPIKey makes the handler require key, as "Authorization: Bearer
// KEY" (OpenAI) or "x-api-key: KEY" (Anthropic), answering 401 in the
// provider's error shape otherwise. By default no key is required.
func WithAPIKey(key string) Option {
	return func(h *Handler) { h.apiKey = key }
}

// WithNow sets the clock of OpenAI's "created" timestamp. The default is
// time.Now.
func WithNow(now func() time.Time) Option {
	return func(h *Handler) { h.now = now }
}

// WithObserver sets a function called with every request as soon as it
// is recorded, before it is answered (before any latency or hang): a test
// learns that a request has arrived without polling. It may be called
// concurrently, and must not block for long.
func WithObserver(f func(Request)) Option {
	return func(h *Handler) { h.observer = f }
}

// Handler is the fake server as an [http.Handler]. It is safe for
// concurrent use.
type Handler struct {
	apiKey    string
	responder func(*Request) Reply
	sleep     func(context.Context, time.Duration) error
	now       func() time.Time
	observer  func(Request)

	life context.Context // done once Close is called
	stop context.CancelFunc

	mu       sync.Mutex
	rules    []*rule
	requests []Request
}

// rule is a Rule with its pattern compiled and its uses counted.
type rule struct {
	Rule
	re   *regexp.Regexp
	used int
}

// NewHandler returns a handler configured by opts.
func NewHandler(opts ...Option) *Handler {
	h := &Handler{
		responder: noRule,
		sleep:     wait.For,
		now:       time.Now,
	}
	for _, o := range opts {
		o(h)
	}
	h.life, h.stop = context.WithCancel(context.Background())
	return h
}

// Script replaces the handler's rules with rules, every one unspent. It is
// safe to call while requests are in flight: each request is matched
// against either the old rules or the new. Script panics if a rule's
// Pattern does not compile (LoadScript reports that as an error instead).
func (h *Handler) Script(rules ...Rule) {
	compiled := compile(rules)
	h.mu.Lock()
	h.rules = compiled
	h.mu.Unlock()
}

// compile compiles the rules' patterns, panicking on a bad one.
func compile(rules []Rule) []*rule {
	out := make([]*rule, len(rules))
	for i, r := range rules {
		out[i] = &rule{Rule: r}
		out[i].Reply.Arguments = slices.Clone(r.Reply.Arguments)
		out[i].Reply.Headers = maps.Clone(r.Reply.Headers)
		if r.Pattern != "" {
			re, err := regexp.Compile(r.Pattern)
			if err != nil {
				panic(fmt.Sprintf("fake: rule %d: pattern: %v", i, err))
			}
			out[i].re = re
		}
	}
	return out
}

// Requests returns a copy of every request received so far, in order of
// arrival. Requests to paths other than the two endpoints are not
// recorded.
func (h *Handler) Requests() []Request {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]Request, len(h.requests))
	for i, r := range h.requests {
		out[i] = r.clone()
	}
	return out
}

// Count returns how many requests have been received so far.
func (h *Handler) Count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.requests)
}

// Close makes every request in flight that waits (a Hang or a Latency)
// stop waiting and answer 503, and every later request answer 503 at
// once, so that a server using the handler can shut down.
func (h *Handler) Close() { h.stop() }

// record records req and returns its sequence number, from 1.
func (h *Handler) record(req Request) int {
	h.mu.Lock()
	h.requests = append(h.requests, req.clone())
	n := len(h.requests)
	h.mu.Unlock()
	if h.observer != nil {
		h.observer(req.clone())
	}
	return n
}

// match returns the reply of the first unspent rule that matches req,
// spending one of its uses, or false.
func (h *Handler) match(req *Request) (Reply, bool) {
	prompt := req.prompt()
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.rules {
		if r.Times > 0 && r.used >= r.Times {
			continue
		}
		if r.Provider != "" && r.Provider != req.Provider ||
			r.Model != "" && r.Model != req.Model ||
			r.Contains != "" && !strings.Contains(prompt, r.Contains) ||
			r.re != nil && !r.re.MatchString(prompt) {
			continue
		}
		r.used++
		return r.Reply, true
	}
	return Reply{}, false
}

// noRule is the default responder: a loud 500.
func noRule(req *Request) Reply {
	return Reply{
		Status: http.StatusInternalServerError,
		ErrorMessage: fmt.Sprintf("fake: no rule matched this %s request for model %q: script a Rule or set a Responder",
			req.Provider, req.Model),
	}
}

// protocol is one provider's wire format.
type protocol interface {
	name() string
	// authorized reports whether the request carries key.
	authorized(r *http.Request, key string) (ok bool, msg string)
	// parse fills req from the request body and header, returning a
	// message for a 400 when the request is invalid.
	parse(body []byte, header http.Header, req *Request) (p parsed, bad string)
	// writeError answers with an error status.
	writeError(w http.ResponseWriter, status int, typ, msg string)
	// writeReply answers rep to req successfully.
	writeReply(w http.ResponseWriter, req *Request, p parsed, rep Reply, seq int, now time.Time)
	// requestIDHeader is the response header carrying the request id.
	requestIDHeader() string
}

// parsed is what a protocol learns from a request beyond [Request].
type parsed struct {
	// forced: the request forces a call of a named tool (or any tool).
	forced bool
}

// ServeHTTP answers one request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var p protocol
	switch r.URL.Path {
	case OpenAIPath:
		p = openaiProtocol{}
	case AnthropicPath:
		p = anthropicProtocol{}
	default:
		// A shape both clients read: error.type and error.message.
		writeJSON(w, http.StatusNotFound, map[string]any{
			"type": "error",
			"error": map[string]any{
				"type":    "not_found_error",
				"message": fmt.Sprintf("fake: no endpoint %s %s (want POST %s or POST %s)", r.Method, r.URL.Path, OpenAIPath, AnthropicPath),
			},
		})
		return
	}

	req := Request{Provider: p.name(), Header: r.Header.Clone()}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequest))
	req.Body = body
	status, problem := 0, ""
	var pr parsed
	switch {
	case r.Method != http.MethodPost:
		status, problem = http.StatusMethodNotAllowed, fmt.Sprintf("fake: method %s not allowed: %s takes POST", r.Method, r.URL.Path)
	case err != nil:
		status, problem = http.StatusRequestEntityTooLarge, fmt.Sprintf("fake: reading the request body: %v", err)
	default:
		if ok, msg := p.authorized(r, h.apiKey); !ok {
			status, problem = http.StatusUnauthorized, msg
		} else if pr, problem = p.parse(body, r.Header, &req); problem != "" {
			status = http.StatusBadRequest
		}
	}
	seq := h.record(req)
	w.Header().Set(p.requestIDHeader(), fmt.Sprintf("req_fake_%d", seq))
	if status != 0 {
		p.writeError(w, status, "", problem)
		return
	}
	if h.life.Err() != nil {
		p.writeError(w, http.StatusServiceUnavailable, "", "fake: server closed")
		return
	}

	rep, ok := h.match(&req)
	if !ok {
		cp := req.clone()
		rep = h.responder(&cp)
	}

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	defer context.AfterFunc(h.life, cancel)()
	if rep.Hang {
		<-ctx.Done()
	} else if rep.Latency > 0 {
		_ = h.sleep(ctx, rep.Latency)
	}
	if ctx.Err() != nil {
		if h.life.Err() != nil && r.Context().Err() == nil {
			p.writeError(w, http.StatusServiceUnavailable, "", "fake: server closed")
		}
		// Otherwise the client is gone: nobody to answer.
		return
	}

	for k, v := range rep.Headers {
		w.Header().Set(k, v)
	}
	if rep.RetryAfter != "" {
		w.Header().Set("Retry-After", rep.RetryAfter)
	}
	switch {
	case rep.Body != "":
		status := rep.Status
		if status == 0 {
			status = http.StatusOK
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		io.WriteString(w, rep.Body)
	case rep.Status >= 400:
		p.writeError(w, rep.Status, rep.ErrorType, rep.ErrorMessage)
	default:
		p.writeReply(w, &req, pr, rep, seq, h.now())
	}
}

// writeJSON answers v as JSON with status, without escaping HTML
// characters, as the real APIs do.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

// arguments returns the arguments rep sends, {} when it gives none.
func arguments(rep Reply) []byte {
	if len(rep.Arguments) == 0 {
		return []byte("{}")
	}
	return rep.Arguments
}

// prose is what rep writes when it calls no tool.
func prose(rep Reply) string {
	if rep.Text != "" {
		return rep.Text
	}
	if rep.NoToolCall {
		return "I would rather explain my answer in words than call the tool."
	}
	return string(arguments(rep))
}

// tokens counts n bytes as tokens, four bytes a token, rounded up.
func tokens(n int) int { return (n + 3) / 4 }

// usage returns the usage rep reports for a prompt and an output.
func usage(rep Reply, prompt string, outputBytes int) (in, out int) {
	in, out = tokens(len(prompt)), tokens(outputBytes)
	if rep.InputTokens > 0 {
		in = rep.InputTokens
	}
	if rep.OutputTokens > 0 {
		out = rep.OutputTokens
	}
	return in, out
}

// Server is a [Handler] served on a loopback port.
type Server struct {
	*Handler
	srv *httptest.Server
}

// NewServer starts a handler configured by opts on a loopback port. The
// caller must Close it.
func NewServer(opts ...Option) *Server {
	h := NewHandler(opts...)
	return &Server{Handler: h, srv: httptest.NewServer(h)}
}

// URL returns the server's base URL, "http://127.0.0.1:PORT": an
// Anthropic client's base URL, and with "/v1" an OpenAI client's.
func (s *Server) URL() string { return s.srv.URL }

// Close releases every request that waits, then shuts the server down
// and waits for its requests to finish.
func (s *Server) Close() {
	s.Handler.Close()
	s.srv.Close()
}

// textContent returns the text of a message's content (or of Anthropic's
// system prompt): a string, or the text parts (blocks) of an array, or ""
// when absent or null. Both protocols write content this way.
func textContent(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return "", false
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), true
}
