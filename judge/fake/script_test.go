package fake_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vouchgate/vouch/judge/fake"
)

func TestLoadScript(t *testing.T) {
	const script = `[
	  {"provider": "openai", "model": "gpt-test", "times": 2, "reply": {"status": 503, "retryAfter": 2}},
	  {"provider": "anthropic", "reply": {"status": 429, "retryAfter": "Wed, 21 Oct 2015 07:28:00 GMT", "errorType": "rate_limit_error", "errorMessage": "slow down", "headers": {"retry-after-ms": "1500"}}},
	  {"contains": "release notes", "pattern": "(?i)grade", "reply": {"arguments": {"score": 4, "reason": "clear"}, "latency": "200ms", "text": "ok", "inputTokens": 10, "outputTokens": 3}},
	  {"reply": {"malformed": true, "stop": "max_tokens", "arguments": {"a": 1}}},
	  {"reply": {"noToolCall": true, "refusal": "no", "hang": true, "body": "not json", "arguments": null}}
	]`
	got, err := fake.LoadScript(strings.NewReader(script))
	if err != nil {
		t.Fatal(err)
	}
	want := []fake.Rule{
		{Provider: "openai", Model: "gpt-test", Times: 2, Reply: fake.Reply{Status: 503, RetryAfter: "2"}},
		{Provider: "anthropic", Reply: fake.Reply{Status: 429, RetryAfter: "Wed, 21 Oct 2015 07:28:00 GMT", ErrorType: "rate_limit_error", ErrorMessage: "slow down", Headers: map[string]string{"retry-after-ms": "1500"}}},
		{Contains: "release notes", Pattern: "(?i)grade", Reply: fake.Reply{Arguments: json.RawMessage(`{"score": 4, "reason": "clear"}`), Latency: 200 * time.Millisecond, Text: "ok", InputTokens: 10, OutputTokens: 3}},
		{Reply: fake.Reply{Malformed: true, Stop: "max_tokens", Arguments: json.RawMessage(`{"a": 1}`)}},
		{Reply: fake.Reply{NoToolCall: true, Refusal: "no", Hang: true, Body: "not json"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
	// The rules load into a server.
	srv := fake.NewServer(fake.WithRules(got...))
	srv.Close()

	if rules, err := fake.LoadScript(strings.NewReader(" [ ] ")); err != nil || len(rules) != 0 {
		t.Errorf("empty list: %v %v", rules, err)
	}
}

func TestLoadScriptErrors(t *testing.T) {
	for _, tc := range []struct{ script, want string }{
		{``, "must be a JSON list of rules"},
		{`{"rules": []}`, "must be a JSON list of rules"},
		{`[{"reply": {}}`, "not valid JSON"},
		{`[{}, 3]`, "rule 1: the rule must be an object, not 3"},
		{`[{"provider": "gemini"}]`, `rule 0: provider: "gemini" is not a provider`},
		{`[{"provider": 1}]`, "rule 0: provider: want a string, not 1"},
		{`[{}, {"Provider": "openai"}]`, "rule 1: Provider: unknown field"},
		{`[{"pattern": "("}]`, "rule 0: pattern: error parsing regexp"},
		{`[{"times": -1}]`, "rule 0: times: -1 is negative"},
		{`[{"times": 1.5}]`, "rule 0: times: want an integer, not 1.5"},
		{`[{"reply": []}]`, "rule 0: reply must be an object, not []"},
		{`[{"reply": {"latency": "fast"}}]`, `rule 0: reply.latency: "fast" is not a duration`},
		{`[{"reply": {"latency": 200}}]`, `rule 0: reply.latency: want a duration string such as "200ms", not 200`},
		{`[{"reply": {"latency": "-1s"}}]`, `rule 0: reply.latency: "-1s" is negative`},
		{`[{"reply": {"status": 42}}]`, "rule 0: reply.status: 42 is not a status"},
		{`[{"reply": {"status": "503"}}]`, `rule 0: reply.status: want an integer, not "503"`},
		{`[{"reply": {"retryAfter": true}}]`, "rule 0: reply.retryAfter: want a string or a number of seconds, not true"},
		{`[{"reply": {"hang": "yes"}}]`, `rule 0: reply.hang: want true or false, not "yes"`},
		{`[{"reply": {"headers": {"a": 1}}}]`, "rule 0: reply.headers: want an object of strings"},
		{`[{"reply": {"inputTokens": -3}}]`, "rule 0: reply.inputTokens: -3 is negative"},
		{`[{"reply": {"latencyMs": 5}}]`, "rule 0: reply.latencyMs: unknown field"},
	} {
		_, err := fake.LoadScript(strings.NewReader(tc.script))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.script, err, tc.want)
		}
	}
}
