package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/judge"
	"github.com/vouchgate/vouch/judge/anthropic"
	"github.com/vouchgate/vouch/judge/fake"
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

// fakeFlags are the flags of vouch fake-llm.
type fakeFlags struct {
	addr    string
	script  string
	latency time.Duration
	score   float64
	apiKey  string
}

func newFakeLLMCmd(st Streams) *cobra.Command {
	var f fakeFlags
	cmd := &cobra.Command{
		Use:   "fake-llm [--addr HOST:PORT] [--script FILE] [--latency D] [--score S]",
		Short: "Serve a fake language model speaking the OpenAI and Anthropic APIs, for tests and demos",
		Long: `Serve a fake language model on loopback that speaks both wire protocols the
judge uses: OpenAI's Chat Completions (POST /v1/chat/completions) and Anthropic's
Messages (POST /v1/messages). Point vouch at it with

  OPENAI_BASE_URL=http://HOST:PORT/v1   or   ANTHROPIC_BASE_URL=http://HOST:PORT

A script (--script, JSON: a list of rules, see package judge/fake) answers the
requests it matches: scripted verdicts, or any fault (429 with Retry-After, 5xx,
cut-off JSON, refusals, a request that never answers). Requests no rule matches
get every item scored --score. --latency delays every answer that sets none.
It serves until interrupted.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.score < 0 || f.score > 1 {
				return usageErr(fmt.Errorf("--score must be between 0 and 1, got %v", f.score))
			}
			var rules []fake.Rule
			if f.script != "" {
				fh, err := os.Open(f.script)
				if err != nil {
					return usageErr(err)
				}
				rules, err = fake.LoadScript(fh)
				fh.Close()
				if err != nil {
					return usageErr(fmt.Errorf("%s: %w", f.script, err))
				}
			}
			scored := fake.Scored(f.score)
			for i := range rules {
				if rules[i].Reply.Latency == 0 {
					rules[i].Reply.Latency = f.latency
				}
			}
			opts := []fake.Option{fake.WithRules(rules...), fake.WithResponder(func(r *fake.Request) fake.Reply {
				rep := scored(r)
				rep.Latency = f.latency
				return rep
			})}
			if f.apiKey != "" {
				opts = append(opts, fake.WithAPIKey(f.apiKey))
			}
			return serveFake(cmd.Context(), st, f.addr, fake.NewHandler(opts...))
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.addr, "addr", "127.0.0.1:0", "listen on `HOST:PORT` (port 0: any free port)")
	fl.StringVar(&f.script, "script", "", "answer by the rules of `FILE` (JSON)")
	fl.DurationVar(&f.latency, "latency", 0, "delay each answer by `D` unless its rule sets one")
	fl.Float64Var(&f.score, "score", 0.8, "score `S` for every item when no rule matches")
	fl.StringVar(&f.apiKey, "api-key", "", "require this `KEY` (Authorization: Bearer, or x-api-key)")
	return cmd
}

// serveFake serves h on addr until ctx is done.
func serveFake(ctx context.Context, st Streams, addr string, h *fake.Handler) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return usageErr(err)
	}
	url := "http://" + l.Addr().String()
	fmt.Fprintf(st.Out, "fake LLM listening on %s\n  OPENAI_BASE_URL=%s/v1\n  ANTHROPIC_BASE_URL=%s\n", url, url, url)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	h.Close()
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		return err
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
