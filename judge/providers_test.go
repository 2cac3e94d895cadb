package judge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/vouchgate/vouch/judge"
	"github.com/vouchgate/vouch/judge/anthropic"
	"github.com/vouchgate/vouch/judge/fake"
	"github.com/vouchgate/vouch/judge/openai"
)

// provider is one model API client, as the shared tests make it.
type provider struct {
	name            string
	new             func(baseURL, key string, headers map[string]string) judge.Provider
	fromEnv         func() judge.Provider
	envBase, envKey string
	defaultBase     string
	// path is what the base URL adds to the server's: its API version.
	path      string
	keyHeader string
	keyValue  func(key string) string
}

var providers = []provider{
	{
		name: "anthropic",
		new: func(baseURL, key string, headers map[string]string) judge.Provider {
			return anthropic.New(anthropic.Options{BaseURL: baseURL, APIKey: key, Headers: headers})
		},
		fromEnv: func() judge.Provider { return anthropic.FromEnv() },
		envBase: "ANTHROPIC_BASE_URL", envKey: "ANTHROPIC_API_KEY", defaultBase: anthropic.DefaultBaseURL,
		keyHeader: "x-api-key", keyValue: func(k string) string { return k },
	},
	{
		name: "openai",
		new: func(baseURL, key string, headers map[string]string) judge.Provider {
			return openai.New(openai.Options{BaseURL: baseURL, APIKey: key, Headers: headers})
		},
		fromEnv: func() judge.Provider { return openai.FromEnv() },
		envBase: "OPENAI_BASE_URL", envKey: "OPENAI_API_KEY", defaultBase: openai.DefaultBaseURL, path: "/v1",
		keyHeader: "Authorization", keyValue: func(k string) string { return "Bearer " + k },
	},
}

// providerKey is distinctive so that a leak is found wherever it is.
const providerKey = "sk-test-Zq8LeakCanary3VwX"

func providerCall() *judge.Call {
	return &judge.Call{Model: "m", System: "Grade.", Messages: []judge.Message{{Role: "user", Content: "Grade it."}},
		Tool: judge.Tool{Name: "verdict", Schema: json.RawMessage(`{"type":"object","properties":{"score":{"type":"number"}}}`)}, MaxTokens: 100}
}

// TestProviders holds both API clients to what they share: the key goes
// in its header and nowhere else (not in any formatting of the client,
// not in an error that echoes it), extra headers are sent, no key sends
// no key header, a nil call is an error, and FromEnv reads the
// provider's variables.
func TestProviders(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			srv := fake.NewServer(fake.WithAPIKey(providerKey), fake.WithRules(fake.Rule{}))
			defer srv.Close()
			base := srv.URL() + p.path
			c := p.new(base+"/", providerKey, map[string]string{"X-Extra": "1"})
			if _, err := c.Complete(context.Background(), providerCall()); err != nil {
				t.Fatal(err)
			}
			h := srv.Requests()[0].Header
			if h.Get(p.keyHeader) != p.keyValue(providerKey) || h.Get("X-Extra") != "1" {
				t.Errorf("headers %v", h)
			}
			for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%d", "%x", "%q"} {
				if s := fmt.Sprintf(verb, c); strings.Contains(s, providerKey) || strings.Contains(s, fmt.Sprintf("%x", providerKey)) {
					t.Errorf("%s prints the key: %s", verb, s)
				}
			}
			if s := fmt.Sprint(c); s != p.name+"("+base+")" {
				t.Errorf("String %q: want the name and the base URL without its slash", s)
			}

			// An error that echoes the key shows it redacted.
			echo := fake.NewServer(fake.WithAPIKey(providerKey), fake.WithRules(fake.Rule{Reply: fake.Reply{Status: 401, ErrorMessage: "bad key " + providerKey}}))
			defer echo.Close()
			_, err := p.new(echo.URL()+p.path, providerKey, nil).Complete(context.Background(), providerCall())
			if err == nil || strings.Contains(fmt.Sprintf("%v %+v %#v", err, err, err), providerKey) || !strings.Contains(err.Error(), "[redacted]") {
				t.Errorf("an echoed key: %v", err)
			}

			// No key, no key header.
			open := fake.NewServer(fake.WithRules(fake.Rule{}))
			defer open.Close()
			if _, err := p.new(open.URL()+p.path, "", nil).Complete(context.Background(), providerCall()); err != nil {
				t.Fatal(err)
			}
			if _, ok := open.Requests()[0].Header[http.CanonicalHeaderKey(p.keyHeader)]; ok {
				t.Errorf("%s sent without a key", p.keyHeader)
			}

			if _, err := c.Complete(context.Background(), nil); err == nil {
				t.Error("a nil call: no error")
			}

			// FromEnv reads the provider's variables, and defaults the URL.
			t.Setenv(p.envBase, base+"/")
			t.Setenv(p.envKey, providerKey)
			if _, err := p.fromEnv().Complete(context.Background(), providerCall()); err != nil {
				t.Fatal(err)
			}
			if got := srv.Requests()[1].Header.Get(p.keyHeader); got != p.keyValue(providerKey) {
				t.Errorf("FromEnv's key header %q", got)
			}
			t.Setenv(p.envBase, "")
			if s := fmt.Sprint(p.fromEnv()); s != p.name+"("+p.defaultBase+")" {
				t.Errorf("FromEnv's default base URL: %s", s)
			}
		})
	}
}
