package wire

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/jsonerr"
	"github.com/vouchgate/vouch/internal/strict"
)

// problems reports the semantic problems of one request to its document,
// which locates and sorts them with the problems decoding found. Paths are
// only formatted when a problem is found, so a valid request costs no
// allocations here.
type problems struct{ doc *strict.Doc }

func (p problems) add(code vouch.ErrorCode, path, msg string) {
	p.doc.Report(&vouch.Error{Code: code, Path: path, Message: msg})
}

func at(prefix string, i int) string { return prefix + "[" + strconv.Itoa(i) + "]" }

func quoteList[T ~string](vals ...T) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = strconv.Quote(string(v))
	}
	return strings.Join(parts, ", ")
}

func notOneOf[T ~string](got T, vals ...T) string {
	return fmt.Sprintf("%q is not one of %s", string(got), quoteList(vals...))
}

// validate checks what the JSON types cannot: presence of required members,
// enumerations, ranges and consistency. It resolves the sentinels left by
// decoding and assigns missing criterion ids.
func validate(r *vouch.Request, p problems) {
	switch {
	case isSentinel(r.APIVersion, sentinelAPIAbsent):
		r.APIVersion = ""
	case r.APIVersion != vouch.APIVersion:
		p.add(vouch.ErrInvalid, "apiVersion", fmt.Sprintf("got %q, want %q", r.APIVersion, vouch.APIVersion))
	}
	if r.Kind != "" && !r.Kind.Valid() {
		p.add(vouch.ErrInvalid, "kind", notOneOf(r.Kind, vouch.Kinds...))
	}
	if r.Attempt < 0 {
		p.add(vouch.ErrInvalid, "attempt", fmt.Sprintf("must be >= 0 (0 means 1), got %d", r.Attempt))
	}
	if isSentinel(r.Task.ID, sentinelTaskAbsent) {
		r.Task.ID = ""
		p.add(vouch.ErrMissing, "task", "a request needs a task")
	} else {
		validateTask(p, &r.Task)
	}
	switch {
	case isSentinel(r.Output.Summary, sentinelOutputAbsent):
		r.Output.Summary = ""
		p.add(vouch.ErrMissing, "output", "a request needs an output")
	case isSentinel(r.Output.Summary, sentinelSummaryAbsent):
		r.Output.Summary = ""
		p.add(vouch.ErrMissing, "output.summary", `an output needs a summary (it may be "")`)
		validateOutput(p, &r.Output)
	default:
		validateOutput(p, &r.Output)
	}
	for i := range r.Trace {
		if r.Trace[i].Tool == "" {
			p.add(vouch.ErrMissing, at("trace", i)+".tool", "a trace entry needs a tool name")
		}
	}
	if r.Context != nil {
		validateContext(p, r.Context)
	}
}

func validateTask(p problems, t *vouch.Task) {
	for i := range t.Criteria {
		c := &t.Criteria[i]
		if s := c.Check; s != nil {
			switch {
			case isSentinel(s.Type, sentinelTypeAbsent):
				s.Type = ""
				p.add(vouch.ErrMissing, at("task.criteria", i)+".check.type", "a check needs a type")
			case s.Type == "":
				p.add(vouch.ErrInvalid, at("task.criteria", i)+".check.type", "check type must not be empty")
			}
		}
		if c.Weight != nil {
			if w := *c.Weight; w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
				p.add(vouch.ErrInvalid, at("task.criteria", i)+".weight", fmt.Sprintf("must be a finite number >= 0, got %v", w))
			}
		}
	}
	assignCriterionIDs(p, t.Criteria)
	if t.Executor != nil && t.Executor.CostUSD != nil {
		if c := *t.Executor.CostUSD; c < 0 || math.IsNaN(c) || math.IsInf(c, 0) {
			p.add(vouch.ErrInvalid, "task.executor.costUsd", fmt.Sprintf("must be a finite number >= 0, got %v", c))
		}
	}
	switch t.Criticality {
	case "", vouch.CriticalityLow, vouch.CriticalityNormal, vouch.CriticalityHigh:
	default:
		p.add(vouch.ErrInvalid, "task.criticality", notOneOf(t.Criticality, vouch.CriticalityLow, vouch.CriticalityNormal, vouch.CriticalityHigh))
	}
	if t.Dependents != nil && *t.Dependents < 0 {
		p.add(vouch.ErrInvalid, "task.dependents", fmt.Sprintf("must be >= 0, got %d", *t.Dependents))
	}
	if len(t.Policy) > 0 {
		if k := firstByte(t.Policy); k != '{' {
			p.add(vouch.ErrType, "task.policy", "got "+jsonerr.KindName(jsontext.Value(t.Policy).Kind())+", want object")
		}
	}
}

