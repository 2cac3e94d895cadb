package server

import (
	"bufio"
	"context"
	"net/http"
	"testing"
)

// streamAs opens GET /v1/events with key and returns its status; a
// stream that opened stays open until the test ends.
func streamAs(t *testing.T, e *testEnv, key string) int {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.http.URL+"/v1/events", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := e.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	if res.StatusCode == http.StatusOK {
		// Subscribed once the first line is sent.
		if _, err := bufio.NewReader(res.Body).ReadString('\n'); err != nil {
			t.Fatal(err)
		}
	}
	return res.StatusCode
}

// One tenant's idle streams take no more than its share: before, 1000
// idle streams of one tenant filled the server's cap and every other
// tenant was answered 503.
func TestEventStreamsSharePerTenant(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxEventStreams = 3; c.MaxEventStreamsPerTenant = 2 })
	greedy, _ := e.key("greedy", "read")
	other, _ := e.key("other", "read")
	third, _ := e.key("third", "read")
	for i := range 2 {
		if code := streamAs(t, e, greedy); code != 200 {
			t.Fatalf("the greedy tenant's stream %d: %d", i+1, code)
		}
	}
	if code := streamAs(t, e, greedy); code != http.StatusServiceUnavailable {
		t.Fatalf("a third stream of one tenant: %d, want 503", code)
	}
	if code := streamAs(t, e, other); code != 200 {
		t.Fatalf("another tenant's stream: %d", code)
	}
	// The server's own cap still holds.
	if code := streamAs(t, e, third); code != http.StatusServiceUnavailable {
		t.Fatalf("a stream past the server's cap: %d, want 503", code)
	}
}
