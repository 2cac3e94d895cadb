package vouch

// Verdict is the gate's decision on an output.
type Verdict string

// The verdicts.
const (
	VerdictPass  Verdict = "pass"
	VerdictRetry Verdict = "retry"
	VerdictFail  Verdict = "fail"
)

// Action is what the orchestrator should do next.
type Action string

// The actions.
const (
	ActionAccept      Action = "accept"      // build on the output
	ActionRetry       Action = "retry"       // run the agent again with the feedback
	ActionReformulate Action = "reformulate" // the output is far off: rephrase the task
	ActionFollowUp    Action = "follow_up"   // accept, and schedule work for the gaps
	ActionEscalate    Action = "escalate"    // a human (or a stronger process) must look
)

// DimensionState says whether a dimension was decided.
type DimensionState string

// The dimension states.
const (
	// StateDecided: some check decided the dimension.
	StateDecided DimensionState = "decided"
	// StateUndecided: the dimension applies, but nothing could decide it.
	StateUndecided DimensionState = "undecided"
	// StateNotApplicable: there is nothing to check the dimension against.
	StateNotApplicable DimensionState = "not_applicable"
)

// Level is the pipeline stage a check belongs to.
type Level string

// The check levels, in pipeline order.
const (
	LevelStructure    Level = "structure"
	LevelPluginSchema Level = "plugin_schema"
	LevelClaims       Level = "claims"
	LevelGrounding    Level = "grounding"
	LevelCriteria     Level = "criteria"
	LevelJudge        Level = "judge"
)

// Strength is how firm a check's evidence is.
type Strength string

// The strengths. Their weights in the confidence formula are given by
// [Strength.Weight].
const (
	StrengthStrict Strength = "strict" // ground truth re-checked: 1.0
	StrengthLight  Strength = "light"  // a black box looked at from outside: 0.7
	StrengthJudge  Strength = "judge"  // an LLM judge: its own confidence
)

// Weight returns the evidence strength used in the confidence formula: 1.0
// for strict, 0.7 for light. A judge's strength is its own confidence, so
// Weight returns 0 for StrengthJudge and callers use the check's Confidence.
func (s Strength) Weight() float64 {
	switch s {
	case StrengthStrict:
		return 1.0
	case StrengthLight:
		return 0.7
	}
	return 0
}

// Status is the outcome of one check.
type Status string

// The check statuses.
const (
	StatusPass      Status = "pass"
	StatusFail      Status = "fail"
	StatusUndecided Status = "undecided"
)

// CriterionStatus is the outcome of one success criterion.
type CriterionStatus string

// The criterion statuses.
const (
	CriterionMet       CriterionStatus = "met"
	CriterionUnmet     CriterionStatus = "unmet"
	CriterionUndecided CriterionStatus = "undecided"
)

// DecidedBy says what decided a criterion.
type DecidedBy string

// What can decide a criterion.
const (
	DecidedByRule  DecidedBy = "rule"
	DecidedByJudge DecidedBy = "judge"
)

// Report is the result of one verification.
type Report struct {
	APIVersion string  `json:"apiVersion"`
	ID         string  `json:"id"`
	Kind       Kind    `json:"kind"`
	Attempt    int     `json:"attempt"`
	Verdict    Verdict `json:"verdict"`
	Action     Action  `json:"action"`
	// VerdictRow is the row of the verdict table (DESIGN.md) that decided,
	// 1 to 6; 0 in a report built by hand.
	VerdictRow int `json:"verdictRow,omitzero"`
	// Reason says in one sentence why the verdict is what it is: the
	// first must-pass check that failed, the score against the
	// thresholds, what could not be decided.
	Reason      string               `json:"reason,omitzero"`
	Score       *float64             `json:"score"`
	Confidence  float64              `json:"confidence"`
	NeedsReview bool                 `json:"needsReview"`
	Dimensions  map[string]Dimension `json:"dimensions"`
	Criteria    []CriterionResult    `json:"criteria"`
	Checks      []CheckResult        `json:"checks"`
	Mentions    Mentions             `json:"mentions"`
	Gaps        []string             `json:"gaps"`
	Issues      []string             `json:"issues"`
	Suggestions []string             `json:"suggestions"`
	Warnings    []Warning            `json:"warnings"`
	Feedback    string               `json:"feedback"`
	Judge       *JudgeInfo           `json:"judge,omitempty"`
	Cost        Cost                 `json:"cost"`
	AnswerChars int                  `json:"answerChars"`
	DurationMs  float64              `json:"durationMs"`
}

