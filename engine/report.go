package engine

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/vouchgate/vouch"
)

// report assembles the report: dimensions, score, confidence, verdict,
// review flag and feedback.
func (r *run) report() *vouch.Report {
	req := r.req
	rep := &vouch.Report{
		APIVersion:  vouch.APIVersion,
		ID:          req.ID,
		Kind:        r.kind,
		Attempt:     req.EffectiveAttempt(),
		Dimensions:  make(map[string]vouch.Dimension, 4),
		Criteria:    append(r.crits, r.f.Criteria...),
		Checks:      r.f.Checks,
		Mentions:    r.f.Mentions,
		Warnings:    r.f.Warnings,
		Gaps:        dedupe(append(append([]string(nil), r.f.Gaps...), selfGaps(req)...)),
		Issues:      append([]string(nil), r.f.Issues...),
		Suggestions: r.f.Suggestions,
		AnswerChars: utf8.RuneCountInString(req.Output.Summary),
	}
	for i := range rep.Checks {
		c := &rep.Checks[i]
		if c.Code != "" && c.Evidence["code"] == nil {
			c.Evidence = withCode(c.Evidence, c.Code, "")
		}
		c.Confidence = round(c.Confidence)
	}

	// Dimensions, score and confidence.
	var wDecided, sum, applicable, firm float64
	var completeness *float64
	for _, d := range vouch.Dimensions(r.kind) {
		ds := r.dimension(d)
		dim := vouch.Dimension{State: ds.state, Weight: ds.weight}
		switch ds.state {
		case vouch.StateDecided:
			dim.Score = ptr(round(ds.score))
			wDecided += ds.weight
			sum += ds.weight * ds.score
			firm += ds.weight * ds.strength
			applicable += ds.weight
			if d == vouch.DimCompleteness {
				completeness = ptr(ds.score)
			}
		case vouch.StateUndecided:
			applicable += ds.weight
		}
		rep.Dimensions[d] = dim
	}
	var score *float64
	if wDecided > 0 {
		score = ptr(round(sum / wDecided))
	}
	rep.Score = score
	if applicable > 0 {
		rep.Confidence = round(firm / applicable)
	}

	// The verdict table.
	in := verdictInputs{
		score:        score,
		mustFailed:   r.mustFailed(),
		unverified:   len(rep.Mentions.Unverified),
		completeness: completeness,
		gaps:         len(rep.Gaps),
	}
	for _, c := range rep.Criteria {
		if c.Must && c.Status == vouch.CriterionUndecided {
			in.mustUndecided = true
			rep.Warnings = append(rep.Warnings, vouch.Warning{
				Code:    vouch.CodeMustUndecided,
				Message: fmt.Sprintf("must-pass criterion %s could not be decided: %s", c.ID, c.Reason),
				Details: map[string]any{"criterion": c.ID},
			})
		}
	}
	for _, w := range rep.Warnings {
		if w.Code == vouch.CodePromptInjection {
			in.injection = true
		}
	}
	if score == nil {
		rep.Warnings = append(rep.Warnings, vouch.Warning{Code: vouch.CodeNothingDecided,
			Message: "no dimension could be decided: nothing in this request could be checked by rule, and no judge decided it"})
	}
	if in.unverified > r.pol.MaxUnverified {
		rep.Warnings = append(rep.Warnings, vouch.Warning{Code: vouch.CodeTooManyUnverified,
			Message: fmt.Sprintf("%d mentions are unverified, more than the %d the policy allows", in.unverified, r.pol.MaxUnverified),
			Details: map[string]any{"unverified": in.unverified, "maxUnverified": r.pol.MaxUnverified}})
	}
	verdict, action, row := decide(r.pol, rep.Attempt, in)
	rep.Verdict, rep.Action = verdict, action
	if verdict == vouch.VerdictFail && (row == 2 || row == 4) {
		rep.Warnings = append(rep.Warnings, vouch.Warning{Code: vouch.CodeLastAttempt,
			Message: fmt.Sprintf("attempt %d failed and the policy allows %d retries", rep.Attempt, r.pol.MaxRetries)})
	}

	r.conclude(rep)

	// Review.
	rep.NeedsReview = action == vouch.ActionEscalate || rep.Confidence < r.pol.ReviewBelow || in.injection
	for i := range rep.Checks {
		// A must-pass item that only a judge decided, without much
		// confidence, is a person's to confirm.
		if c := &rep.Checks[i]; c.Must && c.Level == vouch.LevelJudge && c.Status != vouch.StatusUndecided && c.Confidence < r.pol.ReviewBelow {
			rep.NeedsReview = true
		}
	}
	if r.judged != nil {
		info := r.judged.Info
		rep.Judge = &info
		rep.Cost = r.judged.Cost
		if c := r.judged.ConfidenceCap; c > 0 && rep.Confidence > c {
			// The executor judging itself: its word is worth little.
			rep.Confidence = c
			rep.NeedsReview = rep.NeedsReview || rep.Confidence < r.pol.ReviewBelow
		}
		if info.Agreement != nil && 1-*info.Agreement > r.pol.Judge.MaxDisagreement {
			rep.NeedsReview = true
			rep.Warnings = append(rep.Warnings, vouch.Warning{Code: vouch.CodeJudgeDisagree,
				Message: fmt.Sprintf("judge agreement %.2f is below the policy's limit", *info.Agreement)})
		}
	}
	if r.judged == nil && r.judgeSpent != nil {
		info := r.judgeSpent.Info
		rep.Judge = &info
		rep.Cost = r.judgeSpent.Cost
	}
	if ex := req.Task.Executor; ex != nil && ex.CostUSD != nil && *ex.CostUSD > 0 {
		rep.Cost.TaskCostRatio = ptr(rep.Cost.USD / *ex.CostUSD)
	}

	// Issues and feedback.
	for i := range rep.Checks {
		c := &rep.Checks[i]
		if c.Status == vouch.StatusFail {
			rep.Issues = append(rep.Issues, c.Name+": "+c.Reason)
		}
	}
	rep.Issues = dedupe(rep.Issues)
	rep.Feedback = feedback(rep, r.pol, row, in.mustFailed)
	fillEmpty(rep)
	return rep
}

