// Package api holds the JSON shapes of the `vouch serve` HTTP API other
// than the request and the report (which are the root package's): what
// package server writes and package client reads. It has no
// dependencies beyond the standard library, so a client does not pull in
// the server.
package api

import "time"

// TaskInput is the body of POST /verify-task: the plain shape of a
// coordinator that has only a task description, criteria as sentences
// and an output.
type TaskInput struct {
	TaskDescription string   `json:"task_description"`
	SuccessCriteria []string `json:"success_criteria"`
	TaskOutput      string   `json:"task_output"`
	// VerifierModel names one of the server's judge models: provider:model,
	// or the model alone when exactly one configured judge model has that
	// model part. Empty means the configured judge. Only the judge modes
	// (judge, rubric, binary) take one.
	VerifierModel string `json:"verifier_model"`
	// ScoringMode is "rules" (the default: no judge is asked), "judge"
	// (the judge scores each criterion 0 to 1), "rubric" (the judge
	// scores each criterion 1 to 5 on an anchored scale), "binary" (the
	// judge rules each criterion met or unmet) or "criteria_match" (each
	// criterion's words and numbers are matched against the output, with
	// no judge).
	ScoringMode string `json:"scoring_mode"`
}

// TaskResult is the answer of POST /verify-task.
type TaskResult struct {
	// Verdict is pass, fail, partial (a report's retry) or unverified
	// (nothing was found false, but nothing could be decided either).
	Verdict    string  `json:"verdict"`
	Confidence float64 `json:"confidence"`
	// AggregateScore is null when nothing could be decided.
	AggregateScore *float64         `json:"aggregate_score"`
	CriteriaScores []CriterionScore `json:"criteria_scores"`
	QualityScores  QualityScores    `json:"quality_scores"`
	TokensUsed     int              `json:"tokens_used"`
	// Cost is in US dollars.
	Cost float64 `json:"cost"`
	// ID is the stored verification's id, for GET /v1/verifications/{id}.
	// It is derived from the task, the scoring mode, the judge model and
	// the server's policy: the same task sent again under the same ones
	// is answered from the log, under other ones it is verified afresh.
	ID string `json:"id"`
	// ScoringMode is the mode the task was scored in (rules when none
	// was asked).
	ScoringMode string `json:"scoring_mode"`
	// VerifierModel is the judge model the request's verifier_model
	// resolved to (provider:model); empty when none was named.
	VerifierModel string `json:"verifier_model"`
	// JudgeModels are the models the judge asked (empty when no judge was
	// asked).
	JudgeModels []string `json:"judge_models"`
}

// CriterionScore is one criterion's outcome; Score and Met are null when
// neither a rule nor the judge decided it. Score is always 0 to 1.
type CriterionScore struct {
	Criterion string   `json:"criterion"`
	Score     *float64 `json:"score"`
	Met       *bool    `json:"met"`
	Reasoning string   `json:"reasoning"`
	// RubricScore is the judge's score on the 1 to 5 scale (rubric mode
	// only, when decided): 1+4×score, of which score is (n-1)/4. With
	// several samples or models it is their combined score and may fall
	// between whole numbers.
	RubricScore *float64 `json:"rubric_score,omitempty"`
	// Match is what matched (criteria_match mode only).
	Match *CriterionMatch `json:"match,omitempty"`
}

// CriterionMatch is how a criterion's words and numbers matched the
// output in criteria_match mode; each list is empty rather than null.
type CriterionMatch struct {
	MatchedWords     []string `json:"matched_words"`
	UnmatchedWords   []string `json:"unmatched_words"`
	MatchedNumbers   []string `json:"matched_numbers"`
	UnmatchedNumbers []string `json:"unmatched_numbers"`
}

// QualityScores are the report's dimensions in the plain shape:
// completeness is the completeness dimension, accuracy the groundedness
// one. A score nothing decided is null, never invented.
type QualityScores struct {
	Completeness *float64 `json:"completeness"`
	Accuracy     *float64 `json:"accuracy"`
}

// Batch states.
const (
	BatchRunning = "running"
	BatchDone    = "done"
)

