package trace

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vouchgate/vouch"
)

// call builds a trace entry whose output is text (a JSON string).
func call(tool string, input map[string]any, output string, isErr bool) vouch.TraceEntry {
	b, _ := json.Marshal(output)
	return vouch.TraceEntry{Tool: tool, Input: input, Output: b, IsError: isErr}
}

// in builds an input map from key, value pairs.
func in(kv ...string) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func TestSummarize(t *testing.T) {
	entries := []vouch.TraceEntry{
		0:  call("Read", in("file_path", "/w/a.go"), "     1\tpackage a", false),
		1:  call("Read", in("file_path", "/w/gone.go"), "<tool_use_error>File does not exist.</tool_use_error>", true),
		2:  call("Glob", in("pattern", "**/*.go", "path", "/w"), "/w/a.go\n/w/b/c.go\n(Results are truncated. Consider using a more specific path or pattern.)", false),
		3:  call("Grep", in("pattern", "func", "output_mode", "content"), "src/x.go:12:func X() {}\nsrc/y.go:3:func Y() {}", false),
		4:  call("Grep", in("pattern", "TODO"), "Found 2 files\n/w/t1.go\n/w/t2.go", false),
		5:  call("Grep", in("pattern", "nothing"), "No files found", false),
		6:  call("LS", in("path", "/w"), "- /w/\n  - cmd/\n    - main.go\n  - go.mod\n", false),
		7:  call("Bash", in("command", "ls -la pkg"), "total 8\ndrwxr-xr-x 2 u g 4096 Jan  1 10:00 .\n-rw-r--r-- 1 u g 12 Jan  1 10:00 util.go\nlrwxrwxrwx 1 u g 3 Jan 1 10:00 link.go -> util.go", false),
		8:  call("Bash", in("command", "cd /w && find . -name '*.md' | head -5"), "./README.md\n./docs/guide.md", false),
		9:  call("Bash", in("command", "grep -rn Parse internal | wc -l"), "12", false),
		10: call("Write", in("file_path", "/w/new.go", "content", "package w"), "File created successfully at: /w/new.go", false),
		11: call("Edit", in("file_path", "/w/a.go"), "<tool_use_error>String to replace not found</tool_use_error>", true),
		12: call("Bash", in("command", "go test ./..."), "Exit code 1\n--- FAIL: TestX", true),
		13: call("shell:exec", in("command", "pytest"), "<returncode>2</returncode>\n<output>\n1 failed\n</output>", true),
		14: {Tool: "run_command", Input: in("cmd", "make"), Output: json.RawMessage(`{"exitCode": 3, "stdout": ""}`)},
		15: call("Bash", in("command", "git push"), "The user doesn't want to proceed with this tool use.", true),
		16: {Tool: "Bash", Input: in("command", "sleep 100")},
		17: call("Bash", in("command", "go vet ./..."), "", false),
		18: call("Bash", map[string]any{"command": "mix test", "run_in_background": true}, "Command running in background with ID: b0be39e. Output is being written to: /tmp/x.output", false),
		19: call("TodoWrite", map[string]any{"todos": []any{}}, "Todos have been modified successfully", false),
		20: call("TaskOutput", in("task_id", "b0be39e"), "<retrieval_status>success</retrieval_status>\n\n<task_id>b0be39e</task_id>\n\n<status>completed</status>\n\n<exit_code>0</exit_code>\n\n<output>\n<exit_code>9</exit_code>\n</output>", false),
		21: call("WebFetch", in("url", "https://go.dev/doc", "prompt", "x"), "The doc says...", false),
		22: call("Task", in("description", "Explore the parser", "prompt", "Look at...\nmore"), "It parses.", false),
		23: call("mind:rag-query", in("query", "q"), strings.Repeat("é", 400), false),
		24: call("mcp__jira__create", nil, "boom", true),
		25: call("WebSearch", in("query", "go generics"), "Links: [{\"title\":\"x\",\"url\":\"https://a.b/c.html\"}]\nexample.com/page.html", false),
		26: {Tool: "Write", Input: in("file_path", "/w/pending.go")},
	}
	s := Summarize(entries, nil)

	if want := []File{{"/w/a.go", "Read", 0, false, true}, {"/w/gone.go", "Read", 1, true, true}}; !slices.Equal(s.Reads, want) {
		t.Errorf("reads: %+v", s.Reads)
	}
	if want := []File{{"/w/new.go", "Write", 10, false, true}, {"/w/a.go", "Edit", 11, true, true}, {"/w/pending.go", "Write", 26, false, false}}; !slices.Equal(s.Writes, want) {
		t.Errorf("writes: %+v", s.Writes)
	}
	if want := []Listing{{"/w", "**/*.go", "Glob", 2, false}, {"/w", "", "LS", 6, false}}; !slices.Equal(s.Listings, want) {
		t.Errorf("listings: %+v", s.Listings)
	}
	if len(s.Searches) != 4 || s.Searches[0].Query != "func" || s.Searches[3].Tool != "WebSearch" {
		t.Errorf("searches: %+v", s.Searches)
	}
	var seen []string
	for _, p := range s.Seen {
		seen = append(seen, p.Path)
	}
	wantSeen := []string{"/w/a.go", "/w/b/c.go", "src/x.go", "src/y.go", "/w/t1.go", "/w/t2.go", "/w/cmd", "/w/cmd/main.go", "/w/go.mod",
		"pkg/util.go", "pkg/link.go", "/w/README.md", "/w/docs/guide.md"}
	if !slices.Equal(seen, wantSeen) {
		t.Errorf("seen:\n got %q\nwant %q", seen, wantSeen)
	}
	if s.Seen[0].Index != 2 || s.Seen[7].Index != 6 {
		t.Errorf("seen indexes: %+v", s.Seen)
	}

	type cmdWant struct {
		cmd        string
		exit       string // "-" when unknown
		failed     bool
		hasResult  bool
		background bool
	}
	want := []cmdWant{
		{"ls -la pkg", "-", false, true, false},
		{"cd /w && find . -name '*.md' | head -5", "-", false, true, false},
		{"grep -rn Parse internal | wc -l", "-", false, true, false},
		{"go test ./...", "1", true, true, false},
		{"pytest", "2", true, true, false},
		{"make", "3", true, true, false},
		{"git push", "-", true, true, false},
		{"sleep 100", "-", false, false, false},
		{"go vet ./...", "-", false, true, false},
		{"mix test", "0", false, true, true},
	}
	if len(s.Commands) != len(want) {
		t.Fatalf("%d commands, want %d: %+v", len(s.Commands), len(want), s.Commands)
	}
	for i, w := range want {
		c := s.Commands[i]
		exit := "-"
		if c.ExitCode != nil {
			exit = strconv.Itoa(*c.ExitCode)
		}
		if c.Command != w.cmd || exit != w.exit || c.Failed() != w.failed || c.HasResult != w.hasResult || c.Background != w.background {
			t.Errorf("command %d: %+v (exit %s), want %+v", i, c, exit, w)
		}
	}
	if len(s.Fetches) != 1 || s.Fetches[0].URL != "https://go.dev/doc" {
		t.Errorf("fetches: %+v", s.Fetches)
	}
	if len(s.Agents) != 1 || s.Agents[0].Description != "Explore the parser" {
		t.Errorf("agents: %+v", s.Agents)
	}
	if len(s.Plugins) != 2 || s.Plugins[0].Tool != "mind:rag-query" || !s.Plugins[1].IsError {
		t.Fatalf("plugins: %+v", s.Plugins)
	}
	if ex := s.Plugins[0].Excerpt; len(ex) > ExcerptBytes || !utf8.ValidString(ex) || !strings.HasSuffix(ex, "…") {
		t.Errorf("excerpt %d bytes, valid %v: %q", len(ex), utf8.ValidString(ex), ex)
	}

	paths := s.Paths()
	if !slices.Contains(paths, "/w/a.go") || slices.Contains(paths, "/w/gone.go") || !slices.Contains(paths, "/w/new.go") ||
		!slices.Contains(paths, "pkg/util.go") || slices.Contains(paths, "/w/pending.go") {
		t.Errorf("paths: %q", paths)
	}
	// A failed edit is not evidence either, but a.go was read.
	if slices.Index(paths, "/w/a.go") != 0 {
		t.Errorf("paths out of order: %q", paths)
	}
}

