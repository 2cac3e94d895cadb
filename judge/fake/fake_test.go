package fake_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vouchgate/vouch/judge"
	"github.com/vouchgate/vouch/judge/fake"
)

// Requests as the clients send them, with one forced tool.
const (
	openaiBody = `{"model":"gpt-test","messages":[{"role":"system","content":"You grade."},{"role":"user","content":"Grade the release notes."}],"max_tokens":300,"temperature":0,"tools":[{"type":"function","function":{"name":"verdict","description":"Record the verdict.","parameters":{"type":"object"}}}],"tool_choice":{"type":"function","function":{"name":"verdict"}}}`
	schemaBody = `{"model":"gpt-test","messages":[{"role":"system","content":"You grade."},{"role":"user","content":"Grade the release notes."}],"temperature":0,"response_format":{"type":"json_schema","json_schema":{"name":"verdict","schema":{"type":"object"},"strict":false}}}`
	anthroBody = `{"model":"claude-test","max_tokens":300,"system":"You grade.","messages":[{"role":"user","content":"Grade the release notes."}],"temperature":0,"tools":[{"name":"verdict","description":"Record the verdict.","input_schema":{"type":"object"}}],"tool_choice":{"type":"tool","name":"verdict"}}`

	// prompt is the prompt text of the bodies above: 35 bytes, 9 tokens.
	prompt = "You grade.\nGrade the release notes."
)

var anthroHeader = map[string]string{"anthropic-version": "2023-06-01"}

// fixedNow is the fake's clock in tests.
func fixedNow() time.Time { return time.Unix(1700000000, 0) }

// response is an HTTP answer as a test sees it.
type response struct {
	status int
	header http.Header
	body   string
}

// json decodes the body as a map.
func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.body), &m); err != nil {
		t.Fatalf("body is not a JSON object: %v\n%s", err, r.body)
	}
	return m
}

// send sends one request to the fake and reads the whole answer.
func send(t *testing.T, ctx context.Context, srv *fake.Server, method, path string, header map[string]string, body string) (response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, srv.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{resp.StatusCode, resp.Header, string(b)}, nil
}

// post sends one POST and fails the test when no answer comes.
func post(t *testing.T, srv *fake.Server, path string, header map[string]string, body string) response {
	t.Helper()
	r, err := send(t, context.Background(), srv, http.MethodPost, path, header, body)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestOpenAIToolCallShape(t *testing.T) {
	srv := fake.NewServer(fake.WithNow(fixedNow), fake.WithRules(fake.Rule{
		Reply: fake.Reply{Arguments: json.RawMessage(`{"score":4,"reason":"clear <b>&</b>"}`)},
	}))
	defer srv.Close()
	r := post(t, srv, fake.OpenAIPath, nil, openaiBody)
	want := `{"id":"chatcmpl-fake-1","object":"chat.completion","created":1700000000,"model":"gpt-test",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":null,` +
		`"tool_calls":[{"id":"call_fake_1","type":"function","function":{"name":"verdict","arguments":"{\"score\":4,\"reason\":\"clear <b>&</b>\"}"}}],` +
		`"refusal":null},"logprobs":null,"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":9,"completion_tokens":10,"total_tokens":19}}` + "\n"
	if r.status != 200 || r.body != want {
		t.Errorf("got %d\n%s\nwant 200\n%s", r.status, r.body, want)
	}
	if got := r.header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type %q", got)
	}
	if got := r.header.Get("x-request-id"); got != "req_fake_1" {
		t.Errorf("x-request-id %q", got)
	}
}

func TestOpenAIAutoToolChoiceFinishesWithToolCalls(t *testing.T) {
	srv := fake.NewServer(fake.WithRules(fake.Rule{}))
	defer srv.Close()
	body := strings.Replace(openaiBody, `"tool_choice":{"type":"function","function":{"name":"verdict"}}`, `"tool_choice":"auto"`, 1)
	m := post(t, srv, fake.OpenAIPath, nil, body).json(t)
	choice := m["choices"].([]any)[0].(map[string]any)
	if choice["finish_reason"] != "tool_calls" {
		t.Errorf("finish_reason %v, want tool_calls", choice["finish_reason"])
	}
	args := choice["message"].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)["arguments"]
	if args != "{}" {
		t.Errorf("arguments %v, want {} for a reply with none", args)
	}
}

