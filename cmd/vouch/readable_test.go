package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// readableCase is one command whose readable output is checked.
type readableCase struct {
	args  []string
	env   map[string]string
	stdin string
	// terminal runs it as on a terminal (colour, marks); the golden file
	// holds its text without the colour codes.
	terminal bool
	// checkOnly leaves the output out of the golden file (too long, or
	// made of what changes from run to run), but still checks it.
	checkOnly bool
	// cwd is the directory it runs in, when not the package's.
	cwd string
}

// goInternals is what fmt prints for Go values no person should see: a
// map, a pointer to a struct, a struct with its field names.
var goInternals = regexp.MustCompile(`map\[|&\{|\{[A-Z][A-Za-z]*:`)

// TestReadableOutput runs every command that prints for a person (not
// --json) the way a person would, on the repository's examples and test
// data, and fails on Go's own rendering of a value in what it prints
// (map[...], &{...}). The outputs, their volatile parts made fixed (times,
// durations, commit hashes, temporary paths, ports), are the golden file
// testdata/readable.golden: a text screenshot of each command (go test
// -run ReadableOutput -update rewrites it). Long-running commands (serve,
// worker, mcp, fake-llm) print only where they listen, and are left out.
func TestReadableOutput(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var cases []readableCase
	add := func(c readableCase) { cases = append(cases, c) }

	// verify, on every bundled example.
	requests, err := filepath.Glob("../../examples/*/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, req := range requests {
		if filepath.Base(req) == "policy.yaml" {
			continue
		}
		exdir := filepath.Dir(req)
		ws, base := exampleWorkspace(t, exdir, strings.TrimSuffix(filepath.Base(req), ".yaml"))
		args := []string{"verify", "--workspace", ws, "--base", base}
		if _, err := os.Stat(filepath.Join(exdir, "policy.yaml")); err == nil {
			args = append(args, "--policy", filepath.Join(exdir, "policy.yaml"))
		}
		add(readableCase{args: append(args, req)})
		if strings.Contains(req, "false-test") {
			add(readableCase{args: append(args, req), terminal: true})
		}
		if strings.Contains(req, "judged") {
			add(readableCase{args: append(args, "--estimate", req), env: map[string]string{"VOUCH_JUDGE": "openai:gpt-4o"}})
		}
	}
	// A criterion nothing decides, a check left undecided.
	undecided := write("undecided.yaml", `task:
  goal: Summarise the meeting
  criteria:
    - {id: tone, text: The summary is friendly, must: true}
    - {id: build, check: {type: command, run: [make]}}
output:
  summary: I wrote up the meeting notes. All tests pass.
`)
	add(readableCase{args: []string{"verify", undecided}})
	// Bad input: every problem, with its position.
	bad := write("bad.yaml", `attempt: two
task:
  criteria:
    - must: "yes"
      check: {type: regex, pattern: "(x"}
    - check: {type: cel, expr: "summary ==="}
output:
  summary: done
`)
	add(readableCase{args: []string{"verify", bad}})
	batch := write("batch.jsonl", passing+"\n"+`{"id": "bad"`+"\n")
	add(readableCase{args: []string{"verify", "--batch", batch, "--out", filepath.Join(dir, "out.jsonl")}})

	// The commands about policies, codes, traces and the version.
	add(readableCase{args: []string{"policy", "check", "../../examples/plugin-schema/policy.yaml"}})
	add(readableCase{args: []string{"policy", "show"}, checkOnly: true})
	add(readableCase{args: []string{"codes"}, checkOnly: true})
	add(readableCase{args: []string{"version"}, checkOnly: true})
	add(readableCase{args: []string{"trace", "summary", "../../testdata/requests/ok-subtask-full.json"}})
	add(readableCase{args: []string{"trace", "detect", "../../trace/transcript/testdata/claude-session.jsonl"}})

	// pr, on a repository with a branch.
	r, tests := prWorkspace(t, true)
	desc := write("pr.md", honestPR)
	add(readableCase{args: []string{"pr", "--repo", r.Dir, "--base", "main", "--head", "feature", "--description", desc, "--tests", tests}})

	// run, with an agent that does the work on its second attempt.
	runWS := filepath.Join(dir, "runws")
	if err := os.MkdirAll(runWS, 0o755); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", runWS, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("commit", "-q", "--allow-empty", "-m", "base")
	task := write("task.yaml", "task:\n  id: changelog\n  goal: Write CHANGELOG.md\n  criteria:\n    - {id: exists, text: CHANGELOG.md exists, check: {type: file_exists, path: CHANGELOG.md}}\n")
	add(readableCase{args: []string{"run", "--task", task, "--workspace", runWS, "--", "sh", "-c",
		`if [ "$VOUCH_ATTEMPT" -ge 2 ]; then echo "# Changes" > CHANGELOG.md; fi; echo "Created CHANGELOG.md."`}})
	add(readableCase{args: []string{"run", "--task", task, "--workspace", runWS, "--", "./no-agent.sh"}})

	// The hook's installer.
	proj := filepath.Join(dir, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	add(readableCase{args: []string{"hook", "install", "claude-code", "--project", "--program", "/opt/bin/vouch"}, cwd: proj})

	// The commands of a server and its store.
	e := newLabelEnv(t)
	add(readableCase{args: []string{"review", "a", "--verdict", "fail", "--reason", "it said DONE and did nothing"}, env: e.as(e.review)})
	add(readableCase{args: []string{"outcome", "b", "--attempt", "1", "--bad", "--detail", "it was not done"}, env: e.as(e.review)})
	add(readableCase{args: []string{"review", "zz", "--verdict", "fail"}, env: e.as(e.review)})
	now := time.Now().UTC()
	window := []string{"--since", now.Add(-time.Hour).Format(time.RFC3339), "--until", now.Add(time.Hour).Format(time.RFC3339)}
	add(readableCase{args: append([]string{"metrics"}, window...), env: e.as(e.verify)})
	add(readableCase{args: []string{"alerts"}, env: e.as(e.verify)})
	add(readableCase{args: []string{"calibrate"}, env: e.as(e.verify)})
	add(readableCase{args: []string{"examples"}, env: e.as(e.verify)})
	add(readableCase{args: []string{"keys", "list", "--store", e.dsn}, checkOnly: true})
	// calibrate on files, with enough labels to fit weights.
	rp, lp := calibrationFiles(t, dir)
	add(readableCase{args: []string{"calibrate", "--reports", rp, "--labels", lp}})

	var golden bytes.Buffer
	for _, c := range cases {
		out, errs, code := runReadable(t, c)
		for _, s := range []string{out, errs} {
			if m := goInternals.FindString(s); m != "" {
				t.Errorf("vouch %s prints a Go value (%q):\n%s", strings.Join(c.args, " "), m, s)
			}
		}
		if c.checkOnly {
			continue
		}
		fmt.Fprintf(&golden, "$ vouch %s", strings.Join(c.args, " "))
		if c.terminal {
			fmt.Fprint(&golden, "   # on a terminal, colours left out")
		}
		fmt.Fprintf(&golden, "\n%s", out)
		if errs != "" {
			fmt.Fprintf(&golden, "[stderr]\n%s", errs)
		}
		fmt.Fprintf(&golden, "[exit %d]\n\n", code)
	}
	got := normalizeReadable(golden.String(), dir, e.url)
	path := filepath.Join("testdata", "readable.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("readable output differs from %s (go test -run ReadableOutput -update rewrites it):\n%s", path, lineDiff(string(want), got))
	}
}

// runReadable runs one case in-process.
func runReadable(t *testing.T, c readableCase) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	env := map[string]string{"TERM": "xterm-256color"}
	for k, v := range c.env {
		env[k] = v
	}
	st := Streams{In: strings.NewReader(c.stdin), Out: &out, Err: &errb,
		IsTerminal: func(any) bool { return c.terminal },
		Getenv:     func(k string) string { return env[k] }}
	if c.cwd != "" {
		old, err := os.Getwd()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chdir(c.cwd); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := os.Chdir(old); err != nil {
				t.Fatal(err)
			}
		}()
	}
	code = Main(context.Background(), c.args, st)
	return out.String(), errb.String(), code
}

