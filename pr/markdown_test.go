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
	for _, want := range []string{CommentMarker, "vouch: RETRY", "| ❌ | claims\\.git `NO_CHANGE` |", "claims\\.tests `TEST_CLAIM_CONTRADICTED`", "**Feedback**\n\n```\n", short(res.MergeBase)} {
		if !strings.Contains(md, want) {
			t.Errorf("the comment lacks %q:\n%s", want, md)
		}
	}
	// Failures come before passes.
	if strings.Index(md, "| ❌ |") > strings.Index(md, "| ✅ |") && strings.Contains(md, "| ✅ |") {
		t.Errorf("a pass is listed before a failure:\n%s", md)
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
