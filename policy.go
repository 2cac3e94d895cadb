package vouch

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Policy tunes verification: the verdict thresholds, the dimension weights,
// how claims are judged, which commands may run, what is inferred, and the
// judge. Its JSON and YAML keys are camelCase, like the contracts.
//
// A Policy is built in layers, later wins: [DefaultPolicy] < policy files in
// order < the request's task.policy; package policy does the layering. A
// request may tighten a policy but never widen what runs.
type Policy struct {
	// PassAt is the score at or above which an output passes (row 4).
	PassAt float64 `json:"passAt"`
	// FailBelow is the score below which an output fails outright (row 3).
	FailBelow float64 `json:"failBelow"`
	// ReviewBelow is the confidence below which a human should review.
	ReviewBelow float64 `json:"reviewBelow"`
	// MaxRetries is how many retries an output gets; attempt counts from 1,
	// so attempts 1..MaxRetries may be retried.
	MaxRetries int `json:"maxRetries"`
	// MaxRefuted is how many refuted mentions are tolerated before the
	// output is sent back (verdict row 1); fewer lower its score.
	// Unverified mentions never count.
	MaxRefuted int `json:"maxRefuted"`
	// OnUnverified says what an unverified verdict asks of an
	// orchestrator (see [OnUnverified]): accept (the default), follow_up,
	// escalate or fail.
	OnUnverified OnUnverified `json:"onUnverified"`
	// Weights holds each kind's dimension weights.
	Weights map[Kind]map[string]float64 `json:"weights"`
	// Claims tunes the re-checking of claims.
	Claims ClaimsPolicy `json:"claims"`
	// Commands says which commands from a request may run.
	Commands CommandsPolicy `json:"commands"`
	// ErrorWords are words that, in a plugin tool's summary, signal failure.
	ErrorWords []string `json:"errorWords"`
	// PluginSchemas maps a plugin tool to the JSON Schema of its result data.
	PluginSchemas map[string]json.RawMessage `json:"pluginSchemas"`
	// AdvisoryPlugins are plugin tools whose failed checks (an error
	// status, a result that breaks its schema, a call the trace does not
	// show) only lower the score. Any other plugin's failed check is
	// must-pass and sends the work back (verdict table row 1). A request
	// may remove tools from this list but not add them.
	AdvisoryPlugins []string `json:"advisoryPlugins"`
	// Infer switches each kind of inferred criterion on or off.
	Infer InferPolicy `json:"infer"`
	// RequiredTopics are topics every plan must cover.
	RequiredTopics []string `json:"requiredTopics"`
	// Tools maps an agent framework's tool names to what the tool does
	// (one of [ToolOps]: "read", "write", "exec"...), on top of the built-in
	// table of package trace. A tool that is in neither is a plugin.
	Tools map[string]string `json:"tools"`
	// Judge configures the LLM judge.
	Judge JudgePolicy `json:"judge"`
	// Timeout bounds one whole verification: what is unchecked when it
	// runs out stays undecided. The command line's --timeout and a
	// caller's context deadline may shorten it.
	Timeout Duration `json:"timeout"`
	// Limits bound the input one verification will look at.
	Limits Limits `json:"limits"`
	// Memory tunes what an orchestration loop remembers across subtasks
	// and interactions (packages loop and memory). Verification itself
	// never reads it. A request may not set it: the memory is shared by
	// every interaction of the operator's.
	Memory MemoryPolicy `json:"memory"`
}

// OnUnverified is what an unverified verdict asks of an orchestrator: the
// output made claims nothing could check either way, and nothing was found
// false.
type OnUnverified string

// The choices of onUnverified, from the most lenient to the strictest.
const (
	// OnUnverifiedAccept: accept the output, marked unverified (the
	// default). The loop accepts it, the Stop hook does not block, and
	// vouch run exits 0 and says so.
	OnUnverifiedAccept OnUnverified = "accept"
	// OnUnverifiedFollowUp: accept it, and ask the agent the unverified
	// claims as a question (action follow_up).
	OnUnverifiedFollowUp OnUnverified = "follow_up"
	// OnUnverifiedEscalate: keep the verdict, with action escalate and
	// needsReview: a person decides.
	OnUnverifiedEscalate OnUnverified = "escalate"
	// OnUnverifiedFail: make it fail (verdict fail, action escalate).
	OnUnverifiedFail OnUnverified = "fail"
)

