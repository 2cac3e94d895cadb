// Package quality measures whether the gate is right: the quality
// metrics of a window of stored verifications (first-pass rate, retry
// success, catch and false-alarm rates against the labels people and
// outcomes gave, the share left unverified and the coverage of the
// claims, cost against the task's), the alerts they raise, and the
// calibration of a policy's thresholds and weights to those labels.
//
// Unverified is the fourth verdict, neither a pass nor a send-back: it
// is never a first pass, never caught, missed or a false alarm, costs
// nothing against a label in calibration, and is never a person's
// verdict (a label's is pass, retry or fail).
//
// It computes and never stores: package store keeps the rows, tallies and
// labels it reads, and package server and the CLI present what it
// computes. Every rate comes with the counts it is computed from, and a
// rate over nothing is absent, never zero or one.
package quality

import (
	"slices"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/store"
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
	// Verdict is the verdict the gate gave: pass, retry, fail or
	// unverified.
	Verdict string `json:"verdict"`
	// Row is the row of the seven-row verdict table that decided (1 to 7;
	// 0 when unknown). A verification made before the claim ledger has
	// its row of the six-row table renumbered (see [SixRowTable]).
	Row int `json:"row"`
	// Score is nil when nothing was decided.
	Score      *float64 `json:"score"`
	Confidence float64  `json:"confidence"`
	// Dims are the scores of the decided dimensions.
	Dims map[string]float64 `json:"dims,omitempty"`
	// MustUndecided: a must-pass criterion was left undecided (row 4).
	MustUndecided bool `json:"mustUndecided,omitempty"`
	// Injection: the output tried to steer its verifier (row 5).
	Injection bool `json:"injection,omitempty"`
	// Ledger is what the report's claim ledger says: its counts, and
	// whether the row-6 condition held (claims left unverified, or no
	// claim and nothing decided), which decides between unverified and
	// pass above passAt. Nil for a verification made before the claim
	// ledger, which is decided again as the six-row table decided it:
	// nothing of it counts as unverified.
	Ledger *store.Ledger `json:"ledger,omitempty"`
	// Label is nil when nobody labelled the verification.
	Label *Label `json:"label,omitempty"`
}

// SixRowTable returns the row of the seven-row verdict table that means
// what row meant in the six-row table of the verifications made before
// the claim ledger, which gave verdict:
//
//	six-row table                            seven-row table
//	1 nothing decided (fail)               → 6 nothing decided
//	2 a must-pass failed, or too many       → 1 a must-pass failed
//	  unverified mentions (retry, fail)
//	3 score below failBelow (fail)         → 2
//	4 score below passAt (retry, fail)     → 3
//	5 a must-pass criterion undecided      → 4
//	6 pass                                 → 7 pass
//	6 fail: the output tried to steer its  → 5 prompt injection
//	  verifier
//
// The verdict stays as the gate gave it (an old row 1 stays a fail,
// though nothing decided is unverified now); only the row, which says
// what calibration may decide again, is renumbered: without it, an old
// must-pass failure (row 2) would be taken for a low score and decided
// again from its score, and an old pass (row 6) for an unverified one.
// Rows out of 1 to 6 give 0, unknown.
func SixRowTable(row int, verdict string) int {
	switch row {
	case 1:
		return 6
	case 2, 3, 4, 5:
		return row - 1
	case 6:
		if verdict == string(vouch.VerdictPass) {
			return 7
		}
		return 5
	}
	return 0
}

// withoutLedger sets what s knows of a verification that came without a
// claim ledger: made before vouch kept one, its row is renumbered from
// the six-row table ([SixRowTable]) and it has no Ledger. But some rows
// only the seven-row table gives, a verification whose ledger was lost
// on the way (written by a writer that did not [Fill] it): the verdict
// unverified, row 7, a retry by row 1 or 3, row 1 with a score (the
// six-row table's row 1 had none), and a fail by row 6 with no score or
// no injection (the six-row table's row 6 failed only an injection). Those
// keep their row, and get a ledger of no counts whose LeftUnverified is
// what the row says: row 6 held it, row 7 did not, and an earlier row
// leaves it unknown, taken as not held.
func (s *Sample) withoutLedger() {
	row, v := s.Row, vouch.Verdict(s.Verdict)
	switch {
	case v == vouch.VerdictUnverified, row == 7,
		v == vouch.VerdictRetry && (row == 1 || row == 3),
		row == 1 && s.Score != nil,
		row == 6 && v == vouch.VerdictFail && (s.Score == nil || !s.Injection):
		s.Ledger = &store.Ledger{LeftUnverified: row == 6}
	default:
		s.Row = SixRowTable(row, s.Verdict)
	}
}

