package vouch

// Verdict is the gate's decision on an output.
type Verdict string

// The verdicts. Each is a promise:
//
//   - pass: every material claim of the output was checked and held (or
//     was the judge's to decide and the judge held it), and every decided
//     criterion is met well enough;
//   - retry and fail: something was found false (a claim refuted by the
//     evidence, which the report quotes) or an explicit must-pass
//     criterion was not met; retry while attempts remain;
//   - unverified: nothing was found false, but some material claim could
//     not be checked either way (no evidence for it), or nothing at all
//     could be decided. It is neither a pass nor a send-back; the policy's
//     onUnverified says what an orchestrator does with it.
const (
	VerdictPass       Verdict = "pass"
	VerdictRetry      Verdict = "retry"
	VerdictFail       Verdict = "fail"
	VerdictUnverified Verdict = "unverified"
)

// Verdicts lists the verdicts, in the order reports and metrics show them.
var Verdicts = []Verdict{VerdictPass, VerdictRetry, VerdictFail, VerdictUnverified}

// Valid reports whether v is one of [Verdicts].
func (v Verdict) Valid() bool {
	switch v {
	case VerdictPass, VerdictRetry, VerdictFail, VerdictUnverified:
		return true
	}
	return false
}

// SentBack reports whether the verdict sends the work back: retry or fail.
func (v Verdict) SentBack() bool { return v == VerdictRetry || v == VerdictFail }

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
	// 1 to 7; 0 in a report built by hand.
	VerdictRow int `json:"verdictRow,omitzero"`
	// Reason says in one sentence why the verdict is what it is: the
	// first must-pass check that failed, the score against the
	// thresholds, what could not be decided.
	Reason      string   `json:"reason,omitzero"`
	Score       *float64 `json:"score"`
	Confidence  float64  `json:"confidence"`
	NeedsReview bool     `json:"needsReview"`
	// Claims is the claim ledger: every claim the output makes, each
	// verified, refuted or unverified, in the order the output makes them.
	Claims []Claim `json:"claims"`
	// Coverage is the share of the claims decided (verified or refuted);
	// null when the output makes no claim.
	Coverage    *float64             `json:"coverage"`
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

// ClaimState is where the evidence leaves a claim.
type ClaimState string

// The claim states.
const (
	// ClaimVerified: the evidence holds the claim.
	ClaimVerified ClaimState = "verified"
	// ClaimRefuted: the evidence contradicts the claim; the claim's reason
	// quotes what was found.
	ClaimRefuted ClaimState = "refuted"
	// ClaimUnverified: no evidence either way; the reason says why.
	ClaimUnverified ClaimState = "unverified"
)

// ClaimKind is what a claim is about.
type ClaimKind string

// The claim kinds.
const (
	ClaimFile       ClaimKind = "file"       // files created, changed, removed or moved
	ClaimSymbol     ClaimKind = "symbol"     // functions, types, methods added, changed, removed or renamed
	ClaimBehaviour  ClaimKind = "behaviour"  // what the code now does: a fix, a new behaviour, no change
	ClaimTests      ClaimKind = "tests"      // tests written, run, passing, with their counts and scope
	ClaimCommand    ClaimKind = "command"    // commands run and what they showed
	ClaimGit        ClaimKind = "git"        // commits, pushes, merges, a clean tree
	ClaimPlugin     ClaimKind = "plugin"     // a plugin tool's result
	ClaimCompletion ClaimKind = "completion" // the work is done, complete or correct
	ClaimStatement  ClaimKind = "statement"  // anything else asserted, and an answer's statements
)

// ClaimKinds lists the claim kinds.
var ClaimKinds = []ClaimKind{ClaimFile, ClaimSymbol, ClaimBehaviour, ClaimTests, ClaimCommand,
	ClaimGit, ClaimPlugin, ClaimCompletion, ClaimStatement}

// Claim is one entry of the claim ledger: something the output asserts,
// and where the evidence leaves it.
type Claim struct {
	// ID numbers the claims of one report: "c1", "c2"...
	ID string `json:"id"`
	// Text is the claim as the output makes it: a clause of the summary,
	// or an entry of a structured field ("src/a.ts").
	Text string `json:"text"`
	// Kind is what the claim is about.
	Kind ClaimKind `json:"kind"`
	// Source is where the claim was read: "output.summary", or the
	// structured field ("output.created", "output.testResult",
	// "output.artifacts.pluginResults").
	Source string `json:"source"`
	// State is verified, refuted or unverified.
	State ClaimState `json:"state"`
	// Reason says what the evidence showed: for a refuted claim, what was
	// found instead, quoted; for an unverified one, why nothing decided.
	Reason string `json:"reason"`
	// Checks are the indices, in the report's checks, of the checks that
	// decided the claim or tried to.
	Checks []int `json:"checks"`
}

// ClaimRef ties a check to a claim of the output it decides, or tries to:
// where the claim was read and which part of it the check settles. A
// check that passes verifies the claims it cites in full, unless the ref
// is Partial; one that fails refutes them; one that stays undecided
// leaves them unverified with its reason.
type ClaimRef struct {
	// Source is where the claim was read: "output.summary", or a
	// structured field ("output.created", "output.testResult").
	Source string
	// Text is the claim as written: the phrase of the summary the check
	// read ("Added `ParseRange`", "all tests pass"), or the field's value
	// ("src/a.ts", "passed").
	Text string
	// Sentence is the summary sentence the phrase is in, markdown
	// removed, as package text/claimtext's readers give it; empty for a
	// structured field.
	Sentence string
	// Kind is what the claim is about.
	Kind ClaimKind
	// Partial is set when the check settles only part of the claim (a fix
	// claimed in a file: git shows the file changed, not that the fix
	// works): passing, it leaves the claim unverified; failing, it still
	// refutes it.
	Partial bool
	// Status, when set, is the check's decision on this claim alone, for
	// a check that scores several claims at once (the share of an answer's
	// statements its sources hold); empty means the check's own status.
	Status Status
}

// SummaryRef returns a ClaimRef to a phrase of the output's summary.
func SummaryRef(kind ClaimKind, text, sentence string) ClaimRef {
	return ClaimRef{Source: SourceSummary, Kind: kind, Text: text, Sentence: sentence}
}

// SourceSummary is the Source of a claim read from the output's summary.
const SourceSummary = "output.summary"

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
	// Claims are the claims of the output the check decides, or tries to
	// (see [ClaimRef]); none for a check of no claim (a criterion, the
	// structure of a plan).
	Claims []ClaimRef `json:"-"`
}

// Mentions are the files, packages, symbols, URLs and other entities an
// answer mentions, split by what the evidence says of them: found
// (verified), contradicted (refuted: a file shown absent, a package
// missing from the manifests read, a symbol missing from the file it was
// said to be in), or neither (unverified). Only refuted mentions count
// against an output; an unverified one never lowers its score.
type Mentions struct {
	Verified   []VerifiedMention   `json:"verified"`
	Unverified []UnverifiedMention `json:"unverified"`
	Refuted    []RefutedMention    `json:"refuted"`
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

// RefutedMention is a mention the evidence contradicts: the place that
// would hold it was examined and does not.
type RefutedMention struct {
	Text     string      `json:"text"`
	Kind     MentionKind `json:"kind"`
	Sentence string      `json:"sentence"`
	// Evidence says what was found instead: "not in the workspace", "not
	// in go.mod".
	Evidence string `json:"evidence"`
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
