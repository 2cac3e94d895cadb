package moderation

import (
	"strings"

	"github.com/vouchgate/vouch/text/lex"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/text/mention"
)

// Point kinds.
const (
	pointDecision = "decision" // marked as decided or agreed
	pointAction   = "action"   // a participant takes a task on
	pointShared   = "shared"   // raised by several participants
)

// minShared is the number of content words two turns must share to raise
// one point: two ("roll back", "disk alerts") are often just the topic.
const minShared = 3

// point is a key point of a discussion: one a summary must keep.
type point struct {
	kind     string
	text     string   // what to quote: a sentence, or the shared words
	speakers []string // who raised it
	terms    []string // its stems, in order, without repeats
}

// Markers, matched in lower case on word boundaries.
var (
	decisionMarkers = []string{"decision", "decided", "let's go with", "lets go with",
		"we'll go with", "we will go with", "go ahead with", "agreed", "we agree", "settled on",
		"final call", "the plan is"}
	actionMarkers = []string{"action item", "i'll", "i’ll", "i will", "we'll", "we’ll", "we will",
		"will own", "to do:", "todo:", "i can take", "i'll take", "assigned to"}
	agreeMarkers = []string{"agreed", "good", "fine", "okay", "ok", "sounds good", "+1", "yes",
		"makes sense", "works for me", "same", "sure", "let's do", "do it"}
	proposalMarkers = lex.Named("proposal-markers").Words()
	// negations: a decision that is negated ("no decision yet", "we haven't
	// decided") is none.
	negations = lex.Named("decision-negations").Words()
)

// hasMarker reports whether lower-cased s holds one of markers on word
// boundaries.
func hasMarker(s string, markers []string) bool {
	for _, m := range markers {
		for i := 0; ; {
			j := strings.Index(s[i:], m)
			if j < 0 {
				break
			}
			start, end := i+j, i+j+len(m)
			if (start == 0 || !wordChar(s[start-1])) && (end == len(s) || !wordChar(s[end]) || !wordChar(m[len(m)-1])) {
				return true
			}
			i = start + 1
		}
	}
	return false
}

func wordChar(c byte) bool {
	return c == '_' || c == '\'' || isDigit(c) || c >= 'a' && c <= 'z' || c >= 0x80
}

// turnSentence is a sentence (or a part between semicolons) of a turn.
type turnSentence struct {
	text  string
	lower string
	terms []string
}

// turn is one utterance, read.
type turn struct {
	speaker   string
	sentences []turnSentence
	terms     termSet
}

func readTurns(disc []vouch.Utterance) []turn {
	out := make([]turn, len(disc))
	for i, u := range disc {
		t := turn{speaker: strings.TrimSpace(u.Speaker), terms: termSet{}}
		for _, sp := range mention.Sentences(u.Text) {
			for _, part := range strings.Split(sp.Text, ";") {
				part = strings.TrimSpace(part)
				if part == "" {
					continue
				}
				ts := unique(terms(part))
				t.sentences = append(t.sentences, turnSentence{text: part, lower: strings.ToLower(part), terms: ts})
				for _, x := range ts {
					t.terms[x] = true
				}
			}
		}
		out[i] = t
	}
	return out
}