// OnUnverifiedChoices lists the choices of onUnverified, from the most
// lenient to the strictest.
var OnUnverifiedChoices = []OnUnverified{OnUnverifiedAccept, OnUnverifiedFollowUp, OnUnverifiedEscalate, OnUnverifiedFail}

// Strictness is the rank of o in [OnUnverifiedChoices], -1 when it is
// none of them.
func (o OnUnverified) Strictness() int { return slices.Index(OnUnverifiedChoices, o) }

func joinOnUnverified() string {
	s := make([]string, len(OnUnverifiedChoices))
	for i, o := range OnUnverifiedChoices {
		s[i] = string(o)
	}
	return strings.Join(s, ", ")
}

// MemoryPolicy tunes the memory an orchestration loop keeps: what was
// verified, what was hallucinated, the gaps and blockers of earlier
// subtasks.
type MemoryPolicy struct {
	// PromoteAfter is how many interactions (orchestrator runs, by
	// interactionId) must each have had a mention unverified before it is
	// promoted to the shared memory as a known hallucination that every
	// later interaction is told not to reference; default 2, at least 1.
	PromoteAfter int `json:"promoteAfter"`
}

// Limits bound how much of a request and its workspace a verification
// reads, so that no input makes it run long or use much memory. Zero means
// the default.
type Limits struct {
	// FileBytes bounds a workspace file read whole (by a text check, a
	// parser, a claim's line count); default 4 MiB. A larger file leaves
	// what depends on it undecided.
	FileBytes int64 `json:"fileBytes"`
	// ParseBytes bounds the source a code parser reads in one
	// verification, all files together; default 32 MiB.
	ParseBytes int64 `json:"parseBytes"`
	// RegexBytes bounds the text one regular expression scans; default
	// 1 MiB. A longer text leaves the regex check undecided.
	RegexBytes int64 `json:"regexBytes"`
}

// ClaimsPolicy tunes how claims are re-checked.
type ClaimsPolicy struct {
	// SizeTolerance is the relative difference allowed between a claimed and
	// a real size or line count (0.1 = 10%).
	SizeTolerance float64 `json:"sizeTolerance"`
	// StrictIsMustPass makes every failed strict claim check must-pass.
	StrictIsMustPass bool `json:"strictIsMustPass"`
}

// CommandsPolicy says which commands from a request may run, and how. Nothing
// runs unless it matches an Allow rule as a whole (program, flags and
// arguments), and what runs is sandboxed: a process group killed whole at
// the timeout, a temporary HOME, cache and temporary directory outside the
// workspace, a minimal environment, resource limits, and, where the kernel
// allows, writes confined to the workspace and no network.
type CommandsPolicy struct {
	// Allow lists the commands that may run (see [CommandRule]), e.g.
	// [[go, test, -v, -race], [npm, test]].
	Allow []CommandRule `json:"allow"`
	// Shell allows shell metacharacters (the command runs under sh -c).
	Shell bool `json:"shell"`
	// Timeout bounds each run.
	Timeout Duration `json:"timeout"`
	// Limits bound the resources of each process of a run.
	Limits CommandLimits `json:"limits"`
	// Env adds variables to the minimal environment of every run (a
	// shared module cache, say). Only the operator sets it: a request may
	// not.
	Env map[string]string `json:"env"`
	// Writable lists directories, besides the workspace and the run's own
	// temporary directories, that a run may write. Only the operator sets
	// it: a request may not.
	Writable []string `json:"writable"`
	// Network lets runs reach the network. By default they cannot, where
	// the kernel can isolate them (see docs/security.md).
	Network bool `json:"network"`
}

