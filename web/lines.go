package web

import (
	"regexp"
	"strconv"
	"strings"
)

// textLine is one line of a tool call's input or output, or of a
// multi-line evidence value, marked when it matters: Mark is "" for a
// plain line, "err" for an error (a traceback, a failed test, a
// non-zero exit), "sum" for a test run's summary, "add" and "del" for
// the added and removed lines of a diff, "hunk" for a diff's headers,
// and "gap" for lines left out (Text then says how many). Note says why
// a line is marked. The template escapes every line.
type textLine struct {
	Text, Mark, Note string
}

// Bounds of a text shown as lines: the lines kept from its start and
// end, the marked lines kept from its middle, and a line's length.
const (
	headLines     = 120
	tailLines     = 120
	middleMarked  = 60
	maxLineBytes  = 2000
	maxLinesInput = 1 << 20 // bytes of a text read for lines; the rest is cut
)

// rule marks a line when it holds word (a cheap test run first) and,
// when re is set, re matches it.
type rule struct {
	word string
	re   *regexp.Regexp
}

// matches reports whether the rule marks line.
func (r rule) matches(line string) bool {
	return strings.Contains(line, r.word) && (r.re == nil || r.re.MatchString(line))
}

var (
	// summaryRules find the summary lines of test runners: pytest, go
	// test, unittest, Jest, Mocha, ExUnit and RSpec, cargo, Maven and
	// Gradle, PHPUnit.
	summaryRules = []rule{
		{"==", regexp.MustCompile(`^=+ .*\b(passed|failed|errors?|skipped|no tests ran)\b.*=+$`)},
		{" in ", regexp.MustCompile(`^\s*\d+ (passed|failed)(, \d+ \w+)* in [\d.]+ ?m?s\b`)},
		{"ok", regexp.MustCompile(`^ok\s+\S+\s+(\(cached\)|[\d.]+s)`)},
		{"FAIL", regexp.MustCompile(`^FAIL\s+\S+\s+(\(cached\)|[\d.]+s)|^FAIL$`)},
		{"PASS", regexp.MustCompile(`^PASS$`)},
		{"Ran ", regexp.MustCompile(`^Ran \d+ tests? in `)},
		{"OK", regexp.MustCompile(`^OK( \(.*\))?$`)},
		{"FAILED (", regexp.MustCompile(`^FAILED \(`)},
		{"Tests:", regexp.MustCompile(`^\s*Tests:\s+.*\d+ (passed|failed|total)`)},
		{"Test Suites:", regexp.MustCompile(`^\s*Test Suites:`)},
		{"ing", regexp.MustCompile(`^\s*\d+ (passing|failing)\b`)},
		{"failure", regexp.MustCompile(`^\s*\d+ (tests?|examples?|doctests?|propert(y|ies))\b.*, \d+ failures?`)},
		{"test result: ", regexp.MustCompile(`^test result: (ok|FAILED)\.`)},
		{"Tests run: ", regexp.MustCompile(`Tests run: \d+, Failures: \d+`)},
		{"FAILURES!", nil},
		{"ERRORS!", nil},
	}
	// failedSummary tells a summary that reports failures.
	failedSummary = regexp.MustCompile(`\b[1-9]\d* (failed|failures?|errors?|failing)\b|^FAIL|FAILED|FAILURES!|ERRORS!`)
	// errorRules find the lines of an error: a traceback and the
	// exception it ends with, a failed test, a panic, a compiler's or a
	// tool's error, a non-zero exit status.
	errorRules = []rule{
		{"Traceback (most recent call last)", nil},
		{"Error", regexp.MustCompile(`^\s*([A-Za-z_][\w.]*)?Error(:|$)|\b(Assertion|Syntax)Error\b`)},
		{"Exception", regexp.MustCompile(`^\s*([A-Za-z_][\w.]*)?Exception(:|$)`)},
		{"E  ", regexp.MustCompile(`^E {2,}\S`)},
		{"panic: ", nil},
		{"FAIL", regexp.MustCompile(`^--- FAIL|^FAIL(\s|:|$)|^FAILED `)},
		{"rror", regexp.MustCompile(`^(error|fatal)(\[\w+\])?: |^npm ERR!`)},
		{"fatal: ", regexp.MustCompile(`^fatal: `)},
		{"** (", regexp.MustCompile(`^\s*\*\* \(\w+`)},
		{") test ", regexp.MustCompile(`^\s*\d+\) test `)},
		{"xit code ", regexp.MustCompile(`^(Error: )?Exit code:? [1-9]`)},
		{"<returncode>", regexp.MustCompile(`^<returncode>[1-9]`)},
		{"egmentation fault", nil},
	}
)

