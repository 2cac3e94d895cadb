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
	// VerifierModel must name one of the server's judge models
	// (provider:model); empty means the configured judge.
	VerifierModel string `json:"verifier_model"`
	// ScoringMode is "rules" (the default: no judge is asked) or "judge".
	ScoringMode string `json:"scoring_mode"`
}

// TaskResult is the answer of POST /verify-task.
type TaskResult struct {
	// Verdict is pass, fail, partial (a report's retry) or unverified
	// (nothing was found false, but claims could not be checked).
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
	ID string `json:"id"`
}

// CriterionScore is one criterion's outcome; Score and Met are null when
// neither a rule nor the judge decided it.
type CriterionScore struct {
	Criterion string   `json:"criterion"`
	Score     *float64 `json:"score"`
	Met       *bool    `json:"met"`
	Reasoning string   `json:"reasoning"`
}

// QualityScores are the report's dimensions in the plain shape:
// completeness is the completeness dimension, accuracy the groundedness
// one; clarity and relevance only a judge scores. A score nothing decided
// is null, never invented.
type QualityScores struct {
	Completeness *float64 `json:"completeness"`
	Accuracy     *float64 `json:"accuracy"`
	Clarity      *float64 `json:"clarity"`
	Relevance    *float64 `json:"relevance"`
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