func TestExitCode(t *testing.T) {
	for _, tt := range []struct {
		output string // raw JSON
		want   int
		ok     bool
	}{
		{`"Exit code 1\nFAIL"`, 1, true},
		{`"  Exit code 128\nfatal"`, 128, true},
		{`"Error: Exit code 2"`, 2, true},
		{`"Exit code -1"`, -1, true},
		{`"Exit code x"`, 0, false},
		{`"ok\nExit code 1"`, 0, false},
		{`"<returncode>0</returncode>\n<output>\n</output>"`, 0, true},
		{`"<exception>timed out</exception>\n<returncode>-1</returncode>"`, -1, true},
		{`"\u003creturncode\u003e7\u003c/returncode\u003e"`, 7, true},
		{`"cat log: <returncode>1</returncode>"`, 0, false},
		{`{"exitCode": 3}`, 3, true},
		{`{"stdout": "x", "exit_code": 0}`, 0, true},
		{`{"nested": {"exitCode": 4}, "returncode": 5}`, 5, true},
		{`{"exitcode": 1.5}`, 0, false},
		{`{"exitCode": "1"}`, 0, false},
		{`{"exitCode": 99999999999}`, 0, false},
		{`["Exit code 1"]`, 0, false},
		{`"Exit code 1234567890123"`, 0, false},
		{``, 0, false},
		{`null`, 0, false},
		{`"unterminated`, 0, false},
	} {
		e := vouch.TraceEntry{Tool: "Bash", Output: json.RawMessage(tt.output)}
		got, ok := ExitCode(&e)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ExitCode(%s) = %d, %v; want %d, %v", tt.output, got, ok, tt.want, tt.ok)
		}
	}
}

