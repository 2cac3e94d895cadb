package fake

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Scored returns a responder that answers every judge request with the
// same score for each item the request's tool schema asks for: the
// criterion ids its criteria items enumerate and the dimensions it
// names, as judge.ToolName's schema lays them out. It is what `vouch
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
		for _, id := range ids {
			out.Criteria = append(out.Criteria, item{ID: id, Reasoning: "fake", Score: score, Reason: fmt.Sprintf("fake score %v", score)})
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
