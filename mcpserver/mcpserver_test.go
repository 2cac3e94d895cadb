package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vouchgate/vouch"
	_ "github.com/vouchgate/vouch/check/all"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/internal/examplews"
	"github.com/vouchgate/vouch/mcpserver"
)

// local builds the server vouch mcp runs: the engine in process, a
// workspace a path under roots.
func local(t *testing.T, dir string, roots []string, report mcpserver.ReportFunc) *mcp.Server {
	t.Helper()
	eng, err := engine.New(engine.Options{Workspace: mcpserver.Within(dir, roots)})
	if err != nil {
		t.Fatal(err)
	}
	s, err := mcpserver.New(mcpserver.Options{Verify: mcpserver.Engine(eng), Report: report, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// connect connects a client to s in process and returns its session.
func connect(t *testing.T, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return dial(t, ct)
}

func dial(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// jsdoc builds the JSDoc example's variant and returns the tool's
// arguments for it.
func jsdoc(t *testing.T, variant string) (*examplews.Example, map[string]any) {
	t.Helper()
	ex, err := examplews.Build("../examples", "jsdoc", variant, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	args := ex.Request
	delete(args, "kind")
	args["workspace"], args["base"] = ex.Dir, ex.Base
	return ex, args
}

// report is what a test reads of a tool result's structured content.
type report struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	Verdict string `json:"verdict"`
	Action  string `json:"action"`
	Checks  []struct {
		Name   string `json:"name"`
		Status string `json:"status"`
	} `json:"checks"`
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args any) (*mcp.CallToolResult, *report) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		return res, nil
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var r report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("structured content: %v: %s", err, b)
	}
	return res, &r
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestTools(t *testing.T) {
	cs := connect(t, local(t, t.TempDir(), nil, nil))
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		in, _ := json.Marshal(tl.InputSchema)
		for _, want := range []string{`"task"`, `"output"`, `"trace"`, `"context"`, `"workspace"`, `"base"`, `"attempt"`, `"id"`, `"interactionId"`} {
			if !strings.Contains(string(in), want) {
				t.Errorf("%s: input schema lacks %s", tl.Name, want)
			}
		}
		if strings.Contains(string(in), `"kind"`) {
			t.Errorf("%s: input schema offers kind, which the tool sets", tl.Name)
		}
		if tl.OutputSchema == nil || tl.Description == "" {
			t.Errorf("%s: no output schema or description", tl.Name)
		}
	}
	want := "verify_output verify_plan verify_synthesis verify_answer verify_moderation"
	if got := strings.Join(names, " "); !sameSet(got, want) {
		t.Errorf("tools = %s, want %s", got, want)
	}
	// Without a report reader, no resources.
	if cs.InitializeResult().Capabilities.Resources != nil {
		t.Error("resources offered without a store")
	}
}

func sameSet(a, b string) bool {
	x, y := strings.Fields(a), strings.Fields(b)
	if len(x) != len(y) {
		return false
	}
	seen := map[string]int{}
	for _, s := range x {
		seen[s]++
	}
	for _, s := range y {
		if seen[s]--; seen[s] < 0 {
			return false
		}
	}
	return true
}

// TestVerifyOutputJSDoc verifies the JSDoc example through the tool: the
// dishonest variant (one function documented, "all 4" claimed) is sent
// back, the honest one passes.
func TestVerifyOutputJSDoc(t *testing.T) {
	for _, tc := range []struct {
		variant, verdict string
	}{{"dishonest", "retry"}, {"honest", "pass"}} {
		t.Run(tc.variant, func(t *testing.T) {
			ex, args := jsdoc(t, tc.variant)
			cs := connect(t, local(t, ex.Dir, []string{filepath.Dir(ex.Dir)}, nil))
			res, r := call(t, cs, "verify_output", args)
			if res.IsError {
				t.Fatalf("tool error: %s", text(res))
			}
			if r.Verdict != tc.verdict || r.Kind != "subtask" {
				t.Fatalf("verdict %s kind %s, want %s subtask; %s", r.Verdict, r.Kind, tc.verdict, text(res))
			}
			sum := text(res)
			if !strings.HasPrefix(sum, "vouch: "+tc.verdict) {
				t.Errorf("summary = %q", sum)
			}
			if tc.verdict != "pass" && (!strings.Contains(sum, "Claims found false:\n- c1 \"Added JSDoc comments to all 4") || !strings.Contains(sum, "Feedback:")) {
				t.Errorf("the summary of a retry names no claim found false or no feedback: %q", sum)
			}
		})
	}
}

// TestToolsSetKind checks that each tool verifies its own kind, and that
// arguments cannot choose another.
func TestToolsSetKind(t *testing.T) {
	var mu sync.Mutex
	var got []vouch.Kind
	s, err := mcpserver.New(mcpserver.Options{Verify: func(_ context.Context, req *vouch.Request, body []byte) (mcpserver.Verified, error) {
		mu.Lock()
		got = append(got, req.Kind)
		mu.Unlock()
		if !strings.Contains(string(body), `"kind":"`+string(req.Kind)+`"`) {
			t.Errorf("body %s does not carry kind %s", body, req.Kind)
		}
		return mcpserver.Verified{Report: fmt.Appendf(nil, `{"id":"r-1","kind":%q,"verdict":"pass","action":"accept","confidence":1,"checks":[],"feedback":""}`, req.Kind)}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s)
	args := map[string]any{"task": map[string]any{"goal": "g"}, "output": map[string]any{"summary": "s"}}
	for tool, kind := range map[string]vouch.Kind{"verify_output": vouch.KindSubtask, "verify_plan": vouch.KindDecomposition,
		"verify_synthesis": vouch.KindSynthesis, "verify_answer": vouch.KindAnswer, "verify_moderation": vouch.KindModeration} {
		res, r := call(t, cs, tool, args)
		if res.IsError || r.Kind != string(kind) {
			t.Errorf("%s: kind %v, error %v %s", tool, r, res.IsError, text(res))
		}
	}
	if len(got) != 5 {
		t.Errorf("verified %d requests, want 5", len(got))
	}
	for _, bad := range []map[string]any{
		{"kind": "answer", "task": map[string]any{}, "output": map[string]any{"summary": "s"}},
		{"apiVersion": "vouch/v1", "task": map[string]any{}, "output": map[string]any{"summary": "s"}},
	} {
		res, _ := call(t, cs, "verify_output", bad)
		if !res.IsError || !strings.Contains(text(res), "the tool sets") {
			t.Errorf("%v: not refused: %s", bad, text(res))
		}
	}
	if len(got) != 5 {
		t.Errorf("a refused call was verified")
	}
}

// TestBadArguments checks that a request the decoder refuses comes back
// as a tool error naming each problem, not as a protocol error.
func TestBadArguments(t *testing.T) {
	cs := connect(t, local(t, t.TempDir(), nil, nil))
	for _, tc := range []struct {
		args any
		want string
	}{
		{map[string]any{"task": map[string]any{"goal": "g"}}, "output"},
		{map[string]any{"task": map[string]any{"goal": 3}, "output": map[string]any{"summary": "s"}}, "task.goal"},
		{map[string]any{"task": map[string]any{}, "output": map[string]any{"summary": "s"}, "attempt": -1}, "attempt"},
		{map[string]any{"task": map[string]any{}, "output": map[string]any{"summary": "s"}, "unknown": true}, "unknown"},
	} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "verify_output", Arguments: tc.args})
		if err != nil {
			t.Fatalf("%v: protocol error %v", tc.args, err)
		}
		if !res.IsError || !strings.Contains(text(res), tc.want) {
			t.Errorf("%v: error %v, text %q, want it to name %s", tc.args, res.IsError, text(res), tc.want)
		}
	}
}

// TestWorkspaceEscape checks that an agent cannot make the server read
// outside the allowed roots through the tool's arguments: not by an
// absolute path, a climb out, a symlink, the filesystem root or /proc.
func TestWorkspaceEscape(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("top secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	inside := filepath.Join(root, "ws")
	if err := os.Mkdir(inside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, local(t, root, []string{root}, nil))
	summary := "I read secret.txt: it says top secret."
	for _, ws := range []string{outside, "../" + filepath.Base(outside), "ws/../../" + filepath.Base(outside), "link", "/", "/proc/self", "/etc", "ws/../link"} {
		args := map[string]any{"task": map[string]any{"goal": "read"}, "output": map[string]any{"summary": summary, "created": []any{"secret.txt"}}, "workspace": ws}
		res, _ := call(t, cs, "verify_output", args)
		if !res.IsError {
			t.Errorf("workspace %q: verified, want refused", ws)
			continue
		}
		if msg := text(res); !strings.Contains(msg, "workspace") {
			t.Errorf("workspace %q: %q", ws, msg)
		}
	}
	// Inside the root, relative to the directory the server started in.
	args := map[string]any{"task": map[string]any{"goal": "x"}, "output": map[string]any{"summary": "done"}, "workspace": "ws"}
	if res, _ := call(t, cs, "verify_output", args); res.IsError {
		t.Errorf("workspace inside the root refused: %s", text(res))
	}
}

// TestResources reads stored reports as resources.
func TestResources(t *testing.T) {
	stored := map[string]string{"r-1": `{"id":"r-1","verdict":"pass"}`}
	s := local(t, t.TempDir(), nil, func(_ context.Context, id string) ([]byte, error) {
		if r, ok := stored[id]; ok {
			return []byte(r), nil
		}
		if id == "broken" {
			return nil, errors.New("disk on fire")
		}
		return nil, fmt.Errorf("verification %s: %w", id, mcpserver.ErrNotFound)
	})
	cs := connect(t, s)
	tmpl, err := cs.ListResourceTemplates(t.Context(), nil)
	if err != nil || len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate != mcpserver.ResourceTemplate {
		t.Fatalf("templates %v, %v", tmpl, err)
	}
	res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "vouch://verifications/r-1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 1 || res.Contents[0].Text != stored["r-1"] || res.Contents[0].MIMEType != "application/json" {
		t.Errorf("contents %+v", res.Contents)
	}
	for _, uri := range []string{"vouch://verifications/nope", "vouch://verifications/a/b", "vouch://verifications/broken"} {
		if _, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("%s: read, want an error", uri)
		}
	}
}

