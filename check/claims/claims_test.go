package claims

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/vouchgate/vouch"
)

func ptr[T any](v T) *T { return &v }

// ws builds a workspace with files and returns its directory.
func ws(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func analyze(t *testing.T, dir string, out vouch.Output) []vouch.CheckResult {
	t.Helper()
	req := &vouch.Request{Output: out, Workspace: dir}
	pol := vouch.DefaultPolicy()
	s := &vouch.Subject{Request: req, Policy: &pol}
	if dir != "" {
		root, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer root.Close()
		s.Workspace = root
	}
	var f vouch.Findings
	if err := (filesAnalyzer{}).Analyze(context.Background(), s, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Checks) > 0 && !f.Applicable[vouch.DimClaims] {
		t.Error("claims not marked applicable")
	}
	return f.Checks
}

type want struct {
	name   string
	status vouch.Status
	code   string
}

func TestFileClaims(t *testing.T) {
	files := map[string]string{
		"src/a.ts":   "one\ntwo\nthree\n",
		"crlf.txt":   "a\r\nb\r\nc",
		"noeol.txt":  "x\ny",
		"docs/x.md":  "# X\n",
		"old.txt":    "still here\n",
		"sub/dir/.k": "",
	}
	dir := ws(t, files)
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		out  vouch.Output
		want []want
	}{
		{"created exists", vouch.Output{Created: []string{"docs/x.md"}},
			[]want{{"claims.created", vouch.StatusPass, ""}}},
		{"created missing", vouch.Output{Created: []string{"docs/y.md"}},
			[]want{{"claims.created", vouch.StatusFail, vouch.CodeFileMissing}}},
		{"modified missing", vouch.Output{Modified: []string{"src/b.ts"}},
			[]want{{"claims.modified", vouch.StatusFail, vouch.CodeFileMissing}}},
		{"deleted gone", vouch.Output{Deleted: []string{"gone.txt"}},
			[]want{{"claims.deleted", vouch.StatusPass, ""}}},
		{"deleted still there", vouch.Output{Deleted: []string{"old.txt"}},
			[]want{{"claims.deleted", vouch.StatusFail, vouch.CodeFileNotDeleted}}},
		{"sizes hold", vouch.Output{Artifacts: &vouch.Artifacts{FilesCreated: []vouch.FileCreated{
			{File: "src/a.ts", SizeBytes: ptr(int64(14)), LinesCount: ptr(3)}}}},
			[]want{{"claims.created", vouch.StatusPass, ""}, {"claims.size", vouch.StatusPass, ""}, {"claims.lines", vouch.StatusPass, ""}}},
		{"sizes within tolerance", vouch.Output{Artifacts: &vouch.Artifacts{FilesCreated: []vouch.FileCreated{
			{File: "src/a.ts", SizeBytes: ptr(int64(15)), LinesCount: ptr(4)}}}},
			[]want{{"claims.created", vouch.StatusPass, ""}, {"claims.size", vouch.StatusPass, ""}, {"claims.lines", vouch.StatusPass, ""}}},
		{"sizes wrong", vouch.Output{Artifacts: &vouch.Artifacts{FilesCreated: []vouch.FileCreated{
			{File: "src/a.ts", SizeBytes: ptr(int64(400)), LinesCount: ptr(40)}}}},
			[]want{{"claims.created", vouch.StatusPass, ""}, {"claims.size", vouch.StatusFail, vouch.CodeSizeMismatch}, {"claims.lines", vouch.StatusFail, vouch.CodeLinesMismatch}}},
		{"crlf and no final newline count lines", vouch.Output{Artifacts: &vouch.Artifacts{FilesCreated: []vouch.FileCreated{
			{File: "crlf.txt", LinesCount: ptr(3)}, {File: "noeol.txt", LinesCount: ptr(2)}}}},
			[]want{{"claims.created", vouch.StatusPass, ""}, {"claims.lines", vouch.StatusPass, ""}, {"claims.created", vouch.StatusPass, ""}, {"claims.lines", vouch.StatusPass, ""}}},
		{"region inside", vouch.Output{Artifacts: &vouch.Artifacts{FileEdits: []vouch.FileEdit{
			{File: "src/a.ts", EditedRegion: &vouch.LineRange{Start: 2, End: 3}}}}},
			[]want{{"claims.modified", vouch.StatusPass, ""}, {"claims.region", vouch.StatusPass, ""}}},
		{"region past the end", vouch.Output{Artifacts: &vouch.Artifacts{FileEdits: []vouch.FileEdit{
			{File: "noeol.txt", EditedRegion: &vouch.LineRange{Start: 2, End: 3}}}}},
			[]want{{"claims.modified", vouch.StatusPass, ""}, {"claims.region", vouch.StatusFail, vouch.CodeRegionOutsideFile}}},
		{"dot-dot", vouch.Output{Modified: []string{"../etc/passwd"}},
			[]want{{"claims.path", vouch.StatusFail, vouch.CodePathOutsideWorkspace}}},
		{"absolute outside", vouch.Output{Created: []string{"/etc/passwd"}},
			[]want{{"claims.path", vouch.StatusFail, vouch.CodePathOutsideWorkspace}}},
		{"absolute inside", vouch.Output{Created: []string{filepath.ToSlash(filepath.Join(dir, "docs/x.md"))}},
			[]want{{"claims.created", vouch.StatusPass, ""}}},
		{"fifo", vouch.Output{Modified: []string{"pipe"}},
			[]want{{"claims.modified", vouch.StatusUndecided, vouch.CodeFileUnreadable}}},
		{"directory", vouch.Output{Modified: []string{"sub/dir"}},
			[]want{{"claims.modified", vouch.StatusUndecided, vouch.CodeFileUnreadable}}},
	} {
		got := analyze(t, dir, tt.out)
		if len(got) != len(tt.want) {
			t.Errorf("%s: %d checks, want %d: %+v", tt.name, len(got), len(tt.want), got)
			continue
		}
		for i, w := range tt.want {
			g := got[i]
			if g.Name != w.name || g.Status != w.status || g.Code != w.code || g.Strength != vouch.StrengthStrict || g.Dimension != vouch.DimClaims {
				t.Errorf("%s: check %d = %s %s %s, want %s %s %s (%s)", tt.name, i, g.Name, g.Status, g.Code, w.name, w.status, w.code, g.Reason)
			}
		}
	}
}

