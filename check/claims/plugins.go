package claims

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/internal/jsonerr"
	"github.com/vouchgate/vouch/internal/jsonschemax"
	"github.com/vouchgate/vouch/text/plural"
	"github.com/vouchgate/vouch/trace"
)

func init() {
	check.RegisterAnalyzer(check.AnalyzerInfo{
		Name:  "claims.plugins",
		Level: vouch.LevelClaims,
		Kinds: check.EveryKind(),
		New:   func() vouch.Analyzer { return &pluginsAnalyzer{} },
	})
}

// pluginsAnalyzer looks at plugin tools, black boxes vouch cannot re-run,
// from outside (tier 2, light evidence): the tool was really called, the
// summary is not empty, no error status, no error words; and it validates
// their result data against the schemas the policy registers (strict: the
// data is what it is).
//
// Light and strict checks differ in what they look at, not in what a
// failure means: every check of a plugin is must-pass (a failure sends the
// work back, verdict table row 1) unless the policy lists the tool in
// advisoryPlugins, whose failures only lower the score. The summary check
// is must-pass unless every plugin tool of the request is advisory.
type pluginsAnalyzer struct {
	schemas sync.Map // schema text -> compiledSchema
}

type compiledSchema struct {
	s   *jsonschema.Schema
	err error
}

// IsPlugin reports whether a tool is a plugin tool by the built-in tool
// table of package trace: a tool whose op is plugin, that is neither an
// fs:*, code:* or shell:* tool nor a known tool of a common agent
// framework. The analyzer itself uses the policy's table, which may name
// more tools.
func IsPlugin(tool string) bool { return trace.Builtin().IsPlugin(tool) }

// Analyze implements vouch.Analyzer.
func (a *pluginsAnalyzer) Analyze(_ context.Context, s *vouch.Subject, f *vouch.Findings) error {
	req := s.Request
	var results []vouch.PluginResult
	if req.Output.Artifacts != nil {
		results = req.Output.Artifacts.PluginResults
	}
	tools := pluginTools(req, results, trace.TableFor(s))
	if len(tools) == 0 {
		return nil
	}
	f.MarkApplicable(vouch.DimClaims)
	inTrace := map[string]bool{}
	for _, e := range req.Trace {
		inTrace[e.Tool] = true
	}
	claimed := map[string]bool{}
	for _, t := range req.Output.ToolCalls {
		claimed[t] = true
	}
	hasResult := map[string]bool{}
	for _, r := range results {
		hasResult[r.Tool] = true
	}
	advisory := func(tool string) bool { return slices.Contains(s.Policy.AdvisoryPlugins, tool) }
	allAdvisory := true
	for _, tool := range tools {
		allAdvisory = allAdvisory && advisory(tool)
	}
	// Each check of a tool cites the claim of its results, and is
	// must-pass unless the tool is advisory.
	defer func(from int) {
		for i := from; i < len(f.Checks); i++ {
			c := &f.Checks[i]
			tool, ok := c.Evidence["tool"].(string)
			if ok && hasResult[tool] {
				c.Claims = []vouch.ClaimRef{{Source: "output.artifacts.pluginResults", Text: tool, Kind: vouch.ClaimPlugin}}
			}
			if ok && !advisory(tool) || c.Name == "plugin.summary" && !allAdvisory {
				c.Must = true
			}
			if ok && advisory(tool) {
				c.Evidence["advisory"] = true
			}
		}
	}(len(f.Checks))
	for _, tool := range tools {
		called := map[string]any{"tool": tool}
		if cs := confidences(results, tool); len(cs) > 0 {
			called["confidence"] = cs
		}
		switch {
		case len(req.Trace) > 0 && !inTrace[tool]:
			f.Checks = append(f.Checks, light("plugin.called", vouch.Fail(vouch.CodeToolNotCalled,
				fmt.Sprintf("plugin %s has results, but the trace shows no call of it", tool), called)))
		case len(req.Trace) == 0 && !claimed[tool]:
			f.Checks = append(f.Checks, light("plugin.called", vouch.Fail(vouch.CodeToolNotCalled,
				fmt.Sprintf("plugin %s has results, but toolCalls does not list it", tool), called)))
		default:
			f.Checks = append(f.Checks, light("plugin.called", vouch.Pass(fmt.Sprintf("plugin %s was called", tool), called)))
		}
	}
	for i, r := range results {
		ev := map[string]any{"tool": r.Tool, "result": i}
		if r.Confidence != nil {
			ev["confidence"] = *r.Confidence
		}
		if r.Status == vouch.PluginError || r.Error != "" {
			ev["error"] = r.Error
			f.Checks = append(f.Checks, light("plugin.status", vouch.Fail(vouch.CodePluginError,
				fmt.Sprintf("plugin %s reported an error: %s", r.Tool, firstLine(r.Error)), ev)))
		}
		if n, ok := arrayLen(r.Data); ok && r.ItemsReturned != nil && *r.ItemsReturned != n {
			ev["itemsReturned"], ev["items"] = *r.ItemsReturned, n
			f.Checks = append(f.Checks, light("plugin.items", vouch.Fail(vouch.CodeItemsMismatch,
				fmt.Sprintf("plugin %s claims %s but its data holds %d", r.Tool, plural.Count(*r.ItemsReturned, "item"), n), ev)))
		}
		if raw, ok := s.Policy.PluginSchemas[r.Tool]; ok {
			f.Checks = append(f.Checks, a.schemaCheck(raw, i, r))
		}
	}
	summary := strings.TrimSpace(req.Output.Summary)
	if summary == "" {
		f.Checks = append(f.Checks, light("plugin.summary", vouch.Fail(vouch.CodeEmptySummary, "the output's summary is empty", nil)))
	} else if hits := ErrorWords(summary, s.Policy.ErrorWords); len(hits) > 0 {
		f.Checks = append(f.Checks, light("plugin.summary", vouch.Fail(vouch.CodeErrorWords,
			fmt.Sprintf("the summary reports a failure: %q", hits[0]), map[string]any{"phrases": hits})))
	} else {
		f.Checks = append(f.Checks, light("plugin.summary", vouch.Pass("the summary is not empty and reports no failure", nil)))
	}
	return nil
}

