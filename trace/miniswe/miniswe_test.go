package miniswe

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/vouchgate/vouch/internal/sharedtest"
	"github.com/vouchgate/vouch/trace"
)

func TestReadRealTrajectory(t *testing.T) {
	data, err := os.ReadFile(sharedFile(t, "mini-swe-agent", "local.traj.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The file is a bare list; mini-swe-agent saves {"info", "messages"}.
	wrapped := `{"info": {"exit_status": "Submitted", "submission": "", "config": {"model": {"model_name": "gpt-test"}}}, "messages": ` +
		string(data) + `, "trajectory_format": "mini-swe-agent-1"}`
	for name, input := range map[string]string{"list": string(data), "object": wrapped} {
		tr, err := Read(strings.NewReader(input))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(tr.Trace) != 2 {
			t.Fatalf("%s: %d entries: %+v", name, len(tr.Trace), tr.Trace)
		}
		hello, submit := tr.Trace[0], tr.Trace[1]
		if hello.Tool != Tool || trace.Command(hello.Input) != "echo 'hello world'" || hello.IsError ||
			hello.OutputText() != "<returncode>0</returncode>\n<output>\nhello world\n</output>" {
			t.Errorf("%s: first call %+v", name, hello)
		}
		if trace.Command(submit.Input) != "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" || submit.IsError || submit.Output == nil {
			t.Errorf("%s: submit call %+v", name, submit)
		}
		if tr.Goal != "Blah blah blah" {
			t.Errorf("%s: goal %q", name, tr.Goal)
		}
		if tr.Output.Summary != "OK, now let me end this run." {
			t.Errorf("%s: summary %q", name, tr.Output.Summary)
		}
		if !slices.Equal(tr.Output.ToolCalls, []string{Tool}) ||
			!slices.Equal(tr.Output.Commands, []string{"echo 'hello world'", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}) {
			t.Errorf("%s: toolCalls %q commands %q", name, tr.Output.ToolCalls, tr.Output.Commands)
		}
		cr := tr.Output.Artifacts.CommandResults
		if len(cr) != 2 || cr[0].ExitCode == nil || *cr[0].ExitCode != 0 || cr[1].ExitCode != nil {
			t.Errorf("%s: command results %+v", name, cr)
		}
		s := trace.Summarize(tr.Trace, nil)
		if len(s.Commands) != 2 || s.Commands[0].ExitCode == nil || *s.Commands[0].ExitCode != 0 {
			t.Errorf("%s: summary commands %+v", name, s.Commands)
		}
		if got := s.Text(0); !strings.HasPrefix(got, "ran: echo 'hello world' (exit 0)\n") {
			t.Errorf("%s: text %q", name, got)
		}
		if name == "object" {
			if tr.Executor == nil || tr.Executor.Model != "gpt-test" || tr.Output.Metadata["exitStatus"] != "Submitted" {
				t.Errorf("object: executor %+v metadata %v", tr.Executor, tr.Output.Metadata)
			}
		}
	}
}

// traj builds a trajectory from role, content pairs.
func traj(rc ...string) string {
	var msgs []map[string]any
	for i := 0; i+1 < len(rc); i += 2 {
		msgs = append(msgs, map[string]any{"role": rc[i], "content": rc[i+1]})
	}
	b, _ := json.Marshal(msgs)
	return string(b)
}

const (
	sys  = "You are a helpful assistant."
	task = "Please solve this issue: The parser drops comments.\n\nYou can execute bash commands and edit files."
)

func block(cmd string) string { return "```mswea_bash_command\n" + cmd + "\n```" }

func readMini(t *testing.T, input string) *trace.Transcript {
	t.Helper()
	tr, err := Read(strings.NewReader(input))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func commands(tr *trace.Transcript) []string {
	var out []string
	for _, e := range tr.Trace {
		out = append(out, trace.Command(e.Input))
	}
	return out
}

func TestReadEdgeCases(t *testing.T) {
	t.Run("missing returncode", func(t *testing.T) {
		tr := readMini(t, traj("system", sys, "user", task,
			"assistant", "THOUGHT: look.\n\n"+block("ls"),
			"user", "Observation: a.py\nb.py",
			"assistant", "Next.\n\n"+block("cat a.py"),
			"user", "<returncode>1</returncode>\n<output>\ncat: a.py: No such file\n</output>"))
		if got := commands(tr); !slices.Equal(got, []string{"ls", "cat a.py"}) {
			t.Fatalf("commands %q", got)
		}
		if tr.Trace[0].Output != nil {
			t.Errorf("an observation without a return code answered the call: %q", tr.Trace[0].Output)
		}
		if !tr.Trace[1].IsError {
			t.Error("exit 1 not an error")
		}
		cr := tr.Output.Artifacts.CommandResults
		if cr[0].ExitCode != nil || cr[1].ExitCode == nil || *cr[1].ExitCode != 1 {
			t.Errorf("command results %+v", cr)
		}
		if tr.Goal != "The parser drops comments." || tr.Output.Summary != "Next." {
			t.Errorf("goal %q summary %q", tr.Goal, tr.Output.Summary)
		}
	})
	t.Run("two code blocks", func(t *testing.T) {
		tr := readMini(t, traj("system", sys, "user", task,
			"assistant", "Two at once.\n"+block("ls")+"\nand\n```bash\npwd\n```",
			"user", "Please always provide EXACTLY ONE action in triple backticks, found 2 actions.",
			"assistant", "Sorry.\n"+block("pwd"),
			"user", "<returncode>0</returncode>\n<output>\n/repo\n</output>"))
		if got := commands(tr); !slices.Equal(got, []string{"pwd"}) {
			t.Errorf("commands %q: the rejected blocks did not run", got)
		}
		if tr.Trace[0].OutputText() == "" || tr.Trace[0].IsError {
			t.Errorf("pwd: %+v", tr.Trace[0])
		}
	})
	t.Run("two code blocks at the end", func(t *testing.T) {
		tr := readMini(t, traj("user", task, "assistant", block("a")+block("b")))
		if len(tr.Trace) != 0 {
			t.Errorf("commands %q", commands(tr))
		}
	})
	t.Run("no code block", func(t *testing.T) {
		tr := readMini(t, traj("system", sys, "user", task,
			"assistant", "I think the bug is in parse().",
			"user", "Please always provide EXACTLY ONE action in triple backticks, found 0 actions.",
			"assistant", "THOUGHT: Run it.\n\n```bash\npython -m pytest -q\n```",
			"user", "<exception>An error occurred</exception>\n<returncode>-1</returncode>\n<output>\n</output>"))
		if got := commands(tr); !slices.Equal(got, []string{"python -m pytest -q"}) {
			t.Fatalf("commands %q", got)
		}
		if !tr.Trace[0].IsError {
			t.Error("an exception is an error")
		}
		if tr.Output.Summary != "Run it." {
			t.Errorf("summary %q", tr.Output.Summary)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		tr := readMini(t, traj("user", task,
			"assistant", block("sleep 999"),
			"user", "The last command <command>sleep 999</command> timed out and has been killed.\nThe output of the command was:\n <output>\n\n</output>"))
		if len(tr.Trace) != 1 || !tr.Trace[0].IsError || tr.Trace[0].Output == nil {
			t.Errorf("timeout: %+v", tr.Trace)
		}
	})
	t.Run("submission", func(t *testing.T) {
		tr := readMini(t, traj("user", task,
			"assistant", block("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff"),
			"user", "diff --git a/p.py b/p.py\n+fix"))
		// A last message that only submits claims nothing: the patch is
		// evidence, the output of the call that submitted, never a summary.
		if tr.Output.Summary != "" {
			t.Errorf("summary %q: want none when the last message is only the command", tr.Output.Summary)
		}
		if got := tr.Trace[0].OutputText(); got != "diff --git a/p.py b/p.py\n+fix" {
			t.Errorf("the submitting call's output %q", got)
		}
		if _, ok := tr.Output.Metadata["submission"]; ok {
			t.Errorf("metadata %v holds the submission", tr.Output.Metadata)
		}
	})
	t.Run("recorded submission", func(t *testing.T) {
		msgs := traj("user", task, "assistant", "Done.\n\n"+block("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff"))
		tr := readMini(t, `{"info": {"submission": "diff --git a/x b/x"}, "messages": `+msgs+`}`)
		if got := tr.Trace[0].OutputText(); got != "diff --git a/x b/x" {
			t.Errorf("the submitting call's output %q: want the recorded submission", got)
		}
		if tr.Output.Summary != "Done." {
			t.Errorf("summary %q", tr.Output.Summary)
		}
	})
	t.Run("earlier narration", func(t *testing.T) {
		tr := readMini(t, traj("user", task,
			"assistant", "THOUGHT: I fixed it and all tests pass.\n\n"+block("pytest"),
			"user", "<returncode>1</returncode>\n<output>\n1 failed\n</output>",
			"assistant", block("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff"),
			"user", "diff"))
		if tr.Output.Summary != "" {
			t.Errorf("summary %q: an earlier message's text is no claim at the end", tr.Output.Summary)
		}
	})
	t.Run("truncated file", func(t *testing.T) {
		full := traj("user", task, "assistant", block("ls"))
		for _, cut := range []int{1, len(full) / 2, len(full) - 1} {
			if _, err := Read(strings.NewReader(full[:cut])); err == nil || !strings.Contains(err.Error(), "line 1") {
				t.Errorf("truncated at %d: %v", cut, err)
			}
		}
	})
	t.Run("bad input", func(t *testing.T) {
		for _, in := range []string{"", "   ", `"text"`, `{"info": {}}`, `{"messages": {}}`, `[]`, `[{"role": 3}]`} {
			if _, err := Read(strings.NewReader(in)); err == nil {
				t.Errorf("%q: no error", in)
			}
		}
	})
}

func TestReadVersion2(t *testing.T) {
	// Text-based: the actions and return codes are recorded in extra; the
	// run ends with an exit message.
	textBased := `{"info": {"exit_status": "Submitted", "submission": "patch"}, "messages": [
	  {"role": "system", "content": "sys"},
	  {"role": "user", "content": "<pr_description>\nConsider the following PR description:\nAdd a --verbose flag\n</pr_description>"},
	  {"role": "assistant", "content": "THOUGHT: Test.\n\n` + "```mswea_bash_command\\npytest\\n```" + `", "extra": {"actions": [{"command": "pytest"}], "timestamp": 1700000000.5}},
	  {"role": "user", "content": "<returncode>0</returncode>\n<output>\n3 passed\n</output>", "extra": {"returncode": 0, "raw_output": "3 passed\n"}},
	  {"role": "assistant", "content": "All 3 tests pass. Submitting.\n\n` + "```mswea_bash_command\\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\\n```" + `", "extra": {"actions": [{"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}]}},
	  {"role": "exit", "content": "patch", "extra": {"exit_status": "Submitted", "submission": "patch"}}
	], "trajectory_format": "mini-swe-agent-1"}`
	tr := readMini(t, textBased)
	if got := commands(tr); !slices.Equal(got, []string{"pytest", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}) {
		t.Fatalf("commands %q", got)
	}
	if tr.Trace[0].Timestamp != "2023-11-14T22:13:20.5Z" || tr.Trace[1].OutputText() != "patch" {
		t.Errorf("entries %+v", tr.Trace)
	}
	if tr.Goal != "Add a --verbose flag" || tr.Output.Summary != "All 3 tests pass. Submitting." ||
		tr.Output.Metadata["exitStatus"] != "Submitted" {
		t.Errorf("goal %q summary %q metadata %v", tr.Goal, tr.Output.Summary, tr.Output.Metadata)
	}

	// Tool calls: the observations are tool messages.
	toolCalls := `{"messages": [
	  {"role": "user", "content": "Your task: rename foo. Please reply with a single shell command."},
	  {"role": "assistant", "content": null, "tool_calls": [
	    {"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"grep -rn foo .\"}"}},
	    {"id": "call_2", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"false\"}"}}]},
	  {"role": "tool", "tool_call_id": "call_2", "content": "<returncode>1</returncode>\n<output>\n</output>", "extra": {"returncode": 1}},
	  {"role": "tool", "tool_call_id": "call_1", "content": "<returncode>0</returncode>\n<output>\n./a.py:3:foo()\n</output>", "extra": {"returncode": 0}},
	  {"role": "assistant", "content": [{"type": "text", "text": "Renamed foo everywhere."}]}
	]}`
	tr = readMini(t, toolCalls)
	if got := commands(tr); !slices.Equal(got, []string{"grep -rn foo .", "false"}) {
		t.Fatalf("commands %q", got)
	}
	if tr.Trace[0].ID != "call_1" || tr.Trace[0].IsError || !tr.Trace[1].IsError {
		t.Errorf("entries %+v", tr.Trace)
	}
	if tr.Goal != "rename foo" || tr.Output.Summary != "Renamed foo everywhere." {
		t.Errorf("goal %q summary %q", tr.Goal, tr.Output.Summary)
	}
	if s := trace.Summarize(tr.Trace, nil); len(s.Seen) != 1 || s.Seen[0].Path != "a.py" {
		t.Errorf("seen %+v", s.Seen)
	}
}

// sharedFile returns the path of a real trajectory, skipping the test when
// the shared material is not beside the checkout.
func sharedFile(t testing.TB, parts ...string) string {
	t.Helper()
	return sharedtest.Path(t, append([]string{"agent-transcripts"}, parts...)...)
}
