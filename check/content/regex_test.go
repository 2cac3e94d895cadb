package content

import (
	"context"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
)

func TestRegex(t *testing.T) {
	cases := []tc{
		{name: "match", spec: `{"type":"regex","pattern":"\\d+ tests? passed"}`, summary: "ok\nran: 12 tests passed",
			status: vouch.StatusPass, reason: `output.summary matches "\\d+ tests? passed"`,
			evidence: map[string]any{"pattern": `\d+ tests? passed`, "target": "output.summary", "line": 2, "match": "12 tests passed"}},
		{name: "no match", spec: `{"type":"regex","pattern":"^DONE$"}`, summary: "not DONE yet",
			status: vouch.StatusFail, code: vouch.CodePatternNotFound, reason: `does not match "^DONE$"`,
			evidence: map[string]any{"pattern": "^DONE$"}},
		{name: "multiline flag", spec: `{"type":"regex","pattern":"(?m)^DONE$"}`, summary: "not yet\nDONE\n",
			status: vouch.StatusPass, evidence: map[string]any{"line": 2}},
		{name: "case flag", spec: `{"type":"regex","pattern":"(?i)done"}`, summary: "Done.",
			status: vouch.StatusPass},
		{name: "file target", spec: `{"type":"regex","pattern":"func \\w+\\(","target":"main.go"}`,
			files: map[string]string{"main.go": "package main\n\nfunc main() {}\n"}, status: vouch.StatusPass,
			evidence: map[string]any{"target": "main.go", "line": 3, "match": "func main("}},
	}
	cases = append(cases, targetCases("regex", `,"pattern":"x"`)...)
	runCases(t, cases)
}

func TestRegexCompileErrors(t *testing.T) {
	cases := []errCase{
		{name: "missing pattern", spec: `{"type":"regex"}`, path: "pattern", code: vouch.ErrCriterion, msg: "is required"},
		{name: "empty pattern", spec: `{"type":"regex","pattern":""}`, path: "pattern", code: vouch.ErrCriterion},
		{name: "bad pattern", spec: `{"type":"regex","pattern":"a(b"}`, path: "pattern", code: vouch.ErrCriterion, msg: "missing closing )"},
		{name: "backreference", spec: `{"type":"regex","pattern":"(a)\\1"}`, path: "pattern", code: vouch.ErrCriterion, msg: "invalid escape"},
		{name: "pattern wrong type", spec: `{"type":"regex","pattern":["a"]}`, path: "pattern", code: vouch.ErrType},
		{name: "program too large", spec: `{"type":"regex","pattern":"[a-z ]{1,1000}[0-9]{1,1000}[A-Z]{1,1000}[a-z]{1,1000}[0-9]{1,1000}[a-z]{1,1000}"}`, path: "pattern", code: vouch.ErrCriterion, msg: "over the limit"},
	}
	cases = append(cases, commonErrCases("regex", `,"pattern":"x"`)...)
	runErrCases(t, cases)
}

// TestRegexBoundedWork: a pattern whose matching would take tens of seconds
// on a long text ([a-z ]{1,1000}X on 3.5 MB) is not tried: undecided,
// INPUT_TOO_LARGE, at once. The same pattern on a short text is matched.
func TestRegexBoundedWork(t *testing.T) {
	c, err := newRegex(vouch.NewCheckSpec("regex", false, map[string]any{"pattern": "[a-z ]{1,1000}X"}), check.Env{})
	if err != nil {
		t.Fatal(err)
	}
	pol := vouch.DefaultPolicy()
	long := &vouch.Subject{Request: &vouch.Request{Output: vouch.Output{Summary: strings.Repeat("abcdefghij ", 320_000)}}, Policy: &pol}
	if o := c.Check(context.Background(), long); o.Status != vouch.StatusUndecided || o.Code != vouch.CodeInputTooLarge {
		t.Errorf("3.5 MB: got %s %s (%s)", o.Status, o.Code, o.Reason)
	}
	short := &vouch.Subject{Request: &vouch.Request{Output: vouch.Output{Summary: "abc X"}}, Policy: &pol}
	if o := c.Check(context.Background(), short); o.Status != vouch.StatusPass {
		t.Errorf("short: got %s %s (%s)", o.Status, o.Code, o.Reason)
	}
	// A cheap pattern on a text over limits.regexBytes is not tried either.
	pol.Limits.RegexBytes = 1000
	c2, _ := newRegex(vouch.NewCheckSpec("regex", false, map[string]any{"pattern": "X"}), check.Env{})
	if o := c2.Check(context.Background(), long); o.Status != vouch.StatusUndecided || o.Code != vouch.CodeInputTooLarge {
		t.Errorf("over regexBytes: got %s %s", o.Status, o.Code)
	}
}
