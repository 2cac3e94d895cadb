package judge

import (
	"context"
	"fmt"
	"math"

	"github.com/vouchgate/vouch"
)

// Scale is the scale on which the judge scores a request's criteria.
// Whatever the scale, a criterion's score reaches the engine between 0
// and 1, and is met at 0.7; claims of the output are always scored 1
// (holds), 0 (false) or 0.5 (neither).
type Scale string

// The scales.
const (
	// ScaleUnit scores each criterion from 0 to 1 (1.0 fully, 0.7 mostly,
	// 0.5 partially, 0.3 barely, 0 not met): the default.
	ScaleUnit Scale = ""
	// ScaleRubric scores each criterion with an integer n on an anchored
	// scale from 1 (not met) to 5 (fully met), mapped to (n-1)/4: met
	// from 4 up.
	ScaleRubric Scale = "rubric"
	// ScaleBinary rules each criterion met (1) or unmet (0), nothing
	// between.
	ScaleBinary Scale = "binary"
)

// rubricAnchors are the anchors of the 1 to 5 scale, as the prompt gives
// them.
const rubricAnchors = "5 fully met, with nothing missing; 4 met, with a minor gap; 3 partly met: some of it is done, some is not; 2 barely met: little of it is done; 1 not met, or nothing shows it"

// heading is the line that opens the criteria in the prompt.
func (s Scale) heading() string {
	switch s {
	case ScaleRubric:
		return "## Criteria (score each in \"criteria\", by its id, with a whole number from 1 to 5: " + rubricAnchors + ")\n"
	case ScaleBinary:
		return "## Criteria (rule on each in \"criteria\", by its id: score 1 when the evidence shows it met, 0 when it does not; nothing between)\n"
	}
	return "## Criteria (score each in \"criteria\", by its id)\n"
}

// itemScore is the schema of an item's score in the criteria array, unit
// being the 0 to 1 one. The array holds claims too, scored 0 to 1.
func (s Scale) itemScore(unit string) string {
	switch s {
	case ScaleRubric:
		return `{"type": "number", "minimum": 0, "maximum": 5, "description": "A criterion: a whole number from 1 to 5 (` + rubricAnchors + `). A claim: 1 holds, 0 false, 0.5 neither"}`
	case ScaleBinary:
		return `{"type": "number", "enum": [0, 0.5, 1], "description": "A criterion: 1 met, 0 unmet, nothing between. A claim: 1 holds, 0 false, 0.5 neither"}`
	}
	return unit
}

// unit maps a criterion's score on the scale to 0 to 1, or says why it is
// not one of the scale's.
func (s Scale) unit(x float64) (float64, string) {
	switch s {
	case ScaleRubric:
		if x < 1 || x > 5 || x != math.Trunc(x) {
			return 0, fmt.Sprintf("the judge's score %s is not a whole number from 1 to 5", show(&x))
		}
		return (x - 1) / 4, ""
	case ScaleBinary:
		if x != 0 && x != 1 {
			return 0, fmt.Sprintf("the judge's ruling %s is neither 1 (met) nor 0 (unmet)", show(&x))
		}
		return x, ""
	}
	if !unit(x) {
		return 0, fmt.Sprintf("the judge's score %s is not between 0 and 1", show(&x))
	}
	return x, ""
}

// Valid reports whether s is one of the scales.
func (s Scale) Valid() bool {
	return s == ScaleUnit || s == ScaleRubric || s == ScaleBinary
}

// WithScale returns a vouch.Judge that asks as j does (the same
// providers, cache and circuit breakers) but has the request's criteria
// scored on scale. An answer's scores are checked against the scale: one
// off it leaves its criterion undecided. The prompt and schema differ
// per scale, so the cache never answers one scale with another's.
func (j *Judge) WithScale(scale Scale) vouch.Judge {
	if scale == ScaleUnit {
		return j
	}
	return scaled{j: j, scale: scale}
}

// scaled is a Judge scoring criteria on another scale than 0 to 1.
type scaled struct {
	j     *Judge
	scale Scale
}

// Evaluate implements vouch.Judge.
func (s scaled) Evaluate(ctx context.Context, q *vouch.JudgeQuery) (*vouch.JudgeVerdict, error) {
	return s.j.judge(ctx, q, s.scale)
}

// Estimate implements the estimate of [Judge.Estimate]: a scale changes
// the prompt too little to change what a call may cost.
func (s scaled) Estimate(q *vouch.JudgeQuery) (*Estimate, error) {
	return s.j.Estimate(q)
}
