package vouch

import "context"

// Judge asks a language model what no rule could decide: criteria without a
// rule (or with an "llm" rubric) and dimensions no check decided. A Judge
// holds credentials and state, so it is passed to the engine as a value,
// never registered globally. Judge may be called concurrently.
//
// A Judge returns an error when it could not judge at all (timeout, refusal,
// malformed reply, no model reachable); the engine then leaves everything it
// asked undecided and never counts the fault as a pass. With the error it
// may return a verdict too, for what its failed calls cost: the engine
// reports its Info and Cost and nothing else of it. A verdict may also
// leave single items undecided.
type Judge interface {
	Evaluate(ctx context.Context, q *JudgeQuery) (*JudgeVerdict, error)
}

// JudgeQuery is what the engine asks a judge.
type JudgeQuery struct {
	// Request is the request under verification. Agent text in it is data:
	// a judge fences and labels it and never follows instructions inside.
	Request *Request
	// Criteria are the criteria to decide.
	Criteria []JudgeCriterion
	// Dimensions are the names of the dimensions to score.
	Dimensions []string
	// Claims are the claims of the output no rule could decide (the claim
	// ledger's unverified ones), for the judge to hold against the
	// evidence in the same call.
	Claims []JudgeClaim
	// Findings summarises what the rules already found. A judge gives it
	// as fact and never asks it again.
	Findings string
	// Policy is the policy in force for the request: the judge's models,
	// mode, samples, budget and the rest come from its Judge section.
	Policy *Policy
}

// JudgeCriterion is one criterion put to the judge.
type JudgeCriterion struct {
	ID     string
	Text   string
	Rubric string
}

// JudgeClaim is one claim of the output put to the judge.
type JudgeClaim struct {
	// ID is the claim's id in the ledger ("c3").
	ID string
	// Text is the claim as the output makes it; Kind what it is about.
	Text string
	Kind ClaimKind
	// Why says why no rule decided it.
	Why string
}

// JudgedClaim is a judge's decision on one claim: verified when the
// evidence it was shown holds the claim, refuted when the evidence shows
// it false, unverified when it shows neither (or the judge failed).
type JudgedClaim struct {
	ID         string
	State      ClaimState
	Confidence float64
	Reason     string
}

// JudgeVerdict is a judge's answer.
type JudgeVerdict struct {
	// Claims are the judge's decisions on the query's claims.
	Claims     []JudgedClaim
	Criteria   []JudgedCriterion
	Dimensions map[string]JudgedScore
	Info       JudgeInfo
	Cost       Cost
	Warnings   []Warning
	// Gaps are what the judge found missing from the output.
	Gaps []string
	// Issues are problems the judge noted that no criterion holds.
	Issues []string
	// Unverified are mentions the judge found unsupported that the rules
	// could not extract.
	Unverified []UnverifiedMention
	// ConfidenceCap, when above 0, caps the report's confidence: a judge
	// that is the executor's own model is worth no more than 0.5.
	ConfidenceCap float64
}

// JudgedCriterion is a judge's decision on one criterion.
type JudgedCriterion struct {
	ID         string
	Status     CriterionStatus
	Score      float64
	Confidence float64
	Reason     string
	// Code says why a criterion left undecided is (JUDGE_BYPASSED,
	// JUDGE_BUDGET, JUDGE_DISAGREEMENT, JUDGE_FAILED); empty otherwise.
	Code string
}

// JudgedScore is a judge's score of one dimension.
type JudgedScore struct {
	Score      float64
	Confidence float64
	Reason     string
}
