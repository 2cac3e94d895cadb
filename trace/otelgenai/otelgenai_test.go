package otelgenai

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vouchgate/vouch/trace"
)

func readFile(t *testing.T, name string) *trace.Transcript {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := Read(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return tr
}

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

func TestReadSpans(t *testing.T) {
	tr := readFile(t, "spans.json")
	type want struct {
		id, tool, output, ts string
		isError              bool
	}
	wants := []want{
		{"call_1", "read_file", "package parser", "2026-01-01T00:00:01.01Z", false},
		{"call_2", "bash", "Exit code 1\nFAIL", "2026-01-01T00:00:01.01Z", true},
		// Known only from the messages: returned at the end of a chat span.
		{"call_3", "edit_file", "The file lexer.go has been updated.", "2026-01-01T00:00:03Z", false},
		{"call_4", "bash", "ok  \texample.com/proj\t0.01s", "2026-01-01T00:00:05.01Z", false},
		// Failed with no result: the status message.
		{"call_5", "web_fetch", "fetch timed out", "2026-01-01T00:00:05.01Z", true},
	}
	if len(tr.Trace) != len(wants) {
		t.Fatalf("%d entries: %+v", len(tr.Trace), tr.Trace)
	}
	for i, w := range wants {
		e := tr.Trace[i]
		if e.ID != w.id || e.Tool != w.tool || e.OutputText() != w.output || e.Timestamp != w.ts || e.IsError != w.isError {
			t.Errorf("entry %d: %s %s %q %s error %v; want %+v", i, e.ID, e.Tool, e.OutputText(), e.Timestamp, e.IsError, w)
		}
	}
	if in := tr.Trace[2].Input; !reflect.DeepEqual(in, map[string]any{"path": "lexer.go", "old_string": "skip", "new_string": "keep"}) {
		t.Errorf("input from the messages: %#v", in)
	}
	if tr.Goal != "The parser drops comments. Fix it and make the tests pass." {
		t.Errorf("goal %q", tr.Goal)
	}
	// The same words from the chat span and the agent span count once;
	// what was said before the calls is not the report.
	if tr.Output.Summary != "Fixed: the lexer keeps comments now, and all tests pass." {
		t.Errorf("summary %q", tr.Output.Summary)
	}
	if tr.Executor == nil || tr.Executor.Model != "gpt-4.1-2025-04-14" {
		t.Errorf("executor %+v", tr.Executor)
	}
	m := tr.Output.Metadata
	if m["source"] != Format || m["agent"] != "coder" || m["conversationId"] != "conv_7" || m["traceId"] != "5b8efff798038103d269b633813fc60c" {
		t.Errorf("metadata %v", m)
	}
	// The failed run states its status; the Ok span's run is 0.
	if got := exits(tr); !slices.Equal(got, []int{1, 0}) {
		t.Errorf("exit codes %v", got)
	}
	if !slices.Equal(tr.Output.ToolCalls, []string{"read_file", "bash", "edit_file", "web_fetch"}) {
		t.Errorf("toolCalls %q", tr.Output.ToolCalls)
	}
}

func TestReadEvents(t *testing.T) {
	tr := readFile(t, "events.json")
	if len(tr.Trace) != 1 {
		t.Fatalf("trace %+v", tr.Trace)
	}
	e := tr.Trace[0]
	if e.ID != "call_a" || e.Tool != "grep" || trace.Query(e.Input) != "TODO" || !strings.HasPrefix(e.OutputText(), "main.go:12:") {
		t.Errorf("entry %+v", e)
	}
	if tr.Goal != "How many TODOs are left in main.go?" || tr.Output.Summary != "Two TODOs are left in main.go (lines 12 and 40)." {
		t.Errorf("goal %q summary %q", tr.Goal, tr.Output.Summary)
	}
	if tr.Executor == nil || tr.Executor.Model != "gpt-4o-mini-2024-07-18" {
		t.Errorf("executor %+v", tr.Executor)
	}
}

func TestReadCollector(t *testing.T) {
	tr := readFile(t, "collector.jsonl")
	if len(tr.Trace) != 1 || trace.Command(tr.Trace[0].Input) != "df -h /" || !strings.Contains(tr.Trace[0].OutputText(), "91%") {
		t.Fatalf("trace %+v", tr.Trace)
	}
	if tr.Goal != "Is the root disk nearly full?" || tr.Output.Summary != "Yes: / is 91% full (9G free)." || tr.Executor.Model != "claude-sonnet-4-5" {
		t.Errorf("goal %q summary %q executor %+v", tr.Goal, tr.Output.Summary, tr.Executor)
	}
	// Unflagged and without a stated status: unknown.
	if got := exits(tr); !slices.Equal(got, []int{-1}) {
		t.Errorf("exit codes %v", got)
	}
}

// doc wraps spans in an export request.
func doc(spans ...string) string {
	return `{"resourceSpans":[{"scopeSpans":[{"spans":[` + strings.Join(spans, ",") + `]}]}]}`
}

func toolSpan(start, id, name, args string, extra string) string {
	return `{"name":"execute_tool ` + name + `","startTimeUnixNano":"` + start + `","endTimeUnixNano":"` + start + `","attributes":[` +
		`{"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}},` +
		`{"key":"gen_ai.tool.name","value":{"stringValue":"` + name + `"}},` +
		`{"key":"gen_ai.tool.call.id","value":{"stringValue":"` + id + `"}},` +
		`{"key":"gen_ai.tool.call.arguments","value":{"stringValue":` + args + `}}` + extra + `]}`
}

func TestReadOrderAndHostile(t *testing.T) {
	big := strings.Repeat("y", 2<<20)
	bigArgs, _ := json.Marshal(`{"command":"echo ` + big + `"}`)
	log := doc(
		toolSpan("300", "c", "bash", string(bigArgs), ""),
		toolSpan("100", "a", "bash", `"not json at all"`, `,{"key":"gen_ai.tool.call.result","value":{"stringValue":"r1"}}`),
		// Started together with a: the log's order holds.
		toolSpan("100", "b", "read_file", `"{\"path\":\"x\"}"`, `,{"key":"gen_ai.tool.call.result","value":{"kvlistValue":{"values":[{"key":"n","value":{"intValue":"3"}}]}}}`),
		// A second span with the id of a: the same call.
		toolSpan("200", "a", "bash", `"{}"`, `,{"key":"gen_ai.tool.call.result","value":{"stringValue":"r2"}}`),
		`{"name":"not genai","startTimeUnixNano":"50","attributes":[{"key":"http.method","value":{"stringValue":"GET"}}]}`,
	)
	tr, err := Read(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range tr.Trace {
		ids = append(ids, e.ID)
	}
	if !slices.Equal(ids, []string{"a", "b", "c"}) {
		t.Fatalf("order %q", ids)
	}
	if a := tr.Trace[0]; !reflect.DeepEqual(a.Input, map[string]any{"arguments": "not json at all"}) || a.OutputText() != "r1" {
		t.Errorf("a: %+v", a)
	}
	if b := tr.Trace[1]; b.OutputText() != `{"n":3}` {
		t.Errorf("a structured result: %s", b.Output)
	}
	if c := tr.Trace[2]; len(trace.Command(c.Input)) != len(big)+5 || c.Output != nil {
		t.Errorf("c: command of %d bytes, output %q", len(trace.Command(c.Input)), c.Output)
	}
}

func TestReadErrors(t *testing.T) {
	for _, tt := range []struct {
		name, log string
		want      []string
	}{
		{"truncated", "{\"resourceSpans\": [\n{\"scopeSpans\": [{\"spans\": [{\"name\": \"x\"", []string{"malformed JSON", "line 2"}},
		{"wrong type", "{\"resourceSpans\": [{\"scopeSpans\": [{\"spans\": [{\"name\": 7}]}]}]}", []string{"line 1", "record 1", "/name"}},
		{"attributes not a list", `{"resourceSpans":[{"scopeSpans":[{"spans":[{"attributes":{"a":1}}]}]}]}`, []string{"attributes"}},
		{"not an object", `[1]`, []string{"record 1", "resourceSpans"}},
		{"bad messages", doc(`{"attributes":[{"key":"gen_ai.input.messages","value":{"stringValue":"[{\"role\": 1}]"}}]}`), []string{"messages", "/role"}},
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
	for _, log := range []string{"", `{"resourceSpans":[]}`, doc(`{"name":"GET","attributes":[{"key":"http.method","value":{"stringValue":"GET"}}]}`), `{"a":1}`} {
		if _, err := Read(strings.NewReader(log)); !errors.Is(err, trace.ErrNoMessages) {
			t.Errorf("Read(%.40q): %v, want trace.ErrNoMessages", log, err)
		}
	}
}

func FuzzRead(f *testing.F) {
	for _, name := range []string{"spans.json", "events.json", "collector.jsonl"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(doc(`{"startTimeUnixNano":99999999999999999999,"status":{"code":"x"},"events":[{"name":"gen_ai.choice","attributes":[{"key":"message","value":{"arrayValue":{}}}]}]}`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Read(strings.NewReader(string(data)))
		if err != nil {
			return
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
	})
}

// TestReadToolSpanWithoutID: a tool span that does not name the call it
// executes is the oldest call of its tool (with its arguments) that a chat
// span asked for and has no result yet, not a second call.
func TestReadToolSpanWithoutID(t *testing.T) {
	calls := `[{"role":"assistant","parts":[` +
		`{"type":"tool_call","id":"call_1","name":"bash","arguments":{"command":"pytest tests"}},` +
		`{"type":"tool_call","id":"call_2","name":"bash","arguments":{"command":"pytest other"}}]}]`
	quoted, _ := json.Marshal(calls)
	chat := `{"name":"chat","startTimeUnixNano":"100","endTimeUnixNano":"110","attributes":[` +
		`{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},` +
		`{"key":"gen_ai.output.messages","value":{"stringValue":` + string(quoted) + `}}]}`
	result := func(s string) string {
		q, _ := json.Marshal(s)
		return `,{"key":"gen_ai.tool.call.result","value":{"stringValue":` + string(q) + `}}`
	}
	log := doc(chat,
		toolSpan("120", "", "bash", `"{\"command\":\"pytest other\"}"`, result("<returncode>1</returncode>\n<output>\nFAILED\n</output>")),
		toolSpan("130", "", "bash", `""`, result("<returncode>0</returncode>\n<output>\nok\n</output>")),
	)
	tr, err := Read(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Trace) != 2 {
		t.Fatalf("%d entries, want 2: %+v", len(tr.Trace), tr.Trace)
	}
	if e := tr.Trace[0]; e.ID != "call_1" || !strings.Contains(e.OutputText(), "ok") || e.IsError {
		t.Errorf("call_1: %+v", e)
	}
	if e := tr.Trace[1]; e.ID != "call_2" || !strings.Contains(e.OutputText(), "FAILED") || !e.IsError {
		t.Errorf("call_2: %+v", e)
	}
	var exits []string
	for _, c := range tr.Output.Artifacts.CommandResults {
		if c.ExitCode == nil {
			exits = append(exits, c.Command+" none")
		} else {
			exits = append(exits, fmt.Sprintf("%s %d", c.Command, *c.ExitCode))
		}
	}
	if want := []string{"pytest tests 0", "pytest other 1"}; !slices.Equal(exits, want) {
		t.Errorf("command results %q, want %q", exits, want)
	}
}
