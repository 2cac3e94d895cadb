package pr

import (
	"regexp"
	"strings"
)

var (
	// uncheckedItem matches a task-list item left unchecked: "- [ ] Tests
	// pass".
	uncheckedItem = regexp.MustCompile(`^\s*(?:[-*+]|\d{1,4}[.)])\s+\[ \]\s`)
	// mdLink matches a Markdown link or image, its text in group 1.
	mdLink = regexp.MustCompile(`!?\[([^\[\]]*)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+"[^"]*")?\)`)
	// linkDef matches a reference link's definition line.
	linkDef = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*\S+.*$`)
	// commitType matches a Conventional Commits prefix with a scope at
	// the start of a line ("feat(parser)!: "), which reads as a call.
	commitType = regexp.MustCompile(`^(\s*(?:[-*+]\s+)?)(feat|fix|docs|style|refactor|perf|test|tests|build|ci|chore|revert|deps)\([^()\n]{1,60}\)(!?):`)
	// bareURL matches an autolink or a bare web address.
	bareURL = regexp.MustCompile(`<(?:https?|ftp)://[^>\s]*>|\b(?:https?|ftp)://[^\s<>()\[\]]+|\bwww\.[A-Za-z0-9-]+\.[^\s<>()\[\]]+`)
)

// links removes the links of a line of prose: a Markdown link keeps its
// text, a bare address goes.
func links(line string) string {
	if !strings.Contains(line, "://") && !strings.Contains(line, "](") && !strings.Contains(line, "www.") {
		return line
	}
	line = mdLink.ReplaceAllString(line, "$1")
	return bareURL.ReplaceAllStringFunc(line, func(u string) string {
		// Punctuation that ends a sentence ends the address too, as
		// when it is rendered: "see https://x.example/a." keeps its ".".
		return u[len(strings.TrimRight(u, ".,:;!?'\"*_~")):]
	})
}

// Claimed returns what a pull request's description claims about its
// changes: the text as it shows once rendered, without its HTML comments
// (a template's hidden instructions, "<!-- make sure all tests pass -->"),
// without the task-list items left unchecked ("- [ ] All tests pass" is a
// box the author did not tick, not a claim), and without its links (a
// Markdown link keeps its text; bare addresses and reference definitions
// go): a link to an issue, a design or a CI run is a reference, which
// neither the diff nor a test run can show, not a claim about the changes.
// The scope of a Conventional Commits prefix ("feat(parser): ...") is
// dropped, so that it does not read as a call of a function "feat".
// An HTML comment left open hides the rest of the text, as it does when
// rendered. Fenced code blocks are kept as they are.
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
		if uncheckedItem.MatchString(out) || linkDef.MatchString(strings.TrimRight(out, "\r\n")) {
			continue
		}
		out = commitType.ReplaceAllString(links(out), "$1$2$3:")
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
