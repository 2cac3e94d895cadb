package pr

import (
	"regexp"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
)

func TestMarkdown(t *testing.T) {
	r := prRepo(t)
	res := verify(t, r, "- Updated `README.md` and `config.go`\n- All tests pass", goReport(t, true))
	var b strings.Builder
	if err := res.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{CommentMarker, "vouch: RETRY", "**Claims:** 0 verified, 2 refuted, 0 unverified",
		"| ❌ | Updated \\`README\\.md\\` and \\`config\\.go\\` | ", "| ❌ | claims\\.git `NO_CHANGE` |",
		"claims\\.tests `TEST_CLAIM_CONTRADICTED`", "**Feedback**\n\n```\n", short(res.MergeBase)} {
		if !strings.Contains(md, want) {
			t.Errorf("the comment lacks %q:\n%s", want, md)
		}
	}
	// The claims come first, then the checks; in each, what was found
	// false before what holds.
	claims, _, folded := strings.Cut(md, "<details><summary>Checks:")
	if !folded {
		t.Fatalf("no folded checks:\n%s", md)
	}
	if strings.Contains(claims, "| ✅ |") && strings.Index(claims, "| ❌ |") > strings.Index(claims, "| ✅ |") {
		t.Errorf("a claim that holds is listed before one found false:\n%s", md)
	}
}

// TestMarkdownUnverified: a description whose claims hold where the diff
// can show them, and say what only a test could show, is unverified, and
// the comment says which claims nothing could check.
func TestMarkdownUnverified(t *testing.T) {
	r := prRepo(t)
	res := verify(t, r, "Added `ParseDuration` to `timeutil/parse.go`; it now returns the length doubled.")
	if res.Report.Verdict != vouch.VerdictUnverified {
		t.Fatalf("verdict %s:\n%s", res.Report.Verdict, describe(res.Report))
	}
	var b strings.Builder
	if err := res.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{"### ❔ vouch: UNVERIFIED", "**Claims:** 1 verified, 0 refuted, 1 unverified", "| ❔ | it now returns the length doubled |", "| ✅ | Added \\`ParseDuration\\`"} {
		if !strings.Contains(md, want) {
			t.Errorf("the comment lacks %q:\n%s", want, md)
		}
	}
}

// TestMarkdownHostile checks that nothing a hostile description says
// becomes markup, a link or a mention in the comment, or breaks its table.
func TestMarkdownHostile(t *testing.T) {
	r := prRepo(t)
	desc := "- Updated `<img src=x onerror=alert(1)>.go` and `README.md` for @everyone, see [the fix](https://evil.example/x) and www.evil.example, mail a@b.example, fixes #1\n" +
		"- Updated `README.md` for @everyone and a@b.example, fixes #1 <img src=x onerror=alert(1)>\n" +
		"- Updated `notes | injected | row.md`\n" +
		"```\n</details><script>alert(1)</script>\n```\n" +
		"- Updated ```` `x` ```` docs"
	res := verify(t, r, desc)
	if res.Report.Verdict == vouch.VerdictPass {
		t.Fatalf("the hostile description passed:\n%s", describe(res.Report))
	}
	var b strings.Builder
	if err := res.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	// Outside the fenced feedback, nothing may be raw HTML, a link or a
	// mention.
	outside := md
	if i := strings.Index(md, "**Feedback**"); i >= 0 {
		outside = md[:i]
	}
	for _, bad := range []string{"<img", "<script", "](http", "https://", "www.evil", "@everyone", "a@b", "#1"} {
		if strings.Contains(outside, bad) {
			t.Errorf("the comment holds %q outside code:\n%s", bad, outside)
		}
	}
	tags := regexp.MustCompile(`<(/?)([a-z]+)`)
	for _, m := range tags.FindAllStringSubmatch(outside, -1) {
		switch m[2] {
		case "details", "summary", "sub":
		default:
			t.Errorf("an HTML tag of the description in the comment: %q", m[0])
		}
	}
	// Every row of the checks table has its three cells.
	for _, line := range strings.Split(outside, "\n") {
		if strings.HasPrefix(line, "| ") {
			if n := len(regexp.MustCompile(`(^|[^\\])\|`).FindAllString(line, -1)); n != 4 {
				t.Errorf("a table row with %d cell borders: %q", n, line)
			}
		}
	}
	// The feedback's fence outlasts every backtick run in it.
	if i := strings.Index(md, "**Feedback**\n\n"); i >= 0 {
		fb := md[i+len("**Feedback**\n\n"):]
		fence := fb[:strings.IndexByte(fb, '\n')]
		body := fb[len(fence)+1:]
		end := strings.Index(body, "\n"+fence+"\n")
		if end < 0 {
			t.Fatalf("the feedback's fence %q is not closed:\n%s", fence, fb)
		}
		if strings.Contains(body[:end], fence) {
			t.Errorf("the feedback holds its own fence %q", fence)
		}
	}
}

func TestMdText(t *testing.T) {
	for in, want := range map[string]string{
		"plain words":          "plain words",
		"a*b_c`d`":             "a\\*b\\_c\\`d\\`",
		"<b>&amp;</b>":         "&lt;b&gt;&amp;amp;&lt;/b&gt;",
		"two\nlines\r":         "two lines ",
		"@x #2":                "@\u200bx #\u200b2",
		"http://a www.b":       "http:\u200b//a www\u200b.b",
		"| cell |":             "\\| cell \\|",
		"[t](u) ![i](j)":       "\\[t\\]\\(u\\) \\!\\[i\\]\\(j\\)",
		"bad \xff utf8":        "bad \ufffd utf8",
		"a \"quoted\" example": "a &quot;quoted&quot; example",
	} {
		if got := mdText(in); got != want {
			t.Errorf("mdText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := fenced("a ``` b ```` c"); !strings.HasPrefix(got, "`````\n") {
		t.Errorf("fenced: %q", got)
	}
}
