// Command judge measures what the LLM judge adds to a verification, against
// the fake model server with a real latency:
//
//	go run ./bench/judge [-n 1000] [-concurrency 32] [-latency 200ms]
//
// It runs n verifications, each of a request whose five criteria no rule
// can decide, through the engine with a judge whose OpenAI client talks
// to the fake server over loopback, concurrency at a time, and prints:
//
//   - the judge calls and tokens per verification, against what asking
//     one criterion a call would take;
//   - the throughput, and the verification time above the fake's latency
//     (p50, p99, max): the judge's own overhead;
//   - the cache hit rate when the same n requests are verified again
//     unchanged, and the calls that second pass made.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vouchgate/vouch"
	_ "github.com/vouchgate/vouch/check/all"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/judge"
	"github.com/vouchgate/vouch/judge/fake"
	"github.com/vouchgate/vouch/judge/openai"
	"github.com/vouchgate/vouch/wire"
)

func main() {
	n := flag.Int("n", 1000, "verifications")
	conc := flag.Int("concurrency", 32, "verifications at once")
	latency := flag.Duration("latency", 200*time.Millisecond, "the fake model's latency per call")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile to `FILE`")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench/judge:", err)
			os.Exit(1)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "bench/judge:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(*n, *conc, *latency); err != nil {
		fmt.Fprintln(os.Stderr, "bench/judge:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

// request is a request with five criteria left to the judge.
func request(i int) []byte {
	return fmt.Appendf(nil, `
id: r-%d
task:
  goal: Write the release notes for v2.%d
  executor: {provider: anthropic, model: claude-haiku-4-5, tier: small}
  criteria:
    - {id: audience, text: The notes are written for end users}
    - {id: order, text: Breaking changes come first}
    - {id: upgrade, text: Every breaking change says how to upgrade}
    - {id: links, text: Each change links its pull request}
    - {id: tone, text: The tone is plain and factual}
output:
  summary: "Release notes for v2.%d. Breaking changes: the --legacy flag is gone (use --mode=compat), and config keys are now camelCase. New: faster startup, a dark theme. Fixed: a crash on empty input (#%d)."
`, i, i, i, 1000+i)
}

func run(n, conc int, latency time.Duration) error {
	srv := fake.NewServer(fake.WithResponder(func(r *fake.Request) fake.Reply {
		rep := fake.Scored(0.85)(r)
		rep.Latency = latency
		return rep
	}))
	defer srv.Close()
	j, err := judge.New(judge.Options{Providers: []judge.Provider{
		openai.New(openai.Options{BaseURL: srv.URL() + "/v1", APIKey: "sk-bench"}),
	}})
	if err != nil {
		return err
	}
	pol := vouch.DefaultPolicy()
	pol.Judge.Models = []string{"openai:gpt-4o"}
	eng, err := engine.New(engine.Options{Policy: &pol, Judge: j})
	if err != nil {
		return err
	}
	reqs := make([]*vouch.Request, n)
	for i := range reqs {
		if reqs[i], err = wire.DecodeRequest(request(i), wire.Options{}); err != nil {
			return err
		}
	}

	// One criterion a call, for comparison: the same five criteria asked
	// one by one, uncached.
	perCriterion, err := oneByOne(j, reqs[0], &pol)
	if err != nil {
		return err
	}

	pass := func() ([]time.Duration, vouch.Cost, time.Duration, error) {
		times := make([]time.Duration, n)
		costs := make([]vouch.Cost, n)
		start := time.Now()
		err := each(n, conc, func(i int) error {
			t0 := time.Now()
			rep, err := eng.Verify(context.Background(), reqs[i])
			times[i] = time.Since(t0)
			if err != nil {
				return err
			}
			if rep.Verdict != vouch.VerdictPass || rep.Judge == nil {
				return fmt.Errorf("request %d: %s, warnings %+v", i, rep.Verdict, rep.Warnings)
			}
			costs[i] = rep.Cost
			return nil
		})
		wall := time.Since(start)
		if err != nil {
			return nil, vouch.Cost{}, 0, err
		}
		var sum vouch.Cost
		for _, c := range costs {
			sum.JudgeCalls += c.JudgeCalls
			sum.CacheHits += c.CacheHits
			sum.CacheMisses += c.CacheMisses
			sum.InputTokens += c.InputTokens
			sum.OutputTokens += c.OutputTokens
			sum.USD += c.USD
		}
		return times, sum, wall, nil
	}

	// The floor: the same number of bare calls to the fake, at the same
	// concurrency, with no engine and no judge around them.
	baseline, err := bare(srv, n, conc, latency)
	if err != nil {
		return err
	}

	callsBefore := srv.Count()
	times, cost, wall, err := pass()
	if err != nil {
		return err
	}
	fmt.Printf("%d verifications, 5 criteria each left to the judge, concurrency %d, fake latency %s\n", n, conc, latency)
	fmt.Printf("judge calls per verification: %.2f (one criterion a call: %d)\n", float64(srv.Count()-callsBefore)/float64(n), perCriterion.JudgeCalls)
	fmt.Printf("tokens per verification: %d in, %d out (one criterion a call: %d in, %d out)\n",
		cost.InputTokens/n, cost.OutputTokens/n, perCriterion.InputTokens, perCriterion.OutputTokens)
	fmt.Printf("judge cost per verification at gpt-4o list prices: $%.5f (one criterion a call: $%.5f)\n", cost.USD/float64(n), perCriterion.USD)
	fmt.Printf("throughput: %.1f verifications/s (wall %s)\n", float64(n)/wall.Seconds(), wall.Round(time.Millisecond))
	over := make([]time.Duration, n)
	for i, t := range times {
		over[i] = t - latency
	}
	slices.Sort(over)
	fmt.Printf("verification time above the fake's latency: p50 %s, p99 %s, max %s\n",
		over[n/2].Round(10*time.Microsecond), over[n*99/100].Round(10*time.Microsecond), over[n-1].Round(10*time.Microsecond))
	fmt.Printf("a bare call's time above the fake's latency (no engine, no judge): p50 %s, p99 %s, max %s\n",
		baseline[n/2].Round(10*time.Microsecond), baseline[n*99/100].Round(10*time.Microsecond), baseline[n-1].Round(10*time.Microsecond))

	callsBefore = srv.Count()
	_, again, _, err := pass()
	if err != nil {
		return err
	}
	rate := float64(again.CacheHits) / float64(again.CacheHits+again.CacheMisses)
	fmt.Printf("unchanged retry of all %d: cache hit rate %.1f%%, %d calls made\n", n, 100*rate, srv.Count()-callsBefore)
	return nil
}

// oneByOne asks the five criteria of req one a call, as a judge with one
// tool call per criterion would, and sums what that takes.
func oneByOne(j *judge.Judge, req *vouch.Request, pol *vouch.Policy) (vouch.Cost, error) {
	p := *pol
	p.Judge.Cache = false
	var sum vouch.Cost
	for _, c := range req.Task.Criteria {
		v, err := j.Evaluate(context.Background(), &vouch.JudgeQuery{Request: req, Policy: &p,
			Criteria: []vouch.JudgeCriterion{{ID: c.ID, Text: c.Text}}})
		if err != nil {
			return sum, err
		}
		sum.JudgeCalls += v.Cost.JudgeCalls
		sum.InputTokens += v.Cost.InputTokens
		sum.OutputTokens += v.Cost.OutputTokens
		sum.USD += v.Cost.USD
	}
	return sum, nil
}

// bare makes n calls straight to the fake through the client, concurrency
// at a time, and returns their times above the latency, sorted.
func bare(srv *fake.Server, n, conc int, latency time.Duration) ([]time.Duration, error) {
	c := openai.New(openai.Options{BaseURL: srv.URL() + "/v1", APIKey: "sk-bench"})
	call := &judge.Call{Model: "gpt-4o", Messages: []judge.Message{{Role: "user", Content: string(request(0))}},
		Tool: judge.Tool{Name: judge.ToolName, Schema: []byte(`{"type": "object", "properties": {"criteria": {"items": {"properties": {"id": {"enum": ["a", "b", "c", "d", "e"]}}}}, "dimensions": {"properties": {"completeness": {}}}}}`)}}
	over := make([]time.Duration, n)
	err := each(n, conc, func(i int) error {
		t0 := time.Now()
		if _, err := c.Complete(context.Background(), call); err != nil {
			return err
		}
		over[i] = time.Since(t0) - latency
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(over)
	return over, nil
}

// each runs f(0) to f(n-1) on conc workers, and returns the first error.
func each(n, conc int, f func(i int) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || failed.Load() != nil {
					return
				}
				if err := f(i); err != nil {
					failed.CompareAndSwap(nil, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		return err
	}
	return nil
}
