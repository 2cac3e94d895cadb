package claims

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
)

// analyzeWith runs analyzer a on a summary in the workspace dir with base.
func analyzeWith(t *testing.T, a vouch.Analyzer, dir, base, summary string) vouch.Findings {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	pol := vouch.DefaultPolicy()
	s := &vouch.Subject{Request: &vouch.Request{Output: vouch.Output{Summary: summary}, Base: base}, Policy: &pol, Workspace: root}
	var f vouch.Findings
	if err := a.Analyze(context.Background(), s, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// only returns the one check named name, failing the test when there is
// not exactly one.
func only(t *testing.T, f vouch.Findings, name string) vouch.CheckResult {
	t.Helper()
	var got []vouch.CheckResult
	for _, c := range f.Checks {
		if c.Name == name {
			got = append(got, c)
		}
	}
	if len(got) != 1 {
		t.Fatalf("%d %s checks, want 1: %+v", len(got), name, f.Checks)
	}
	return got[0]
}

const goBase = `package calc

// Add adds.
func Add(a, b int) int {
	return a + b
}

// Sub subtracts.
func Sub(a, b int) int {
	return a - b
}
`

func TestBehaviourAnalyzer(t *testing.T) {
	for _, tt := range []struct {
		name    string
		files   map[string]string
		summary string
		status  vouch.Status
		reason  string // a part of the reason
	}{
		{
			name: "comments, docs and tests only",
			files: map[string]string{
				"calc.go":      strings.Replace(goBase, "// Add adds.", "// Add returns the sum of a and b.\n// It never overflows silently... it does.", 1),
				"README.md":    "# calc\n\nAdds and subtracts.\n",
				"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal()\n\t}\n}\n",
			},
			summary: "Documented `Add` better and added a test. No behaviour change.",
			status:  vouch.StatusPass,
			reason:  "1 changed file differs only in comments",
		},
		{
			name:    "changed logic",
			files:   map[string]string{"calc.go": strings.Replace(goBase, "return a - b", "return b - a", 1)},
			summary: "Updated the docs. No behaviour change.",
			status:  vouch.StatusFail,
			reason:  "calc.go:10, in Sub",
		},
		{
			name:    "a new code file",
			files:   map[string]string{"mul.go": "package calc\n\nfunc Mul(a, b int) int { return a * b }\n"},
			summary: "No functional changes.",
			status:  vouch.StatusFail,
			reason:  "mul.go (added)",
		},
		{
			name:    "changed logic in a refactor",
			files:   map[string]string{"calc.go": strings.Replace(goBase, "return a - b", "return -(b - a)", 1)},
			summary: "Refactored `Sub`; no behaviour change.",
			status:  vouch.StatusUndecided,
			reason:  "refactor",
		},
		{
			name:    "changed logic, qualified claim",
			files:   map[string]string{"calc.go": strings.Replace(goBase, "return a - b", "return b - a", 1)},
			summary: "No behaviour change for existing callers of `Add`.",
			status:  vouch.StatusUndecided,
			reason:  "narrows the claim",
		},
		{
			name:    "a file of unknown language",
			files:   map[string]string{"lib/calc.ex": "defmodule Calc do\n  def add(a, b), do: a + b\nend\n"},
			summary: "No behaviour change.",
			status:  vouch.StatusUndecided,
			reason:  "lib/calc.ex (no parser for it)",
		},
		{
			name:    "a Go file that does not parse",
			files:   map[string]string{"calc.go": goBase + "\nfunc Broken( {\n"},
			summary: "No behaviour change.",
			status:  vouch.StatusUndecided,
			reason:  "does not parse",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t)
			r.write("calc.go", goBase)
			r.write("lib/calc.ex", "defmodule Calc do\nend\n")
			base := r.commit("base")
			for name, body := range tt.files {
				r.write(name, body)
			}
			r.commit("work")
			f := analyzeWith(t, behaviourAnalyzer{}, r.dir, base, tt.summary)
			c := only(t, f, "claims.behaviour")
			if c.Status != tt.status || !strings.Contains(c.Reason, tt.reason) {
				t.Errorf("%s: %q; want %s with %q", c.Status, c.Reason, tt.status, tt.reason)
			}
			if c.Status != vouch.StatusPass && c.Code != vouch.CodeBehaviourChanged {
				t.Errorf("code %q", c.Code)
			}
		})
	}
}

func TestBehaviourAnalyzerNothingToHold(t *testing.T) {
	r := newRepo(t)
	r.write("calc.go", goBase)
	base := r.commit("base")
	// No claim: no check.
	if f := analyzeWith(t, behaviourAnalyzer{}, r.dir, base, "Added Mul."); len(f.Checks) != 0 {
		t.Errorf("checks without a claim: %+v", f.Checks)
	}
	// No base: undecided, never failed.
	r.write("calc.go", strings.Replace(goBase, "a + b", "a * b", 1))
	f := analyzeWith(t, behaviourAnalyzer{}, r.dir, "", "No behaviour change.")
	if c := only(t, f, "claims.behaviour"); c.Status != vouch.StatusUndecided {
		t.Errorf("without a base: %s %q", c.Status, c.Reason)
	}
	// Uncommitted work counts as the work.
	f = analyzeWith(t, behaviourAnalyzer{}, r.dir, base, "No behaviour change.")
	if c := only(t, f, "claims.behaviour"); c.Status != vouch.StatusFail || !strings.Contains(c.Reason, "calc.go:5, in Add") {
		t.Errorf("uncommitted change: %s %q", c.Status, c.Reason)
	}
}
