// Package event is what happens around verifications, in the one shape
// vouch uses everywhere: in Go, in a JSONL file, in signed webhooks, and
// (later) in the HTTP server's stream.
//
//	{type, id, time, tenant, interactionId, taskId, attempt, data}
//
// An [Emitter] stamps each [Event] (id, time, tenant), encodes it once and
// hands the same bytes to every [Sink]: a Go channel ([Channel]), an
// append-only JSONL file ([JSONL]), an HTTP endpoint ([Webhook], signed
// with HMAC-SHA256, retried with backoff from a bounded queue so that a
// slow receiver never holds up a verification).
//
// The data of each type is a struct of this package: [Complete],
// [Retry], [FollowUp], [Clarify], [Escalation] and [Answer]. Decoding an
// event ([Event.UnmarshalJSON], [ReadJSONL]) gives back those types.
//
// The package sits beside package loop rather than inside it because it
// is not the loop's alone: `vouch run`, the Claude Code hook and the
// server emit and stream the same events, and none of them should need
// the loop to do so. It imports only the root package, wire and internal/fence.
package event

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/fence"
	"github.com/vouchgate/vouch/wire"
)

// Type names what happened.
type Type string

// The event types.
const (
	// VerificationComplete: one attempt was verified. Data: [Complete].
	VerificationComplete Type = "verification:complete"
	// VerificationRetry: the attempt is sent back with feedback. Data:
	// [Retry].
	VerificationRetry Type = "verification:retry"
	// SubtaskFollowUp: a follow-up subtask was made for a gap of an
	// accepted output. Data: [FollowUp].
	SubtaskFollowUp Type = "subtask:followup"
	// SubtaskClarify: outputs contradict each other; a person or the
	// orchestrator must say which side holds. Data: [Clarify].
	SubtaskClarify Type = "subtask:clarify"
	// SubtaskEscalated: the task is handed to a person. Data:
	// [Escalation].
	SubtaskEscalated Type = "subtask:escalated"
	// OrchestratorAnswer: the orchestrator's final answer, with how far
	// it can be trusted. Data: [Answer].
	OrchestratorAnswer Type = "orchestrator:answer"
	// AlertFiring: a quality alert of `vouch serve` started firing (its
	// figure crossed the threshold over enough labels). Data: the alert's
	// status, as GET /v1/alerts gives it (package quality's Status).
	AlertFiring Type = "alert:firing"
	// AlertResolved: a quality alert stopped firing. Data: as for
	// AlertFiring.
	AlertResolved Type = "alert:resolved"
)

// Types lists every event type.
var Types = []Type{VerificationComplete, VerificationRetry, SubtaskFollowUp, SubtaskClarify, SubtaskEscalated, OrchestratorAnswer, AlertFiring, AlertResolved}

// Event is one thing that happened to one attempt of one task.
type Event struct {
	// Type says what happened, and so what Data holds.
	Type Type `json:"type"`
	// ID is unique to the event; a webhook delivery and its retries carry
	// the same ID, so a receiver can drop duplicates.
	ID string `json:"id"`
	// Time is when it happened, in UTC.
	Time time.Time `json:"time"`
	// Tenant is the tenant the events belong to ("" when there is one).
	Tenant string `json:"tenant"`
	// InteractionID is the orchestrator run (one user request) the task
	// belongs to.
	InteractionID string `json:"interactionId"`
	// TaskID is the task it happened to.
	TaskID string `json:"taskId"`
	// Attempt counts from 1; 0 for an event about no single attempt (an
	// answer).
	Attempt int `json:"attempt"`
	// Data is the type's payload: *Complete, *Retry, *FollowUp, *Clarify,
	// *Escalation or *Answer. An event decoded with an unknown type keeps
	// its data as json.RawMessage.
	Data any `json:"data"`
}

