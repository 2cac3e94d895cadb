package web

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/quality"
	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/wire"
)

// fixture describes a stored verification for a test; zero fields take
// the defaults of a retried subtask.
type fixture struct {
	tenant, id string
	attempt    int
	summary    string
	verdict    vouch.Verdict
	review     bool
	model      string
	kind       vouch.Kind
	at         time.Time
	// passDocs makes the doc-comment check pass (a later attempt that
	// fixed it).
	passDocs bool
	// calls, when above 0, gives the request a trace of that many tool
	// calls (see traceOf), and the report a check claims.tests (check 4)
	// that refutes the claim "the tests pass" citing the failed test run
	// (call calls-2) by its index and its command.
	calls int
	// callText is written into the input and the output of the trace's
	// first call.
	callText string
}

// failedRun is the index of the failed test run in a trace of n calls.
func failedRun(n int) int { return max(0, n-2) }

// traceOf builds a coding agent's trace of n calls, a second apart from
// the fixtures' epoch: reads, searches, edits and test runs in turn,
// and at n-2 a failed run of "npm test" (a Jest summary with one test
// failed, exit code 1). Entry i has id "t<i>".
func traceOf(n int, text string) []map[string]any {
	out := make([]map[string]any, n)
	for i := range n {
		e := map[string]any{"id": fmt.Sprintf("t%d", i), "timestamp": epoch.Add(time.Duration(i) * 1500 * time.Millisecond).Format(time.RFC3339Nano)}
		switch i % 5 {
		case 0:
			e["tool"], e["input"], e["output"] = "Read", map[string]any{"file_path": fmt.Sprintf("src/parser%d.ts", i)}, "     1\texport function parse(s: string) {\n     2\t  return s.trim();\n     3\t}"
		case 1:
			e["tool"], e["input"], e["output"] = "Grep", map[string]any{"pattern": "export function", "path": "src"}, "src/parser.ts:1:export function parse"
		case 2:
			e["tool"], e["input"], e["output"] = "Edit", map[string]any{"file_path": "src/parser.ts", "old_string": "export function parse(s: string) {\n  return s.trim();\n}",
				"new_string": "/** Parses s. */\nexport function parse(s: string) {\n  return s.trim();\n}"}, "The file src/parser.ts has been updated."
		case 3:
			e["tool"], e["input"], e["output"] = "Bash", map[string]any{"command": "npm test -- parser", "description": "Run the parser's tests"},
				"Exit code 0\n> jest parser\nPASS src/parser.test.ts\nTests:       4 passed, 4 total\nTime:        0.8 s"
		default:
			e["tool"], e["input"], e["output"] = "Bash", map[string]any{"command": "git status --short"}, " M src/parser.ts"
		}
		if i == failedRun(n) {
			e["tool"], e["input"] = "Bash", map[string]any{"command": "npm test", "description": "Run every test"}
			e["output"], e["isError"] = "Exit code 1\n> jest\nFAIL src/lexer.test.ts\n  ● lexer › tokenize › splits on commas\n    TypeError: Cannot read properties of undefined (reading 'split')\nTests:       1 failed, 11 passed, 12 total\nTime:        1.9 s", true
		}
		if i == 0 && text != "" {
			e["input"] = map[string]any{"file_path": "src/parser.ts", "note": text}
			e["output"] = text
		}
		out[i] = e
	}
	return out
}