// CommandLimits bound the resources of each process a command starts
// (setrlimit; Linux and other Unix systems). Zero means the default.
type CommandLimits struct {
	// CPU is the processor time each process may use; 0 means the
	// command's timeout.
	CPU Duration `json:"cpu"`
	// MemoryBytes bounds each process's data (heap) size; default 4 GiB.
	MemoryBytes int64 `json:"memoryBytes"`
	// FileBytes bounds the size of a file a process writes; default 1 GiB.
	FileBytes int64 `json:"fileBytes"`
	// Processes bounds the processes of the user running vouch while a
	// command runs (not enforced for root); default 4096.
	Processes int `json:"processes"`
}

// InferPolicy switches inferred criteria on or off.
type InferPolicy struct {
	DocComments bool `json:"docComments"`
	Counts      bool `json:"counts"`
	Created     bool `json:"created"`
}

// JudgePolicy configures the LLM judge. With no models (and no tiers), no
// judge runs and what no rule can decide stays undecided. A request may not
// set any of it: the judge's models, cost and credentials are the
// operator's.
type JudgePolicy struct {
	// Models names the judge models as provider:model ("openai:gpt-4o",
	// "anthropic:claude-sonnet-4-5"; the model may hold colons of its own,
	// "openai:llama3:70b"). Several models form an ensemble, all asked.
	Models []string `json:"models"`
	// Tiers maps the tiers small, medium and large to candidate models.
	// With tiers, the judge is one tier above task.executor.tier (large
	// stays large), or the tier Cascade names for the request's kind; of a
	// tier's candidates, one from another provider than the executor's is
	// preferred, and the executor's own model is taken last.
	Tiers map[string][]string `json:"tiers"`
	// Cascade names the tier that judges each kind ("subtask: medium",
	// "synthesis: large"), ahead of the executor's tier.
	Cascade map[Kind]string `json:"cascade"`
	// AllowSameModel lets the executor's own model judge its output; the
	// report then says so (SAME_MODEL_JUDGE) and confidence is capped at
	// 0.5. Without it such a judge is refused as a configuration error.
	AllowSameModel bool `json:"allowSameModel"`
	// Mode is "self" (a plain rubric, the default) or "adversarial" (a
	// critic's prompt and, with tiers, a tier stronger). A task whose
	// criticality is "high" is judged adversarially whatever the mode.
	Mode string `json:"mode"`
	// Samples is how many times each model is asked (self-consistency).
	Samples int `json:"samples"`
	// Aggregate combines the scores of several samples or models: "mean",
	// "min" or "majority".
	Aggregate string `json:"aggregate"`
	// MaxDisagreement is the largest spread of judge scores tolerated;
	// beyond it an item is left undecided and a human should review.
	MaxDisagreement float64 `json:"maxDisagreement"`
	// Timeout bounds the judging of one verification.
	Timeout Duration `json:"timeout"`
	// MaxRetries is how often a call that failed for a passing reason (a
	// rate limit, a server error, a dropped connection) is sent again.
	MaxRetries int `json:"maxRetries"`
	// MaxTokens bounds one answer's length.
	MaxTokens int `json:"maxTokens"`
	// Structured is how an OpenAI-compatible API is asked for the
	// structured answer: "tool" (function calling) or "json_schema"
	// (response_format, for servers without tool calling).
	Structured string `json:"structured"`
	// BudgetUSD caps what one verification may spend on judges; a call
	// that could exceed it is not made. 0 means no cap.
	BudgetUSD float64 `json:"budgetUsd"`
	// MaxCostShare caps what judging one verification may cost as a share
	// of the task's cost (task.executor.costUsd): when the judge's
	// estimated cost is above MaxCostShare times the task's cost, the
	// judge is not asked (JUDGE_BUDGET) and what it would decide stays
	// undecided. Without a task cost there is no cap; 0 means no cap.
	MaxCostShare float64 `json:"maxCostShare"`
	// Bypass skips the judge for cheap or leaf tasks.
	Bypass JudgeBypass `json:"bypass"`
	// Prices are the prices of models, on top of the built-in table of
	// common ones.
	Prices map[string]Price `json:"prices"`
	// Examples are few-shot examples for the rubric.
	Examples []JudgeExample `json:"examples"`
	// Breaker stops calling a model whose calls keep failing.
	Breaker BreakerPolicy `json:"breaker"`
	// Cache reuses an earlier answer to the very same question (same
	// model, prompt version and prompt); undecided answers are never
	// cached.
	Cache bool `json:"cache"`
}

