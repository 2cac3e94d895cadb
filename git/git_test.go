package git

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vouchgate/vouch"
)

func TestRead(t *testing.T) {
	needGit(t)
	ten := lines("line ", 10)
	cases := []struct {
		name string
		// setup builds the repository and returns the workspace (a path
		// relative to the repository, "" for its root) and the base ("" for
		// none).
		setup func(r *repo) (dir, base string)
		want  map[string]FileChange
	}{
		{
			name: "committed change after base",
			setup: func(r *repo) (string, string) {
				r.write("f.txt", ten)
				base := r.commit("base")
				r.write("f.txt", replaceLine(replaceLine(ten, 3, "three"), 4, "four"))
				r.commit("edit")
				return "", base
			},
			want: map[string]FileChange{
				"f.txt": {Status: Modified, Hunks: []Hunk{{3, 4}}, Committed: true},
			},
		},
		{
			name: "uncommitted change",
			setup: func(r *repo) (string, string) {
				r.write("f.txt", ten)
				base := r.commit("base")
				r.write("f.txt", replaceLine(ten, 2, "two"))
				return "", base
			},
			want: map[string]FileChange{
				"f.txt": {Status: Modified, Hunks: []Hunk{{2, 2}}, Uncommitted: true},
			},
		},
		{
			name: "committed and uncommitted",
			setup: func(r *repo) (string, string) {
				r.write("f.txt", ten)
				r.write("g.txt", ten)
				r.write("h.txt", ten)
				base := r.commit("base")
				r.write("f.txt", replaceLine(ten, 1, "one"))
				r.write("g.txt", replaceLine(ten, 5, "five"))
				r.commit("edit")
				r.write("f.txt", replaceLine(replaceLine(ten, 1, "one"), 9, "nine"))
				r.write("h.txt", replaceLine(ten, 7, "seven"))
				r.git("add", "h.txt") // staged counts as uncommitted
				return "", base
			},
			want: map[string]FileChange{
				"f.txt": {Status: Modified, Hunks: []Hunk{{1, 1}, {9, 9}}, Committed: true, Uncommitted: true},
				"g.txt": {Status: Modified, Hunks: []Hunk{{5, 5}}, Committed: true},
				"h.txt": {Status: Modified, Hunks: []Hunk{{7, 7}}, Uncommitted: true},
			},
		},
		{
			name: "committed then reverted is no change",
			setup: func(r *repo) (string, string) {
				r.write("f.txt", ten)
				base := r.commit("base")
				r.write("f.txt", replaceLine(ten, 1, "one"))
				r.commit("edit")
				r.write("f.txt", ten)
				return "", base
			},
			want: map[string]FileChange{},
		},
		{
			name: "untracked and ignored files",
			setup: func(r *repo) (string, string) {
				r.write(".gitignore", "*.log\n")
				base := r.commit("base")
				r.write("new.txt", "a\nb\nc") // no final newline: 3 lines
				r.write("empty.txt", "")
				r.write("debug.log", "ignored\n")
				return "", base
			},
			want: map[string]FileChange{
				"new.txt":   {Status: Untracked, Hunks: []Hunk{{1, 3}}, Uncommitted: true},
				"empty.txt": {Status: Untracked, Uncommitted: true},
			},
		},
		{
			name: "added in a commit",
			setup: func(r *repo) (string, string) {
				base := r.commit("base")
				r.write("docs/x.md", "# X\n\ntext\n")
				r.commit("add")
				return "", base
			},
			want: map[string]FileChange{
				"docs/x.md": {Status: Added, Hunks: []Hunk{{1, 3}}, Committed: true},
			},
		},
		{
			name: "deleted files",
			setup: func(r *repo) (string, string) {
				r.write("committed.txt", ten)
				r.write("worktree.txt", ten)
				base := r.commit("base")
				r.git("rm", "-q", "committed.txt")
				r.commit("rm")
				r.remove("worktree.txt")
				return "", base
			},
			want: map[string]FileChange{
				"committed.txt": {Status: Deleted, Committed: true},
				"worktree.txt":  {Status: Deleted, Uncommitted: true},
			},
		},
		{
			name: "renamed without edits",
			setup: func(r *repo) (string, string) {
				r.write("old.txt", ten)
				base := r.commit("base")
				r.git("mv", "old.txt", "new.txt")
				r.commit("mv")
				return "", base
			},
			want: map[string]FileChange{
				"new.txt": {Status: Renamed, OldPath: "old.txt", Committed: true},
			},
		},
		{
			name: "renamed with edits",
			setup: func(r *repo) (string, string) {
				r.write("src/old.go", ten)
				base := r.commit("base")
				r.git("mv", "src/old.go", "src/new.go")
				r.write("src/new.go", replaceLine(ten, 6, "six"))
				return "", base
			},
			want: map[string]FileChange{
				"src/new.go": {Status: Renamed, OldPath: "src/old.go", Hunks: []Hunk{{6, 6}}, Uncommitted: true},
			},
		},
		{
			name: "workspace in a subdirectory",
			setup: func(r *repo) (string, string) {
				r.write("root.txt", ten)
				r.write("ws/a.txt", ten)
				r.write("ws/deep/b.txt", ten)
				r.write("other/c.txt", ten)
				r.write("moved.txt", ten)
				base := r.commit("base")
				r.write("root.txt", replaceLine(ten, 1, "x"))
				r.write("ws/a.txt", replaceLine(ten, 2, "x"))
				r.write("ws/deep/b.txt", replaceLine(ten, 3, "x"))
				r.write("other/c.txt", replaceLine(ten, 4, "x"))
				r.write("ws/new.txt", "n\n")
				r.write("other/new.txt", "n\n")
				r.git("mv", "moved.txt", "ws/moved.txt") // from outside: an addition
				return "ws", base
			},
			want: map[string]FileChange{
				"a.txt":      {Status: Modified, Hunks: []Hunk{{2, 2}}, Uncommitted: true},
				"deep/b.txt": {Status: Modified, Hunks: []Hunk{{3, 3}}, Uncommitted: true},
				"new.txt":    {Status: Untracked, Hunks: []Hunk{{1, 1}}, Uncommitted: true},
				"moved.txt":  {Status: Added, Hunks: []Hunk{{1, 10}}, Uncommitted: true},
			},
		},
		{
			name: "CRLF file",
			setup: func(r *repo) (string, string) {
				r.write("win.txt", "l1\r\nl2\r\nl3\r\nl4\r\n")
				base := r.commit("base")
				r.write("win.txt", "l1\r\nL2\r\nl3\r\nl4\r\nl5\r\n")
				return "", base
			},
			want: map[string]FileChange{
				"win.txt": {Status: Modified, Hunks: []Hunk{{2, 2}, {5, 5}}, Uncommitted: true},
			},
		},
		{
			name: "no final newline",
			setup: func(r *repo) (string, string) {
				r.write("last.txt", "a\nb\nc")
				r.write("append.txt", "a\nb\nc")
				base := r.commit("base")
				r.write("last.txt", "a\nb\nC")         // the last line edited
				r.write("append.txt", "a\nb\nc\nd\ne") // c gains a newline
				return "", base
			},
			want: map[string]FileChange{
				"last.txt":   {Status: Modified, Hunks: []Hunk{{3, 3}}, Uncommitted: true},
				"append.txt": {Status: Modified, Hunks: []Hunk{{3, 5}}, Uncommitted: true},
			},
		},
		{
			name: "binary files",
			setup: func(r *repo) (string, string) {
				r.write("img.bin", "\x00\x01\x02")
				base := r.commit("base")
				r.write("img.bin", "\x00\x01\x03\n")
				r.write("new.bin", "PK\x03\x04\x00\x00\n")
				return "", base
			},
			want: map[string]FileChange{
				"img.bin": {Status: Modified, Binary: true, Uncommitted: true},
				"new.bin": {Status: Untracked, Binary: true, Uncommitted: true},
			},
		},
		{
			name: "paths with spaces, unicode, quotes and control characters",
			setup: func(r *repo) (string, string) {
				r.write("dir with space/ünïcödé file.txt", ten)
				r.write(`quo"te\back.txt`, ten)
				r.write("tab\there.txt", ten)
				base := r.commit("base")
				r.write("dir with space/ünïcödé file.txt", replaceLine(ten, 4, "x"))
				r.write(`quo"te\back.txt`, replaceLine(ten, 5, "x"))
				r.git("mv", "tab\there.txt", "new\nline.txt")
				r.write("日本語 名前.md", "x\ny\n")
				return "", base
			},
			want: map[string]FileChange{
				"dir with space/ünïcödé file.txt": {Status: Modified, Hunks: []Hunk{{4, 4}}, Uncommitted: true},
				`quo"te\back.txt`:                 {Status: Modified, Hunks: []Hunk{{5, 5}}, Uncommitted: true},
				"new\nline.txt":                   {Status: Renamed, OldPath: "tab\there.txt", Uncommitted: true},
				"日本語 名前.md":                       {Status: Untracked, Hunks: []Hunk{{1, 2}}, Uncommitted: true},
			},
		},
		{
			name: "pure deletions",
			setup: func(r *repo) (string, string) {
				r.write("mid.txt", ten)
				r.write("top.txt", ten)
				r.write("all.txt", ten)
				base := r.commit("base")
				r.write("mid.txt", strings.Replace(ten, "line 4\nline 5\n", "", 1)) // after line 3
				r.write("top.txt", strings.Replace(ten, "line 1\nline 2\n", "", 1)) // at the top
				r.write("all.txt", "")
				return "", base
			},
			want: map[string]FileChange{
				"mid.txt": {Status: Modified, Hunks: []Hunk{{4, 3}}, Uncommitted: true},
				"top.txt": {Status: Modified, Hunks: []Hunk{{1, 0}}, Uncommitted: true},
				"all.txt": {Status: Modified, Hunks: []Hunk{{1, 0}}, Uncommitted: true},
			},
		},
		{
			name: "no base: only uncommitted changes",
			setup: func(r *repo) (string, string) {
				r.write("f.txt", ten)
				r.write("g.txt", ten)
				r.commit("base")
				r.write("g.txt", replaceLine(ten, 2, "x"))
				r.commit("edit") // invisible without a base
				r.write("f.txt", replaceLine(ten, 8, "x"))
				r.write("u.txt", "u\n")
				return "", ""
			},
			want: map[string]FileChange{
				"f.txt": {Status: Modified, Hunks: []Hunk{{8, 8}}, Uncommitted: true},
				"u.txt": {Status: Untracked, Hunks: []Hunk{{1, 1}}, Uncommitted: true},
			},
		},
		{
			name: "repository without commits",
			setup: func(r *repo) (string, string) {
				r.write("staged.txt", "a\nb\n")
				r.git("add", "staged.txt")
				r.write("gone.txt", "g\n")
				r.git("add", "gone.txt")
				r.remove("gone.txt")
				r.write("loose.txt", "x")
				return "", ""
			},
			want: map[string]FileChange{
				"staged.txt": {Status: Added, Hunks: []Hunk{{1, 2}}, Uncommitted: true},
				"loose.txt":  {Status: Untracked, Hunks: []Hunk{{1, 1}}, Uncommitted: true},
			},
		},
		{
			name: "type and mode changes",
			setup: func(r *repo) (string, string) {
				r.write("link", ten)
				r.write("run.sh", "echo\n")
				base := r.commit("base")
				r.remove("link")
				if err := os.Symlink("target/elsewhere", filepath.Join(r.dir, "link")); err != nil {
					r.t.Fatal(err)
				}
				if err := os.Chmod(filepath.Join(r.dir, "run.sh"), 0o755); err != nil {
					r.t.Fatal(err)
				}
				return "", base
			},
			want: map[string]FileChange{
				"link":   {Status: Modified, Hunks: []Hunk{{1, 1}}, Uncommitted: true},
				"run.sh": {Status: Modified, Uncommitted: true},
			},
		},
		{
			name: "merge conflict in the working tree",
			setup: func(r *repo) (string, string) {
				r.write("c.txt", "1\n2\n3\n")
				base := r.commit("base")
				r.git("checkout", "-q", "-b", "other")
				r.write("c.txt", "1\nX\n3\n")
				r.commit("other")
				r.git("checkout", "-q", "main")
				r.write("c.txt", "1\nY\n3\n")
				r.commit("main")
				cmd := exec.Command("git", "-c", "user.name=v", "-c", "user.email=v@x", "merge", "-q", "other")
				cmd.Dir = r.dir
				_ = cmd.Run() // conflicts
				return "", base
			},
			want: map[string]FileChange{
				// 1, <<<<<<< HEAD, Y, =======, X, >>>>>>> other, 3
				"c.txt": {Status: Modified, Hunks: []Hunk{{2, 6}}, Committed: true, Uncommitted: true},
			},
		},
		{
			name: "intent to add, long lines, nested repository",
			setup: func(r *repo) (string, string) {
				long := strings.Repeat("x", 200<<10) + "\n"
				r.write("long.txt", long+long+long)
				base := r.commit("base")
				r.write("long.txt", long+strings.Repeat("y", 200<<10)+"\n"+long)
				r.write("ita.txt", "i\nj\n")
				r.git("add", "-N", "ita.txt")
				r.write("nested/inner.txt", "n\n")
				r.gitIn("nested", "init", "-q")
				return "", base
			},
			want: map[string]FileChange{
				"long.txt": {Status: Modified, Hunks: []Hunk{{2, 2}}, Uncommitted: true},
				"ita.txt":  {Status: Added, Hunks: []Hunk{{1, 2}}, Uncommitted: true},
			},
		},
		{
			name: "repository config with home-relative paths",
			setup: func(r *repo) (string, string) {
				r.write("f.txt", ten)
				base := r.commit("base")
				r.git("config", "core.excludesFile", "~/.gitignore_global")
				r.git("config", "include.path", "~/.gitconfig_extra")
				r.write("f.txt", replaceLine(ten, 3, "x"))
				return "", base
			},
			want: map[string]FileChange{
				"f.txt": {Status: Modified, Hunks: []Hunk{{3, 3}}, Uncommitted: true},
			},
		},
		{
			name: "base by name equal to HEAD",
			setup: func(r *repo) (string, string) {
				r.write("f.txt", ten)
				r.commit("base")
				r.git("tag", "start")
				r.write("f.txt", replaceLine(ten, 10, "x"))
				return "", "start"
			},
			want: map[string]FileChange{
				"f.txt": {Status: Modified, Hunks: []Hunk{{10, 10}}, Uncommitted: true},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t)
			sub, base := tc.setup(r)
			dir := filepath.Join(r.dir, filepath.FromSlash(sub))
			got, err := Read(context.Background(), dir, base)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if !got.Repo {
				t.Fatal("Repo = false")
			}
			want := make(map[string]*FileChange, len(tc.want))
			for p, fc := range tc.want {
				fc.Path = p
				want[p] = &fc
			}
			if diff := cmp.Diff(want, got.Files); diff != "" {
				t.Errorf("Files (-want +got):\n%s", diff)
			}
			if got.Head != r.maybeHead() {
				t.Errorf("Head = %q, want %q", got.Head, r.maybeHead())
			}
			if base != "" && got.Base != r.git("rev-parse", base+"^{commit}") {
				t.Errorf("Base = %q, want the hash of %q", got.Base, base)
			}
			if base == "" && got.Base != "" {
				t.Errorf("Base = %q without a base", got.Base)
			}
		})
	}
}

