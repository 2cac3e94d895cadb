package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/text/plural"
	"github.com/vouchgate/vouch/trace"
)

const (
	ansiReset  = "\033[0m"
	ansiBold   = "\033[1m"
	ansiRed    = "\033[31m"
	ansiGreen  = "\033[32m"
	ansiYellow = "\033[33m"
	ansiDim    = "\033[2m"
	ansiBlue   = "\033[34m"
)

// render writes a report for a person: the verdict first, then the claim
// ledger (each claim with its state and the evidence), the dimensions,
// the failed and undecided checks with their evidence, the warnings and
// the feedback.
func render(w io.Writer, rep *vouch.Report, color bool) {
	mk := marksFor(color)
	paint := func(code, s string) string {
		if !color {
			return s
		}
		return code + s + ansiReset
	}
	vc := ansiGreen
	switch rep.Verdict {
	case vouch.VerdictRetry:
		vc = ansiYellow
	case vouch.VerdictFail:
		vc = ansiRed
	case vouch.VerdictUnverified:
		vc = ansiBlue
	}
	score := "n/a"
	if rep.Score != nil {
		score = fmt.Sprintf("%.2f", *rep.Score)
	}
	fmt.Fprintf(w, "%s  action %s  score %s  confidence %.2f", paint(ansiBold+vc, strings.ToUpper(string(rep.Verdict))), rep.Action, score, rep.Confidence)
	if rep.NeedsReview {
		fmt.Fprint(w, "  "+paint(ansiYellow, "needs review"))
	}
	if why := verdictWhy(rep); why != "" {
		fmt.Fprintf(w, "  — %s", why)
	}
	fmt.Fprintf(w, "\n%s\n", paint(ansiDim, fmt.Sprintf("%s  kind %s  attempt %d  %.2fms", rep.ID, rep.Kind, rep.Attempt, rep.DurationMs)))

	if len(rep.Claims) > 0 {
		n := map[vouch.ClaimState]int{}
		for _, c := range rep.Claims {
			n[c.State]++
		}
		fmt.Fprintf(w, "\nClaims: %d verified, %d refuted, %d unverified", n[vouch.ClaimVerified], n[vouch.ClaimRefuted], n[vouch.ClaimUnverified])
		if rep.Coverage != nil {
			fmt.Fprintf(w, " (coverage %.2f)", *rep.Coverage)
		}
		fmt.Fprintln(w)
		for _, c := range rep.Claims {
			mark, col := mk.ok, ansiGreen
			switch c.State {
			case vouch.ClaimRefuted:
				mark, col = mk.bad, ansiRed
			case vouch.ClaimUnverified:
				mark, col = mk.open, ansiBlue
			}
			text := c.Text
			if c.Source != vouch.SourceSummary {
				text = c.Source + ": " + text
			}
			fmt.Fprintf(w, "  %s %-10s %s\n", paint(col, padMark(mark)), c.Kind, clipLine(text, 160))
			if c.Reason != "" {
				fmt.Fprintf(w, "     %s\n", paint(ansiDim, clipLine(c.Reason, 240)))
			}
		}
	}

	fmt.Fprintln(w, "\nDimensions:")
	for _, d := range vouch.Dimensions(rep.Kind) {
		dim, ok := rep.Dimensions[d]
		if !ok {
			continue
		}
		s := "   -"
		if dim.Score != nil {
			s = fmt.Sprintf("%.2f", *dim.Score)
		}
		fmt.Fprintf(w, "  %-13s %s  %-14s weight %.2f\n", d, s, dim.State, dim.Weight)
	}

	// The counts line counts what the lines below show: the failed and
	// undecided checks, and the undecided criteria no check stands for.
	var failed, undecided []vouch.CheckResult
	var pending []vouch.CriterionResult
	passed := 0
	for _, c := range rep.Checks {
		switch c.Status {
		case vouch.StatusFail:
			failed = append(failed, c)
		case vouch.StatusUndecided:
			undecided = append(undecided, c)
		default:
			passed++
		}
	}
	for _, c := range rep.Criteria {
		if c.Status == vouch.CriterionUndecided && !hasCheckFor(rep.Checks, c.ID) {
			pending = append(pending, c)
		}
	}
	fmt.Fprintf(w, "\nChecks: %d passed, %d failed, %d undecided\n", passed, len(failed), len(undecided)+len(pending))
	for _, c := range failed {
		fmt.Fprintf(w, "  %s %s%s: %s\n", paint(ansiRed, padMark(mk.bad)), c.Name, codeSuffix(c, ""), c.Reason)
		writeEvidence(w, c.Evidence)
	}
	// An undecided check's code says why nothing was decided, not what
	// failed: the line says so.
	for _, c := range undecided {
		fmt.Fprintf(w, "  %s %s%s: %s\n", paint(ansiYellow, padMark(mk.open)), c.Name, codeSuffix(c, "undecided"), c.Reason)
	}
	for _, c := range pending {
		fmt.Fprintf(w, "  %s criterion %s (undecided): %s\n", paint(ansiYellow, padMark(mk.open)), c.ID, c.Reason)
	}
	if len(rep.Mentions.Refuted) > 0 {
		fmt.Fprintln(w, "\nRefuted mentions:")
		for _, m := range rep.Mentions.Refuted {
			fmt.Fprintf(w, "  %s %q (%s) in: %s\n", m.Kind, m.Text, m.Evidence, m.Sentence)
		}
	}
	if len(rep.Mentions.Unverified) > 0 {
		fmt.Fprintln(w, "\nUnverified mentions:")
		for _, m := range rep.Mentions.Unverified {
			fmt.Fprintf(w, "  %s %q in: %s\n", m.Kind, m.Text, m.Sentence)
		}
	}
	if j := rep.Judge; j != nil {
		fmt.Fprintf(w, "\nJudge: %s (%s, %s", strings.Join(j.Models, ", "), j.Mode, plural.Count(j.Samples, "sample"))
		if j.Agreement != nil {
			fmt.Fprintf(w, ", agreement %.2f", *j.Agreement)
		}
		c := rep.Cost
		fmt.Fprintf(w, "): %s, %d cached, %d+%d tokens, $%.4f\n", plural.Count(c.JudgeCalls, "call"), c.CacheHits, c.InputTokens, c.OutputTokens, c.USD)
	}
	if len(rep.Warnings) > 0 {
		fmt.Fprintln(w, "\nWarnings:")
		for _, wn := range rep.Warnings {
			fmt.Fprintf(w, "  %s %s\n", paint(ansiYellow, wn.Code), wn.Message)
		}
	}
	if rep.Feedback != "" {
		fmt.Fprintln(w, "\nFeedback:")
		for _, line := range strings.Split(rep.Feedback, "\n") {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
}

// clipLine puts s on one line of at most n bytes, cut at a rune boundary.
func clipLine(s string, n int) string { return trace.Excerpt(strings.Join(strings.Fields(s), " "), n) }

// verdictWhy is the reason for the first line: the report's own, or, for
// a report without one (built by hand, or by an older vouch), the first
// failed check, else the first warning, for any verdict but pass.
func verdictWhy(rep *vouch.Report) string {
	if rep.Reason != "" {
		return rep.Reason
	}
	if rep.Verdict == vouch.VerdictPass {
		return ""
	}
	for _, c := range rep.Checks {
		if c.Status == vouch.StatusFail {
			return c.Name + " failed: " + c.Reason
		}
	}
	if len(rep.Warnings) > 0 {
		return rep.Warnings[0].Message
	}
	return "nothing could be decided"
}

// codeSuffix writes a check's code after its name, " [CODE]", or, with
// a state, " (state, CODE)", or " (state)" without a code.
func codeSuffix(c vouch.CheckResult, state string) string {
	code, _ := c.Evidence["code"].(string)
	switch {
	case state == "" && code == "":
		return ""
	case state == "":
		return " [" + code + "]"
	case code == "":
		return " (" + state + ")"
	}
	return " (" + state + ", " + code + ")"
}

// padMark pads a mark to the width of the widest, so that what follows
// it lines up.
func padMark(m string) string {
	if n := utf8.RuneCountInString(m); n < 2 {
		return m + strings.Repeat(" ", 2-n)
	}
	return m
}

func hasCheckFor(checks []vouch.CheckResult, id string) bool {
	for _, c := range checks {
		if c.Evidence["criterion"] == id {
			return true
		}
	}
	return false
}

// writeEvidence prints a check's evidence, one key a line, skipping the code
// already shown.
func writeEvidence(w io.Writer, ev map[string]any) {
	keys := make([]string, 0, len(ev))
	for k := range ev {
		if k != "code" && k != "criterion" && k != "stack" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		writeField(w, "       ", k, ev[k])
	}
}