// keyPoints returns the points of a discussion a summary must keep:
//
//   - decisions: sentences marked as decided or agreed ("Decision: ...",
//     "We decided to ...", "Let's go with ...", "Agreed, we pin ..."); a
//     bare agreement ("Agreed.", "Fine by me.") makes the proposals of the
//     turn before it ("We should ...", "Let's ...") decisions;
//   - actions: a participant taking a task on ("I'll ...", "Action item:
//     Priya writes ..."), with the speaker as one of its words;
//   - shared points: what two participants both speak of, three or more
//     content words their turns share.
//
// A remark one participant makes in passing is none of these.
func keyPoints(turns []turn, names termSet) []point {
	var out []point
	seen := map[string]bool{}
	add := func(p point) {
		p.terms = withoutNames(p.terms, names, p.kind == pointAction)
		if len(p.terms) < 2 {
			return
		}
		k := p.kind + "\x00" + strings.Join(p.terms, " ")
		if seen[k] {
			return
		}
		seen[k] = true
		out = append(out, p)
	}
	for i, t := range turns {
		for _, s := range t.sentences {
			bare := len(withoutNames(s.terms, names, false)) < 2
			switch {
			case bare && (hasMarker(s.lower, agreeMarkers) || hasMarker(s.lower, decisionMarkers)) && !hasMarker(s.lower, negations):
				// A bare agreement: the proposals it agrees to are decided.
				for _, p := range proposalsBefore(turns, i) {
					add(point{kind: pointDecision, text: p.text, speakers: []string{t.speaker}, terms: p.terms})
				}
			case hasMarker(s.lower, decisionMarkers) && !hasMarker(s.lower, negations):
				add(point{kind: pointDecision, text: s.text, speakers: []string{t.speaker}, terms: s.terms})
			case hasMarker(s.lower, actionMarkers):
				ts := s.terms
				if o := owner(s.lower, t.speaker, names); o != "" {
					ts = append([]string{o}, withoutNames(ts, termSet{o: true}, false)...)
				}
				add(point{kind: pointAction, text: s.text, speakers: []string{t.speaker}, terms: ts})
			}
		}
	}
	// Shared points.
	for i := range turns {
		for j := i + 1; j < len(turns); j++ {
			if strings.EqualFold(turns[i].speaker, turns[j].speaker) {
				continue
			}
			var shared []string
			for _, s := range turns[i].sentences {
				for _, x := range s.terms {
					if turns[j].terms[x] && !names[x] && !isNumber(x) {
						shared = append(shared, x)
					}
				}
			}
			shared = unique(shared)
			if len(shared) < minShared {
				continue
			}
			add(point{kind: pointShared, text: strings.Join(shared, ", "),
				speakers: []string{turns[i].speaker, turns[j].speaker}, terms: shared})
		}
	}
	return out
}

// proposalsBefore returns the sentences of the turn before turn i that
// propose something, from another speaker.
func proposalsBefore(turns []turn, i int) []turnSentence {
	for k := i - 1; k >= 0; k-- {
		if strings.EqualFold(turns[k].speaker, turns[i].speaker) {
			continue
		}
		var out []turnSentence
		for _, s := range turns[k].sentences {
			if hasMarker(s.lower, proposalMarkers) {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// owner returns who takes an action on: the speaker of an "I'll ...",
// else the name an "Action item: Priya writes ..." gives.
func owner(lower, speaker string, names termSet) string {
	if hasMarker(lower, []string{"i'll", "i’ll", "i will", "i can take"}) {
		return nameTerm(speaker)
	}
	for _, w := range terms(lower) {
		if names[w] {
			return w
		}
	}
	return ""
}

// nameTerm is a speaker's name as a term.
func nameTerm(speaker string) string {
	ts := terms(speaker)
	if len(ts) == 0 {
		return ""
	}
	return ts[0]
}

// withoutNames drops speakers' names from ts, but for keep (an action's
// owner).
func withoutNames(ts []string, names termSet, keepFirst bool) []string {
	out := ts[:0:0]
	for i, t := range ts {
		if names[t] && !(keepFirst && i == 0) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// covered reports whether a summary, as a set of terms, keeps a point: it
// holds at least half of the point's words.
func (p *point) covered(summary termSet) bool {
	return holdsHalf(summary, p.terms)
}

// describe says what a point is, for a report.
func (p *point) describe() string {
	switch p.kind {
	case pointShared:
		return "a point " + strings.Join(p.speakers, " and ") + " both raise (" + p.text + ")"
	case pointAction:
		return "an action: " + p.speakers[0] + ": " + quote(p.text)
	}
	return "a decision: " + p.speakers[0] + ": " + quote(p.text)
}

func quote(s string) string { return "\u201c" + s + "\u201d" }

// speakerNames returns the terms of the speakers' names.
func speakerNames(turns []turn) termSet {
	names := termSet{}
	for _, t := range turns {
		for _, w := range terms(t.speaker) {
			names[w] = true
		}
	}
	return names
}