// assignCriterionIDs reports duplicate written ids and gives criteria
// without an id "c<position>", made unique with a "-<n>" suffix when
// needed.
func assignCriterionIDs(p problems, cs []vouch.Criterion) {
	if len(cs) == 0 {
		return
	}
	// Small lists (the common case) are compared pairwise: no map.
	var seen map[string]int
	if len(cs) > 16 {
		seen = make(map[string]int, len(cs))
	}
	first := func(id string, before int) int {
		if seen != nil {
			if j, ok := seen[id]; ok && j < before {
				return j
			}
			return -1
		}
		for j := 0; j < before; j++ {
			if cs[j].ID == id {
				return j
			}
		}
		return -1
	}
	missing := false
	for i := range cs {
		id := cs[i].ID
		if id == "" {
			missing = true
			continue
		}
		if j := first(id, i); j >= 0 {
			p.add(vouch.ErrInvalid, at("task.criteria", i)+".id", fmt.Sprintf("duplicate criterion id %q (also task.criteria[%d])", id, j))
		} else if seen != nil {
			seen[id] = i
		}
	}
	if !missing {
		return
	}
	taken := func(id string) bool {
		if seen != nil {
			_, ok := seen[id]
			return ok
		}
		for j := range cs {
			if cs[j].ID == id {
				return true
			}
		}
		return false
	}
	for i := range cs {
		if cs[i].ID != "" {
			continue
		}
		base := criterionID(i + 1)
		id := base
		for n := 2; taken(id); n++ {
			id = base + "-" + strconv.Itoa(n)
		}
		cs[i].ID = id
		if seen != nil {
			seen[id] = i
		}
	}
}

// smallIDs are the assigned ids of the first criteria, built once.
var smallIDs = func() []string {
	ids := make([]string, 32)
	for i := range ids {
		ids[i] = "c" + strconv.Itoa(i+1)
	}
	return ids
}()

// criterionID returns "c<n>" for a 1-based position n.
func criterionID(n int) string {
	if n <= len(smallIDs) {
		return smallIDs[n-1]
	}
	return "c" + strconv.Itoa(n)
}

func validateOutput(p problems, o *vouch.Output) {
	switch o.TestResult {
	case "", vouch.TestPassed, vouch.TestFailed, vouch.TestSkipped:
	default:
		p.add(vouch.ErrInvalid, "output.testResult", notOneOf(o.TestResult, vouch.TestPassed, vouch.TestFailed, vouch.TestSkipped))
	}
	if a := o.Artifacts; a != nil {
		validateArtifacts(p, a)
	}
	if s := o.SelfAssessment; s != nil {
		unit(p, "output.selfAssessment.confidence", s.Confidence)
		unit(p, "output.selfAssessment.completeness", s.Completeness)
	}
}

func unit(p problems, path string, v *float64) {
	if v != nil && !(*v >= 0 && *v <= 1) {
		p.add(vouch.ErrInvalid, path, fmt.Sprintf("must be between 0 and 1, got %v", *v))
	}
}

// count reports a negative count at prefix[i].field; the path is only
// built for a problem.
func count[T int | int64](p problems, prefix string, i int, field string, v T) {
	if v < 0 {
		p.add(vouch.ErrInvalid, at(prefix, i)+"."+field, fmt.Sprintf("must be >= 0, got %d", v))
	}
}

