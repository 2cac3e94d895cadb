package agentcmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sh(script string, args ...string) []string {
	return append([]string{"sh", "-c", script, "agent"}, args...)
}

func TestPrompt(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		cmd  Command
		want string
	}{
		{"on stdin", Command{Argv: sh("cat"), Stdin: true}, "fix the parser"},
		{"as an argument", Command{Argv: sh(`echo "$1"`, "{prompt}")}, "fix the parser"},
		{"in the environment", Command{Argv: sh(`echo "$VOUCH_PROMPT ($VOUCH_ATTEMPT)"`)}, "fix the parser (2)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.cmd.Dir = t.TempDir()
			res, err := tt.cmd.Run(ctx, "fix the parser", 2)
			if err != nil {
				t.Fatal(err)
			}
			if res.Output.Summary != tt.want || res.ExitCode != 0 {
				t.Errorf("summary %q exit %d, want %q", res.Output.Summary, res.ExitCode, tt.want)
			}
		})
	}
}

func TestExitStatusStillHasAResult(t *testing.T) {
	c := Command{Argv: sh("echo 'could not finish'; exit 3"), Dir: t.TempDir()}
	res, err := c.Run(context.Background(), "p", 1)
	if err != nil || res.ExitCode != 3 || res.Output.Summary != "could not finish" {
		t.Errorf("%+v, %v", res, err)
	}
}

func TestResultFile(t *testing.T) {
	dir := t.TempDir()
	script := `cat > result.json <<'EOF'
{"apiVersion": "vouch/v1", "kind": "subtask", "task": {"goal": "g"},
 "workspace": "/etc",
 "output": {"summary": "Added the flag.", "created": ["flag.go"]},
 "trace": [{"tool": "Write", "input": {"file_path": "flag.go"}, "output": "ok"}]}
EOF`
	c := Command{Argv: sh(script), Dir: dir, Result: ResultRequest, ResultFile: "result.json"}
	res, err := c.Run(context.Background(), "p", 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Output.Summary != "Added the flag." || len(res.Output.Created) != 1 || len(res.Trace) != 1 {
		t.Errorf("%+v", res)
	}
	// A result file through a symlink out of the workspace is not read.
	outside := filepath.Join(t.TempDir(), "r.json")
	os.WriteFile(outside, []byte(`{"apiVersion":"vouch/v1","kind":"subtask","task":{"goal":"g"},"output":{"summary":"x"}}`), 0o644)
	os.Remove(filepath.Join(dir, "result.json"))
	if err := os.Symlink(outside, filepath.Join(dir, "result.json")); err != nil {
		t.Fatal(err)
	}
	c.Argv = sh("true")
	if _, err := c.Run(context.Background(), "p", 1); err == nil {
		t.Error("a result file through a symlink out of the workspace was read")
	}
	c.ResultFile = "../r.json"
	if _, err := c.Run(context.Background(), "p", 1); err == nil {
		t.Error("a result file named outside the workspace was read")
	}
}

func TestClaudeStreamJSON(t *testing.T) {
	stream := `{"type":"system","subtype":"init","session_id":"s","cwd":"/w","tools":["Bash"],"model":"m"}
{"type":"assistant","message":{"role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go test ./..."}}]},"session_id":"s"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok  \tx\t0.1s"}]},"session_id":"s"}
{"type":"assistant","message":{"role":"assistant","model":"m","content":[{"type":"text","text":"All tests pass."}]},"session_id":"s"}
{"type":"result","subtype":"success","is_error":false,"result":"All tests pass.","session_id":"s"}
`
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte(stream), 0o644)
	c := Command{Argv: sh("cat s.jsonl"), Dir: dir, Result: ResultClaude}
	res, err := c.Run(context.Background(), "p", 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Output.Summary != "All tests pass." || len(res.Trace) != 1 || res.Trace[0].Tool != "Bash" {
		t.Errorf("summary %q, trace %+v", res.Output.Summary, res.Trace)
	}
}

func TestEndlessOutputIsCapped(t *testing.T) {
	c := Command{Argv: sh("head -c 40000000 /dev/zero"), Dir: t.TempDir()}
	if _, err := c.Run(context.Background(), "p", 1); err == nil || !strings.Contains(err.Error(), "over") {
		t.Errorf("err = %v, want the output over its cap", err)
	}
}