// report builds a realistic report for f: dimensions, a met and an unmet
// criterion, claims and grounding checks with evidence, a claim ledger,
// mentions, and feedback. A retry or a fail is sent back by row 1 (the
// count claim refuted), an unverified report left a test claim unverified
// (row 6), and a pass held every claim (row 7).
func (f fixture) report() *vouch.Report {
	score := 0.55
	docs := vouch.StatusFail
	crit := vouch.CriterionUnmet
	countClaim := vouch.ClaimRefuted
	unverified := f.verdict == vouch.VerdictUnverified
	if f.passDocs || unverified {
		score, docs, crit, countClaim = 0.92, vouch.StatusPass, vouch.CriterionMet, vouch.ClaimVerified
	}
	one, quarter := 1.0, 0.25
	action, row := vouch.ActionRetry, 1
	reason := "the must-pass check claims.count failed: 4 claimed, 1 found"
	switch f.verdict {
	case vouch.VerdictPass:
		action, row, reason = vouch.ActionAccept, 7, "every claim was checked and holds"
	case vouch.VerdictFail:
		action = vouch.ActionEscalate
	case vouch.VerdictUnverified:
		action, row, reason = vouch.ActionAccept, 6, "1 of 3 claims could not be checked either way; nothing was found false"
	}
	claims := []vouch.Claim{
		{ID: "c1", Text: "Added JSDoc comments to all 4 exported functions", Kind: vouch.ClaimSymbol, Source: vouch.SourceSummary,
			State: countClaim, Reason: "4 functions claimed, " + map[vouch.ClaimState]string{vouch.ClaimRefuted: "1", vouch.ClaimVerified: "4"}[countClaim] + " found", Checks: []int{1, 2}},
		{ID: "c2", Text: "src/parser.ts", Kind: vouch.ClaimFile, Source: "output.modified", State: vouch.ClaimVerified,
			Reason: "the file was read and changed", Checks: []int{3}},
	}
	if f.verdict != vouch.VerdictPass {
		claims = append(claims, vouch.Claim{ID: "c3", Text: "the tests pass", Kind: vouch.ClaimTests, Source: vouch.SourceSummary,
			State: vouch.ClaimUnverified, Reason: "no test run in the evidence shows it", Checks: []int{}})
	}
	decided := 0
	for _, c := range claims {
		if c.State != vouch.ClaimUnverified {
			decided++
		}
	}
	if f.calls > 0 && len(claims) > 2 {
		claims[2].State, claims[2].Reason, claims[2].Checks = vouch.ClaimRefuted, "the last run of npm test failed", []int{4}
		decided++
	}
	coverage := float64(decided) / float64(len(claims))
	var refuted []vouch.RefutedMention
	if countClaim == vouch.ClaimRefuted {
		refuted = []vouch.RefutedMention{{Text: "src/lexer.ts", Kind: vouch.MentionFile, Sentence: f.summary, Evidence: "not in the workspace"}}
	}
	ratio := 0.04
	agreement := 0.9
	checks := []vouch.CheckResult{
		{Name: "structure", Level: vouch.LevelStructure, Strength: vouch.StrengthStrict, Status: vouch.StatusPass, Confidence: 1, Reason: "the request is valid", Evidence: map[string]any{}},
		{Name: "claims.count", Level: vouch.LevelClaims, Strength: vouch.StrengthStrict, Status: docs, Confidence: 1,
			Reason: "4 functions claimed, 1 found", Evidence: map[string]any{"code": "COUNT_MISMATCH", "claimed": 4, "found": 1, "file": "src/parser.ts"}},
		{Name: "claims.region", Level: vouch.LevelClaims, Strength: vouch.StrengthStrict, Status: docs, Confidence: 1,
			Reason: "no diff hunk touches lines 40-52", Evidence: map[string]any{"file": "src/parser.ts", "lines": []int{40, 52}}},
		{Name: "grounding.files", Level: vouch.LevelGrounding, Strength: vouch.StrengthStrict, Status: vouch.StatusPass, Confidence: 1, Reason: "every file mentioned was read", Evidence: map[string]any{"files": 1}},
	}
	if f.calls > 0 {
		run := failedRun(f.calls)
		checks = append(checks, vouch.CheckResult{Name: "claims.tests", Level: vouch.LevelClaims, Strength: vouch.StrengthStrict, Status: vouch.StatusFail,
			Confidence: 1, Reason: `the output claims the tests passed, but the last run of "npm test" failed`,
			Evidence: map[string]any{"code": "TEST_CLAIM_CONTRADICTED", "source": "trace", "failedCommands": []string{"npm test"}, "run": map[string]any{"call": run, "command": "npm test"},
				"runs": []string{"npm test: 11 passed, 1 failed"}}})
	}
	return &vouch.Report{
		APIVersion: "vouch/v1", ID: f.id, Kind: f.kind, Attempt: f.attempt,
		Verdict: f.verdict, Action: action, VerdictRow: row,
		Reason:      reason,
		Claims:      claims,
		Coverage:    &coverage,
		Score:       &score,
		Confidence:  0.9,
		NeedsReview: f.review,
		Dimensions: map[string]vouch.Dimension{
			"claims":       {Score: &quarter, State: vouch.StateDecided, Weight: 0.4},
			"criteria":     {Score: &quarter, State: vouch.StateDecided, Weight: 0.3},
			"groundedness": {Score: &one, State: vouch.StateDecided, Weight: 0.2},
			"completeness": {State: vouch.StateUndecided, Weight: 0.1},
		},
		Criteria: []vouch.CriterionResult{
			{ID: "c1", Text: "doc comments on parse, tokenize, format, validate", Must: true, Inferred: true, Status: crit, Score: &quarter, DecidedBy: vouch.DecidedByRule, Reason: "1 of 4 symbols documented"},
			{ID: "c2", Text: "the answer is clear", Status: vouch.CriterionUndecided, Reason: "no judge configured"},
		},
		Checks: checks,
		Mentions: vouch.Mentions{
			Verified:   []vouch.VerifiedMention{{Text: "src/parser.ts", Kind: vouch.MentionFile, Evidence: map[string]any{"source": "trace", "call": "t1"}}},
			Unverified: []vouch.UnverifiedMention{{Text: "tokenize", Kind: vouch.MentionSymbol, Sentence: f.summary}},
			Refuted:    refuted,
		},
		Gaps:        []string{"tokenize, format and validate have no doc comment"},
		Issues:      []string{"the claimed count does not hold"},
		Suggestions: []string{"document tokenize, format and validate"},
		Warnings:    []vouch.Warning{{Code: "MUST_UNDECIDED", Message: "c2 could not be decided"}},
		Feedback:    "Previous attempt: COUNT_MISMATCH in src/parser.ts: 4 claimed, 1 found. Add doc comments to tokenize, format, validate.",
		Judge:       &vouch.JudgeInfo{Models: []string{"openai:gpt-4o"}, Mode: "single", Samples: 1, Agreement: &agreement},
		Cost:        vouch.Cost{JudgeCalls: 1, CacheMisses: 1, InputTokens: 1200, OutputTokens: 180, USD: 0.0042, TaskCostRatio: &ratio},
		AnswerChars: len(f.summary),
		DurationMs:  12.5,
	}
}

