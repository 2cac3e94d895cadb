package judge

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vouchgate/vouch"
)

// target is one judge model chosen for a query.
type target struct {
	spec     string // "openai:gpt-4o"
	provider Provider
	model    string
	same     bool // the executor's own model
}

// ParseModel splits a "provider:model" spec; the model may hold colons
// of its own ("openai:llama3:70b").
func ParseModel(spec string) (provider, model string, ok bool) {
	provider, model, ok = strings.Cut(strings.TrimSpace(spec), ":")
	return provider, model, ok && provider != "" && model != ""
}

// ConfigError is a judge configuration that cannot serve a query: a
// provider no client is configured for, a judge that would be the
// executor's own model without judge.allowSameModel. The query fails
// closed: what the judge would decide stays undecided.
type ConfigError struct{ Msg string }

// Error implements error.
func (e *ConfigError) Error() string { return "judge configuration: " + e.Msg }

// choose picks the judge models for a query:
//
//   - with judge.tiers, one model of a tier: the tier judge.cascade names
//     for the request's kind, else the tier above task.executor.tier
//     (large stays large), else medium (or the strongest tier that has
//     models); an adversarial judging goes one tier further up. Of the
//     tier's candidates, one of another provider than the executor's is
//     preferred, and the executor's own model is taken only when nothing
//     else is there;
//   - else every model of judge.models: several form an ensemble.
//
// A chosen model that is the executor's own is refused (a ConfigError)
// unless judge.allowSameModel; a model whose provider has no client is a
// ConfigError too.
func (j *Judge) choose(q *vouch.JudgeQuery, pol *vouch.JudgePolicy, adversarial bool) ([]target, error) {
	exec := q.Request.Task.Executor
	var specs []string
	if len(pol.Tiers) > 0 {
		tier := pol.Cascade[q.Request.EffectiveKind()]
		if tier == "" && exec != nil && slices.Contains(vouch.Tiers, exec.Tier) {
			tier = above(exec.Tier)
		}
		if tier == "" {
			tier = "medium"
		}
		if adversarial {
			tier = above(tier)
		}
		tier = nearestWithModels(pol.Tiers, tier)
		if tier != "" {
			specs = []string{pick(pol.Tiers[tier], exec)}
		}
	}
	if len(specs) == 0 {
		specs = pol.Models
	}
	if len(specs) == 0 {
		return nil, &ConfigError{"no judge model is configured (judge.models, judge.tiers or VOUCH_JUDGE)"}
	}
	out := make([]target, 0, len(specs))
	for _, spec := range specs {
		prov, model, ok := ParseModel(spec)
		if !ok {
			return nil, &ConfigError{fmt.Sprintf("%q is not provider:model", spec)}
		}
		p, ok := j.providers[prov]
		if !ok {
			return nil, &ConfigError{fmt.Sprintf("no client for provider %q (configured: %s)", prov, strings.Join(j.providerNames(), ", "))}
		}
		t := target{spec: spec, provider: p, model: model, same: sameModel(exec, prov, model)}
		if t.same && !pol.AllowSameModel {
			return nil, &ConfigError{fmt.Sprintf("the judge %s is the executor's own model; a model does not judge itself unless judge.allowSameModel is set", spec)}
		}
		out = append(out, t)
	}
	return out, nil
}

// above returns the tier above t; large stays large.
func above(t string) string {
	i := slices.Index(vouch.Tiers, t)
	if i < 0 {
		return t
	}
	return vouch.Tiers[min(i+1, len(vouch.Tiers)-1)]
}

// nearestWithModels returns tier if it has models, else the nearest
// stronger tier that has, else the nearest weaker one, else "".
func nearestWithModels(tiers map[string][]string, tier string) string {
	i := slices.Index(vouch.Tiers, tier)
	if i < 0 {
		return ""
	}
	for k := i; k < len(vouch.Tiers); k++ {
		if len(tiers[vouch.Tiers[k]]) > 0 {
			return vouch.Tiers[k]
		}
	}
	for k := i - 1; k >= 0; k-- {
		if len(tiers[vouch.Tiers[k]]) > 0 {
			return vouch.Tiers[k]
		}
	}
	return ""
}

// pick chooses one of a tier's candidates: another provider than the
// executor's first, then another model, then the first.
func pick(cands []string, exec *vouch.Executor) string {
	if exec == nil {
		return cands[0]
	}
	for _, c := range cands {
		p, m, _ := ParseModel(c)
		if !sameModel(exec, p, m) && exec.Provider != "" && !strings.EqualFold(p, exec.Provider) {
			return c
		}
	}
	for _, c := range cands {
		p, m, _ := ParseModel(c)
		if !sameModel(exec, p, m) {
			return c
		}
	}
	return cands[0]
}

// sameModel reports whether a judge model is the executor's own, through
// whichever API it is served ("anthropic:claude-x" and OpenRouter's
// "openai:anthropic/claude-x" are one model).
func sameModel(exec *vouch.Executor, _, model string) bool {
	if exec == nil || exec.Model == "" {
		return false
	}
	return strings.EqualFold(base(exec.Model), base(model))
}

// base drops a provider prefix ("anthropic/claude-x" on OpenRouter).
func base(model string) string {
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		return model[i+1:]
	}
	return model
}
