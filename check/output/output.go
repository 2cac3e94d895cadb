// Package output holds the format checks of an agent result: the summary is
// there and not cut off mid-sentence, selfAssessment's figures are in [0,1],
// toolCalls is a list of tool names. A request decoded by package wire
// already has the right JSON types and ranges; a request built in Go does
// not pass through that validation, and a summary cut off by a token limit
// is valid JSON either way.
//
// The checks feed no dimension: a well-formed result earns no score, and a
// malformed one fails a must-pass structure check, so it is retried (a
// summary cut off mid-sentence usually means the agent ran out of tokens).
package output

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/vouchgate/vouch/text/lex"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
)

func init() {
	check.RegisterAnalyzer(check.AnalyzerInfo{
		Name:  "output.format",
		Level: vouch.LevelStructure,
		Kinds: check.EveryKind(),
		New:   func() vouch.Analyzer { return formatAnalyzer{} },
	})
}

type formatAnalyzer struct{}

// Analyze implements vouch.Analyzer.
func (formatAnalyzer) Analyze(_ context.Context, s *vouch.Subject, f *vouch.Findings) error {
	req := s.Request
	o := &req.Output
	var problems []string
	if sa := o.SelfAssessment; sa != nil {
		for _, v := range []struct {
			name string
			x    *float64
		}{{"selfAssessment.confidence", sa.Confidence}, {"selfAssessment.completeness", sa.Completeness}} {
			if v.x != nil && !(*v.x >= 0 && *v.x <= 1) {
				problems = append(problems, fmt.Sprintf("%s is %v, not in [0,1]", v.name, *v.x))
			}
		}
	}
	for i, t := range o.ToolCalls {
		if !toolName(t) {
			problems = append(problems, fmt.Sprintf("toolCalls[%d] %q is not a tool name", i, t))
		}
	}
	if len(problems) > 0 {
		f.Checks = append(f.Checks, vouch.CheckResult{
			Name: "output.format", Level: vouch.LevelStructure, Strength: vouch.StrengthStrict,
			Status: vouch.StatusFail, Confidence: 1, Must: true, Code: vouch.CodeFormatInvalid,
			Reason:   "the agent result is malformed: " + strings.Join(problems, "; "),
			Evidence: map[string]any{"code": vouch.CodeFormatInvalid, "problems": problems},
			Fix:      problems,
		})
	}
	// A plan's content is in context.plan; its summary may be empty.
	if req.EffectiveKind() == vouch.KindDecomposition && strings.TrimSpace(o.Summary) == "" {
		return nil
	}
	if why := Truncated(o.Summary); why != "" {
		f.Checks = append(f.Checks, vouch.CheckResult{
			Name: "output.summary", Level: vouch.LevelStructure, Strength: vouch.StrengthStrict,
			Status: vouch.StatusFail, Confidence: 1, Must: true, Code: vouch.CodeSummaryTruncated,
			Reason:   "the summary " + why,
			Evidence: map[string]any{"code": vouch.CodeSummaryTruncated, "ending": ending(o.Summary)},
			Fix:      []string{"finish the summary: " + why},
		})
	}
	return nil
}

// toolName reports whether t looks like a tool name: not empty, no white
// space, no control characters, at most 128 bytes.
func toolName(t string) bool {
	if t == "" || len(t) > 128 {
		return false
	}
	for _, r := range t {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// danglingWords end no complete English sentence: a text whose last prose
// line ends with one was cut off.
var danglingWords = lex.Named("dangling-words").Set()

// Truncated says why a summary looks cut off, or returns "" when it looks
// complete: it is empty, a code fence is left open, or the last line of
// prose ends with a comma, an opening bracket, a dash or a word no sentence
// ends with ("and", "the", "to"). List items, headings and table rows end
// without punctuation and are complete.
func Truncated(summary string) string {
	text := strings.TrimRightFunc(summary, unicode.IsSpace)
	if strings.TrimSpace(text) == "" {
		return "is empty"
	}
	if fences(text)%2 == 1 {
		return "leaves a code block open"
	}
	last := text[strings.LastIndexByte(text, '\n')+1:]
	line := strings.TrimSpace(last)
	r, _ := utf8.DecodeLastRuneInString(line)
	if strings.ContainsRune(",;:([{&/\\", r) || r == '-' && !strings.HasSuffix(line, "--") || r == '–' || r == '—' {
		if r == ':' && structural(line) {
			return ""
		}
		return fmt.Sprintf("stops mid-sentence (ends with %q)", string(r))
	}
	if structural(line) || !unicode.IsLetter(r) {
		return ""
	}
	words := strings.Fields(line)
	if len(words) < 3 {
		return "" // "Done", "All tests pass"
	}
	if w := strings.ToLower(words[len(words)-1]); danglingWords[w] {
		return fmt.Sprintf("stops mid-sentence (ends with %q)", words[len(words)-1])
	}
	return ""
}

// structural reports whether a line is a Markdown list item, heading, table
// row or block quote, which end without sentence punctuation.
func structural(line string) bool {
	switch {
	case strings.HasPrefix(line, "#"), strings.HasPrefix(line, "|"), strings.HasPrefix(line, ">"):
		return true
	case strings.HasPrefix(line, "- "), strings.HasPrefix(line, "* "), strings.HasPrefix(line, "+ "):
		return true
	}
	i := 0
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(line) && (line[i] == '.' || line[i] == ')') && line[i+1] == ' '
}

// fences counts the lines that open or close a fenced code block.
func fences(text string) int {
	n := 0
	for line := range strings.Lines(text) {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~") {
			n++
		}
	}
	return n
}

// ending returns the last 60 bytes of a summary for evidence, cut at a rune
// boundary.
func ending(s string) string {
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	if len(s) <= 60 {
		return s
	}
	i := len(s) - 60
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return "…" + s[i:]
}
