// Package synthesis holds the analyzer of synthesis requests,
// "synthesis.outputs": it decides by rule whether a final answer built
// from several agent outputs (context.outputs) rests on them, uses them,
// and handles their disagreements. It serves the checkpoint kind synthesis
// alone (the engine runs it for no other kind), and adds nothing for a
// request that carries no outputs.
//
// # What is checked
//
// Traceability (dimension traceability, check synthesis.traceability):
// the answer is split into claims, one a sentence, and each claim's
// numbers, dates, names, counts and quoted phrases are looked up in the
// outputs with package support's normalisation ("1,500" = "1.5k", "2 s" =
// "2000 ms", "March 2024" within "2024-03-05", JSON records as outputs).
// A claim is traced to the outputs that hold one of its atoms or half its
// content words. An atom no output holds is a fabrication: the outputs are
// all a synthesis is built from, so what none of them says is not a gap in
// the evidence but something the synthesis made up (UNSUPPORTED_CLAIM,
// must-pass, each sentence quoted with what no output holds or which
// output says otherwise). The score is the share of checkable claims that
// are supported; framing prose ("In short, ...") has no atom and counts
// for neither side. A count of the answer's own parts ("three changes",
// "two issues remain") is not checked. Files, packages, symbols and URLs
// the answer mentions are grounded by package grounding, which looks them
// up in the outputs when the trace and workspace do not show them.
//
// Completeness (dimension completeness, check synthesis.completeness):
// every output with something to say is drawn on by some claim, by a
// clause of the answer or by words only it and the answer hold (see
// [support.Index.Drawn]), or shares with the answer a file or symbol no
// other output names (OUTPUT_UNUSED otherwise, must-pass,
// naming the outputs left out). Empty outputs and outputs that report
// nothing ("No issues found.") need not be used. The score is the share
// used.
//
// Consistency (dimension consistency, check synthesis.consistency), with
// two outputs or more: the outputs are compared with each other (see
// [support.Index.Conflicts]: one thing with two values, one statement
// affirmed and denied, a file created by one and deleted by another). A
// conflict the answer settles silently, stating one side as fact, fails
// (CONTRADICTION, must-pass, naming both outputs and what each says; the
// evidence's "sides" lists each conflict's subject, its sides a and b as
// {source, says, sentence}, and the side the answer settled with, for an
// orchestrator to ask which holds). An
// answer that states both sides, or says that the outputs disagree, handles
// it; a conflict the answer does not touch is listed in the issues only.
// Finding no conflict is light evidence (0.7): the rules see values,
// negations and files, not every way two texts can disagree.
//
// When a synthesis fails (on its last attempt, or beyond retry), the
// analyzer concludes that it cannot be used: the report says to fall back
// to the outputs (FALL_BACK_TO_OUTPUTS, see [vouch.Concluder]).
package synthesis

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/check/internal/sourced"
	"github.com/vouchgate/vouch/text/mention"
	"github.com/vouchgate/vouch/text/plural"
	"github.com/vouchgate/vouch/text/support"
)

func init() {
	check.RegisterAnalyzer(check.AnalyzerInfo{
		Name:  "synthesis.outputs",
		Level: vouch.LevelGrounding,
		Kinds: []vouch.Kind{vouch.KindSynthesis},
		New:   func() vouch.Analyzer { return analyzer{} },
	})
}

// analyzer is the synthesis.outputs analyzer. It holds no state, so it is
// safe for concurrent use.
type analyzer struct{}

var (
	_ vouch.Analyzer  = analyzer{}
	_ vouch.Concluder = analyzer{}
)

// maxListed bounds the sentences and conflicts quoted in one check's
// evidence.
const maxListed = 20

// Analyze implements vouch.Analyzer.
func (analyzer) Analyze(ctx context.Context, s *vouch.Subject, f *vouch.Findings) error {
	req := s.Request
	if req == nil || req.Context == nil || len(req.Context.Outputs) == 0 {
		return nil
	}
	outs := req.Context.Outputs
	srcs := make([]support.Source, len(outs))
	for i, o := range outs {
		srcs[i] = support.Source{ID: OutputID(i, o.ID), Text: o.Text}
	}
	// The task's goal is given to the synthesis too: what it says (an
	// objective, a deadline) supports claims, but it is no output to use
	// or to compare with the others.
	if g := strings.TrimSpace(req.Task.Goal); g != "" {
		srcs = append(srcs, support.Source{ID: "task.goal", Text: g, Aside: true})
	}
	ix := support.NewIndex(srcs)
	doc := mention.Parse(req.Output.Summary)
	claims := ix.Claims(doc)
	if err := ctx.Err(); err != nil {
		return err
	}
	traceability(f, claims)
	completeness(f, ix, outs, srcs, claims, doc)
	if len(outs) > 1 {
		consistency(f, ix, doc)
	}
	return nil
}

