package content

import (
	"context"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
)

// benchSummary is a ~1 KB agent summary; what the benchmarks look for is
// near its end.
var benchSummary = func() string {
	var b strings.Builder
	b.WriteString("## Summary\n\nI updated the parser to handle nested blocks and added doc comments to the exported functions.\n\n")
	for b.Len() < 900 {
		b.WriteString("- Modified src/parser.go: tokenize now returns positions; format keeps comments.\n")
	}
	b.WriteString("\n## Tests\n\nRan go test ./...: 42 tests passed, 0 failed.\n")
	return b.String()
}()

func benchCheck(b *testing.B, raw string) {
	c := mustCompile(b, raw, check.Env{})
	s := &vouch.Subject{Request: &vouch.Request{Output: vouch.Output{Summary: benchSummary}}}
	ctx := context.Background()
	if o := c.Check(ctx, s); o.Status != vouch.StatusPass {
		b.Fatalf("got %s: %s", o.Status, o.Reason)
	}
	b.SetBytes(int64(len(benchSummary)))
	b.ReportAllocs()
	for b.Loop() {
		c.Check(ctx, s)
	}
}

func BenchmarkContains(b *testing.B) {
	benchCheck(b, `{"type":"contains","value":"tests passed"}`)
}

func BenchmarkContainsIgnoreCase(b *testing.B) {
	benchCheck(b, `{"type":"contains","value":"TESTS PASSED","ignoreCase":true}`)
}

// BenchmarkContainsIgnoreCaseUnicode measures the slow path, a fresh
// verification (Subject) each time, so the text is lowered every time.
func BenchmarkContainsIgnoreCaseUnicode(b *testing.B) {
	c := mustCompile(b, `{"type":"contains","value":"TESTS PASSÉ","ignoreCase":true}`, check.Env{})
	req := &vouch.Request{Output: vouch.Output{Summary: benchSummary + " tests passé"}}
	ctx := context.Background()
	b.SetBytes(int64(len(req.Output.Summary)))
	b.ReportAllocs()
	for b.Loop() {
		s := &vouch.Subject{Request: req}
		if c.Check(ctx, s).Status != vouch.StatusPass {
			b.Fatal("no match")
		}
	}
}

func BenchmarkNotContains(b *testing.B) {
	benchCheck(b, `{"type":"not_contains","value":"TODO"}`)
}

// BenchmarkRegex uses a pattern with no literal prefix: Go's RE2 engine then
// simulates the automaton from every position of the text.
func BenchmarkRegex(b *testing.B) {
	benchCheck(b, `{"type":"regex","pattern":"\\d+ tests? passed"}`)
}

// BenchmarkRegexLiteralPrefix uses a pattern that starts with a literal,
// which the engine finds with a substring search first.
func BenchmarkRegexLiteralPrefix(b *testing.B) {
	benchCheck(b, `{"type":"regex","pattern":"tests? passed, \\d+ failed"}`)
}

func BenchmarkLength(b *testing.B) {
	benchCheck(b, `{"type":"length","minChars":100,"maxChars":4000,"maxWords":500}`)
}

// BenchmarkSections measures a fresh verification each time (headings are
// memoised per verification).
func BenchmarkSections(b *testing.B) {
	c := mustCompile(b, `{"type":"sections","required":["Summary","Tests"]}`, check.Env{})
	req := &vouch.Request{Output: vouch.Output{Summary: benchSummary}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if c.Check(ctx, &vouch.Subject{Request: req}).Status != vouch.StatusPass {
			b.Fatal("fail")
		}
	}
}