func TestOpenAIJSONSchemaShape(t *testing.T) {
	srv := fake.NewServer(fake.WithNow(fixedNow), fake.WithRules(fake.Rule{
		Reply: fake.Reply{Arguments: json.RawMessage(`{"score": 2}`)},
	}))
	defer srv.Close()
	r := post(t, srv, fake.OpenAIPath, nil, schemaBody)
	want := `{"id":"chatcmpl-fake-1","object":"chat.completion","created":1700000000,"model":"gpt-test",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":"{\"score\": 2}","refusal":null},"logprobs":null,"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":9,"completion_tokens":3,"total_tokens":12}}` + "\n"
	if r.body != want {
		t.Errorf("got\n%s\nwant\n%s", r.body, want)
	}
	got := srv.Requests()[0]
	if got.Structured != judge.StructuredSchema || got.Tool.Name != "verdict" || string(got.Tool.Schema) != `{"type":"object"}` {
		t.Errorf("recorded %+v", got)
	}
}

func TestAnthropicToolUseShape(t *testing.T) {
	srv := fake.NewServer(fake.WithRules(fake.Rule{
		Reply: fake.Reply{Arguments: json.RawMessage(`{"score": 4, "reason": "clear"}`), Text: "Here is my verdict."},
	}))
	defer srv.Close()
	r := post(t, srv, fake.AnthropicPath, anthroHeader, anthroBody)
	want := `{"id":"msg_fake_1","type":"message","role":"assistant","model":"claude-test",` +
		`"content":[{"type":"text","text":"Here is my verdict."},{"type":"tool_use","id":"toolu_fake_1","name":"verdict","input":{"score":4,"reason":"clear"}}],` +
		`"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":12}}` + "\n"
	if r.status != 200 || r.body != want {
		t.Errorf("got %d\n%s\nwant 200\n%s", r.status, r.body, want)
	}
	if got := r.header.Get("request-id"); got != "req_fake_1" {
		t.Errorf("request-id %q", got)
	}
}

func TestRecordsRequests(t *testing.T) {
	srv := fake.NewServer(fake.WithRules(fake.Rule{}))
	defer srv.Close()
	post(t, srv, fake.OpenAIPath, map[string]string{"Authorization": "Bearer k"}, openaiBody)
	post(t, srv, fake.AnthropicPath, anthroHeader, anthroBody)
	post(t, srv, "/elsewhere", nil, "{}")
	if n := srv.Count(); n != 2 {
		t.Fatalf("Count %d, want 2 (the unknown path is not recorded)", n)
	}
	reqs := srv.Requests()
	msgs := []judge.Message{{Role: "user", Content: "Grade the release notes."}}
	tool := judge.Tool{Name: "verdict", Description: "Record the verdict.", Schema: json.RawMessage(`{"type":"object"}`)}
	for i, want := range []fake.Request{
		{Provider: fake.OpenAI, Model: "gpt-test", System: "You grade.", Messages: msgs, Tool: tool, Structured: judge.StructuredTool, MaxTokens: 300, Body: []byte(openaiBody)},
		{Provider: fake.Anthropic, Model: "claude-test", System: "You grade.", Messages: msgs, Tool: tool, Structured: judge.StructuredTool, MaxTokens: 300, Body: []byte(anthroBody)},
	} {
		got := reqs[i]
		got.Header = nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("request %d:\n got %+v\nwant %+v", i, got, want)
		}
	}
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer k" {
		t.Errorf("recorded Authorization %q", got)
	}
	// The copy is the caller's own.
	reqs[0].Messages[0].Content = "changed"
	reqs[0].Body[0] = 'X'
	if again := srv.Requests()[0]; again.Messages[0].Content == "changed" || again.Body[0] == 'X' {
		t.Error("Requests returned the recorder's own slices")
	}
}

