package synthesis

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
)

func analyze(t testing.TB, kind vouch.Kind, goal, answer string, outputs ...string) *vouch.Findings {
	t.Helper()
	req := &vouch.Request{Kind: kind, Task: vouch.Task{Goal: goal}, Output: vouch.Output{Summary: answer},
		Context: &vouch.Context{}}
	for i, o := range outputs {
		req.Context.Outputs = append(req.Context.Outputs, vouch.AgentOutput{ID: string(rune('a' + i)), Text: o})
	}
	pol := vouch.DefaultPolicy()
	var f vouch.Findings
	if err := (analyzer{}).Analyze(context.Background(), &vouch.Subject{Request: req, Policy: &pol}, &f); err != nil {
		t.Fatal(err)
	}
	return &f
}

func checkNamed(f *vouch.Findings, name string) *vouch.CheckResult {
	for i := range f.Checks {
		if f.Checks[i].Name == name {
			return &f.Checks[i]
		}
	}
	return nil
}

func TestTraceability(t *testing.T) {
	outs := []string{
		"The catalogue cache hit rate over 7 days is 71%.",
		"The cache saves about 4,000 database queries per second at peak.",
	}
	f := analyze(t, vouch.KindSynthesis, "Review the catalogue cache",
		"The cache is worth keeping. It serves a 92% hit rate and saves about 4,000 queries per second at peak.", outs...)
	c := checkNamed(f, "synthesis.traceability")
	if c == nil || c.Status != vouch.StatusFail || c.Code != vouch.CodeUnsupportedClaim || !c.Must {
		t.Fatalf("traceability %+v, want a must-pass UNSUPPORTED_CLAIM", c)
	}
	if !strings.Contains(strings.Join(c.Fix, " "), `"92%"`) || c.Score != 0 {
		t.Errorf("fix %q score %v", c.Fix, c.Score)
	}
	if len(f.Mentions.Unverified) != 1 || f.Mentions.Unverified[0].Text != "92%" {
		t.Errorf("unverified %+v", f.Mentions.Unverified)
	}

	// The honest version: rewritten figures, framing prose, a count of the
	// answer's own parts, a figure from the task's goal.
	f = analyze(t, vouch.KindSynthesis, "Review the catalogue cache against its 60% hit-rate target",
		"Two findings stand out. The hit rate is 71%, above the 60% target. At peak the cache saves roughly 4k queries a second.", outs...)
	if c := checkNamed(f, "synthesis.traceability"); c == nil || c.Status != vouch.StatusPass || c.Score != 1 {
		t.Fatalf("traceability %+v, want a pass", c)
	}

	// Nothing checkable: applicable, undecided.
	f = analyze(t, vouch.KindSynthesis, "", "The cache is worth keeping.", outs...)
	if c := checkNamed(f, "synthesis.traceability"); c != nil || !f.Applicable[vouch.DimTraceability] {
		t.Errorf("prose-only answer: check %+v, applicable %v", c, f.Applicable)
	}
}

func TestCompleteness(t *testing.T) {
	outs := []string{
		"41 tables convert one to one; the three ENUM columns become CHECK constraints.",
		"A trial copy with pgloader moved 180 GB in 2 h 50 min.",
		"Rollback: keep MySQL as a logical replica fed by Debezium for 7 days after cutover.",
		"No issues found.",
		"",
	}
	f := analyze(t, vouch.KindSynthesis, "", "The schema converts cleanly: 41 tables map one to one. A full copy with pgloader takes about 3 hours.", outs...)
	c := checkNamed(f, "synthesis.completeness")
	if c == nil || c.Code != vouch.CodeOutputUnused || !c.Must || c.Score != 2.0/3 {
		t.Fatalf("completeness %+v, want OUTPUT_UNUSED with score 2/3", c)
	}
	if got := c.Evidence["unused"].([]string); len(got) != 1 || got[0] != "c" {
		t.Errorf("unused %v, want [c]", got)
	}
	if len(f.Gaps) != 1 || len(f.Suggestions) != 1 {
		t.Errorf("gaps %q suggestions %q", f.Gaps, f.Suggestions)
	}
	f = analyze(t, vouch.KindSynthesis, "", "The schema converts cleanly: 41 tables map one to one. A full copy with pgloader takes about 3 hours. "+
		"For rollback, MySQL stays a logical replica through Debezium.", outs...)
	if c := checkNamed(f, "synthesis.completeness"); c == nil || c.Status != vouch.StatusPass || c.Score != 1 {
		t.Errorf("completeness %+v, want a pass", c)
	}
}

