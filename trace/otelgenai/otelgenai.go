// Package otelgenai imports OpenTelemetry traces of agents, as OTLP JSON,
// as vouch transcripts: the spans that follow the GenAI semantic
// conventions (gen_ai.* attributes) are read as a session. Tool execution
// spans and the tool calls in the model's messages are the evidence (the
// trace); what the model said is the claim.
//
// The attribute names are those of the conventions as
// go.opentelemetry.io/otel/semconv v1.41.0 defines them (the last version
// of that package that defines the gen_ai attributes), with the older
// forms still emitted by instrumentations: the per-message events of
// semantic conventions 1.28 to 1.36 (gen_ai.user.message,
// gen_ai.assistant.message, gen_ai.tool.message, gen_ai.choice...) and
// the gen_ai.prompt and gen_ai.completion attributes before them.
package otelgenai

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/vouchgate/vouch/trace"
	"github.com/vouchgate/vouch/trace/internal/agentlog"
	"github.com/vouchgate/vouch/trace/internal/session"
)

// MaxBytes bounds a log.
const MaxBytes = 256 << 20

// Format names the format, as a transcript's output.metadata.source gives
// it.
const Format = "otel-genai"

// The attributes read, as semconv names them (GenAIOperationNameKey...),
// with those of the older conventions and error.type.
const (
	AttrOperationName     = "gen_ai.operation.name"
	AttrToolName          = "gen_ai.tool.name"
	AttrToolCallID        = "gen_ai.tool.call.id"
	AttrToolCallArguments = "gen_ai.tool.call.arguments"
	AttrToolCallResult    = "gen_ai.tool.call.result"
	AttrInputMessages     = "gen_ai.input.messages"
	AttrOutputMessages    = "gen_ai.output.messages"
	AttrRequestModel      = "gen_ai.request.model"
	AttrResponseModel     = "gen_ai.response.model"
	AttrAgentName         = "gen_ai.agent.name"
	AttrConversationID    = "gen_ai.conversation.id"
	AttrPrompt            = "gen_ai.prompt"        // before semconv 1.28
	AttrCompletion        = "gen_ai.completion"    // before semconv 1.28
	AttrEventContent      = "gen_ai.event.content" // a per-message event's body, as JSON
	AttrErrorType         = "error.type"
)

// OperationExecuteTool is the gen_ai.operation.name of a tool execution
// span.
const OperationExecuteTool = "execute_tool"

// The span status codes of OTLP.
const (
	statusCodeOK    = 1
	statusCodeError = 2
)

// The OTLP JSON encoding of spans: an ExportTraceServiceRequest.
type (
	otlpDoc struct {
		ResourceSpans []struct {
			ScopeSpans []struct {
				Spans []otlpSpan `json:"spans"`
			} `json:"scopeSpans"`
			// The name before OTLP 0.15.
			InstrumentationLibrarySpans []struct {
				Spans []otlpSpan `json:"spans"`
			} `json:"instrumentationLibrarySpans"`
		} `json:"resourceSpans"`
	}
	otlpSpan struct {
		TraceID           string         `json:"traceId"`
		SpanID            string         `json:"spanId"`
		Name              string         `json:"name"`
		StartTimeUnixNano jsontext.Value `json:"startTimeUnixNano"`
		EndTimeUnixNano   jsontext.Value `json:"endTimeUnixNano"`
		Attributes        []otlpKeyValue `json:"attributes"`
		Events            []struct {
			TimeUnixNano jsontext.Value `json:"timeUnixNano"`
			Name         string         `json:"name"`
			Attributes   []otlpKeyValue `json:"attributes"`
		} `json:"events"`
		Status struct {
			Code    jsontext.Value `json:"code"`
			Message string         `json:"message"`
		} `json:"status"`
	}
	otlpKeyValue struct {
		Key   string    `json:"key"`
		Value otlpValue `json:"value"`
	}
	otlpValue struct {
		StringValue *string        `json:"stringValue"`
		BoolValue   *bool          `json:"boolValue"`
		IntValue    jsontext.Value `json:"intValue"` // a string or a number
		DoubleValue jsontext.Value `json:"doubleValue"`
		BytesValue  *string        `json:"bytesValue"`
		ArrayValue  *struct {
			Values []otlpValue `json:"values"`
		} `json:"arrayValue"`
		KvlistValue *struct {
			Values []otlpKeyValue `json:"values"`
		} `json:"kvlistValue"`
	}
)