// JudgeBypass says when the judge is not asked at all.
type JudgeBypass struct {
	// BelowTaskCostUSD skips the judge for tasks whose executor cost
	// (task.executor.costUsd) is below it; 0 never skips.
	BelowTaskCostUSD float64 `json:"belowTaskCostUsd"`
	// NoDependents skips the judge for tasks that say nothing depends on
	// them (task.dependents: 0).
	NoDependents bool `json:"noDependents"`
}

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	InputPerMTok  float64 `json:"inputPerMTok"`
	OutputPerMTok float64 `json:"outputPerMTok"`
}

// JudgeExample is a few-shot example for the judge's rubric: an output, a
// criterion, and the score and reason a careful judge gives it.
type JudgeExample struct {
	Output    string  `json:"output"`
	Criterion string  `json:"criterion"`
	Score     float64 `json:"score"`
	Reason    string  `json:"reason"`
}

// BreakerPolicy configures the circuit breaker of judge calls.
type BreakerPolicy struct {
	// Failures is how many calls in a row must fail to open the circuit.
	Failures int `json:"failures"`
	// Cooldown is how long an open circuit refuses calls before one is
	// let through to try again.
	Cooldown Duration `json:"cooldown"`
}

// Judge modes and aggregations.
const (
	JudgeSelf        = "self"
	JudgeAdversarial = "adversarial"
	AggregateMean    = "mean"
	AggregateMin     = "min"
	AggregateMajor   = "majority"
)

// Tiers are the judge tiers, weakest first.
var Tiers = []string{"small", "medium", "large"}

// Duration is a time.Duration written as a Go duration string ("30s",
// "1m30s") in JSON and YAML; a bare number is read as seconds.
type Duration time.Duration

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads a duration string or a number of seconds.
func (d *Duration) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("invalid duration %q (want e.g. \"30s\")", s)
		}
		*d = Duration(v)
		return nil
	}
	secs, err := strconv.ParseFloat(string(data), 64)
	if err != nil {
		return fmt.Errorf("invalid duration %s (want e.g. \"30s\")", data)
	}
	*d = Duration(secs * float64(time.Second))
	return nil
}

// ToolOps are what a tool call can do, as the trace summary and grounding
// read it: read a file, list a directory, write or edit a file, run a
// command, search file contents or names, fetch a URL, delegate to another
// agent, steer the agent's own session (a todo list, plan mode: "control",
// neither evidence nor plugin work), or call a plugin (any other tool).
var ToolOps = []string{"read", "list", "write", "exec", "search", "fetch", "agent", "control", "plugin"}

// Dimension names.
const (
	DimClaims       = "claims"
	DimCriteria     = "criteria"
	DimGroundedness = "groundedness"
	DimCompleteness = "completeness"
	DimConsistency  = "consistency"
	DimRoutability  = "routability"
	DimTraceability = "traceability"
	DimCoverage     = "coverage"
	DimFaithfulness = "faithfulness"
)

// kindDimensions lists each kind's dimensions in report order with their
// default weights.
var kindDimensions = map[Kind][]struct {
	name   string
	weight float64
}{
	KindSubtask:       {{DimClaims, 0.4}, {DimCriteria, 0.3}, {DimGroundedness, 0.2}, {DimCompleteness, 0.1}},
	KindDecomposition: {{DimCompleteness, 0.4}, {DimConsistency, 0.2}, {DimGroundedness, 0.2}, {DimRoutability, 0.2}},
	KindSynthesis:     {{DimTraceability, 0.6}, {DimCompleteness, 0.2}, {DimConsistency, 0.2}},
	KindModeration:    {{DimCoverage, 0.6}, {DimFaithfulness, 0.4}},
	KindAnswer:        {{DimGroundedness, 0.5}, {DimCompleteness, 0.3}, {DimCriteria, 0.2}},
}