// selfGaps returns the gaps the agent admitted. An admitted gap is not a
// self-serving claim, so it is reported (and can steer a follow-up).
func selfGaps(req *vouch.Request) []string {
	if sa := req.Output.SelfAssessment; sa != nil {
		return sa.Gaps
	}
	return nil
}

func dedupe(s []string) []string {
	if len(s) < 2 {
		return s
	}
	seen := make(map[string]bool, len(s))
	out := s[:0]
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// fillEmpty makes every list of the report a list, never null, so that
// readers in any language can iterate without a nil check.
func fillEmpty(rep *vouch.Report) {
	if rep.Criteria == nil {
		rep.Criteria = []vouch.CriterionResult{}
	}
	if rep.Checks == nil {
		rep.Checks = []vouch.CheckResult{}
	}
	for i := range rep.Checks {
		if rep.Checks[i].Evidence == nil {
			rep.Checks[i].Evidence = map[string]any{}
		}
	}
	if rep.Mentions.Verified == nil {
		rep.Mentions.Verified = []vouch.VerifiedMention{}
	}
	if rep.Mentions.Unverified == nil {
		rep.Mentions.Unverified = []vouch.UnverifiedMention{}
	}
	if rep.Gaps == nil {
		rep.Gaps = []string{}
	}
	if rep.Issues == nil {
		rep.Issues = []string{}
	}
	if rep.Suggestions == nil {
		rep.Suggestions = []string{}
	}
	if rep.Warnings == nil {
		rep.Warnings = []vouch.Warning{}
	}
}

// feedback writes the text an orchestrator appends to the agent's next
// prompt: each failed check with its evidence, what could not be checked,
// and, from the second attempt on, the exact things to fix.
func feedback(rep *vouch.Report, p *vouch.Policy, row int, mustFailed bool) string {
	if rep.Verdict == vouch.VerdictPass && rep.Action == vouch.ActionAccept {
		return ""
	}
	var b strings.Builder
	switch {
	case rep.Verdict == vouch.VerdictPass:
		b.WriteString("Your output was accepted, with gaps to follow up:\n")
		for _, g := range rep.Gaps {
			fmt.Fprintf(&b, "- %s\n", g)
		}
		return strings.TrimRight(b.String(), "\n")
	case row == 1:
		b.WriteString("Your output could not be verified: nothing in it could be checked.")
	default:
		fmt.Fprintf(&b, "Your output was not accepted (%s: ", rep.Verdict)
		switch {
		case row == 2 && mustFailed:
			b.WriteString("a must-pass check failed")
		case row == 2:
			fmt.Fprintf(&b, "%d mentions could not be verified", len(rep.Mentions.Unverified))
		case row == 5:
			b.WriteString("a must-pass criterion could not be checked")
		case row == 6:
			b.WriteString("it contains instructions aimed at its verifier")
		default:
			fmt.Fprintf(&b, "score %s, %s needed", pct(*rep.Score), pct(p.PassAt))
		}
		b.WriteString(").")
	}
	specific := rep.Attempt >= 2
	failed := failedChecks(rep.Checks)
	if len(failed) > 0 {
		b.WriteString("\nFix the following:")
		for _, c := range failed {
			fmt.Fprintf(&b, "\n- %s", c.Name)
			if c.Code != "" {
				fmt.Fprintf(&b, " [%s]", c.Code)
			}
			fmt.Fprintf(&b, ": %s", c.Reason)
			if ev := evidenceText(c.Evidence); ev != "" {
				fmt.Fprintf(&b, " (%s)", ev)
			}
			if specific && len(c.Fix) > 0 {
				b.WriteString("\n  Exactly these: ")
				b.WriteString(strings.Join(c.Fix, "; "))
			}
		}
	}
	var unchecked []string
	for _, c := range rep.Criteria {
		if c.Must && c.Status == vouch.CriterionUndecided {
			unchecked = append(unchecked, c.ID)
		}
	}
	if len(unchecked) > 0 {
		fmt.Fprintf(&b, "\nMust-pass criteria that could not be checked: %s. State plainly how each is met.", strings.Join(unchecked, ", "))
	}
	if len(rep.Suggestions) > 0 {
		b.WriteString("\nSuggestions:")
		for _, sg := range rep.Suggestions {
			fmt.Fprintf(&b, "\n- %s", sg)
		}
	}
	if n := len(rep.Mentions.Unverified); n > p.MaxUnverified {
		b.WriteString("\nThese mentions were not found in anything you read or wrote; remove them or show where they come from:")
		for _, m := range rep.Mentions.Unverified {
			fmt.Fprintf(&b, "\n- %s %q", m.Kind, m.Text)
		}
	}
	if specific && len(failed) > 0 {
		b.WriteString("\nThis is a repeated attempt: fix exactly the items above and do not claim work you have not done.")
	}
	return b.String()
}

func failedChecks(checks []vouch.CheckResult) []*vouch.CheckResult {
	var out []*vouch.CheckResult
	for i := range checks {
		if checks[i].Status == vouch.StatusFail {
			out = append(out, &checks[i])
		}
	}
	return out
}

// evidenceText renders the small scalar and list values of evidence as
// "key=value" pairs, skipping bookkeeping keys.
func evidenceText(ev map[string]any) string {
	keys := make([]string, 0, len(ev))
	for k := range ev {
		switch k {
		case "code", "criterion", "stack":
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		switch v := ev[k].(type) {
		case string:
			if len(v) > 80 {
				v = v[:77] + "..."
			}
			parts = append(parts, fmt.Sprintf("%s=%q", k, v))
		case bool, int, int64, float64:
			parts = append(parts, fmt.Sprintf("%s=%v", k, v))
		case []string:
			if len(v) <= 8 {
				parts = append(parts, fmt.Sprintf("%s=[%s]", k, strings.Join(v, ", ")))
			}
		}
	}
	return strings.Join(parts, ", ")
}
