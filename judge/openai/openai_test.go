package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vouchgate/vouch/judge"
	"github.com/vouchgate/vouch/judge/fake"
	"github.com/vouchgate/vouch/judge/openai"
)

// key is distinctive so that a leak is found wherever it is.
const key = "sk-test-Zq7XkVw3LeakCanary9d2F"

// now is the clients' clock in tests.
var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

const schema = `{"type":"object","properties":{"score":{"type":"integer","minimum":1,"maximum":5},"reason":{"type":"string"}},"required":["score","reason"]}`

// newCall returns the call the tests send.
func newCall() *judge.Call {
	return &judge.Call{
		Model:  "gpt-test",
		System: "You grade agent outputs.",
		Messages: []judge.Message{
			{Role: "user", Content: "Grade these release notes."},
			{Role: "assistant", Content: "Which ones?"},
			{Role: "user", Content: "The <v2> notes & fixes."},
		},
		Tool:        judge.Tool{Name: "verdict", Description: "Record the verdict.", Schema: json.RawMessage(schema)},
		MaxTokens:   300,
		Temperature: 0.25,
	}
}

// promptTokens is the fake's count for newCall's prompt.
var promptTokens = (len("You grade agent outputs.\nGrade these release notes.\nWhich ones?\nThe <v2> notes & fixes.") + 3) / 4

// setup starts a fake that requires key, answering with rules, and a
// client for it.
func setup(t *testing.T, rules ...fake.Rule) (*fake.Server, *openai.Client) {
	t.Helper()
	srv := fake.NewServer(fake.WithAPIKey(key), fake.WithRules(rules...))
	t.Cleanup(srv.Close)
	return srv, openai.New(openai.Options{BaseURL: srv.URL() + "/v1", APIKey: key, Now: func() time.Time { return now }})
}

func TestToolCall(t *testing.T) {
	args := `{"score": 4,  "reason": "clear"}`
	srv, c := setup(t, fake.Rule{Provider: fake.OpenAI, Model: "gpt-test", Reply: fake.Reply{Arguments: json.RawMessage(args)}})
	reply, err := c.Complete(context.Background(), newCall())
	if err != nil {
		t.Fatal(err)
	}
	want := &judge.Reply{
		Arguments: []byte(args),
		Stop:      judge.StopTool,
		Usage:     judge.Usage{InputTokens: promptTokens, OutputTokens: (len(args) + 3) / 4},
		Model:     "gpt-test",
		RequestID: "req_fake_1",
	}
	if !reflect.DeepEqual(reply, want) {
		t.Errorf("got  %+v\nwant %+v", reply, want)
	}

	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	got := reqs[0]
	wantBody := `{"model":"gpt-test","messages":[` +
		`{"role":"system","content":"You grade agent outputs."},` +
		`{"role":"user","content":"Grade these release notes."},` +
		`{"role":"assistant","content":"Which ones?"},` +
		`{"role":"user","content":"The <v2> notes & fixes."}],` +
		`"max_tokens":300,"temperature":0.25,` +
		`"tools":[{"type":"function","function":{"name":"verdict","description":"Record the verdict.","parameters":` + schema + `}}],` +
		`"tool_choice":{"type":"function","function":{"name":"verdict"}}}`
	if string(got.Body) != wantBody {
		t.Errorf("body\n%s\nwant\n%s", got.Body, wantBody)
	}
	for h, want := range map[string]string{
		"Authorization": "Bearer " + key,
		"Content-Type":  "application/json",
		"Accept":        "application/json",
	} {
		if v := got.Header.Get(h); v != want {
			t.Errorf("header %s: %q, want %q", h, v, want)
		}
	}
	call := newCall()
	if got.Model != call.Model || got.System != call.System || !reflect.DeepEqual(got.Messages, call.Messages) ||
		got.Structured != judge.StructuredTool || got.MaxTokens != 300 || got.Temperature != 0.25 ||
		got.Tool.Name != "verdict" || got.Tool.Description != "Record the verdict." || string(got.Tool.Schema) != schema {
		t.Errorf("the fake saw %+v", got)
	}
}