// value converts an attribute value to Go: a string, bool, int64, float64,
// []any or map[string]any; nil for an empty value.
func (v *otlpValue) value() any {
	switch {
	case v.StringValue != nil:
		return *v.StringValue
	case v.BoolValue != nil:
		return *v.BoolValue
	case len(v.IntValue) > 0:
		if n, err := strconv.ParseInt(strings.Trim(string(v.IntValue), `"`), 10, 64); err == nil {
			return n
		}
	case len(v.DoubleValue) > 0:
		if f, err := strconv.ParseFloat(strings.Trim(string(v.DoubleValue), `"`), 64); err == nil {
			return f
		}
	case v.BytesValue != nil:
		return *v.BytesValue
	case v.ArrayValue != nil:
		out := make([]any, 0, len(v.ArrayValue.Values))
		for i := range v.ArrayValue.Values {
			out = append(out, v.ArrayValue.Values[i].value())
		}
		return out
	case v.KvlistValue != nil:
		return attrMap(v.KvlistValue.Values)
	}
	return nil
}

func attrMap(kvs []otlpKeyValue) map[string]any {
	m := make(map[string]any, len(kvs))
	for i := range kvs {
		m[kvs[i].Key] = kvs[i].Value.value()
	}
	return m
}

// span is what Read keeps of a span.
type span struct {
	start, end uint64
	seq        int
	name       string
	traceID    string
	attrs      map[string]any
	events     []event
	status     int
	statusMsg  string
}

type event struct {
	name  string
	attrs map[string]any
}

// Read reads OpenTelemetry spans as OTLP JSON (an
// ExportTraceServiceRequest: resourceSpans, scopeSpans, spans), one
// document, or several one a line as the OpenTelemetry Collector's file
// exporter writes them. The spans of every trace in it are read as one
// session, in order of start time (spans that start together in the
// order of the log).
//
// Spans without any gen_ai attribute or event are skipped. A tool
// execution span (gen_ai.operation.name execute_tool, or a span with a
// gen_ai.tool.name) is a trace entry: gen_ai.tool.call.id is its id,
// gen_ai.tool.name its tool, gen_ai.tool.call.arguments its input (an
// object, or a JSON object in a string, read leniently: arguments that are
// not a JSON object are kept whole as the input's "arguments" member),
// gen_ai.tool.call.result its output, the span's start its timestamp; a span
// whose status is Error, or that has an error.type, is an error, its
// status message the output when it has no result.
//
// The messages the model was given and returned, on gen_ai.input.messages
// and gen_ai.output.messages (structured or as a JSON string; with parts,
// or in the older role and content form with tool_calls), on the per-message
// events (gen_ai.user.message, gen_ai.assistant.message, gen_ai.tool.message,
// gen_ai.choice; their body as attributes or a JSON gen_ai.event.content)
// or on gen_ai.prompt and gen_ai.completion, hold the rest: a tool call part
// the model returned is an entry too (one with the id of a tool span is the
// same call; a tool span without an id executes the oldest call of its
// tool, with its arguments when both have them, that has no result yet),
// and a tool call response part is the output of the call it
// names. The messages a span was given are read at its start, those it
// returned at its end (a call read there has the span's end as its
// timestamp, until a tool span gives it its own).
//
// The claimed output is what the model said: the summary is the text it
// returned after its last tool call (the same text returned again, by the
// agent span around it, counts once). The goal is the text of the user
// messages, each once, joined by blank lines. The executor is the
// gen_ai.response.model of the last span that has one (else the last
// gen_ai.request.model); the metadata holds the
// agent's name (gen_ai.agent.name), the conversation id and the trace id.
// Commands and commandResults come from the calls, with the exit status
// the output states, else 0 for a span whose status is Ok.
//
// A log that is not valid JSON, truncated included, or whose spans have
// members of the wrong type, is an error naming the line and the record.
// A log without any gen_ai span gives [trace.ErrNoMessages].
func Read(r io.Reader) (*trace.Transcript, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("trace: %s: %w", Format, err)
	}
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("trace: %s: log over %d bytes", Format, MaxBytes)
	}
	recs, err := session.Records(data)
	if err != nil {
		return nil, fmt.Errorf("trace: %s: %w", Format, err)
	}
	var spans []span
	docs := 0
	for _, rec := range recs {
		if rec.Value.Kind() != '{' {
			return nil, fmt.Errorf("trace: %s: line %d: record %d: want an OTLP JSON object with resourceSpans", Format, rec.Line, rec.Index)
		}
		var doc otlpDoc
		if err := session.Decode(rec.Value, &doc); err != nil {
			return nil, fmt.Errorf("trace: %s: line %d: record %d: %w", Format, rec.Line, rec.Index, err)
		}
		if len(doc.ResourceSpans) > 0 {
			docs++
		}
		for _, rs := range doc.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				spans = appendSpans(spans, ss.Spans)
			}
			for _, ss := range rs.InstrumentationLibrarySpans {
				spans = appendSpans(spans, ss.Spans)
			}
		}
	}
	if docs == 0 && len(recs) > 0 {
		return nil, fmt.Errorf("trace: %s: no resourceSpans: %w", Format, trace.ErrNoMessages)
	}
	if len(spans) == 0 {
		return nil, fmt.Errorf("trace: %s: no gen_ai spans: %w", Format, trace.ErrNoMessages)
	}
	slices.SortStableFunc(spans, func(a, b span) int {
		switch {
		case a.start < b.start:
			return -1
		case a.start > b.start:
			return 1
		}
		return a.seq - b.seq
	})
	rd := &reader{}
	return rd.read(spans)
}

