package fake_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/vouchgate/vouch/judge"
	"github.com/vouchgate/vouch/judge/fake"
	"github.com/vouchgate/vouch/judge/openai"
)

// The fake answers an OpenAI client: the first call is rate limited, the
// second gets the scripted verdict.
func Example() {
	srv := fake.NewServer(fake.WithRules(
		fake.Rule{Times: 1, Reply: fake.Reply{Status: 429, RetryAfter: "2"}},
		fake.Rule{Contains: "release notes", Reply: fake.Reply{
			Arguments: json.RawMessage(`{"score": 4, "reason": "accurate"}`),
		}},
	))
	defer srv.Close()

	client := openai.New(openai.Options{BaseURL: srv.URL() + "/v1", APIKey: "sk-example"})
	call := &judge.Call{
		Model:    "gpt-4o",
		System:   "You grade agent outputs.",
		Messages: []judge.Message{{Role: "user", Content: "Grade these release notes."}},
		Tool: judge.Tool{
			Name:   "verdict",
			Schema: json.RawMessage(`{"type": "object", "properties": {"score": {"type": "integer"}}}`),
		},
	}

	_, err := client.Complete(context.Background(), call)
	var apiErr *judge.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr)
		fmt.Println(apiErr.RetryAfter, apiErr.Retryable())
	}

	reply, err := client.Complete(context.Background(), call)
	if err != nil {
		panic(err)
	}
	fmt.Println(reply.Stop, string(reply.Arguments))
	fmt.Println(reply.Usage.InputTokens, reply.Usage.OutputTokens, reply.RequestID)
	fmt.Println(srv.Count(), srv.Requests()[1].Tool.Name)
	// Output:
	// openai: HTTP 429 requests: fake: 429 Too Many Requests
	// 2s true
	// tool {"score": 4, "reason": "accurate"}
	// 13 9 req_fake_2
	// 2 verdict
}