func TestJSONSchemaMode(t *testing.T) {
	args := `{"score":2,"reason":"vague"}`
	srv, c := setup(t, fake.Rule{Reply: fake.Reply{Arguments: json.RawMessage(args)}})
	call := newCall()
	call.Structured = judge.StructuredSchema
	call.MaxTokens = 0
	call.Temperature = 0
	reply, err := c.Complete(context.Background(), call)
	if err != nil {
		t.Fatal(err)
	}
	if string(reply.Arguments) != args || reply.Stop != judge.StopTool || reply.Text != "" {
		t.Errorf("got %+v", reply)
	}
	body := string(srv.Requests()[0].Body)
	want := `"temperature":0,"response_format":{"type":"json_schema","json_schema":{"name":"verdict","description":"Record the verdict.","schema":` + schema + `,"strict":false}}}`
	if !strings.HasSuffix(body, want) || strings.Contains(body, "max_tokens") || strings.Contains(body, `"tools"`) || strings.Contains(body, "tool_choice") {
		t.Errorf("body\n%s\nwant it to end\n%s\nwith no max_tokens, tools or tool_choice", body, want)
	}
}

func TestStopReasons(t *testing.T) {
	args := `{"score":4,"reason":"clear"}`
	for _, tc := range []struct {
		name       string
		structured string
		reply      fake.Reply
		body       string // a raw answer instead of reply
		want       judge.Reply
	}{
		{name: "forced call ends with stop", reply: fake.Reply{Arguments: json.RawMessage(args)},
			want: judge.Reply{Arguments: []byte(args), Stop: judge.StopTool}},
		{name: "tool_calls", reply: fake.Reply{Arguments: json.RawMessage(args), Stop: "tool_calls"},
			want: judge.Reply{Arguments: []byte(args), Stop: judge.StopTool}},
		{name: "text beside the call", reply: fake.Reply{Arguments: json.RawMessage(args), Text: "Sure."},
			want: judge.Reply{Arguments: []byte(args), Text: "Sure.", Stop: judge.StopTool}},
		{name: "length", reply: fake.Reply{Arguments: json.RawMessage(args), Malformed: true, Stop: "length"},
			want: judge.Reply{Arguments: []byte(args[:len(args)/2]), Stop: judge.StopMaxTokens}},
		{name: "malformed", reply: fake.Reply{Arguments: json.RawMessage(args), Malformed: true},
			want: judge.Reply{Arguments: []byte(args[:len(args)/2]), Stop: judge.StopTool}},
		{name: "no tool call", reply: fake.Reply{NoToolCall: true, Text: "Looks fine."},
			want: judge.Reply{Text: "Looks fine.", Stop: judge.StopEnd}},
		{name: "refusal", reply: fake.Reply{Refusal: "I can't help with that."},
			want: judge.Reply{Text: "I can't help with that.", Stop: judge.StopRefusal}},
		{name: "content_filter", reply: fake.Reply{NoToolCall: true, Text: "Partial", Stop: "content_filter"},
			want: judge.Reply{Text: "Partial", Stop: judge.StopRefusal}},
		{name: "other", reply: fake.Reply{Arguments: json.RawMessage(args), Stop: "function_call"},
			want: judge.Reply{Arguments: []byte(args), Stop: judge.StopOther}},
		{name: "json_schema stop with content", structured: judge.StructuredSchema, reply: fake.Reply{Arguments: json.RawMessage(args)},
			want: judge.Reply{Arguments: []byte(args), Stop: judge.StopTool}},
		{name: "json_schema length", structured: judge.StructuredSchema, reply: fake.Reply{Arguments: json.RawMessage(args), Malformed: true, Stop: judge.StopMaxTokens},
			want: judge.Reply{Arguments: []byte(args[:len(args)/2]), Stop: judge.StopMaxTokens}},
		{name: "json_schema refusal", structured: judge.StructuredSchema, reply: fake.Reply{Refusal: "No."},
			want: judge.Reply{Text: "No.", Stop: judge.StopRefusal}},
		{name: "json_schema stop without content", structured: judge.StructuredSchema,
			body: `{"model":"m","choices":[{"message":{"role":"assistant","content":""},"finish_reason":"stop"}]}`,
			want: judge.Reply{Stop: judge.StopEnd, Model: "m"}},
		{name: "null finish reason",
			body: `{"model":"m","choices":[{"message":{"role":"assistant","content":"hm"},"finish_reason":null}]}`,
			want: judge.Reply{Text: "hm", Stop: judge.StopOther, Model: "m"}},
		{name: "the named tool is picked",
			body: `{"model":"m","choices":[{"message":{"role":"assistant","content":null,"tool_calls":[` +
				`{"id":"a","type":"function","function":{"name":"other","arguments":"{\"x\":1}"}},` +
				`{"id":"b","type":"function","function":{"name":"verdict","arguments":"{\"score\":1}"}}]},"finish_reason":"tool_calls"}]}`,
			want: judge.Reply{Arguments: []byte(`{"score":1}`), Stop: judge.StopTool, Model: "m"}},
		{name: "else the first tool",
			body: `{"model":"m","choices":[{"message":{"role":"assistant","tool_calls":[` +
				`{"id":"a","type":"function","function":{"name":"other","arguments":"{\"x\":1}"}}]},"finish_reason":"tool_calls"}]}`,
			want: judge.Reply{Arguments: []byte(`{"x":1}`), Stop: judge.StopTool, Model: "m"}},
		{name: "arguments sent as an object",
			body: `{"model":"m","choices":[{"message":{"role":"assistant","tool_calls":[` +
				`{"id":"a","type":"function","function":{"name":"verdict","arguments":{"score":3}}}]},"finish_reason":"stop"}]}`,
			want: judge.Reply{Arguments: []byte(`{"score":3}`), Stop: judge.StopTool, Model: "m"}},
		{name: "content as parts",
			body: `{"model":"m","choices":[{"message":{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},"finish_reason":"stop"}]}`,
			want: judge.Reply{Text: "ab", Stop: judge.StopEnd, Model: "m"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reply := tc.reply
			if tc.body != "" {
				reply = fake.Reply{Body: tc.body}
			}
			_, c := setup(t, fake.Rule{Reply: reply})
			call := newCall()
			call.Structured = tc.structured
			got, err := c.Complete(context.Background(), call)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if want.Model == "" {
				want.Model = "gpt-test"
			}
			got.Usage, got.RequestID = judge.Usage{}, ""
			if !reflect.DeepEqual(*got, want) {
				t.Errorf("got  %+v\nwant %+v", *got, want)
			}
		})
	}
}

