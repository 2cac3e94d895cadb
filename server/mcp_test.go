package server

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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
	if err != nil || v.Verdict != "retry" {
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
	if err != nil || !res3.IsError || !strings.Contains(toolText(res3), "already stored") {
		t.Errorf("a changed request under the same id: %v %s", err, toolText(res3))
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
