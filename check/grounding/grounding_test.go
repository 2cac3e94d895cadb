package grounding

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/code/treesitter"
)

// run analyzes req, with a workspace holding files when files is not nil.
func run(t testing.TB, req *vouch.Request, files map[string]string) *vouch.Findings {
	t.Helper()
	pol := vouch.DefaultPolicy()
	s := &vouch.Subject{Request: req, Policy: &pol}
	if files != nil {
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
		root, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { root.Close() })
		s.Workspace = root
	}
	var f vouch.Findings
	if err := (analyzer{}).Analyze(context.Background(), s, &f); err != nil {
		t.Fatal(err)
	}
	return &f
}

func entry(tool string, input map[string]any, output string, isErr bool) vouch.TraceEntry {
	raw, _ := json.Marshal(output)
	return vouch.TraceEntry{Tool: tool, Input: input, Output: raw, IsError: isErr}
}

func texts[M vouch.VerifiedMention | vouch.UnverifiedMention | vouch.RefutedMention](ms []M) []string {
	var out []string
	for _, m := range ms {
		switch m := any(m).(type) {
		case vouch.VerifiedMention:
			out = append(out, string(m.Kind)+":"+m.Text)
		case vouch.UnverifiedMention:
			out = append(out, string(m.Kind)+":"+m.Text)
		case vouch.RefutedMention:
			out = append(out, string(m.Kind)+":"+m.Text)
		}
	}
	slices.Sort(out)
	return out
}

func codes(f *vouch.Findings) []string {
	var out []string
	for _, c := range f.Checks {
		if c.Status == vouch.StatusFail {
			out = append(out, c.Name+"="+c.Code)
		}
	}
	for _, w := range f.Warnings {
		out = append(out, w.Code)
	}
	slices.Sort(out)
	return out
}