// Dimension is the state and score of one quality dimension.
type Dimension struct {
	Score  *float64       `json:"score"`
	State  DimensionState `json:"state"`
	Weight float64        `json:"weight"`
}

// CriterionResult is the outcome of one success criterion, written or
// inferred.
type CriterionResult struct {
	ID        string          `json:"id"`
	Text      string          `json:"text"`
	Must      bool            `json:"must"`
	Inferred  bool            `json:"inferred"`
	Status    CriterionStatus `json:"status"`
	Score     *float64        `json:"score"`
	DecidedBy DecidedBy       `json:"decidedBy,omitempty"`
	Reason    string          `json:"reason"`
}

// CheckResult is the outcome of one check.
type CheckResult struct {
	Name       string         `json:"name"`
	Level      Level          `json:"level"`
	Strength   Strength       `json:"strength"`
	Status     Status         `json:"status"`
	Confidence float64        `json:"confidence"`
	Reason     string         `json:"reason"`
	Evidence   map[string]any `json:"evidence"`

	// Dimension is the dimension the check feeds; empty for checks that
	// feed none (structure, plugin schema checks feed claims).
	Dimension string `json:"-"`
	// Score is the check's score, 1 or 0, or a share for count checks.
	Score float64 `json:"-"`
	// Weight is the check's weight within its dimension (0 means 1).
	Weight float64 `json:"-"`
	// Must marks a must-pass check: failing it triggers verdict row 2 and
	// leaving it undecided triggers row 5.
	Must bool `json:"-"`
	// Code is the stable code of a failed or undecided check; it is also
	// written to Evidence["code"].
	Code string `json:"-"`
	// Fix lists the exact lines, symbols or files to fix, used in the
	// feedback of a second retry.
	Fix []string `json:"-"`
}

// Mentions are the files, packages, symbols, URLs and other entities an
// answer mentions, split by whether they were found in the evidence.
type Mentions struct {
	Verified   []VerifiedMention   `json:"verified"`
	Unverified []UnverifiedMention `json:"unverified"`
}

// MentionKind is the sort of thing a mention names.
type MentionKind string

// The mention kinds.
const (
	MentionFile     MentionKind = "file"
	MentionPackage  MentionKind = "package"
	MentionSymbol   MentionKind = "symbol"
	MentionURL      MentionKind = "url"
	MentionNumber   MentionKind = "number"
	MentionDate     MentionKind = "date"
	MentionEntity   MentionKind = "entity"
	MentionQuantity MentionKind = "quantity"
)

// VerifiedMention is a mention found in the evidence.
type VerifiedMention struct {
	Text     string         `json:"text"`
	Kind     MentionKind    `json:"kind"`
	Evidence map[string]any `json:"evidence"`
}

// UnverifiedMention is a mention not found in the evidence, with the
// sentence it stands in.
type UnverifiedMention struct {
	Text     string      `json:"text"`
	Kind     MentionKind `json:"kind"`
	Sentence string      `json:"sentence"`
}

// Warning is something the orchestrator should know that is not itself a
// check: an unclaimed change, an undecided must-pass criterion, a judge fault.
type Warning struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

// JudgeInfo describes the LLM judging that took part in a verification.
type JudgeInfo struct {
	Models              []string `json:"models"`
	Mode                string   `json:"mode"`
	Samples             int      `json:"samples"`
	Agreement           *float64 `json:"agreement"`
	SameModelAsExecutor bool     `json:"sameModelAsExecutor"`
}

// Cost is what a verification spent on judges.
type Cost struct {
	JudgeCalls   int     `json:"judgeCalls"`
	CacheHits    int     `json:"cacheHits"`
	CacheMisses  int     `json:"cacheMisses"`
	InputTokens  int     `json:"inputTokens"`
	OutputTokens int     `json:"outputTokens"`
	USD          float64 `json:"usd"`
	// TaskCostRatio is USD divided by the executor's cost; null when the
	// executor's cost is unknown or zero.
	TaskCostRatio *float64 `json:"taskCostRatio"`
}