func TestSelfCheckPrompt(t *testing.T) {
	cs := connect(t, local(t, t.TempDir(), nil, nil))
	res, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "self_check", Arguments: map[string]string{"task": "fix the parser"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 1 {
		t.Fatalf("%d messages", len(res.Messages))
	}
	msg := res.Messages[0].Content.(*mcp.TextContent).Text
	for _, want := range []string{"The task: fix the parser", "verify_output", "output.summary", "attempt"} {
		if !strings.Contains(msg, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
}

// TestStdio runs the server over the stdio framing (newline-delimited
// JSON on a pair of pipes) and verifies the JSDoc example.
func TestStdio(t *testing.T) {
	ex, args := jsdoc(t, "dishonest")
	s := local(t, ex.Dir, []string{filepath.Dir(ex.Dir)}, nil)
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, &mcp.IOTransport{Reader: sr, Writer: sw}) }()
	cs := dial(t, &mcp.IOTransport{Reader: cr, Writer: cw})
	res, r := call(t, cs, "verify_output", args)
	if res.IsError || r.Verdict != "retry" {
		t.Fatalf("verdict %+v: %s", r, text(res))
	}
	cs.Close()
	cancel()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed) {
		t.Errorf("server: %v", err)
	}
}

// TestStreamableHTTP serves the tools over streamable HTTP, stateless, as
// vouch serve mounts them.
func TestStreamableHTTP(t *testing.T) {
	ex, args := jsdoc(t, "honest")
	s := local(t, ex.Dir, []string{filepath.Dir(ex.Dir)}, nil)
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(srv.Close)
	cs := dial(t, &mcp.StreamableClientTransport{Endpoint: srv.URL})
	res, r := call(t, cs, "verify_output", args)
	if res.IsError || r.Verdict != "pass" {
		t.Fatalf("verdict %+v: %s", r, text(res))
	}
}