func TestTraceEvidence(t *testing.T) {
	tr := []vouch.TraceEntry{
		entry("Read", map[string]any{"file_path": "/home/u/app/src/parser.ts"}, "     1→import { z } from \"zod\";\n     2→export class Parser {\n     3→  parse(input: string) {}\n     4→}\n", false),
		entry("Read", map[string]any{"file_path": "/home/u/app/src/ghost.ts"}, "File does not exist.", true),
		entry("Glob", map[string]any{"pattern": "**/*.test.ts"}, "/home/u/app/test/parser.test.ts\n", false),
		entry("Bash", map[string]any{"command": "git status --short"}, " M lib/util.ts\n", false),
		entry("WebFetch", map[string]any{"url": "https://zod.dev/api"}, "Zod API docs", false),
		entry("Bash", map[string]any{"command": "python repro.py"}, "Traceback (most recent call last):\nValueError: bad row\ncat: src/missing.ts: No such file or directory", true),
		entry("Bash", map[string]any{"command": "cat > helper.py <<'EOF'\ndef normalise_rows(rows):\n    return rows\nEOF"}, "", false),
		entry("Bash", map[string]any{"command": "grep -rn ghostHelper src"}, "", true),
		entry("Bash", map[string]any{"command": "pytest -v tests/test_merge.py"}, "tests/test_merge.py::TestMerge::test_override PASSED\n=== 1 passed in 0.1s ===", false),
		entry("Bash", map[string]any{"command": "grep -rn 'class Query\\|def set_group_by' django/db/models/sql/query.py"}, "django/db/models/sql/query.py:142:class Query(BaseExpression):\ndjango/db/models/sql/query.py:1920:    def set_group_by(self, allow_aliases=True):", false),
	}
	tests := []struct {
		name       string
		summary    string
		verified   []string
		unverified []string
		codes      []string
	}{
		{"all seen", "Updated `src/parser.ts` so that `Parser.parse()` validates with the zod package, per https://zod.dev/api. Tests in parser.test.ts and lib/util.ts pass.",
			[]string{"file:lib/util.ts", "file:parser.test.ts", "file:src/parser.ts", "package:zod", "symbol:Parser.parse()", "url:https://zod.dev/api"}, nil, nil},
		// What nothing shows is unverified and warned of, never failed: only
		// evidence that contradicts a mention counts against the output.
		{"a failed read is no evidence", "Fixed the bug in src/ghost.ts.",
			nil, []string{"file:src/ghost.ts"}, []string{"UNVERIFIED_FILE"}},
		{"invented symbol, package and URL", "Added `TokenCache.flush()` using the `@acme/fastcache` package, see https://acme.dev/cache.",
			nil, []string{"package:@acme/fastcache", "symbol:TokenCache.flush()", "url:https://acme.dev/cache"},
			[]string{"UNVERIFIED_PACKAGE", "UNVERIFIED_SYMBOL", "UNVERIFIED_URL"}},
		// What a failed run printed is what the agent saw: it grounds a
		// name, not a file's existence.
		{"a failed run shows names", "The old code raised `ValueError`.", []string{"symbol:ValueError"}, nil, nil},
		{"a failed run shows no file", "Fixed src/missing.ts.", nil, []string{"file:src/missing.ts"}, []string{"UNVERIFIED_FILE"}},
		// A here-doc is the agent's own code, as a Write's content is; a
		// name it only searched for is not grounded by the search.
		{"a name written by a here-doc", "Added `normalise_rows()`.", []string{"symbol:normalise_rows()"}, nil, nil},
		{"a name only searched for", "Called `ghostHelper()`.", nil, []string{"symbol:ghostHelper()"}, []string{"UNVERIFIED_SYMBOL"}},
		// Test ids, dotted module paths and names shown by grep -n are
		// grounded by the output that showed them.
		{"a test id", "`tests/test_merge.py::TestMerge::test_override` passes.", nil, nil, nil},
		{"a name grep showed", "`set_group_by` is called first.", []string{"symbol:set_group_by"}, nil, nil},
		{"a dotted path to a module shown", "It goes through `django.db.models.sql.query.Query.set_group_by`.", []string{"symbol:django.db.models.sql.query.Query.set_group_by"}, nil, nil},
		{"a dotted module shown", "It goes through `django.db.models.sql.query`.", []string{"package:django.db.models.sql.query"}, nil, nil},
		{"a dotted path to a module never shown", "It goes through `django.db.models.sql.compiler.Query.set_group_by`.", nil, []string{"symbol:django.db.models.sql.compiler.Query.set_group_by"}, []string{"UNVERIFIED_SYMBOL"}},
		{"half a symbol is not a symbol", "Called `Parser.tokenize()`.", nil, []string{"symbol:Parser.tokenize()"}, []string{"UNVERIFIED_SYMBOL"}},
		{"a longer word is not the word", "Updated `Pars` in src/parser.ts.", []string{"file:src/parser.ts"}, []string{"symbol:Pars"}, []string{"UNVERIFIED_SYMBOL"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := run(t, &vouch.Request{Output: vouch.Output{Summary: tt.summary}, Trace: tr}, nil)
			if got := texts(f.Mentions.Verified); !slices.Equal(got, tt.verified) {
				t.Errorf("verified = %q, want %q", got, tt.verified)
			}
			if got := texts(f.Mentions.Unverified); !slices.Equal(got, tt.unverified) {
				t.Errorf("unverified = %q, want %q", got, tt.unverified)
			}
			if got := codes(f); !slices.Equal(got, tt.codes) {
				t.Errorf("codes = %q, want %q", got, tt.codes)
			}
			if !f.Applicable[vouch.DimGroundedness] {
				t.Error("groundedness not applicable")
			}
			for _, c := range f.Checks {
				if c.Must {
					t.Errorf("%s is must-pass without a workspace or a manifest", c.Name)
				}
			}
		})
	}
}

