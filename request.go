package vouch

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind names a checkpoint kind: what sort of agent output a request carries.
// Each kind has its own dimensions and default weights.
type Kind string

// The checkpoint kinds.
const (
	KindSubtask       Kind = "subtask"       // a specialist's output for one task
	KindDecomposition Kind = "decomposition" // a plan: subgoals, dependencies, routing
	KindSynthesis     Kind = "synthesis"     // a final answer built from several agent outputs
	KindModeration    Kind = "moderation"    // a moderator's summary of a discussion
	KindAnswer        Kind = "answer"        // a research answer with sources or a tool trace
)

// Kinds lists every checkpoint kind in a fixed order.
var Kinds = []Kind{KindSubtask, KindDecomposition, KindSynthesis, KindModeration, KindAnswer}

// Valid reports whether k is one of [Kinds].
func (k Kind) Valid() bool {
	for _, v := range Kinds {
		if k == v {
			return true
		}
	}
	return false
}

// Request is one verification request: the task an agent was given, what the
// agent returned and said it did, and the evidence to hold it against.
//
// Lines are 1-based and ranges inclusive; a last line without a newline counts
// as a line. A zero Attempt means 1 and an empty Kind means [KindSubtask].
type Request struct {
	APIVersion string `json:"apiVersion,omitempty"`
	ID         string `json:"id,omitempty"`
	Kind       Kind   `json:"kind,omitempty"`
	Attempt    int    `json:"attempt,omitempty"`
	Task       Task   `json:"task"`
	Output     Output `json:"output"`
	Workspace  string `json:"workspace,omitempty"`
	// InteractionID names the orchestrator's run this verification
	// belongs to: the subtasks, attempts and synthesis of one user
	// request. Optional; the service stores and filters by it.
	InteractionID string `json:"interactionId,omitempty"`
	// Target names what is verified within the interaction: an agent
	// name, a tool call id. Optional; the service stores it as target_id.
	Target  string       `json:"target,omitempty"`
	Base    string       `json:"base,omitempty"`
	Trace   []TraceEntry `json:"trace,omitempty"`
	Context *Context     `json:"context,omitempty"`
}

// EffectiveKind returns r.Kind, or [KindSubtask] when it is empty.
func (r *Request) EffectiveKind() Kind {
	if r.Kind == "" {
		return KindSubtask
	}
	return r.Kind
}

// Complexity returns the size of what the task asked for: the subgoals
// of the plan a decomposition verifies, else the criteria the task
// writes. The quality metrics group scores by it.
func (r *Request) Complexity() int {
	if r.EffectiveKind() == KindDecomposition && r.Context != nil && r.Context.Plan != nil {
		return len(r.Context.Plan.Subgoals)
	}
	return len(r.Task.Criteria)
}

// EffectiveAttempt returns r.Attempt, or 1 when it is zero.
func (r *Request) EffectiveAttempt() int {
	if r.Attempt <= 0 {
		return 1
	}
	return r.Attempt
}

// Task is what the agent was asked to do.
type Task struct {
	ID       string      `json:"id,omitempty"`
	Goal     string      `json:"goal,omitempty"`
	Criteria []Criterion `json:"criteria,omitempty"`
	Executor *Executor   `json:"executor,omitempty"`
	// Criticality is how much rides on the task: [CriticalityLow],
	// [CriticalityNormal] (the default) or [CriticalityHigh]. A
	// high-criticality task is judged adversarially.
	Criticality string `json:"criticality,omitempty"`
	// Dependents is how many tasks build on this one, when the
	// orchestrator knows; 0 lets a policy skip the judge for leaf tasks.
	Dependents *int `json:"dependents,omitempty"`
	// Policy holds task-level policy overrides with the keys of a policy file.
	// They may tighten the policy in force but never widen what runs.
	Policy json.RawMessage `json:"policy,omitempty"`
}

// Task criticalities.
const (
	CriticalityLow    = "low"
	CriticalityNormal = "normal"
	CriticalityHigh   = "high"
)

