// Package quality measures whether the gate is right: the quality
// metrics of a window of stored verifications (first-pass rate, retry
// success, catch and false-alarm rates against the labels people and
// outcomes gave, cost against the task's), the alerts they raise, and
// the calibration of a policy's thresholds and weights to those labels.
//
// It computes and never stores: package store keeps the rows, tallies and
// labels it reads, and package server and the CLI present what it
// computes. Every rate comes with the counts it is computed from, and a
// rate over nothing is absent, never zero or one.
package quality

import (
	"slices"

	"github.com/vouchgate/vouch"
)

// Label is what a person or a downstream outcome said of one
// verification's output.
type Label struct {
	// Good is true when the output was fine (a reviewer's pass, an outcome
	// that held up), false when it was not.
	Good bool `json:"good"`
	// Verdict is the reviewer's verdict (pass, retry or fail) when the
	// label is an override; empty for an outcome.
	Verdict string `json:"verdict,omitempty"`
}

// LabelOfVerdict is the label a reviewer's verdict gives.
func LabelOfVerdict(verdict string) Label {
	return Label{Good: verdict == string(vouch.VerdictPass), Verdict: verdict}
}

// Sample is what calibration knows of one verification: the facts the
// verdict table read, so that the verdict can be decided again under
// other thresholds and weights, and its label when it has one.
type Sample struct {
	// ID is the verification's report id.
	ID string `json:"id"`
	// Attempt is the attempt the verification judged, from 1.
	Attempt int `json:"attempt"`
	// Kind is the checkpoint kind, which picks the dimension weights.
	Kind string `json:"kind"`
	// Verdict is the verdict the gate gave, Row the row of the verdict
	// table that decided it (1 to 6; 0 when unknown).
	Verdict string `json:"verdict"`
	Row     int    `json:"row"`
	// Score is nil when nothing was decided.
	Score      *float64 `json:"score"`
	Confidence float64  `json:"confidence"`
	// Dims are the scores of the decided dimensions.
	Dims map[string]float64 `json:"dims,omitempty"`
	// MustUndecided: a must-pass criterion was left undecided (row 5).
	MustUndecided bool `json:"mustUndecided,omitempty"`
	// Injection: the output tried to steer its verifier (blocks row 6).
	Injection bool `json:"injection,omitempty"`
	// Label is nil when nobody labelled the verification.
	Label *Label `json:"label,omitempty"`
}

// SampleOf is the sample of a report, unlabelled.
func SampleOf(rep *vouch.Report) Sample {
	s := Sample{ID: rep.ID, Attempt: rep.Attempt, Kind: string(rep.Kind), Verdict: string(rep.Verdict),
		Row: rep.VerdictRow, Score: rep.Score, Confidence: rep.Confidence}
	for name, d := range rep.Dimensions {
		if d.State == vouch.StateDecided && d.Score != nil {
			if s.Dims == nil {
				s.Dims = make(map[string]float64, len(rep.Dimensions))
			}
			s.Dims[name] = *d.Score
		}
	}
	for _, w := range rep.Warnings {
		switch w.Code {
		case vouch.CodeMustUndecided:
			s.MustUndecided = true
		case vouch.CodePromptInjection:
			s.Injection = true
		}
	}
	return s
}

// CodesOf returns the failure codes of a report, each once in the
// report's order: the codes of its failed checks, then of its warnings.
func CodesOf(rep *vouch.Report) []string {
	var out []string
	add := func(c string) {
		if c != "" && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	for _, c := range rep.Checks {
		if c.Status != vouch.StatusFail {
			continue
		}
		code := c.Code
		if code == "" {
			code, _ = c.Evidence["code"].(string)
		}
		add(code)
	}
	for _, w := range rep.Warnings {
		add(w.Code)
	}
	return out
}
