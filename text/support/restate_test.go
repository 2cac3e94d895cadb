package support

import (
	"slices"
	"testing"

	"github.com/vouchgate/vouch/text/mention"
)

// restateCase is an answer checked against its sources, with the atoms that
// must come out unsupported (nil: the answer is supported).
type restateCase struct {
	name        string
	sources     []string // JSON text when it starts with { or [, else prose
	answer      string
	unsupported []string
}

// runRestate checks each case's unsupported atoms.
func runRestate(t *testing.T, cases []restateCase) {
	t.Helper()
	for _, c := range cases {
		var srcs []Source
		for i, s := range c.sources {
			id := "sources[" + string(rune('0'+i)) + "]"
			if s != "" && (s[0] == '{' || s[0] == '[') {
				srcs = append(srcs, FromJSON(id, []byte(s)))
			} else {
				srcs = append(srcs, Source{ID: id, Text: s})
			}
		}
		var got []string
		for _, cl := range NewIndex(srcs).Claims(mention.Parse(c.answer)) {
			for _, a := range cl.Unsupported {
				got = append(got, a.Text)
			}
		}
		if !slices.Equal(got, c.unsupported) {
			t.Errorf("%s: unsupported %q, want %q", c.name, got, c.unsupported)
		}
	}
}

// TestSelfCount: the line that introduces an answer may count the
// answer's words; no source holds that count.
func TestSelfCount(t *testing.T) {
	src := []string{"The council approved the new budget of $4 million on Tuesday after a long debate."}
	runRestate(t, []restateCase{
		{"words, introducing", src, "Here is a summary of the article in 94 words:\n\nThe council approved a $4 million budget.", nil},
		{"or less", src, "Here's the summary within 120 words or less:\n\nThe council approved a $4 million budget.", nil},
		{"not introducing", src, "The council debated 94 words of the budget.", []string{"94"}},
		{"not a text unit", src, "Here are the 94 changes in the budget:\n\nThe council approved a $4 million budget.", []string{"94 changes"}},
	})
}
