package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vouchgate/vouch"
)

// FuzzParse checks that Parse and Apply never panic, and that whatever they
// accept, Show writes out so that it parses and applies to the same policy.
func FuzzParse(f *testing.F) {
	seeds := []string{
		"",
		"passAt: 0.8\n",
		"passAt: high\n",
		"passat: 1\nclaims: {sizeTolerence: 2}\n",
		"commands:\n  allow:\n    - [go, test]\n  timeout: 90\n",
		"commands: {timeout: 1.5}\n",
		"commands: {timeout: 5 minutes}\n",
		"weights: {subtask: {claims: 1e-7}, essay: {x: 1}}\n",
		"pluginSchemas:\n  s: {type: object, enum: [null, 1.0, -0.0, '<<', 'true', \"\\t\"], x: 0x1F}\n",
		"pluginSchemas: {a: &a {b: 1}, c: {<<: *a, d: [*a, *a]}}\n",
		"errorWords: &w [a, b]\nrequiredTopics: *w\n",
		"a: b\n c: d",
		"- 1\n",
		"passAt: 0.8\n---\npassAt: 0.9\n",
		`{"passAt": 0.9, "errorWords": ["\ud83d\ude00", "a\/b"]}`,
		`{"passAt": 0.9,}`,
		"judge: {models: [a/b], samples: 3, timeout: 1h30m}\n",
		"infer: {counts: false}\nmaxRetries: 1e3\n",
		"requiredTopics: [2001-12-14, '12', !!str 3, \"\\u2028\\x85\\0\", ' lead', 'trail ', '#x', '- x', '? x', 'a: b']\n",
		"pluginSchemas:\n  \"? weird: key\": {\"<<\": 1, \"\": [], \"-\": {}}\n  " + strings.Repeat("k", 1100) + ": true\n",
		"errorWords:\n  - |\n    multi\n    line\n  - >\n    folded\n    text\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	for _, name := range []string{"team.yaml", "mission.yaml", "policy.json", "anchors.yaml", "bad_keys.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Parse("fuzz.yaml", data)
		if err != nil {
			for _, e := range vouch.ErrorList(err) {
				if e.Code == vouch.ErrInternal || e.Message == "" {
					t.Fatalf("Parse: bad error %#v", e)
				}
			}
			return
		}
		p := vouch.DefaultPolicy()
		if err := l.Apply(&p); err != nil {
			t.Fatalf("Apply after a clean Parse = %v", err)
		}
		out, err := Show(p)
		if err != nil {
			t.Fatalf("Show = %v", err)
		}
		l2, err := Parse("shown.yaml", out)
		if err != nil {
			t.Fatalf("Parse(Show(p)) = %v\n%s", err, out)
		}
		q := vouch.DefaultPolicy()
		if err := l2.Apply(&q); err != nil {
			t.Fatalf("Apply(Show(p)) = %v\n%s", err, out)
		}
		if diff := cmp.Diff(p, q); diff != "" {
			t.Fatalf("Show round trip (-p +q):\n%s\n%s", diff, out)
		}
	})
}

// FuzzApplyRequest checks that ApplyRequest never panics, and that whatever
// it accepts is valid and no wider than the policy in force.
func FuzzApplyRequest(f *testing.F) {
	for _, s := range []string{
		``, `null`, `{}`, `[]`, `{"passAt": 0.9}`, `{"passAt": 0.1}`,
		`{"commands": {"allow": [["go", "test", "./..."]], "shell": false, "timeout": "10s"}}`,
		`{"commands": {"allow": [["rm"]], "shell": true, "timeout": 1e9}}`,
		`{"errorWords": ["error", "failed", "x"], "requiredTopics": ["security", "y"]}`,
		`{"pluginSchemas": {"fetch": {"type": "object"}, "search": true}}`,
		`{"infer": {"counts": false}, "claims": {"strictIsMustPass": false, "sizeTolerance": 0}}`,
		`{"judge": {"samples": 2}}`, `{"weights": {"answer": {"criteria": 1}}}`,
		`{"maxRetries": 0, "maxRefuted": 0, "onUnverified": "fail", "failBelow": 0.7, "reviewBelow": 1}`,
	} {
		f.Add([]byte(s))
	}
	base := requestBase()
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := ApplyRequest(base, raw)
		if err != nil {
			for _, e := range vouch.ErrorList(err) {
				if e.Code == vouch.ErrInternal || !strings.HasPrefix(e.Path, requestPath) {
					t.Fatalf("ApplyRequest: bad error %#v", e)
				}
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("ApplyRequest accepted an invalid policy: %v", err)
		}
		if errs := widenings(&base, &p, &Layer{}); len(errs) > 0 {
			t.Fatalf("ApplyRequest accepted a wider policy: %v", errs)
		}
	})
}