// Conclude implements vouch.Concluder: a synthesis that failed cannot be
// used and will not be retried, so the orchestrator is told to hand on the
// agent outputs it was built from (FALL_BACK_TO_OUTPUTS, naming them).
func (analyzer) Conclude(s *vouch.Subject, rep *vouch.Report) []vouch.Warning {
	req := s.Request
	if rep.Verdict != vouch.VerdictFail || req.Context == nil || len(req.Context.Outputs) == 0 {
		return nil
	}
	ids := make([]string, len(req.Context.Outputs))
	for i, o := range req.Context.Outputs {
		ids[i] = o.ID
	}
	return []vouch.Warning{{Code: vouch.CodeFallBack,
		Message: "the synthesis cannot be used and will not be retried: hand on the agent outputs it was built from (" + strings.Join(ids, ", ") + ")",
		Details: map[string]any{"outputs": ids}}}
}

// OutputID names output i in evidence: its id, or "outputs[i]" when it
// has none.
func OutputID(i int, id string) string {
	if strings.TrimSpace(id) == "" {
		return fmt.Sprintf("outputs[%d]", i)
	}
	return id
}

func traceability(f *vouch.Findings, claims []support.Claim) {
	f.MarkApplicable(vouch.DimTraceability)
	sourced.Report(f, claims, "synthesis.traceability", vouch.DimTraceability, "output")
}

// completeness checks that every output with something to say is used.
func completeness(f *vouch.Findings, ix *support.Index, outs []vouch.AgentOutput, srcs []support.Source, claims []support.Claim, doc *mention.Doc) {
	used := map[string]bool{}
	for i := range claims {
		for _, id := range claims[i].Sources {
			used[id] = true
		}
	}
	// An output the answer draws on in its own words is used (see
	// support.Index.Drawn), and so is one that shares a file or symbol no
	// other output names.
	for i, d := range ix.Drawn(doc.Text) {
		if d {
			used[srcs[i].ID] = true
		}
	}
	// An output that shares a file or symbol with the answer is used.
	for _, m := range doc.Mentions {
		if m.Kind != vouch.MentionFile && m.Kind != vouch.MentionSymbol {
			continue
		}
		// Only a file or symbol one output alone names tells which
		// output the answer draws on.
		only := -1
		for i := range outs {
			if support.ContainsWord(srcs[i].Text, m.Norm) {
				if only >= 0 {
					only = -1
					break
				}
				only = i
			}
		}
		if only >= 0 {
			used[srcs[only].ID] = true
		}
	}
	var substantive int
	var unused []string
	for i, o := range outs {
		if reportsNothing(o.Text) {
			continue
		}
		substantive++
		if id := srcs[i].ID; !used[id] {
			unused = append(unused, id)
		}
	}
	if substantive == 0 {
		return
	}
	f.MarkApplicable(vouch.DimCompleteness)
	c := vouch.CheckResult{
		Name: "synthesis.completeness", Level: vouch.LevelGrounding, Strength: vouch.StrengthStrict,
		Status: vouch.StatusPass, Confidence: 1, Dimension: vouch.DimCompleteness, Weight: 1,
		Score:    float64(substantive-len(unused)) / float64(substantive),
		Reason:   fmt.Sprintf("the answer draws on %s with findings", plural.All(substantive, "output")),
		Evidence: map[string]any{"outputs": substantive},
	}
	if len(unused) > 0 {
		fix := make([]string, len(unused))
		for i, id := range unused {
			fix[i] = "output " + id
			f.Gaps = append(f.Gaps, "the answer leaves out output "+id)
		}
		c.Status, c.Code, c.Fix, c.Must = vouch.StatusFail, vouch.CodeOutputUnused, fix, true
		c.Reason = fmt.Sprintf("%d of %s with findings %s not used: %s", len(unused), plural.Count(substantive, "output"), plural.Pick(len(unused), "is", "are"), strings.Join(unused, ", "))
		c.Evidence["unused"] = unused
		f.Suggestions = append(f.Suggestions, "draw on "+strings.Join(unused, ", ")+", or say why they do not matter")
	}
	f.Checks = append(f.Checks, c)
}

