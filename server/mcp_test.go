package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/examplews"
	"github.com/vouchgate/vouch/store"
)

// bearer adds an API key to each request of an MCP client.
type bearerTransport struct{ key string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.key != "" {
		r.Header.Set("Authorization", "Bearer "+b.key)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// mcpSession connects the SDK's client to the server's /mcp with key.
func (e *testEnv) mcpSession(key string) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := c.Connect(e.t.Context(), &mcp.StreamableClientTransport{
		Endpoint:   e.http.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearerTransport{key}},
	}, nil)
	if err == nil {
		e.t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

func toolText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestMCP calls the verify tools over streamable HTTP with the server's
// keys: a verification lands in the caller's tenant, a workspace is a
// name and never a path, a replay gives the stored report, and reports
// are resources for the read scope, of the caller's tenant only.
func TestMCP(t *testing.T) {
	ex, err := examplews.Build("../examples", "jsdoc", "dishonest", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(c *Config) { c.Workspaces = map[string]string{"jsdoc": ex.Dir} })
	writer, _ := e.key("acme", store.ScopeVerify)
	reader, _ := e.key("acme", store.ScopeVerify, store.ScopeRead)
	other, _ := e.key("globex", store.ScopeVerify, store.ScopeRead)
	readOnly, _ := e.key("acme", store.ScopeRead)

	if _, err := e.mcpSession(""); err == nil {
		t.Error("connected without a key")
	}
	if _, err := e.mcpSession(readOnly); err == nil {
		t.Error("connected with a key lacking the verify scope")
	}

	cs, err := e.mcpSession(writer)
	if err != nil {
		t.Fatal(err)
	}
	args := ex.Request
	delete(args, "kind")
	args["workspace"], args["base"], args["id"] = "jsdoc", ex.Base, "docs-7-run"
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "verify_output", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("tool error: %s", toolText(res))
	}
	var rep struct{ ID, Verdict string }
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &rep); err != nil || rep.Verdict != "retry" {
		t.Fatalf("report %s (%v)", b, err)
	}
	if strings.Contains(toolText(res), "vouch://") {
		t.Error("a key without the read scope is pointed at a resource it cannot read")
	}
	v, err := e.store.Get(t.Context(), "acme", rep.ID, 0)
	if err != nil || v.Verdict != vouch.VerdictRetry {
		t.Fatalf("stored %+v, %v", v, err)
	}
	if _, err := e.store.Get(t.Context(), "globex", rep.ID, 0); err == nil {
		t.Error("stored in another tenant too")
	}

	// A replay of the same arguments gives the stored report; other
	// arguments under the same id and attempt are refused.
	res2, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "verify_output", Arguments: args})
	if err != nil || res2.IsError {
		t.Fatalf("replay: %v %s", err, toolText(res2))
	}
	b2, _ := json.Marshal(res2.StructuredContent)
	if string(b2) != string(b) {
		t.Error("a replay gave another report")
	}
	changed := map[string]any{}
	for k, v := range args {
		changed[k] = v
	}
	changed["interactionId"] = "other"
	res3, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "verify_output", Arguments: changed})
	if err != nil || !res3.IsError || !strings.Contains(toolText(res3), "already stored for other arguments: raise attempt") {
		t.Errorf("a changed request under the same id: %v %s", err, toolText(res3))
	}
	if !strings.Contains(toolText(res2), "nothing was verified now") {
		t.Errorf("a replay does not say so: %s", toolText(res2))
	}
	// Without an id, the same arguments are verified afresh each time:
	// the work may have been fixed in between.
	delete(args, "id")
	var ids []string
	for range 2 {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "verify_output", Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%v %s", err, toolText(res))
		}
		var r struct{ ID string }
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &r)
		if _, err := e.store.Get(t.Context(), "acme", r.ID, 0); err != nil {
			t.Errorf("%s not stored: %v", r.ID, err)
		}
		ids = append(ids, r.ID)
	}
	if ids[0] == ids[1] {
		t.Errorf("the same arguments without an id got one id: %v", ids)
	}

	// A workspace is a name, never a path.
	for _, ws := range []string{ex.Dir, filepath.Dir(ex.Dir), "../jsdoc", "/"} {
		a := map[string]any{"task": map[string]any{"goal": "g"}, "output": map[string]any{"summary": "done"}, "workspace": ws}
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "verify_output", Arguments: a})
		if err != nil || !res.IsError || !strings.Contains(toolText(res), "unknown workspace") {
			t.Errorf("workspace %q: %v %s", ws, err, toolText(res))
		}
	}

	// Without the read scope, no resources.
	if cs.InitializeResult().Capabilities.Resources != nil {
		t.Error("resources offered to a key without the read scope")
	}
	rc, err := e.mcpSession(reader)
	if err != nil {
		t.Fatal(err)
	}
	uri := "vouch://verifications/" + rep.ID
	got, err := rc.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
	if err != nil || len(got.Contents) != 1 || got.Contents[0].Text != string(v.Result) {
		t.Fatalf("resource: %v %+v", err, got)
	}
	oc, err := e.mcpSession(other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := oc.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri}); err == nil {
		t.Error("another tenant read the report")
	}
}

// TestMCPOff checks that mcp: false serves nothing at /mcp.
func TestMCPOff(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MCP = false; c.Dashboard = false })
	if r := e.do("POST", "/mcp", "", []byte(`{}`)); r.status != http.StatusNotFound {
		t.Errorf("status %d", r.status)
	}
}

// TestMCPRefusesBatches checks that one HTTP request cannot carry many
// verifications (a JSON-RPC batch) past the in-flight limit.
func TestMCPRefusesBatches(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxInFlight = 1 })
	call := `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"verify_output","arguments":{"id":"b-%d","task":{},"output":{"summary":"DONE"}}}}`
	var batch []string
	for i := range 20 {
		batch = append(batch, fmt.Sprintf(call, i, i))
	}
	r := e.do("POST", "/mcp", "", []byte(" ["+strings.Join(batch, ",")+"]"), "Content-Type", "application/json", "Accept", "application/json, text/event-stream")
	if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "batches") {
		t.Errorf("status %d: %s", r.status, r.body)
	}
	page, err := e.store.List(t.Context(), DefaultTenant, store.Filter{Limit: 100})
	if err != nil || len(page.Items) != 0 {
		t.Errorf("verified %d of a refused batch (%v)", len(page.Items), err)
	}
}

// TestMCPBehindProxy checks that a key-authenticated call with the Host of
// a reverse proxy in front is served, as the API's are.
func TestMCPBehindProxy(t *testing.T) {
	e := newEnv(t, nil)
	key, _ := e.key("acme", store.ScopeVerify)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	r := e.do("POST", "/mcp", key, []byte(init), "Host", "vouch.example.com", "Content-Type", "application/json", "Accept", "application/json, text/event-stream")
	if r.status != http.StatusOK || !strings.Contains(string(r.body), `"serverInfo"`) {
		t.Errorf("status %d: %s", r.status, r.body)
	}
	// Without a key, in open mode, a foreign Host is refused (DNS
	// rebinding).
	open := newEnv(t, nil)
	if r := open.do("POST", "/mcp", "", []byte(init), "Host", "evil.example.com", "Content-Type", "application/json", "Accept", "application/json, text/event-stream"); r.status != http.StatusForbidden {
		t.Errorf("open mode, foreign Host: status %d", r.status)
	}
}
