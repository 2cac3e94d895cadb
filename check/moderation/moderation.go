// Package moderation holds the analyzer of moderation requests,
// "moderation.summary": it decides by rule whether a moderator's summary
// of a discussion (context.discussion) keeps its key points and says only
// what the participants said. It serves the checkpoint kind moderation
// alone (the engine runs it for no other kind), and adds nothing for a
// request that carries no discussion.
//
// # What is checked
//
// Coverage (dimension coverage, check moderation.coverage): the key points
// of the discussion are found by rule (see keyPoints): decisions (marked
// "Decision:", "we decided", "let's go with", "agreed", or a proposal that
// the next speaker agrees to), actions a participant takes on ("I'll ...",
// "Action item: ..."), and points two participants both raise (three or
// more content words their turns share). A point is kept when the summary holds
// at least half of its words, in any order and form ("flushes" and
// "flushing" meet). A dropped point fails a must-pass check
// (POINT_DROPPED), each named with who raised it; a remark one participant
// makes in passing is no key point. The score is the share kept; with no
// key point found, coverage is left to the judge.
//
// Faithfulness (dimension faithfulness): the summary's numbers, dates,
// names, counts and quoted phrases are held against what the participants
// said and the task's goal, with package support's normalisation
// (check moderation.faithfulness): what no participant said was made up
// (UNSUPPORTED_CLAIM, must-pass). And each clause that opens with a
// participant's name ("Bob proposed ...", "Carol will update ...") is held
// against that participant's own turns and the turns that name them (an
// action assigned by another, "Carol prices SQS"): when the words are
// another participant's and not theirs, the summary puts them in the wrong
// mouth (check moderation.attribution, UNSUPPORTED_CLAIM, must-pass).
// Files, symbols and URLs are grounded by package grounding, which looks
// them up in the discussion.
package moderation

import (
	"context"
	"fmt"
	"strings"

	"github.com/vouchgate/vouch/text/lex"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/check/internal/sourced"
	"github.com/vouchgate/vouch/text/mention"
	"github.com/vouchgate/vouch/text/plural"
	"github.com/vouchgate/vouch/text/support"
)

func init() {
	check.RegisterAnalyzer(check.AnalyzerInfo{
		Name:  "moderation.summary",
		Level: vouch.LevelGrounding,
		Kinds: []vouch.Kind{vouch.KindModeration},
		New:   func() vouch.Analyzer { return analyzer{} },
	})
}

// analyzer is the moderation.summary analyzer. It holds no state, so it is
// safe for concurrent use.
type analyzer struct{}

var _ vouch.Analyzer = analyzer{}

// Analyze implements vouch.Analyzer.
func (analyzer) Analyze(ctx context.Context, s *vouch.Subject, f *vouch.Findings) error {
	req := s.Request
	if req == nil || req.Context == nil || len(req.Context.Discussion) == 0 {
		return nil
	}
	disc := req.Context.Discussion
	srcs := make([]support.Source, 0, len(disc)+1)
	for i, u := range disc {
		srcs = append(srcs, support.Source{ID: turnID(i, u.Speaker), Text: u.Speaker + ": " + u.Text})
	}
	if g := strings.TrimSpace(req.Task.Goal); g != "" {
		srcs = append(srcs, support.Source{ID: "task.goal", Text: g, Aside: true})
	}
	summary := req.Output.Summary
	claims := support.NewIndex(srcs).Claims(mention.Parse(summary))
	if err := ctx.Err(); err != nil {
		return err
	}
	turns := readTurns(disc)
	names := speakerNames(turns)

	f.MarkApplicable(vouch.DimFaithfulness)
	sourced.Report(f, claims, "moderation.faithfulness", vouch.DimFaithfulness, "participant")
	attributionCheck(f, turns, summary)

	f.MarkApplicable(vouch.DimCoverage)
	coverage(f, keyPoints(turns, names), set(summary))
	return nil
}

// turnID names turn i in evidence.
func turnID(i int, speaker string) string {
	return fmt.Sprintf("%s (turn %d)", strings.TrimSpace(speaker), i+1)
}