// reportsNothing reports whether an output has nothing to draw on: it is
// empty, or a short note that opens with a negation and holds no figure
// ("No issues found.", "Nothing to report.").
func reportsNothing(text string) bool {
	t := strings.TrimSpace(text)
	if t == "" {
		return true
	}
	words := strings.Fields(strings.ToLower(t))
	if len(words) > 12 || strings.ContainsAny(t, "0123456789") {
		return false
	}
	switch strings.Trim(words[0], ".,;:!") {
	case "no", "nothing", "none", "n/a", "empty", "nil":
		return true
	}
	return false
}

// consistency checks how the answer handles conflicts between outputs.
func consistency(f *vouch.Findings, ix *support.Index, doc *mention.Doc) {
	f.MarkApplicable(vouch.DimConsistency)
	conflicts := ix.Conflicts()
	var taken []string
	var fix []string
	var sources []string
	var sides []map[string]any
	stances := ix.Stances(conflicts, doc)
	for i := range conflicts {
		c := &conflicts[i]
		desc := describe(c)
		switch stances[i] {
		case support.StanceA:
			taken = append(taken, fmt.Sprintf("%s; the answer states %q (%s) as settled", desc, c.A.Text, c.A.Source))
		case support.StanceB:
			taken = append(taken, fmt.Sprintf("%s; the answer states %q (%s) as settled", desc, c.B.Text, c.B.Source))
		case support.StanceNone:
			f.Issues = append(f.Issues, "synthesis.consistency: "+desc+"; the answer does not use it")
			continue
		default:
			continue
		}
		sources = append(sources, c.A.Source, c.B.Source)
		settled := c.A.Source
		if stances[i] == support.StanceB {
			settled = c.B.Source
		}
		sides = append(sides, map[string]any{"subject": c.Subject, "description": desc, "settledWith": settled,
			"a": map[string]any{"source": c.A.Source, "says": c.A.Text, "sentence": c.A.Sentence},
			"b": map[string]any{"source": c.B.Source, "says": c.B.Text, "sentence": c.B.Sentence}})
		fix = append(fix, fmt.Sprintf("say that %s and %s disagree on %s, or settle it with evidence", c.A.Source, c.B.Source, c.Subject))
	}
	if len(taken) == 0 {
		reason := "no two outputs contradict each other"
		if len(conflicts) > 0 {
			reason = plural.Pick(len(conflicts), "the answer states both sides of the conflict between outputs it uses", fmt.Sprintf("the answer states both sides of each of the %d conflicts between outputs it uses", len(conflicts)))
		}
		f.Checks = append(f.Checks, vouch.CheckResult{
			Name: "synthesis.consistency", Level: vouch.LevelGrounding, Strength: vouch.StrengthLight,
			Status: vouch.StatusPass, Confidence: 0.7, Dimension: vouch.DimConsistency, Weight: 1, Score: 1,
			Reason: reason, Evidence: map[string]any{"conflicts": len(conflicts)},
		})
		return
	}
	if len(taken) > maxListed {
		taken, sides = taken[:maxListed], sides[:maxListed]
	}
	f.Checks = append(f.Checks, vouch.CheckResult{
		Name: "synthesis.consistency", Level: vouch.LevelGrounding, Strength: vouch.StrengthStrict,
		Status: vouch.StatusFail, Confidence: 1, Dimension: vouch.DimConsistency, Weight: 1, Score: 0,
		Must: true, Code: vouch.CodeContradiction, Fix: fix,
		Reason:   fmt.Sprintf("the answer settles %s between outputs without a word: %s", plural.Count(len(taken), "conflict"), taken[0]),
		Evidence: map[string]any{"conflicts": taken, "sides": sides, "sources": slices.Compact(slices.Sorted(slices.Values(sources)))},
	})
}

// describe says what two outputs disagree on.
func describe(c *support.Conflict) string {
	switch c.Kind {
	case support.ConflictFile:
		return fmt.Sprintf("%s created %s and %s deleted it", c.A.Source, c.Subject, c.B.Source)
	case support.ConflictPolarity:
		return fmt.Sprintf("%s says %q and %s says %q", c.A.Source, c.A.Text, c.B.Source, c.B.Text)
	}
	return fmt.Sprintf("%s and %s give %s as %q and %q", c.A.Source, c.B.Source, c.Subject, c.A.Text, c.B.Text)
}
