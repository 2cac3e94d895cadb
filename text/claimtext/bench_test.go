package claimtext

import "testing"

// benchSummary is a realistic ~1 KB agent summary, in the shape the agents of
// shared/agent-transcripts write their last message.
const benchSummary = `All done. Here's a summary of the work on **spotter-gqc**:

**gqc.6 — Close project review session**
- Added ` + "`close_review_session`" + ` event handler that bulk-closes all open annotations
- Flash message shows the closure count
- 3 tests covering N>0, N=0, and already-closed paths

**gqc.7 — Documentation**
- Added JSDoc comments to all 4 exported functions in ` + "`src/parser.ts`" + `: parse, tokenize, format and validate
- Created 2 new files (` + "`src/cache.ts`" + ` and ` + "`src/cache.test.ts`" + `) and modified 1 existing file
- Removed silent 5-line truncation, added a 10-line default with expand groups
- 6 new builder tests, 4 controller tests, 1 LiveView test

Ran the full suite on Node 20: 87 tests + 14 doctests, 0 failures. Credo clean.
The server still listens on port 8080 and the endpoint returns HTTP 404 for unknown ids.
I'll document the remaining 3 helpers in a follow-up; should I also add tests for them?
Everything is committed and pushed to ` + "`origin/spotter-gqc`" + `.`

// benchGoal is the DESIGN's worked example.
const benchGoal = "Add JSDoc comments to the exported functions parse, tokenize, format, validate in src/parser.ts"

func BenchmarkCounts(b *testing.B) {
	if n := len(Counts(benchSummary)); n == 0 {
		b.Fatal("no claims")
	}
	b.SetBytes(int64(len(benchSummary)))
	b.ReportAllocs()
	for b.Loop() {
		Counts(benchSummary)
	}
}

func BenchmarkTestClaims(b *testing.B) {
	if n := len(TestClaims(benchSummary)); n == 0 {
		b.Fatal("no claims")
	}
	b.SetBytes(int64(len(benchSummary)))
	b.ReportAllocs()
	for b.Loop() {
		TestClaims(benchSummary)
	}
}

func BenchmarkTaskIntents(b *testing.B) {
	if ti := TaskIntents(benchGoal); !ti.DocComments {
		b.Fatal("no doc intent")
	}
	b.ReportAllocs()
	for b.Loop() {
		TaskIntents(benchGoal)
	}
}
