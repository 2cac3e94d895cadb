package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/vouchgate/vouch"
)

// Answer is one judge model's validated answer to one prompt: the items
// it scored validly, and why the others are not. It is what the cache
// holds.
type Answer struct {
	Criteria   map[string]Item `json:"criteria"`
	Dimensions map[string]Item `json:"dimensions"`
	// Invalid says, by item ("criterion c2", "dimension completeness"),
	// why an item the prompt asked for has no valid score: missing, out
	// of range, not a number.
	Invalid    map[string]string         `json:"invalid,omitempty"`
	Confidence float64                   `json:"confidence"`
	Gaps       []string                  `json:"gaps,omitempty"`
	Warnings   []string                  `json:"warnings,omitempty"`
	Unverified []vouch.UnverifiedMention `json:"unverified,omitempty"`
}

// Item is one scored criterion or dimension.
type Item struct {
	Score  float64 `json:"score"`
	Reason string  `json:"reason"`
}

// errAnswer marks an answer that is not one: not JSON, not an object, no
// confidence. It is worth one repair re-ask.
var errAnswer = errors.New("judge: malformed answer")

// rawAnswer is the parts of the tool's arguments the judge reads. The
// schema also asks for reasoning, mentions and verified mentions, written
// first so that the model works through the evidence before it scores;
// they are not read.
type rawAnswer struct {
	Unverified []struct {
		Text     string `json:"text"`
		Kind     string `json:"kind"`
		Sentence string `json:"sentence"`
	} `json:"unverified"`
	Criteria []struct {
		ID     string   `json:"id"`
		Score  *float64 `json:"score"`
		Reason string   `json:"reason"`
	} `json:"criteria"`
	Dimensions map[string]struct {
		Score  *float64 `json:"score"`
		Reason string   `json:"reason"`
	} `json:"dimensions"`
	Completeness *float64 `json:"completeness"`
	Gaps         []string `json:"gaps"`
	Warnings     []string `json:"warnings"`
	Confidence   *float64 `json:"confidence"`
}

// parseAnswer validates a model's tool arguments against what the prompt
// asked. An answer that is not a JSON object, or gives no valid
// confidence, is an errAnswer; an item scored out of range, or not at all,
// is left out and named in Invalid: it stays undecided, it never passes.
func parseAnswer(args []byte, p *prompt) (*Answer, error) {
	var raw rawAnswer
	if err := json.Unmarshal(args, &raw); err != nil {
		return nil, fmt.Errorf("%w: %v", errAnswer, err)
	}
	if raw.Confidence == nil || !unit(*raw.Confidence) {
		return nil, fmt.Errorf("%w: confidence %s is not between 0 and 1", errAnswer, show(raw.Confidence))
	}
	a := &Answer{Criteria: map[string]Item{}, Dimensions: map[string]Item{}, Confidence: *raw.Confidence}
	invalid := func(item, why string) {
		if a.Invalid == nil {
			a.Invalid = map[string]string{}
		}
		if _, ok := a.Invalid[item]; !ok {
			a.Invalid[item] = why
		}
	}
	for _, c := range raw.Criteria {
		if !slices.Contains(p.ids, c.ID) {
			continue // not asked: ignored
		}
		key := "criterion " + c.ID
		switch {
		case c.Score == nil:
			invalid(key, "the judge gave no score")
		case p.scale != ScaleUnit && slices.Contains(p.crit, c.ID):
			s, why := p.scale.unit(*c.Score)
			if why != "" {
				invalid(key, why)
			} else if _, dup := a.Criteria[c.ID]; !dup {
				a.Criteria[c.ID] = Item{Score: s, Reason: c.Reason}
			}
		case !unit(*c.Score):
			invalid(key, fmt.Sprintf("the judge's score %s is not between 0 and 1", show(c.Score)))
		default:
			if _, dup := a.Criteria[c.ID]; !dup {
				a.Criteria[c.ID] = Item{Score: *c.Score, Reason: c.Reason}
			}
		}
	}
	for _, id := range p.ids {
		if _, ok := a.Criteria[id]; !ok {
			invalid("criterion "+id, "the judge did not score it")
		}
	}
	for _, d := range p.dims {
		key := "dimension " + d
		di, ok := raw.Dimensions[d]
		switch {
		case !ok && d == vouch.DimCompleteness && raw.Completeness != nil && unit(*raw.Completeness):
			a.Dimensions[d] = Item{Score: *raw.Completeness, Reason: "the judge's completeness"}
		case !ok || di.Score == nil:
			invalid(key, "the judge did not score it")
		case !unit(*di.Score):
			invalid(key, fmt.Sprintf("the judge's score %s is not between 0 and 1", show(di.Score)))
		default:
			a.Dimensions[d] = Item{Score: *di.Score, Reason: di.Reason}
		}
	}
	a.Gaps = nonEmpty(raw.Gaps)
	a.Warnings = nonEmpty(raw.Warnings)
	for _, u := range raw.Unverified {
		if u.Text == "" || !validKind(u.Kind) {
			continue
		}
		a.Unverified = append(a.Unverified, vouch.UnverifiedMention{Text: u.Text, Kind: vouch.MentionKind(u.Kind), Sentence: u.Sentence})
	}
	return a, nil
}

func unit(x float64) bool { return x >= 0 && x <= 1 && !math.IsNaN(x) }

func show(x *float64) string {
	if x == nil {
		return "(none)"
	}
	return fmt.Sprint(*x)
}

func validKind(k string) bool {
	switch vouch.MentionKind(k) {
	case vouch.MentionFile, vouch.MentionPackage, vouch.MentionSymbol, vouch.MentionURL,
		vouch.MentionNumber, vouch.MentionDate, vouch.MentionEntity, vouch.MentionQuantity:
		return true
	}
	return false
}

func nonEmpty(xs []string) []string {
	var out []string
	for _, x := range xs {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}