// SampleOf is the sample of a report, unlabelled. A report without a
// claim ledger (Claims nil) was made before vouch kept one: it has no
// Ledger, and its row is renumbered from the six-row table
// ([SixRowTable]), unless only the seven-row table gives that row.
func SampleOf(rep *vouch.Report) Sample {
	s := Sample{ID: rep.ID, Attempt: rep.Attempt, Kind: string(rep.Kind), Verdict: string(rep.Verdict),
		Row: rep.VerdictRow, Score: rep.Score, Confidence: rep.Confidence, Ledger: LedgerOf(rep)}
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
	if s.Ledger == nil {
		s.withoutLedger()
	}
	return s
}

// LedgerOf is what a report's claim ledger says, as the log keeps it;
// nil when the report has no ledger (Claims nil: made before vouch kept
// one).
//
// LeftUnverified is the row-6 condition apart from the score: true when
// row 6 decided, false when row 7 did; when an earlier row decided, true
// when a claim was left unverified, or when the output made no claim and
// nothing was decided: no criterion and no check of the kind's criteria
// dimension decided, as the engine counts them (a report read back from
// JSON, whose checks do not say the dimension they feed, is read by that
// dimension's state).
func LedgerOf(rep *vouch.Report) *store.Ledger {
	if rep.Claims == nil {
		return nil
	}
	l := &store.Ledger{Claims: len(rep.Claims)}
	for _, c := range rep.Claims {
		switch c.State {
		case vouch.ClaimUnverified:
			l.Unverified++
		case vouch.ClaimRefuted:
			l.Refuted++
		}
	}
	switch rep.VerdictRow {
	case 6:
		l.LeftUnverified = true
	case 7:
	default:
		l.LeftUnverified = l.Unverified > 0 || l.Claims == 0 && !decidedAny(rep)
	}
	return l
}

// decidedAny reports whether a report decided something the output was
// asked for: a criterion, written or inferred, or a check of its kind's
// criteria dimension (a plan's structure, a synthesis drawing on its
// outputs).
func decidedAny(rep *vouch.Report) bool {
	for _, c := range rep.Criteria {
		if c.Status != vouch.CriterionUndecided {
			return true
		}
	}
	crit := vouch.CriteriaDimension(rep.Kind)
	if d, ok := rep.Dimensions[crit]; ok && d.State == vouch.StateDecided {
		return true
	}
	for _, c := range rep.Checks {
		if (c.Level == vouch.LevelCriteria || c.Dimension == crit) && c.Status != vouch.StatusUndecided && c.Evidence["criterion"] == nil {
			return true
		}
	}
	return false
}

// Fill sets the columns of a log row that the quality metrics sum and
// calibration decides again from, from the row's report: VerdictRow,
// Dims, MustUndecided, Injection and Ledger (as [SampleOf] reads them),
// Codes ([CodesOf]), and the judge's calls, cache hits and misses. It is
// what a server writing reports to the log calls before the insert; a row
// written without it has no ledger, and is read as one made before the
// claim ledger.
func Fill(v *store.Verification, rep *vouch.Report) {
	s := SampleOf(rep)
	v.VerdictRow, v.Dims, v.MustUndecided, v.Injection, v.Ledger = rep.VerdictRow, s.Dims, s.MustUndecided, s.Injection, s.Ledger
	v.Codes = CodesOf(rep)
	v.JudgeCalls, v.CacheHits, v.CacheMisses = rep.Cost.JudgeCalls, rep.Cost.CacheHits, rep.Cost.CacheMisses
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