func TestSymlinkOutOfWorkspace(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := ws(t, nil)
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	got := analyze(t, dir, vouch.Output{Modified: []string{"link"}})
	if len(got) != 1 || got[0].Status != vouch.StatusFail || got[0].Code != vouch.CodePathOutsideWorkspace {
		t.Fatalf("symlink out: %+v", got)
	}
}

func TestNoWorkspace(t *testing.T) {
	got := analyze(t, "", vouch.Output{Created: []string{"a.txt"}})
	if len(got) != 1 || got[0].Status != vouch.StatusUndecided || got[0].Code != vouch.CodeNoWorkspace {
		t.Fatalf("no workspace: %+v", got)
	}
	if got := analyze(t, "", vouch.Output{Summary: "no claims"}); len(got) != 0 {
		t.Fatalf("no claims gave checks: %+v", got)
	}
}

func TestInferCreatedOff(t *testing.T) {
	dir := ws(t, nil)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	pol := vouch.DefaultPolicy()
	pol.Infer.Created = false
	s := &vouch.Subject{Request: &vouch.Request{Output: vouch.Output{Created: []string{"nothere.md"}, Modified: []string{"gone.go"}}}, Policy: &pol, Workspace: root}
	var f vouch.Findings
	if err := (filesAnalyzer{}).Analyze(context.Background(), s, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Checks) != 1 || f.Checks[0].Name != "claims.modified" {
		t.Fatalf("with infer.created off, only the modified claim is checked: %+v", f.Checks)
	}
}