// BatchStatus is a batch's progress: the answer of POST /v1/batches and
// GET /v1/batches/{id}.
type BatchStatus struct {
	ID string `json:"id"`
	// State is BatchRunning until no item is pending.
	State   string `json:"state"`
	Total   int    `json:"total"`
	Done    int    `json:"done"`
	Failed  int    `json:"failed"`
	Pending int    `json:"pending"`
	// CreatedAt and FinishedAt are in UTC; FinishedAt is nil while the
	// batch runs.
	CreatedAt  time.Time  `json:"createdAt"`
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
	// Results is the path of the results, JSONL in input order.
	Results string `json:"results"`
}

// Summary is one verification in a list.
type Summary struct {
	ID            string   `json:"id"`
	Attempt       int      `json:"attempt"`
	Kind          string   `json:"kind"`
	Verdict       string   `json:"verdict"`
	Action        string   `json:"action"`
	Score         *float64 `json:"score"`
	Confidence    float64  `json:"confidence"`
	NeedsReview   bool     `json:"needsReview"`
	TaskID        string   `json:"taskId,omitempty"`
	InteractionID string   `json:"interactionId,omitempty"`
	TargetID      string   `json:"targetId,omitempty"`
	// Type is the verification type: agent, orchestrator or moderator.
	Type          string    `json:"verificationType"`
	Goal          string    `json:"goal,omitempty"`
	Criticality   string    `json:"criticality,omitempty"`
	ExecutorModel string    `json:"executorModel,omitempty"`
	JudgeModels   []string  `json:"judgeModels,omitempty"`
	CostUSD       float64   `json:"costUsd"`
	DurationMs    float64   `json:"durationMs"`
	CreatedAt     time.Time `json:"createdAt"`
}

// List is a page of verifications, newest first; Next is the cursor of
// the next page, empty on the last.
type List struct {
	Items []Summary `json:"items"`
	Next  string    `json:"next,omitempty"`
}

// Override is a person's verdict beside a stored report. In a stored
// report's "overrides" it has no verificationId or attempt (they are the
// report's).
type Override struct {
	VerificationID string    `json:"verificationId,omitempty"`
	Attempt        int       `json:"attempt,omitempty"`
	Verdict        string    `json:"verdict"`
	Reason         string    `json:"reason"`
	Reviewer       string    `json:"reviewer"`
	CreatedAt      time.Time `json:"createdAt"`
}

// OverrideInput is the body of POST /v1/verifications/{id}/override: a
// person's verdict on a stored verification. The report itself never
// changes; the override sits beside it.
type OverrideInput struct {
	// Verdict is pass, retry or fail.
	Verdict string `json:"verdict"`
	// Reason says why; it becomes the reason of the few-shot examples
	// exported from overrides.
	Reason string `json:"reason"`
	// Reviewer names the person; empty means the API key's name.
	Reviewer string `json:"reviewer"`
	// Attempt picks an attempt of the verification; 0 means its latest.
	Attempt int `json:"attempt,omitempty"`
}

// OutcomeInput is the body of POST /v1/outcomes: what happened
// downstream of an accepted output. It names a verification by id (and
// attempt, default the latest), or a task by taskId (and interactionId),
// whose latest verification it labels.
type OutcomeInput struct {
	VerificationID string `json:"verificationId,omitempty"`
	Attempt        int    `json:"attempt,omitempty"`
	TaskID         string `json:"taskId,omitempty"`
	InteractionID  string `json:"interactionId,omitempty"`
	// Good is required: true when the output was used and held up, false
	// when it broke something.
	Good     *bool  `json:"good"`
	Detail   string `json:"detail,omitempty"`
	Reporter string `json:"reporter,omitempty"`
}

// Outcome is a recorded outcome, with the verification it labels.
type Outcome struct {
	VerificationID string    `json:"verificationId"`
	Attempt        int       `json:"attempt"`
	TaskID         string    `json:"taskId,omitempty"`
	InteractionID  string    `json:"interactionId,omitempty"`
	Good           *bool     `json:"good"`
	Detail         string    `json:"detail,omitempty"`
	Reporter       string    `json:"reporter,omitempty"`
	CreatedAt      time.Time `json:"createdAt"`
}
