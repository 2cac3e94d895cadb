package pr

import (
	"regexp"
	"strings"
)

// uncheckedItem matches a task-list item left unchecked: "- [ ] Tests pass".
var uncheckedItem = regexp.MustCompile(`^\s*(?:[-*+]|\d{1,4}[.)])\s+\[ \]\s`)

// Claimed returns what a pull request's description claims: the text as
// it shows once rendered, without its HTML comments (a template's hidden
// instructions, "<!-- make sure all tests pass -->") and without the
// task-list items left unchecked ("- [ ] All tests pass" is a box the
// author did not tick, not a claim). An HTML comment left open hides the
// rest of the text, as it does when rendered. Fenced code blocks are kept
// as they are.
func Claimed(description string) string {
	var b strings.Builder
	inFence, inComment := false, false
	fence := ""
	for line := range strings.Lines(description) {
		t := strings.TrimSpace(line)
		if !inComment {
			if !inFence && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")) {
				inFence, fence = true, t[:3]
				b.WriteString(line)
				continue
			}
			if inFence {
				if strings.HasPrefix(t, fence) {
					inFence = false
				}
				b.WriteString(line)
				continue
			}
		}
		// Outside code: cut the comments out of the line.
		var kept strings.Builder
		rest := line
		for rest != "" {
			if inComment {
				i := strings.Index(rest, "-->")
				if i < 0 {
					rest = ""
					break
				}
				rest, inComment = rest[i+3:], false
				continue
			}
			i := strings.Index(rest, "<!--")
			if i < 0 {
				kept.WriteString(rest)
				break
			}
			kept.WriteString(rest[:i])
			rest, inComment = rest[i+4:], true
		}
		out := kept.String()
		if uncheckedItem.MatchString(out) {
			continue
		}
		if strings.TrimSpace(out) == "" && strings.TrimSpace(line) != "" {
			// A line that held only a comment goes, blank line and all.
			continue
		}
		b.WriteString(out)
		if !strings.HasSuffix(out, "\n") && strings.HasSuffix(line, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
