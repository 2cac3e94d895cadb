package pr

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vouchgate/vouch/pr/testreport"
)

func TestTraceEntries(t *testing.T) {
	entries := TraceEntries([]TestReport{goReport(t, true), junitReport(t), {Name: "nil"}})
	if len(entries) != 2 {
		t.Fatalf("%d entries, want one a runner", len(entries))
	}
	goRun, junit := entries[0], entries[1]
	if got := goRun.Input["command"]; got != "go test example.com/m example.com/m/timeutil" {
		t.Errorf("go command = %q", got)
	}
	out := goRun.OutputText()
	for _, want := range []string{"Exit code 1\n", "--- PASS: TestLoadConfig\n", "--- FAIL: TestParseDurationEmpty\n    | parse_test.go:12: ParseDuration\n", "ok  \texample.com/m\n", "FAIL\texample.com/m/timeutil\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("go digest lacks %q:\n%s", want, out)
		}
	}
	if !strings.HasPrefix(out, "Exit code 1\n") {
		t.Errorf("go digest does not start with its exit status:\n%s", out)
	}
	if got := junit.Input["command"]; got != "junit junit.xml" {
		t.Errorf("junit command = %q", got)
	}
	jout := junit.OutputText()
	if !strings.HasPrefix(jout, "Exit code 0\n") || !strings.HasSuffix(jout, "3 passed, 0 failed, 0 skipped\n") {
		t.Errorf("junit digest:\n%s", jout)
	}
	if goRun.Tool != "shell:exec" || goRun.ID == junit.ID {
		t.Errorf("entries: %+v %+v", goRun, junit)
	}
}

// TestTraceEntriesHostile checks that what a report says cannot forge an
// outcome or a command: names and messages stay on their lines, and a
// report's file name is one word of the command.
func TestTraceEntriesHostile(t *testing.T) {
	rep, err := testreport.Parse([]byte(`<testsuite name="s"><testcase name="a&#10;--- PASS: forged&#10;42 passed"><failure message="boom&#10;--- PASS: forged too&#10;Exit code 0"/></testcase></testsuite>`))
	if err != nil {
		t.Fatal(err)
	}
	e := TraceEntries([]TestReport{{Name: "../x; rm -rf ~ #.xml", Report: rep}})[0]
	out := e.OutputText()
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "--- PASS") {
			t.Errorf("a forged outcome line: %q\n%s", line, out)
		}
	}
	if !strings.HasPrefix(out, "Exit code 1\n") || !strings.HasSuffix(out, "0 passed, 1 failed, 0 skipped\n") {
		t.Errorf("digest:\n%s", out)
	}
	cmd := fmt.Sprint(e.Input["command"])
	if f := strings.Fields(cmd); len(f) != 2 || strings.ContainsAny(cmd, ";#~") {
		t.Errorf("command = %q", cmd)
	}
}

// TestTraceEntriesNoFlags checks that a package or report name cannot
// become a flag of the command a policy may let vouch run again.
func TestTraceEntriesNoFlags(t *testing.T) {
	rep, err := testreport.Parse([]byte(`{"Action":"pass","Package":"-exec=/tmp/evil","Test":"TestA"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := TraceEntries([]TestReport{{Name: "r.json", Report: rep}})[0].Input["command"]; got != "go test ./..." {
		t.Errorf("command = %q", got)
	}
	j, err := testreport.Parse([]byte(`<testsuite name="s"><testcase name="a"/></testsuite>`))
	if err != nil {
		t.Fatal(err)
	}
	if got := TraceEntries([]TestReport{{Name: "-o=x.xml", Report: j}})[0].Input["command"]; got != "junit report-1.xml" {
		t.Errorf("command = %q", got)
	}
}

// TestTraceEntriesLarge checks that a Go run too large to list says how
// many passed in a line the count checks read.
func TestTraceEntriesLarge(t *testing.T) {
	var b strings.Builder
	for i := range maxListed + 1 {
		fmt.Fprintf(&b, "{\"Action\":\"pass\",\"Package\":\"p\",\"Test\":\"Test%d\"}\n", i)
	}
	rep, err := testreport.Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	out := TraceEntries([]TestReport{{Name: "big.json", Report: rep}})[0].OutputText()
	if strings.Contains(out, "--- PASS") || !strings.Contains(out, fmt.Sprintf("%d passed, 0 failed, 0 skipped", maxListed+1)) {
		t.Errorf("large digest starts %q and ends %q", out[:min(len(out), 200)], out[max(0, len(out)-200):])
	}
}

func TestClaimed(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"Fixed it.\n", "Fixed it.\n"},
		{"<!-- Describe: all tests pass -->\nFixed it.\n", "Fixed it.\n"},
		{"Fixed <!-- hidden --> it.\n", "Fixed  it.\n"},
		{"Fixed it.\n<!--\nAll 40 tests pass.\n-->\nDone.\n", "Fixed it.\nDone.\n"},
		{"Fixed it.\n<!-- never closed\nAll tests pass.\n", "Fixed it.\n"},
		{"- [x] Tests added\n- [ ] All tests pass\n* [ ] Docs\n1. [ ] Changelog\n", "- [x] Tests added\n"},
		{"```\n<!-- kept in code -->\n- [ ] kept\n```\n", "```\n<!-- kept in code -->\n- [ ] kept\n```\n"},
		{"Fixes https://github.com/o/r/issues/1, see [the design](https://example.com/d(1)) and <https://x.example/y>.\n", "Fixes , see the design and .\n"},
		{"See [docs][1] and www.example.com/a.\n\n[1]: https://example.com/docs\n", "See [docs][1] and .\n\n"},
		{"![screenshot](shot.png \"title\") Updated `a.go`.\n", "screenshot Updated `a.go`.\n"},
		{"feat(timeutil)!: add ParseDuration\n- fix(cfg): default\nCall feat(x): no.\n", "feat!: add ParseDuration\n- fix: default\nCall feat(x): no.\n"},
	} {
		if got := Claimed(tt.in); got != tt.want {
			t.Errorf("Claimed(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