// Dimensions returns the names of kind's dimensions in report order, or nil
// for an unknown kind.
func Dimensions(kind Kind) []string {
	dims := kindDimensions[kind]
	out := make([]string, len(dims))
	for i, d := range dims {
		out[i] = d.name
	}
	return out
}

// CriteriaDimension returns the dimension a kind's success criteria feed:
// criteria where the kind has that dimension, else completeness (plans and
// syntheses) or coverage (moderation).
func CriteriaDimension(kind Kind) string {
	switch kind {
	case KindSubtask, KindAnswer:
		return DimCriteria
	case KindModeration:
		return DimCoverage
	}
	return DimCompleteness
}

// DefaultPolicy returns the built-in policy, the first layer of every policy.
func DefaultPolicy() Policy {
	weights := make(map[Kind]map[string]float64, len(kindDimensions))
	for k, dims := range kindDimensions {
		m := make(map[string]float64, len(dims))
		for _, d := range dims {
			m[d.name] = d.weight
		}
		weights[k] = m
	}
	return Policy{
		PassAt:       0.7,
		FailBelow:    0.5,
		ReviewBelow:  0.3,
		MaxRetries:   2,
		MaxRefuted:   3,
		OnUnverified: OnUnverifiedAccept,
		Weights:      weights,
		Claims:       ClaimsPolicy{SizeTolerance: 0.1, StrictIsMustPass: true},
		Commands: CommandsPolicy{Timeout: Duration(60 * time.Second),
			Limits: CommandLimits{MemoryBytes: 4 << 30, FileBytes: 1 << 30, Processes: 4096}},
		Timeout: Duration(2 * time.Minute),
		Limits:  Limits{FileBytes: 4 << 20, ParseBytes: 32 << 20, RegexBytes: 1 << 20},
		Memory:  MemoryPolicy{PromoteAfter: 2},
		ErrorWords: []string{
			"error", "errors", "failed", "failure", "failing", "exception",
			"traceback", "panic", "fatal", "denied", "refused", "timed out",
			"timeout", "unable to", "could not", "couldn't", "cannot", "not found",
			"crash", "crashed", "segfault",
		},
		Infer: InferPolicy{DocComments: true, Counts: true, Created: true},
		Judge: JudgePolicy{Mode: JudgeSelf, Samples: 1, Aggregate: AggregateMean, MaxDisagreement: 0.3,
			Timeout: Duration(60 * time.Second), MaxRetries: 2, MaxTokens: 1024, Structured: "tool", MaxCostShare: 0.3,
			Breaker: BreakerPolicy{Failures: 5, Cooldown: Duration(30 * time.Second)}, Cache: true},
	}
}