func TestRulesInOrderAndTimes(t *testing.T) {
	srv := fake.NewServer(fake.WithRules(
		fake.Rule{Times: 2, Reply: fake.Reply{Status: 503}},
		fake.Rule{Times: 1, Reply: fake.Reply{Arguments: json.RawMessage(`{"n":1}`)}},
		fake.Rule{Reply: fake.Reply{Arguments: json.RawMessage(`{"n":2}`)}},
	))
	defer srv.Close()
	var got []string
	for range 5 {
		r := post(t, srv, fake.OpenAIPath, nil, schemaBody)
		if r.status != 200 {
			got = append(got, fmt.Sprint(r.status))
			continue
		}
		got = append(got, r.json(t)["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"].(string))
	}
	want := []string{"503", "503", `{"n":1}`, `{"n":2}`, `{"n":2}`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestRuleMatching(t *testing.T) {
	rules := []fake.Rule{
		{Provider: fake.Anthropic, Contains: "release", Reply: fake.Reply{Text: "anthropic release"}},
		{Model: "gpt-other", Reply: fake.Reply{Text: "other model"}},
		{Pattern: `(?i)grade THE\s+release`, Contains: "notes", Reply: fake.Reply{Text: "pattern"}},
		{Contains: "poem", Reply: fake.Reply{Text: "poem"}},
	}
	srv := fake.NewServer(fake.WithRules(rules...))
	defer srv.Close()
	noTool := func(model, user string) string {
		return fmt.Sprintf(`{"model":%q,"messages":[{"role":"system","content":"You grade."},{"role":"user","content":%q}]}`, model, user)
	}
	anthro := func(user string) string {
		return fmt.Sprintf(`{"model":"claude-test","max_tokens":10,"system":"You grade.","messages":[{"role":"user","content":%q}]}`, user)
	}
	for _, tc := range []struct {
		name, path, body, want string
	}{
		{"provider and contains", fake.AnthropicPath, anthro("the release notes"), "anthropic release"},
		{"provider differs", fake.OpenAIPath, noTool("gpt-test", "a poem"), "poem"},
		{"model", fake.OpenAIPath, noTool("gpt-other", "Grade the release notes"), "other model"},
		{"pattern and contains", fake.OpenAIPath, noTool("gpt-test", "grade the   release notes"), "pattern"},
		{"pattern without contains", fake.OpenAIPath, noTool("gpt-test", "grade the release"), "no rule"},
		{"contains in the system prompt", fake.OpenAIPath, `{"model":"m","messages":[{"role":"system","content":"a poem"},{"role":"user","content":"x"}]}`, "poem"},
		{"contains across parts", fake.AnthropicPath, `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"po"},{"type":"text","text":"em"}]}]}`, "poem"},
		{"nothing", fake.AnthropicPath, anthro("hello"), "no rule"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := post(t, srv, tc.path, anthroHeader, tc.body)
			if r.status == 500 {
				if tc.want != "no rule" || !strings.Contains(r.body, "no rule matched") {
					t.Errorf("got 500 %s, want %q", r.body, tc.want)
				}
				return
			}
			if !strings.Contains(r.body, `"`+tc.want+`"`) || tc.want == "no rule" {
				t.Errorf("got %d %s, want %q", r.status, r.body, tc.want)
			}
		})
	}
}

func TestNoRuleMatchedAnswers500(t *testing.T) {
	srv := fake.NewServer()
	defer srv.Close()
	r := post(t, srv, fake.OpenAIPath, nil, openaiBody)
	e := r.json(t)["error"].(map[string]any)
	if r.status != 500 || e["type"] != "server_error" || !strings.Contains(e["message"].(string), `no rule matched this openai request for model "gpt-test"`) {
		t.Errorf("got %d %s", r.status, r.body)
	}
	r = post(t, srv, fake.AnthropicPath, anthroHeader, anthroBody)
	if m := r.json(t); r.status != 500 || m["type"] != "error" || m["error"].(map[string]any)["type"] != "api_error" {
		t.Errorf("got %d %s", r.status, r.body)
	}
}

func TestResponder(t *testing.T) {
	var seen []string
	srv := fake.NewServer(
		fake.WithRules(fake.Rule{Contains: "scripted", Reply: fake.Reply{Text: "from the rule"}}),
		fake.WithResponder(func(r *fake.Request) fake.Reply {
			seen = append(seen, r.Model) // requests are sent one at a time
			return fake.Reply{Arguments: json.RawMessage(`{"by":"responder"}`)}
		}),
	)
	defer srv.Close()
	r := post(t, srv, fake.OpenAIPath, nil, schemaBody)
	if !strings.Contains(r.body, `"content":"{\"by\":\"responder\"}"`) {
		t.Errorf("got %s", r.body)
	}
	if !reflect.DeepEqual(seen, []string{"gpt-test"}) {
		t.Errorf("responder saw %q", seen)
	}
}

// firstMessage returns an OpenAI answer's message and finish reason.
func firstMessage(t *testing.T, r response) (map[string]any, string) {
	t.Helper()
	c := r.json(t)["choices"].([]any)[0].(map[string]any)
	return c["message"].(map[string]any), c["finish_reason"].(string)
}

func TestOpenAIFaults(t *testing.T) {
	args := json.RawMessage(`{"score":9,"reason":"out of range"}`)
	for _, tc := range []struct {
		name  string
		reply fake.Reply
		body  string
		check func(t *testing.T, r response)
	}{
		{"malformed", fake.Reply{Arguments: args, Malformed: true}, openaiBody, func(t *testing.T, r response) {
			msg, finish := firstMessage(t, r)
			got := msg["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)["arguments"].(string)
			if got != `{"score":9,"reaso` || finish != "stop" || json.Valid([]byte(got)) {
				t.Errorf("arguments %q, finish %q", got, finish)
			}
		}},
		{"max tokens", fake.Reply{Arguments: args, Malformed: true, Stop: judge.StopMaxTokens}, openaiBody, func(t *testing.T, r response) {
			if _, finish := firstMessage(t, r); finish != "length" {
				t.Errorf("finish %q, want length", finish)
			}
		}},
		{"malformed in json_schema mode", fake.Reply{Arguments: args, Malformed: true}, schemaBody, func(t *testing.T, r response) {
			if msg, _ := firstMessage(t, r); msg["content"] != `{"score":9,"reaso` {
				t.Errorf("content %q", msg["content"])
			}
		}},
		{"native stop sent as it is", fake.Reply{Stop: "tool_calls"}, openaiBody, func(t *testing.T, r response) {
			if _, finish := firstMessage(t, r); finish != "tool_calls" {
				t.Errorf("finish %q", finish)
			}
		}},
		{"refusal", fake.Reply{Refusal: "I can't grade this."}, openaiBody, func(t *testing.T, r response) {
			msg, finish := firstMessage(t, r)
			if msg["refusal"] != "I can't grade this." || msg["content"] != nil || msg["tool_calls"] != nil || finish != "stop" {
				t.Errorf("got %s", r.body)
			}
		}},
		{"no tool call", fake.Reply{NoToolCall: true, Text: "It looks fine to me."}, openaiBody, func(t *testing.T, r response) {
			msg, finish := firstMessage(t, r)
			if msg["content"] != "It looks fine to me." || msg["tool_calls"] != nil || finish != "stop" {
				t.Errorf("got %s", r.body)
			}
		}},
		{"no tool call, default prose", fake.Reply{NoToolCall: true}, openaiBody, func(t *testing.T, r response) {
			if msg, _ := firstMessage(t, r); msg["content"] == "" || msg["content"] == nil {
				t.Errorf("got %s", r.body)
			}
		}},
		{"text beside the call", fake.Reply{Text: "Thinking aloud.", Arguments: args}, openaiBody, func(t *testing.T, r response) {
			if msg, _ := firstMessage(t, r); msg["content"] != "Thinking aloud." || msg["tool_calls"] == nil {
				t.Errorf("got %s", r.body)
			}
		}},
		{"usage given", fake.Reply{InputTokens: 1000, OutputTokens: 77}, openaiBody, func(t *testing.T, r response) {
			u := r.json(t)["usage"].(map[string]any)
			if u["prompt_tokens"] != 1000.0 || u["completion_tokens"] != 77.0 || u["total_tokens"] != 1077.0 {
				t.Errorf("usage %v", u)
			}
		}},
		{"rate limited", fake.Reply{Status: 429, RetryAfter: "2"}, openaiBody, func(t *testing.T, r response) {
			e := r.json(t)["error"].(map[string]any)
			if r.status != 429 || r.header.Get("Retry-After") != "2" || e["type"] != "requests" || e["code"] != "rate_limit_exceeded" || e["message"] == "" {
				t.Errorf("got %d %v %s", r.status, r.header, r.body)
			}
			if _, ok := e["param"]; !ok {
				t.Errorf("no param in %s", r.body)
			}
		}},
		{"error type and message given", fake.Reply{Status: 400, ErrorType: "invalid_request_error", ErrorMessage: "context too long", Headers: map[string]string{"retry-after-ms": "10"}}, openaiBody, func(t *testing.T, r response) {
			e := r.json(t)["error"].(map[string]any)
			if r.status != 400 || e["type"] != "invalid_request_error" || e["message"] != "context too long" || e["code"] != nil || r.header.Get("retry-after-ms") != "10" {
				t.Errorf("got %d %s", r.status, r.body)
			}
		}},
		{"server error", fake.Reply{Status: 503}, openaiBody, func(t *testing.T, r response) {
			if e := r.json(t)["error"].(map[string]any); r.status != 503 || e["type"] != "server_error" {
				t.Errorf("got %d %s", r.status, r.body)
			}
		}},
		{"raw body", fake.Reply{Status: 502, Body: "<html>Bad Gateway</html>", Headers: map[string]string{"Content-Type": "text/html"}}, openaiBody, func(t *testing.T, r response) {
			if r.status != 502 || r.body != "<html>Bad Gateway</html>" || r.header.Get("Content-Type") != "text/html" {
				t.Errorf("got %d %q %v", r.status, r.body, r.header)
			}
		}},
		{"raw body on 200", fake.Reply{Body: "not json"}, openaiBody, func(t *testing.T, r response) {
			if r.status != 200 || r.body != "not json" {
				t.Errorf("got %d %q", r.status, r.body)
			}
		}},
		{"request id replaced", fake.Reply{Headers: map[string]string{"x-request-id": "req_mine"}}, openaiBody, func(t *testing.T, r response) {
			if got := r.header.Get("x-request-id"); got != "req_mine" {
				t.Errorf("x-request-id %q", got)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fake.NewServer(fake.WithRules(fake.Rule{Reply: tc.reply}))
			defer srv.Close()
			tc.check(t, post(t, srv, fake.OpenAIPath, nil, tc.body))
		})
	}
}

// content returns an Anthropic answer's content blocks and stop reason.
func content(t *testing.T, r response) ([]any, string) {
	t.Helper()
	m := r.json(t)
	stop, _ := m["stop_reason"].(string)
	blocks, _ := m["content"].([]any)
	return blocks, stop
}

func TestAnthropicFaults(t *testing.T) {
	args := json.RawMessage(`{"score": 9, "reason": "out of range", "gaps": ["a", "b"]}`)
	for _, tc := range []struct {
		name  string
		reply fake.Reply
		check func(t *testing.T, r response)
	}{
		{"malformed", fake.Reply{Arguments: args, Malformed: true, Stop: "max_tokens"}, func(t *testing.T, r response) {
			blocks, stop := content(t, r)
			input, _ := json.Marshal(blocks[0].(map[string]any)["input"])
			if string(input) != `{"score":9}` || stop != "max_tokens" {
				t.Errorf("input %s, stop %q", input, stop)
			}
		}},
		{"malformed, one member", fake.Reply{Arguments: json.RawMessage(`{"score":1}`), Malformed: true}, func(t *testing.T, r response) {
			blocks, stop := content(t, r)
			input, _ := json.Marshal(blocks[0].(map[string]any)["input"])
			if string(input) != `{}` || stop != "tool_use" {
				t.Errorf("input %s, stop %q", input, stop)
			}
		}},
		{"invalid arguments fail loudly", fake.Reply{Arguments: json.RawMessage(`{"score":`)}, func(t *testing.T, r response) {
			if r.status != 500 || !strings.Contains(r.body, "not valid JSON") {
				t.Errorf("got %d %s", r.status, r.body)
			}
		}},
		{"refusal", fake.Reply{Refusal: "I won't."}, func(t *testing.T, r response) {
			blocks, stop := content(t, r)
			if stop != "refusal" || len(blocks) != 1 || blocks[0].(map[string]any)["text"] != "I won't." {
				t.Errorf("got %s", r.body)
			}
		}},
		{"no tool call", fake.Reply{NoToolCall: true, Text: "Looks fine."}, func(t *testing.T, r response) {
			blocks, stop := content(t, r)
			if stop != "end_turn" || len(blocks) != 1 || blocks[0].(map[string]any)["type"] != "text" {
				t.Errorf("got %s", r.body)
			}
		}},
		{"judge stop name translated", fake.Reply{Stop: judge.StopEnd}, func(t *testing.T, r response) {
			if _, stop := content(t, r); stop != "end_turn" {
				t.Errorf("stop %q", stop)
			}
		}},
		{"native stop sent as it is", fake.Reply{Stop: "stop_sequence"}, func(t *testing.T, r response) {
			if _, stop := content(t, r); stop != "stop_sequence" {
				t.Errorf("stop %q", stop)
			}
		}},
		{"overloaded", fake.Reply{Status: 529}, func(t *testing.T, r response) {
			m := r.json(t)
			e := m["error"].(map[string]any)
			if r.status != 529 || m["type"] != "error" || e["type"] != "overloaded_error" || e["message"] != "fake: 529 Overloaded" {
				t.Errorf("got %d %s", r.status, r.body)
			}
		}},
		{"rate limited", fake.Reply{Status: 429, RetryAfter: "Wed, 21 Oct 2015 07:28:00 GMT"}, func(t *testing.T, r response) {
			e := r.json(t)["error"].(map[string]any)
			if r.status != 429 || e["type"] != "rate_limit_error" || r.header.Get("Retry-After") != "Wed, 21 Oct 2015 07:28:00 GMT" {
				t.Errorf("got %d %v %s", r.status, r.header, r.body)
			}
		}},
		{"usage given", fake.Reply{InputTokens: 5, OutputTokens: 6}, func(t *testing.T, r response) {
			u := r.json(t)["usage"].(map[string]any)
			if u["input_tokens"] != 5.0 || u["output_tokens"] != 6.0 {
				t.Errorf("usage %v", u)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fake.NewServer(fake.WithRules(fake.Rule{Reply: tc.reply}))
			defer srv.Close()
			tc.check(t, post(t, srv, fake.AnthropicPath, anthroHeader, anthroBody))
		})
	}
}

func TestValidation(t *testing.T) {
	srv := fake.NewServer(fake.WithRules(fake.Rule{}))
	defer srv.Close()
	keyed := fake.NewServer(fake.WithAPIKey("sk-right"), fake.WithRules(fake.Rule{}))
	defer keyed.Close()
	for _, tc := range []struct {
		name         string
		srv          *fake.Server
		method, path string
		header       map[string]string
		body         string
		status       int
		errType      string
		msg          string
	}{
		{"openai get", srv, "GET", fake.OpenAIPath, nil, "", 405, "invalid_request_error", "method GET"},
		{"openai bad json", srv, "POST", fake.OpenAIPath, nil, "{", 400, "invalid_request_error", "could not parse the JSON"},
		{"openai no model", srv, "POST", fake.OpenAIPath, nil, `{"messages":[{"role":"user","content":"x"}]}`, 400, "invalid_request_error", "model"},
		{"openai no messages", srv, "POST", fake.OpenAIPath, nil, `{"model":"m"}`, 400, "invalid_request_error", "messages"},
		{"openai bad role", srv, "POST", fake.OpenAIPath, nil, `{"model":"m","messages":[{"role":"robot","content":"x"}]}`, 400, "invalid_request_error", "role"},
		{"openai unknown tool chosen", srv, "POST", fake.OpenAIPath, nil, strings.Replace(openaiBody, `"function":{"name":"verdict"}}}`, `"function":{"name":"other"}}}`, 1), 400, "invalid_request_error", `"other"`},
		{"openai schema without name", srv, "POST", fake.OpenAIPath, nil, strings.Replace(schemaBody, `"name":"verdict",`, "", 1), 400, "invalid_request_error", "json_schema.name"},
		{"openai no key", keyed, "POST", fake.OpenAIPath, nil, openaiBody, 401, "invalid_request_error", "didn't provide an API key"},
		{"openai wrong key", keyed, "POST", fake.OpenAIPath, map[string]string{"Authorization": "Bearer sk-wrong"}, openaiBody, 401, "invalid_request_error", "Incorrect API key"},
		{"anthropic get", srv, "GET", fake.AnthropicPath, anthroHeader, "", 405, "invalid_request_error", "method GET"},
		{"anthropic no version", srv, "POST", fake.AnthropicPath, nil, anthroBody, 400, "invalid_request_error", "anthropic-version"},
		{"anthropic bad json", srv, "POST", fake.AnthropicPath, anthroHeader, "[", 400, "invalid_request_error", "request body"},
		{"anthropic no model", srv, "POST", fake.AnthropicPath, anthroHeader, `{"max_tokens":1,"messages":[{"role":"user","content":"x"}]}`, 400, "invalid_request_error", "model: Field required"},
		{"anthropic no max_tokens", srv, "POST", fake.AnthropicPath, anthroHeader, `{"model":"m","messages":[{"role":"user","content":"x"}]}`, 400, "invalid_request_error", "max_tokens: Field required"},
		{"anthropic no messages", srv, "POST", fake.AnthropicPath, anthroHeader, `{"model":"m","max_tokens":1,"messages":[]}`, 400, "invalid_request_error", "messages"},
		{"anthropic system role", srv, "POST", fake.AnthropicPath, anthroHeader, `{"model":"m","max_tokens":1,"messages":[{"role":"system","content":"x"}]}`, 400, "invalid_request_error", "role"},
		{"anthropic tool without schema", srv, "POST", fake.AnthropicPath, anthroHeader, strings.Replace(anthroBody, `,"input_schema":{"type":"object"}`, "", 1), 400, "invalid_request_error", "input_schema"},
		{"anthropic unknown tool chosen", srv, "POST", fake.AnthropicPath, anthroHeader, strings.Replace(anthroBody, `"type":"tool","name":"verdict"`, `"type":"tool","name":"other"`, 1), 400, "invalid_request_error", `"other"`},
		{"anthropic no key", keyed, "POST", fake.AnthropicPath, anthroHeader, anthroBody, 401, "authentication_error", "x-api-key header is required"},
		{"anthropic wrong key", keyed, "POST", fake.AnthropicPath, map[string]string{"anthropic-version": "2023-06-01", "x-api-key": "sk-wrong"}, anthroBody, 401, "authentication_error", "invalid x-api-key"},
		{"unknown path", srv, "POST", "/v1/completions", nil, "{}", 404, "not_found_error", "no endpoint POST /v1/completions"},
		{"openai path without version", srv, "POST", "/chat/completions", nil, openaiBody, 404, "not_found_error", "no endpoint"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := send(t, context.Background(), tc.srv, tc.method, tc.path, tc.header, tc.body)
			if err != nil {
				t.Fatal(err)
			}
			e, _ := r.json(t)["error"].(map[string]any)
			if r.status != tc.status || e["type"] != tc.errType || !strings.Contains(fmt.Sprint(e["message"]), tc.msg) {
				t.Errorf("got %d %s, want %d %s %q", r.status, r.body, tc.status, tc.errType, tc.msg)
			}
		})
	}
	// Invalid requests are recorded but spend no rule.
	spent := fake.NewServer(fake.WithRules(fake.Rule{Times: 1, Reply: fake.Reply{Text: "once"}}))
	defer spent.Close()
	post(t, spent, fake.OpenAIPath, nil, `{"model":"m"}`)
	if r := post(t, spent, fake.OpenAIPath, nil, `{"model":"m","messages":[{"role":"user","content":"x"}]}`); !strings.Contains(r.body, `"once"`) {
		t.Errorf("the rule was spent by an invalid request: %s", r.body)
	}
	if n := spent.Count(); n != 2 {
		t.Errorf("Count %d, want 2", n)
	}
	// Right keys pass.
	if r := post(t, keyed, fake.OpenAIPath, map[string]string{"Authorization": "Bearer sk-right"}, openaiBody); r.status != 200 {
		t.Errorf("openai with the right key: %d %s", r.status, r.body)
	}
	if r := post(t, keyed, fake.AnthropicPath, map[string]string{"anthropic-version": "2023-06-01", "x-api-key": "sk-right"}, anthroBody); r.status != 200 {
		t.Errorf("anthropic with the right key: %d %s", r.status, r.body)
	}
}

func TestLatencyUsesSleep(t *testing.T) {
	var mu sync.Mutex
	var slept []time.Duration
	srv := fake.NewServer(
		fake.WithRules(fake.Rule{Reply: fake.Reply{Latency: 200 * time.Millisecond, Status: 503}}),
		fake.WithSleep(func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			defer mu.Unlock()
			if ctx.Err() != nil {
				t.Error("sleep called with a done context")
			}
			slept = append(slept, d)
			return nil
		}),
	)
	defer srv.Close()
	if r := post(t, srv, fake.OpenAIPath, nil, openaiBody); r.status != 503 {
		t.Errorf("status %d after the latency, want 503", r.status)
	}
	if r := post(t, srv, fake.AnthropicPath, anthroHeader, anthroBody); r.status != 503 {
		t.Errorf("status %d after the latency, want 503", r.status)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []time.Duration{200 * time.Millisecond, 200 * time.Millisecond}; !reflect.DeepEqual(slept, want) {
		t.Errorf("slept %v, want %v", slept, want)
	}
}

// cancelOnArrival returns an observer option and a context that is
// cancelled as soon as the fake records a request.
func cancelOnArrival() (fake.Option, context.Context) {
	ctx, cancel := context.WithCancel(context.Background())
	return fake.WithObserver(func(fake.Request) { cancel() }), ctx
}

func TestHangEndsWhenTheClientGoesAway(t *testing.T) {
	for _, reply := range []fake.Reply{
		{Hang: true},
		// The default sleep: a real timer that the cancellation cuts short.
		{Latency: time.Hour},
	} {
		observe, ctx := cancelOnArrival()
		srv := fake.NewServer(observe, fake.WithRules(fake.Rule{Reply: reply}))
		_, err := send(t, ctx, srv, http.MethodPost, fake.OpenAIPath, nil, openaiBody)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%+v: got %v, want context.Canceled", reply, err)
		}
		srv.Close() // returns: the handler saw the client go
	}
}

func TestCloseReleasesHangingRequests(t *testing.T) {
	arrived := make(chan struct{})
	srv := fake.NewServer(
		fake.WithRules(fake.Rule{Reply: fake.Reply{Hang: true}}),
		fake.WithObserver(func(fake.Request) { close(arrived) }),
	)
	done := make(chan struct{})
	go func() {
		<-arrived
		srv.Close()
		close(done)
	}()
	r := post(t, srv, fake.AnthropicPath, anthroHeader, anthroBody)
	if r.status != 503 || !strings.Contains(r.body, "server closed") {
		t.Errorf("got %d %s, want 503 server closed", r.status, r.body)
	}
	<-done
}

func TestHandlerClosedAnswers503(t *testing.T) {
	h := fake.NewHandler(fake.WithRules(fake.Rule{}))
	h.Close()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, fake.OpenAIPath, strings.NewReader(openaiBody)))
	if rec.Code != 503 || !strings.Contains(rec.Body.String(), "server closed") {
		t.Errorf("got %d %s, want 503", rec.Code, rec.Body)
	}
}

