package content

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vouchgate/vouch"
)

const report = `# Report

Intro text.

## Summary ##

Setext Heading
==============

Other   Setext
--------------

### Test Plan:

` + "```markdown" + `
## Hidden In Fence
` + "```" + `

~~~~
# Also hidden
~~~
still hidden
~~~~

    # indented code, not a heading

## **Risks**
`

func TestHeadings(t *testing.T) {
	got := headings(report)
	want := []string{"report", "summary", "setext heading", "other setext", "test plan", "risks"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("headings (-want +got):\n%s", d)
	}
}

func TestHeadingsEdgeCases(t *testing.T) {
	for _, c := range []struct {
		name string
		text string
		want []string
	}{
		{"atx levels", "# a\n###### f\n####### seven", []string{"a", "f"}},
		{"no space after hash", "#hashtag\n#5 bolt", nil},
		{"closing hashes", "# foo #\n## bar ###   \n# baz#\n### ###", []string{"foo", "bar", "baz#", ""}},
		{"indent up to three", "   # three\n    # four", []string{"three"}},
		{"tab after hash", "#\tTabbed", []string{"tabbed"}},
		{"crlf", "# One\r\nTwo\r\n---\r\n", []string{"one", "two"}},
		{"setext multi-line paragraph", "Foo\nbar\n===", []string{"foo bar"}},
		{"thematic break is not a heading", "text\n\n---\n", nil},
		{"list item then dashes", "- item\n---", nil},
		{"blockquote then equals", "> quote\n===", nil},
		{"equals alone is text", "===\n", nil},
		{"ordered list then dashes", "1. one\n---", nil},
		{"setext after fence", "```\ncode\n```\nTitle\n---", []string{"title"}},
		{"unclosed fence hides the rest", "# a\n```\n# b\n", []string{"a"}},
		{"longer closing fence", "````\n```\n# hidden\n````\n# shown", []string{"shown"}},
		{"backtick info with backtick is not a fence", "``` a`b\n# shown", []string{"shown"}},
		{"tilde fence closed by backticks is not closed", "~~~\n```\n# hidden\n~~~\n# shown", []string{"shown"}},
		{"fence closing needs no info", "```\n``` go\n# hidden\n```\n# shown", []string{"shown"}},
		{"heading interrupts paragraph", "text\n# Head\n---", []string{"head"}},
		{"emphasis and colon", "## __Next Steps__:\n## `Config`", []string{"next steps", "config"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if d := cmp.Diff(c.want, headings(c.text)); d != "" {
				t.Errorf("headings(%q) (-want +got):\n%s", c.text, d)
			}
		})
	}
}

func TestNormalizeHeading(t *testing.T) {
	for in, want := range map[string]string{
		"  Test   Plan ": "test plan",
		"Summary:":       "summary",
		"**Summary:**":   "summary",
		"**Summary**:":   "summary",
		"RISKS\t&  Gaps": "risks & gaps",
		"Überblick":      "überblick",
		":":              "",
	} {
		if got := normalizeHeading(in); got != want {
			t.Errorf("normalizeHeading(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSections(t *testing.T) {
	cases := []tc{
		{name: "all found", spec: `{"type":"sections","required":["Summary","Test plan","RISKS","setext heading"]}`, summary: report,
			status: vouch.StatusPass, reason: "has all 4 required sections",
			evidence: map[string]any{"found": []string{"Summary", "Test plan", "RISKS", "setext heading"}, "missing": []string{}}},
		{name: "whitespace and colon tolerant", spec: `{"type":"sections","required":["  other setext  ", "Test Plan:"]}`, summary: report,
			status: vouch.StatusPass},
		{name: "partial", spec: `{"type":"sections","required":["Summary","Hidden in fence","Risks","Usage"]}`, summary: report,
			status: vouch.StatusFail, code: vouch.CodeSectionMissing, score: score(0.5),
			reason: `lacks 2 of 4 required sections: "Hidden in fence", "Usage"`,
			evidence: map[string]any{
				"found":    []string{"Summary", "Risks"},
				"missing":  []string{"Hidden in fence", "Usage"},
				"headings": []string{"report", "summary", "setext heading", "other setext", "test plan", "risks"},
			},
			fix: []string{"Hidden in fence", "Usage"}},
		{name: "three of four", spec: `{"type":"sections","required":["Summary","Risks","Report","Usage"]}`, summary: report,
			status: vouch.StatusFail, code: vouch.CodeSectionMissing, score: score(0.75), fix: []string{"Usage"}},
		{name: "none", spec: `{"type":"sections","required":["Usage"]}`, summary: "no headings at all",
			status: vouch.StatusFail, code: vouch.CodeSectionMissing, score: score(0), evidence: map[string]any{"headings": []string{}}},
		{name: "file target", spec: `{"type":"sections","required":["Usage"],"target":"docs/README.md"}`,
			files: map[string]string{"docs/README.md": "# Tool\n\nUsage\n-----\n"}, status: vouch.StatusPass},
	}
	cases = append(cases, targetCases("sections", `,"required":["x"]`)...)
	runCases(t, cases)
}

func TestSectionsCompileErrors(t *testing.T) {
	cases := []errCase{
		{name: "missing required", spec: `{"type":"sections"}`, path: "required", code: vouch.ErrCriterion, msg: "is required"},
		{name: "empty required", spec: `{"type":"sections","required":[]}`, path: "required", code: vouch.ErrCriterion},
		{name: "empty name", spec: `{"type":"sections","required":["a","  "]}`, path: "required[1]", code: vouch.ErrCriterion},
		{name: "duplicate name", spec: `{"type":"sections","required":["Usage","usage:"]}`, path: "required[1]", code: vouch.ErrCriterion, msg: "duplicates required[0]"},
		{name: "required wrong type", spec: `{"type":"sections","required":"Usage"}`, path: "required", code: vouch.ErrType},
		{name: "required item wrong type", spec: `{"type":"sections","required":["a",2]}`, path: "required[1]", code: vouch.ErrType},
	}
	cases = append(cases, commonErrCases("sections", `,"required":["x"]`)...)
	runErrCases(t, cases)
}