// pluginTools lists the plugin tools of a request in order of first mention.
func pluginTools(req *vouch.Request, results []vouch.PluginResult, tbl *trace.Table) []string {
	var out []string
	seen := map[string]bool{}
	add := func(t string) {
		if tbl.IsPlugin(t) && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, r := range results {
		add(r.Tool)
	}
	for _, t := range req.Output.ToolCalls {
		add(t)
	}
	return out
}

// confidences lists the confidences the results of tool report, in order.
func confidences(results []vouch.PluginResult, tool string) []float64 {
	var out []float64
	for _, r := range results {
		if r.Tool == tool && r.Confidence != nil {
			out = append(out, *r.Confidence)
		}
	}
	return out
}

// schemaCheck validates one plugin result's data against its schema.
func (a *pluginsAnalyzer) schemaCheck(raw []byte, i int, r vouch.PluginResult) vouch.CheckResult {
	name := "plugin_schema." + r.Tool
	v, _ := a.schemas.Load(string(raw))
	cs, ok := v.(compiledSchema)
	if !ok {
		s, err := jsonschemax.CompileInline(raw)
		cs = compiledSchema{s, err}
		a.schemas.Store(string(raw), cs)
	}
	ev := map[string]any{"tool": r.Tool, "result": i}
	if r.Confidence != nil {
		ev["confidence"] = *r.Confidence
	}
	var out vouch.Outcome
	switch {
	case cs.err != nil:
		out = vouch.Undecided(vouch.CodeCheckUnavailable, fmt.Sprintf("the policy's schema for %s does not compile: %v", r.Tool, cs.err))
	case len(r.Data) == 0:
		out = vouch.Fail(vouch.CodeSchemaViolation, fmt.Sprintf("plugin %s returned no data to hold against its schema", r.Tool), ev)
	default:
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(r.Data)))
		if err != nil {
			out = vouch.Fail(vouch.CodeSchemaViolation, fmt.Sprintf("plugin %s returned data that is not JSON: %v", r.Tool, err), ev)
			break
		}
		err = cs.s.Validate(inst)
		var ve *jsonschema.ValidationError
		switch {
		case err == nil:
			out = vouch.Pass(fmt.Sprintf("the data of plugin %s satisfies its schema", r.Tool), ev)
		case errors.As(err, &ve):
			vs := jsonschemax.Violations(ve)
			paths := make([]string, len(vs))
			list := make([]any, len(vs))
			for j, v := range vs {
				at := vouch.JoinPath(fmt.Sprintf("pluginResults[%d].data", i), jsonerr.PointerToPath(v.Path))
				paths[j] = at + ": " + v.Message
				list[j] = map[string]any{"path": at, "message": v.Message}
			}
			ev["violations"] = list
			out = vouch.Fail(vouch.CodeSchemaViolation, fmt.Sprintf("the data of plugin %s breaks its schema: %s", r.Tool, paths[0]), ev)
			out.Fix = paths
		default:
			out = vouch.Undecided(vouch.CodeCheckUnavailable, fmt.Sprintf("cannot validate the data of plugin %s: %v", r.Tool, err))
		}
	}
	res := result(name, out)
	res.Level = vouch.LevelPluginSchema
	return res
}

// light makes a light (tier 2) claims check from an outcome.
func light(name string, o vouch.Outcome) vouch.CheckResult {
	r := result(name, o)
	r.Strength = vouch.StrengthLight
	if o.Status != vouch.StatusUndecided {
		r.Confidence = vouch.StrengthLight.Weight()
	}
	return r
}

func arrayLen(data []byte) (int, bool) {
	d := strings.TrimSpace(string(data))
	if !strings.HasPrefix(d, "[") {
		return 0, false
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(d))
	if err != nil {
		return 0, false
	}
	list, ok := v.([]any)
	return len(list), ok
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 200 {
		s = s[:197] + "..."
	}
	return s
}