func TestScriptWhileRequestsAreInFlight(t *testing.T) {
	srv := fake.NewServer(fake.WithRules(fake.Rule{Reply: fake.Reply{Text: "v0"}}))
	defer srv.Close()
	const workers, each, scripts = 4, 10, 20
	var wg sync.WaitGroup
	errs := make(chan string, workers*each)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				r, err := send(t, context.Background(), srv, http.MethodPost, fake.OpenAIPath, nil,
					`{"model":"m","messages":[{"role":"user","content":"x"}]}`)
				if err != nil || r.status != 200 || !strings.Contains(r.body, `"content":"v`) {
					errs <- fmt.Sprint(r.status, r.body, err)
				}
			}
		}()
	}
	for i := 1; i <= scripts; i++ {
		srv.Script(fake.Rule{Reply: fake.Reply{Text: fmt.Sprintf("v%d", i)}})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if n := srv.Count(); n != workers*each {
		t.Errorf("Count %d, want %d", n, workers*each)
	}
	if r := post(t, srv, fake.OpenAIPath, nil, `{"model":"m","messages":[{"role":"user","content":"x"}]}`); !strings.Contains(r.body, fmt.Sprintf(`"v%d"`, scripts)) {
		t.Errorf("after the last Script: %s", r.body)
	}
}

