package support

import (
	"testing"

	"github.com/vouchgate/vouch/text/mention"
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

// FuzzConflicts checks that no pair of sources makes finding conflicts,
// reading a text's stance or what it draws on fail, and that conflicts keep
// their invariants.
func FuzzConflicts(f *testing.F) {
	f.Add("The p99 latency of /search is 340 ms.", "Rerun: the p99 latency of /search is 120 ms.", "The p99 latency of /search is 120 ms.")
	f.Add("parseConfig is thread-safe.", "parseConfig isn't thread-safe; the flag is OFF.", "Whether parseConfig is thread-safe is unclear.")
	f.Add("Created db/1.sql at 10:05.", "Deleted db/1.sql by 10:47 (2 h 5 min).", "db/1.sql was deleted.")
	f.Add(`{"api":"search","p99_ms":340,"window":"15m"}`, `[{"api":"search","p99_ms":120}]`, "Before the fix, 3–9 June: 100k-entry.")
	f.Add("At 9 pm the copy had run for 3 h.", `{"t":"two hours 5 min"}`, "It ran 3 h 5 min.")
	f.Fuzz(func(t *testing.T, a, b, answer string) {
		ix := NewIndex([]Source{{ID: "a", Text: a}, FromJSON("b", []byte(b)), {ID: "g", Text: answer, Aside: true}})
		doc := mention.Parse(answer)
		cs := ix.Conflicts()
		if len(cs) > maxConflicts {
			t.Fatalf("%d conflicts", len(cs))
		}
		for i := range cs {
			c := &cs[i]
			if c.A.Source == c.B.Source || c.A.Source == "g" || c.B.Source == "g" {
				t.Fatalf("conflict between %q and %q", c.A.Source, c.B.Source)
			}
			switch c.Kind {
			case ConflictValue, ConflictPolarity, ConflictFile:
			default:
				t.Fatalf("kind %q", c.Kind)
			}
			if s := ix.Stance(c, doc); s < StanceNone || s > StanceBoth {
				t.Fatalf("stance %d", s)
			}
		}
		if d := ix.Drawn(answer); len(d) != 3 || d[2] {
			t.Fatalf("drawn %v", d)
		}
	})
}
