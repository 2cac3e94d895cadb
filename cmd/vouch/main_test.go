package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/vouchgate/vouch/judge"
	"github.com/vouchgate/vouch/judge/fake"
	"github.com/vouchgate/vouch/judge/openai"
)

func TestMain(m *testing.M) {
	testscript.Main(runThenClean{m}, map[string]func(){
		// As main does: SIGINT and SIGTERM cancel the command's context.
		"vouch": func() {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			code := Main(ctx, os.Args[1:], Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
			stop()
			os.Exit(code)
		},
	})
}

// runThenClean runs the tests, then removes what they keep for the whole
// run (the vouchfault binary of the failure tests).
type runThenClean struct{ m *testing.M }

// Run implements testscript.TestingM.
func (r runThenClean) Run() int {
	defer removeFaultBinary()
	return r.m.Run()
}

// TestScripts runs the command end to end on the scripts in testdata/script.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"ids":     cmdIDs,
			"fakellm": cmdFakeLLM,
			"exits":   cmdExits,
		},
	})
}

// cmdExits runs a program of the script and checks its exit code: exits
// CODE PROGRAM [ARGS...]. Its standard output and error are the script's,
// as with exec.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit code %d, want %d", got, want)
	}
}

// cmdIDs reads a batch output file and writes, per line, the report's id
// and verdict, or "line N error" for an error line: ids OUT.jsonl IDS.
func cmdIDs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: ids OUT.jsonl IDS")
	}
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(ts.ReadFile(args[0])), "\n") {
		var v struct {
			ID      string `json:"id"`
			Verdict string `json:"verdict"`
			Line    int    `json:"line"`
			Error   *struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			ts.Fatalf("bad output line %q: %v", line, err)
		}
		if v.Error != nil {
			fmt.Fprintf(&b, "line %d error\n", v.Line)
			continue
		}
		fmt.Fprintf(&b, "%s %s\n", v.ID, v.Verdict)
	}
	if err := os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o644); err != nil {
		ts.Fatalf("%v", err)
	}
}

const passing = `{"id":"p","task":{"criteria":[{"id":"a","check":{"type":"contains","value":"ok"}}]},"output":{"summary":"ok"}}`

// TestColor checks that the verdict is coloured on a terminal only, and
// never when NO_COLOR is set.
func TestColor(t *testing.T) {
	for _, tt := range []struct {
		name     string
		terminal bool
		noColor  string
		term     string
		want     bool
	}{
		{"terminal", true, "", "xterm", true},
		{"pipe", false, "", "xterm", false},
		{"terminal with NO_COLOR", true, "1", "xterm", false},
		{"dumb terminal", true, "", "dumb", false},
	} {
		var out, errb bytes.Buffer
		st := Streams{
			In: strings.NewReader(passing), Out: &out, Err: &errb,
			IsTerminal: func(any) bool { return tt.terminal },
			Getenv: func(k string) string {
				switch k {
				case "NO_COLOR":
					return tt.noColor
				case "TERM":
					return tt.term
				}
				return ""
			},
		}
		code := Main(context.Background(), []string{"verify", "-"}, st)
		if code != 0 {
			t.Fatalf("%s: exit %d, stderr %s", tt.name, code, errb.String())
		}
		if got := strings.Contains(out.String(), "\033["); got != tt.want {
			t.Errorf("%s: coloured = %v, want %v:\n%q", tt.name, got, tt.want, out.String())
		}
		if !strings.HasPrefix(strings.TrimPrefix(out.String(), ansiBold+ansiGreen), "PASS") {
			t.Errorf("%s: report does not start with the verdict: %q", tt.name, out.String())
		}
	}
}