// coverage checks that the summary keeps every key point.
func coverage(f *vouch.Findings, points []point, summary termSet) {
	if len(points) == 0 {
		return
	}
	var dropped []string
	for i := range points {
		if !points[i].covered(summary) {
			dropped = append(dropped, points[i].describe())
		}
	}
	c := vouch.CheckResult{
		Name: "moderation.coverage", Level: vouch.LevelGrounding, Strength: vouch.StrengthStrict,
		Status: vouch.StatusPass, Confidence: 1, Dimension: vouch.DimCoverage, Weight: 1,
		Score:    float64(len(points)-len(dropped)) / float64(len(points)),
		Reason:   fmt.Sprintf("the summary keeps %s of the discussion", plural.All(len(points), "key point")),
		Evidence: map[string]any{"points": len(points)},
	}
	if len(dropped) > 0 {
		c.Status, c.Code, c.Must, c.Fix = vouch.StatusFail, vouch.CodePointDropped, true, dropped
		c.Reason = fmt.Sprintf("the summary drops %d of %d key points: %s", len(dropped), len(points), dropped[0])
		c.Evidence["dropped"] = dropped
		for _, d := range dropped {
			f.Gaps = append(f.Gaps, "the summary drops "+d)
		}
	}
	f.Checks = append(f.Checks, c)
}

// attribution is a clause of the summary that opens with a participant's
// name: what it says is said to be theirs.
type attribution struct {
	speakers []string // as the discussion names them: "Mateo and Hana both saw ..."
	clause   string
	terms    []string
}

// Thresholds of a misattribution: the named participant's turns hold less
// than half of the clause's words, another participant's turns at least
// half and a quarter more.
const (
	ownBelow     = 0.5
	otherAtLeast = 0.5
	otherMargin  = 0.25
)

// attributionCheck holds each attribution against the turns of the
// participant it names.
func attributionCheck(f *vouch.Findings, turns []turn, summary string) {
	atts := attributions(summary, turns)
	if len(atts) == 0 {
		return
	}
	// What each participant said, and what was said to or of them.
	own := map[string]termSet{}
	said := map[string]termSet{}
	for _, t := range turns {
		k := strings.ToLower(t.speaker)
		if own[k] == nil {
			own[k], said[k] = termSet{}, termSet{}
		}
		for x := range t.terms {
			own[k][x] = true
			said[k][x] = true
		}
	}
	for _, t := range turns {
		for name := range own {
			if strings.EqualFold(name, t.speaker) || !mentionsName(t, name) {
				continue
			}
			for x := range t.terms {
				said[name][x] = true
			}
		}
	}
	var wrong []string
	for _, a := range atts {
		theirs := termSet{}
		named := map[string]bool{}
		for _, sp := range a.speakers {
			k := strings.ToLower(sp)
			named[k] = true
			for x := range said[k] {
				theirs[x] = true
			}
		}
		mine := share(theirs, a.terms)
		if mine >= ownBelow {
			continue
		}
		best, who := 0.0, ""
		for name, ts := range own {
			if named[name] {
				continue
			}
			if s := share(ts, a.terms); s > best {
				best, who = s, name
			}
		}
		if best >= otherAtLeast && best-mine >= otherMargin {
			wrong = append(wrong, fmt.Sprintf("%s [%s said this, not %s]", quote(a.clause), displayName(turns, who), strings.Join(a.speakers, " and ")))
		}
	}
	c := vouch.CheckResult{
		Name: "moderation.attribution", Level: vouch.LevelGrounding, Strength: vouch.StrengthStrict,
		Status: vouch.StatusPass, Confidence: 1, Dimension: vouch.DimFaithfulness, Weight: 1,
		Score:    float64(len(atts)-len(wrong)) / float64(len(atts)),
		Reason:   plural.Pick(len(atts), "the statement the summary attributes to a participant is theirs", fmt.Sprintf("the %d statements the summary attributes to participants are theirs", len(atts))),
		Evidence: map[string]any{"attributions": len(atts)},
	}
	if len(wrong) > 0 {
		c.Status, c.Code, c.Must, c.Fix = vouch.StatusFail, vouch.CodeUnsupportedClaim, true, wrong
		c.Reason = fmt.Sprintf("%d of %d %s attributed to the wrong participant: %s", len(wrong), len(atts), plural.Pick(len(wrong), "statements is", "statements are"), wrong[0])
		c.Evidence["misattributed"] = wrong
	}
	f.Checks = append(f.Checks, c)
}

