package engine

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/text/plural"
	"github.com/vouchgate/vouch/trace"
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
	var applicable, firm float64
	var completeness *float64
	decided := make(map[string]float64, 4)
	for _, d := range vouch.Dimensions(r.kind) {
		ds := r.dimension(d)
		dim := vouch.Dimension{State: ds.state, Weight: ds.weight}
		switch ds.state {
		case vouch.StateDecided:
			dim.Score = ptr(round(ds.score))
			decided[d] = ds.score
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
	score := vouch.Score(r.pol, r.kind, decided)
	rep.Score = score
	if applicable > 0 {
		rep.Confidence = round(firm / applicable)
	}
	if r.judged != nil {
		if c := r.judged.ConfidenceCap; c > 0 && rep.Confidence > c {
			// The executor judging itself: its word is worth little.
			rep.Confidence = c
		}
	}

	// The claim ledger.
	claims, refutedMust := r.ledger(rep.Checks, &rep.Mentions, rep.Criteria)
	rep.Claims = claims
	rep.Coverage = coverage(rep.Claims)

	// The verdict table.
	in := vouch.VerdictInputs{
		Score:        score,
		MustFailed:   r.mustFailed() || refutedMust,
		Refuted:      len(rep.Mentions.Refuted),
		Claims:       len(rep.Claims),
		Completeness: completeness,
		Gaps:         len(rep.Gaps),
		Confidence:   r.verifierConfidence(rep),
	}
	for _, c := range rep.Claims {
		if c.State == vouch.ClaimUnverified {
			in.Unverified++
		}
	}
	for _, c := range rep.Criteria {
		if c.Status != vouch.CriterionUndecided {
			in.Decided++
		}
	}
	// Besides written and inferred criteria, the checks of the kind's own
	// criteria dimension decide what the output was asked to be: a plan's
	// structure, whether a synthesis draws on its outputs, whether a
	// moderator's summary covers the discussion.
	critDim := vouch.CriteriaDimension(r.kind)
	for i := range rep.Checks {
		if c := &rep.Checks[i]; (c.Level == vouch.LevelCriteria || c.Dimension == critDim) && c.Status != vouch.StatusUndecided && !isCriterionCheck(c) {
			in.Decided++
		}
	}
	for _, c := range rep.Criteria {
		if c.Must && c.Status == vouch.CriterionUndecided {
			in.MustUndecided = true
			rep.Warnings = append(rep.Warnings, vouch.Warning{
				Code:    vouch.CodeMustUndecided,
				Message: fmt.Sprintf("must-pass criterion %s could not be decided: %s", c.ID, c.Reason),
				Details: map[string]any{"criterion": c.ID},
			})
		}
	}
	for _, w := range rep.Warnings {
		if w.Code == vouch.CodePromptInjection {
			in.Injection = true
		}
	}
	if in.Refuted > r.pol.MaxRefuted {
		rep.Warnings = append(rep.Warnings, vouch.Warning{Code: vouch.CodeTooManyRefuted,
			Message: refutedText(in.Refuted, r.pol.MaxRefuted),
			Details: map[string]any{"refuted": in.Refuted, "maxRefuted": r.pol.MaxRefuted}})
	}
	verdict, action, row := vouch.Decide(r.pol, rep.Attempt, in)
	rep.Verdict, rep.Action, rep.VerdictRow = verdict, action, row
	if score == nil || row == 6 && in.Claims == 0 && in.Decided == 0 {
		msg := "nothing in this request could be decided: no claim or criterion could be checked by rule, and no judge decided one"
		if failed := failedChecks(rep.Checks); len(failed) > 0 && score == nil {
			msg = fmt.Sprintf("nothing could be scored: %s failed but feeds no dimension of a %s checkpoint, and nothing else could be checked by rule or judge",
				checkNames(failed), r.kind)
		}
		if in.Claims > 0 && in.Unverified == in.Claims {
			msg = plural.Pick(in.Unverified, "nothing could be decided, and the claim stays unverified",
				fmt.Sprintf("nothing could be decided, and the %d claims stay unverified", in.Unverified))
		}
		rep.Warnings = append(rep.Warnings, vouch.Warning{Code: vouch.CodeNothingDecided, Message: msg})
	}
	if row == 6 {
		if in.Unverified > 0 {
			rep.Warnings = append(rep.Warnings, vouch.Warning{Code: vouch.CodeClaimsUnverified,
				Message: fmt.Sprintf("%d of %s could not be checked either way; nothing was found false", in.Unverified, plural.Count(in.Claims, "claim")),
				Details: map[string]any{"unverified": in.Unverified, "claims": in.Claims, "onUnverified": string(r.pol.OnUnverified)}})
		}
	}
	if verdict == vouch.VerdictFail && (row == 1 || row == 3) {
		rep.Warnings = append(rep.Warnings, vouch.Warning{Code: vouch.CodeLastAttempt,
			Message: fmt.Sprintf("attempt %d failed and the policy allows %s", rep.Attempt, plural.Count(r.pol.MaxRetries, "retry"))})
	}

	r.conclude(rep)

	// Review.
	rep.NeedsReview = action == vouch.ActionEscalate || rep.Confidence < r.pol.ReviewBelow || in.Injection
	if rep.Confidence < r.pol.ReviewBelow {
		rep.Warnings = append(rep.Warnings, vouch.Warning{Code: vouch.CodeLowConfidence,
			Message: fmt.Sprintf("confidence %s is below %s (reviewBelow): too little was decided, or on too weak evidence, for the verdict to stand without a person", pct(rep.Confidence), pct(r.pol.ReviewBelow)),
			Details: map[string]any{"confidence": rep.Confidence, "reviewBelow": r.pol.ReviewBelow}})
	}
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
	rep.Reason = verdictReason(rep, r.pol, row, in, r.isMust)
	rep.Feedback = feedback(rep, r.pol, row, in.MustFailed, r.isMust)
	fillEmpty(rep)
	return rep
}

// verifierConfidence is the verifier's confidence in what it decided, for
// the verdict table's choice between retry and reformulate: the mean
// confidence of the judge's decisions when the judge decided something
// (capped as the report's is), else the report's confidence.
func (r *run) verifierConfidence(rep *vouch.Report) *float64 {
	var sum float64
	n := 0
	for i := range rep.Checks {
		if c := &rep.Checks[i]; c.Level == vouch.LevelJudge && c.Status != vouch.StatusUndecided {
			sum += c.Confidence
			n++
		}
	}
	if n == 0 {
		return ptr(rep.Confidence)
	}
	c := round(sum / float64(n))
	if r.judged != nil && r.judged.ConfidenceCap > 0 && c > r.judged.ConfidenceCap {
		c = r.judged.ConfidenceCap
	}
	return ptr(c)
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
	if rep.Mentions.Refuted == nil {
		rep.Mentions.Refuted = []vouch.RefutedMention{}
	}
	if rep.Claims == nil {
		rep.Claims = []vouch.Claim{}
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

// verdictReason says in one sentence why the verdict is what it is, from
// the row of the verdict table that decided: the first must-pass check
// that failed or claim refuted, the score against the thresholds, what
// could not be decided.
func verdictReason(rep *vouch.Report, p *vouch.Policy, row int, in vouch.VerdictInputs, isMust func(*vouch.CheckResult) bool) string {
	failed := failedChecks(rep.Checks)
	firstFailed := func() string {
		if items := fixItems(rep, failed, isMust, false); len(items) > 0 {
			return items[0].name + " failed: " + items[0].reason
		}
		return ""
	}
	switch row {
	case 1:
		if in.MustFailed {
			for _, c := range failed {
				if isMust(c) {
					return fmt.Sprintf("must-pass check %s failed: %s", c.Name, c.Reason)
				}
			}
			for _, c := range rep.Criteria {
				if c.Must && c.Status == vouch.CriterionUnmet {
					return fmt.Sprintf("must-pass criterion %s is not met: %s", c.ID, c.Reason)
				}
			}
		}
		return refutedText(in.Refuted, p.MaxRefuted)
	case 2, 3:
		limit, name := p.FailBelow, "failBelow"
		if row == 3 {
			limit, name = p.PassAt, "passAt"
		}
		why := fmt.Sprintf("score %s is below %s (%s)", pct(*in.Score), pct(limit), name)
		if f := firstFailed(); f != "" {
			why += "; " + f
		}
		return why
	case 4:
		for _, c := range rep.Criteria {
			if c.Must && c.Status == vouch.CriterionUndecided {
				return fmt.Sprintf("must-pass criterion %s could not be decided: %s", c.ID, c.Reason)
			}
		}
	case 5:
		return "the output contains instructions aimed at its verifier"
	case 6:
		if in.Unverified > 0 {
			for _, c := range rep.Claims {
				if c.State == vouch.ClaimUnverified {
					more := ""
					if in.Unverified > 1 {
						more = fmt.Sprintf(" (and %d more)", in.Unverified-1)
					}
					return fmt.Sprintf("%d of %s could not be checked, and nothing was found false: %q is unverified: %s%s",
						in.Unverified, plural.Count(in.Claims, "claim"), trace.Excerpt(c.Text, 120), c.Reason, more)
				}
			}
		}
		if why := firstUndecided(rep); why != "" {
			return "nothing could be decided: " + why
		}
		if in.Claims == 0 && in.Score != nil {
			return "the output makes no claim that could be checked, and no criterion was decided"
		}
		return "nothing could be decided: nothing in this request could be checked by rule, and no judge decided it"
	}
	switch {
	case rep.Action == vouch.ActionFollowUp:
		return fmt.Sprintf("score %s reaches %s (passAt), with gaps to follow up: completeness is below 0.60", pct(*in.Score), pct(p.PassAt))
	case in.Claims > 0:
		return fmt.Sprintf("every claim (%d) was checked and holds, and score %s reaches %s (passAt)", in.Claims, pct(*in.Score), pct(p.PassAt))
	}
	return fmt.Sprintf("score %s reaches %s (passAt), and no must-pass check failed or stayed undecided", pct(*in.Score), pct(p.PassAt))
}

// isCriterionCheck reports a check that decides a written criterion: its
// criterion result is counted instead.
func isCriterionCheck(c *vouch.CheckResult) bool { return c.Evidence["criterion"] != nil }

// firstUndecided returns the reason of the first check or criterion that
// stayed undecided, "" when none did.
func firstUndecided(rep *vouch.Report) string {
	for _, c := range rep.Checks {
		if c.Status == vouch.StatusUndecided && c.Reason != "" {
			return c.Name + ": " + c.Reason
		}
	}
	for _, c := range rep.Criteria {
		if c.Status == vouch.CriterionUndecided && c.Reason != "" {
			return "criterion " + c.ID + ": " + c.Reason
		}
	}
	return ""
}

// feedback writes the text an orchestrator appends to the agent's next
// prompt. It is for the agent: one line per thing to fix, most important
// first (must-pass checks, then strict, light and judged ones), lines
// about the same symbols or file merged into one, in plain sentences;
// from the second attempt on, the exact lines, symbols or files to fix.
// What the agent cannot change (a criterion no rule or judge could
// decide, a check that could not run) is said to be a reviewer's to
// decide.
func feedback(rep *vouch.Report, p *vouch.Policy, row int, mustFailed bool, isMust func(*vouch.CheckResult) bool) string {
	if rep.Verdict == vouch.VerdictPass && rep.Action == vouch.ActionAccept {
		return ""
	}
	var b strings.Builder
	if rep.Verdict == vouch.VerdictPass {
		b.WriteString("Your output was accepted, with gaps to follow up:\n")
		for _, g := range rep.Gaps {
			fmt.Fprintf(&b, "- %s\n", g)
		}
		return strings.TrimRight(b.String(), "\n")
	}
	if row == 6 {
		return unverifiedFeedback(rep)
	}
	listMentions := len(rep.Mentions.Refuted) > p.MaxRefuted
	items := fixItems(rep, failedChecks(rep.Checks), isMust, listMentions)
	fmt.Fprintf(&b, "Your output was not accepted (%s: ", rep.Verdict)
	switch {
	case row == 1 && mustFailed:
		b.WriteString("a must-pass check failed")
	case row == 1:
		fmt.Fprintf(&b, "%d of the things it names %s not where it says", len(rep.Mentions.Refuted), plural.Pick(len(rep.Mentions.Refuted), "is", "are"))
	case row == 4:
		b.WriteString("a must-pass criterion could not be checked")
	case row == 5:
		b.WriteString("it contains instructions aimed at its verifier")
	default:
		fmt.Fprintf(&b, "score %s, %s needed", pct(*rep.Score), pct(p.PassAt))
	}
	b.WriteString(").")
	specific := rep.Attempt >= 2
	if len(items) > 0 {
		b.WriteString("\nDo the following, most important first:")
		for _, it := range items {
			fmt.Fprintf(&b, "\n- %s", it.text())
			if specific && len(it.fix) > 0 {
				b.WriteString("\n  Exactly these: ")
				b.WriteString(strings.Join(it.fix, "; "))
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
		judgeOut := rep.Judge == nil
		for _, w := range rep.Warnings {
			switch w.Code {
			case vouch.CodeNoJudge, vouch.CodeJudgeFailed, vouch.CodeJudgeBypassed, vouch.CodeJudgeBudget:
				judgeOut = true
			}
		}
		if judgeOut {
			fmt.Fprintf(&b, "\nNo rule or judge could check the must-pass criteria %s, so a reviewer decides them; there is nothing for you to change for them.", strings.Join(unchecked, ", "))
		} else {
			fmt.Fprintf(&b, "\nMust-pass criteria that could not be checked: %s. State plainly how each is met.", strings.Join(unchecked, ", "))
		}
	}
	if len(rep.Suggestions) > 0 {
		b.WriteString("\nSuggestions:")
		for _, sg := range rep.Suggestions {
			fmt.Fprintf(&b, "\n- %s", sg)
		}
	}
	if listMentions {
		b.WriteString("\nThe evidence contradicts these mentions; remove them or correct them:")
		for _, m := range rep.Mentions.Refuted {
			fmt.Fprintf(&b, "\n- %s %q (%s)", m.Kind, m.Text, m.Evidence)
		}
	}
	if specific && len(items) > 0 {
		b.WriteString("\nThis is a repeated attempt: fix exactly the items above and do not claim work you have not done.")
	}
	return b.String()
}

// reviewerCodes are the reasons a check stays undecided that are on
// vouch's side, or the orchestrator's, not the agent's: nothing the agent
// writes would decide it.
var reviewerCodes = map[string]bool{
	vouch.CodeCheckPanicked: true, vouch.CodeCheckUnavailable: true, vouch.CodeCheckCancelled: true,
	vouch.CodeNoWorkspace: true, vouch.CodeGitUnavailable: true, vouch.CodeCommandNotAllowed: true,
	vouch.CodeCommandTimedOut: true, vouch.CodeCommandKilled: true, vouch.CodeSymbolUnresolved: true,
	vouch.CodeCountUndecided: true, vouch.CodeNoSymbols: true, vouch.CodeInputTooLarge: true,
	vouch.CodeNoJudge: true, vouch.CodeJudgeFailed: true, vouch.CodeJudgeBypassed: true,
	vouch.CodeJudgeBudget: true, vouch.CodeAnalyzerFailed: true,
}

// unverifiedFeedback is the feedback of an unverified verdict (row 6): the
// claims nothing could check, put to the agent as a question, for the
// orchestrator to ask when the policy's onUnverified says so; empty when
// the output is simply accepted as unverified. Nothing in it asks the agent
// to change its work: nothing was found false.
func unverifiedFeedback(rep *vouch.Report) string {
	if rep.Action == vouch.ActionAccept {
		return ""
	}
	var open []vouch.Claim
	for _, c := range rep.Claims {
		if c.State == vouch.ClaimUnverified {
			open = append(open, c)
		}
	}
	if len(open) == 0 {
		return nothingCheckable(rep)
	}
	var b strings.Builder
	b.WriteString("Nothing in your output was found false, but these claims could not be checked against the evidence:")
	const most = 10
	for i, c := range open {
		if i == most {
			fmt.Fprintf(&b, "\n- … and %d more", len(open)-most)
			break
		}
		fmt.Fprintf(&b, "\n- %q (%s)", trace.Excerpt(c.Text, 160), c.Reason)
	}
	b.WriteString("\nFor each, show how it can be checked (the command that shows it and what it printed, the file and lines), or withdraw it. Do not repeat work that was already done.")
	return b.String()
}

// nothingCheckable is the feedback when nothing could be decided and no
// check failed: the reason on vouch's side when there is one (a reviewer
// decides), else what the agent could add to make its output checkable.
func nothingCheckable(rep *vouch.Report) string {
	for _, c := range rep.Checks {
		if c.Status == vouch.StatusUndecided && reviewerCodes[c.Code] {
			return fmt.Sprintf("Your output could not be verified, for a reason on the verifier's side: %s. A reviewer decides; there is nothing for you to change for this.", c.Reason)
		}
	}
	for _, w := range rep.Warnings {
		if reviewerCodes[w.Code] {
			return fmt.Sprintf("Your output could not be verified, for a reason on the verifier's side: %s. A reviewer decides; there is nothing for you to change for this.", w.Message)
		}
	}
	return "Your output could not be verified: it gives nothing that can be checked. If your work changed files or ran commands, " +
		"list the files you created, modified or deleted and the commands you ran with their results, and name the files or sources " +
		"your answer rests on; otherwise a reviewer decides, and there is nothing for you to change."
}

// fixItem is one line of feedback: the most important failed check about
// some symbols or a file, with the others about the same ones merged in.
type fixItem struct {
	name    string // the primary check's name
	code    string // the primary check's code
	reason  string
	also    []string // reasons of merged checks that add something
	like    []int    // for each of also, how many more checks of its name were merged
	more    int      // how many more checks of the primary's name were merged
	names   []string // the check name of each of also
	fix     []string
	targets map[string]bool
}

func (it *fixItem) text() string {
	do, ok := instructions[it.code]
	if !ok {
		do = "Fix this"
	}
	s := sentence(do + ": " + strings.TrimSpace(it.reason))
	if it.more > 0 {
		s = strings.TrimSuffix(s, ".") + fmt.Sprintf(" (and %d more like it).", it.more)
	}
	for i, a := range it.also {
		s = strings.TrimSuffix(s, ".") + "; also, " + strings.TrimSuffix(strings.TrimSpace(a), ".")
		if n := it.like[i]; n > 0 {
			s += fmt.Sprintf(" (and %d more like it)", n)
		}
		s += "."
	}
	return s
}

// absorb merges the line o into it.
func (it *fixItem) absorb(o *fixItem) {
	maps.Copy(it.targets, o.targets)
	for _, f := range o.fix {
		if !slices.Contains(it.fix, f) {
			it.fix = append(it.fix, f)
		}
	}
	it.also = append(it.also, o.reason)
	it.like = append(it.like, o.more)
	it.names = append(it.names, o.name)
	it.also = append(it.also, o.also...)
	it.like = append(it.like, o.like...)
	it.names = append(it.names, o.names...)
}

// says reports whether the line already names s.
func (it *fixItem) says(s string) bool {
	if strings.Contains(it.reason, s) {
		return true
	}
	for _, a := range it.also {
		if strings.Contains(a, s) {
			return true
		}
	}
	return false
}

// sentence returns s with a capital first letter and a final period.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	// A plain word is capitalised; a name ("output.summary", "src/a.ts",
	// "parseArgs") is left as written.
	first, _, _ := strings.Cut(s, " ")
	plain := true
	for _, c := range first {
		plain = plain && unicode.IsLower(c)
	}
	if plain {
		r, n := utf8.DecodeRuneInString(s)
		s = string(unicode.ToUpper(r)) + s[n:]
	}
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "?") && !strings.HasSuffix(s, "!") {
		s += "."
	}
	return s
}

// refutedText says that more mentions are refuted than the policy allows.
func refutedText(refuted, most int) string {
	return fmt.Sprintf("%s %s refuted by the evidence, more than the %d the policy allows", plural.Count(refuted, "mention"), plural.Pick(refuted, "is", "are"), most)
}

// checkCode is a check's code: its own, or its evidence's.
func checkCode(c *vouch.CheckResult) string {
	if c.Code != "" {
		return c.Code
	}
	s, _ := c.Evidence["code"].(string)
	return s
}

// instructions say what the agent is to do about a failed check of each
// code, before the finding that says why: feedback is written to the
// agent, as instructions. A code not listed gets "Fix this".
var instructions = map[string]string{
	vouch.CodeTextMissing:           "Add what the task requires",
	vouch.CodeTextPresent:           "Remove what the task forbids",
	vouch.CodeNegatedMatch:          "Remove what the task forbids",
	vouch.CodePatternNotFound:       "Write what the task's pattern asks for",
	vouch.CodeCELFalse:              "Meet the criterion",
	vouch.CodeSectionMissing:        "Add the missing sections",
	vouch.CodeLengthOutOfRange:      "Bring the length within the limits",
	vouch.CodeJSONInvalid:           "Write valid JSON",
	vouch.CodeSchemaViolation:       "Make the data fit its schema",
	vouch.CodeTargetMissing:         "Create the file the task names",
	vouch.CodeToolNotCalled:         "Call the tool the task requires",
	vouch.CodeCommandFailed:         "Make the command succeed",
	vouch.CodeCountMismatch:         "Do the rest of the work, or claim only what you did",
	vouch.CodeDocMissing:            "Add the missing doc comments",
	vouch.CodeFileMissing:           "Create the file, or stop claiming it",
	vouch.CodeFileNotDeleted:        "Delete the file, or stop claiming you did",
	vouch.CodeNoChange:              "Make the change, or stop claiming it",
	vouch.CodeRegionUnchanged:       "Claim only the lines you changed",
	vouch.CodeRegionOutsideFile:     "Claim only lines the file has",
	vouch.CodeLinesMismatch:         "Report the file as it is",
	vouch.CodeSizeMismatch:          "Report the file as it is",
	vouch.CodePathOutsideWorkspace:  "Work inside the workspace",
	vouch.CodeSymbolMissing:         "Define the symbol, or stop claiming it",
	vouch.CodeSymbolUnchanged:       "Change the code you say you changed, or stop claiming it",
	vouch.CodeSymbolStillDefined:    "Remove it, or stop claiming you did",
	vouch.CodeRenameNotDone:         "Do the rename, or stop claiming it",
	vouch.CodeBehaviourChanged:      "Keep the behaviour, or say that it changed",
	vouch.CodeTestClaimContradicted: "Make the tests pass, or report that they fail",
	vouch.CodeTestStale:             "Run the tests again after your last change",
	vouch.CodeTestNotRun:            "Run the tests, or stop claiming they pass",
	vouch.CodeGitClaimContradicted:  "Report what git shows",
	vouch.CodeVerifyContradicted:    "Report what the run showed",
	vouch.CodeMentionsRefuted:       "Remove or correct what the evidence contradicts",
	vouch.CodeSourceContradicted:    "Say what the sources say",
	vouch.CodeUnsupportedClaim:      "Say only what the outputs support",
	vouch.CodeJudgeRefuted:          "Correct the claim",
	vouch.CodeContradiction:         "Settle the contradiction",
	vouch.CodeOutputUnused:          "Draw on every output with findings",
	vouch.CodePointDropped:          "Add the dropped points",
	vouch.CodeSummaryTruncated:      "Finish the summary",
	vouch.CodeFormatInvalid:         "Fix the format of your result",
	vouch.CodeItemsMismatch:         "Report the items as they are",
	vouch.CodePluginError:           "Deal with the plugin's error",
	vouch.CodeEmptySummary:          "Write a summary",
	vouch.CodeErrorWords:            "Deal with the failure you report",
	vouch.CodeSubgoalUnknown:        "Fix the plan",
	vouch.CodeDependencyCycle:       "Fix the plan",
	vouch.CodeParallelDependency:    "Fix the plan",
	vouch.CodeAgentUnknown:          "Fix the plan",
	vouch.CodeAgentIncapable:        "Fix the plan",
	vouch.CodeTopicUncovered:        "Fix the plan",
}

// fixHead is what a fix entry names: "tokenize" in "tokenize
// (src/parser.ts:3)".
func fixHead(f string) string {
	h, _, _ := strings.Cut(f, " (")
	return strings.TrimSpace(h)
}

// fixItems orders the failed checks by importance (must-pass first, then
// strict, light, judge; report order within) and merges those about the
// same symbols or file (what their fixes name, their evidence's file) into
// one line. A merged check whose fixes the line already names says the
// same thing again and is dropped; one that adds something is appended,
// and further checks of the same name are counted, not repeated. With
// skipMentions, the check on unverified mentions is left to the list of
// mentions.
func fixItems(rep *vouch.Report, failed []*vouch.CheckResult, isMust func(*vouch.CheckResult) bool, skipMentions bool) []*fixItem {
	rank := func(c *vouch.CheckResult) int {
		switch {
		case isMust(c):
			return 0
		case c.Strength == vouch.StrengthStrict:
			return 1
		case c.Strength == vouch.StrengthLight:
			return 2
		}
		return 3
	}
	ordered := append([]*vouch.CheckResult(nil), failed...)
	sort.SliceStable(ordered, func(i, j int) bool { return rank(ordered[i]) < rank(ordered[j]) })
	var items []*fixItem
	for _, c := range ordered {
		if skipMentions && c.Code == vouch.CodeMentionsRefuted {
			continue
		}
		var heads []string
		targets := map[string]bool{}
		for _, f := range c.Fix {
			if h := fixHead(f); h != "" && !strings.HasPrefix(h, "…") {
				heads = append(heads, h)
				targets[h] = true
			}
		}
		for _, k := range []string{"file", "path"} {
			if v, ok := c.Evidence[k].(string); ok && v != "" {
				targets[v] = true
			}
		}
		// The lines about any of the same targets; when the check bridges
		// several (a doc check naming the symbols of one line and the file
		// of another), they become one.
		var into *fixItem
		kept := items[:0:0]
		for _, it := range items {
			shared := false
			for t := range targets {
				shared = shared || it.targets[t]
			}
			switch {
			case !shared:
				kept = append(kept, it)
			case into == nil:
				into = it
				kept = append(kept, it)
			default:
				into.absorb(it)
			}
		}
		items = kept
		if into == nil {
			items = append(items, &fixItem{name: c.Name, code: checkCode(c), reason: c.Reason, fix: append([]string(nil), c.Fix...), targets: targets})
			continue
		}
		maps.Copy(into.targets, targets)
		for _, f := range c.Fix {
			if !slices.Contains(into.fix, f) {
				into.fix = append(into.fix, f)
			}
		}
		news := len(heads) == 0
		for _, h := range heads {
			news = news || !into.says(h)
		}
		switch {
		case !news || c.Reason == into.reason:
		case c.Name == into.name:
			into.more++ // another check of the primary's kind
		default:
			if i := slices.Index(into.names, c.Name); i >= 0 {
				into.like[i]++
				continue
			}
			into.also = append(into.also, c.Reason)
			into.like = append(into.like, 0)
			into.names = append(into.names, c.Name)
		}
	}
	return items
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

// checkNames lists the names of checks: "a, b and c".
func checkNames(cs []*vouch.CheckResult) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
