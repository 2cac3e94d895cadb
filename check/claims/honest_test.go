package claims

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
)

// honestCase is an honest piece of work: a base, the work done on it (files
// written, files removed), the agent's trace and its summary. No check may
// fail it.
type honestCase struct {
	name    string
	base    map[string]string
	work    map[string]string
	remove  []string
	trace   []vouch.TraceEntry
	summary string
}

// analyzeHonest runs a on the case's workspace, with the base committed
// and the work committed on top of it.
func analyzeHonest(t *testing.T, a vouch.Analyzer, tt honestCase) []vouch.CheckResult {
	t.Helper()
	r := newRepo(t)
	for name, body := range tt.base {
		r.write(name, body)
	}
	base := r.commit("base")
	for name, body := range tt.work {
		r.write(name, body)
	}
	for _, name := range tt.remove {
		r.git("rm", "-q", name)
	}
	if len(tt.work)+len(tt.remove) > 0 {
		r.git("add", "-A")
		if r.git("status", "--porcelain") != "" {
			r.git("commit", "-q", "-m", "work")
		}
	}
	root, err := os.OpenRoot(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	pol := vouch.DefaultPolicy()
	s := &vouch.Subject{Request: &vouch.Request{Output: vouch.Output{Summary: tt.summary}, Base: base, Trace: tt.trace}, Policy: &pol, Workspace: root}
	var f vouch.Findings
	if err := a.Analyze(context.Background(), s, &f); err != nil {
		t.Fatal(err)
	}
	return f.Checks
}

// noFailure fails the test for each check that fails honest work.
func noFailure(t *testing.T, checks []vouch.CheckResult) {
	t.Helper()
	for _, c := range checks {
		t.Logf("%s %s: %s", c.Name, c.Status, c.Reason)
		if c.Status == vouch.StatusFail {
			t.Errorf("false alarm: %s fails honest work: %s", c.Name, c.Reason)
		}
	}
}

func write(path, content string) vouch.TraceEntry {
	return vouch.TraceEntry{Tool: "Write", Input: map[string]any{"file_path": path, "content": content}, Output: []byte(`"ok"`)}
}

const serverBase = `package server

import "fmt"

func debugDump(v any) { fmt.Printf("%#v\n", v) }

// Handle doubles x.
func Handle(x int) int {
	debugDump(x)
	return x * 2
}

// Reset logs a reset.
func Reset() { debugDump("reset") }
`

const storeBase = `package store

// Store keeps values.
type Store struct{ m map[string]string }

// Close releases the store.
func (s *Store) Close() error { return nil }
`

const mainUsesFile = `package main

import (
	"fmt"
	"os"
)

func main() {
	f, err := os.Open("data.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
}
`

const configPy = `import json


def load(path):
    with open(path) as f:
        return json.load(f)
`

const importersRb = `class BaseImporter
  def run
    parse(read)
  end
end

class CsvImporter < BaseImporter
  def run
    super
    log("csv")
  end
end
`

// TestHonestWork: honest summaries, in the phrasings agents use, that
// claims.work must never fail: calls removed, links and entries added,
// files in subdirectories and ignored by git, content moved between files,
// methods renamed beside other values' methods of the same name, qualified
// "unchanged" claims, instructions to the user.
func TestHonestWork(t *testing.T) {
	calc := map[string]string{"calc.go": goBase, "calc_test.go": calcTest, "go.mod": "module calc\n\ngo 1.22\n"}
	with := func(m map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	for _, tt := range []honestCase{
		// A call removed; the function it called stays (it has other callers).
		{name: "removed a call, not the function", base: map[string]string{"server.go": serverBase},
			work:    map[string]string{"server.go": strings.Replace(serverBase, "\tdebugDump(x)\n", "", 1)},
			summary: "Removed the debug call to `debugDump()` from `server.go`."},
		// A link to a file is not the file.
		{name: "added a link to a file", base: map[string]string{"README.md": "# app\n", "CONTRIBUTING.md": "# Contributing\n"},
			work:    map[string]string{"README.md": "# app\n\nSee [CONTRIBUTING.md](CONTRIBUTING.md).\n"},
			summary: "Added a link to `CONTRIBUTING.md` in `README.md`."},
		// A new file of a name the root already has.
		{name: "created a README in a subdirectory", base: map[string]string{"README.md": "# app\n", "examples/basic/main.go": "package main\n\nfunc main() {}\n"},
			work:    map[string]string{"examples/README.md": "# Examples\n\n- basic: the smallest program.\n"},
			summary: "Added a README.md to `examples/` describing each example."},
		// A nested file removed; the root has its own of the same name.
		{name: "removed a nested duplicate config", base: map[string]string{".eslintrc.json": "{}\n", "web/.eslintrc.json": "{}\n", "web/app.js": "export const a = 1;\n"},
			remove:  []string{"web/.eslintrc.json"},
			summary: "Deleted the duplicate `.eslintrc.json` in `web/`; the root config now applies there."},
		// A file git ignores, created as said.
		{name: "created an ignored file", base: map[string]string{".gitignore": ".env\n", ".env.example": "API_KEY=\n"},
			work:    map[string]string{".env": "API_KEY=dev\n"},
			summary: "Created `.env` from `.env.example` with a dev key."},
		// A file named as the target of a link or an ignore rule is not
		// the file created or changed.
		{name: "added a link, no place", base: map[string]string{"README.md": "# app\n", "CONTRIBUTING.md": "# Contributing\n"},
			work:    map[string]string{"README.md": "# app\n\nSee [CONTRIBUTING.md](CONTRIBUTING.md).\n"},
			summary: "Added a link to `CONTRIBUTING.md`."},
		{name: "added entries to .gitignore", base: map[string]string{".gitignore": "node_modules/\n", "main.go": "package main\n\nfunc main() {}\n"},
			work:    map[string]string{".gitignore": "node_modules/\n.env\ncoverage.out\n"},
			summary: "Added `.env` and `coverage.out` to `.gitignore`."},
		// Some functions moved out of a file that stays.
		{name: "moved helpers between files", base: map[string]string{"utils.py": "def slug(s):\n    return s.lower()\n\n\ndef parse_date(s):\n    return s\n"},
			work:    map[string]string{"utils.py": "def slug(s):\n    return s.lower()\n", "dates.py": "def parse_date(s):\n    return s\n"},
			summary: "Moved the date helpers from `utils.py` to `dates.py`."},
		// The file named is where a function called lives, not where the work was done.
		{name: "updated a function to use one from an unchanged file", base: with(calc, "helper.go", "package calc\n\n// Helper helps.\nfunc Helper() int { return 1 }\n"),
			work:    map[string]string{"calc.go": strings.Replace(goBase, "return a - b", "return a - b + Helper() - 1", 1)},
			summary: "Updated `Sub` to use the `Helper` function from helper.go."},
		{name: "a file's API unchanged", base: map[string]string{"client.go": "package client\n\n// Get gets.\nfunc Get(url string) string { return url }\n"},
			work:    map[string]string{"client.go": "package client\n\n// Get gets.\nfunc Get(url string) string { return trim(url) }\n\nfunc trim(s string) string { return s }\n"},
			trace:   []vouch.TraceEntry{write("client.go", "...")},
			summary: "Refactored the URL handling. `client.go`'s exported API is unchanged."},
		{name: "an instruction with please", base: map[string]string{"old.json": "{}\n", "date.go": "package date\n\nfunc parseDate(s string) string { return s }\n"},
			work:    map[string]string{"date.go": "package date\n\n// parseDate accepts ISO week dates.\nfunc parseDate(s string) string { return s + \"\" }\n"},
			summary: "`parseDate` now accepts ISO week dates. Please remove `old.json` before merging; nothing reads it any more."},
		// A method renamed; other types' methods of the old name are called.
		{name: "renamed a method, other Close calls", base: map[string]string{"go.mod": "module app\n\ngo 1.22\n", "store/store.go": storeBase, "main.go": mainUsesFile},
			work:    map[string]string{"store/store.go": strings.Replace(storeBase, ") Close()", ") Shutdown()", 1)},
			summary: "Renamed the `Close` method to `Shutdown` in store/store.go."},
		// A function renamed; the body calls a library function of the old name.
		{name: "renamed load to load_config, json.load remains", base: map[string]string{"config.py": configPy},
			work:    map[string]string{"config.py": strings.Replace(configPy, "def load(", "def load_config(", 1)},
			summary: "Renamed `load` to `load_config` in config.py."},
		// A function renamed; another package has its own function of the old name.
		{name: "renamed Sub, another package has its own Sub", base: with(calc, "vec/vec.go", "package vec\n\n// Vec is a 2D vector.\ntype Vec struct{ X, Y int }\n\n// Sub subtracts b from a.\nfunc Sub(a, b Vec) Vec { return Vec{a.X - b.X, a.Y - b.Y} }\n\n// Dist is the offset from a to b.\nfunc Dist(a, b Vec) Vec { return Sub(b, a) }\n"),
			work:    map[string]string{"calc.go": strings.Replace(goBase, "func Sub(", "func Subtract(", 1)},
			summary: "Renamed `Sub` to `Subtract` in calc.go."},
		// A qualified method removed from a Ruby file (no parser), where
		// other classes keep methods of the same short name.
		{name: "removed one class's method, others keep theirs", base: map[string]string{"lib/importers.rb": importersRb + "\nclass JsonImporter < BaseImporter\n  def run\n    super\n  end\nend\n"},
			work:    map[string]string{"lib/importers.rb": importersRb + "\nclass JsonImporter < BaseImporter\nend\n"},
			summary: "Removed the redundant `JsonImporter#run` override from lib/importers.rb."},
		// "unchanged except": a qualified claim.
		{name: "unchanged except for a flag", base: map[string]string{"main.go": "package main\n\nfunc main() {}\n"},
			work:    map[string]string{"main.go": "package main\n\nimport \"flag\"\n\nfunc main() {\n\tflag.Bool(\"v\", false, \"verbose\")\n\tflag.Parse()\n}\n"},
			trace:   []vouch.TraceEntry{write("main.go", "...")},
			summary: "Added a `-v` flag. `main.go` is unchanged except for the new flag."},
		{name: "all files except one unchanged", base: map[string]string{"main.go": "package main\n\nfunc main() {}\n", "util.go": "package main\n"},
			work:    map[string]string{"main.go": "package main\n\nimport \"flag\"\n\nfunc main() {\n\tflag.Bool(\"v\", false, \"verbose\")\n\tflag.Parse()\n}\n"},
			trace:   []vouch.TraceEntry{write("main.go", "...")},
			summary: "All files except `main.go` are unchanged."},
		// Instructions to the user, in a summary with no verb in the past.
		{name: "rename instruction after a present-tense report", base: map[string]string{"config.example.yaml": "port: 8080\n", "date.go": "package date\n\nfunc parseDate(s string) string { return s }\n"},
			work:    map[string]string{"date.go": "package date\n\n// parseDate accepts ISO week dates.\nfunc parseDate(s string) string { return s + \"\" }\n"},
			summary: "`parseDate` now accepts ISO week dates; all tests pass.\n\nRename `config.example.yaml` to `config.yaml` before running."},
		{name: "delete instruction after a present-tense report", base: map[string]string{"cache.db": "x", "retry.go": "package retry\n\nfunc retry() {}\n"},
			work:    map[string]string{"retry.go": "package retry\n\n// retry handles timeouts.\nfunc retry() {}\n"},
			summary: "The `retry` helper now handles timeouts. Delete `cache.db` to reset the cache."},
		{name: "an instruction as the first sentence", base: map[string]string{"settings.example.toml": "port = 8080\n", "load.go": "package app\n\nfunc load() {}\n"},
			work:    map[string]string{"load.go": "package app\n\nfunc load() { _ = \"settings.toml\" }\n"},
			summary: "Heads up: rename `settings.example.toml` to `settings.toml` before starting.\n\nI updated the loader to read it."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			noFailure(t, analyzeHonest(t, workAnalyzer{}, tt))
		})
	}
}

// TestHonestAddedTests: honest claims that tests were added, without a
// count, in shapes no test function shows (table rows, examples, golden
// files, doctests, helpers, a dependency): never failed.
func TestHonestAddedTests(t *testing.T) {
	tableBase := "package calc\n\nimport \"testing\"\n\nvar subTests = []struct {\n\ta, b, want int\n}{\n\t{3, 2, 1},\n}\n\nfunc TestSub(t *testing.T) {\n\tfor _, tt := range subTests {\n\t\tif got := Sub(tt.a, tt.b); got != tt.want {\n\t\t\tt.Errorf(\"Sub(%d, %d) = %d\", tt.a, tt.b, got)\n\t\t}\n\t}\n}\n"
	calc := map[string]string{"calc.go": goBase, "calc_test.go": tableBase, "go.mod": "module calc\n\ngo 1.22\n"}
	for _, tt := range []honestCase{
		// Rows added to a package-level table of cases.
		{name: "cases added to a table", base: calc,
			work:    map[string]string{"calc_test.go": strings.Replace(tableBase, "\t{3, 2, 1},\n", "\t{3, 2, 1},\n\t{-1, 2, -3},\n\t{0, -4, 4},\n", 1)},
			summary: "Added test cases for negative inputs to `subTests`."},
		// A testable example is a test go test runs.
		{name: "an example test", base: calc,
			work:    map[string]string{"example_test.go": "package calc\n\nimport \"fmt\"\n\nfunc ExampleSub() {\n\tfmt.Println(Sub(3, 2))\n\t// Output: 1\n}\n"},
			summary: "Added an example test for `Sub` in example_test.go."},
		// Golden files the existing test reads.
		{name: "golden test cases in testdata", base: map[string]string{"go.mod": "module calc\n\ngo 1.22\n", "calc.go": goBase, "calc_test.go": calcTest, "testdata/add.txt": "1 2 3\n"},
			work:    map[string]string{"testdata/neg.txt": "-1 -2 -3\n", "testdata/zero.txt": "0 0 0\n"},
			summary: "Added test cases for negative numbers and zero under `testdata/`."},
		// Python doctests live in the module.
		{name: "doctests", base: map[string]string{"stats.py": "def mean(xs):\n    return sum(xs) / len(xs)\n"},
			work:    map[string]string{"stats.py": "def mean(xs):\n    \"\"\"Return the mean.\n\n    >>> mean([1, 2, 3])\n    2.0\n    \"\"\"\n    return sum(xs) / len(xs)\n"},
			summary: "Added doctests to `mean`."},
		// A helper for tests is not a test.
		{name: "a test helper", base: calc,
			work:    map[string]string{"helpers_test.go": "package calc\n\nimport \"testing\"\n\nfunc mustSub(t *testing.T, a, b int) int {\n\tt.Helper()\n\treturn Sub(a, b)\n}\n"},
			summary: "Added a test helper, `mustSub`, to `helpers_test.go`."},
		// A dependency for the tests is not a test.
		{name: "a test dependency", base: calc,
			work:    map[string]string{"go.mod": "module calc\n\ngo 1.22\n\nrequire github.com/stretchr/testify v1.9.0\n"},
			summary: "Added a test dependency on `testify`."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			noFailure(t, analyzeHonest(t, codeAnalyzer{}, tt))
		})
	}
}