func TestAPIErrors(t *testing.T) {
	date := now.Add(30 * time.Second).Format(http.TimeFormat)
	for _, tc := range []struct {
		name  string
		reply fake.Reply
		want  judge.APIError
	}{
		{"rate limit, seconds", fake.Reply{Status: 429, RetryAfter: "2"},
			judge.APIError{StatusCode: 429, Type: "requests", Message: "fake: 429 Too Many Requests", RetryAfter: 2 * time.Second}},
		{"rate limit, HTTP date", fake.Reply{Status: 429, RetryAfter: date, ErrorType: "tokens", ErrorMessage: "Rate limit reached for gpt-test"},
			judge.APIError{StatusCode: 429, Type: "tokens", Message: "Rate limit reached for gpt-test", RetryAfter: 30 * time.Second}},
		{"retry-after-ms first", fake.Reply{Status: 503, RetryAfter: "7", Headers: map[string]string{"retry-after-ms": "1500"}},
			judge.APIError{StatusCode: 503, Type: "server_error", Message: "fake: 503 Service Unavailable", RetryAfter: 1500 * time.Millisecond}},
		{"date in the past", fake.Reply{Status: 503, RetryAfter: now.Add(-time.Minute).Format(http.TimeFormat)},
			judge.APIError{StatusCode: 503, Type: "server_error", Message: "fake: 503 Service Unavailable"}},
		{"unreadable retry-after", fake.Reply{Status: 500, RetryAfter: "soon"},
			judge.APIError{StatusCode: 500, Type: "server_error", Message: "fake: 500 Internal Server Error"}},
		{"bad request", fake.Reply{Status: 400, ErrorMessage: "This model's maximum context length is 8192 tokens."},
			judge.APIError{StatusCode: 400, Type: "invalid_request_error", Message: "This model's maximum context length is 8192 tokens."}},
		{"not JSON", fake.Reply{Status: 502, Body: "<html>\n<h1>502 Bad Gateway</h1>\n</html>"},
			judge.APIError{StatusCode: 502, Message: `Bad Gateway: "<html> <h1>502 Bad Gateway</h1> </html>"`}},
		{"empty body", fake.Reply{Status: 503, Body: " "},
			judge.APIError{StatusCode: 503, Message: "Service Unavailable"}},
		{"JSON without a message", fake.Reply{Status: 500, Body: `{"detail":"x"}`},
			judge.APIError{StatusCode: 500, Message: "Internal Server Error"}},
		{"ollama's error string", fake.Reply{Status: 404, Body: `{"error":"model \"gpt-test\" not found, try pulling it first"}`},
			judge.APIError{StatusCode: 404, Message: `model "gpt-test" not found, try pulling it first`}},
		{"vllm's top-level error", fake.Reply{Status: 400, Body: `{"object":"error","message":"bad temperature","type":"BadRequestError","param":null,"code":400}`},
			judge.APIError{StatusCode: 400, Type: "BadRequestError", Message: "bad temperature"}},
		{"code for a missing type", fake.Reply{Status: 400, Body: `{"error":{"message":"m","type":null,"code":"model_not_found"}}`},
			judge.APIError{StatusCode: 400, Type: "model_not_found", Message: "m"}},
		{"no rule matched", fake.Reply{Status: 500, ErrorMessage: "boom"},
			judge.APIError{StatusCode: 500, Type: "server_error", Message: "boom"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, c := setup(t, fake.Rule{Reply: tc.reply})
			_, err := c.Complete(context.Background(), newCall())
			var got *judge.APIError
			if !errors.As(err, &got) {
				t.Fatalf("got %v (%T), want an *judge.APIError", err, err)
			}
			want := tc.want
			want.Provider, want.RequestID = "openai", "req_fake_1"
			if *got != want {
				t.Errorf("got  %+v\nwant %+v", *got, want)
			}
		})
	}
}