func TestWorkspaceEvidence(t *testing.T) {
	files := map[string]string{
		"package.json":        `{"dependencies": {"express": "^4"}}`,
		"src/server.js":       "const express = require('express')\nfunction startServer() {}\nclass Router {}\n",
		"docs/guide/setup.md": "# Setup\n",
		"store/store.go":      "package store\n\ntype Store struct{}\n\nfunc (s *Store) Flush() {}\n",
	}
	// The score is the share of the mentions the evidence decides that it
	// holds: an unverified mention never lowers it, a refuted one does. No
	// mention is must-pass: more than the policy's maxRefuted refuted ones
	// send the output back (the verdict table), fewer lower its score.
	tests := []struct {
		name    string
		summary string
		score   float64 // -1: no decided mention, no check
		unver   []string
		refuted []string
		ts      bool // needs the tree-sitter parsers (cgo)
	}{
		{"exists", "Added startServer() to src/server.js using the express package; documented in setup.md.", 1, nil, nil, true},
		{"missing file is refuted", "Moved the routes to src/routes.js.", 0, nil, []string{"file:src/routes.js"}, false},
		{"a file said removed is unverified, not refuted", "Removed the old src/legacy.js.", -1, []string{"file:src/legacy.js"}, nil, false},
		{"package missing from the manifest is refuted", "Switched to the `fastify` package in src/server.js.", 0.5, nil, []string{"package:fastify"}, false},
		{"standard library needs no manifest", "Reads config with the `node:fs` module and the `path` package in src/server.js.", 1, nil, nil, false},
		{"a package of the workspace's own needs no manifest", "Moved the flushing into the `store` package.", 1, nil, nil, false},
		{"symbol defined in a parsed file", "The `Router` class in src/server.js handles it.", 1, nil, nil, true},
		{"method defined in a parsed Go file", "Added `Store.Flush()` in store/store.go.", 1, nil, nil, false},
		{"method not defined", "Added `Store.Close()` in store/store.go.", 1, []string{"symbol:Store.Close()"}, nil, false},
		{"symbol nowhere", "The `RouteTable` class in src/server.js handles it.", 1, []string{"symbol:RouteTable"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.ts && !treesitter.Available {
				t.Skip("no tree-sitter parsers in this build")
			}
			f := run(t, &vouch.Request{Output: vouch.Output{Summary: tt.summary}}, files)
			if got := texts(f.Mentions.Unverified); !slices.Equal(got, tt.unver) {
				t.Errorf("unverified = %q, want %q (verified %q)", got, tt.unver, texts(f.Mentions.Verified))
			}
			if got := texts(f.Mentions.Refuted); !slices.Equal(got, tt.refuted) {
				t.Errorf("refuted = %q, want %q", got, tt.refuted)
			}
			if tt.score < 0 {
				if len(f.Checks) != 0 {
					t.Errorf("checks = %+v, want none: no mention was decided", f.Checks)
				}
				return
			}
			if len(f.Checks) != 1 {
				t.Fatalf("checks = %+v", f.Checks)
			}
			c := f.Checks[0]
			if c.Score != tt.score || c.Must {
				t.Errorf("score %v must %v, want %v, not must (%s)", c.Score, c.Must, tt.score, c.Reason)
			}
			if (c.Status == vouch.StatusFail) != (len(tt.refuted) > 0) {
				t.Errorf("status %s, want fail exactly when a mention is refuted (%s)", c.Status, c.Reason)
			}
		})
	}
}

func TestNotApplicable(t *testing.T) {
	f := run(t, &vouch.Request{Task: vouch.Task{Goal: "edit src/a.ts"}, Output: vouch.Output{Summary: "Edited src/b.ts."}}, nil)
	if len(f.Checks) != 0 || len(f.Mentions.Unverified) != 0 || f.Applicable[vouch.DimGroundedness] {
		t.Errorf("without trace, sources or workspace grounding must not apply: %+v", f)
	}
	// Evidence but no mentions: applicable, undecided.
	f = run(t, &vouch.Request{Output: vouch.Output{Summary: "Done."}, Trace: []vouch.TraceEntry{entry("Bash", map[string]any{"command": "ls"}, "a\n", false)}}, nil)
	if len(f.Checks) != 0 || !f.Applicable[vouch.DimGroundedness] {
		t.Errorf("no mentions: want applicable and no check, got %+v", f)
	}
}