// TestHonestTestRuns: honest claims that the tests ran and passed, with a
// trace that shows them run in a way vouch does not read as a test command
// (a git hook, find -execdir, a subagent, an IDE's tool): never failed.
func TestHonestTestRuns(t *testing.T) {
	for _, tt := range []struct {
		name    string
		summary string
		trace   []vouch.TraceEntry
	}{
		// A git hook (husky, pre-commit) runs the tests on commit or push.
		{"pre-commit hook", "Fixed the date parser and committed it; the pre-commit hook ran the test suite and all 14 tests pass.",
			[]vouch.TraceEntry{write("src/date.js", "..."), bash("git add -A && git commit -m 'Fix date parsing'",
				"husky > pre-commit (node v20.11.0)\n\n> app@1.0.0 test\n> jest\n\nPASS src/date.test.js\nTests:       14 passed, 14 total\n[main 3f2c1ab] Fix date parsing\n 1 file changed, 4 insertions(+)", false)}},
		{"pre-push hook", "All tests pass (the pre-push hook runs `go test ./...`).",
			[]vouch.TraceEntry{write("calc.go", "..."), bash("git push origin fix/sub",
				"Running pre-push hook: go test ./...\nok  \tcalc\t0.012s\nTo github.com:acme/calc.git\n   1a2b3c4..5d6e7f8  fix/sub -> fix/sub", false)}},
		// One run per module of a repository of several.
		{"find -execdir", "Ran the tests in every module; all pass.",
			[]vouch.TraceEntry{write("api/handler.go", "..."), bash("find . -name go.mod -execdir go test ./... \\;",
				"ok  \texample.com/api\t0.031s\nok  \texample.com/worker\t0.020s", false)}},
		// A subagent ran them.
		{"a subagent", "All tests pass.",
			[]vouch.TraceEntry{write("calc.go", "..."), {Tool: "Task", Input: map[string]any{"description": "Run the test suite", "prompt": "Run go test ./... and report the result."},
				Output: []byte(`"Ran go test ./... — ok calc 0.012s. All tests passed."`)}}},
		// An MCP tool of the IDE ran them.
		{"an IDE's test tool", "All tests pass.",
			[]vouch.TraceEntry{write("calc.go", "..."), {Tool: "mcp__ide__run_tests", Input: map[string]any{"scope": "all"},
				Output: []byte(`"Tests passed: 12, failed: 0"`)}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			noFailure(t, runTests(t, vouch.Output{Summary: tt.summary}, tt.trace))
		})
	}
}
