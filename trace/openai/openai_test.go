package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/trace"
)

func readFile(t *testing.T, name string, read func(r *os.File) (*trace.Transcript, error)) *trace.Transcript {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := read(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return tr
}

func readAny(f *os.File) (*trace.Transcript, error) { return Read(f) }

// entry finds the entry with an id.
func entry(t *testing.T, tr *trace.Transcript, id string) vouch.TraceEntry {
	t.Helper()
	for _, e := range tr.Trace {
		if e.ID == id {
			return e
		}
	}
	t.Fatalf("no entry %s in %+v", id, tr.Trace)
	return vouch.TraceEntry{}
}

// exits returns the exit codes of the command results, -1 for none.
func exits(tr *trace.Transcript) []int {
	var out []int
	if tr.Output.Artifacts == nil {
		return nil
	}
	for _, c := range tr.Output.Artifacts.CommandResults {
		if c.ExitCode == nil {
			out = append(out, -1)
		} else {
			out = append(out, *c.ExitCode)
		}
	}
	return out
}

func TestReadChat(t *testing.T) {
	tr := readFile(t, "chat-request-response.json", readAny)
	var ids []string
	for _, e := range tr.Trace {
		ids = append(ids, e.ID)
	}
	want := []string{"call_read", "call_ls", "call_edit", "call_test1", "call_patch", "call_grep", "call_test2", "call_raw"}
	if !slices.Equal(ids, want) {
		t.Fatalf("ids %q, want %q", ids, want)
	}
	if e := entry(t, tr, "call_read"); e.Tool != "read_file" || trace.FilePath(e.Input) != "parser.go" || !strings.HasPrefix(e.OutputText(), "package parser\n") || e.IsError {
		t.Errorf("read: %+v", e)
	}
	if e := entry(t, tr, "call_ls"); e.OutputText() != "parser.go\nparser_test.go" {
		t.Errorf("a tool message of parts: %q", e.OutputText())
	}
	// Errors: a stated exit status, and the flags an orchestrator adds.
	if e := entry(t, tr, "call_test1"); !e.IsError {
		t.Errorf("exit code 1 is no error: %+v", e)
	}
	if e := entry(t, tr, "call_grep"); !e.IsError {
		t.Errorf(`"status": "error" is no error: %+v`, e)
	}
	if e := entry(t, tr, "call_patch"); e.IsError || e.Input["input"] == nil || !strings.Contains(e.Input["input"].(string), "*** Update File: lexer.go") {
		t.Errorf("custom tool call: %+v", e)
	}
	// Arguments that are not JSON are kept whole; a call without result
	// has no output.
	if e := entry(t, tr, "call_raw"); !reflect.DeepEqual(e.Input, map[string]any{"arguments": "go vet ./..."}) || e.Output != nil || e.IsError {
		t.Errorf("raw arguments: %+v", e)
	}
	if tr.Goal != "The parser drops comments. Fix it and make the tests pass." {
		t.Errorf("goal %q", tr.Goal)
	}
	if tr.Output.Summary != "Fixed: the lexer keeps comments now, and all tests pass." {
		t.Errorf("summary %q", tr.Output.Summary)
	}
	if tr.Executor == nil || tr.Executor.Model != "gpt-4.1-2025-04-14" {
		t.Errorf("executor %+v", tr.Executor)
	}
	if !slices.Equal(tr.Output.ToolCalls, []string{"read_file", "list_dir", "edit_file", "bash", "apply_patch", "grep"}) {
		t.Errorf("toolCalls %q", tr.Output.ToolCalls)
	}
	// The second run was flagged a success: exit 0; the raw one has no
	// command the trace can read.
	if got := exits(tr); !slices.Equal(got, []int{1, 0}) {
		t.Errorf("exit codes %v", got)
	}
	if tr.Output.Metadata["source"] != Chat || len(tr.Output.Created)+len(tr.Output.Modified) > 0 {
		t.Errorf("output %+v", tr.Output)
	}
	s := trace.Summarize(tr.Trace, nil)
	if len(s.Writes) != 2 || s.Writes[0].Path != "parser.go" || s.Writes[1].Path != "lexer.go" {
		t.Errorf("writes %+v", s.Writes)
	}
}

func TestReadChatLegacy(t *testing.T) {
	tr := readFile(t, "chat-legacy.jsonl", readAny)
	if len(tr.Trace) != 1 || tr.Trace[0].Tool != "read_file" || tr.Trace[0].OutputText() != "buy milk" {
		t.Fatalf("trace %+v", tr.Trace)
	}
	if tr.Output.Summary != "It says: buy milk." || tr.Goal != "What's in notes.txt?" || tr.Executor != nil {
		t.Errorf("summary %q goal %q executor %+v", tr.Output.Summary, tr.Goal, tr.Executor)
	}
}

func TestReadResponses(t *testing.T) {
	tr := readFile(t, "responses-items.json", readAny)
	if tr.Output.Metadata["source"] != Responses {
		t.Fatalf("read as %v", tr.Output.Metadata["source"])
	}
	type want struct {
		id, tool string
		output   string // a prefix of the output text
		isError  bool
	}
	for _, w := range []want{
		{"call_1", "read_file", "package main", false},
		{"call_2", ToolLocalShell, "<returncode>1</returncode>\n<output>\n--- FAIL: TestVerbose", true},
		{"call_3", ToolApplyPatch, "Updated main.go", false},
		{"call_4", ToolShell, "<returncode>0</returncode>", false},
		{"ws_1", ToolWebSearch, `[{"type": "url", "url": "https://pkg.go.dev/flag"}]`, false},
		{"ws_2", ToolWebFetch, "failed", true},
		{"fs_1", ToolFileSearch, `[{"file_id"`, false},
		{"mcp_1", "mcp__fs__read_file", "# proj", false},
		{"mcp_2", "mcp__gh__create_issue", "forbidden", true},
		{"call_5", ToolApplyPatch, "Done!", false},
		{"call_6", "shell", "Exit code: 0\nWall time", false},
	} {
		e := entry(t, tr, w.id)
		if e.Tool != w.tool || !strings.HasPrefix(e.OutputText(), w.output) || e.IsError != w.isError {
			t.Errorf("%s: %s %q error %v; want %s %q error %v", w.id, e.Tool, e.OutputText(), e.IsError, w.tool, w.output, w.isError)
		}
	}
	if len(tr.Trace) != 11 {
		t.Errorf("%d entries", len(tr.Trace))
	}
	if in := entry(t, tr, "call_2").Input; in["command"] != "go test ./..." || in["workdir"] != "/work/proj" {
		t.Errorf("local shell input %+v", in)
	}
	if in := entry(t, tr, "call_3").Input; in["path"] != "main.go" || in["type"] != "update_file" {
		t.Errorf("apply_patch input %+v", in)
	}
	if tr.Goal != "Add a --verbose flag to the CLI and run the tests." || tr.Output.Summary != "Added --verbose to main.go; go test ./... passes." {
		t.Errorf("goal %q summary %q", tr.Goal, tr.Output.Summary)
	}
	// Every run states its status: the local shell's in its metadata, the
	// shell's in its outcome, Codex's function in its text.
	if got := exits(tr); !slices.Equal(got, []int{1, 0, 0}) {
		t.Errorf("exit codes %v", got)
	}
	s := trace.Summarize(tr.Trace, nil)
	var writes []string
	for _, w := range s.Writes {
		writes = append(writes, w.Path)
	}
	if !slices.Equal(writes, []string{"main.go", "CHANGELOG.md"}) {
		t.Errorf("writes %q", writes)
	}
	if len(s.Searches) != 1 || s.Searches[0].Query != "go flag package bool" || len(s.Fetches) != 1 || !s.Fetches[0].IsError {
		t.Errorf("searches %+v fetches %+v", s.Searches, s.Fetches)
	}
	if len(s.Plugins) != 2 || s.Plugins[0].Tool != ToolFileSearch {
		t.Errorf("plugins %+v", s.Plugins)
	}
}

func TestReadResponsesObject(t *testing.T) {
	tr := readFile(t, "responses-object.json", readAny)
	if len(tr.Trace) != 1 || tr.Goal != "Which Go version does go.mod name?" || tr.Output.Summary != "go.mod names Go 1.26.0." ||
		tr.Executor == nil || tr.Executor.Model != "gpt-5-2025-08-07" {
		t.Errorf("%+v goal %q summary %q executor %+v", tr.Trace, tr.Goal, tr.Output.Summary, tr.Executor)
	}
}

func TestSniff(t *testing.T) {
	for _, tt := range []struct {
		log, want string
	}{
		{`[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]`, Chat},
		{`{"model":"m","messages":[{"role":"user","content":"hi"}]}`, Chat},
		{`{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}`, Chat},
		{`{"object":"chat.completion","choices":[]}`, Chat},
		{`[{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}]`, Responses},
		{`[{"role":"user","content":[{"type":"input_text","text":"hi"}]}]`, Responses},
		{`{"object":"response","output":[]}`, Responses},
		{`{"model":"m","input":"hi"}`, Responses},
		{`{"type":"response.completed","response":{"output":[]}}`, Responses},
		{`{"a":1}`, ""},
		{`not json`, ""},
		{`[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","argu`, Chat},
	} {
		if got := Sniff([]byte(tt.log)); got != tt.want {
			t.Errorf("Sniff(%s) = %q, want %q", tt.log, got, tt.want)
		}
	}
}

// TestReadWholeConversations: a JSONL log whose every line holds the
// conversation so far gives each call once, and the last words.
func TestReadWholeConversations(t *testing.T) {
	call := `{"role":"assistant","content":"Let me run the tests.","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"make test\"}"}}]}`
	result := `{"role":"tool","tool_call_id":"c1","content":"Exit code 0\nok"}`
	user := `{"role":"user","content":"Run the tests"}`
	log := `{"messages":[` + user + `],"choices":[{"message":` + call + `}]}` + "\n" +
		`{"messages":[` + user + `,` + call + `,` + result + `],"choices":[{"message":{"role":"assistant","content":"Tests pass."}}]}` + "\n"
	tr, err := Read(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Trace) != 1 || tr.Trace[0].OutputText() != "Exit code 0\nok" || tr.Output.Summary != "Tests pass." || tr.Goal != "Run the tests" {
		t.Errorf("trace %+v summary %q goal %q", tr.Trace, tr.Output.Summary, tr.Goal)
	}
	if got := exits(tr); !slices.Equal(got, []int{0}) {
		t.Errorf("exit codes %v", got)
	}
}

func TestReadHostile(t *testing.T) {
	big := strings.Repeat("x", 4<<20)
	bigArgs, _ := json.Marshal(`{"path":"big.txt","content":"` + big + `"}`)
	for _, tt := range []struct {
		name  string
		log   string
		check func(t *testing.T, tr *trace.Transcript)
	}{
		{"huge arguments", `[{"role":"assistant","tool_calls":[{"id":"w","type":"function","function":{"name":"write_file","arguments":` + string(bigArgs) + `}}]},{"role":"tool","tool_call_id":"w","content":"ok"}]`,
			func(t *testing.T, tr *trace.Transcript) {
				if c, _ := tr.Trace[0].Input["content"].(string); len(c) != len(big) || tr.Trace[0].OutputText() != "ok" {
					t.Errorf("content of %d bytes", len(c))
				}
			}},
		{"arguments not JSON", `[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{not json"}},{"id":"b","type":"function","function":{"name":"g","arguments":"[1,2]"}},{"id":"c","type":"function","function":{"name":"h","arguments":{"k":"v"}}},{"id":"d","type":"function","function":{"name":"i","arguments":""}}]}]`,
			func(t *testing.T, tr *trace.Transcript) {
				want := []map[string]any{{"arguments": "{not json"}, {"arguments": "[1,2]"}, {"k": "v"}, nil}
				for i, w := range want {
					if !reflect.DeepEqual(tr.Trace[i].Input, w) {
						t.Errorf("entry %d: input %#v, want %#v", i, tr.Trace[i].Input, w)
					}
				}
			}},
		{"missing results and unknown ids", `[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"zz","content":"x"},{"role":"tool","content":"no id"},{"role":"assistant","content":"done"}]`,
			func(t *testing.T, tr *trace.Transcript) {
				if len(tr.Trace) != 1 || tr.Trace[0].Output != nil || tr.Output.Summary != "done" {
					t.Errorf("trace %+v summary %q", tr.Trace, tr.Output.Summary)
				}
			}},
		{"duplicate ids", `[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{\"n\":1}"}},{"id":"a","type":"function","function":{"name":"g","arguments":"{\"n\":2}"}}]},{"role":"tool","tool_call_id":"a","content":"first"},{"role":"tool","tool_call_id":"a","content":"second"}]`,
			func(t *testing.T, tr *trace.Transcript) {
				// Two calls: ids need be unique only within a response.
				if len(tr.Trace) != 2 || tr.Trace[0].Tool != "f" || tr.Trace[0].OutputText() != "first" || tr.Trace[1].OutputText() != "second" {
					t.Errorf("trace %+v", tr.Trace)
				}
			}},
		{"nameless call", `[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"arguments":"{}"}}]}]`,
			func(t *testing.T, tr *trace.Transcript) {
				if tr.Trace[0].Tool == "" {
					t.Error("an entry without a tool name")
				}
			}},
		{"null and odd content", `[{"role":"user","content":null},{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:"}}]},{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"refusal","refusal":"b"}]},null]`,
			func(t *testing.T, tr *trace.Transcript) {
				if tr.Goal != "" || tr.Output.Summary != "a\nb" {
					t.Errorf("goal %q summary %q", tr.Goal, tr.Output.Summary)
				}
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := ReadChat(strings.NewReader(tt.log))
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, tr)
		})
	}
}

