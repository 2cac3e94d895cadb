package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/judge"
	"github.com/vouchgate/vouch/wire"
)

// verifyWith verifies a YAML request under pol (the default when nil) with
// judge j (none when nil) and every registered analyzer.
func verifyWith(t *testing.T, pol *vouch.Policy, j vouch.Judge, request string) *vouch.Report {
	t.Helper()
	if pol == nil {
		p := vouch.DefaultPolicy()
		pol = &p
	}
	eng, err := engine.New(engine.Options{Policy: pol, Judge: j, Now: fixedClock()})
	if err != nil {
		t.Fatal(err)
	}
	req, err := wire.DecodeRequest([]byte(request), wire.Options{Name: "req.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := eng.Verify(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func hasWarning(rep *vouch.Report, code string) *vouch.Warning {
	for i := range rep.Warnings {
		if rep.Warnings[i].Code == code {
			return &rep.Warnings[i]
		}
	}
	return nil
}

func checkNamed(rep *vouch.Report, name string) *vouch.CheckResult {
	for i := range rep.Checks {
		if rep.Checks[i].Name == name {
			return &rep.Checks[i]
		}
	}
	return nil
}

// pluginTask is a task whose rule checks pass, with one plugin result:
// %s is the result's status line.
const pluginTask = `
task:
  criteria:
    - {id: a, check: {type: contains, value: alpha}}
output:
  summary: "alpha: searched the index and listed the hits"
  toolCalls: ["mind:rag-query"]
  artifacts:
    pluginResults:
      - {tool: "mind:rag-query", %s}
`

// TestPluginFailureSendsBack checks that a failed plugin check is
// must-pass: a plugin error or a result that breaks its schema sends a
// task whose other checks pass back (row 1), and the same failure of a
// plugin the policy lists in advisoryPlugins only lowers the score.
func TestPluginFailureSendsBack(t *testing.T) {
	schemaPol := func(advisory bool) *vouch.Policy {
		p := vouch.DefaultPolicy()
		p.PluginSchemas = map[string]json.RawMessage{"mind:rag-query": json.RawMessage(`{"type": "object", "required": ["hits"]}`)}
		if advisory {
			p.AdvisoryPlugins = []string{"mind:rag-query"}
		}
		return &p
	}
	advisoryPol := vouch.DefaultPolicy()
	advisoryPol.AdvisoryPlugins = []string{"mind:rag-query"}
	otherAdvisory := vouch.DefaultPolicy()
	otherAdvisory.AdvisoryPlugins = []string{"web:other"}
	tests := []struct {
		name    string
		pol     *vouch.Policy
		result  string
		code    string
		verdict vouch.Verdict
		row     int
	}{
		{"plugin error", nil, `status: error, error: "index unavailable"`, vouch.CodePluginError, vouch.VerdictRetry, 1},
		{"another tool advisory", &otherAdvisory, `status: error, error: "index unavailable"`, vouch.CodePluginError, vouch.VerdictRetry, 1},
		{"plugin error, advisory", &advisoryPol, `status: error, error: "index unavailable"`, vouch.CodePluginError, vouch.VerdictPass, 7},
		{"schema violation", schemaPol(false), `status: success, data: {"items": []}`, vouch.CodeSchemaViolation, vouch.VerdictRetry, 1},
		{"schema violation, advisory", schemaPol(true), `status: success, data: {"items": []}`, vouch.CodeSchemaViolation, vouch.VerdictPass, 7},
		{"success", nil, `status: success, data: {"hits": []}`, "", vouch.VerdictPass, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := verifyWith(t, tt.pol, nil, strings.Replace(pluginTask, "%s", tt.result, 1))
			if rep.Verdict != tt.verdict || rep.VerdictRow != tt.row {
				t.Fatalf("verdict %s row %d (score %v), want %s row %d; reason %q", rep.Verdict, rep.VerdictRow, fmtPtr(rep.Score), tt.verdict, tt.row, rep.Reason)
			}
			if tt.code == "" {
				return
			}
			var failed *vouch.CheckResult
			for i := range rep.Checks {
				if c := &rep.Checks[i]; c.Status == vouch.StatusFail && c.Evidence["code"] == tt.code {
					failed = c
				}
			}
			if failed == nil {
				t.Fatalf("no failed check with code %s in %+v", tt.code, rep.Checks)
			}
			if tt.row == 1 {
				if rep.Action != vouch.ActionRetry || !strings.Contains(rep.Reason, "must-pass check "+failed.Name) {
					t.Errorf("action %s, reason %q: want retry and the must-pass check %s named", rep.Action, rep.Reason, failed.Name)
				}
				if !strings.Contains(rep.Feedback, "index unavailable") && !strings.Contains(rep.Feedback, "hits") {
					t.Errorf("feedback does not say what to fix:\n%s", rep.Feedback)
				}
			} else if failed.Evidence["advisory"] != true {
				t.Errorf("an advisory plugin's check does not say so: %v", failed.Evidence)
			}
		})
	}

	// Past the last attempt a plugin failure fails.
	last := strings.Replace(pluginTask, "%s", `status: error, error: "index unavailable"`, 1) + "attempt: 3\n"
	if rep := verifyWith(t, nil, nil, last); rep.Verdict != vouch.VerdictFail || rep.Action != vouch.ActionEscalate || rep.VerdictRow != 1 {
		t.Errorf("last attempt: %s/%s row %d, want fail/escalate row 1", rep.Verdict, rep.Action, rep.VerdictRow)
	}
}

// TestPluginConfidenceInEvidence checks that a plugin result's confidence
// is shown in its checks' evidence, and only there: it changes no verdict.
func TestPluginConfidenceInEvidence(t *testing.T) {
	rep := verifyWith(t, nil, nil, strings.Replace(pluginTask, "%s", `status: error, error: "index unavailable", confidence: 0.25`, 1))
	status := checkNamed(rep, "plugin.status")
	if status == nil || status.Evidence["confidence"] != 0.25 {
		t.Errorf("plugin.status evidence %v, want confidence 0.25", status)
	}
	called := checkNamed(rep, "plugin.called")
	if called == nil {
		t.Fatal("no plugin.called check")
	}
	if cs, ok := called.Evidence["confidence"].([]float64); !ok || len(cs) != 1 || cs[0] != 0.25 {
		t.Errorf("plugin.called evidence %v, want confidence [0.25]", called.Evidence)
	}
	rep = verifyWith(t, nil, nil, strings.Replace(pluginTask, "%s", `status: success, confidence: 0.1`, 1))
	if rep.Verdict != vouch.VerdictPass {
		t.Errorf("a low plugin confidence changed the verdict: %s (%s)", rep.Verdict, rep.Reason)
	}
}

// confidenceJudge decides every criterion it is asked unmet with score
// 0.3 and the given confidence.
type confidenceJudge struct{ confidence float64 }

func (j confidenceJudge) Evaluate(_ context.Context, q *vouch.JudgeQuery) (*vouch.JudgeVerdict, error) {
	v := &vouch.JudgeVerdict{Info: vouch.JudgeInfo{Models: []string{"fake/judge"}, Mode: "self", Samples: 1}}
	for _, c := range q.Criteria {
		v.Criteria = append(v.Criteria, vouch.JudgedCriterion{ID: c.ID, Status: vouch.CriterionUnmet, Score: 0.3, Confidence: j.confidence, Reason: "hard to tell"})
	}
	return v, nil
}

// judgedTask has one criterion a rule meets and one the judge decides:
// with the judge's score 0.3 the score is 0.65, in row 3 under the
// default policy.
const judgedTask = `
task:
  criteria:
    - {id: style, text: "follows the style guide", check: {type: llm, rubric: "Is the style guide followed?"}}
    - {id: a, check: {type: contains, value: alpha}}
output: {summary: alpha}
`

// TestReformulateOnLowConfidence checks row 3 under the default policy: a
// judge that decides with confidence under 0.4 asks to reformulate, a
// confident one to retry; a report whose confidence is under reviewBelow
// says so (LOW_CONFIDENCE).
func TestReformulateOnLowConfidence(t *testing.T) {
	for _, tt := range []struct {
		confidence float64
		action     vouch.Action
	}{
		{0.3, vouch.ActionReformulate},
		{0.39, vouch.ActionReformulate},
		{0.4, vouch.ActionRetry},
		{0.9, vouch.ActionRetry},
	} {
		rep := verifyWith(t, nil, confidenceJudge{tt.confidence}, judgedTask)
		if rep.Verdict != vouch.VerdictRetry || rep.Action != tt.action || rep.VerdictRow != 3 {
			t.Errorf("judge confidence %v: %s/%s row %d (score %v), want retry/%s row 3", tt.confidence, rep.Verdict, rep.Action, rep.VerdictRow, fmtPtr(rep.Score), tt.action)
		}
	}

	// LOW_CONFIDENCE comes with confidence under reviewBelow, and only
	// then.
	rep := verifyWith(t, nil, nil, "task: {goal: x}\noutput: {summary: done}\n")
	w := hasWarning(rep, vouch.CodeLowConfidence)
	if rep.Confidence >= 0.3 || w == nil || w.Details["reviewBelow"] != 0.3 {
		t.Errorf("confidence %v: LOW_CONFIDENCE warning %+v, want one naming reviewBelow 0.3", rep.Confidence, w)
	}
	rep = verifyWith(t, nil, nil, "task: {goal: x, criteria: [{id: a, check: {type: contains, value: alpha}}]}\noutput: {summary: alpha}\n")
	if rep.Confidence < 0.3 || hasWarning(rep, vouch.CodeLowConfidence) != nil {
		t.Errorf("confidence %v: unexpected LOW_CONFIDENCE in %+v", rep.Confidence, rep.Warnings)
	}
}

// TestDecideReformulatesOnConfidence checks row 3's choice directly: the
// verifier's confidence, not the score, picks reformulate.
func TestDecideReformulatesOnConfidence(t *testing.T) {
	p := vouch.DefaultPolicy()
	f := func(x float64) *float64 { return &x }
	for _, tt := range []struct {
		score, confidence *float64
		action            vouch.Action
	}{
		{f(0.6), f(0.3), vouch.ActionReformulate},
		{f(0.6), f(0.4), vouch.ActionRetry},
		{f(0.6), nil, vouch.ActionRetry},
		{f(0.69), f(0), vouch.ActionReformulate},
	} {
		v, a, row := vouch.Decide(&p, 1, vouch.VerdictInputs{Score: tt.score, Claims: 1, Confidence: tt.confidence})
		if v != vouch.VerdictRetry || a != tt.action || row != 3 {
			t.Errorf("score %v confidence %v: %s/%s row %d, want retry/%s row 3", *tt.score, fmtPtr(tt.confidence), v, a, row, tt.action)
		}
	}
	// Low confidence changes no other row: below failBelow still fails.
	if v, a, row := vouch.Decide(&p, 1, vouch.VerdictInputs{Score: f(0.3), Claims: 1, Confidence: f(0.1)}); v != vouch.VerdictFail || a != vouch.ActionEscalate || row != 2 {
		t.Errorf("score 0.3: %s/%s row %d, want fail/escalate row 2", v, a, row)
	}
}

// estimatingJudge is a judge that estimates its cost at usd and counts
// its calls; it decides every criterion met.
type estimatingJudge struct {
	usd   float64
	calls int
}

func (j *estimatingJudge) Estimate(*vouch.JudgeQuery) (*judge.Estimate, error) {
	return &judge.Estimate{Models: []string{"fake/judge"}, Calls: 1, MaxUSD: j.usd}, nil
}

func (j *estimatingJudge) Evaluate(_ context.Context, q *vouch.JudgeQuery) (*vouch.JudgeVerdict, error) {
	j.calls++
	v := &vouch.JudgeVerdict{Info: vouch.JudgeInfo{Models: []string{"fake/judge"}, Mode: "self", Samples: 1}}
	for _, c := range q.Criteria {
		v.Criteria = append(v.Criteria, vouch.JudgedCriterion{ID: c.ID, Status: vouch.CriterionMet, Score: 1, Confidence: 0.9, Reason: "met"})
	}
	for _, c := range q.Claims {
		v.Claims = append(v.Claims, vouch.JudgedClaim{ID: c.ID, State: vouch.ClaimVerified, Confidence: 0.9, Reason: "shown"})
	}
	return v, nil
}

// TestJudgeCostShare checks the cost rule: over judge.maxCostShare of the
// task's cost, the judge is not asked (JUDGE_BUDGET) and what it would
// decide stays undecided, never passed or failed; within it, or without a
// task cost, it is asked.
func TestJudgeCostShare(t *testing.T) {
	task := func(cost string) string {
		exec := ""
		if cost != "" {
			exec = "  executor: {provider: openai, model: small, costUsd: " + cost + "}\n"
		}
		return "task:\n" + exec + `  criteria:
    - {id: style, text: "follows the style guide", check: {type: llm, rubric: "Is the style guide followed?"}}
    - {id: a, check: {type: contains, value: alpha}}
output: {summary: alpha}
`
	}
	shareOff := vouch.DefaultPolicy()
	shareOff.Judge.MaxCostShare = 0
	tests := []struct {
		name   string
		pol    *vouch.Policy
		cost   string
		asked  bool
		status vouch.CriterionStatus
	}{
		{"over the share", nil, "0.01", false, vouch.CriterionUndecided}, // $0.004 > 0.3 × $0.01
		{"at the share", nil, "0.0134", true, vouch.CriterionMet},        // $0.004 ≤ 0.3 × $0.0134
		{"no task cost", nil, "", true, vouch.CriterionMet},
		{"share 0 is no cap", &shareOff, "0.01", true, vouch.CriterionMet},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &estimatingJudge{usd: 0.004}
			rep := verifyWith(t, tt.pol, j, task(tt.cost))
			if (j.calls > 0) != tt.asked {
				t.Fatalf("judge calls %d, want asked %v", j.calls, tt.asked)
			}
			var style *vouch.CriterionResult
			for i := range rep.Criteria {
				if rep.Criteria[i].ID == "style" {
					style = &rep.Criteria[i]
				}
			}
			if style == nil || style.Status != tt.status {
				t.Fatalf("criterion style %+v, want %s", style, tt.status)
			}
			w := hasWarning(rep, vouch.CodeJudgeBudget)
			if tt.asked {
				if w != nil {
					t.Errorf("unexpected JUDGE_BUDGET: %s", w.Message)
				}
				return
			}
			if w == nil || !strings.Contains(w.Message, "judge.maxCostShare") || w.Details["estimateUsd"] != 0.004 {
				t.Fatalf("JUDGE_BUDGET warning %+v, want one with the estimate and the key", w)
			}
			if c := checkNamed(rep, "judge:style"); c == nil || c.Status != vouch.StatusUndecided || c.Evidence["code"] != vouch.CodeJudgeBudget {
				t.Errorf("judge:style check %+v, want undecided with JUDGE_BUDGET", c)
			}
			// What the rules alone decide stands: the verdict and score are
			// those of the same request with no judge at all.
			alone := verifyWith(t, tt.pol, nil, task(tt.cost))
			if rep.Verdict != alone.Verdict || fmtPtr(rep.Score) != fmtPtr(alone.Score) || rep.Judge != nil || rep.Cost.JudgeCalls != 0 {
				t.Errorf("verdict %s score %v, judge %v, calls %d: want %s score %v, as with no judge, and no judge reported",
					rep.Verdict, fmtPtr(rep.Score), rep.Judge, rep.Cost.JudgeCalls, alone.Verdict, fmtPtr(alone.Score))
			}
		})
	}
}