// appendSpans appends the spans that carry gen_ai attributes or events.
func appendSpans(out []span, in []otlpSpan) []span {
	for i := range in {
		s := &in[i]
		genai := false
		for _, kv := range s.Attributes {
			genai = genai || strings.HasPrefix(kv.Key, "gen_ai.")
		}
		for _, e := range s.Events {
			genai = genai || strings.HasPrefix(e.Name, "gen_ai.")
		}
		if !genai {
			continue
		}
		sp := span{start: unixNano(s.StartTimeUnixNano), end: unixNano(s.EndTimeUnixNano), seq: len(out),
			name: s.Name, traceID: s.TraceID, attrs: attrMap(s.Attributes), statusMsg: s.Status.Message}
		sp.status = statusCode(s.Status.Code)
		for _, e := range s.Events {
			sp.events = append(sp.events, event{name: e.Name, attrs: attrMap(e.Attributes)})
		}
		out = append(out, sp)
	}
	return out
}

// unixNano reads a time in nanoseconds since the epoch: a string (as
// OTLP JSON encodes 64-bit integers) or a number; 0 when it is neither.
func unixNano(v jsontext.Value) uint64 {
	n, err := strconv.ParseUint(strings.Trim(string(v), `"`), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// statusCode reads a span status code: a number, or its name.
func statusCode(v jsontext.Value) int {
	s := strings.Trim(string(v), `"`)
	switch s {
	case "STATUS_CODE_ERROR", "ERROR", "Error":
		return statusCodeError
	case "STATUS_CODE_OK", "OK", "Ok":
		return statusCodeOK
	}
	n, _ := strconv.Atoi(s)
	return n
}

// timestamp formats a time for a trace entry.
func timestamp(ns uint64) string {
	if ns == 0 || ns > 1<<62 {
		return ""
	}
	return time.Unix(0, int64(ns)).UTC().Format(time.RFC3339Nano)
}

// step is one thing a span says happened, at a time.
type step struct {
	at  uint64
	seq int
	run func() error
}

// reader holds the state of one Read.
type reader struct {
	b     session.Builder
	steps []step
	meta  map[string]any
	// The last models the spans name, in order of start: a response's
	// model is the one that ran, a request's the one asked for.
	responseModel, requestModel string
}

func (r *reader) at(t uint64, f func() error) {
	r.steps = append(r.steps, step{at: t, seq: len(r.steps), run: f})
}

func (r *reader) read(spans []span) (*trace.Transcript, error) {
	r.meta = map[string]any{}
	for i := range spans {
		r.span(&spans[i])
	}
	slices.SortStableFunc(r.steps, func(a, b step) int {
		switch {
		case a.at < b.at:
			return -1
		case a.at > b.at:
			return 1
		}
		return a.seq - b.seq
	})
	for _, s := range r.steps {
		if err := s.run(); err != nil {
			return nil, fmt.Errorf("trace: %s: %w", Format, err)
		}
	}
	r.b.Model(r.requestModel)
	r.b.Model(r.responseModel)
	return r.b.Finish(Format, r.meta), nil
}

// str returns a string attribute.
func str(attrs map[string]any, key string) string {
	s, _ := attrs[key].(string)
	return s
}

// span turns one span into steps.
func (r *reader) span(s *span) {
	where := fmt.Sprintf("span %q", s.name)
	if s.traceID != "" && r.meta["traceId"] == nil {
		r.meta["traceId"] = s.traceID
	}
	if name := str(s.attrs, AttrAgentName); name != "" {
		r.meta["agent"] = name
	}
	if id := str(s.attrs, AttrConversationID); id != "" {
		r.meta["conversationId"] = id
	}
	op := str(s.attrs, AttrOperationName)
	if m := str(s.attrs, AttrResponseModel); m != "" {
		r.responseModel = m
	} else if m := str(s.attrs, AttrRequestModel); m != "" {
		r.requestModel = m
	}
	end := s.end
	if end < s.start {
		end = s.start
	}
	input := func(v any) {
		r.at(s.start, func() error { return r.messages(where, v, false, "") })
	}
	output := func(v any) {
		r.at(end, func() error { return r.messages(where, v, true, timestamp(end)) })
	}
	if v, ok := s.attrs[AttrInputMessages]; ok {
		input(v)
	} else if v, ok := s.attrs[AttrPrompt]; ok {
		input(v)
	}
	if v, ok := s.attrs[AttrOutputMessages]; ok {
		output(v)
	} else if v, ok := s.attrs[AttrCompletion]; ok {
		output(v)
	}
	for _, e := range s.events {
		switch e.name {
		case "gen_ai.client.inference.operation.details":
			if v, ok := e.attrs[AttrInputMessages]; ok {
				input(v)
			}
			if v, ok := e.attrs[AttrOutputMessages]; ok {
				output(v)
			}
		case "gen_ai.content.prompt":
			if v, ok := e.attrs[AttrPrompt]; ok {
				input(v)
			}
		case "gen_ai.content.completion":
			if v, ok := e.attrs[AttrCompletion]; ok {
				output(v)
			}
		case "gen_ai.system.message", "gen_ai.user.message", "gen_ai.assistant.message", "gen_ai.tool.message":
			role := strings.TrimSuffix(strings.TrimPrefix(e.name, "gen_ai."), ".message")
			input([]any{eventBody(e.attrs, role)})
		case "gen_ai.choice":
			body := eventBody(e.attrs, "assistant")
			if m, ok := body["message"].(map[string]any); ok {
				if m["role"] == nil {
					m["role"] = "assistant"
				}
				body = m
			}
			output([]any{body})
		}
	}
	if op == OperationExecuteTool || (op == "" && str(s.attrs, AttrToolName) != "") {
		r.at(s.start, func() error { r.tool(s); return nil })
	}
}

// eventBody returns the body of a per-message event recorded on a span:
// the JSON of its gen_ai.event.content attribute, else its attributes.
func eventBody(attrs map[string]any, role string) map[string]any {
	body := attrs
	if c, ok := attrs[AttrEventContent].(string); ok {
		var m map[string]any
		if json.Unmarshal([]byte(c), &m, agentlog.DecodeOptions) == nil {
			body = m
		}
	}
	if _, ok := body["role"].(string); !ok {
		body["role"] = role
	}
	return body
}

// tool reads a tool execution span.
func (r *reader) tool(s *span) {
	name := str(s.attrs, AttrToolName)
	if name == "" {
		name = strings.TrimPrefix(s.name, OperationExecuteTool+" ")
	}
	id := str(s.attrs, AttrToolCallID)
	var in map[string]any
	switch a := s.attrs[AttrToolCallArguments].(type) {
	case string:
		in = session.ArgumentsText(a)
	case map[string]any:
		in = a
	case nil:
	default:
		b, _ := json.Marshal(a)
		in = map[string]any{session.RawKey: string(b)}
	}
	ts := timestamp(s.start)
	var k int
	fresh := true
	if id == "" {
		// A span without the call's id executes the oldest call of the
		// tool (with the same arguments, when both have them) that has
		// no result yet: the call a chat span's output asked for.
		k, fresh = r.b.PendingMatch(name, in)
		fresh = !fresh
	}
	if fresh {
		k, fresh = r.b.Call(id, name, in, ts)
	}
	if !fresh {
		r.b.Fill(k, in, "")
		r.b.Stamp(k, ts)
	}
	f := session.Unflagged
	switch {
	case s.status == statusCodeError || str(s.attrs, AttrErrorType) != "":
		f = session.Failed
	case s.status == statusCodeOK:
		f = session.Succeeded
	}
	var out []byte
	switch v := s.attrs[AttrToolCallResult].(type) {
	case string:
		out = agentlog.Quote(v)
	case nil:
		switch {
		case f == session.Failed && s.statusMsg != "":
			out = agentlog.Quote(s.statusMsg)
		case f == session.Failed:
			out = agentlog.Quote(str(s.attrs, AttrErrorType))
		case f == session.Unflagged:
			return // no result recorded
		}
	default:
		out, _ = json.Marshal(v, json.Deterministic(true))
	}
	r.b.ResultAt(k, out, f)
}

// genaiMessage is a message as the GenAI conventions record it: a role
// and parts, or the older OpenAI-like role, content and tool_calls.
type genaiMessage struct {
	Role       string         `json:"role"`
	Parts      []genaiPart    `json:"parts"`
	Content    jsontext.Value `json:"content"`
	ToolCalls  jsontext.Value `json:"tool_calls"`
	ToolCallID string         `json:"tool_call_id"`
	ID         string         `json:"id"` // a tool message event's call id
}

type genaiPart struct {
	Type      string         `json:"type"`
	Content   jsontext.Value `json:"content"`
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Arguments jsontext.Value `json:"arguments"`
	Response  jsontext.Value `json:"response"`
	Result    jsontext.Value `json:"result"`
}

// messages reads a list of messages a span was given (output false) or
// returned (output true): structured, or a JSON string.
func (r *reader) messages(where string, v any, output bool, ts string) error {
	var raw []byte
	switch v := v.(type) {
	case string:
		raw = []byte(v)
	case nil:
		return nil
	default:
		var err error
		if raw, err = json.Marshal(v); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
	}
	raw = []byte(strings.TrimSpace(string(raw)))
	if len(raw) == 0 || raw[0] != '[' {
		if len(raw) > 0 && raw[0] == '{' {
			raw = append(append([]byte{'['}, raw...), ']')
		} else {
			// Plain text: what the prompt or completion said.
			text := string(raw)
			if output {
				r.b.Say(text)
			} else {
				r.b.Prompt(text)
			}
			return nil
		}
	}
	var msgs []genaiMessage
	if err := session.Decode(raw, &msgs); err != nil {
		return fmt.Errorf("%s: messages: %w", where, err)
	}
	for i := range msgs {
		if err := r.message(&msgs[i], output, ts); err != nil {
			return fmt.Errorf("%s: message %d: %w", where, i+1, err)
		}
	}
	return nil
}

func (r *reader) message(m *genaiMessage, output bool, ts string) error {
	b := &r.b
	assistant := m.Role == "assistant" || m.Role == "model" || m.Role == "ai"
	var text []string
	// Text the model said before its calls is not its report.
	said := func() {
		if output && assistant {
			b.Say(strings.Join(text, "\n"))
		}
		text = nil
	}
	call := func(id, name string, arguments jsontext.Value) {
		said()
		args := session.Arguments(arguments)
		if k, fresh := b.Call(id, name, args, ts); !fresh {
			b.Fill(k, args, ts)
		}
	}
	for _, p := range m.Parts {
		switch p.Type {
		case "text":
			s, err := session.Text(p.Content, false)
			if err != nil {
				return err
			}
			text = append(text, s)
		case "tool_call":
			call(p.ID, p.Name, p.Arguments)
		case "tool_call_response":
			res := p.Response
			if res.Kind() == 0 {
				res = p.Result
			}
			b.Result(p.ID, resultJSON(res), session.Unflagged)
		}
	}
	if len(m.Parts) == 0 {
		s, err := session.Text(m.Content, m.Role == "tool")
		if err != nil {
			return err
		}
		text = append(text, s)
		if m.ToolCalls.Kind() == '[' {
			var calls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string         `json:"name"`
					Arguments jsontext.Value `json:"arguments"`
				} `json:"function"`
			}
			if err := session.Decode(m.ToolCalls, &calls); err != nil {
				return fmt.Errorf("tool_calls: %w", err)
			}
			for _, c := range calls {
				call(c.ID, c.Function.Name, c.Function.Arguments)
			}
		}
	}
	joined := strings.Join(text, "\n")
	switch {
	case m.Role == "user" || m.Role == "human":
		if !output {
			b.Prompt(joined)
		}
	case assistant:
		said()
	case m.Role == "tool" && len(m.Parts) == 0:
		id := m.ToolCallID
		if id == "" {
			id = m.ID
		}
		b.Result(id, agentlog.Quote(joined), session.Unflagged)
	}
	return nil
}

// resultJSON returns a tool call response as an output: a string as text,
// other JSON as it is.
func resultJSON(v jsontext.Value) []byte {
	switch v.Kind() {
	case 0, 'n':
		return nil
	case '"':
		var s string
		if session.Decode(v, &s) == nil {
			return agentlog.Quote(s)
		}
	}
	if !v.IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) {
		return nil
	}
	return append([]byte(nil), v...)
}
