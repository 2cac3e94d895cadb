package pr

import (
	"fmt"
	"io"
	"strings"

	"github.com/vouchgate/vouch"
)

// CommentMarker opens every comment [Result.Markdown] writes, so that a CI
// job can find its earlier comment on a pull request and edit it rather
// than add another.
const CommentMarker = "<!-- vouch pr -->"

// maxRows bounds the checks a comment lists one a row.
const maxRows = 60

// Markdown writes the result as a comment ready to post on the pull
// request (GitHub-flavoured Markdown): the verdict, score and confidence,
// the commits compared, every claim of the description with what the
// evidence showed (refuted, unverified, verified), the checks folded
// below it, the unverified mentions, the warnings and the feedback.
//
// Everything that comes from the description, the repository or the test
// reports is untrusted and is written so that it shows as text and does
// nothing else: HTML and Markdown characters are escaped, line breaks
// become spaces (a table row stays one row), and links, @mentions, issue
// references and e-mail addresses are broken with an invisible zero-width
// space so that the comment neither links nor notifies anyone. The
// feedback is a fenced code block whose fence is longer than any run of
// backticks in it.
func (r *Result) Markdown(w io.Writer) error {
	rep := r.Report
	var b strings.Builder
	b.WriteString(CommentMarker + "\n")
	icon := map[vouch.Verdict]string{vouch.VerdictPass: "✅", vouch.VerdictRetry: "🔁", vouch.VerdictFail: "❌", vouch.VerdictUnverified: "❔"}[rep.Verdict]
	score := "n/a"
	if rep.Score != nil {
		score = fmt.Sprintf("%.2f", *rep.Score)
	}
	fmt.Fprintf(&b, "### %s vouch: %s\n\n", icon, strings.ToUpper(string(rep.Verdict)))
	fmt.Fprintf(&b, "**Score** %s · **confidence** %.2f · **action** %s", score, rep.Confidence, rep.Action)
	if rep.NeedsReview {
		b.WriteString(" · **needs review**")
	}
	b.WriteString("\n\n")
	if rep.Reason != "" {
		fmt.Fprintf(&b, "%s\n\n", mdText(rep.Reason))
	}
	fmt.Fprintf(&b, "The description was checked against the diff from `%s` (the merge base) to `%s`: %s changed", short(r.MergeBase), short(r.Head), plural(len(r.Files), "file"))
	if runs := len(r.Request.Trace); runs > 0 {
		fmt.Fprintf(&b, ", and %s", plural(runs, "test run"))
	}
	b.WriteString(".\n\n")

	writeClaims(&b, rep.Claims)
	checks := rep.Checks
	if len(checks) > 0 {
		order := map[vouch.Status]int{vouch.StatusFail: 0, vouch.StatusUndecided: 1, vouch.StatusPass: 2}
		sorted := make([]vouch.CheckResult, len(checks))
		copy(sorted, checks)
		// Failures first, then what could not be decided, then passes;
		// stable within each.
		for i := 1; i < len(sorted); i++ {
			for j := i; j > 0 && order[sorted[j].Status] < order[sorted[j-1].Status]; j-- {
				sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
			}
		}
		var nPass, nFail, nUnd int
		for _, c := range checks {
			switch c.Status {
			case vouch.StatusPass:
				nPass++
			case vouch.StatusFail:
				nFail++
			default:
				nUnd++
			}
		}
		fmt.Fprintf(&b, "<details><summary>Checks: %d passed, %d failed, %d undecided</summary>\n\n", nPass, nFail, nUnd)
		b.WriteString("| | Check | Evidence |\n|---|---|---|\n")
		for i, c := range sorted {
			if i == maxRows {
				fmt.Fprintf(&b, "| | … | %d more checks: see the JSON report |\n", len(sorted)-maxRows)
				break
			}
			mark := map[vouch.Status]string{vouch.StatusPass: "✅", vouch.StatusFail: "❌"}[c.Status]
			if mark == "" {
				mark = "❔"
			}
			name := mdText(c.Name)
			if c.Code != "" {
				name += " `" + c.Code + "`"
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", mark, name, mdCell(c.Reason))
		}
		b.WriteString("\n</details>\n\n")
	}
	if u := rep.Mentions.Unverified; len(u) > 0 {
		fmt.Fprintf(&b, "<details><summary>%s found in no evidence</summary>\n\n", plural(len(u), "mention"))
		for i, m := range u {
			if i == maxRows {
				fmt.Fprintf(&b, "- … and %d more\n", len(u)-maxRows)
				break
			}
			fmt.Fprintf(&b, "- %s %s, in: %s\n", mdText(string(m.Kind)), mdText(m.Text), mdText(m.Sentence))
		}
		b.WriteString("\n</details>\n\n")
	}
	if len(rep.Warnings) > 0 {
		b.WriteString("<details><summary>Warnings</summary>\n\n")
		for i, wn := range rep.Warnings {
			if i == maxRows {
				fmt.Fprintf(&b, "- … and %d more\n", len(rep.Warnings)-maxRows)
				break
			}
			fmt.Fprintf(&b, "- `%s` %s\n", wn.Code, mdText(wn.Message))
		}
		b.WriteString("\n</details>\n\n")
	}
	if rep.Feedback != "" {
		b.WriteString("**Feedback**\n\n")
		b.WriteString(fenced(rep.Feedback))
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "<sub>vouch %s · report %s</sub>\n", mdText(string(rep.Kind)), mdText(rep.ID))
	_, err := io.WriteString(w, b.String())
	return err
}

// writeClaims writes the claim ledger as a table: the claims found false
// first, then those nothing could check, then those that hold, each with
// what the evidence showed.
func writeClaims(b *strings.Builder, claims []vouch.Claim) {
	if len(claims) == 0 {
		return
	}
	n := map[vouch.ClaimState]int{}
	for _, c := range claims {
		n[c.State]++
	}
	fmt.Fprintf(b, "**Claims:** %d verified, %d refuted, %d unverified\n\n", n[vouch.ClaimVerified], n[vouch.ClaimRefuted], n[vouch.ClaimUnverified])
	b.WriteString("| | Claim | Evidence |\n|---|---|---|\n")
	rows := 0
	for _, state := range []vouch.ClaimState{vouch.ClaimRefuted, vouch.ClaimUnverified, vouch.ClaimVerified} {
		mark := map[vouch.ClaimState]string{vouch.ClaimRefuted: "❌", vouch.ClaimUnverified: "❔", vouch.ClaimVerified: "✅"}[state]
		for _, c := range claims {
			if c.State != state {
				continue
			}
			if rows == maxRows {
				fmt.Fprintf(b, "| | … | %d more claims: see the JSON report |\n", len(claims)-maxRows)
				b.WriteString("\n")
				return
			}
			rows++
			fmt.Fprintf(b, "| %s | %s | %s |\n", mark, mdCell(c.Text), mdCell(c.Reason))
		}
	}
	b.WriteString("\n")
}

// zwsp is the zero-width space that breaks links and mentions.
const zwsp = "\u200b"

// mdText writes untrusted text as inert inline Markdown: one line, HTML
// special characters as entities, Markdown punctuation backslash-escaped,
// and a zero-width space where GitHub would make a link, a mention, an
// issue reference or an e-mail address (after "@" and "#", inside "://"
// and "www.").
func mdText(s string) string {
	var b strings.Builder
	s = strings.ToValidUTF8(s, "\uFFFD")
	for i, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\t' || r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029':
			b.WriteByte(' ')
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"':
			b.WriteString("&quot;")
		case r == '@' || r == '#':
			b.WriteRune(r)
			b.WriteString(zwsp)
		case r == ':' && strings.HasPrefix(s[i:], "://"):
			b.WriteString(":" + zwsp)
		case r == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www"):
			b.WriteString(zwsp + ".")
		case strings.ContainsRune("\\`*_{}[]()+-.!|~=^$", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdCell is mdText for a table cell, cut to a readable length.
func mdCell(s string) string {
	const max = 600
	if len(s) > max {
		i := max
		for i > 0 && (s[i]&0xC0) == 0x80 {
			i--
		}
		s = s[:i] + "…"
	}
	return mdText(s)
}

// fenced writes untrusted text as a fenced code block, whose fence is a
// run of backticks longer than any in the text, so nothing in it can close
// the block.
func fenced(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	s = strings.TrimRight(s, "\n")
	return fence + "\n" + s + "\n" + fence + "\n"
}

// plural writes n and noun, with an "s" unless n is 1: "1 file", "3
// files".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// short abbreviates a commit hash.
func short(h string) string { return h[:min(len(h), 12)] }