func TestTimesUnderConcurrency(t *testing.T) {
	srv := fake.NewServer(fake.WithRules(
		fake.Rule{Times: 5, Reply: fake.Reply{Status: 503}},
		fake.Rule{Reply: fake.Reply{Text: "ok"}},
	))
	defer srv.Close()
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := send(t, context.Background(), srv, http.MethodPost, fake.OpenAIPath, nil,
				`{"model":"m","messages":[{"role":"user","content":"x"}]}`)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			statuses[r.status]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if want := map[int]int{503: 5, 200: 15}; !reflect.DeepEqual(statuses, want) {
		t.Errorf("statuses %v, want %v", statuses, want)
	}
}

func TestScriptPanicsOnABadPattern(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "rule 1: pattern") {
			t.Errorf("recovered %v", r)
		}
	}()
	fake.NewHandler().Script(fake.Rule{}, fake.Rule{Pattern: "("})
}

func TestUsageIsDeterministic(t *testing.T) {
	srv := fake.NewServer(fake.WithRules(fake.Rule{Reply: fake.Reply{Arguments: json.RawMessage(`{"a":1}`)}}))
	defer srv.Close()
	for range 2 {
		u := post(t, srv, fake.AnthropicPath, anthroHeader, anthroBody).json(t)["usage"].(map[string]any)
		// 35 prompt bytes, 7 argument bytes.
		if in, out := (len(prompt)+3)/4, 2; u["input_tokens"] != float64(in) || u["output_tokens"] != float64(out) {
			t.Errorf("usage %v, want %d in, %d out", u, in, out)
		}
	}
}