// TestAnswerClaims checks how an answer's statements end: refuted when a
// source gives the same thing another value, verified when the sources
// hold them as said, unverified otherwise (an entity no source names is
// not a contradiction).
func TestAnswerClaims(t *testing.T) {
	src := func(s string) json.RawMessage { b, _ := json.Marshal(s); return b }
	sources := []json.RawMessage{
		src("Acme Corp reported revenue of $3.2 million in 2023, up from $2.9 million in 2022. Its CEO is Dana Reyes."),
		json.RawMessage(`{"company": "Acme Corp", "employees": 140, "founded": 2011}`),
	}
	tests := []struct {
		name   string
		answer string
		status vouch.Status // of the statements' checks: pass (all held), fail (one contradicted) or undecided
	}{
		{"held as said", "Acme Corp reported revenue of $3.2 million in 2023.", vouch.StatusPass},
		{"reworded", "Acme Corp's revenue was 3.2 million dollars in 2023.", vouch.StatusUndecided},
		{"invented entity", "Acme Corp opened an office in Lisbon.", vouch.StatusUndecided},
		{"contradicted by a record", "Acme Corp has 450 employees.", vouch.StatusFail},
		{"contradicted number", "Acme Corp reported revenue of $4.1 million in 2023.", vouch.StatusFail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &vouch.Request{Kind: vouch.KindAnswer, Output: vouch.Output{Summary: tt.answer}, Context: &vouch.Context{Sources: sources}}
			f := run(t, req, nil)
			var got []*vouch.CheckResult
			for i := range f.Checks {
				if f.Checks[i].Name == "grounding.claims" {
					got = append(got, &f.Checks[i])
				}
			}
			if len(got) != 1 {
				t.Fatalf("claims checks %+v, want one", got)
			}
			c := got[0]
			if c.Status != tt.status || c.Must != (tt.status == vouch.StatusFail) || len(c.Claims) != 1 || c.Claims[0].Sentence != tt.answer {
				t.Errorf("claims check %s must=%v citing %+v (%s), want %s, must-pass only when failed, citing the statement", c.Status, c.Must, c.Claims, c.Reason, tt.status)
			}
			if tt.status == vouch.StatusFail && (len(f.Mentions.Refuted) == 0 || !strings.Contains(f.Mentions.Refuted[0].Sentence, "Acme") || !strings.Contains(f.Mentions.Refuted[0].Evidence, "says")) {
				t.Errorf("refuted = %+v, want the atom with its sentence and what the source says", f.Mentions.Refuted)
			}
		})
	}
}

func TestPlanGrounding(t *testing.T) {
	files := map[string]string{"internal/db/migrate.go": "package db\n\nfunc Migrate() error { return nil }\n"}
	plan := &vouch.Plan{Goal: "Add a users table", Subgoals: []vouch.Subgoal{
		{ID: "s1", Description: "Extend `Migrate()` in internal/db/migrate.go with the users table"},
		{ID: "s2", Description: "Load the fixtures in internal/db/fixtures/users.sql with `SeedUsers()`"},
		{ID: "s3", Description: "Create internal/db/users.go and implement `NewUserStore()`"},
	}}
	f := run(t, &vouch.Request{Kind: vouch.KindDecomposition, Output: vouch.Output{Summary: ""}, Context: &vouch.Context{Plan: plan}}, files)
	if got, want := texts(f.Mentions.Verified), []string{"file:internal/db/migrate.go", "symbol:Migrate()"}; !slices.Equal(got, want) {
		t.Errorf("verified = %q, want %q", got, want)
	}
	if got, want := texts(f.Mentions.Unverified), []string{"file:internal/db/fixtures/users.sql", "symbol:SeedUsers()"}; !slices.Equal(got, want) {
		t.Errorf("unverified = %q, want %q", got, want)
	}
	if len(f.Checks) != 1 || f.Checks[0].Dimension != vouch.DimGroundedness || f.Checks[0].Score != 1 || f.Checks[0].Status != vouch.StatusPass {
		t.Errorf("checks = %+v, want one passing groundedness check: a plan's files may not exist yet, so what it names that nothing shows is unverified, never refuted", f.Checks)
	}
}