// TestProgressOnTerminalOnly checks that the batch progress bar is drawn on
// a terminal and not otherwise.
func TestProgressOnTerminalOnly(t *testing.T) {
	dir := t.TempDir()
	in := dir + "/in.jsonl"
	if err := os.WriteFile(in, []byte(strings.Repeat(passing+"\n", 5)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, terminal := range []bool{true, false} {
		var out, errb bytes.Buffer
		st := Streams{Out: &out, Err: &errb, IsTerminal: func(any) bool { return terminal }}
		if code := Main(context.Background(), []string{"verify", "--batch", in, "--out", dir + "/out.jsonl"}, st); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		if got := strings.Contains(errb.String(), "5/5"); got != terminal {
			t.Errorf("terminal=%v: progress drawn = %v: %q", terminal, got, errb.String())
		}
		if !strings.Contains(errb.String(), "5 requests") {
			t.Errorf("no summary: %q", errb.String())
		}
	}
}

// TestBatchOrder checks that a large batch verified concurrently comes out
// in input order, with bad and oversized lines reported by line number.
func TestBatchOrder(t *testing.T) {
	dir := t.TempDir()
	var in strings.Builder
	const n = 500
	for i := 1; i <= n; i++ {
		switch {
		case i%97 == 0:
			in.WriteString(`{"id": "bad"` + "\n")
		case i%101 == 0:
			fmt.Fprintf(&in, `{"id":"big-%d","output":{"summary":"%s"}}`+"\n", i, strings.Repeat("x", 3000))
		default:
			fmt.Fprintf(&in, `{"id":"r-%d","task":{"criteria":[{"check":{"type":"length","minChars":%d}}]},"output":{"summary":"%s"}}`+"\n", i, i%7, strings.Repeat("y", i%11))
		}
	}
	if err := os.WriteFile(dir+"/in.jsonl", []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"verify", "--batch", dir + "/in.jsonl", "--out", dir + "/out.jsonl",
		"--concurrency", "4", "--max-request-bytes", "2048"}, Streams{Out: &out, Err: &errb})
	if code != exitInput {
		t.Fatalf("exit %d, want 2 (bad lines): %s", code, errb.String())
	}
	data, err := os.ReadFile(dir + "/out.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != n {
		t.Fatalf("%d output lines, want %d", len(lines), n)
	}
	for i, line := range lines {
		num := i + 1
		var v struct {
			ID    string `json:"id"`
			Line  int    `json:"line"`
			Error *struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("line %d: %v", num, err)
		}
		switch {
		case num%97 == 0:
			if v.Error == nil || v.Line != num || v.Error.Code != "syntax" {
				t.Errorf("line %d: want a syntax error object, got %s", num, line)
			}
		case num%101 == 0:
			if v.Error == nil || v.Line != num || v.Error.Code != "too_large" {
				t.Errorf("line %d: want a too_large error object, got %.200s", num, line)
			}
		default:
			if v.ID != fmt.Sprintf("r-%d", num) {
				t.Errorf("line %d: id %q, out of order", num, v.ID)
			}
		}
	}
}

// cmdFakeLLM starts a fake model server for the rest of the script and
// points OPENAI_BASE_URL and ANTHROPIC_BASE_URL at it: fakellm [-key KEY]
// [SCRIPT.json]. Requests no rule of the script matches get every item
// scored 0.8.
func cmdFakeLLM(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: fakellm [-key KEY] [SCRIPT.json]")
	}
	opts := []fake.Option{fake.WithResponder(fake.Scored(0.8))}
	if len(args) >= 2 && args[0] == "-key" {
		opts = append(opts, fake.WithAPIKey(args[1]))
		args = args[2:]
	}
	if len(args) == 1 {
		rules, err := fake.LoadScript(strings.NewReader(ts.ReadFile(args[0])))
		if err != nil {
			ts.Fatalf("%v", err)
		}
		opts = append(opts, fake.WithRules(rules...))
	}
	srv := fake.NewServer(opts...)
	ts.Defer(srv.Close)
	ts.Setenv("OPENAI_BASE_URL", srv.URL()+"/v1")
	ts.Setenv("ANTHROPIC_BASE_URL", srv.URL())
}

