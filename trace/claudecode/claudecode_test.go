package claudecode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/sharedtest"
	"github.com/vouchgate/vouch/trace"
)

// sharedFile returns the path of a real session, skipping the test when
// the sessions are absent.
func sharedFile(t testing.TB, parts ...string) string {
	t.Helper()
	return sharedtest.Path(t, append([]string{"agent-transcripts"}, parts...)...)
}

// rawSession is what a generic decoding of a session log finds, to hold
// Read against.
type rawSession struct {
	ids      []string // tool_use ids in order
	names    []string
	results  map[string]bool // tool_use id -> is_error
	lastText string
}

func decodeRaw(t *testing.T, path string) rawSession {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	raw := rawSession{results: map[string]bool{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var line struct {
			Type        string `json:"type"`
			IsSidechain bool   `json:"isSidechain"`
			Message     struct {
				Model   string          `json:"model"`
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		if line.IsSidechain || (line.Type != "assistant" && line.Type != "user") {
			continue
		}
		var blocks []map[string]any
		if json.Unmarshal(line.Message.Content, &blocks) != nil {
			continue // a string: a prompt
		}
		for _, b := range blocks {
			switch b["type"] {
			case "tool_use":
				raw.ids = append(raw.ids, b["id"].(string))
				raw.names = append(raw.names, b["name"].(string))
			case "tool_result":
				isErr, _ := b["is_error"].(bool)
				raw.results[b["tool_use_id"].(string)] = isErr
			case "text":
				if s := strings.TrimSpace(b["text"].(string)); line.Type == "assistant" && s != "" && line.Message.Model != "<synthetic>" {
					raw.lastText = s
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestReadRealSessions(t *testing.T) {
	for _, tt := range []struct {
		file       string
		goal       string
		erroredID  string // a call that failed
		readFile   string // a file read
		failedRead string // a read that failed
		command    string // a command run, with its exit status
		commandID  string
		exit       int
		background string // a command run in the background, exit 0 once polled
		report     string // the start of the completion report, before the last replies
	}{
		{
			file:       "258c7280-ae70-4798-800f-63464d01a85d.jsonl",
			goal:       "Implement spotter-gqc\n\ndid you push?",
			erroredID:  "toolu_01CLY7LZY81zMjsfM27ZmeTa", // git push: no upstream
			readFile:   "/home/USER/projects/spotter-worktrees/spotter-gqc/lib/spotter/transcripts/annotation.ex",
			failedRead: "/tmp/claude-1000/-home-USER-projects-spotter-worktrees-spotter-gqc/tasks/bd0afab.output",
			command:    "mix test test/spotter_web/live/project_review_live_test.exs 2>&1",
			commandID:  "toolu_01X4qLEACFdcwn6pUeG4VbFF",
			exit:       1,
			background: "mix test test/spotter/transcripts/resources_test.exs test/spotter/services/transcript_renderer_test.exs 2>&1",
			report:     "All done. The **spotter-gqc** epic is fully implemented and pushed.",
		},
		{
			file:      "4d5611e5-241a-462a-8d15-5122611a9569.jsonl",
			goal:      "Work on bead spotter-dov. Run bd show spotter-dov to see the issue details and bd ready to find available subtasks. Start with the first ready task.\n\ncontinue",
			erroredID: "toolu_01XUoQX8HzyR7rVLz9xV72x3", // git commit blocked by a hook
			readFile:  "/home/USER/projects/spotter-worktrees/spotter-dov/lib/spotter_web/live/session_live.ex",
			command:   "git push 2>&1",
			commandID: "toolu_011PBtiDwwmP44wZUbt17q6v",
			exit:      128,
			report:    "All done. Here's a summary of the completed **spotter-dov** epic:",
		},
		{
			file:       "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl",
			goal:       "Work on bead spotter-fum. Run bd show spotter-fum to see the issue details and bd ready to find available subtasks. Start with the first ready task.",
			erroredID:  "toolu_01QKgHsyMTCzfusHirKBAZNC", // Read of a file over the token limit
			readFile:   "/home/USER/projects/spotter-worktrees/spotter-fum/lib/spotter/services/transcript_renderer.ex",
			failedRead: "/home/USER/projects/spotter-worktrees/spotter-fum/test/fixtures/transcripts/subagent.jsonl",
			command:    "mix test 2>&1",
			commandID:  "toolu_01YRzjaVCfFiyHG4ya1BhC9m",
			exit:       2,
			report:     "All done. Here's the summary:",
		},
	} {
		t.Run(tt.file, func(t *testing.T) {
			path := sharedFile(t, "claude-code", tt.file)
			raw := decodeRaw(t, path)
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			tr, err := Read(f)
			if err != nil {
				t.Fatal(err)
			}

			// Every tool_use is an entry, in order, paired with its result.
			if len(raw.ids) < 100 {
				t.Fatalf("only %d tool_use blocks found by the generic decoding", len(raw.ids))
			}
			if len(tr.Trace) != len(raw.ids) {
				t.Fatalf("%d entries, %d tool_use blocks", len(tr.Trace), len(raw.ids))
			}
			errored := 0
			for i, e := range tr.Trace {
				if e.ID != raw.ids[i] || e.Tool != raw.names[i] {
					t.Fatalf("entry %d: %s %s, want %s %s", i, e.ID, e.Tool, raw.ids[i], raw.names[i])
				}
				isErr, ok := raw.results[e.ID]
				if !ok || e.Output == nil {
					t.Errorf("entry %d (%s): no result (in log: %v)", i, e.ID, ok)
				}
				if e.IsError != isErr {
					t.Errorf("entry %d (%s): isError %v, want %v", i, e.ID, e.IsError, isErr)
				}
				if e.IsError {
					errored++
				}
				if e.Timestamp == "" {
					t.Errorf("entry %d: no timestamp", i)
				}
			}
			if errored == 0 {
				t.Error("no errored call")
			}
			k := slices.IndexFunc(tr.Trace, func(e vouch.TraceEntry) bool { return e.ID == tt.erroredID })
			if k < 0 || !tr.Trace[k].IsError {
				t.Errorf("known errored call %s: index %d", tt.erroredID, k)
			}

			// The report: from the completion report written after the
			// last work to the last reply (to a background task's notice
			// or to a question).
			if !strings.HasPrefix(tr.Output.Summary, tt.report) || !strings.HasSuffix(tr.Output.Summary, raw.lastText) {
				t.Errorf("summary:\n%q\nwant from %q to the last assistant text:\n%q", tr.Output.Summary, tt.report, raw.lastText)
			}
			if tr.Goal != tt.goal {
				t.Errorf("goal %q, want %q", tr.Goal, tt.goal)
			}
			if tr.Executor == nil || !strings.HasPrefix(tr.Executor.Model, "claude-") {
				t.Errorf("executor %+v", tr.Executor)
			}
			if !strings.HasPrefix(tr.Cwd, "/home/USER/projects/spotter-worktrees/") {
				t.Errorf("cwd %q", tr.Cwd)
			}
			var names []string
			for _, n := range raw.names {
				if !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
			if !slices.Equal(tr.Output.ToolCalls, names) {
				t.Errorf("toolCalls %q, want %q", tr.Output.ToolCalls, names)
			}
			if len(tr.Output.Created)+len(tr.Output.Modified) > 0 {
				t.Errorf("tool writes read as claims: created %q, modified %q", tr.Output.Created, tr.Output.Modified)
			}

			// The summary of the trace.
			s := trace.Summarize(tr.Trace, nil)
			if !slices.ContainsFunc(s.Reads, func(f trace.File) bool { return f.Path == tt.readFile && !f.IsError }) {
				t.Errorf("%s not among the reads", tt.readFile)
			}
			if tt.failedRead != "" && !slices.ContainsFunc(s.Reads, func(f trace.File) bool { return f.Path == tt.failedRead && f.IsError }) {
				t.Errorf("failed read of %s not found", tt.failedRead)
			}
			i := slices.IndexFunc(s.Commands, func(c trace.CommandRun) bool { return tr.Trace[c.Index].ID == tt.commandID })
			if i < 0 {
				t.Fatalf("command %s not in the summary", tt.commandID)
			}
			if c := s.Commands[i]; c.Command != tt.command || c.ExitCode == nil || *c.ExitCode != tt.exit || !c.Failed() {
				t.Errorf("command %+v, want %q exit %d", c, tt.command, tt.exit)
			}
			if tt.background != "" {
				j := slices.IndexFunc(s.Commands, func(c trace.CommandRun) bool { return c.Command == tt.background })
				if j < 0 || !s.Commands[j].Background || s.Commands[j].ExitCode == nil || *s.Commands[j].ExitCode != 0 {
					t.Errorf("background command: %+v", s.Commands[j])
				}
			}
			text := s.Text(0)
			for _, want := range []string{"ran: " + tt.command + " (exit " + itoa(tt.exit) + ")", "root: /home/USER/projects/spotter-worktrees/spotter-"} {
				if !strings.Contains(text, want) {
					t.Errorf("text lacks %q", want)
				}
			}

			// The claimed command results agree.
			cr := tr.Output.Artifacts.CommandResults
			if len(cr) != len(s.Commands) {
				t.Errorf("%d command results, %d runs", len(cr), len(s.Commands))
			}
			if r := cr[i]; r.Command != tt.command || r.ExitCode == nil || *r.ExitCode != tt.exit {
				t.Errorf("command result %+v", r)
			}
			ok := 0
			for j, c := range s.Commands {
				if !c.Failed() && !c.Background && c.HasResult {
					ok++
					if cr[j].ExitCode == nil || *cr[j].ExitCode != 0 {
						t.Errorf("successful run %q: exit %v, want 0", c.Command, cr[j].ExitCode)
					}
				}
			}
			if ok == 0 {
				t.Error("no successful run")
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// lines joins JSON lines of a session log.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

const (
	userPrompt1 = `{"type":"user","message":{"role":"user","content":"Fix the parser"},"timestamp":"t0","cwd":"/w"}`
	assistText  = `{"type":"assistant","message":{"id":"m9","role":"assistant","model":"claude-x","content":[{"type":"text","text":"Done: fixed it."}]},"timestamp":"t9"}`
)

func readClaude(t *testing.T, log string) *trace.Transcript {
	t.Helper()
	tr, err := Read(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestReadPairing(t *testing.T) {
	tr := readClaude(t, lines(
		`{"type":"file-history-snapshot","messageId":"x","snapshot":{}}`,
		`{"type":"summary","summary":"Earlier work","leafUuid":"u"}`,
		`{"type":"user","isMeta":true,"message":{"role":"user","content":"Caveat: meta"}}`,
		userPrompt1,
		``,
		`{"type":"assistant","cwd":"/w","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"Reading."},{"type":"tool_use","id":"a","name":"Read","input":{"file_path":"/w/p.go"}}]},"timestamp":"t1"}`,
		`{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"b","name":"Bash","input":{"command":"go test ./..."}}]},"timestamp":"t2"}`,
		`{"type":"progress","data":{"type":"bash_progress"}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"b","content":"Exit code 1\nFAIL","is_error":true}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":[{"type":"text","text":"1\tpackage p"},{"type":"image","source":{}},{"type":"text","text":"2\t"}]}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"a second result is ignored"}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"zz","content":"no such call"}]}}`,
		`{"type":"assistant","isSidechain":true,"message":{"id":"s1","role":"assistant","content":[{"type":"tool_use","id":"side","name":"Read","input":{}},{"type":"text","text":"sidechain text"}]}}`,
		`{"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"tool_use","id":"b","name":"Bash","input":{"command":"dup"}},{"type":"tool_use","id":"c","name":"Edit","input":{"file_path":"/w/p.go"}}]},"timestamp":"t3"}`,
		`{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued"}}`,
		`{"type":"some-new-type","payload":[1,2,3]}`,
		`{"type":"assistant","message":{"id":"m3","role":"assistant","content":[{"type":"text","text":"  All fixed.  "},{"type":"text","text":"\n\n"},{"type":"text","text":"Tests pass."}]}}`,
		`{"type":"assistant","isApiErrorMessage":true,"message":{"id":"e","role":"assistant","model":"<synthetic>","content":[{"type":"text","text":"API Error: 500"}]}}`,
	))
	if len(tr.Trace) != 3 {
		t.Fatalf("%d entries: %+v", len(tr.Trace), tr.Trace)
	}
	a, b, c := tr.Trace[0], tr.Trace[1], tr.Trace[2]
	if a.ID != "a" || a.Tool != "Read" || a.OutputText() != "1\tpackage p\n[image]\n2\t" || a.IsError || a.Timestamp != "t1" {
		t.Errorf("a: %+v %q", a, a.OutputText())
	}
	if b.ID != "b" || trace.Command(b.Input) != "go test ./..." || !b.IsError || b.OutputText() != "Exit code 1\nFAIL" {
		t.Errorf("b: %+v", b)
	}
	if c.ID != "c" || c.Output != nil || c.IsError {
		t.Errorf("c (no result) %+v", c)
	}
	if tr.Output.Summary != "All fixed.\n\nTests pass." {
		t.Errorf("summary %q", tr.Output.Summary)
	}
	if tr.Goal != "Fix the parser" || tr.Cwd != "/w" || tr.Executor.Model != "claude-x" {
		t.Errorf("goal %q cwd %q executor %+v", tr.Goal, tr.Cwd, tr.Executor)
	}
	if !slices.Equal(tr.Output.ToolCalls, []string{"Read", "Bash", "Edit"}) {
		t.Errorf("toolCalls %q", tr.Output.ToolCalls)
	}
	// The edit has no result: it is not claimed.
	if len(tr.Output.Modified) != 0 || len(tr.Output.Created) != 0 {
		t.Errorf("created %q modified %q", tr.Output.Created, tr.Output.Modified)
	}
	cr := tr.Output.Artifacts.CommandResults
	if len(cr) != 1 || cr[0].Command != "go test ./..." || cr[0].ExitCode == nil || *cr[0].ExitCode != 1 {
		t.Errorf("command results %+v", cr)
	}
	req := tr.Request()
	if req.APIVersion != vouch.APIVersion || req.Kind != vouch.KindSubtask || req.Attempt != 1 || req.Task.Goal != "Fix the parser" ||
		len(req.Trace) != 3 || req.Output.Summary != tr.Output.Summary {
		t.Errorf("request %+v", req)
	}
}

func TestReadServerTools(t *testing.T) {
	tr := readClaude(t, lines(userPrompt1,
		`{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"server_tool_use","id":"w1","name":"web_search","input":{"query":"go 1.26"}},{"type":"web_search_tool_result","tool_use_id":"w1","content":[{"type":"web_search_result","url":"https://go.dev/doc/go1.26","title":"Go 1.26"}]},{"type":"server_tool_use","id":"w2","name":"web_search","input":{"query":"x"}},{"type":"web_search_tool_result","tool_use_id":"w2","content":{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}}]}}`,
		assistText))
	if len(tr.Trace) != 2 {
		t.Fatalf("%d entries", len(tr.Trace))
	}
	if ok, failed := tr.Trace[0], tr.Trace[1]; ok.IsError || !strings.Contains(string(ok.Output), "https://go.dev/doc/go1.26") || !failed.IsError {
		t.Errorf("server tool results: %+v", tr.Trace)
	}
	if s := trace.Summarize(tr.Trace, nil); len(s.Searches) != 2 || s.Searches[0].Query != "go 1.26" {
		t.Errorf("searches %+v", s.Searches)
	}
}

// TestReadWritesAreEvidence: what the tools wrote stays in the trace; the
// output claims no file the agent did not name.
func TestReadWritesAreEvidence(t *testing.T) {
	use := func(id, tool, path string) string {
		return `{"type":"assistant","message":{"id":"m` + id + `","role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"` + tool + `","input":{"file_path":"` + path + `","content":"x"}}]}}`
	}
	result := func(id string) string {
		return `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"ok"}]},"toolUseResult":{"type":"create","filePath":"x"}}`
	}
	tr := readClaude(t, lines(
		userPrompt1,
		use("1", "Write", "/w/new.go"), result("1"),
		use("2", "Write", "/home/u/.claude/plans/plan.md"), result("2"),
		use("3", "Bash", "/w/new.go"), result("3"),
		assistText,
	))
	if len(tr.Output.Created)+len(tr.Output.Modified)+len(tr.Output.Deleted) > 0 {
		t.Errorf("claims made of tool calls: %+v", tr.Output)
	}
	if len(tr.Trace) != 3 || tr.Trace[1].Input["file_path"] != "/home/u/.claude/plans/plan.md" {
		t.Errorf("trace %+v", tr.Trace)
	}
}

// TestReadReport: the summary is what the assistant said after its last
// work, through its replies to a later notice or question; a notice that
// comes while it works does not hold back the report of later work.
func TestReadReport(t *testing.T) {
	say := func(id, text string) string {
		return `{"type":"assistant","message":{"id":"` + id + `","role":"assistant","content":[{"type":"text","text":"` + text + `"}]}}`
	}
	call := func(id string) string {
		return `{"type":"assistant","message":{"id":"m` + id + `","role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"Bash","input":{"command":"go test ./..."}}]}}`
	}
	result := func(id string) string {
		return `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"ok"}]}}`
	}
	notice := `{"type":"user","message":{"role":"user","content":"<task-notification>\n<task-id>t1</task-id>\n<summary>Background command \"x\" completed (exit code 0)</summary>\n</task-notification>"}}`
	question := `{"type":"user","message":{"role":"user","content":"did you push?"}}`
	for _, tt := range []struct {
		name string
		log  []string
		want string
	}{
		{"plain", []string{say("a", "Looking."), call("1"), result("1"), say("b", "Done: all pass.")}, "Done: all pass."},
		{"notice and question after the report", []string{
			call("1"), result("1"), say("b", "Done: all pass."), notice,
			call("2"), result("2"), say("c", "That was an old run."), question, say("d", "Yes, pushed."),
		}, "Done: all pass.\n\nThat was an old run.\n\nYes, pushed."},
		{"notice during the work", []string{
			call("1"), notice, result("1"), say("b", "Now the rest."),
			call("2"), result("2"), say("c", "Done."),
		}, "Done."},
		{"work asked for after the report", []string{
			call("1"), result("1"), say("b", "Done."), question,
			call("2"), result("2"), say("c", "Pushed now."),
		}, "Pushed now."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr := readClaude(t, lines(append([]string{userPrompt1}, tt.log...)...))
			if tr.Output.Summary != tt.want {
				t.Errorf("summary %q, want %q", tr.Output.Summary, tt.want)
			}
		})
	}
}

func TestReadBackground(t *testing.T) {
	tr := readClaude(t, lines(
		userPrompt1,
		`{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"b1","name":"Bash","input":{"command":"npm test","run_in_background":true}},{"type":"tool_use","id":"b2","name":"Bash","input":{"command":"make lint","run_in_background":true}},{"type":"tool_use","id":"b3","name":"Bash","input":{"command":"sleep 9","run_in_background":true}}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"b1","content":"Command running in background with ID: abc123. Output is being written to: /tmp/abc123.output"}]},"toolUseResult":{"stdout":"","backgroundTaskId":"abc123"}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"b2","content":"Command running in background with ID: def456. Output is being written to: /tmp/def456.output"}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"b3","content":"Command running in background with ID: ghi789."}]}}`,
		`{"type":"user","message":{"role":"user","content":"<task-notification>\n<task-id>abc123</task-id>\n<status>failed</status>\n<summary>Background command \"npm test\" failed with exit code 1 (exit code 1)</summary>\n</task-notification>"}}`,
		`{"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"tool_use","id":"p","name":"TaskOutput","input":{"task_id":"def456"}}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"p","content":"<retrieval_status>success</retrieval_status>\n<task_id>def456</task_id>\n<status>completed</status>\n<exit_code>0</exit_code>\n<output>\nok\n</output>"}]}}`,
		assistText,
	))
	if tr.Goal != "Fix the parser" {
		t.Errorf("a notification taken for the goal: %q", tr.Goal)
	}
	cr := tr.Output.Artifacts.CommandResults
	exit := func(i int) any {
		if cr[i].ExitCode == nil {
			return nil
		}
		return *cr[i].ExitCode
	}
	if len(cr) != 3 || exit(0) != 1 || exit(1) != 0 || exit(2) != nil {
		t.Errorf("command results: %v %v %v", exit(0), exit(1), exit(2))
	}
}

func TestReadGoal(t *testing.T) {
	for _, tt := range []struct {
		first string
		want  string
	}{
		{`{"type":"user","message":{"role":"user","content":"<command-name>/fix</command-name>\n<command-message>fix</command-message>\n<command-args>the lexer</command-args>"}}`, "/fix the lexer\n\nFix the parser"},
		{`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"<ide_opened_file>x</ide_opened_file>"},{"type":"text","text":"Add docs"}]}}`, "Add docs\n\nFix the parser"},
		{`{"type":"user","message":{"role":"user","content":"<local-command-stdout>ok</local-command-stdout>"}}`, "Fix the parser"},
		{`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}`, "Fix the parser"},
	} {
		tr := readClaude(t, lines(tt.first, userPrompt1, assistText))
		if tr.Goal != tt.want {
			t.Errorf("goal %q, want %q", tr.Goal, tt.want)
		}
	}
}

func TestReadLongLine(t *testing.T) {
	big := strings.Repeat("x", 3<<20) // over 1 MB, over any default buffer
	log := lines(
		userPrompt1,
		`{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"r","name":"Read","input":{"file_path":"big.txt"}}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"r","content":"`+big+`"}]}}`,
		assistText,
	)
	tr := readClaude(t, "\ufeff"+strings.ReplaceAll(log, "\n", "\r\n"))
	if got := tr.Trace[0].OutputText(); got != big {
		t.Errorf("long output: %d bytes, want %d", len(got), len(big))
	}
	if tr.Output.Summary != "Done: fixed it." {
		t.Errorf("summary %q", tr.Output.Summary)
	}
}

func TestReadErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		log  string
		line int // 0: not a line error
	}{
		{"malformed line", lines(userPrompt1, assistText, `{"type":"assistant", bad}`, assistText), 3},
		{"truncated last line", userPrompt1 + "\n" + assistText[:40], 2},
		{"not an object", lines(userPrompt1, `["a"]`), 2},
		{"wrong type", lines(userPrompt1, `{"type":"assistant","message":{"content":[{"type":"tool_use","id":7}]}}`), 2},
		{"bad input", lines(userPrompt1, `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"x","input":{"a":}}]}}`), 2},
		{"empty", "", 0},
		{"no messages", lines(`{"type":"file-history-snapshot"}`, `{"type":"progress"}`), 0},
	} {
		_, err := Read(strings.NewReader(tt.log))
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		var le *LineError
		switch {
		case tt.line == 0 && !errors.Is(err, trace.ErrNoMessages):
			t.Errorf("%s: %v, want trace.ErrNoMessages", tt.name, err)
		case tt.line > 0 && (!errors.As(err, &le) || le.Line != tt.line):
			t.Errorf("%s: %v, want an error on line %d", tt.name, err, tt.line)
		}
	}
}

// errReader fails after its data.
type errReader struct{ r *strings.Reader }

func (e errReader) Read(p []byte) (int, error) {
	if e.r.Len() == 0 {
		return 0, errors.New("disk on fire")
	}
	return e.r.Read(p)
}

func TestReadReadError(t *testing.T) {
	_, err := Read(errReader{strings.NewReader(userPrompt1 + "\n")})
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("read error: %v", err)
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(lines(userPrompt1, assistText)))
	f.Add([]byte(lines(userPrompt1,
		`{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"b","name":"Bash","input":{"command":["ls","-l"]}}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"b","content":[{"type":"text","text":"Exit code 2"}],"is_error":true}]},"toolUseResult":{"type":"create"}}`,
		`{"type":"user","message":{"content":"<task-notification><task-id>b</task-id><summary>(exit code 3)</summary></task-notification>"}}`)))
	f.Add([]byte(`{"type":"assistant","message":{"content":"text"}}` + "\n" + `{"type":"user","message":{"content":null}}`))
	f.Add([]byte("{}\n\n{\"type\":\"user\"}\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		_ = trace.Summarize(tr.Trace, nil).Text(200)
		req := tr.Request()
		if req.Output.Summary != tr.Output.Summary {
			t.Fatal("request lost the summary")
		}
		for _, e := range tr.Trace {
			if e.Output != nil && !json.Valid(e.Output) {
				t.Fatalf("invalid output JSON %q", e.Output)
			}
		}
	})
}
