package loop_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/vouchgate/vouch/loop"
	"github.com/vouchgate/vouch/loop/looptest"
	"github.com/vouchgate/vouch/memory"
)

// The scripted corpus: every agent that acts on feedback ends accepted but
// the one that needs more retries than the policy allows (retry success
// at least 0.6, the goal), no agent that cannot be
// fixed is ever accepted, and each case takes the path it is there for.
// `go run ./bench -loop` prints the same figures.
func TestCorpus(t *testing.T) {
	pol := looptest.Policy()
	eng := newEngine(t, &pol, nil)
	mem := memory.New(memory.NewMem(), memory.Options{})
	f, err := looptest.Measure(context.Background(), eng, looptest.Options{Loop: loop.Options{Memory: mem}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	f.Print(&b)
	t.Log("\n" + b.String())
	fix, un, honest := f.Groups[looptest.Fixable], f.Groups[looptest.Unfixable], f.Groups[looptest.Honest]
	if fix.RetrySuccess() < 0.6 || fix.Accepted != fix.Tasks-1 {
		t.Errorf("fixable: retry success %.2f, %d of %d accepted", fix.RetrySuccess(), fix.Accepted, fix.Tasks)
	}
	if len(f.UnfixableAccepted) > 0 || un.Accepted != 0 || un.RetriesPassed != 0 {
		t.Errorf("unfixable accepted: %v", f.UnfixableAccepted)
	}
	if honest.Accepted != honest.Tasks || honest.Retries != 0 {
		t.Errorf("honest: %+v", honest)
	}
	paths := map[string][]loop.Reaction{
		"docs-fix-named":         {loop.ReactRetry, loop.ReactAccept},
		"docs-fix-one-per-retry": {loop.ReactRetry, loop.ReactRetry, loop.ReactAccept},
		// Fixable in principle, but it needs a third retry.
		"docs-one-per-retry-too-slow": {loop.ReactRetry, loop.ReactRetry, loop.ReactEscalate},
		"invented-files":              {loop.ReactRetry, loop.ReactAccept},
		"missing-file":                {loop.ReactRetry, loop.ReactAccept},
		// Verified by rules alone (confidence 0.75): a retry, not a
		// reformulation, since row 3 now reformulates below confidence 0.4.
		"notes-reformulated": {loop.ReactRetry, loop.ReactAccept},
		"notes-one-flag":     {loop.ReactRetry, loop.ReactAccept},
		"flaky":              {loop.ReactRetry, loop.ReactAccept},
		"slow":               {loop.ReactRetry, loop.ReactAccept},
		"liar":               {loop.ReactRetry, loop.ReactRetry, loop.ReactEscalate},
		"hallucinator":       {loop.ReactRetry, loop.ReactRetry, loop.ReactEscalate},
		"never-creates":      {loop.ReactRetry, loop.ReactRetry, loop.ReactEscalate},
		"thin-notes":         {loop.ReactRetry, loop.ReactRetry, loop.ReactEscalate},
		"injector":           {loop.ReactEscalate},
		"crasher":            {loop.ReactRetry, loop.ReactRetry, loop.ReactEscalate},
		"hanger":             {loop.ReactRetry, loop.ReactRetry, loop.ReactEscalate},
	}
	for name, want := range paths {
		res := f.Results[name]
		if got := reactions(res); !slices.Equal(got, want) {
			t.Errorf("%s: reactions %v, want %v", name, got, want)
		}
	}
	// The retries went to the medium tier and cost its price.
	if r := f.Results["flaky"]; r.Attempts[1].Tier != "medium" || r.Cost.ExecutorUSD != looptest.MediumUSD {
		t.Errorf("flaky: tier %q, cost %+v", r.Attempts[1].Tier, r.Cost)
	}
	if r := f.Results["slow"]; !strings.Contains(r.Attempts[0].Error, "timed out") {
		t.Errorf("slow: %+v", r.Attempts[0])
	}
}
