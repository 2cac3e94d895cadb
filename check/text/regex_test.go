package text

import (
	"testing"

	"github.com/vouchgate/vouch"
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
	}
	cases = append(cases, commonErrCases("regex", `,"pattern":"x"`)...)
	runErrCases(t, cases)
}
