package loop

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/fence"
	"github.com/vouchgate/vouch/judge"
)

// Reformulator rewrites a task around what an attempt missed, when the
// report's action is reformulate (the attempt fell short and the verifier
// could not tell with confidence: the task is probably unclear). The rewrite is what the executor is told next; verification still
// holds every attempt to the task as given, its goal and its criteria, so
// a rewrite can never lower the bar. Reformulate may be called
// concurrently.
type Reformulator interface {
	Reformulate(ctx context.Context, in *ReformulateInput) (*Reformulation, error)
}

// ReformulateInput is what a reformulation works from.
type ReformulateInput struct {
	// Task is the task as given.
	Task *vouch.Task
	// Report is the report of the attempt that fell short.
	Report *vouch.Report
	// Output is that attempt's output.
	Output *vouch.Output
	// Executor is the agent that will run the next attempt, when known.
	Executor *vouch.Executor
	// Policy is the policy in force.
	Policy *vouch.Policy
}

// Reformulation is a rewritten task.
type Reformulation struct {
	// Task is the task restated.
	Task string `json:"task"`
	// Steps break it into concrete steps, in order.
	Steps []string `json:"steps"`
	// By says what wrote it: "rules", or "judge" and the model.
	By string `json:"by"`
	// CostUSD is what writing it cost.
	CostUSD float64 `json:"costUsd"`
	// Note says why a judge's rewrite fell back to the rules, if it did.
	Note string `json:"note,omitempty"`
}

// maxSteps bounds a reformulation's steps.
const maxSteps = 8

// RuleReformulator rewrites a task from its report alone, without a model:
// the goal stays, and the steps are what the attempt missed, in this
// order: the must-pass criteria unmet, the other criteria unmet, the
// must-pass checks that failed, the gaps, the criteria no one could check
// (at most 8 steps).
type RuleReformulator struct{}

var _ Reformulator = RuleReformulator{}

// Reformulate implements [Reformulator]. It never fails.
func (RuleReformulator) Reformulate(_ context.Context, in *ReformulateInput) (*Reformulation, error) {
	r := &Reformulation{By: "rules"}
	add := func(s string) {
		if s = fence.Line(s, 400); s != "" && !slices.Contains(r.Steps, s) && len(r.Steps) < maxSteps {
			r.Steps = append(r.Steps, s)
		}
	}
	rep := in.Report
	for _, must := range []bool{true, false} {
		for _, c := range rep.Criteria {
			if c.Must == must && c.Status == vouch.CriterionUnmet {
				add(fmt.Sprintf("Meet the criterion %q%s", c.Text, because(c.Reason)))
			}
		}
	}
	for i := range rep.Checks {
		c := &rep.Checks[i]
		if c.Status == vouch.StatusFail && c.Must && c.Level != vouch.LevelCriteria {
			add("Fix: " + c.Reason)
		}
	}
	for _, g := range rep.Gaps {
		add("Cover what is missing: " + g)
	}
	for _, c := range rep.Criteria {
		if c.Status == vouch.CriterionUndecided {
			add(fmt.Sprintf("Show plainly how the criterion %q is met", c.Text))
		}
	}
	score := "no score"
	if rep.Score != nil {
		score = fmt.Sprintf("score %.2f", *rep.Score)
	}
	r.Task = fmt.Sprintf("%s\n\nThe previous attempt fell far short (%s). Work through the steps below in order, check each with your tools before you report it, and report only what you did.",
		strings.TrimSpace(in.Task.Goal), score)
	if len(r.Steps) == 0 {
		add("Do the whole task again, from the start")
	}
	return r, nil
}

func because(reason string) string {
	if reason = strings.TrimSpace(reason); reason != "" {
		return " (it was not: " + reason + ")"
	}
	return ""
}

// JudgeReformulator rewrites a task with a judge model ([judge.Judge.Reformulate]),
// chosen by the policy's judge section as for a verification of the task.
// When the model cannot be asked or gives no usable rewrite, it falls back
// to Fallback (nil: [RuleReformulator]) and says why in the rewrite's
// Note: a reformulation is advice to the executor, so a rule-based one
// serves, while verification itself never falls back.
type JudgeReformulator struct {
	// Judge asks the model; nil uses Fallback alone.
	Judge *judge.Judge
	// Fallback rewrites when the model cannot; nil is RuleReformulator.
	Fallback Reformulator
}

var _ Reformulator = JudgeReformulator{}

// Reformulate implements [Reformulator].
func (j JudgeReformulator) Reformulate(ctx context.Context, in *ReformulateInput) (*Reformulation, error) {
	fallback := j.Fallback
	if fallback == nil {
		fallback = RuleReformulator{}
	}
	if j.Judge == nil {
		return fallback.Reformulate(ctx, in)
	}
	q := &judge.ReformulateQuery{Goal: in.Task.Goal, Policy: in.Policy, Executor: in.Executor}
	for _, c := range in.Task.Criteria {
		q.Criteria = append(q.Criteria, c.Text)
	}
	rep := in.Report
	for _, c := range rep.Criteria {
		if c.Status != vouch.CriterionMet {
			q.Findings = append(q.Findings, fmt.Sprintf("criterion %q %s: %s", c.Text, c.Status, c.Reason))
		}
	}
	for i := range rep.Checks {
		if c := &rep.Checks[i]; c.Status == vouch.StatusFail && c.Level != vouch.LevelCriteria {
			q.Findings = append(q.Findings, c.Name+": "+c.Reason)
		}
	}
	for _, g := range rep.Gaps {
		q.Findings = append(q.Findings, "gap: "+g)
	}
	if in.Output != nil {
		q.Output = in.Output.Summary
	}
	res, err := j.Judge.Reformulate(ctx, q)
	if err != nil {
		r, ferr := fallback.Reformulate(ctx, in)
		if ferr != nil {
			return nil, fmt.Errorf("loop: reformulate: judge: %v; fallback: %w", err, ferr)
		}
		r.Note = "the judge model gave no rewrite (" + fence.Line(err.Error(), 300) + "); rewritten by " + r.By
		return r, nil
	}
	return &Reformulation{Task: res.Goal, Steps: res.Steps, By: "judge " + res.Model, CostUSD: res.Cost.USD}, nil
}
