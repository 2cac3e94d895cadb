package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/vouchgate/vouch/judge/fake"
)

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
