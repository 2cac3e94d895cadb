package claims

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
)

// repo is a git workspace built for a test.
type repo struct {
	t   *testing.T
	dir string
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	r := &repo{t, t.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = r.dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + r.dir, "GIT_CONFIG_NOSYSTEM=1"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *repo) write(name, body string) {
	r.t.Helper()
	p := filepath.Join(r.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *repo) commit(msg string) string {
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

func analyzeGit(t *testing.T, dir, base string, out vouch.Output) vouch.Findings {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	pol := vouch.DefaultPolicy()
	s := &vouch.Subject{Request: &vouch.Request{Output: out, Base: base}, Policy: &pol, Workspace: root}
	var f vouch.Findings
	if err := (gitAnalyzer{}).Analyze(context.Background(), s, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

const fourFuncs = "export function parse() {}\n\nexport function tokenize() {}\n\nexport function format() {}\n\nexport function validate() {}\n"

func edits(file string, regions ...[2]int) *vouch.Artifacts {
	a := &vouch.Artifacts{}
	for _, r := range regions {
		a.FileEdits = append(a.FileEdits, vouch.FileEdit{File: file, EditedRegion: &vouch.LineRange{Start: r[0], End: r[1]}})
	}
	return a
}

func statuses(checks []vouch.CheckResult) string {
	var b []string
	for _, c := range checks {
		s := string(c.Status)
		if c.Code != "" {
			s += ":" + c.Code
		}
		b = append(b, s)
	}
	return strings.Join(b, " ")
}

func TestGitClaims(t *testing.T) {
	r := newRepo(t)
	r.write("src/parser.ts", fourFuncs)
	r.write("README.md", "# p\n")
	base := r.commit("base")
	// The agent documents parse only, and touches the README unasked.
	r.write("src/parser.ts", "/** Parses. */\n"+fourFuncs)
	r.write("README.md", "# p\n\nmore\n")

	// Claimed regions after the edit: parse at 1-2, the others untouched.
	claim := vouch.Output{Artifacts: edits("src/parser.ts", [2]int{1, 2}, [2]int{4, 4}, [2]int{6, 6}, [2]int{8, 8})}
	f := analyzeGit(t, r.dir, base, claim)
	if got, want := statuses(f.Checks), "pass fail:REGION_UNCHANGED fail:REGION_UNCHANGED fail:REGION_UNCHANGED"; got != want {
		t.Errorf("uncommitted, with base: %s, want %s", got, want)
	}
	if len(f.Warnings) != 1 || f.Warnings[0].Code != vouch.CodeUnclaimedChange || !strings.Contains(f.Warnings[0].Message, "README.md") {
		t.Errorf("unclaimed change: %+v", f.Warnings)
	}

	// Committed work counts when the base is known.
	r.commit("agent work")
	f = analyzeGit(t, r.dir, base, claim)
	if got, want := statuses(f.Checks), "pass fail:REGION_UNCHANGED fail:REGION_UNCHANGED fail:REGION_UNCHANGED"; got != want {
		t.Errorf("committed, with base: %s, want %s", got, want)
	}
	// Without a base, committed work is invisible: undecided, not failed.
	f = analyzeGit(t, r.dir, "", claim)
	if got, want := statuses(f.Checks), "undecided:NO_CHANGE"; got != want {
		t.Errorf("committed, no base: %s, want %s", got, want)
	}

	// A file claimed modified that did not change.
	f = analyzeGit(t, r.dir, r.git("rev-parse", "HEAD"), vouch.Output{Modified: []string{"src/parser.ts"}})
	if got, want := statuses(f.Checks), "fail:NO_CHANGE"; got != want {
		t.Errorf("unchanged since base: %s, want %s", got, want)
	}

	// A created, untracked file is a change.
	r.write("docs/new.md", "new\n")
	f = analyzeGit(t, r.dir, r.git("rev-parse", "HEAD"), vouch.Output{Created: []string{"docs/new.md"}})
	if got, want := statuses(f.Checks), "pass"; got != want {
		t.Errorf("untracked created file: %s, want %s", got, want)
	}

	// A base that does not resolve leaves the git claims undecided.
	f = analyzeGit(t, r.dir, "no-such-ref", vouch.Output{Created: []string{"docs/new.md"}})
	if got, want := statuses(f.Checks), "undecided:GIT_UNAVAILABLE"; got != want {
		t.Errorf("bad base: %s, want %s", got, want)
	}
}

func TestGitNotARepo(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := analyzeGit(t, dir, "", vouch.Output{Modified: []string{"a.txt"}})
	if len(f.Checks) != 0 || len(f.Warnings) != 0 {
		t.Errorf("not a repo: %+v", f)
	}
}

// TestSaidChanges holds "Updated X" in the summary against the diff since
// the base: only a file vouch can tell is meant, and a file the trace
// wrote that git shows unchanged is undecided.
func TestSaidChanges(t *testing.T) {
	r := newRepo(t)
	r.write("lib/app/parser.ex", "a\n")
	r.write("lib/app/lexer.ex", "a\n")
	r.write("lib/web/parser.ex", "a\n")
	r.write("README.md", "a\n")
	base := r.commit("base")
	r.write("lib/app/parser.ex", "b\n")
	r.write("lib/web/parser.ex", "b\n")
	r.commit("work")
	write := func(p string) vouch.TraceEntry {
		return vouch.TraceEntry{Tool: "Edit", Input: map[string]any{"file_path": p, "old_string": "a", "new_string": "a"}, Output: []byte(`"ok"`)}
	}
	for _, tt := range []struct {
		name, summary string
		trace         []vouch.TraceEntry
		want          string
	}{
		{"changed, full path", "Updated `lib/app/parser.ex` to read maps.", nil, "pass"},
		{"unchanged, full path", "Refactored `lib/app/lexer.ex` and `lib/app/parser.ex`.", nil, "fail pass"},
		{"unchanged, the trace wrote it", "Modified `lib/app/lexer.ex`.", []vouch.TraceEntry{write("/home/u/proj/lib/app/lexer.ex")}, "undecided"},
		{"a document, unchanged", "Fixed `README.md`.", nil, "fail"},
		{"base name of one changed file", "Updated `lexer.ex` and `app/parser.ex`.", nil, "pass"},
		{"base name of two changed files", "Updated `parser.ex`.", nil, ""},
		{"a file that does not exist", "Updated `lib/app/gone.ex`.", nil, ""},
		{"said not done", "I did not modify `lib/app/lexer.ex`.", nil, ""},
		{"created, not changed", "Created `lib/app/lexer.ex`.", nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root, err := os.OpenRoot(r.dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			pol := vouch.DefaultPolicy()
			s := &vouch.Subject{Request: &vouch.Request{Output: vouch.Output{Summary: tt.summary}, Base: base, Trace: tt.trace}, Policy: &pol, Workspace: root}
			var f vouch.Findings
			if err := (gitAnalyzer{}).Analyze(context.Background(), s, &f); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range f.Checks {
				got = append(got, string(c.Status))
			}
			if g := strings.Join(got, " "); g != tt.want {
				t.Errorf("got %q, want %q (%+v)", g, tt.want, f.Checks)
			}
		})
	}
}