// maybeHead returns HEAD's hash, or "" in a repository without commits.
func (r *repo) maybeHead() string {
	r.t.Helper()
	cmd := exec.Command("git", "rev-parse", "-q", "--verify", "HEAD^{commit}")
	cmd.Dir = r.dir
	out, _ := cmd.Output()
	return strings.TrimSpace(string(out))
}

func TestReadNotARepository(t *testing.T) {
	needGit(t)
	for _, base := range []string{"", "main", "HEAD~3"} {
		got, err := Read(context.Background(), t.TempDir(), base)
		if err != nil {
			t.Fatalf("base %q: %v", base, err)
		}
		if got.Repo || got.Files != nil || got.Base != "" || got.Head != "" {
			t.Errorf("base %q: got %+v, want an empty Changes", base, got)
		}
	}
	// Inside the .git directory of a repository is not a work tree either.
	r := newRepo(t)
	got, err := Read(context.Background(), filepath.Join(r.dir, ".git"), "")
	if err != nil || got.Repo {
		t.Errorf("in .git: got %+v, %v; want Repo false", got, err)
	}
}

func TestReadBadInput(t *testing.T) {
	r := newRepo(t)
	r.write("f.txt", "x\n")
	r.commit("one")
	file := filepath.Join(r.dir, "f.txt")
	cases := []struct {
		name, dir, base, path string
		code                  vouch.ErrorCode
	}{
		{"unknown revision", r.dir, "no-such-branch", "base", vouch.ErrInvalid},
		{"unknown hash", r.dir, "0123456789abcdef0123456789abcdef01234567", "base", vouch.ErrInvalid},
		{"beyond history", r.dir, "HEAD~5", "base", vouch.ErrInvalid},
		{"option", r.dir, "--output=/tmp/x", "base", vouch.ErrInvalid},
		{"two lines", r.dir, "HEAD\nHEAD", "base", vouch.ErrInvalid},
		{"a tree, not a commit", r.dir, "HEAD^{tree}", "base", vouch.ErrInvalid},
		{"missing workspace", filepath.Join(r.dir, "nope"), "", "workspace", vouch.ErrInvalid},
		{"workspace is a file", file, "", "workspace", vouch.ErrInvalid},
		{"no workspace", "", "", "workspace", vouch.ErrMissing},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Read(context.Background(), tc.dir, tc.base)
			if err == nil {
				t.Fatalf("Read = %+v, want an error", got)
			}
			var ve *vouch.Error
			if !errors.As(err, &ve) || ve.Code != tc.code || ve.Path != tc.path {
				t.Fatalf("err = %#v, want a *vouch.Error %s at %q", err, tc.code, tc.path)
			}
		})
	}
	// In a repository without commits no base resolves.
	empty := newRepo(t)
	if _, err := Read(context.Background(), empty.dir, "HEAD"); vouch.Code(err) != vouch.ErrInvalid {
		t.Errorf("no commits, base HEAD: err = %v, want %s", err, vouch.ErrInvalid)
	}
}

