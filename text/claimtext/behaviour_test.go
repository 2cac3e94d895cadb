package claimtext

import (
	"fmt"
	"strings"
	"testing"
)

func ExampleBehaviourClaims() {
	for _, c := range BehaviourClaims("Renamed the helper; no behaviour change.\nThere should be no functional change for users.\n- No behavior changes for existing callers") {
		fmt.Printf("%q qualified=%v\n", c.Text, c.Qualified)
	}
	// Output:
	// "no behaviour change" qualified=false
	// "No behavior changes" qualified=true
}

func TestBehaviourClaims(t *testing.T) {
	for _, tt := range []struct {
		text string
		want string // "" for no claim; else the phrase, with " (qualified)" when so
	}{
		{"No behaviour change.", "No behaviour change"},
		{"No behavior changes", "No behavior changes"},
		{"No functional changes, only renames.", "No functional changes"},
		{"This PR has no logic changes at all.", "no logic changes"},
		{"No changes to the behaviour.", "No changes to the behaviour"},
		{"Behaviour is unchanged.", "Behaviour is unchanged"},
		{"The behavior remains the same.", "behavior remains the same"},
		{"It does not change any behaviour.", "does not change any behaviour"},
		{"It doesn't change behavior.", "doesn't change behavior"},
		{"Moves the tests around without changing the logic.", "without changing the logic"},
		{"Purely cosmetic.", "Purely cosmetic"},
		{"A non-functional change: comments only.", "non-functional change"},
		{"**No behaviour change** for existing callers.", "No behaviour change (qualified)"},
		{"No functional change except the new `--verbose` flag.", "No functional change (qualified)"},
		{"Fixes the off-by-one in `Last`; otherwise no behaviour change.", "no behaviour change (qualified)"},
		{"Apart from the fix, no behaviour change.", "no behaviour change (qualified)"},
		{"Other than the new log line, no functional changes.", "no functional changes (qualified)"},
		{"For existing users, behaviour is unchanged.", "behaviour is unchanged (qualified)"},
		{"Besides the timeout fix there are no logic changes.", "no logic changes (qualified)"},
		{"No behaviour change intended.", "No behaviour change (qualified)"},
		{"Renamed a variable. No behaviour change.", "No behaviour change"},
		// No claim.
		{"There should be no behaviour change.", ""},
		{"If there is no behaviour change, merge it.", ""},
		{"Is there no behaviour change?", ""},
		{"I will make sure there is no behavior change.", ""},
		{"This is a behaviour change: the default timeout is now 60s.", ""},
		{"Changes the behaviour of the parser.", ""},
		{"Expect no functional change.", ""},
		{"```\nno behaviour change\n```", ""},
		{"There is not a case with no behaviour change here.", ""},
	} {
		got := BehaviourClaims(tt.text)
		var s []string
		for _, c := range got {
			x := c.Text
			if c.Qualified {
				x += " (qualified)"
			}
			s = append(s, x)
		}
		if strings.Join(s, "|") != tt.want {
			t.Errorf("BehaviourClaims(%q) = %q, want %q", tt.text, s, tt.want)
		}
	}
}