// verification builds the stored row of f.
func (f fixture) verification(t testing.TB) *store.Verification {
	t.Helper()
	if f.tenant == "" {
		f.tenant = openTenant
	}
	if f.attempt == 0 {
		f.attempt = 1
	}
	if f.summary == "" {
		f.summary = "Added JSDoc comments to all 4 exported functions in src/parser.ts, including tokenize, and left src/lexer.ts as it was; the tests pass."
	}
	if f.verdict == "" {
		f.verdict = vouch.VerdictRetry
	}
	if f.model == "" {
		f.model = "gpt-4o-mini"
	}
	if f.kind == "" {
		f.kind = vouch.KindSubtask
	}
	if f.at.IsZero() {
		f.at = epoch
	}
	rep := f.report()
	result, err := wire.MarshalReport(rep)
	if err != nil {
		t.Fatal(err)
	}
	request := map[string]any{
		"id": f.id, "attempt": f.attempt, "kind": f.kind,
		"task":   map[string]any{"id": "task-" + f.id, "goal": "Add JSDoc comments to the exported functions of src/parser.ts", "executor": map[string]any{"model": f.model}},
		"output": map[string]any{"summary": f.summary, "modified": []string{"src/parser.ts"}},
	}
	if f.calls > 0 {
		request["trace"] = traceOf(f.calls, f.callText)
	}
	req, err := json.Marshal(request)
	if err != nil {
		t.Fatal(err)
	}
	v := &store.Verification{
		Tenant: f.tenant, ID: f.id, Attempt: f.attempt, IdempotencyKey: fmt.Sprintf("%s/%d", f.id, f.attempt),
		RequestHash: "00", VerificationType: "agent", TaskID: "task-" + f.id, Goal: "Add JSDoc comments to the exported functions of src/parser.ts",
		Kind: f.kind, Verdict: f.verdict, Action: rep.Action, Score: rep.Score, Confidence: rep.Confidence,
		NeedsReview: f.review, ExecutorModel: f.model, JudgeModels: []string{"openai:gpt-4o"}, CostUSD: 0.0042, DurationMs: 12.5,
		Result: result, Request: req, RequestBytes: len(req), CreatedAt: f.at,
	}
	quality.Fill(v, rep)
	return v
}

// insert stores the fixtures in order.
func (e *env) insert(fs ...fixture) {
	e.t.Helper()
	for _, f := range fs {
		if _, err := e.st.Insert(e.t.Context(), f.verification(e.t), nil); err != nil {
			e.t.Fatal(err)
		}
	}
}