func TestReadErrors(t *testing.T) {
	for _, tt := range []struct {
		name, log string
		want      []string // in the error
	}{
		{"truncated", "[\n  {\"role\": \"user\", \"content\": \"hi\"},\n  {\"role\": \"assis", []string{"malformed JSON", "line 3"}},
		{"truncated JSONL", "{\"role\": \"user\", \"content\": \"hi\"}\n{\"role\": \"assistant\", \"content\"", []string{"malformed JSON", "line 2"}},
		{"wrong type", "[\n{\"role\": \"user\", \"content\": \"hi\"},\n{\"role\": 5}\n]", []string{"line 3", "record 2", "/role"}},
		{"wrong tool_calls", `[{"role":"assistant","tool_calls":{"id":"a"}}]`, []string{"line 1", "record 1", "tool_calls"}},
		{"not an object", `[1, 2]`, []string{"record 1", "want a JSON object, got a number"}},
		{"messages not a list", `{"messages": "hi"}`, []string{"messages: want a list, got a string"}},
		{"nested message wrong", "{\"messages\": [\n{\"role\": \"user\"},\n{\"role\": true}]}", []string{"line 1", "messages[1]", "/role"}},
		{"trailing garbage", `[{"role":"user","content":"hi"}] }`, []string{"malformed JSON"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.log))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	for _, log := range []string{"", "  \n", "[]", `{"model":"m"}`} {
		if _, err := Read(strings.NewReader(log)); !errors.Is(err, trace.ErrNoMessages) {
			t.Errorf("Read(%q): %v, want trace.ErrNoMessages", log, err)
		}
	}
	if _, err := ReadResponses(strings.NewReader(`[{"type":"function_call","call_id":7}]`)); err == nil || !strings.Contains(err.Error(), "/call_id") {
		t.Errorf("responses wrong type: %v", err)
	}
}

func FuzzRead(f *testing.F) {
	for _, name := range []string{"chat-request-response.json", "chat-legacy.jsonl", "responses-items.json", "responses-object.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`[{"role":"tool","tool_call_id":"a"},{"type":"shell_call_output","output":[{"outcome":{"type":"timeout"}}]}]`))
	f.Add([]byte(`{"request":{"request":{"request":{"request":{"request":{}}}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, read := range []func([]byte) (*trace.Transcript, error){readChat, readResponses} {
			tr, err := read(data)
			if err != nil {
				continue
			}
			_ = trace.Summarize(tr.Trace, nil).Text(200)
			for _, e := range tr.Trace {
				if e.Tool == "" {
					t.Fatal("an entry without a tool name")
				}
				if e.Output != nil && !json.Valid(e.Output) {
					t.Fatalf("invalid output JSON %q", e.Output)
				}
			}
			seen := map[string]bool{}
			var tools []string
			for _, e := range tr.Trace {
				if e.IsError && e.Output == nil {
					t.Fatalf("an error without an output: %+v", e)
				}
				if !seen[e.Tool] {
					seen[e.Tool] = true
					tools = append(tools, e.Tool)
				}
			}
			if !slices.Equal(tr.Output.ToolCalls, tools) {
				t.Fatalf("toolCalls %q, want the trace's tools %q", tr.Output.ToolCalls, tools)
			}
		}
	})
}

// turns writes a conversation as an orchestrator logs it turn by turn:
// each line the request, holding the whole conversation so far, and the
// response that followed it.
func turns(t *testing.T, request, response string, convo []any, responses []int) string {
	t.Helper()
	var b strings.Builder
	for _, n := range responses {
		line := map[string]any{request: convo[:n]}
		if response == "choices" {
			line["choices"] = []any{map[string]any{"index": 0, "message": convo[n]}}
		} else {
			line[response] = []any{convo[n]}
		}
		data, err := json.Marshal(line)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	return b.String()
}

func decodeAll(t *testing.T, msgs ...string) []any {
	t.Helper()
	out := make([]any, len(msgs))
	for i, m := range msgs {
		if err := json.Unmarshal([]byte(m), &out[i]); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
	}
	return out
}

// TestReadTurnByTurn: a log written one turn a line, each line's request
// holding the conversation so far, reads as the conversation written
// once: what the assistant said before its calls is not said again after
// them, and a call without an id (the legacy function_call) is not
// repeated.
func TestReadTurnByTurn(t *testing.T) {
	chat := decodeAll(t,
		`{"role":"system","content":"You are a coding agent."}`,
		`{"role":"user","content":"Fix the lexer bug."}`,
		`{"role":"assistant","content":"It probably comes from src/lexer.py.","tool_calls":[{"id":"call_0","type":"function","function":{"name":"bash","arguments":"{\"command\":\"pytest\"}"}}]}`,
		`{"role":"tool","tool_call_id":"call_0","content":"<returncode>0</returncode>\n<output>\n3 passed\n</output>"}`,
		`{"role":"assistant","content":null,"function_call":{"name":"read_file","arguments":"{\"path\":\"README\"}"}}`,
		`{"role":"function","name":"read_file","content":"hello"}`,
		`{"role":"assistant","content":"pytest passes."}`,
	)
	items := decodeAll(t,
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"Fix the lexer bug."}]}`,
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"It probably comes from src/lexer.py."}]}`,
		`{"type":"function_call","call_id":"call_0","name":"bash","arguments":"{\"command\":\"pytest\"}"}`,
		`{"type":"function_call_output","call_id":"call_0","output":"<returncode>0</returncode>\n<output>\n3 passed\n</output>"}`,
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"pytest passes."}]}`,
	)
	for _, tt := range []struct {
		name  string
		log   string
		calls int
	}{
		{"chat", turns(t, "messages", "choices", chat, []int{2, 4, 6}), 2},
		{"responses", turns(t, "input", "output", items, []int{1, 2, 4}), 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := Read(strings.NewReader(tt.log))
			if err != nil {
				t.Fatal(err)
			}
			if tr.Output.Summary != "pytest passes." {
				t.Errorf("summary %q, want the last words only", tr.Output.Summary)
			}
			if len(tr.Trace) != tt.calls || tr.Trace[0].OutputText() == "" {
				t.Errorf("%d entries, want %d: %+v", len(tr.Trace), tt.calls, tr.Trace)
			}
			if tr.Goal != "Fix the lexer bug." {
				t.Errorf("goal %q", tr.Goal)
			}
		})
	}
}

