package claimtext

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRunClaims(t *testing.T) {
	type claim struct {
		Text     string
		Outcomes []string
	}
	for _, tt := range []struct {
		summary string
		want    []claim
	}{
		{"I verified the fix: the reproduction script now raises a clear `ValueError: n must be positive`.",
			[]claim{{"verified", []string{"ValueError: n must be positive"}}}},
		{"The function now raises ValueError instead of crashing with a TypeError.",
			[]claim{{"now raises", []string{"ValueError"}}}},
		{"Tested the change with repro.py and it now prints 42.", []claim{{"Tested", []string{"42"}}}},
		{"I've verified that the fix works.", []claim{{"verified", nil}}},
		{"Confirmed the crash is fixed.", []claim{{"Confirmed", nil}}},
		{`It now returns "ok" for empty input.`, []claim{{"now returns", []string{"ok"}}}},
		// Not run claims.
		{"Let me verify the fix works.", nil},
		{"I have not tested the change.", nil},
		{"I verified the config has the new key.", nil},
		{"All 40 tests pass, verified with `go test ./...`.", nil},
		{"Tested with the full test suite: everything passes.", nil},
		{"Did you verify it works?", nil},
		{"The parser returns a list of tokens.", nil},
		{"You should verify that it works on Windows.", nil},
	} {
		var got []claim
		for _, c := range RunClaims(tt.summary) {
			got = append(got, claim{c.Text, c.Outcomes})
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("RunClaims(%q) (-want +got):\n%s", tt.summary, diff)
		}
	}
}
