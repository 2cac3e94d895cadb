package support

import (
	"testing"

	"github.com/vouchgate/vouch/mention"
)

// FuzzClaims checks that no source or answer makes indexing or reading
// claims fail, and that the claims keep their invariants.
func FuzzClaims(f *testing.F) {
	f.Add(`{"company":"Acme","revenue_usd":3200000,"year":2023}`, "Acme made $3.5 million in 2023.")
	f.Add("Acme was founded in 1998 in Denver.", `Acme was founded in 1996. She said "a record year".`)
	f.Add(`[{"a":[1,2,{"b":null}]},"x",true]`, "# T\n\n```\ncode 42\n```\n- about 3 million “quoted words here”")
	f.Add("$ % 1,2,3 -- 2024-13-45 Q5 2023", "$ about more than 0.0 “” \"\" 's ’s")
	f.Fuzz(func(t *testing.T, source, answer string) {
		ix := NewIndex([]Source{FromJSON("a", []byte(source)), {ID: "b", Text: source}})
		claims := ix.Claims(mention.Parse(answer))
		for _, c := range claims {
			if c.Overlap < 0 || c.Overlap > 1 {
				t.Fatalf("overlap %v", c.Overlap)
			}
			if len(c.Contradicted) > len(c.Unsupported) {
				t.Fatalf("more contradicted than unsupported: %+v", c)
			}
			if c.Sentence.Start < 0 || c.Sentence.End > len(answer) {
				t.Fatalf("sentence %+v outside the answer", c.Sentence)
			}
		}
		for _, m := range mention.Parse(answer).Mentions {
			ix.Find(m)
		}
	})
}