func TestWrongKey(t *testing.T) {
	srv := fake.NewServer(fake.WithAPIKey("sk-the-right-one"), fake.WithRules(fake.Rule{}))
	defer srv.Close()
	c := openai.New(openai.Options{BaseURL: srv.URL() + "/v1", APIKey: key})
	_, err := c.Complete(context.Background(), newCall())
	var e *judge.APIError
	if !errors.As(err, &e) || e.StatusCode != 401 || e.Type != "invalid_request_error" || e.Retryable() {
		t.Errorf("got %v", err)
	}
}

func TestSuccessThatIsNotACompletion(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"<html>hello</html>", `openai: HTTP 200 response is not a chat completion: invalid character '<' looking for beginning of value (body "<html>hello</html>")`},
		{`{"choices":[]}`, `openai: HTTP 200 response has no choices (body "{\"choices\":[]}")`},
		{``, `openai: HTTP 200 response is not a chat completion: unexpected end of JSON input (body "")`},
	} {
		_, c := setup(t, fake.Rule{Reply: fake.Reply{Body: tc.body}})
		if tc.body == "" {
			// An empty Body is no raw body to the fake: answer one from a
			// handler of its own.
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
			defer srv.Close()
			c = openai.New(openai.Options{BaseURL: srv.URL})
		}
		_, err := c.Complete(context.Background(), newCall())
		var apiErr *judge.APIError
		if err == nil || errors.As(err, &apiErr) || err.Error() != tc.want {
			t.Errorf("got %v, want the error %s", err, tc.want)
		}
	}
}

func TestCancelWhileTheServerHangs(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	srv := fake.NewServer(
		fake.WithRules(fake.Rule{Reply: fake.Reply{Hang: true}}),
		fake.WithObserver(func(fake.Request) { cancel() }),
	)
	defer srv.Close()
	c := openai.New(openai.Options{BaseURL: srv.URL() + "/v1", APIKey: key})
	_, err := c.Complete(ctx, newCall())
	var apiErr *judge.APIError
	if !errors.Is(err, context.Canceled) || errors.As(err, &apiErr) || !strings.HasPrefix(err.Error(), "openai: ") {
		t.Errorf("got %v, want an openai: error wrapping context.Canceled", err)
	}
	if n := srv.Count(); n != 1 {
		t.Errorf("Count %d, want 1", n)
	}
}

func TestDeadline(t *testing.T) {
	ctx, cancel := context.WithDeadline(context.Background(), now) // long past
	defer cancel()
	srv, c := setup(t, fake.Rule{})
	_, err := c.Complete(ctx, newCall())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want context.DeadlineExceeded", err)
	}
	if n := srv.Count(); n != 0 {
		t.Errorf("Count %d, want 0", n)
	}
}