// UnmarshalJSON decodes an event and its data as the type's struct.
func (e *Event) UnmarshalJSON(b []byte) error {
	type plain Event
	var raw struct {
		plain
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*e = Event(raw.plain)
	var data any
	switch e.Type {
	case VerificationComplete:
		data = new(Complete)
	case VerificationRetry:
		data = new(Retry)
	case SubtaskFollowUp:
		data = new(FollowUp)
	case SubtaskClarify:
		data = new(Clarify)
	case SubtaskEscalated:
		data = new(Escalation)
	case OrchestratorAnswer:
		data = new(Answer)
	default:
		e.Data = raw.Data
		return nil
	}
	if len(raw.Data) > 0 && string(raw.Data) != "null" {
		if err := json.Unmarshal(raw.Data, data); err != nil {
			return fmt.Errorf("event: %s data: %w", e.Type, err)
		}
	}
	e.Data = data
	return nil
}

// Complete is the data of verification:complete: the report of one
// attempt, and what the agent said of its own work beside it.
type Complete struct {
	// Report is the attempt's report.
	Report *vouch.Report `json:"report"`
	// SelfAssessment is null when the agent gave none.
	SelfAssessment *SelfAssessment `json:"selfAssessment"`
}

// MarshalJSON writes the report as package wire does (as `vouch verify
// --json` prints it).
func (c Complete) MarshalJSON() ([]byte, error) {
	rep := []byte("null")
	if c.Report != nil {
		var err error
		if rep, err = wire.MarshalReport(c.Report); err != nil {
			return nil, err
		}
	}
	self, err := json.Marshal(c.SelfAssessment)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(rep)+len(self)+40)
	out = append(out, `{"report":`...)
	out = append(out, rep...)
	out = append(out, `,"selfAssessment":`...)
	out = append(out, self...)
	return append(out, '}'), nil
}

// SelfAssessment is the agent's view of its own work beside what was
// verified. Bias, gathered per executor (provider and model), is how far
// an agent's self-assessment runs ahead of the evidence.
//
// The bias is taken against the verified score, not the report's
// confidence: the confidence says how much of the output could be checked
// and how firmly, the score how good what was checked is. An agent that
// claims 0.95 for an output that fails its checks is overconfident
// however firmly those checks decided.
type SelfAssessment struct {
	// Confidence, Completeness, Gaps and Reasoning are the agent's own.
	Confidence   *float64 `json:"confidence"`
	Completeness *float64 `json:"completeness"`
	Gaps         []string `json:"gaps,omitempty"`
	Reasoning    string   `json:"reasoning,omitempty"`
	// VerifiedConfidence is the report's confidence.
	VerifiedConfidence float64 `json:"verifiedConfidence"`
	// VerifiedScore is the report's score (null when nothing was decided).
	VerifiedScore *float64 `json:"verifiedScore"`
	// Bias is Confidence minus VerifiedScore; null when the agent gave
	// no confidence or nothing was decided.
	Bias *float64 `json:"bias"`
	// Executor is the agent that assessed itself, when known.
	Executor *vouch.Executor `json:"executor,omitempty"`
}

// NewSelfAssessment sets the agent's view of its work (out's
// selfAssessment) beside the report's; nil when the agent gave none. The
// agent's reasoning is cleaned of fence markers and capped.
func NewSelfAssessment(out *vouch.Output, rep *vouch.Report, exec *vouch.Executor) *SelfAssessment {
	sa := out.SelfAssessment
	if sa == nil {
		return nil
	}
	s := &SelfAssessment{Confidence: sa.Confidence, Completeness: sa.Completeness, Gaps: sa.Gaps,
		Reasoning: fence.Clean(sa.Reasoning, 2000), VerifiedConfidence: rep.Confidence, VerifiedScore: rep.Score, Executor: exec}
	if sa.Confidence != nil && rep.Score != nil {
		b := *sa.Confidence - *rep.Score
		s.Bias = &b
	}
	return s
}

// Retry is the data of verification:retry.
type Retry struct {
	// Feedback is the "previous attempt" section the next attempt's
	// prompt carries.
	Feedback string `json:"feedback"`
	// Action is retry, or reformulate when the task was rewritten.
	Action vouch.Action `json:"action"`
	// Tier is the executor tier the next attempt goes to, when a tier
	// cascade is in use.
	Tier string `json:"tier,omitempty"`
}