var (
	ansiCodes    = regexp.MustCompile("\033\\[[0-9;]*[mK]")
	rfc3339      = regexp.MustCompile(`\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\b`)
	durations    = regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|ms|s)\b`)
	commitHash   = regexp.MustCompile(`\b[0-9a-f]{40}\b`)
	shortCommit  = regexp.MustCompile(`\b[0-9a-f]{12}\b`)
	requestID    = regexp.MustCompile(`\br-[0-9a-f]{16}\b`)
	loopbackAddr = regexp.MustCompile(`127\.0\.0\.1:\d+`)
)

// normalizeReadable makes the volatile parts of the outputs fixed.
func normalizeReadable(s, dir, url string) string {
	s = ansiCodes.ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, url, "http://SERVER")
	s = strings.ReplaceAll(s, filepath.Dir(dir), "$TMP")
	if abs, err := filepath.Abs("../.."); err == nil {
		s = strings.ReplaceAll(s, abs, "$REPO")
	}
	s = rfc3339.ReplaceAllString(s, "TIME")
	s = durations.ReplaceAllString(s, "DURATION")
	s = commitHash.ReplaceAllString(s, "COMMIT")
	s = shortCommit.ReplaceAllString(s, "COMMIT12")
	s = requestID.ReplaceAllString(s, "r-ID")
	s = loopbackAddr.ReplaceAllString(s, "127.0.0.1:PORT")
	return s
}

// lineDiff lists the lines of got that differ from want, with their
// numbers, for a failure message.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "%d:\n  - %s\n  + %s\n", i+1, wl, gl)
		}
	}
	return b.String()
}

// calibrationFiles writes report and label files of answers whose
// groundedness and criteria scores both rise with the labels, enough to
// fit thresholds and the weights of answers.
func calibrationFiles(t *testing.T, dir string) (reports, labels string) {
	t.Helper()
	var rb, lb strings.Builder
	for i := range 200 {
		score := float64(i) / 200
		verdict, row := "pass", 7
		switch {
		case score < 0.5:
			verdict, row = "fail", 3
		case score < 0.7:
			verdict, row = "retry", 3
		}
		g, c, k := score, 1-float64(i%7)/10, float64(i%5)/5
		fmt.Fprintf(&rb, `{"id":"r%d","attempt":1,"kind":"answer","verdict":%q,"verdictRow":%d,"score":%v,"confidence":0.8,"dimensions":{`+
			`"groundedness":{"score":%v,"state":"decided","weight":0.6},"criteria":{"score":%v,"state":"decided","weight":0.2},"completeness":{"score":%v,"state":"decided","weight":0.2}}}`+"\n",
			i, verdict, row, score, g, c, k)
		if i%2 == 0 {
			fmt.Fprintf(&lb, `{"id":"r%d","good":%t}`+"\n", i, score >= 0.8)
		}
	}
	reports, labels = filepath.Join(dir, "reports.jsonl"), filepath.Join(dir, "labels.jsonl")
	if err := os.WriteFile(reports, []byte(rb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(labels, []byte(lb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return reports, labels
}
