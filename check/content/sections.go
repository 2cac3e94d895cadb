package content

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/text/plural"
)

type sectionsParams struct {
	check.Common `json:",inline"`
	check.Target `json:",inline"`
	Required     []string `json:"required"`
}

// sectionsChecker passes when the text has a Markdown heading for each
// required section. Its score is the share of required sections found.
//
// Headings are ATX headings ("## Testing", optionally closed by #s) and
// setext headings (a paragraph underlined by === or ---); lines inside
// fenced code blocks (``` or ~~~) are not headings. Heading and section
// names are compared after [normalizeHeading]: case, runs of white space, a
// trailing colon and surrounding emphasis markers do not matter.
type sectionsChecker struct {
	target    string
	required  []string // as written
	normal    []string // normalised, same order
	targetAny any
}

func newSections(spec vouch.CheckSpec, _ check.Env) (vouch.Checker, error) {
	var p sectionsParams
	if err := check.DecodeParams(spec, &p); err != nil {
		return nil, err
	}
	if p.Required == nil {
		return nil, check.Errorf("required", "is required")
	}
	if len(p.Required) == 0 {
		return nil, check.Errorf("required", "must list at least one section")
	}
	c := &sectionsChecker{
		target:    p.Target.Target,
		targetAny: targetName(p.Target.Target),
	}
	seen := make(map[string]int, len(p.Required))
	for i, r := range p.Required {
		path := "required[" + strconv.Itoa(i) + "]"
		n := normalizeHeading(r)
		if n == "" {
			return nil, check.Errorf(path, "is empty")
		}
		if j, dup := seen[n]; dup {
			return nil, check.Errorf(path, "duplicates required[%d]", j)
		}
		seen[n] = i
		c.required = append(c.required, strings.TrimSpace(r))
		c.normal = append(c.normal, n)
	}
	return c, nil
}

// headingsKey is the memo key of a target's normalised headings.
type headingsKey string

// Check implements vouch.Checker.
func (c *sectionsChecker) Check(_ context.Context, s *vouch.Subject) vouch.Outcome {
	text, out, ok := readText(s, c.target)
	if !ok {
		return out
	}
	hs := s.Memo(headingsKey(c.target), func() any { return headings(text) }).([]string)
	have := make(map[string]bool, len(hs))
	for _, h := range hs {
		have[h] = true
	}
	found, missing := []string{}, []string{}
	for i, n := range c.normal {
		if have[n] {
			found = append(found, c.required[i])
		} else {
			missing = append(missing, c.required[i])
		}
	}
	const maxHeadings = 30
	ev := map[string]any{
		"target":  c.targetAny,
		"found":   found,
		"missing": missing,
	}
	total := len(c.required)
	if len(missing) == 0 {
		return vouch.Pass(fmt.Sprintf("%s has %s", targetPhrase(c.target), plural.All(total, "required section")), ev)
	}
	if len(hs) > maxHeadings {
		ev["headings"] = append([]string{}, hs[:maxHeadings]...)
		ev["headingsOmitted"] = len(hs) - maxHeadings
	} else {
		ev["headings"] = append([]string{}, hs...)
	}
	quoted := make([]string, len(missing))
	for i, m := range missing {
		quoted[i] = strconv.Quote(m)
	}
	o := vouch.Fail(vouch.CodeSectionMissing,
		fmt.Sprintf("%s lacks %d of %d required sections: %s",
			targetPhrase(c.target), len(missing), total, strings.Join(quoted, ", ")), ev)
	o.Score = float64(len(found)) / float64(total)
	o.Fix = missing
	return o
}

// normalizeHeading returns a heading or section name as compared: white
// space trimmed and collapsed to single spaces, lower-cased, without
// surrounding emphasis or code markers (*, _, `) and without a trailing
// colon. "**Test  Plan:**" and "test plan" are the same section.
func normalizeHeading(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	for {
		t := strings.TrimSpace(strings.TrimSuffix(strings.Trim(s, "*_`"), ":"))
		if t == s {
			return s
		}
		s = t
	}
}

