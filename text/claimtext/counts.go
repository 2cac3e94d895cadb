package claimtext

// CountClaim is a claim that an action was done to a number of things: "Added
// JSDoc comments to all 4 exported functions" is {Number: 4, All: true, Noun:
// "function", Action: "document"}.
type CountClaim struct {
	// Text is the matched phrase, from the verb (when it comes first) to the
	// noun, the listed items or the verb after them.
	Text string
	// Sentence is the sentence the claim is in, with markdown markers removed.
	Sentence string
	// Number is the count claimed. It is the number of items for a list
	// without a count ("documented parse, tokenize and format": 3), and 0 with
	// All for "all the X" without a count ("Added docstrings to every public
	// function"), where the caller takes the count from the task.
	Number int
	// Total is M in "N of M" and "N/M" ("documented 1 of 4 methods"), else 0.
	Total int
	// All says the count covers every item meant: "all 4", "each of the 4",
	// "every one of the 4", "both", "4 of 4", "12/12".
	All bool
	// Noun is the noun class of the things counted, singular: "function",
	// "method", "class", "type", "symbol", "file", "module", "test",
	// "endpoint", "section", "comment", "field", "parameter", "variable",
	// "bug", "component", "change", "commit", "line", "task", "dependency",
	// "import", "example", "migration", "check", "doc", "config" (see the
	// claim-nouns list of text/lex). A list of items without a noun is "symbol",
	// or "file" when every item is a path. Empty when the noun is elided and
	// cannot be recovered.
	Noun string
	// Action is the action class: "document", "add", "create", "implement",
	// "modify", "update", "refactor", "delete", "rename", "move", "fix",
	// "test", "verify", "complete", "commit", "install", "run", and the test
	// results "pass", "fail", "skip" (see the actionVerbs table). Adding doc
	// comments is "document"; writing tests for things is "test".
	Action string
	// Items are the things named, when listed: "parse, tokenize and format",
	// "`parse`, `tokenize`" (without backticks and a trailing "()").
	Items []string
	// Negated says the agent claims the action was NOT done to these items: a
	// gap ("4 methods remain undocumented", "3 methods still lack JSDoc") or a
	// denial ("I did not modify the other 2 files"). A negated claim is never
	// a claim of completion.
	Negated bool
}

// Counts returns the count claims of an agent's summary, in the order they
// appear. Future intentions, instructions, questions and conditions are not
// claims and are left out; gaps and denials are returned with Negated set.
// See the package documentation for what counts as a claim.
func Counts(summary string) []CountClaim {
	sc := newScanner(summary)
	defer sc.release()
	var out []CountClaim
	for sc.next() {
		if !sc.question {
			sc.findCands()
			for i := range sc.cands {
				if c := &sc.cands[i]; !c.excluded && c.action != "" {
					out = append(out, sc.claim(c))
				}
			}
		}
		sc.lastNoun()
	}
	return out
}

// claim builds the CountClaim of a resolved candidate.
func (sc *scanner) claim(c *cand) CountClaim {
	cc := CountClaim{
		Text:     sc.span(c.spanLo, c.spanHi),
		Sentence: sc.s,
		Number:   c.num,
		Total:    c.total,
		All:      c.all,
		Noun:     c.noun,
		Action:   c.action,
		Negated:  c.neg,
	}
	if c.itemHi > c.itemLo {
		cc.Items = make([]string, 0, c.itemHi-c.itemLo)
		for _, k := range sc.items[c.itemLo:c.itemHi] {
			cc.Items = append(cc.Items, sc.itemText(k))
		}
	}
	return cc
}
