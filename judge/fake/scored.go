package fake

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Scored returns a responder that answers every judge request with the
// same score for each item the request's tool schema asks for: the
// criterion ids its criteria items enumerate and the dimensions it
// names, as judge.ToolName's schema lays them out. When the schema asks
// for criteria on the rubric or binary scale (see [SchemaScale]), the
// criteria (not the claims) get score on that scale: the nearest whole
// number of 1+4×score, or 1 from 0.7 up and else 0. It is what `vouch
// fake-llm` answers when no rule matches, and what a load test needs: an
// answer of the right shape, whatever the question. A request without
// that schema gets a 400.
func Scored(score float64) func(*Request) Reply {
	return func(r *Request) Reply {
		ids, dims, ok := SchemaItems(r.Tool.Schema)
		if !ok {
			return Reply{Status: 400, ErrorMessage: "fake: the request offers no submit_verification schema to answer"}
		}
		type item struct {
			ID        string  `json:"id,omitempty"`
			Reasoning string  `json:"reasoning"`
			Score     float64 `json:"score"`
			Reason    string  `json:"reason"`
		}
		out := struct {
			Reasoning    string          `json:"reasoning"`
			Criteria     []item          `json:"criteria"`
			Dimensions   map[string]item `json:"dimensions"`
			Completeness float64         `json:"completeness"`
			Confidence   float64         `json:"confidence"`
		}{Reasoning: "fake: scored every item alike", Dimensions: map[string]item{}, Completeness: score, Confidence: 0.8}
		scale := SchemaScale(r.Tool.Schema)
		for _, id := range ids {
			s := score
			if !strings.HasPrefix(id, "claim ") {
				s = onScale(score, scale)
			}
			out.Criteria = append(out.Criteria, item{ID: id, Reasoning: "fake", Score: s, Reason: fmt.Sprintf("fake score %v", s)})
		}
		for _, d := range dims {
			out.Dimensions[d] = item{Reasoning: "fake", Score: score, Reason: fmt.Sprintf("fake score %v", score)}
		}
		args, _ := json.Marshal(out)
		return Reply{Arguments: args}
	}
}

// SchemaItems reads the criterion ids (in order, empty ones left out) and
// the dimension names (sorted) a submit_verification schema asks for;
// false when the schema is not one.
func SchemaItems(schema []byte) (ids, dims []string, ok bool) {
	var s struct {
		Properties struct {
			Criteria *struct {
				Items struct {
					Properties struct {
						ID struct {
							Enum []string `json:"enum"`
						} `json:"id"`
					} `json:"properties"`
				} `json:"items"`
			} `json:"criteria"`
			Dimensions *struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"dimensions"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil || s.Properties.Criteria == nil || s.Properties.Dimensions == nil {
		return nil, nil, false
	}
	for _, id := range s.Properties.Criteria.Items.Properties.ID.Enum {
		if id != "" {
			ids = append(ids, id)
		}
	}
	for d := range s.Properties.Dimensions.Properties {
		dims = append(dims, d)
	}
	slices.Sort(dims)
	return ids, dims, true
}

// SchemaScale reads the scale on which a submit_verification schema asks
// for criteria to be scored: "rubric" when a score goes up to 5,
// "binary" when it is one of a list of values, else "" (0 to 1).
func SchemaScale(schema []byte) string {
	var s struct {
		Properties struct {
			Criteria struct {
				Items struct {
					Properties struct {
						Score struct {
							Maximum *float64  `json:"maximum"`
							Enum    []float64 `json:"enum"`
						} `json:"score"`
					} `json:"properties"`
				} `json:"items"`
			} `json:"criteria"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return ""
	}
	sc := s.Properties.Criteria.Items.Properties.Score
	switch {
	case sc.Maximum != nil && *sc.Maximum == 5:
		return "rubric"
	case len(sc.Enum) > 0:
		return "binary"
	}
	return ""
}

// onScale puts a score from 0 to 1 on a scale SchemaScale names.
func onScale(score float64, scale string) float64 {
	switch scale {
	case "rubric":
		return math.Round(1 + 4*score)
	case "binary":
		if score >= 0.7 {
			return 1
		}
		return 0
	}
	return score
}
