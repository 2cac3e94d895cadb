package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/examplews"
	"github.com/vouchgate/vouch/store"
)

// vouchBin returns the test binary under the name vouch (testscript.Main
// runs it as the command).
func vouchBin(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "vouch")
	if err := os.Symlink(self, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// startMCP starts `vouch mcp` as an agent's host does (a command, the
// protocol on its standard input and output), in dir, and connects the
// SDK's client to it.
func startMCP(t *testing.T, dir string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(vouchBin(t), append([]string{"mcp"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "VOUCH_JUDGE=", "VOUCH_CACHE=off")
	c := mcp.NewClient(&mcp.Implementation{Name: "claude-code", Version: "2"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestMCPStdio runs vouch mcp as Claude Code runs an MCP server, in the
// project it works on, and has it verify the agent's own work there: the
// JSDoc example, relative workspace ".", the claim of all 4 functions
// documented when one was is sent back; with --store the verification
// is recorded and its report is a resource.
func TestMCPStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the command")
	}
	ex, err := examplews.Build("../../examples", "jsdoc", "dishonest", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "vouch.db")
	cs := startMCP(t, ex.Dir, "--store", db)
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) != 5 {
		t.Fatalf("tools: %v %v", tools, err)
	}
	if _, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "self_check"}); err != nil {
		t.Errorf("self_check: %v", err)
	}
	args := ex.Request
	delete(args, "kind")
	args["workspace"], args["base"] = ".", ex.Base
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "verify_output", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		t.Fatalf("tool error: %s", text)
	}
	var rep struct{ ID, Verdict string }
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &rep); err != nil || rep.Verdict != "retry" {
		t.Fatalf("report %s", b)
	}
	if !strings.Contains(text, "claims.count") || !strings.Contains(text, "vouch://verifications/"+rep.ID) {
		t.Errorf("summary %q", text)
	}
	got, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "vouch://verifications/" + rep.ID})
	if err != nil || len(got.Contents) != 1 || !strings.Contains(got.Contents[0].Text, `"verdict":"retry"`) {
		t.Fatalf("resource: %v %+v", err, got)
	}
	// Outside the directory it started in: refused.
	args["workspace"] = filepath.Dir(ex.Dir)
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "verify_output", Arguments: args})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "outside the allowed workspace roots") {
		t.Errorf("workspace outside the root: %v %+v", err, res)
	}
	cs.Close()
	st, err := store.Open(t.Context(), db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	v, err := st.Get(t.Context(), "default", rep.ID, 0)
	if err != nil || v.Verdict != vouch.VerdictRetry || len(v.Request) == 0 {
		t.Errorf("recorded %+v, %v", v, err)
	}
}