// FollowUp is the data of subtask:followup; the event's taskId is the
// follow-up's.
type FollowUp struct {
	// ParentID is the task whose gap it closes; Gap is that gap.
	ParentID string `json:"parentId"`
	Gap      string `json:"gap"`
	// Goal is the follow-up's goal.
	Goal string `json:"goal"`
}

// Clarify is the data of subtask:clarify: a clarification request that
// names both sides of each contradiction, instead of a silent pick.
type Clarify struct {
	// Question is what to settle, in one sentence.
	Question string `json:"question"`
	// Conflicts are the contradictions, each with its two sides.
	Conflicts []Conflict `json:"conflicts"`
}

// Conflict is one contradiction between two outputs.
type Conflict struct {
	// Subject is what the outputs disagree on.
	Subject string `json:"subject"`
	// Sides are the two outputs' sides.
	Sides [2]Side `json:"sides"`
	// Description says it in a sentence, as the check reported it.
	Description string `json:"description"`
}

// Side is one output's side of a conflict.
type Side struct {
	// Source is the output's id.
	Source string `json:"source"`
	// Says is what it says: a value as written, a clause, "created".
	Says string `json:"says"`
	// Sentence is the sentence holding it, when known.
	Sentence string `json:"sentence,omitempty"`
}

// Escalation is the structured error of an escalated task (the data of
// subtask:escalated): what went wrong and what the last report found, for
// a person to pick up.
type Escalation struct {
	// Error says why the task is escalated: the verifier escalated, the
	// retries are used up, the executor or the verifier failed.
	Error string `json:"error"`
	// Verdict, Score, Scores (by dimension; null for one not decided),
	// Issues and Suggestions come from the last report; Verdict is "" and
	// Score null when no report was made.
	Verdict     vouch.Verdict       `json:"verdict"`
	Score       *float64            `json:"score"`
	Scores      map[string]*float64 `json:"scores"`
	Issues      []string            `json:"issues"`
	Suggestions []string            `json:"suggestions"`
	// ReportID is the last report's id, when there is one.
	ReportID string `json:"reportId,omitempty"`
}

// NewEscalation builds an escalation from its reason and the last report
// (nil when there was none).
func NewEscalation(reason string, rep *vouch.Report) *Escalation {
	e := &Escalation{Error: reason, Scores: map[string]*float64{}, Issues: []string{}, Suggestions: []string{}}
	if rep == nil {
		return e
	}
	e.Verdict, e.Score, e.ReportID = rep.Verdict, rep.Score, rep.ID
	for name, d := range rep.Dimensions {
		e.Scores[name] = d.Score
	}
	e.Issues = append(e.Issues, rep.Issues...)
	e.Suggestions = append(e.Suggestions, rep.Suggestions...)
	return e
}

// Answer is the data of orchestrator:answer: how far the final answer
// can be trusted.
type Answer struct {
	// Confidence is the synthesis report's confidence or, when the
	// answer fell back to the outputs, the lowest confidence among the
	// outputs it hands on.
	Confidence float64 `json:"confidence"`
	// Completeness is the completeness dimension's score, null when not
	// decided.
	Completeness *float64 `json:"completeness"`
	// Gaps are the known gaps: the synthesis's and the subtasks'.
	Gaps []string `json:"gaps"`
	// UnverifiedMentions are the mentions no evidence supports.
	UnverifiedMentions []vouch.UnverifiedMention `json:"unverifiedMentions"`
	// Warnings are the warnings of the synthesis and the subtasks.
	Warnings []vouch.Warning `json:"warnings"`
	// FellBack reports that the synthesis failed and the answer is the
	// subtasks' outputs.
	FellBack bool `json:"fellBack"`
	// NeedsReview reports that a person should look before the answer is
	// used.
	NeedsReview bool `json:"needsReview"`
}

// ErrDropped is returned by a sink that had no room for an event and
// dropped it (counted by the sink).
var ErrDropped = errors.New("event: queue full, event dropped")

// newID returns 16 random bytes in hex.
func newID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("event: no randomness: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}