// displayName returns a speaker's name as the discussion writes it.
func displayName(turns []turn, lower string) string {
	for _, t := range turns {
		if strings.EqualFold(t.speaker, lower) {
			return t.speaker
		}
	}
	return lower
}

// mentionsName reports whether a turn names a participant ("Thanks Dave",
// "Carol prices SQS").
func mentionsName(t turn, lowerName string) bool {
	nt := terms(lowerName)
	if len(nt) == 0 {
		return false
	}
	return t.terms[nt[0]]
}

// leadWords may open a clause before the name it attributes to.
var leadWords = lex.Named("moderation-lead-words").Set()

// attributions returns the clauses of summary that open with a
// participant's name, or with several joined by "and" or commas.
func attributions(summary string, turns []turn) []attribution {
	byName := map[string]string{} // first word of a name, lower case → speaker
	for _, t := range turns {
		if fs := strings.Fields(t.speaker); len(fs) > 0 {
			byName[strings.ToLower(fs[0])] = t.speaker
		}
	}
	names := speakerNames(turns)
	var out []attribution
	for _, sp := range mention.Sentences(summary) {
		for _, cl := range clauses(sp.Text, byName) {
			fs := strings.Fields(cl)
			i := 0
			for i < len(fs) && leadWords[strings.ToLower(fs[i])] {
				i++
			}
			var speakers []string
			for i < len(fs) {
				speaker, ok := speakerAt(fs[i], byName)
				if !ok {
					break
				}
				speakers = append(speakers, speaker)
				i++
				if i+1 < len(fs) && strings.EqualFold(fs[i], "and") {
					if _, ok := speakerAt(fs[i+1], byName); ok {
						i++
					}
				}
			}
			if len(speakers) == 0 {
				continue
			}
			var ts []string
			for _, t := range unique(terms(strings.Join(fs[i:], " "))) {
				if !names[t] {
					ts = append(ts, t)
				}
			}
			if len(ts) >= 2 {
				out = append(out, attribution{speakers: speakers, clause: strings.TrimSpace(cl), terms: ts})
			}
		}
	}
	return out
}

// speakerAt returns the participant a word of the summary names: their
// first name, capitalised, possibly possessive or followed by a comma.
func speakerAt(word string, byName map[string]string) (string, bool) {
	w := strings.TrimRight(word, ",.;:")
	w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
	if w == "" || w[0] >= 'a' && w[0] <= 'z' {
		return "", false
	}
	speaker, ok := byName[strings.ToLower(w)]
	return speaker, ok
}

// clauses splits a sentence at semicolons, colons and commas followed by a
// space, and before "and", "but" or "while" when a participant's name
// follows and the clause so far says something of its own ("Alice will
// build it and Carol will price SQS", not "Mateo and Hana both saw").
func clauses(s string, byName map[string]string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		cut := false
		switch s[i] {
		case ';':
			cut = true
		case ':', ',':
			cut = i+1 < len(s) && s[i+1] == ' ' && !(onlyNames(s[start:i], byName) && nameListContinues(s[i+2:], byName))
		case ' ':
			rest := s[i+1:]
			for _, conj := range []string{"and ", "but ", "while "} {
				if strings.HasPrefix(rest, conj) && len(strings.Fields(s[start:i])) >= 3 {
					if next := strings.Fields(rest[len(conj):]); len(next) > 0 {
						if _, ok := speakerAt(next[0], byName); ok {
							cut = true
						}
					}
				}
			}
		}
		if cut {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// onlyNames reports whether a stretch of the summary holds nothing but
// participants' names and "and".
func onlyNames(part string, byName map[string]string) bool {
	fs := strings.Fields(part)
	for _, w := range fs {
		if _, ok := speakerAt(w, byName); !ok && !strings.EqualFold(w, "and") {
			return false
		}
	}
	return len(fs) > 0
}

// nameListContinues reports whether rest goes on a list of names ("Hana
// and Mateo agreed" after "Leo, "): a comma there joins subjects.
func nameListContinues(rest string, byName map[string]string) bool {
	fs := strings.Fields(rest)
	if len(fs) == 0 {
		return false
	}
	if strings.EqualFold(fs[0], "and") && len(fs) > 1 {
		fs = fs[1:]
	}
	_, ok := speakerAt(fs[0], byName)
	return ok
}