func TestListingCommand(t *testing.T) {
	for _, tt := range []struct {
		cmd       string
		mode      outputMode
		dir, base string
		ok        bool
	}{
		{"ls", modeListing, "", "", true},
		{"ls -la src", modeListing, "src", "", true},
		{"cd /repo && ls lib", modeListing, "lib", "/repo", true},
		{"cd app && ls -a src/", modeListing, "src/", "app", true},
		{"ls a b", modeListing, "", "", true},
		{"find . -name '*.py' 2>/dev/null | head -20", modeListing, "", "", true},
		{"cd app; find .", modeListing, "", "app", true},
		{"git ls-files | grep test", modeListing, "", "", true},
		{"git grep -n Parse", modeSearch, "", "", true},
		{"rg -n TODO", modeSearch, "", "", true},
		{"grep -rn foo .", modeSearch, "", "", true},
		{"grep -l foo *.go", modeSearch, "", "", true},
		{"grep foo a.go", 0, "", "", false},
		{"ls | wc -l", 0, "", "", false},
		{"ls && cat x", 0, "", "", false},
		{"go test ./...", 0, "", "", false},
		{"cd /repo", 0, "", "", false},
		{"", 0, "", "", false},
	} {
		mode, dir, base, ok := listingCommand(tt.cmd)
		if ok != tt.ok || ok && (mode != tt.mode || dir != tt.dir || base != tt.base) {
			t.Errorf("listingCommand(%q) = %v, %q, %q, %v; want %v, %q, %q, %v", tt.cmd, mode, dir, base, ok, tt.mode, tt.dir, tt.base, tt.ok)
		}
	}
}

func TestOutputPathsMiniSWE(t *testing.T) {
	entries := []vouch.TraceEntry{
		call("shell:exec", in("command", "find src -name '*.py'"), "<returncode>0</returncode>\n<output>\nsrc/a.py\nsrc/pkg/b.py\n</output>", false),
		call("shell:exec", in("command", "ls"), "<returncode>0</returncode>\n<output_head>\nsetup.py\nREADME.md\ntrunc</output_head>\n<elided_chars>\n9 characters elided\n</elided_chars>\n<output_tail>\nated\ntox.ini\n</output_tail>", false),
		call("shell:exec", in("command", "cd app && ls src"), "<returncode>0</returncode>\n<output>\nmain.py\n</output>", false),
		call("shell:exec", in("command", "ls nope"), "<returncode>2</returncode>\n<output>\nls: cannot access 'nope'\n</output>", true),
	}
	var got []string
	for _, p := range Summarize(entries, nil).Seen {
		got = append(got, p.Path)
	}
	if want := []string{"src/a.py", "src/pkg/b.py", "setup.py", "README.md", "tox.ini", "app/src/main.py"}; !slices.Equal(got, want) {
		t.Errorf("seen %q, want %q", got, want)
	}
}

// textTrace is a small trace for the text tests.
func textTrace() []vouch.TraceEntry {
	return []vouch.TraceEntry{
		call("Read", in("file_path", "/home/u/proj/a.go"), "x", false),
		call("Read", in("file_path", "/home/u/proj/a.go"), "x", false),
		call("Read", in("file_path", "/home/u/proj/b.go"), "x", false),
		call("Read", in("file_path", "/home/u/proj/c.go"), "no such file", true),
		call("Glob", in("pattern", "*.go"), "/home/u/proj/a.go\n/home/u/proj/d.go", false),
		call("Grep", in("pattern", "TODO", "path", "/home/u/proj/pkg"), "No files found", false),
		call("Write", in("file_path", "/home/u/proj/a.go"), "ok", false),
		{Tool: "Write", Input: in("file_path", "/home/u/proj/e.go")},
		call("Bash", in("command", "go test ./...\n# again"), "Exit code 1\nFAIL", true),
		call("Bash", in("command", "go test ./..."), "ok", false),
		{Tool: "Bash", Input: in("command", "go vet")},
		call("WebFetch", in("url", "https://go.dev"), "page", false),
		call("Task", in("prompt", "explore the code\nthoroughly"), "done", false),
		call("mind:rag-query", in("query", "q"), "3 hits:\n  a\n  b", false),
		call("TodoWrite", nil, "ok", false),
	}
}

