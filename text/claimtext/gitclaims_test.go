package claimtext

import (
	"strings"
	"testing"
)

func TestGitClaims(t *testing.T) {
	for _, tt := range []struct {
		summary string
		want    string // kinds, in order
	}{
		{"Everything is clean and pushed.", "push"},
		{"Yes — everything is pushed and clean: nothing to commit, working tree clean.", "push clean"},
		{"gqc.6 done and pushed. Committed as 05fd186.", "push commit"},
		{"All 4 tasks completed and pushed:", "push"},
		{"Merged the branch into main and pushed it.", "merge push"},
		{"I have not pushed yet.", ""},
		{"The branch is committed but not pushed.", "commit"},
		{"Did you push?", ""},
		{"Now let me commit and push.", ""},
		{"I'll make sure everything is committed.", ""},
		{"If it is pushed, CI runs.", ""},
		{"Push the branch when you are ready.", ""},
		{"Merged `TranscriptSelection` into `TranscriptHighlighter`.", ""},
		{"Merged the PR.", "merge"},
		{"The handler pushes events to the queue.", ""},
	} {
		var kinds []string
		for _, c := range GitClaims(tt.summary) {
			kinds = append(kinds, c.Kind)
		}
		if got := strings.Join(kinds, " "); got != tt.want {
			t.Errorf("%q: %q, want %q", tt.summary, got, tt.want)
		}
	}
}