// TestReadRepeatedIDs: ids unique only within one response: a call whose
// id an earlier response used is a new call, and its result is its own.
func TestReadRepeatedIDs(t *testing.T) {
	convo := decodeAll(t,
		`{"role":"user","content":"Test it."}`,
		`{"role":"assistant","content":null,"tool_calls":[{"id":"call_0","type":"function","function":{"name":"bash","arguments":"{\"command\":\"make build\"}"}}]}`,
		`{"role":"tool","tool_call_id":"call_0","content":"Exit code 0"}`,
		`{"role":"assistant","content":null,"tool_calls":[{"id":"call_0","type":"function","function":{"name":"bash","arguments":"{\"command\":\"make test\"}"}}]}`,
		`{"role":"tool","tool_call_id":"call_0","content":"Exit code 2\nFAIL"}`,
		`{"role":"assistant","content":"All tests pass."}`,
	)
	for name, log := range map[string]string{
		"list":         string(mustMarshal(t, convo)),
		"turn by turn": turns(t, "messages", "choices", convo, []int{1, 3, 5}),
	} {
		t.Run(name, func(t *testing.T) {
			tr, err := ReadChat(strings.NewReader(log))
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Trace) != 2 || tr.Trace[1].Input["command"] != "make test" || tr.Trace[1].OutputText() != "Exit code 2\nFAIL" || !tr.Trace[1].IsError {
				t.Fatalf("trace %+v", tr.Trace)
			}
			if got := exits(tr); !slices.Equal(got, []int{0, 2}) {
				t.Errorf("exit codes %v", got)
			}
		})
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReadShellCommands: a shell_call running several commands gives one
// entry a command, each with its own output and status, so that a
// failing command is not hidden by the one after it.
func TestReadShellCommands(t *testing.T) {
	call := `{"type":"shell_call","call_id":"sh_1","action":{"commands":["npm test","git status --short"]}}`
	for _, tt := range []struct {
		name, output string
		commands     []string
		exits        []int
	}{
		{"one output a command",
			`[{"stdout":"1 failing\n","stderr":"","outcome":{"type":"exit","exit_code":1}},{"stdout":"","stderr":"","outcome":{"type":"exit","exit_code":0}}]`,
			[]string{"npm test", "git status --short"}, []int{1, 0}},
		{"outputs not one a command",
			`[{"stdout":"1 failing\n","outcome":{"type":"exit","exit_code":1}},{"stdout":"x","outcome":{"type":"exit","exit_code":0}},{"stdout":"y","outcome":{"type":"exit","exit_code":0}}]`,
			[]string{"npm test", "git status --short"}, []int{-1, 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			log := `[` + call + `,{"type":"shell_call_output","call_id":"sh_1","output":` + tt.output + `},` +
				`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"All tests pass."}]}]`
			tr, err := ReadResponses(strings.NewReader(log))
			if err != nil {
				t.Fatal(err)
			}
			if got := tr.Output.Commands; !slices.Equal(got, tt.commands) {
				t.Errorf("commands %q, want %q", got, tt.commands)
			}
			if got := exits(tr); !slices.Equal(got, tt.exits) {
				t.Errorf("exit codes %v, want %v", got, tt.exits)
			}
			failed := false
			for _, e := range tr.Trace {
				failed = failed || e.IsError
			}
			if !failed {
				t.Errorf("no entry failed: %+v", tr.Trace)
			}
		})
	}
}

// BenchmarkRead reads logs of 1 and 8 MiB, one item a line: the time a
// byte (see MB/s) stays the same as the log grows.
func BenchmarkRead(b *testing.B) {
	for _, size := range []int{1 << 20, 8 << 20} {
		var log []byte
		for i := 0; len(log) < size; i++ {
			log = fmt.Appendf(log, `{"type":"function_call","call_id":"c%d","name":"bash","arguments":"{\"command\":\"make test\"}"}`+"\n", i)
			log = fmt.Appendf(log, `{"type":"function_call_output","call_id":"c%d","output":"<returncode>0</returncode>\n<output>\nok\n</output>"}`+"\n", i)
			log = fmt.Appendf(log, `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Step %d done."}]}`+"\n", i)
		}
		b.Run(fmt.Sprintf("%dMiB", size>>20), func(b *testing.B) {
			b.SetBytes(int64(len(log)))
			for b.Loop() {
				if _, err := Read(bytes.NewReader(log)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