func TestConsistency(t *testing.T) {
	outs := []string{
		"k6 at 300 rps: the p99 latency of /search is 340 ms.",
		"Benchmark rerun: the p99 latency of /search is 120 ms.",
		"The rebuilt index is 31 GB.",
	}
	f := analyze(t, vouch.KindSynthesis, "", "The p99 latency of /search is 120 ms. The rebuilt index is 31 GB.", outs...)
	c := checkNamed(f, "synthesis.consistency")
	if c == nil || c.Code != vouch.CodeContradiction || !c.Must || c.Strength != vouch.StrengthStrict {
		t.Fatalf("consistency %+v, want a must-pass CONTRADICTION", c)
	}
	if src := c.Evidence["sources"].([]string); len(src) != 2 || src[0] != "a" || src[1] != "b" {
		t.Errorf("sources %v, want both outputs named", src)
	}
	if !strings.Contains(c.Reason, `"120 ms" (b)`) {
		t.Errorf("reason %q", c.Reason)
	}
	sides := c.Evidence["sides"].([]map[string]any)
	if len(sides) != 1 || sides[0]["settledWith"] != "b" ||
		sides[0]["a"].(map[string]any)["source"] != "a" || sides[0]["a"].(map[string]any)["says"] != "340 ms" ||
		sides[0]["b"].(map[string]any)["says"] != "120 ms" || !strings.Contains(sides[0]["b"].(map[string]any)["sentence"].(string), "Benchmark rerun") {
		t.Errorf("sides %v", sides)
	}

	f = analyze(t, vouch.KindSynthesis, "", "The two p99 latency runs of /search disagree: 340 ms and 120 ms. The rebuilt index is 31 GB.", outs...)
	if c := checkNamed(f, "synthesis.consistency"); c == nil || c.Status != vouch.StatusPass {
		t.Errorf("consistency %+v, want a pass", c)
	}
	f = analyze(t, vouch.KindSynthesis, "", "The rebuilt index is 31 GB.", outs...)
	c = checkNamed(f, "synthesis.consistency")
	if c == nil || c.Status != vouch.StatusPass || len(f.Issues) != 1 || !strings.Contains(f.Issues[0], "does not use it") {
		t.Errorf("untouched conflict: check %+v issues %q", c, f.Issues)
	}
	f = analyze(t, vouch.KindSynthesis, "", "The rebuilt index is 31 GB.", outs[2], "The index rebuild took 4 hours.")
	if c := checkNamed(f, "synthesis.consistency"); c == nil || c.Status != vouch.StatusPass || c.Strength != vouch.StrengthLight || c.Confidence != 0.7 {
		t.Errorf("no conflict: %+v, want a light pass", c)
	}
}

// TestKinds checks that the analyzer serves synthesis alone (the engine
// runs it for no other kind) and adds nothing without outputs.
func TestKinds(t *testing.T) {
	var info *check.AnalyzerInfo
	for _, a := range check.Analyzers() {
		if a.Name == "synthesis.outputs" {
			info = &a
		}
	}
	if info == nil || !slices.Equal(info.Kinds, []vouch.Kind{vouch.KindSynthesis}) {
		t.Errorf("registered as %+v, want kinds [synthesis]", info)
	}
	f := analyze(t, vouch.KindSynthesis, "", "The p99 latency is 120 ms.")
	if len(f.Checks) != 0 {
		t.Errorf("synthesis without outputs: %+v", f.Checks)
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := &vouch.Request{Kind: vouch.KindSynthesis, Output: vouch.Output{Summary: "x is 1 ms."},
		Context: &vouch.Context{Outputs: []vouch.AgentOutput{{ID: "a", Text: "x is 2 ms."}}}}
	var f vouch.Findings
	if err := (analyzer{}).Analyze(ctx, &vouch.Subject{Request: req}, &f); err == nil || len(f.Checks) != 0 {
		t.Errorf("cancelled: err %v, checks %+v", err, f.Checks)
	}
}