// Validate reports every problem with p as an [Errors] whose paths are the
// policy's keys, or nil.
func (p *Policy) Validate() error {
	var errs Errors
	bad := func(path, format string, args ...any) {
		errs = append(errs, &Error{Code: ErrInvalid, Path: path, Message: fmt.Sprintf(format, args...)})
	}
	unit := func(path string, v float64) {
		if v < 0 || v > 1 || v != v {
			bad(path, "must be between 0 and 1, got %v", v)
		}
	}
	unit("passAt", p.PassAt)
	unit("failBelow", p.FailBelow)
	unit("reviewBelow", p.ReviewBelow)
	if p.FailBelow > p.PassAt {
		bad("failBelow", "must not exceed passAt (%v), got %v", p.PassAt, p.FailBelow)
	}
	if p.MaxRetries < 0 {
		bad("maxRetries", "must not be negative, got %d", p.MaxRetries)
	}
	if p.MaxRefuted < 0 {
		bad("maxRefuted", "must not be negative, got %d", p.MaxRefuted)
	}
	if p.OnUnverified.Strictness() < 0 {
		bad("onUnverified", "must be one of %s, got %q", joinOnUnverified(), p.OnUnverified)
	}
	for _, k := range sortedKinds(p.Weights) {
		dims, ok := kindDimensions[k]
		if !ok {
			bad("weights."+string(k), "unknown kind %q (want one of %s)", k, kindList())
			continue
		}
		sum := 0.0
		for _, name := range sortedKeys(p.Weights[k]) {
			w := p.Weights[k][name]
			known := false
			for _, d := range dims {
				known = known || d.name == name
			}
			if !known {
				bad("weights."+string(k)+"."+name, "kind %s has no dimension %q (want one of %v)", k, name, Dimensions(k))
				continue
			}
			if w < 0 || w != w {
				bad("weights."+string(k)+"."+name, "must not be negative, got %v", w)
				continue
			}
			sum += w
		}
		if sum == 0 && len(p.Weights[k]) > 0 {
			bad("weights."+string(k), "weights must not all be zero")
		}
	}
	if p.Claims.SizeTolerance < 0 || p.Claims.SizeTolerance != p.Claims.SizeTolerance {
		bad("claims.sizeTolerance", "must not be negative, got %v", p.Claims.SizeTolerance)
	}
	for i, r := range p.Commands.Allow {
		r.validate(fmt.Sprintf("commands.allow[%d]", i), bad)
	}
	for _, k := range sortedKeys(p.Commands.Env) {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			bad("commands.env", "invalid variable name %q", k)
		}
	}
	for i, d := range p.Commands.Writable {
		if !strings.HasPrefix(d, "/") {
			bad(fmt.Sprintf("commands.writable[%d]", i), "must be an absolute directory, got %q", d)
		}
	}
	l := p.Commands.Limits
	if l.CPU < 0 || l.MemoryBytes < 0 || l.FileBytes < 0 || l.Processes < 0 {
		bad("commands.limits", "limits must not be negative")
	}
	if p.Timeout < 0 {
		bad("timeout", "must not be negative")
	}
	if p.Limits.FileBytes < 0 || p.Limits.ParseBytes < 0 || p.Limits.RegexBytes < 0 {
		bad("limits", "limits must not be negative")
	}
	if p.Memory.PromoteAfter < 1 {
		bad("memory.promoteAfter", "must be at least 1, got %d", p.Memory.PromoteAfter)
	}
	if p.Commands.Timeout <= 0 {
		bad("commands.timeout", "must be positive")
	}
	for i, w := range p.ErrorWords {
		if w == "" {
			bad(fmt.Sprintf("errorWords[%d]", i), "must not be empty")
		}
	}
	for _, tool := range sortedKeys(p.PluginSchemas) {
		if !json.Valid(p.PluginSchemas[tool]) {
			bad("pluginSchemas."+tool, "is not valid JSON")
		}
	}
	for i, tool := range p.AdvisoryPlugins {
		if tool == "" {
			bad(fmt.Sprintf("advisoryPlugins[%d]", i), "must not be empty")
		}
	}
	for _, tool := range sortedKeys(p.Tools) {
		if tool == "" {
			bad("tools", "a tool name must not be empty")
		}
		if !slices.Contains(ToolOps, p.Tools[tool]) {
			bad("tools."+tool, "must be one of %s, got %q", strings.Join(ToolOps, ", "), p.Tools[tool])
		}
	}
	p.Judge.validate(bad, unit)
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// Weight returns the weight of dimension dim for kind, from the policy where
// it sets one and from the built-in defaults otherwise.
func (p *Policy) Weight(kind Kind, dim string) float64 {
	if w, ok := p.Weights[kind][dim]; ok {
		return w
	}
	for _, d := range kindDimensions[kind] {
		if d.name == dim {
			return d.weight
		}
	}
	return 0
}

func kindList() string {
	s := ""
	for i, k := range Kinds {
		if i > 0 {
			s += ", "
		}
		s += string(k)
	}
	return s
}