// Executor describes the agent (model) that produced the output.
type Executor struct {
	Provider string   `json:"provider,omitempty"`
	Model    string   `json:"model,omitempty"`
	Tier     string   `json:"tier,omitempty"`
	CostUSD  *float64 `json:"costUsd,omitempty"`
}

// Criterion is one success criterion of a task. A criterion with a Check is
// decided by rule; one without (or with a check of type "llm") is left to the
// judge, or stays undecided.
type Criterion struct {
	ID   string `json:"id,omitempty"`
	Text string `json:"text,omitempty"`
	// Must makes the criterion must-pass: unmet, it fails the gate whatever
	// the score; undecided, it fails it too.
	Must bool `json:"must,omitempty"`
	// Weight is the criterion's weight in its dimension; nil means 1.
	Weight *float64   `json:"weight,omitempty"`
	Check  *CheckSpec `json:"check,omitempty"`
}

// EffectiveWeight returns the criterion's weight, 1 when unset.
func (c *Criterion) EffectiveWeight() float64 {
	if c.Weight == nil {
		return 1
	}
	return *c.Weight
}

// CheckSpec is the rule that decides a criterion: a check type, an optional
// negation and the type's own parameters, written flat beside "type":
//
//	{"type": "contains", "value": "DONE", "ignoreCase": true, "not": true}
//
// Raw holds the whole object as written; check factories decode their
// parameters from it. Use [NewCheckSpec] to build one in code.
type CheckSpec struct {
	Type string
	Not  bool
	Raw  json.RawMessage
}

// NewCheckSpec builds a CheckSpec of the given type from its parameters.
// Keys "type" and "not" in params are overwritten.
func NewCheckSpec(typ string, not bool, params map[string]any) CheckSpec {
	m := make(map[string]any, len(params)+2)
	for k, v := range params {
		m[k] = v
	}
	m["type"] = typ
	if not {
		m["not"] = true
	} else {
		delete(m, "not")
	}
	raw, err := json.Marshal(m)
	if err != nil {
		// Parameters that cannot be marshalled make a spec that will not
		// compile; keep the type so the error names it.
		raw = nil
	}
	return CheckSpec{Type: typ, Not: not, Raw: raw}
}

// MarshalJSON writes the check as its raw object, or as {type, not} when no
// raw form is held.
func (c CheckSpec) MarshalJSON() ([]byte, error) {
	if len(c.Raw) > 0 {
		return c.Raw, nil
	}
	return json.Marshal(struct {
		Type string `json:"type"`
		Not  bool   `json:"not,omitempty"`
	}{c.Type, c.Not})
}