func TestKeyNeverShows(t *testing.T) {
	var errs []error
	// The server echoes the key in an error message and in a body.
	for _, reply := range []fake.Reply{
		{Status: 401, ErrorType: "invalid_" + key, ErrorMessage: "Incorrect API key provided: " + key},
		{Status: 500, Body: "proxy saw Authorization: Bearer " + key},
		{Body: "<p>" + key + "</p>"},
		{Body: `{"choices":[], "echo": "` + key + `"}`},
	} {
		_, c := setup(t, fake.Rule{Reply: reply})
		_, err := c.Complete(context.Background(), newCall())
		errs = append(errs, err)
	}
	// No server at all.
	srv := fake.NewServer()
	url := srv.URL()
	srv.Close()
	c := openai.New(openai.Options{BaseURL: url + "/v1", APIKey: key})
	_, err := c.Complete(context.Background(), newCall())
	errs = append(errs, err)
	// A cancelled call.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = c.Complete(ctx, newCall())
	errs = append(errs, err)
	// A bad base URL.
	_, err = openai.New(openai.Options{BaseURL: "http://\x7f" + key, APIKey: key}).Complete(context.Background(), newCall())
	errs = append(errs, err)

	for i, err := range errs {
		if err == nil {
			t.Errorf("case %d: no error", i)
			continue
		}
		if s := fmt.Sprintf("%v %+v %#v", err, err, err); strings.Contains(s, key) {
			t.Errorf("case %d: the key shows in %s", i, s)
		}
		var e *judge.APIError
		if errors.As(err, &e) && (strings.Contains(e.Message, key) || strings.Contains(e.Type, key)) {
			t.Errorf("case %d: the key is in %+v", i, *e)
		}
	}
	var apiErr *judge.APIError
	if !errors.As(errs[0], &apiErr) || apiErr.Message != "Incorrect API key provided: [redacted]" {
		t.Errorf("got %v", errs[0])
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%d", "%x", "%q"} {
		if s := fmt.Sprintf(verb, c); strings.Contains(s, key) || strings.Contains(s, fmt.Sprintf("%x", key)) {
			t.Errorf("%s prints the key: %s", verb, s)
		}
	}
	if s := c.String(); s != "openai("+url+"/v1)" {
		t.Errorf("String %q", s)
	}
}

func TestUnknownStructuredMode(t *testing.T) {
	_, c := setup(t)
	call := newCall()
	call.Structured = "xml"
	if _, err := c.Complete(context.Background(), call); err == nil || !strings.Contains(err.Error(), `unknown structured mode "xml"`) {
		t.Errorf("got %v", err)
	}
	if _, err := c.Complete(context.Background(), nil); err == nil {
		t.Error("nil call: no error")
	}
}

func TestEmptySchemaIsAnObject(t *testing.T) {
	srv, c := setup(t, fake.Rule{})
	call := newCall()
	call.Tool.Schema = nil
	if _, err := c.Complete(context.Background(), call); err != nil {
		t.Fatal(err)
	}
	if got := string(srv.Requests()[0].Tool.Schema); got != `{"type":"object","properties":{}}` {
		t.Errorf("schema %s", got)
	}
}

// doer answers every request with a response of its own.
type doer struct {
	resp *http.Response
	reqs []*http.Request
}

func (d *doer) Do(r *http.Request) (*http.Response, error) {
	d.reqs = append(d.reqs, r)
	return d.resp, nil
}

// endless is a body that never ends, and records being closed.
type endless struct{ closed bool }

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		n += copy(p[n:], spaces)
	}
	return n, nil
}

var spaces = bytes.Repeat([]byte(" "), 64<<10)

func (e *endless) Close() error { e.closed = true; return nil }

func TestBodyIsBoundedAndClosed(t *testing.T) {
	body := &endless{}
	d := &doer{resp: &http.Response{StatusCode: 200, Header: http.Header{}, Body: body}}
	c := openai.New(openai.Options{HTTPClient: d})
	_, err := c.Complete(context.Background(), newCall())
	if err == nil || !strings.Contains(err.Error(), "larger than 8192 KiB") {
		t.Errorf("got %v", err)
	}
	if !body.closed {
		t.Error("body not closed")
	}
	if len(d.reqs) != 1 || d.reqs[0].URL.String() != "https://api.openai.com/v1/chat/completions" {
		t.Errorf("requests %v", d.reqs)
	}

	// An error status is still an APIError when its body is endless.
	body = &endless{}
	d.resp = &http.Response{StatusCode: 503, Header: http.Header{"Retry-After": {"1"}}, Body: body}
	_, err = c.Complete(context.Background(), newCall())
	var apiErr *judge.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 503 || apiErr.RetryAfter != time.Second || !body.closed {
		t.Errorf("got %v", err)
	}
}

func TestRequestBodyIsValidJSON(t *testing.T) {
	srv, c := setup(t, fake.Rule{})
	call := newCall()
	call.Tool.Schema = json.RawMessage(`{"type": "object",` + "\n" + `"properties": {}}`)
	if _, err := c.Complete(context.Background(), call); err != nil {
		t.Fatal(err)
	}
	if body := srv.Requests()[0].Body; !json.Valid(body) || bytes.Contains(body, []byte("\n")) {
		t.Errorf("body %s", body)
	}
	call.Tool.Schema = json.RawMessage(`{"type":`)
	if _, err := c.Complete(context.Background(), call); err == nil || !strings.Contains(err.Error(), "openai: encoding the request") {
		t.Errorf("invalid schema: got %v", err)
	}
}