// headings returns the normalised headings of a Markdown text, in order,
// skipping fenced code blocks. It follows CommonMark where it matters for
// headings: ATX headings with up to three spaces of indentation and an
// optional closing sequence; setext headings whose content is the whole
// paragraph above the underline; a "---" line with no paragraph above is a
// thematic break; list items and block quotes end a paragraph.
func headings(text string) []string {
	var (
		out       []string
		para      []string // the open paragraph's lines
		fenceChar byte     // 0 outside a fenced code block
		fenceLen  int
	)
	for len(text) > 0 {
		var line string
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			line, text = text, ""
		}
		line = strings.TrimSuffix(line, "\r")
		indent, rest := splitIndent(line)

		if fenceChar != 0 {
			if indent <= 3 && fenceRun(rest, fenceChar) >= fenceLen &&
				strings.TrimSpace(strings.TrimLeft(rest, string(fenceChar))) == "" {
				fenceChar = 0
			}
			continue
		}
		if strings.TrimSpace(line) == "" {
			para = para[:0]
			continue
		}
		if indent >= 4 {
			if len(para) > 0 { // a paragraph continuation line
				para = append(para, strings.TrimSpace(rest))
			}
			continue // else indented code
		}
		if ch := rest[0]; ch == '`' || ch == '~' {
			if n := fenceRun(rest, ch); n >= 3 && (ch == '~' || !strings.Contains(rest[n:], "`")) {
				fenceChar, fenceLen = ch, n
				para = para[:0]
				continue
			}
		}
		if h, ok := atxHeading(rest); ok {
			out = append(out, normalizeHeading(h))
			para = para[:0]
			continue
		}
		if ch, ok := setextUnderline(rest); ok {
			if len(para) > 0 {
				out = append(out, normalizeHeading(strings.Join(para, " ")))
				para = para[:0]
				continue
			}
			if ch == '-' {
				continue // a thematic break
			}
		}
		if startsBlock(rest) {
			para = para[:0]
			continue
		}
		para = append(para, strings.TrimSpace(rest))
	}
	return out
}

// splitIndent returns the indentation of line in columns (a tab counts to
// the next multiple of four) and the line without it.
func splitIndent(line string) (int, string) {
	n := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			n++
		case '\t':
			n += 4 - n%4
		default:
			return n, line[i:]
		}
	}
	return n, ""
}

// fenceRun returns how many times ch repeats at the start of s.
func fenceRun(s string, ch byte) int {
	n := 0
	for n < len(s) && s[n] == ch {
		n++
	}
	return n
}

// atxHeading returns the content of an ATX heading line (without its
// indentation): 1 to 6 #s, then a space, a tab or the end of the line; an
// optional closing run of #s preceded by a space is dropped.
func atxHeading(s string) (string, bool) {
	n := fenceRun(s, '#')
	if n == 0 || n > 6 {
		return "", false
	}
	if n < len(s) && s[n] != ' ' && s[n] != '\t' {
		return "", false
	}
	content := strings.TrimSpace(s[n:])
	closing := strings.TrimRight(content, "#")
	switch {
	case closing == "":
		content = ""
	case len(closing) < len(content) && (strings.HasSuffix(closing, " ") || strings.HasSuffix(closing, "\t")):
		content = strings.TrimSpace(closing)
	}
	return content, true
}

// setextUnderline reports whether s (without indentation) is a setext
// underline: a run of = or of -, then only white space.
func setextUnderline(s string) (byte, bool) {
	ch := s[0]
	if ch != '=' && ch != '-' {
		return 0, false
	}
	if strings.TrimSpace(s[fenceRun(s, ch):]) != "" {
		return 0, false
	}
	return ch, true
}

// startsBlock reports whether s (without indentation) starts a block that
// ends a paragraph and cannot be a setext heading's content: a list item, a
// block quote or a thematic break made of * or _.
func startsBlock(s string) bool {
	switch s[0] {
	case '>':
		return true
	case '-', '*', '+':
		if len(s) == 1 || s[1] == ' ' || s[1] == '\t' {
			return true
		}
	}
	if t := strings.ReplaceAll(strings.ReplaceAll(s, " ", ""), "\t", ""); len(t) >= 3 &&
		(strings.Trim(t, "*") == "" || strings.Trim(t, "_") == "" || strings.Trim(t, "-") == "") {
		return true
	}
	i := 0
	for i < len(s) && i < 9 && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i > 0 && i < len(s) && (s[i] == '.' || s[i] == ')') &&
		(i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\t')
}
