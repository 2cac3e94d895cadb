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
	// MaxUnverified is how many unverified mentions are tolerated.
	MaxUnverified int `json:"maxUnverified"`
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
}

// ClaimsPolicy tunes how claims are re-checked.
type ClaimsPolicy struct {
	// SizeTolerance is the relative difference allowed between a claimed and
	// a real size or line count (0.1 = 10%).
	SizeTolerance float64 `json:"sizeTolerance"`
	// StrictIsMustPass makes every failed strict claim check must-pass.
	StrictIsMustPass bool `json:"strictIsMustPass"`
}

// CommandsPolicy says which commands from a request may run. Nothing runs
// unless its leading argv tokens match an Allow entry.
type CommandsPolicy struct {
	// Allow lists argv prefixes, e.g. [["go","test"],["npm","test"]].
	Allow [][]string `json:"allow"`
	// Shell allows shell metacharacters (the command runs under sh -c).
	Shell bool `json:"shell"`
	// Timeout bounds each run.
	Timeout Duration `json:"timeout"`
}

// InferPolicy switches inferred criteria on or off.
type InferPolicy struct {
	DocComments bool `json:"docComments"`
	Counts      bool `json:"counts"`
	Created     bool `json:"created"`
}

// JudgePolicy configures the LLM judge. With no models, no judge runs and
// what no rule can decide stays undecided.
type JudgePolicy struct {
	// Models names the judge models as provider/model.
	Models []string `json:"models"`
	// Samples is how many times each model is asked (self-consistency).
	Samples int `json:"samples"`
	// MaxDisagreement is the largest spread of judge scores tolerated before
	// a human should review.
	MaxDisagreement float64 `json:"maxDisagreement"`
	// Timeout bounds one judge call.
	Timeout Duration `json:"timeout"`
}

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
		PassAt:        0.7,
		FailBelow:     0.5,
		ReviewBelow:   0.3,
		MaxRetries:    2,
		MaxUnverified: 3,
		Weights:       weights,
		Claims:        ClaimsPolicy{SizeTolerance: 0.1, StrictIsMustPass: true},
		Commands:      CommandsPolicy{Timeout: Duration(60 * time.Second)},
		ErrorWords: []string{
			"error", "errors", "failed", "failure", "failing", "exception",
			"traceback", "panic", "fatal", "denied", "refused", "timed out",
			"timeout", "unable to", "could not", "couldn't", "cannot", "not found",
		},
		Infer: InferPolicy{DocComments: true, Counts: true, Created: true},
		Judge: JudgePolicy{Samples: 1, MaxDisagreement: 0.3, Timeout: Duration(60 * time.Second)},
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
	if p.MaxUnverified < 0 {
		bad("maxUnverified", "must not be negative, got %d", p.MaxUnverified)
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
	for i, argv := range p.Commands.Allow {
		if len(argv) == 0 {
			bad(fmt.Sprintf("commands.allow[%d]", i), "must name at least the program")
		}
		for j, tok := range argv {
			if tok == "" {
				bad(fmt.Sprintf("commands.allow[%d][%d]", i, j), "must not be empty")
			}
		}
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
	for _, tool := range sortedKeys(p.Tools) {
		if tool == "" {
			bad("tools", "a tool name must not be empty")
		}
		if !slices.Contains(ToolOps, p.Tools[tool]) {
			bad("tools."+tool, "must be one of %s, got %q", strings.Join(ToolOps, ", "), p.Tools[tool])
		}
	}
	if p.Judge.Samples < 1 {
		bad("judge.samples", "must be at least 1, got %d", p.Judge.Samples)
	}
	unit("judge.maxDisagreement", p.Judge.MaxDisagreement)
	if p.Judge.Timeout <= 0 {
		bad("judge.timeout", "must be positive")
	}
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