// Scored answers criteria on the scale the schema asks for, and claims
// from 0 to 1.
func TestScoredScales(t *testing.T) {
	for _, tc := range []struct {
		schema string
		score  float64
		want   float64
	}{
		{`{"properties":{"criteria":{"items":{"properties":{"id":{"enum":["a","claim c1"]},"score":{"type":"number","minimum":0,"maximum":5}}}},"dimensions":{"properties":{}}}}`, 0.9, 5},
		{`{"properties":{"criteria":{"items":{"properties":{"id":{"enum":["a","claim c1"]},"score":{"type":"number","minimum":0,"maximum":5}}}},"dimensions":{"properties":{}}}}`, 0.5, 3},
		{`{"properties":{"criteria":{"items":{"properties":{"id":{"enum":["a","claim c1"]},"score":{"enum":[0,0.5,1]}}}},"dimensions":{"properties":{}}}}`, 0.9, 1},
		{`{"properties":{"criteria":{"items":{"properties":{"id":{"enum":["a","claim c1"]},"score":{"enum":[0,0.5,1]}}}},"dimensions":{"properties":{}}}}`, 0.5, 0},
		{`{"properties":{"criteria":{"items":{"properties":{"id":{"enum":["a","claim c1"]},"score":{"type":"number","minimum":0,"maximum":1}}}},"dimensions":{"properties":{}}}}`, 0.9, 0.9},
	} {
		rep := fake.Scored(tc.score)(&fake.Request{Tool: judge.Tool{Schema: []byte(tc.schema)}})
		var out struct {
			Criteria []struct {
				ID    string  `json:"id"`
				Score float64 `json:"score"`
			} `json:"criteria"`
		}
		if err := json.Unmarshal(rep.Arguments, &out); err != nil || len(out.Criteria) != 2 {
			t.Fatalf("%s: %v %s", tc.schema, err, rep.Arguments)
		}
		if out.Criteria[0].Score != tc.want || out.Criteria[1].Score != tc.score {
			t.Errorf("score %v on %s: criterion %v (want %v), claim %v (want %v)", tc.score, tc.schema, out.Criteria[0].Score, tc.want, out.Criteria[1].Score, tc.score)
		}
	}
}