func TestSummaryText(t *testing.T) {
	s := Summarize(textTrace(), nil)
	want := `root: /home/u/proj
read: a.go, b.go
read failed: c.go
listed: . (*.go)
searched: "TODO" in pkg
wrote: a.go
wrote (no result): e.go
ran: go test ./... … (exit 1)
ran: go test ./... (ok)
ran: go vet (no result)
fetched: https://go.dev
delegated: explore the code
plugin mind:rag-query: 3 hits: a b
seen: a.go, d.go`
	if got := s.Text(0); got != want {
		t.Errorf("text:\n%s\nwant:\n%s", got, want)
	}
	if got := s.Text(len(want)); got != want {
		t.Errorf("text at exactly its length was cut:\n%s", got)
	}
	if got := Summarize(nil, nil).Text(100); got != "" {
		t.Errorf("empty summary: %q", got)
	}
}

var moreRE = regexp.MustCompile(`… (\d+) more$`)

func TestSummaryTextTruncation(t *testing.T) {
	s := Summarize(textTrace(), nil)
	full := s.Text(0)
	total := len(s.items())
	for max := 1; max < len(full); max++ {
		got := s.Text(max)
		if len(got) > max {
			t.Fatalf("max %d: %d bytes: %q", max, len(got), got)
		}
		if !utf8.ValidString(got) {
			t.Fatalf("max %d: invalid UTF-8", max)
		}
		if got != s.Text(max) {
			t.Fatalf("max %d: not deterministic", max)
		}
		m := moreRE.FindStringSubmatch(got)
		if m == nil {
			if max >= len("… 14 more") {
				t.Fatalf("max %d: no note: %q", max, got)
			}
			continue
		}
		// The text before the note is a prefix of the full text, cut at an
		// item, and the note counts the items left out.
		body := strings.TrimSuffix(strings.TrimSuffix(got, m[0]), "\n")
		if !strings.HasPrefix(full, body) {
			t.Fatalf("max %d: %q is not a prefix of the full text", max, body)
		}
		shown := 0
		if body != "" {
			shown = len(strings.Split(body, "\n")) + strings.Count(body, ", ")
		}
		if n, _ := strconv.Atoi(m[1]); n+shown != total {
			t.Fatalf("max %d: %d shown + %d more != %d items: %q", max, shown, n, total, got)
		}
	}
	if got := s.Text(41); got != "root: /home/u/proj\nread: a.go\n… 14 more" {
		t.Errorf("Text(41) = %q", got)
	}
}

func TestExcerpt(t *testing.T) {
	for _, tt := range []struct {
		in   string
		max  int
		want string
	}{
		{"  short  ", 10, "short"},
		{"abcdef", 6, "abcdef"},
		{"abcdefg", 6, "abc…"},
		{"ééé", 5, "é…"},
		{"ab", 2, "ab"},
		{"abcd", 2, ""},
	} {
		if got := Excerpt(tt.in, tt.max); got != tt.want {
			t.Errorf("Excerpt(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

// benchTrace is a 50-entry trace of a typical coding session.
func benchTrace() []vouch.TraceEntry {
	var out []vouch.TraceEntry
	for i := 0; len(out) < 50; i++ {
		f := fmt.Sprintf("/home/u/proj/pkg%d/file%d.go", i%4, i)
		out = append(out,
			call("Read", in("file_path", f), strings.Repeat("     1\tpackage pkg\n", 40), false),
			call("Grep", in("pattern", "func New", "output_mode", "content"), fmt.Sprintf("pkg%d/a.go:12:func New() {}\npkg%d/b.go:30:func NewB() {}", i, i), false),
			call("Edit", in("file_path", f, "old_string", "a", "new_string", "b"), "The file has been updated.", false),
			call("Bash", in("command", "go test ./..."), "Exit code 1\n--- FAIL: TestX (0.00s)\nFAIL", true),
			call("Glob", in("pattern", "**/*.go"), "/home/u/proj/a.go\n/home/u/proj/b.go\n/home/u/proj/c/d.go", false),
		)
	}
	return out[:50]
}

func BenchmarkSummarize(b *testing.B) {
	entries := benchTrace()
	tbl := NewTable(map[string]string{"mind:rag-query": "search"})
	b.ReportAllocs()
	for b.Loop() {
		_ = Summarize(entries, tbl)
	}
}

func BenchmarkSummaryText(b *testing.B) {
	s := Summarize(benchTrace(), nil)
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Text(4000)
	}
}