// TestFakeLLM serves vouch fake-llm in-process, asks it as the OpenAI
// client would, and stops it by cancelling its context.
func TestFakeLLM(t *testing.T) {
	script := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(script, []byte(`[{"contains": "slow down", "reply": {"status": 429, "retryAfter": "7"}}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"fake-llm", "--script", script, "--score", "0.6"}, Streams{In: strings.NewReader(""), Out: pw, Err: io.Discard})
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	url := strings.TrimSpace(strings.TrimPrefix(line, "fake LLM listening on "))
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q", line)
	}
	c := openai.New(openai.Options{BaseURL: url + "/v1"})
	call := &judge.Call{Model: "gpt-4o", Messages: []judge.Message{{Role: "user", Content: "judge this"}},
		Tool: judge.Tool{Name: judge.ToolName, Schema: json.RawMessage(`{"type": "object", "properties": {"criteria": {"items": {"properties": {"id": {"enum": ["a"]}}}}, "dimensions": {"properties": {}}}}`)}}
	r, err := c.Complete(ctx, call)
	if err != nil || !strings.Contains(string(r.Arguments), `"score":0.6`) {
		t.Fatalf("scored answer: %v %s", err, r.Arguments)
	}
	call.Messages[0].Content = "please slow down"
	_, err = c.Complete(ctx, call)
	var ae *judge.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 429 || ae.RetryAfter != 7*time.Second {
		t.Fatalf("scripted 429: %v", err)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit code %d after an interrupt", code)
	}
	// A bad script is a usage error.
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`[{"replay": {}}]`), 0o644)
	var errOut bytes.Buffer
	if code := Main(context.Background(), []string{"fake-llm", "--script", bad}, Streams{In: strings.NewReader(""), Out: io.Discard, Err: &errOut}); code != exitInput {
		t.Errorf("bad script: exit %d, %s", code, errOut.String())
	}
}

// TestBatchKilled kills vouch verify --batch (kill -9) while it writes, and
// checks that the output holds only whole lines, each a report or an error
// object.
func TestBatchKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a large batch")
	}
	dir := t.TempDir()
	// The test binary runs as vouch under that name (testscript.Main).
	bin := filepath.Join(dir, "vouch")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, bin); err != nil {
		t.Fatal(err)
	}
	var in strings.Builder
	crits := strings.Repeat(`{"check":{"type":"contains","value":"needle"}},`, 12)
	for i := range 20000 {
		fmt.Fprintf(&in, `{"id":"r-%d","task":{"criteria":[%s{"check":{"type":"length","minChars":1}}]},"output":{"summary":"line %d with a needle"}}`+"\n", i, crits, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "in.jsonl"), []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.jsonl")
	cmd := exec.Command(bin, "verify", "--batch", filepath.Join(dir, "in.jsonl"), "--out", out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Wait until some reports are written, then kill the process.
	finished := false
	for deadline := time.Now().Add(60 * time.Second); ; {
		if fi, err := os.Stat(out); err == nil && fi.Size() > 200<<10 {
			break
		}
		select {
		case <-done:
			finished = true
		case <-time.After(2 * time.Millisecond):
		}
		if finished || time.Now().After(deadline) {
			break
		}
	}
	if !finished {
		_ = cmd.Process.Kill()
		<-done
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) == 0 {
		t.Fatal("no output before the kill")
	}
	// The kernel may cut a write short when the process is killed in it
	// (it checks for a fatal signal between pages), so the file may end
	// in a part of a line: every line that ends holds a whole report.
	torn := ""
	if i := bytes.LastIndexByte(data, '\n'); i < len(data)-1 {
		torn, data = string(data[i+1:]), data[:i+1]
		if finished {
			t.Fatalf("a batch that ran to its end left a partial line: %.100q", torn)
		}
	}
	if len(data) == 0 {
		t.Fatal("no whole line before the kill")
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for i, line := range lines {
		var v struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil || v.ID != fmt.Sprintf("r-%d", i) {
			t.Fatalf("line %d is not whole or out of order (%v): %.100q", i+1, err, line)
		}
	}
	if torn != "" && torn[0] != '{' {
		t.Errorf("the partial last line is not the start of a report: %.100q", torn)
	}
	t.Logf("killed after %d of 20000 reports (finished on its own: %v, partial last line: %d bytes)", len(lines), finished, len(torn))
}
