package loop

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/event"
	"github.com/vouchgate/vouch/internal/fence"
)

// Thresholds of a reliable subtask result.
const (
	// ReliableConfidence is the least confidence of a reliable result.
	ReliableConfidence = 0.5
	// ReliableMaxUnverified is the most unverified mentions of a reliable
	// result.
	ReliableMaxUnverified = 2
)

// Synthesis is the quality-aware input of a synthesis: the subtask results
// sorted by how far they can be trusted, and the known gaps, as data and
// as text.
type Synthesis struct {
	// Reliable are accepted results with confidence ≥ 0.5 and at most 2
	// unverified mentions.
	Reliable []SynthesisItem `json:"reliable"`
	// Uncertain are the other accepted results, with their warnings.
	Uncertain []SynthesisItem `json:"uncertain"`
	// Gaps are the known gaps: the results' gaps, and the tasks that were
	// not accepted.
	Gaps []string `json:"gaps"`
	// Text is all of it as text, for a prompt (fence it: it holds agent
	// outputs).
	Text string `json:"text"`
}

// SynthesisItem is one subtask result.
type SynthesisItem struct {
	// TaskID is the subtask's id, Output its accepted output's summary.
	TaskID string `json:"taskId"`
	Output string `json:"output"`
	// Confidence and Score are its report's.
	Confidence float64  `json:"confidence"`
	Score      *float64 `json:"score"`
	// Unverified are the mentions its report could not verify.
	Unverified []string `json:"unverified"`
	// Warnings say why it is uncertain, and its report's warnings.
	Warnings []string `json:"warnings"`
}

// SynthesisInput sorts subtask results for a synthesis: the reliable
// ones, the uncertain ones with their warnings, and the known gaps. A
// result that was not accepted contributes no output, only a gap saying
// so. The follow-ups that were run are results too, and the gaps they
// closed are no longer gaps (a follow-up not run, or not accepted, leaves
// its gap open). Nil results are skipped.
func SynthesisInput(results []*Result) *Synthesis {
	s := &Synthesis{Reliable: []SynthesisItem{}, Uncertain: []SynthesisItem{}, Gaps: []string{}}
	gap := func(g string) {
		if g = strings.TrimSpace(g); g != "" && !slices.Contains(s.Gaps, g) {
			s.Gaps = append(s.Gaps, g)
		}
	}
	var add func(r *Result)
	add = func(r *Result) {
		if r == nil {
			return
		}
		if r.Outcome != Accepted || r.Output == nil || r.Report == nil {
			why := string(r.Outcome)
			if r.Escalation != nil {
				why += ": " + r.Escalation.Error
			} else if r.Clarification != nil {
				why += ": " + r.Clarification.Question
			}
			gap(fmt.Sprintf("task %s was not accepted (%s)", r.TaskID, fence.Line(why, 300)))
			return
		}
		rep := r.Report
		it := SynthesisItem{TaskID: r.TaskID, Output: r.Output.Summary, Confidence: rep.Confidence, Score: rep.Score,
			Unverified: []string{}, Warnings: []string{}}
		for _, u := range rep.Mentions.Unverified {
			it.Unverified = append(it.Unverified, u.Text)
		}
		if rep.Confidence < ReliableConfidence {
			it.Warnings = append(it.Warnings, fmt.Sprintf("confidence %.2f is under %.1f", rep.Confidence, ReliableConfidence))
		}
		if n := len(it.Unverified); n > ReliableMaxUnverified {
			it.Warnings = append(it.Warnings, fmt.Sprintf("%d mentions are unverified: %s", n, strings.Join(it.Unverified, ", ")))
		}
		reliable := len(it.Warnings) == 0
		for _, w := range rep.Warnings {
			it.Warnings = append(it.Warnings, w.Code+": "+w.Message)
		}
		if reliable {
			s.Reliable = append(s.Reliable, it)
		} else {
			s.Uncertain = append(s.Uncertain, it)
		}
		// A gap a follow-up closed is no gap; the follow-up's result is a
		// result of its own.
		closed := map[string]bool{}
		for _, fu := range r.FollowUps {
			if fu.Result != nil && fu.Result.Outcome == Accepted {
				closed[fu.Gap] = true
			}
		}
		for _, g := range rep.Gaps {
			if !closed[strings.TrimSpace(g)] {
				gap(g)
			}
		}
		for _, fu := range r.FollowUps {
			if fu.Result != nil {
				add(fu.Result)
			}
		}
	}
	for _, r := range results {
		add(r)
	}
	s.Text = s.render()
	return s
}

func (s *Synthesis) render() string {
	var b strings.Builder
	item := func(it SynthesisItem) {
		fmt.Fprintf(&b, "\n[%s] confidence %.2f", it.TaskID, it.Confidence)
		if len(it.Warnings) > 0 {
			fmt.Fprintf(&b, "; warnings: %s", strings.Join(it.Warnings, "; "))
		}
		fmt.Fprintf(&b, "\n%s\n", strings.TrimSpace(it.Output))
	}
	b.WriteString("Reliable results (verified: build on these):")
	if len(s.Reliable) == 0 {
		b.WriteString(" none\n")
	}
	for _, it := range s.Reliable {
		item(it)
	}
	b.WriteString("\nUncertain results (use with care, and say so):")
	if len(s.Uncertain) == 0 {
		b.WriteString(" none\n")
	}
	for _, it := range s.Uncertain {
		item(it)
	}
	b.WriteString("\nKnown gaps (say that these are open):")
	if len(s.Gaps) == 0 {
		b.WriteString(" none")
	}
	for _, g := range s.Gaps {
		fmt.Fprintf(&b, "\n- %s", g)
	}
	return b.String()
}

