// Package support decides whether what a text claims is supported by a set
// of documents: the sources of a research answer, the tool outputs of a
// trace, the agent outputs a synthesis draws on, the utterances of a
// moderated discussion. It is the second half of grounding, after package
// mention: mentions are extracted from both sides by the same extractor, and
// matched after normalisation (number formats and units, dates written
// differently, case, plurals, JSON records as sources).
//
// A bare substring is not support: "15" is not supported by a source that
// says "2015" or "150", and "Paris" is not supported by "Parisian".
//
// Use: build an [Index] of the sources once ([NewIndex]; request sources
// given as raw JSON go through [FromJSON] first), then read the claims of
// an answer parsed by [mention.Parse] ([Index.Claims]). [Hallucinated],
// [Unsupported] and [Groundedness] sum the claims up for a response.
//
// What counts as the same thing is documented on [Index.Find]; in short:
//
//   - numbers are compared after unit conversion (ms, s, min, h; mm, m,
//     km; g, kg; bytes; percent, where 25% is also 0.25; each currency on
//     its own); a number written with a decimal point or a scale word is
//     read as rounded to its last digit ("3.2 million" holds for
//     3,150,000 to 3,250,000); a whole number in digits must match
//     exactly; a hedge before a number ("about", "roughly") widens the
//     match to half its last significant digit, at most 10% ("about 50"
//     holds for 45 to 55), and a bound ("more than", "under") is read as
//     one, up to a factor of two;
//   - dates match at the precision written ("March 2024" by "2024-03-05");
//   - names match by the same words in the same order, with case, accents,
//     possessives and plurals folded;
//   - quantities match by count and noun;
//   - quoted phrases of two words or more must appear in one source.
//
// A source also supports the values it implies without writing them: the
// minutes between two clock times of one sentence ("from 14:02 to 14:16"
// holds "14 minutes"), a duration in hours and minutes as one figure ("2 h
// 50 min" holds "about 3 hours"), a JSON duration string ("15m").
//
// Sources are also compared with each other: [Index.Conflicts] finds one
// thing given two values, a statement one source affirms and another
// denies, a file one created and another deleted; [Index.Stance] tells
// which side a text takes; [Index.Drawn] tells which sources a text draws
// on in its own words. A source marked Aside (the task beside agent
// outputs) supports claims but is not compared.
//
// What rules cannot see: a claim with no number, date, name, quantity or
// quote ("the deal was cancelled") is neither supported nor refuted; nor is
// a wrong relation between things the sources do hold (a value moved to
// another year or entity, a buyer and a target swapped, a direction
// reversed), nor an inference the sources only imply (a computed growth
// rate is unsupported). Such claims need a judge.
package support

import "github.com/vouchgate/vouch/text/mention"

// Source is one document that can support a claim.
type Source struct {
	// ID names the source in evidence: "sources[2]", "trace[7]",
	// "outputs[researcher]", "discussion[3]".
	ID string
	// Text is the document's text. A JSON record is given as its JSON text;
	// see [FromJSON].
	Text string
	// Aside marks a source that supports claims but is not one of the
	// documents compared: the task given alongside agent outputs.
	// [Index.Conflicts] and [Index.Drawn] leave it out.
	Aside bool

	// rec is what FromJSON read, when it made the source.
	rec *record
}

// Atom is one checkable part of a claim: a number, date, entity, quantity,
// or quoted phrase.
type Atom struct {
	// Kind is "number", "date", "entity", "quantity" or "quote".
	Kind string
	// Text is the atom as written in the claim; for a quote, the words
	// inside the quotation marks.
	Text string
	// Norm is its normalised form (see [mention.Mention.Norm]); for a
	// quote, its words in lower case, parts around an ellipsis joined by
	// " … ".
	Norm string
}

// Contradiction is an atom of a claim that a source contradicts: the same
// thing with another value ("revenue of $3.2M" where the source says $2.9M).
type Contradiction struct {
	// Atom is the claim's atom.
	Atom Atom
	// Source is the ID of the contradicting source.
	Source string
	// Found is the source's value as written there.
	Found string
}

// Claim is one sentence of a text with what supports it.
type Claim struct {
	// Sentence is the claim's sentence.
	Sentence mention.Span
	// Sources are the IDs of the sources that support the claim, best first.
	// A source supports a claim when it holds one of its atoms, or at least
	// half of its content words (two or more); sources are ranked by the
	// atoms they hold, then by content words, then in index order.
	Sources []string
	// Unsupported are atoms no source holds, in sentence order (mentions
	// first, then quotes).
	Unsupported []Atom
	// Contradicted are atoms a source contradicts. A contradicted atom is
	// also in Unsupported: no source holds it, and one gives its subject
	// another value.
	Contradicted []Contradiction
	// Undecided are atoms no source holds or contradicts that the rules
	// cannot read either way, left to a judge: a quote one source sentence
	// holds most of the words of, but not as written (a paraphrase in
	// quotation marks, or a misquote); a count a source holds beside
	// another noun; a year a source leaves to be worked out ("August last
	// year"). They are neither supported nor unsupported.
	Undecided []Atom
	// Overlap is the share of the sentence's content words found in its
	// best source, in [0,1]. Content words are folded words that are not
	// stop words, numbers or units; the best source is the first by the
	// ranking of Sources, whether or not it is listed.
	Overlap float64
	// Ordered is the share of the sentence's key words taken in pairs, in
	// order (content words, the digits of its numbers, and its negations:
	// "not", "never"...), that some sentence of a source holds as
	// neighbouring key words, in [0,1]. Where Overlap finds the words, it
	// finds them said together: "touched 0.505%" against "touched 0.5%",
	// "was not arrested" against "was arrested", "emergency loan buying"
	// against "emergency bond buying" all lose a pair. A sentence with one
	// key word has it held when a source holds that word; with none, 1.
	Ordered float64
	// Checkable reports whether the claim has atoms a rule can check (not
	// counting Undecided ones); a sentence of plain prose has none and is
	// neither supported nor refuted by atoms alone.
	Checkable bool
}

// Supported reports whether the claim has no unsupported and no
// contradicted atoms.
func (c *Claim) Supported() bool {
	return len(c.Unsupported) == 0 && len(c.Contradicted) == 0
}
