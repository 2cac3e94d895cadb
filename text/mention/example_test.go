package mention_test

import (
	"fmt"

	"github.com/vouchgate/vouch/text/mention"
)

func ExampleParse() {
	doc := mention.Parse("Added JSDoc comments to all 4 exported functions in `src/parser.ts:12`. " +
		"Latency fell to 120ms since March 2024 (see https://example.com/bench).")
	for _, m := range doc.Mentions {
		fmt.Printf("%s %q norm=%q sentence=%d\n", m.Kind, m.Text, m.Norm, m.Sentence)
	}
	// Output:
	// quantity "4 exported functions" norm="4 function" sentence=0
	// file "src/parser.ts:12" norm="src/parser.ts" sentence=0
	// number "120ms" norm="120" sentence=1
	// date "March 2024" norm="2024-03" sentence=1
	// url "https://example.com/bench" norm="https://example.com/bench" sentence=1
}

func ExampleSentences() {
	for _, s := range mention.Sentences("## Summary\n\n- Fixed parser.ts, e.g. the 3.14 case. Tests pass.\n- Bumped v1.2.3") {
		fmt.Printf("%q\n", s.Text)
	}
	// Output:
	// "Summary"
	// "Fixed parser.ts, e.g. the 3.14 case."
	// "Tests pass."
	// "Bumped v1.2.3"
}
