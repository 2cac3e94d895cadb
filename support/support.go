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
package support

import "github.com/vouchgate/vouch/mention"

// Source is one document that can support a claim.
type Source struct {
	// ID names the source in evidence: "sources[2]", "trace[7]",
	// "outputs[researcher]", "discussion[3]".
	ID string
	// Text is the document's text. A JSON record is given as its JSON text;
	// see [FromJSON].
	Text string

	// rec is what FromJSON read, when it made the source.
	rec *record
}

// Atom is one checkable part of a claim: a number, date, entity, quantity,
// or quoted phrase.
type Atom struct {
	// Kind is "number", "date", "entity", "quantity" or "quote".
	Kind string
	// Text is the atom as written in the claim.
	Text string
	// Norm is its normalised form (see [mention.Mention.Norm]).
	Norm string
}

// Contradiction is an atom of a claim that a source contradicts: the same
// thing with another value ("revenue of $3.2M" where the source says $2.9M).
type Contradiction struct {
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
	Sources []string
	// Unsupported are atoms no source holds.
	Unsupported []Atom
	// Contradicted are atoms a source contradicts.
	Contradicted []Contradiction
	// Overlap is the share of the sentence's content words found in its
	// best source, in [0,1].
	Overlap float64
	// Checkable reports whether the claim has atoms a rule can check; a
	// sentence of plain prose has none and is neither supported nor refuted
	// by atoms alone.
	Checkable bool
}

// Supported reports whether the claim has no unsupported and no
// contradicted atoms.
func (c *Claim) Supported() bool {
	return len(c.Unsupported) == 0 && len(c.Contradicted) == 0
}