func validateArtifacts(p problems, a *vouch.Artifacts) {
	const pre = "output.artifacts."
	for i := range a.FileEdits {
		e := &a.FileEdits[i]
		if e.File == "" {
			p.add(vouch.ErrMissing, at(pre+"fileEdits", i)+".file", "a file edit needs a file")
		}
		count(p, pre+"fileEdits", i, "linesChanged", e.LinesChanged)
		if r := e.EditedRegion; r != nil {
			path := at(pre+"fileEdits", i) + ".editedRegion"
			switch {
			case r.Start < 1:
				p.add(vouch.ErrInvalid, path+".start", fmt.Sprintf("must be >= 1 (lines are 1-based), got %d", r.Start))
			case r.Start > r.End:
				p.add(vouch.ErrInvalid, path, fmt.Sprintf("start (%d) > end (%d)", r.Start, r.End))
			}
		}
		switch e.ChangeType {
		case "", vouch.ChangeAdd, vouch.ChangeModify, vouch.ChangeDelete:
		default:
			p.add(vouch.ErrInvalid, at(pre+"fileEdits", i)+".changeType", notOneOf(e.ChangeType, vouch.ChangeAdd, vouch.ChangeModify, vouch.ChangeDelete))
		}
	}
	for i := range a.FilesCreated {
		f := &a.FilesCreated[i]
		if f.File == "" {
			p.add(vouch.ErrMissing, at(pre+"filesCreated", i)+".file", "a created file needs a file")
		}
		if f.SizeBytes != nil {
			count(p, pre+"filesCreated", i, "sizeBytes", *f.SizeBytes)
		}
		if f.LinesCount != nil {
			count(p, pre+"filesCreated", i, "linesCount", *f.LinesCount)
		}
	}
	for i := range a.CommandResults {
		c := &a.CommandResults[i]
		if c.Command == "" {
			p.add(vouch.ErrMissing, at(pre+"commandResults", i)+".command", "a command result needs a command")
		}
		count(p, pre+"commandResults", i, "stdoutLines", c.StdoutLines)
		count(p, pre+"commandResults", i, "stderrLines", c.StderrLines)
	}
	for i := range a.PluginResults {
		r := &a.PluginResults[i]
		if r.Tool == "" {
			p.add(vouch.ErrMissing, at(pre+"pluginResults", i)+".tool", "a plugin result needs a tool")
		}
		switch r.Status {
		case "", vouch.PluginSuccess, vouch.PluginError:
		default:
			p.add(vouch.ErrInvalid, at(pre+"pluginResults", i)+".status", notOneOf(r.Status, vouch.PluginSuccess, vouch.PluginError))
		}
		if r.ItemsReturned != nil {
			count(p, pre+"pluginResults", i, "itemsReturned", *r.ItemsReturned)
		}
		if r.Confidence != nil {
			unit(p, at(pre+"pluginResults", i)+".confidence", r.Confidence)
		}
	}
}

func validateContext(p problems, c *vouch.Context) {
	for i := range c.Agents {
		if c.Agents[i].Name == "" {
			p.add(vouch.ErrMissing, at("context.agents", i)+".name", "an agent needs a name")
		}
	}
	if pl := c.Plan; pl != nil {
		for i := range pl.Subgoals {
			if pl.Subgoals[i].ID == "" {
				p.add(vouch.ErrMissing, at("context.plan.subgoals", i)+".id", "a subgoal needs an id")
			}
			switch c := pl.Subgoals[i].Criticality; c {
			case "", vouch.CriticalityLow, vouch.CriticalityNormal, vouch.CriticalityHigh:
			default:
				p.add(vouch.ErrInvalid, at("context.plan.subgoals", i)+".criticality", notOneOf(c, vouch.CriticalityLow, vouch.CriticalityNormal, vouch.CriticalityHigh))
			}
		}
		for i := range pl.Phases {
			ph := &pl.Phases[i]
			switch ph.Mode {
			case vouch.PhaseSequential, vouch.PhaseParallel:
			case "":
				p.add(vouch.ErrMissing, at("context.plan.phases", i)+".mode", "a phase needs a mode: "+quoteList(vouch.PhaseSequential, vouch.PhaseParallel))
			default:
				p.add(vouch.ErrInvalid, at("context.plan.phases", i)+".mode", notOneOf(ph.Mode, vouch.PhaseSequential, vouch.PhaseParallel))
			}
			if ph.Subgoals == nil {
				p.add(vouch.ErrMissing, at("context.plan.phases", i)+".subgoals", "a phase needs its list of subgoals")
			}
		}
	}
	for i := range c.Outputs {
		if c.Outputs[i].ID == "" {
			p.add(vouch.ErrMissing, at("context.outputs", i)+".id", "an agent output needs an id")
		}
	}
}

func firstByte(b []byte) byte {
	for _, c := range b {
		if !isSpace(c) {
			return c
		}
	}
	return 0
}