func sortedKinds[V any](m map[Kind]V) []Kind {
	out := make([]Kind, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// validate reports the problems of a judge policy.
func (j *JudgePolicy) validate(bad func(path, format string, args ...any), unit func(string, float64)) {
	model := func(path, m string) {
		if p, name, ok := strings.Cut(m, ":"); !ok || p == "" || name == "" {
			bad(path, "must be provider:model (e.g. openai:gpt-4o), got %q", m)
		}
	}
	for i, m := range j.Models {
		model(fmt.Sprintf("judge.models[%d]", i), m)
	}
	for _, t := range sortedKeys(j.Tiers) {
		if !slices.Contains(Tiers, t) {
			bad("judge.tiers."+t, "unknown tier %q (want one of %s)", t, strings.Join(Tiers, ", "))
		}
		for i, m := range j.Tiers[t] {
			model(fmt.Sprintf("judge.tiers.%s[%d]", t, i), m)
		}
	}
	for _, k := range sortedKinds(j.Cascade) {
		if _, ok := kindDimensions[k]; !ok {
			bad("judge.cascade."+string(k), "unknown kind %q (want one of %s)", k, kindList())
		}
		if t := j.Cascade[k]; !slices.Contains(Tiers, t) {
			bad("judge.cascade."+string(k), "unknown tier %q (want one of %s)", t, strings.Join(Tiers, ", "))
		} else if len(j.Tiers[t]) == 0 {
			bad("judge.cascade."+string(k), "tier %q has no models in judge.tiers", t)
		}
	}
	if j.Mode != JudgeSelf && j.Mode != JudgeAdversarial {
		bad("judge.mode", "must be %s or %s, got %q", JudgeSelf, JudgeAdversarial, j.Mode)
	}
	if j.Samples < 1 {
		bad("judge.samples", "must be at least 1, got %d", j.Samples)
	}
	if j.Aggregate != AggregateMean && j.Aggregate != AggregateMin && j.Aggregate != AggregateMajor {
		bad("judge.aggregate", "must be mean, min or majority, got %q", j.Aggregate)
	}
	unit("judge.maxDisagreement", j.MaxDisagreement)
	if j.Timeout <= 0 {
		bad("judge.timeout", "must be positive")
	}
	if j.MaxRetries < 0 || j.MaxRetries > 10 {
		bad("judge.maxRetries", "must be between 0 and 10, got %d", j.MaxRetries)
	}
	if j.MaxTokens < 64 {
		bad("judge.maxTokens", "must be at least 64, got %d", j.MaxTokens)
	}
	if j.Structured != "tool" && j.Structured != "json_schema" {
		bad("judge.structured", "must be tool or json_schema, got %q", j.Structured)
	}
	if j.BudgetUSD < 0 || j.BudgetUSD != j.BudgetUSD {
		bad("judge.budgetUsd", "must not be negative, got %v", j.BudgetUSD)
	}
	if j.MaxCostShare < 0 || j.MaxCostShare != j.MaxCostShare {
		bad("judge.maxCostShare", "must not be negative, got %v", j.MaxCostShare)
	}
	if j.Bypass.BelowTaskCostUSD < 0 || j.Bypass.BelowTaskCostUSD != j.Bypass.BelowTaskCostUSD {
		bad("judge.bypass.belowTaskCostUsd", "must not be negative, got %v", j.Bypass.BelowTaskCostUSD)
	}
	for _, m := range sortedKeys(j.Prices) {
		pr := j.Prices[m]
		if pr.InputPerMTok < 0 || pr.OutputPerMTok < 0 || pr.InputPerMTok != pr.InputPerMTok || pr.OutputPerMTok != pr.OutputPerMTok {
			bad("judge.prices."+m, "prices must not be negative")
		}
	}
	for i, ex := range j.Examples {
		unit(fmt.Sprintf("judge.examples[%d].score", i), ex.Score)
		if strings.TrimSpace(ex.Output) == "" || strings.TrimSpace(ex.Criterion) == "" {
			bad(fmt.Sprintf("judge.examples[%d]", i), "needs an output and a criterion")
		}
	}
	if j.Breaker.Failures < 1 {
		bad("judge.breaker.failures", "must be at least 1, got %d", j.Breaker.Failures)
	}
	if j.Breaker.Cooldown <= 0 {
		bad("judge.breaker.cooldown", "must be positive")
	}
}

// Enabled reports whether the policy configures a judge: models, or tiers.
func (j *JudgePolicy) Enabled() bool {
	return len(j.Models) > 0 || len(j.Tiers) > 0
}
