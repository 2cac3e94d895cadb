package claims

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/code/treesitter"
)

// analyzeCode runs the code analyzer on a workspace with a goal and a
// summary claiming to have modified file.
func analyzeCode(t *testing.T, dir, goal, summary, file string) []vouch.CheckResult {
	t.Helper()
	req := &vouch.Request{Task: vouch.Task{Goal: goal}, Output: vouch.Output{Summary: summary, Modified: []string{file}}, Workspace: dir}
	pol := vouch.DefaultPolicy()
	s := &vouch.Subject{Request: req, Policy: &pol}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	s.Workspace = root
	var f vouch.Findings
	if err := (codeAnalyzer{}).Analyze(context.Background(), s, &f); err != nil {
		t.Fatal(err)
	}
	return f.Checks
}

func checkNamed(t *testing.T, checks []vouch.CheckResult, name string) vouch.CheckResult {
	t.Helper()
	for _, c := range checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %s in %+v", name, checks)
	return vouch.CheckResult{}
}

const storeGo = `package store

// Store holds values.
type Store struct{ m map[string]string }

// Open opens s.
func (s *Store) Open() error { return nil }

// Close closes s.
func (s *Store) Close() error { return nil }

%s
func (s *Store) Get(k string) string { return s.m[k] }

// Set sets k.
func (s *Store) Set(k, v string) { s.m[k] = v }
`

// TestDocCountResolvesNames: goal words that the lexicon reads as English
// (Open, Close, Get) are names when the file defines them; a real missing
// doc comment fails with its name; a name that matches nothing leaves the
// count undecided, naming it, instead of failing with nothing to fix.
func TestDocCountResolvesNames(t *testing.T) {
	goal := "Add godoc comments to the Store methods Open, Close, Get and Set in store/store.go"
	for _, tt := range []struct {
		name, getDoc, goal string
		status             vouch.Status
		code               string
		reason             []string
	}{
		{"all documented", "// Get returns k.", goal, vouch.StatusPass, "", nil},
		{"Get undocumented", "", goal, vouch.StatusFail, vouch.CodeCountMismatch, []string{"3 of 4", "missing on Get"}},
		{"goal names Put, the file has Set", "// Get returns k.", strings.Replace(goal, "Set", "Put", 1),
			vouch.StatusUndecided, vouch.CodeCountUndecided, []string{"Put"}},
		{"goal names `Put` in code", "// Get returns k.", strings.Replace(goal, "Set", "`Put`", 1),
			vouch.StatusUndecided, vouch.CodeCountUndecided, []string{"Put", "does not define"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := ws(t, map[string]string{"store/store.go": strings.Replace(storeGo, "%s", tt.getDoc, 1)})
			c := checkNamed(t, analyzeCode(t, dir, tt.goal, "Added doc comments to all 4 methods of Store.", "store/store.go"), "claims.count")
			if c.Status != tt.status || c.Code != tt.code {
				t.Errorf("got %s %s: %s", c.Status, c.Code, c.Reason)
			}
			for _, s := range tt.reason {
				if !strings.Contains(c.Reason, s) {
					t.Errorf("reason %q does not say %q", c.Reason, s)
				}
			}
		})
	}
}

// TestDocCriterionUnresolved: a name the task gives as a symbol (in
// backticks) that no file defines leaves the inferred criterion
// undecided; an undocumented symbol beside it still fails it.
func TestDocCriterionUnresolved(t *testing.T) {
	dir := ws(t, map[string]string{"store/store.go": strings.Replace(storeGo, "%s", "// Get returns k.", 1)})
	goal := "Add godoc comments to `Open`, `Close` and `Reopen` in store/store.go"
	c := checkNamed(t, analyzeCode(t, dir, goal, "Documented them.", "store/store.go"), "doc_comments:"+InferredDocID)
	if c.Status != vouch.StatusUndecided || c.Code != vouch.CodeSymbolUnresolved || !strings.Contains(c.Reason, "Reopen") {
		t.Errorf("got %s %s: %s", c.Status, c.Code, c.Reason)
	}
	dir = ws(t, map[string]string{"store/store.go": strings.Replace(storeGo, "%s", "", 1)})
	goal = "Add godoc comments to `Get` and `Reopen` in store/store.go"
	c = checkNamed(t, analyzeCode(t, dir, goal, "Documented them.", "store/store.go"), "doc_comments:"+InferredDocID)
	if c.Status != vouch.StatusFail || c.Code != vouch.CodeDocMissing || !strings.Contains(c.Reason, "missing on Get") {
		t.Errorf("got %s %s: %s", c.Status, c.Code, c.Reason)
	}
}

const emitterTS = `export class Emitter {
  /** Adds a listener. */
  on(event: "open", fn: () => void): this;
  on(event: "data", fn: (s: string) => void): this;
  on(event: string, fn: () => void): this { return this; }

  /** Removes a listener. */
  off(event: string): this { return this; }
}

/** Formats a number. */
export function format(x: number): string;
export function format(x: Date): string;
export function format(x: any): string { return String(x); }

export function parse(s: string): number { return Number(s); }
`

// TestDocCountOverloads: an overloaded function or method is one symbol,
// documented by a doc comment on one of its signatures, and members count
// only when the task speaks of methods.
func TestDocCountOverloads(t *testing.T) {
	if !treesitter.Available {
		t.Skip("no tree-sitter parsers in this build")
	}
	dir := ws(t, map[string]string{"src/e.ts": emitterTS})
	checks := analyzeCode(t, dir, "Add JSDoc comments to the exported functions in src/e.ts", "Added JSDoc comments to the 2 exported functions.", "src/e.ts")
	c := checkNamed(t, checks, "claims.count")
	if c.Status != vouch.StatusFail || !strings.Contains(c.Reason, "1 of 2") || !strings.HasSuffix(c.Reason, "missing on parse") {
		t.Errorf("functions: got %s: %s", c.Status, c.Reason)
	}
	checks = analyzeCode(t, dir, "Add JSDoc comments to the methods on and off of the Emitter class in src/e.ts", "Added JSDoc comments to both methods.", "src/e.ts")
	if c := checkNamed(t, checks, "claims.count"); c.Status != vouch.StatusPass {
		t.Errorf("methods: got %s: %s", c.Status, c.Reason)
	}
	if c := checkNamed(t, checks, "doc_comments:"+InferredDocID); c.Status != vouch.StatusPass {
		t.Errorf("methods criterion: got %s: %s", c.Status, c.Reason)
	}
}