// TestIDs checks that a call without an id gets one of its own, so that
// the same arguments sent again after the work was fixed are verified
// again rather than matched to the first report; a given id is kept, and
// a replayed report says so.
func TestIDs(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	s, err := mcpserver.New(mcpserver.Options{Verify: func(_ context.Context, req *vouch.Request, body []byte) (mcpserver.Verified, error) {
		mu.Lock()
		defer mu.Unlock()
		seen[req.ID]++
		if !strings.Contains(string(body), `"id":"`+req.ID+`"`) {
			t.Errorf("the body %s lacks the id %s", body, req.ID)
		}
		return mcpserver.Verified{Report: fmt.Appendf(nil, `{"id":%q,"verdict":"pass","action":"accept","confidence":1,"checks":[],"feedback":""}`, req.ID), Replayed: seen[req.ID] > 1}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s)
	args := map[string]any{"task": map[string]any{"goal": "g"}, "output": map[string]any{"summary": "s"}}
	_, a := call(t, cs, "verify_output", args)
	_, b := call(t, cs, "verify_output", args)
	if a.ID == b.ID || !strings.HasPrefix(a.ID, "mcp-") {
		t.Errorf("ids %q and %q: want two fresh ones", a.ID, b.ID)
	}
	args["id"] = "task-9"
	res1, r := call(t, cs, "verify_output", args)
	res2, _ := call(t, cs, "verify_output", args)
	if r.ID != "task-9" || strings.Contains(text(res1), "raise attempt") || !strings.Contains(text(res2), "raise attempt") {
		t.Errorf("id %q; first %q; replay %q", r.ID, text(res1), text(res2))
	}
}

// TestPanicIsAToolError checks that a verification that panics fails its
// call, and the server goes on.
func TestPanicIsAToolError(t *testing.T) {
	n := 0
	s, err := mcpserver.New(mcpserver.Options{Verify: func(context.Context, *vouch.Request, []byte) (mcpserver.Verified, error) {
		n++
		if n == 1 {
			panic("boom")
		}
		return mcpserver.Verified{Report: []byte(`{"id":"r","verdict":"pass","action":"accept","confidence":1,"checks":[],"feedback":""}`)}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s)
	args := map[string]any{"task": map[string]any{}, "output": map[string]any{"summary": "s"}}
	if res, _ := call(t, cs, "verify_output", args); !res.IsError || !strings.Contains(text(res), "boom") {
		t.Errorf("panic: %v %q", res.IsError, text(res))
	}
	if res, r := call(t, cs, "verify_output", args); res.IsError || r.Verdict != "pass" {
		t.Errorf("after the panic: %q", text(res))
	}
}

// TestSummaryLedger: the text summary names the claims found false and
// those nothing could check, and lists as failed checks only those no
// claim names.
func TestSummaryLedger(t *testing.T) {
	rep := `{"id":"r1","verdict":"unverified","action":"accept","reason":"1 of 2 claims could not be checked","score":1,"confidence":0.8,
		"claims":[{"id":"c1","text":"Added parse","state":"verified","reason":"git shows it","checks":[0]},
		          {"id":"c2","text":"it now returns 3","state":"unverified","reason":"no test shows it","checks":[]}],
		"checks":[{"name":"claims.symbol","status":"pass","reason":"git shows it"},{"name":"plugin:lint","status":"fail","reason":"2 findings"}],
		"feedback":"Which test shows it returns 3?"}`
	sum, err := mcpserver.Summary([]byte(rep), true)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"vouch: unverified (action accept, score 1.00, confidence 0.80)",
		"Claims nothing could check (not found false):\n- c2 \"it now returns 3\": no test shows it",
		"Failed checks:\n- plugin:lint: 2 findings", "Feedback:\nWhich test", "Report: vouch://verifications/r1"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
	if strings.Contains(sum, "Claims found false") || strings.Contains(sum, "Added parse") {
		t.Errorf("summary names a claim that holds, or a false one where none is:\n%s", sum)
	}
}