func TestReadCancelled(t *testing.T) {
	r, base := changedRepo(t, 2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got, err := Read(ctx, r.dir, base); !errors.Is(err, context.Canceled) {
		t.Fatalf("Read with a cancelled context = %+v, %v; want context.Canceled", got, err)
	}
	// Cancelled while the changes are read (after the three setup
	// processes): an error, never partial changes.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	var n atomic.Int64
	rn := &runner{hook: func([]string) {
		if n.Add(1) == 4 {
			cancel()
		}
	}}
	if got, err := rn.read(ctx, r.dir, nil, base); !errors.Is(err, context.Canceled) {
		t.Fatalf("Read cancelled midway = %+v, %v; want context.Canceled", got, err)
	}
}

// TestReadHostileConfig checks that a workspace's own configuration cannot
// make Read run a program: the agent under verification writes it.
func TestReadHostileConfig(t *testing.T) {
	r := newRepo(t)
	marker := filepath.Join(r.dir, "..", filepath.Base(r.dir)+".pwned")
	evil := "touch '" + marker + "'; cat"
	r.write(".gitattributes", "* filter=evil diff=evil\n*.txt filter=x=y\n")
	r.write("f.txt", lines("l", 5))
	base := r.commit("base")
	script := "#!/bin/sh\ntouch '" + marker + "'\n"
	r.write("fsmonitor.sh", script)
	r.write("hooks/post-index-change", script)
	for _, p := range []string{"fsmonitor.sh", "hooks/post-index-change"} {
		if err := os.Chmod(filepath.Join(r.dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, kv := range [][2]string{
		{"filter.evil.clean", evil},
		{"filter.evil.process", evil},
		{"filter.evil.required", "true"},
		{"filter.x=y.clean", evil},
		{"diff.evil.textconv", evil},
		{"diff.evil.command", evil},
		{"diff.external", evil},
		{"core.fsmonitor", filepath.Join(r.dir, "fsmonitor.sh")},
		{"core.hooksPath", filepath.Join(r.dir, "hooks")},
		{"core.pager", evil},
	} {
		r.git("config", kv[0], kv[1])
	}
	r.write("f.txt", replaceLine(lines("l", 5), 2, "x"))
	r.write("new.txt", "n\n")
	got, err := Read(context.Background(), r.dir, base)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the workspace's configuration ran a program")
	}
	if !got.Touches("f.txt", 2, 2) || got.File("new.txt") == nil {
		t.Errorf("changes = %v, want f.txt line 2 and new.txt", got.Paths())
	}
	if _, err := Snapshot(context.Background(), r.dir); err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the workspace's configuration ran a program during Snapshot")
	}
}

func TestTouches(t *testing.T) {
	c := &Changes{Repo: true, Files: map[string]*FileChange{
		"src/a.go": {Path: "src/a.go", Status: Modified, Hunks: []Hunk{{10, 20}, {31, 30}}},
		"top.go":   {Path: "top.go", Status: Modified, Hunks: []Hunk{{1, 0}}},
		"bin.dat":  {Path: "bin.dat", Status: Modified, Binary: true},
	}}
	cases := []struct {
		path       string
		start, end int
		want       bool
	}{
		{"src/a.go", 10, 20, true},
		{"src/a.go", 1, 10, true},  // shares line 10
		{"src/a.go", 20, 25, true}, // shares line 20
		{"src/a.go", 1, 9, false},
		{"src/a.go", 21, 29, false},
		{"src/a.go", 15, 15, true},
		{"src/a.go", 1, 100, true},
		{"src/a.go", 30, 30, true}, // the line before the deletion
		{"src/a.go", 31, 31, true}, // the line after it
		{"src/a.go", 32, 40, false},
		{"src/a.go", 22, 29, false},
		{"src/a.go", 20, 10, false}, // inverted region
		{"src/a.go", 0, 0, false},
		{"./src//a.go", 10, 10, true},
		{"src/../src/a.go", 10, 10, true},
		{"src\\a.go", 10, 10, filepath.Separator == '\\'},
		{"../src/a.go", 10, 10, false},
		{"/src/a.go", 10, 10, false},
		{"top.go", 1, 1, true}, // deletion at the top, before line 1
		{"top.go", 2, 5, false},
		{"bin.dat", 1, 1, false},
		{"missing.go", 1, 1, false},
	}
	for _, tc := range cases {
		if got := c.Touches(tc.path, tc.start, tc.end); got != tc.want {
			t.Errorf("Touches(%q, %d, %d) = %v, want %v", tc.path, tc.start, tc.end, got, tc.want)
		}
	}
	var nilChanges *Changes
	if nilChanges.File("a") != nil || nilChanges.Touches("a", 1, 1) || nilChanges.Paths() != nil {
		t.Error("a nil *Changes is not empty")
	}
	if got, want := c.Paths(), []string{"bin.dat", "src/a.go", "top.go"}; !cmp.Equal(got, want) {
		t.Errorf("Paths = %q, want %q", got, want)
	}
}

func TestSnapshot(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", "a\n")
	r.write("b.txt", "b\n")
	r.write("sub/c.txt", "c\n")
	r.write("old.txt", "o\n")
	head := r.commit("base")
	r.write("a.txt", "A\n")
	r.git("rm", "-q", "b.txt")
	r.git("mv", "old.txt", "renamed.txt")
	r.write("sub/new file.txt", "n\n")

	got, err := Snapshot(context.Background(), r.dir)
	if err != nil {
		t.Fatal(err)
	}
	want := &SnapshotInfo{Base: head, Repo: true,
		Dirty: []string{"a.txt", "b.txt", "old.txt", "renamed.txt", "sub/new file.txt"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Snapshot (-want +got):\n%s", diff)
	}
	// Relative to a subdirectory workspace.
	got, err = Snapshot(context.Background(), filepath.Join(r.dir, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"new file.txt"}; !cmp.Equal(got.Dirty, want) {
		t.Errorf("Dirty in sub = %q, want %q", got.Dirty, want)
	}

	// The JSON an orchestrator records.
	clean := newRepo(t)
	clean.write("a", "a\n")
	h := clean.commit("c")
	got, err = Snapshot(context.Background(), clean.dir)
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(got)
	if want := `{"base":"` + h + `","dirty":[],"repo":true}`; string(js) != want {
		t.Errorf("JSON = %s, want %s", js, want)
	}

	// No commits: everything is dirty and there is no base.
	empty := newRepo(t)
	empty.write("s.txt", "s\n")
	empty.git("add", "s.txt")
	empty.write("u.txt", "u\n")
	got, err = Snapshot(context.Background(), empty.dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := (&SnapshotInfo{Repo: true, Dirty: []string{"s.txt", "u.txt"}}); !cmp.Equal(got, want) {
		t.Errorf("no commits: %+v, want %+v", got, want)
	}

	// Not a repository.
	got, err = Snapshot(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	js, _ = json.Marshal(got)
	if want := `{"base":"","dirty":[],"repo":false}`; string(js) != want {
		t.Errorf("not a repo: JSON = %s, want %s", js, want)
	}
}

func TestReadRepositoryOfAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the repository to another user")
	}
	r := newRepo(t)
	r.write("f.txt", "x\n")
	r.commit("c")
	err := filepath.WalkDir(r.dir, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, 65534, 65534)
	})
	if err != nil {
		t.Skip("cannot chown:", err)
	}
	_, err = Read(context.Background(), r.dir, "")
	if err == nil || !strings.Contains(err.Error(), "another user") {
		t.Fatalf("Read = %v, want an error naming the ownership", err)
	}
}