// anyRule reports whether one of rules marks line.
func anyRule(rules []rule, line string) bool {
	for _, r := range rules {
		if r.matches(line) {
			return true
		}
	}
	return false
}

// hasDiff reports whether text reads as a unified diff.
func hasDiff(text string) bool {
	return strings.HasPrefix(text, "diff --git") || strings.HasPrefix(text, "--- ") || strings.HasPrefix(text, "@@ ") ||
		strings.Contains(text, "\n@@ ") || strings.Contains(text, "\ndiff --git")
}

// markLine marks one line; diff says whether the text is a diff.
func markLine(line string, diff bool) (mark, note string) {
	if diff {
		switch {
		case strings.HasPrefix(line, "+++ "), strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "diff --git"),
			strings.HasPrefix(line, "@@"):
			return "hunk", "where the change is"
		case strings.HasPrefix(line, "+"):
			return "add", "a line added"
		case strings.HasPrefix(line, "-"):
			return "del", "a line removed"
		}
	}
	if anyRule(summaryRules, line) {
		if failedSummary.MatchString(line) {
			return "err", "the test summary: some failed"
		}
		return "sum", "the test summary"
	}
	if anyRule(errorRules, line) {
		return "err", "an error"
	}
	return "", ""
}

// textLines splits a text into lines for people, each marked when it
// matters (see textLine). A long text keeps its first headLines and last
// tailLines lines, and up to middleMarked marked lines between, with
// gaps where lines were left out; a long line is cut.
func textLines(text string) []textLine {
	cut := 0
	if len(text) > maxLinesInput {
		cut = len(text) - maxLinesInput
		text = text[:maxLinesInput]
	}
	text = strings.TrimRight(text, "\n")
	diff := hasDiff(text)
	n := strings.Count(text, "\n") + 1
	out := make([]textLine, 0, min(n, headLines+tailLines+middleMarked+4))
	gap, marked := 0, 0
	flush := func() {
		if gap > 0 {
			out = append(out, textLine{Text: lineCount(gap) + " not shown", Mark: "gap"})
			gap = 0
		}
	}
	i := 0
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		head, tail := i < headLines, i >= n-tailLines
		i++
		if !head && !tail && n > headLines+tailLines {
			mark, note := markLine(line, diff)
			if mark == "" || mark == "add" || mark == "del" || marked >= middleMarked {
				gap++
				continue
			}
			marked++
			flush()
			out = append(out, textLine{Text: clipLine(line), Mark: mark, Note: note})
			continue
		}
		flush()
		mark, note := markLine(line, diff)
		out = append(out, textLine{Text: clipLine(line), Mark: mark, Note: note})
	}
	flush()
	if cut > 0 {
		out = append(out, textLine{Text: strconv.Itoa(cut) + " more bytes not shown", Mark: "gap"})
	}
	return out
}

// lineCount says n lines.
func lineCount(n int) string {
	if n == 1 {
		return "1 line"
	}
	return strconv.Itoa(n) + " lines"
}

// clipLine cuts a line longer than maxLineBytes.
func clipLine(s string) string { return clip(s, maxLineBytes) }

// keyLines returns the lines that say the most of a call's result: the
// last test summary and the last error line (a traceback ends with its
// exception), in their order.
func keyLines(lines []textLine) []textLine {
	sum, err := -1, -1
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l.Note, "the test summary"):
			// A bare PASS or FAIL says less than a line with counts.
			if sum < 0 || len(strings.TrimSpace(l.Text)) > 4 || len(strings.TrimSpace(lines[sum].Text)) <= 4 {
				sum = i
			}
		case l.Mark == "err":
			err = i
		}
	}
	var out []textLine
	for i := range lines {
		if i == sum || i == err {
			out = append(out, lines[i])
		}
	}
	return out
}