// TestEveryProblemWithItsPosition: a request with a value of the wrong
// type, a criterion that does not compile and a task policy that widens
// the policy is refused with all three, each with its line and column;
// Check finds the engine's own problems in a decoded request.
func TestEveryProblemWithItsPosition(t *testing.T) {
	eng, err := engine.New(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := `task:
  policy: {commands: {allow: [[curl, example.com]]}}
  criteria:
    - must: "yes"
      check: {type: regex, pattern: "(x"}
    - check: {type: cel, expr: "summary ==="}
output: {summary: done}
`
	_, err = eng.VerifyBytes(context.Background(), []byte(in))
	var got []string
	for _, e := range vouch.ErrorList(err) {
		got = append(got, fmt.Sprintf("%d:%d %s %s", e.Line, e.Column, e.Path, e.Code))
	}
	want := []string{
		"2:31 task.policy.commands.allow[0] policy_widened",
		"4:13 task.criteria[0].must wrong_type",
		"5:37 task.criteria[0].check.pattern bad_criterion",
		"6:32 task.criteria[1].check.expr bad_criterion",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	req, err := wire.DecodeRequest([]byte(`{"task": {"criteria": [{"check": {"type": "regex", "pattern": "(x"}}]}, "output": {"summary": ""}}`), wire.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Check(req); vouch.Code(err) != vouch.ErrCriterion {
		t.Errorf("Check: %v", err)
	}
	req.Task.Criteria = nil
	if err := eng.Check(req); err != nil {
		t.Errorf("Check of a good request: %v", err)
	}
}
