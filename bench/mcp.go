package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vouchgate/vouch/internal/examplews"
)

// mcpBench times the verification of the JSDoc example (the dishonest
// variant) three ways: `vouch verify` as a process per verification, the
// verify_output tool of `vouch mcp` over stdio, and the tool at /mcp of
// `vouch serve` over streamable HTTP; n round trips each, one at a time.
func mcpBench(n int) error {
	dir, bin, cleanup, err := buildInTemp("vouch-bench-mcp-")
	if err != nil {
		return err
	}
	defer cleanup()
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		return err
	}
	ex, err := examplews.Build("examples", "jsdoc", "dishonest", ws)
	if err != nil {
		return err
	}
	args := ex.Request
	delete(args, "kind")
	fmt.Printf("the JSDoc example (dishonest), %d round trips each, one at a time\n", n)

	// The CLI: a process per verification.
	req := map[string]any{"kind": "subtask"}
	for k, v := range args {
		req[k] = v
	}
	reqFile := filepath.Join(dir, "request.json")
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if err := os.WriteFile(reqFile, b, 0o644); err != nil {
		return err
	}
	cli := make([]time.Duration, 0, n)
	for range n {
		cmd := exec.Command(bin, "verify", "--json", "--workspace", ex.Dir, "--base", ex.Base, reqFile)
		cmd.Env = append(os.Environ(), "VOUCH_JUDGE=", "VOUCH_CACHE=off")
		start := time.Now()
		out, err := cmd.Output()
		d := time.Since(start)
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			return fmt.Errorf("vouch verify: want exit 1 (retry), got %v: %s", err, out)
		}
		if !strings.Contains(string(out), `"verdict": "retry"`) && !strings.Contains(string(out), `"verdict":"retry"`) {
			return fmt.Errorf("vouch verify: not a retry: %.300s", out)
		}
		cli = append(cli, d)
	}
	report("vouch verify (a process each)", cli)

	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	args["workspace"], args["base"] = ".", ex.Base

	// stdio: vouch mcp started in the workspace, as a host starts it.
	cmd := exec.Command(bin, "mcp")
	cmd.Dir = ex.Dir
	cmd.Env = append(os.Environ(), "VOUCH_JUDGE=", "VOUCH_CACHE=off")
	start := time.Now()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return fmt.Errorf("vouch mcp: %w", err)
	}
	fmt.Printf("%-34s start and initialize %v\n", "vouch mcp (stdio)", time.Since(start).Round(time.Microsecond))
	stdio, err := toolTimes(ctx, cs, args, n)
	cs.Close()
	if err != nil {
		return fmt.Errorf("stdio: %w", err)
	}
	report("vouch mcp (stdio)", stdio)

	// streamable HTTP: vouch serve with the workspace by name.
	cfg := filepath.Join(dir, "serve.yaml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, "store: %s\nworkspaces:\n  jsdoc: %s\ndashboard: false\n", filepath.Join(dir, "vouch.db"), ex.Dir), 0o644); err != nil {
		return err
	}
	url, _, stop, err := startServe(bin, io.Discard, nil, []string{"--config", cfg}, "VOUCH_LOG_LEVEL=warn", "VOUCH_JUDGE=")
	if err != nil {
		return err
	}
	defer stop()
	args["workspace"] = "jsdoc"
	start = time.Now()
	hs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url + "/mcp", HTTPClient: &http.Client{}}, nil)
	if err != nil {
		return fmt.Errorf("/mcp: %w", err)
	}
	fmt.Printf("%-34s initialize %v\n", "vouch serve /mcp (HTTP)", time.Since(start).Round(time.Microsecond))
	httpT, err := toolTimes(ctx, hs, args, n)
	hs.Close()
	if err != nil {
		return fmt.Errorf("http: %w", err)
	}
	report("vouch serve /mcp (HTTP, stored)", httpT)
	return nil
}

// toolTimes calls verify_output n times, each with its own id (over HTTP
// a repeated id would be a replay of the stored report), and checks each
// answer is the retry the example deserves.
func toolTimes(ctx context.Context, cs *mcp.ClientSession, args map[string]any, n int) ([]time.Duration, error) {
	out := make([]time.Duration, 0, n)
	for i := range n {
		args["id"] = fmt.Sprintf("bench-%d-%d", time.Now().UnixNano(), i)
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "verify_output", Arguments: args})
		d := time.Since(start)
		if err != nil {
			return nil, err
		}
		if res.IsError {
			return nil, fmt.Errorf("tool error: %v", res.Content)
		}
		if m, _ := res.StructuredContent.(map[string]any); m["verdict"] != "retry" {
			return nil, fmt.Errorf("verdict %v, want retry", m["verdict"])
		}
		out = append(out, d)
	}
	return out, nil
}

// report prints the p50 and p99 of a set of round trips.
func report(what string, d []time.Duration) {
	slices.Sort(d)
	q := func(p float64) time.Duration { return d[min(len(d)-1, int(p*float64(len(d))))].Round(time.Microsecond) }
	fmt.Printf("%-34s p50 %v, p99 %v, max %v\n", what, q(.50), q(.99), d[len(d)-1].Round(time.Microsecond))
}