// Answer is an orchestrator's final answer.
type Answer struct {
	// Text is the synthesis's output or, when it failed, the subtask
	// outputs it was to be built from.
	Text string `json:"text"`
	// FellBack reports that the synthesis failed and Text is the outputs.
	FellBack bool `json:"fellBack"`
	// Input is what the synthesis was given.
	Input *Synthesis `json:"input"`
	// Result is the synthesis task's result.
	Result *Result `json:"result"`
	// Quality is how far the answer can be trusted: the data of the
	// orchestrator:answer event.
	Quality event.Answer `json:"quality"`
}

// Synthesize builds the final answer from subtask results: it runs task
// (made a synthesis over the results' outputs) through [Run] with the
// quality-aware input in its prompt, and emits orchestrator:answer. When
// the synthesis is not accepted (escalated, retries used up, or the
// outputs contradict each other), the answer falls back to the outputs
// themselves, reliable first, each labelled, with the gaps; it then needs
// review. The returned error is Run's.
func Synthesize(ctx context.Context, v Verifier, task Task, exec Executor, results []*Result, opts Options) (*Answer, error) {
	in := SynthesisInput(results)
	task.Request.Kind = vouch.KindSynthesis
	task.Synthesis = in
	c := vouch.Context{}
	if task.Request.Context != nil {
		c = *task.Request.Context
	}
	c.Outputs = slices.Clone(c.Outputs)
	for _, it := range slices.Concat(in.Reliable, in.Uncertain) {
		c.Outputs = append(c.Outputs, vouch.AgentOutput{ID: it.TaskID, Text: it.Output})
	}
	task.Request.Context = &c
	res, err := Run(ctx, v, task, exec, opts)
	if res == nil {
		return nil, err
	}
	a := &Answer{Input: in, Result: res}
	q := &a.Quality
	q.Gaps, q.UnverifiedMentions, q.Warnings = slices.Clone(in.Gaps), []vouch.UnverifiedMention{}, []vouch.Warning{}
	if res.Outcome == Accepted {
		rep := res.Report
		a.Text = res.Output.Summary
		q.Confidence, q.NeedsReview = rep.Confidence, res.NeedsReview
		if d, ok := rep.Dimensions[vouch.DimCompleteness]; ok {
			q.Completeness = d.Score
		}
		for _, g := range rep.Gaps {
			if !slices.Contains(q.Gaps, g) {
				q.Gaps = append(q.Gaps, g)
			}
		}
		q.UnverifiedMentions = append(q.UnverifiedMentions, rep.Mentions.Unverified...)
		q.Warnings = append(q.Warnings, rep.Warnings...)
	} else {
		a.FellBack, q.FellBack, q.NeedsReview = true, true, true
		a.Text = fallBackText(in, res)
		q.Confidence = 0
		first := true
		for _, r := range results {
			if r == nil || r.Outcome != Accepted || r.Report == nil {
				continue
			}
			if first || r.Report.Confidence < q.Confidence {
				q.Confidence, first = r.Report.Confidence, false
			}
			q.UnverifiedMentions = append(q.UnverifiedMentions, r.Report.Mentions.Unverified...)
			q.Warnings = append(q.Warnings, r.Report.Warnings...)
		}
		why := string(res.Outcome)
		if res.Escalation != nil {
			why = res.Escalation.Error
		} else if res.Clarification != nil {
			why = res.Clarification.Question
		}
		q.Warnings = append(q.Warnings, vouch.Warning{Code: vouch.CodeFallBack,
			Message: "the synthesis was not accepted; the answer is the subtask outputs: " + fence.Line(why, 300)})
	}
	if _, eerr := opts.Events.Emit(event.Event{Type: event.OrchestratorAnswer, InteractionID: task.InteractionID, TaskID: res.TaskID, Data: q}); eerr != nil {
		res.Warnings = append(res.Warnings, fmt.Sprintf("event %s: %v", event.OrchestratorAnswer, eerr))
	}
	return a, err
}

// fallBackText is the answer made of the outputs when the synthesis fails.
func fallBackText(in *Synthesis, res *Result) string {
	var b strings.Builder
	b.WriteString("The combined answer could not be verified; here are the subtask results it was to be built from.\n")
	if res.Clarification != nil {
		fmt.Fprintf(&b, "\nOpen question: %s\n", res.Clarification.Question)
	}
	for _, it := range in.Reliable {
		fmt.Fprintf(&b, "\n[%s] (verified, confidence %.2f)\n%s\n", it.TaskID, it.Confidence, strings.TrimSpace(it.Output))
	}
	for _, it := range in.Uncertain {
		fmt.Fprintf(&b, "\n[%s] (uncertain: %s)\n%s\n", it.TaskID, strings.Join(it.Warnings, "; "), strings.TrimSpace(it.Output))
	}
	if len(in.Gaps) > 0 {
		b.WriteString("\nKnown gaps:\n")
		for _, g := range in.Gaps {
			fmt.Fprintf(&b, "- %s\n", g)
		}
	}
	return b.String()
}