// A synthesis and a summary are made from agent outputs and a discussion:
// what the ground truth does not show must be in them, or it was made up.
func TestAgentTexts(t *testing.T) {
	req := &vouch.Request{Kind: vouch.KindSynthesis,
		Output: vouch.Output{Summary: "Set SameSite in api/session/cookie.go; tokens are compared in api/session/store.go. " +
			"Use the fast-json-turbo package and call verifySignature()."},
		Context: &vouch.Context{Outputs: []vouch.AgentOutput{
			{ID: "session", Text: "Cookies are set in api/session/cookie.go with SameSite=None."},
			{ID: "perf", Text: "Recommend `fast-json-turbo` (already a dependency); `verifySignature` is slow."},
		}},
		Trace: []vouch.TraceEntry{entry("Read", map[string]any{"file_path": "package.json"}, `{"dependencies": {"express": "^4"}}`, false)},
	}
	f := run(t, req, nil)
	if got, want := texts(f.Mentions.Verified), []string{"file:api/session/cookie.go", "symbol:SameSite", "symbol:verifySignature()"}; !slices.Equal(got, want) {
		t.Errorf("verified %v, want %v", got, want)
	}
	if got, want := texts(f.Mentions.Refuted), []string{"file:api/session/store.go", "package:fast-json-turbo"}; !slices.Equal(got, want) {
		t.Errorf("refuted %v, want %v", got, want)
	}
	var c *vouch.CheckResult
	for i := range f.Checks {
		if f.Checks[i].Name == "grounding.mentions" {
			c = &f.Checks[i]
		}
	}
	if c == nil || c.Status != vouch.StatusFail || c.Code != vouch.CodeMentionsRefuted || c.Dimension != vouch.DimTraceability {
		t.Fatalf("grounding.mentions %+v, want a failed check of traceability", c)
	}
	refuted := strings.Join(c.Evidence["refutedMentions"].([]string), "; ")
	// The manifest the agent read refutes the package, whatever an output
	// says; the file is in no output.
	if !strings.Contains(refuted, `fast-json-turbo" (not in trace[0]`) || !strings.Contains(refuted, `store.go" (in no agent output)`) {
		t.Errorf("refuted %q", refuted)
	}

	// A moderator's summary rests on the discussion.
	req = &vouch.Request{Kind: vouch.KindModeration,
		Output:  vouch.Output{Summary: "Lena will fix deploy/prod.yaml and bump internal/ratelimit."},
		Context: &vouch.Context{Discussion: []vouch.Utterance{{Speaker: "Lena", Text: "I'll fix deploy/prod.yaml today."}}}}
	f = run(t, req, nil)
	if got := texts(f.Mentions.Verified); !slices.Equal(got, []string{"file:deploy/prod.yaml"}) {
		t.Errorf("verified %v", got)
	}
	if !slices.Contains(codes(f), "grounding.mentions="+vouch.CodeMentionsRefuted) || len(f.Mentions.Refuted) != 1 {
		t.Errorf("codes %v refuted %v", codes(f), texts(f.Mentions.Refuted))
	}
}

// TestProfiles checks that grounding serves every checkpoint kind, each row
// feeding a dimension of its kind.
func TestProfiles(t *testing.T) {
	if got := profileKinds(); !slices.Equal(got, vouch.Kinds) {
		t.Errorf("kinds served %v, want every kind %v", got, vouch.Kinds)
	}
	for k, p := range profiles {
		if !slices.Contains(vouch.Dimensions(k), p.dim) {
			t.Errorf("%s feeds %s, not one of its dimensions %v", k, p.dim, vouch.Dimensions(k))
		}
		if p.texts == nil || (p.madeFrom == nil) != (p.madeOf == "") {
			t.Errorf("%s: incomplete row %+v", k, p)
		}
	}
}

// TestRecordKeys: a name an answer takes from a key of a JSON record given
// as a source ("WiFi", "OutdoorSeating") is found in the record, whose
// flattened text spells keys in words.
func TestRecordKeys(t *testing.T) {
	sources := []json.RawMessage{json.RawMessage(`{"name": "Harbor Deli", "attributes": {"WiFi": "free", "OutdoorSeating": true, "BikeParking": false}}`)}
	tests := []struct {
		answer     string
		unverified []string
	}{
		{"Harbor Deli offers free WiFi.", nil},
		{"Harbor Deli has OutdoorSeating but no BikeParking.", nil},
		{"Harbor Deli has ValetParking.", []string{"symbol:ValetParking"}},
	}
	for _, tt := range tests {
		req := &vouch.Request{Kind: vouch.KindAnswer, Output: vouch.Output{Summary: tt.answer}, Context: &vouch.Context{Sources: sources}}
		f := run(t, req, nil)
		if got := texts(f.Mentions.Unverified); !slices.Equal(got, tt.unverified) {
			t.Errorf("%q: unverified = %v, want %v", tt.answer, got, tt.unverified)
		}
	}
}
