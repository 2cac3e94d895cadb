package loop_test

import (
	"context"
	"testing"
	"time"

	"github.com/vouchgate/vouch/event"
	"github.com/vouchgate/vouch/loop"
	"github.com/vouchgate/vouch/memory"
)

// BenchmarkLoop runs the doc-comment task through Run against the real
// engine: accepted at once, or retried once (feedback and a second
// prompt), with and without memory and events. Beside ns/op it reports, per
// attempt, the time in the verifier and the loop's own time (prompt,
// feedback, memory, events, decisions: the attempt's time less the
// executor's and the verifier's).
//
//	go test -run '^$' -bench Loop ./loop/
func BenchmarkLoop(b *testing.B) {
	eng := newEngine(b, nil, nil)
	for _, bc := range []struct {
		name  string
		retry bool
		mem   bool
	}{{"accept", false, false}, {"retry", true, false}, {"retry+memory+events", true, true}} {
		b.Run(bc.name, func(b *testing.B) {
			task, dir := docTask(b, "docs-bench", "bench")
			var opts loop.Options
			if bc.mem {
				ch := make(chan event.Event, 1<<20)
				opts.Events = event.NewEmitter(event.Options{}, event.NewChannel(ch))
				opts.Memory = memory.New(memory.NewMem(), memory.Options{})
			}
			var attempts int
			var verify, own time.Duration
			for b.Loop() {
				steps := []step{document(dir, claimBoth, "Parse", "Format")}
				if bc.retry {
					steps = []step{document(dir, claimBoth, "Parse"), steps[0]}
				}
				res, err := loop.Run(context.Background(), eng, task, script(steps...), opts)
				if err != nil || res.Outcome != loop.Accepted {
					b.Fatalf("%v %+v", err, res)
				}
				for _, a := range res.Attempts {
					attempts++
					verify += time.Duration(a.VerifyDuration)
					own += time.Duration(a.Duration - a.ExecDuration - a.VerifyDuration)
				}
			}
			b.ReportMetric(float64(verify.Nanoseconds())/float64(attempts), "verify-ns/attempt")
			b.ReportMetric(float64(own.Nanoseconds())/float64(attempts), "loop-ns/attempt")
		})
	}
}
