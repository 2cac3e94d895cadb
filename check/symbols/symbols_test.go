package symbols

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/code/treesitter"
)

const parserTS = `/** Parses the source. */
export function parse(src: string) { return tokenize(src); }

export function tokenize(src: string) { return src.split(" "); }

export function format(ast: string[]) { return ast.join(" "); }

export const validate = (ast: string[]) => ast.length > 0;
`

const lexGo = `package lex

// Lex splits src.
func Lex(src string) []string { return nil }

func Join(parts []string) string { return "" }
`

func subject(t *testing.T, req *vouch.Request) *vouch.Subject {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{"src/parser.ts": parserTS, "lex/lex.go": lexGo, "bad.go": "package x\nfunc (", "notes.txt": "x"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return &vouch.Subject{Request: req, Workspace: root}
}

func TestDocComments(t *testing.T) {
	edits := &vouch.Request{Output: vouch.Output{Artifacts: &vouch.Artifacts{FileEdits: []vouch.FileEdit{
		{File: "src/parser.ts", EditedRegion: &vouch.LineRange{Start: 1, End: 2}},
		{File: "src/parser.ts", EditedRegion: &vouch.LineRange{Start: 4, End: 4}},
	}}}}
	tests := []struct {
		name   string
		params map[string]any
		req    *vouch.Request
		status vouch.Status
		score  float64
		code   string
		ts     bool
	}{
		{"one of four", map[string]any{"file": "src/parser.ts", "symbols": []string{"parse", "tokenize", "format", "validate"}}, &vouch.Request{}, vouch.StatusFail, 0.25, vouch.CodeDocMissing, true},
		{"the documented one", map[string]any{"file": "src/parser.ts", "symbols": []string{"parse"}}, &vouch.Request{}, vouch.StatusPass, 1, "", true},
		{"a missing symbol", map[string]any{"file": "src/parser.ts", "symbols": []string{"parse", "render"}}, &vouch.Request{}, vouch.StatusFail, 0.5, vouch.CodeDocMissing, true},
		{"symbols in claimed regions", map[string]any{"file": "src/parser.ts"}, edits, vouch.StatusFail, 0.5, vouch.CodeDocMissing, true},
		{"no symbols, no regions", map[string]any{"file": "src/parser.ts"}, &vouch.Request{}, vouch.StatusUndecided, 0, vouch.CodeNoSymbols, true},
		{"go", map[string]any{"file": "lex/lex.go", "symbols": []string{"Lex", "Join"}}, &vouch.Request{}, vouch.StatusFail, 0.5, vouch.CodeDocMissing, false},
		{"go documented", map[string]any{"file": "lex/lex.go", "symbols": []string{"Lex"}}, &vouch.Request{}, vouch.StatusPass, 1, "", false},
		{"missing file", map[string]any{"file": "lex/none.go", "symbols": []string{"Lex"}}, &vouch.Request{}, vouch.StatusFail, 0, vouch.CodeFileMissing, false},
		{"syntax error", map[string]any{"file": "bad.go", "symbols": []string{"x"}}, &vouch.Request{}, vouch.StatusUndecided, 0, vouch.CodeCodeUnparsable, false},
		{"unsupported language", map[string]any{"file": "notes.txt", "symbols": []string{"x"}}, &vouch.Request{}, vouch.StatusUndecided, 0, vouch.CodeCheckUnavailable, false},
	}
	for _, tt := range tests {
		if tt.ts && !treesitter.Available {
			continue
		}
		c, err := newDocComments(vouch.NewCheckSpec("doc_comments", false, tt.params), check.Env{})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		out := c.Check(context.Background(), subject(t, tt.req))
		if out.Status != tt.status || out.Code != tt.code || (out.Status != vouch.StatusUndecided && out.Score != tt.score) {
			t.Errorf("%s: %s %v %s (%s), want %s %v %s", tt.name, out.Status, out.Score, out.Code, out.Reason, tt.status, tt.score, tt.code)
		}
	}
}

func TestSymbolExists(t *testing.T) {
	s := subject(t, &vouch.Request{})
	for _, tt := range []struct {
		name, file string
		status     vouch.Status
	}{
		{"Lex", "lex/lex.go", vouch.StatusPass},
		{"Lexx", "lex/lex.go", vouch.StatusFail},
		{"Lex", "../lex.go", vouch.StatusFail},
	} {
		c, err := newSymbolExists(vouch.NewCheckSpec("symbol_exists", false, map[string]any{"name": tt.name, "file": tt.file}), check.Env{})
		if err != nil {
			t.Fatal(err)
		}
		if out := c.Check(context.Background(), s); out.Status != tt.status {
			t.Errorf("symbol_exists %s in %s = %s (%s), want %s", tt.name, tt.file, out.Status, out.Reason, tt.status)
		}
	}
	if _, err := newSymbolExists(vouch.NewCheckSpec("symbol_exists", false, map[string]any{"name": "x"}), check.Env{}); err == nil {
		t.Error("symbol_exists without file compiled")
	}
}
