package main

import (
	"fmt"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/judge"
	"github.com/vouchgate/vouch/judge/anthropic"
	"github.com/vouchgate/vouch/judge/openai"
	"github.com/vouchgate/vouch/policy"
)

// policyAndJudge loads the policy files over the defaults, applies
// VOUCH_JUDGE, and builds the judge the result configures (nil when none).
func policyAndJudge(st Streams, files []string, noCache bool) (vouch.Policy, *judge.Judge, error) {
	pol, err := policy.Load(files...)
	if err != nil {
		return pol, nil, err
	}
	if err := judgeEnv(st, &pol); err != nil {
		return pol, nil, err
	}
	j, err := newJudge(st, &pol, noCache)
	return pol, j, err
}

// judgeEnv applies VOUCH_JUDGE to the policy: a comma-separated list of
// provider:model replaces judge.models (several are an ensemble).
func judgeEnv(st Streams, pol *vouch.Policy) error {
	env := strings.TrimSpace(st.getenv("VOUCH_JUDGE"))
	if env == "" {
		return nil
	}
	var models []string
	for _, m := range strings.Split(env, ",") {
		m = strings.TrimSpace(m)
		if _, _, ok := judge.ParseModel(m); !ok {
			return fmt.Errorf("VOUCH_JUDGE: %q is not provider:model (e.g. openai:gpt-4o, anthropic:claude-sonnet-4-5)", m)
		}
		models = append(models, m)
	}
	pol.Judge.Models = models
	return nil
}

// newJudge builds the command line's judge, or nil when the policy
// configures none. Its clients read their base URLs and keys from the
// environment, as the official SDKs do: OPENAI_BASE_URL and OPENAI_API_KEY
// (any OpenAI-compatible API), ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY.
// Answers are cached in memory and, unless noCache or VOUCH_CACHE=off, on
// disk under the user's cache directory.
func newJudge(st Streams, pol *vouch.Policy, noCache bool) (*judge.Judge, error) {
	if !pol.Judge.Enabled() {
		return nil, nil
	}
	base := func(k, def string) string {
		if v := st.getenv(k); v != "" {
			return v
		}
		return def
	}
	providers := []judge.Provider{
		openai.New(openai.Options{BaseURL: base("OPENAI_BASE_URL", openai.DefaultBaseURL), APIKey: st.getenv("OPENAI_API_KEY")}),
		anthropic.New(anthropic.Options{BaseURL: base("ANTHROPIC_BASE_URL", anthropic.DefaultBaseURL), APIKey: st.getenv("ANTHROPIC_API_KEY")}),
	}
	var cache judge.Cache = judge.NewLRU(4096)
	if noCache || strings.EqualFold(st.getenv("VOUCH_CACHE"), "off") {
		pol.Judge.Cache = false
	} else if pol.Judge.Cache {
		dir := st.getenv("VOUCH_CACHE_DIR")
		if dir == "" {
			d, err := judge.DefaultDiskDir()
			if err != nil {
				return nil, fmt.Errorf("judge cache: %w (set VOUCH_CACHE_DIR, or --no-cache)", err)
			}
			dir = d
		}
		disk, err := judge.NewDisk(dir)
		if err != nil {
			return nil, fmt.Errorf("judge cache: %w (set VOUCH_CACHE_DIR, or --no-cache)", err)
		}
		cache = judge.Tiered{Fast: cache, Slow: disk}
	}
	return judge.New(judge.Options{Providers: providers, Cache: cache})
}

// printEstimate prints what judging the recorded query would take.
func printEstimate(st Streams, j *judge.Judge, rec *judge.Recorder, asJSON bool) error {
	var e *judge.Estimate
	switch {
	case j == nil:
		e = &judge.Estimate{Bypassed: "no judge is configured (VOUCH_JUDGE, judge.models or judge.tiers)"}
	case rec.Query == nil:
		e = &judge.Estimate{Bypassed: "the rules decided everything, or a must-pass check failed"}
	default:
		var err error
		if e, err = j.Estimate(rec.Query); err != nil {
			return usageErr(err)
		}
	}
	if asJSON {
		return json.MarshalWrite(st.Out, e, jsontext.WithIndent("  "))
	}
	fmt.Fprint(st.Out, e.String())
	return nil
}