// UnmarshalJSON keeps the raw object and reads "type" and "not" from it.
// Package wire decodes requests faster and with precise errors; this method
// serves callers that use encoding/json directly.
func (c *CheckSpec) UnmarshalJSON(data []byte) error {
	var head struct {
		Type string `json:"type"`
		Not  bool   `json:"not"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return err
	}
	c.Type, c.Not = head.Type, head.Not
	c.Raw = append(c.Raw[:0:0], data...)
	return nil
}

// TestResult is what an agent says about the tests it ran.
type TestResult string

// The test results an agent can claim.
const (
	TestPassed  TestResult = "passed"
	TestFailed  TestResult = "failed"
	TestSkipped TestResult = "skipped"
)

// Output is what the agent returned and what it says it did.
type Output struct {
	// Summary is the agent's answer or report. It is required (it may be empty).
	Summary        string          `json:"summary"`
	Created        []string        `json:"created,omitempty"`
	Modified       []string        `json:"modified,omitempty"`
	Deleted        []string        `json:"deleted,omitempty"`
	ToolCalls      []string        `json:"toolCalls,omitempty"`
	Commands       []string        `json:"commands,omitempty"`
	TestResult     TestResult      `json:"testResult,omitempty"`
	Metadata       map[string]any  `json:"metadata,omitempty"`
	Artifacts      *Artifacts      `json:"artifacts,omitempty"`
	SelfAssessment *SelfAssessment `json:"selfAssessment,omitempty"`
}

// ClaimedRegions returns the edited regions the output claims for file
// (artifacts.fileEdits with an editedRegion), in the order claimed. A
// leading "./" on either path is ignored.
func (o *Output) ClaimedRegions(file string) []LineRange {
	var out []LineRange
	if a := o.Artifacts; a != nil {
		file = strings.TrimPrefix(file, "./")
		for _, fe := range a.FileEdits {
			if fe.EditedRegion != nil && strings.TrimPrefix(fe.File, "./") == file {
				out = append(out, *fe.EditedRegion)
			}
		}
	}
	return out
}

// Artifacts are the agent's detailed claims about its work. They are claims,
// not evidence: the trace and the workspace are evidence.
type Artifacts struct {
	FileEdits      []FileEdit      `json:"fileEdits,omitempty"`
	FilesCreated   []FileCreated   `json:"filesCreated,omitempty"`
	CommandResults []CommandResult `json:"commandResults,omitempty"`
	PluginResults  []PluginResult  `json:"pluginResults,omitempty"`
}

// ChangeType says how a file edit changed its region.
type ChangeType string

// The change types of a file edit.
const (
	ChangeAdd    ChangeType = "add"
	ChangeModify ChangeType = "modify"
	ChangeDelete ChangeType = "delete"
)

// FileEdit is a claimed edit of one file.
type FileEdit struct {
	File         string     `json:"file"`
	LinesChanged int        `json:"linesChanged,omitempty"`
	EditedRegion *LineRange `json:"editedRegion,omitempty"`
	ChangeType   ChangeType `json:"changeType,omitempty"`
}

// ClaimText is how the claimed edit is named in a claim ledger:
// "src/a.ts:3-9", or the file alone when the edit names no region.
func (e FileEdit) ClaimText() string {
	if r := e.EditedRegion; r != nil {
		return e.File + ":" + strconv.Itoa(r.Start) + "-" + strconv.Itoa(r.End)
	}
	return e.File
}

// LineRange is an inclusive range of 1-based lines.
type LineRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// FileCreated is a claimed new file with its claimed size.
type FileCreated struct {
	File       string `json:"file"`
	SizeBytes  *int64 `json:"sizeBytes,omitempty"`
	LinesCount *int   `json:"linesCount,omitempty"`
}

// CommandResult is a claimed run of a command. ExitCode is nil when the
// agent did not say how the command ended: that is never read as success.
type CommandResult struct {
	Command     string `json:"command"`
	ExitCode    *int   `json:"exitCode,omitempty"`
	StdoutLines int    `json:"stdoutLines,omitempty"`
	StderrLines int    `json:"stderrLines,omitempty"`
}

// PluginStatus is the status a plugin tool reported.
type PluginStatus string

// The plugin statuses.
const (
	PluginSuccess PluginStatus = "success"
	PluginError   PluginStatus = "error"
)

// PluginResult is the result of one call of a plugin tool (any tool that is
// not a built-in fs:*, code:* or shell:* tool).
type PluginResult struct {
	Tool          string          `json:"tool"`
	Status        PluginStatus    `json:"status,omitempty"`
	Data          json.RawMessage `json:"data,omitempty"`
	Error         string          `json:"error,omitempty"`
	ItemsReturned *int            `json:"itemsReturned,omitempty"`
	// Confidence is the plugin's own confidence in its result, from 0 to
	// 1, when it reports one. vouch shows it in the plugin's checks but
	// never counts it as evidence.
	Confidence *float64 `json:"confidence,omitempty"`
}

// SelfAssessment is the agent's own view of its work. vouch reports it but
// never counts it as evidence.
type SelfAssessment struct {
	Confidence   *float64 `json:"confidence,omitempty"`
	Completeness *float64 `json:"completeness,omitempty"`
	Gaps         []string `json:"gaps,omitempty"`
	Reasoning    string   `json:"reasoning,omitempty"`
}

// TraceEntry is one tool call the agent made, with its result. The trace is
// evidence and wins over the agent's claims.
type TraceEntry struct {
	ID        string          `json:"id,omitempty"`
	Tool      string          `json:"tool"`
	Input     map[string]any  `json:"input,omitempty"`
	Output    json.RawMessage `json:"output,omitempty"`
	IsError   bool            `json:"isError,omitempty"`
	Timestamp string          `json:"timestamp,omitempty"`
}

// OutputText returns the entry's output as text: a JSON string unquoted, any
// other JSON value as written.
func (e *TraceEntry) OutputText() string {
	raw := strings.TrimSpace(string(e.Output))
	if raw == "" || raw == "null" {
		return ""
	}
	if raw[0] == '"' {
		if s, ok := unquote(raw); ok {
			return s
		}
		var s string
		if json.Unmarshal([]byte(raw), &s) == nil {
			return s
		}
	}
	return raw
}

// unquote decodes a JSON string literal quickly, without reflection; it
// reports false for anything it does not read exactly as encoding/json
// would (the caller then falls back to it).
func unquote(raw string) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	esc := strings.IndexByte(body, '\\')
	if esc < 0 {
		if strings.IndexByte(body, '"') >= 0 || !utf8.ValidString(body) {
			return "", false
		}
		return body, true
	}
	var b strings.Builder
	b.Grow(len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c == '"' || c < 0x20 {
			return "", false
		}
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(body) {
			return "", false
		}
		switch body[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case '"', '\\', '/':
			b.WriteByte(body[i])
		case 'u':
			r, ok := hex4(body, i+1)
			if !ok {
				return "", false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), false
				if i+6 < len(body) && body[i+1] == '\\' && body[i+2] == 'u' {
					r2, ok = hex4(body, i+3)
				}
				if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			b.WriteRune(r)
		default:
			return "", false
		}
	}
	if !utf8.ValidString(b.String()) {
		return "", false
	}
	return b.String(), true
}

func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// Context is what the output can be checked against beyond the trace:
// sources, the agent registry, the plan, other agents' outputs, a discussion.
type Context struct {
	Sources    []json.RawMessage `json:"sources,omitempty"`
	Agents     []Agent           `json:"agents,omitempty"`
	Plan       *Plan             `json:"plan,omitempty"`
	Outputs    []AgentOutput     `json:"outputs,omitempty"`
	Discussion []Utterance       `json:"discussion,omitempty"`
}

// Agent is an entry of the agent registry a plan routes to.
type Agent struct {
	Name         string   `json:"name"`
	Capabilities []string `json:"capabilities,omitempty"`
}

// Plan is a decomposition of a goal into subgoals.
type Plan struct {
	Goal     string    `json:"goal,omitempty"`
	Subgoals []Subgoal `json:"subgoals,omitempty"`
	Phases   []Phase   `json:"phases,omitempty"`
}

// Subgoal is one step of a plan, routed to an agent.
type Subgoal struct {
	ID          string   `json:"id"`
	Description string   `json:"description,omitempty"`
	Agent       string   `json:"agent,omitempty"`
	Requires    []string `json:"requires,omitempty"`
	DependsOn   []string `json:"dependsOn,omitempty"`
	// Criticality is how much rides on the subgoal: [CriticalityLow],
	// [CriticalityNormal] (the default) or [CriticalityHigh]. When a
	// high-criticality subgoal fails, a plan run (loop.RunPlan, vouch run
	// --plan) does not run the subgoals that depend on it.
	Criticality string `json:"criticality,omitempty"`
}

// PhaseMode says whether a phase's subgoals run one after another or together.
type PhaseMode string

// The phase modes.
const (
	PhaseSequential PhaseMode = "sequential"
	PhaseParallel   PhaseMode = "parallel"
)

// Phase groups subgoals that run in one mode.
type Phase struct {
	Mode     PhaseMode `json:"mode"`
	Subgoals []string  `json:"subgoals"`
}

// AgentOutput is one agent's output that a synthesis draws on.
type AgentOutput struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// Utterance is one contribution to a moderated discussion.
type Utterance struct {
	Speaker string `json:"speaker"`
	Text    string `json:"text"`
}
