package anthropic_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vouchgate/vouch/judge"
	"github.com/vouchgate/vouch/judge/anthropic"
	"github.com/vouchgate/vouch/judge/fake"
)

// key is distinctive so that a leak is found wherever it is.
const key = "sk-ant-test-Qm4RbLeakCanary7TzW"

// now is the clients' clock in tests.
var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

const schema = `{"type":"object","properties":{"score":{"type":"integer","minimum":1,"maximum":5},"reason":{"type":"string"}},"required":["score","reason"]}`

// newCall returns the call the tests send.
func newCall() *judge.Call {
	return &judge.Call{
		Model:  "claude-test",
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
func setup(t *testing.T, rules ...fake.Rule) (*fake.Server, *anthropic.Client) {
	t.Helper()
	srv := fake.NewServer(fake.WithAPIKey(key), fake.WithRules(rules...))
	t.Cleanup(srv.Close)
	return srv, anthropic.New(anthropic.Options{BaseURL: srv.URL(), APIKey: key, Now: func() time.Time { return now }})
}

func TestToolUse(t *testing.T) {
	args := `{"score":4,"reason":"clear \u003cb\u003e & <i>"}`
	srv, c := setup(t, fake.Rule{Provider: fake.Anthropic, Model: "claude-test", Reply: fake.Reply{Arguments: json.RawMessage(args)}})
	reply, err := c.Complete(context.Background(), newCall())
	if err != nil {
		t.Fatal(err)
	}
	want := &judge.Reply{
		Arguments: []byte(args),
		Stop:      judge.StopTool,
		Usage:     judge.Usage{InputTokens: promptTokens, OutputTokens: (len(args) + 3) / 4},
		Model:     "claude-test",
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
	wantBody := `{"model":"claude-test","max_tokens":300,"system":"You grade agent outputs.","messages":[` +
		`{"role":"user","content":"Grade these release notes."},` +
		`{"role":"assistant","content":"Which ones?"},` +
		`{"role":"user","content":"The <v2> notes & fixes."}],` +
		`"temperature":0.25,` +
		`"tools":[{"name":"verdict","description":"Record the verdict.","input_schema":` + schema + `}],` +
		`"tool_choice":{"type":"tool","name":"verdict"}}`
	if string(got.Body) != wantBody {
		t.Errorf("body\n%s\nwant\n%s", got.Body, wantBody)
	}
	for h, want := range map[string]string{
		"x-api-key":         key,
		"anthropic-version": "2023-06-01",
		"Content-Type":      "application/json",
		"Authorization":     "",
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

func TestDefaults(t *testing.T) {
	srv, c := setup(t, fake.Rule{})
	call := newCall()
	call.System = ""
	call.MaxTokens = 0
	call.Temperature = 0
	call.Structured = judge.StructuredSchema // ignored
	call.Tool.Description = ""
	call.Tool.Schema = nil
	if _, err := c.Complete(context.Background(), call); err != nil {
		t.Fatal(err)
	}
	body := string(srv.Requests()[0].Body)
	want := `{"model":"claude-test","max_tokens":1024,"messages":[`
	wantTail := `"temperature":0,"tools":[{"name":"verdict","input_schema":{"type":"object","properties":{}}}],"tool_choice":{"type":"tool","name":"verdict"}}`
	if !strings.HasPrefix(body, want) || !strings.HasSuffix(body, wantTail) {
		t.Errorf("body\n%s\nwant it to start\n%s\nand end\n%s", body, want, wantTail)
	}
}

func TestStopReasons(t *testing.T) {
	args := `{"score":4,"reason":"clear"}`
	for _, tc := range []struct {
		name  string
		reply fake.Reply
		body  string // a raw answer instead of reply
		want  judge.Reply
	}{
		{name: "tool_use", reply: fake.Reply{Arguments: json.RawMessage(args)},
			want: judge.Reply{Arguments: []byte(args), Stop: judge.StopTool}},
		{name: "text beside the call", reply: fake.Reply{Arguments: json.RawMessage(args), Text: "Here it is."},
			want: judge.Reply{Arguments: []byte(args), Text: "Here it is.", Stop: judge.StopTool}},
		{name: "max_tokens", reply: fake.Reply{Arguments: json.RawMessage(args), Malformed: true, Stop: "max_tokens"},
			want: judge.Reply{Arguments: []byte(`{"score":4}`), Stop: judge.StopMaxTokens}},
		{name: "model_context_window_exceeded", reply: fake.Reply{NoToolCall: true, Text: "a", Stop: "model_context_window_exceeded"},
			want: judge.Reply{Text: "a", Stop: judge.StopMaxTokens}},
		{name: "end_turn", reply: fake.Reply{NoToolCall: true, Text: "Looks fine."},
			want: judge.Reply{Text: "Looks fine.", Stop: judge.StopEnd}},
		{name: "stop_sequence", reply: fake.Reply{NoToolCall: true, Text: "x", Stop: "stop_sequence"},
			want: judge.Reply{Text: "x", Stop: judge.StopEnd}},
		{name: "end_turn with the tool called", reply: fake.Reply{Arguments: json.RawMessage(args), Stop: "end_turn"},
			want: judge.Reply{Arguments: []byte(args), Stop: judge.StopTool}},
		{name: "refusal", reply: fake.Reply{Refusal: "I can't help with that."},
			want: judge.Reply{Text: "I can't help with that.", Stop: judge.StopRefusal}},
		{name: "other", reply: fake.Reply{Arguments: json.RawMessage(args), Stop: "pause_turn"},
			want: judge.Reply{Arguments: []byte(args), Stop: judge.StopOther}},
		{name: "text blocks concatenated, the named tool picked",
			body: `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[` +
				`{"type":"text","text":"One. "},` +
				`{"type":"tool_use","id":"t1","name":"other","input":{"x":1}},` +
				`{"type":"text","text":"Two."},` +
				`{"type":"tool_use","id":"t2","name":"verdict","input": {"score": 1} }],` +
				`"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":11,"output_tokens":12}}`,
			want: judge.Reply{Arguments: []byte(`{"score": 1}`), Text: "One. Two.", Stop: judge.StopTool, Model: "m", Usage: judge.Usage{InputTokens: 11, OutputTokens: 12}}},
		{name: "else the first tool",
			body: `{"type":"message","model":"m","content":[{"type":"tool_use","id":"t1","name":"other","input":{"x":1}}],"stop_reason":"tool_use"}`,
			want: judge.Reply{Arguments: []byte(`{"x":1}`), Stop: judge.StopTool, Model: "m"}},
		{name: "null stop reason",
			body: `{"type":"message","model":"m","content":[],"stop_reason":null}`,
			want: judge.Reply{Stop: judge.StopOther, Model: "m"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reply := tc.reply
			if tc.body != "" {
				reply = fake.Reply{Body: tc.body}
			}
			_, c := setup(t, fake.Rule{Reply: reply})
			got, err := c.Complete(context.Background(), newCall())
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if want.Model == "" {
				want.Model = "claude-test"
			}
			if tc.body == "" {
				got.Usage = judge.Usage{}
			}
			got.RequestID = ""
			if !reflect.DeepEqual(*got, want) {
				t.Errorf("got  %+v\nwant %+v", *got, want)
			}
		})
	}
}

func TestAPIErrors(t *testing.T) {
	date := now.Add(90 * time.Second).Format(http.TimeFormat)
	for _, tc := range []struct {
		name  string
		reply fake.Reply
		want  judge.APIError
	}{
		{"rate limit, seconds", fake.Reply{Status: 429, RetryAfter: "3", ErrorMessage: "Number of request tokens has exceeded your per-minute rate limit"},
			judge.APIError{StatusCode: 429, Type: "rate_limit_error", Message: "Number of request tokens has exceeded your per-minute rate limit", RetryAfter: 3 * time.Second}},
		{"rate limit, HTTP date", fake.Reply{Status: 429, RetryAfter: date},
			judge.APIError{StatusCode: 429, Type: "rate_limit_error", Message: "fake: 429 Too Many Requests", RetryAfter: 90 * time.Second}},
		{"overloaded, retry-after-ms", fake.Reply{Status: 529, Headers: map[string]string{"retry-after-ms": "250"}},
			judge.APIError{StatusCode: 529, Type: "overloaded_error", Message: "fake: 529 Overloaded", RetryAfter: 250 * time.Millisecond}},
		{"api error", fake.Reply{Status: 500},
			judge.APIError{StatusCode: 500, Type: "api_error", Message: "fake: 500 Internal Server Error"}},
		{"invalid request", fake.Reply{Status: 400, ErrorMessage: "prompt is too long: 210000 tokens > 200000 maximum"},
			judge.APIError{StatusCode: 400, Type: "invalid_request_error", Message: "prompt is too long: 210000 tokens > 200000 maximum"}},
		{"not JSON", fake.Reply{Status: 502, Body: "upstream connect error or disconnect/reset before headers"},
			judge.APIError{StatusCode: 502, Message: `Bad Gateway: "upstream connect error or disconnect/reset before headers"`}},
		{"request id from the body", fake.Reply{Status: 500, Headers: map[string]string{"request-id": ""}, Body: `{"type":"error","error":{"type":"api_error","message":"Internal server error"},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}`},
			judge.APIError{StatusCode: 500, Type: "api_error", Message: "Internal server error", RequestID: "req_011CSHoEeqs5C35K2UUqR7Fy"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, c := setup(t, fake.Rule{Reply: tc.reply})
			_, err := c.Complete(context.Background(), newCall())
			var got *judge.APIError
			if !errors.As(err, &got) {
				t.Fatalf("got %v (%T), want an *judge.APIError", err, err)
			}
			want := tc.want
			want.Provider = "anthropic"
			if want.RequestID == "" {
				want.RequestID = "req_fake_1"
			}
			if *got != want {
				t.Errorf("got  %+v\nwant %+v", *got, want)
			}
		})
	}
}

func TestWrongKeyAndMissingVersion(t *testing.T) {
	srv := fake.NewServer(fake.WithAPIKey("sk-ant-the-right-one"), fake.WithRules(fake.Rule{}))
	defer srv.Close()
	_, err := anthropic.New(anthropic.Options{BaseURL: srv.URL(), APIKey: key}).Complete(context.Background(), newCall())
	var e *judge.APIError
	if !errors.As(err, &e) || e.StatusCode != 401 || e.Type != "authentication_error" || e.Retryable() {
		t.Errorf("got %v", err)
	}
	// A header given in Options replaces the client's own.
	c := anthropic.New(anthropic.Options{BaseURL: srv.URL(), APIKey: "sk-ant-the-right-one", Headers: map[string]string{"anthropic-version": ""}})
	_, err = c.Complete(context.Background(), newCall())
	if !errors.As(err, &e) || e.StatusCode != 400 || !strings.Contains(e.Message, "anthropic-version") {
		t.Errorf("got %v", err)
	}
}

func TestSuccessThatIsNotAMessage(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"<html>hello</html>", `anthropic: HTTP 200 response is not a message: invalid character '<' looking for beginning of value (body "<html>hello</html>")`},
		{`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, `anthropic: HTTP 200 response is of type "error", not a message`},
		{`{}`, `anthropic: HTTP 200 response is of type "", not a message (body "{}")`},
	} {
		_, c := setup(t, fake.Rule{Reply: fake.Reply{Body: tc.body}})
		_, err := c.Complete(context.Background(), newCall())
		var apiErr *judge.APIError
		if err == nil || errors.As(err, &apiErr) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("got %v, want an error starting %s", err, tc.want)
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
	c := anthropic.New(anthropic.Options{BaseURL: srv.URL(), APIKey: key})
	_, err := c.Complete(ctx, newCall())
	var apiErr *judge.APIError
	if !errors.Is(err, context.Canceled) || errors.As(err, &apiErr) || !strings.HasPrefix(err.Error(), "anthropic: ") {
		t.Errorf("got %v, want an anthropic: error wrapping context.Canceled", err)
	}
	if n := srv.Count(); n != 1 {
		t.Errorf("Count %d, want 1", n)
	}
}

func TestLatencyBeyondTheDeadline(t *testing.T) {
	// The fake waits an hour on a real timer; the client gives up when
	// the request has arrived, as a deadline would.
	ctx, cancel := context.WithCancelCause(context.Background())
	srv := fake.NewServer(
		fake.WithRules(fake.Rule{Reply: fake.Reply{Latency: time.Hour}}),
		fake.WithObserver(func(fake.Request) { cancel(context.DeadlineExceeded) }),
	)
	defer srv.Close()
	_, err := anthropic.New(anthropic.Options{BaseURL: srv.URL()}).Complete(ctx, newCall())
	if !errors.Is(err, context.DeadlineExceeded) || !strings.HasPrefix(err.Error(), "anthropic: ") {
		t.Errorf("got %v", err)
	}
}

func TestKeyNeverShows(t *testing.T) {
	var errs []error
	for _, reply := range []fake.Reply{
		{Status: 401, ErrorType: "authentication_error", ErrorMessage: "invalid x-api-key " + key},
		{Status: 503, Body: "gateway saw x-api-key: " + key},
		{Body: "<p>" + key + "</p>"},
		{Body: `{"type":"` + key + `"}`},
	} {
		_, c := setup(t, fake.Rule{Reply: reply})
		_, err := c.Complete(context.Background(), newCall())
		errs = append(errs, err)
	}
	srv := fake.NewServer()
	url := srv.URL()
	srv.Close()
	c := anthropic.New(anthropic.Options{BaseURL: url, APIKey: key})
	_, err := c.Complete(context.Background(), newCall())
	errs = append(errs, err)
	_, err = anthropic.New(anthropic.Options{BaseURL: "http://\x7f" + key, APIKey: key}).Complete(context.Background(), newCall())
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
	if !errors.As(errs[0], &apiErr) || apiErr.Message != "invalid x-api-key [redacted]" {
		t.Errorf("got %v", errs[0])
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%d", "%x", "%q"} {
		if s := fmt.Sprintf(verb, c); strings.Contains(s, key) || strings.Contains(s, fmt.Sprintf("%x", key)) {
			t.Errorf("%s prints the key: %s", verb, s)
		}
	}
	if s := c.String(); s != "anthropic("+url+")" {
		t.Errorf("String %q", s)
	}
}

// doer answers every request with a response of its own.
type doer struct{ resp *http.Response }

func (d *doer) Do(*http.Request) (*http.Response, error) { return d.resp, nil }

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
	c := anthropic.New(anthropic.Options{HTTPClient: &doer{&http.Response{StatusCode: 200, Header: http.Header{}, Body: body}}})
	_, err := c.Complete(context.Background(), newCall())
	if err == nil || !strings.Contains(err.Error(), "larger than 8192 KiB") || !body.closed {
		t.Errorf("got %v, closed %v", err, body.closed)
	}
}
