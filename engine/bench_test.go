package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/wire"
)

// benchRequest is a request with a ~1 KB summary and five text criteria:
// contains, case-insensitive contains, regex, negated contains, length.
func benchRequest() []byte {
	// Notes that claim nothing the criteria do not decide: the pass path.
	summary := strings.Repeat("Parser error reporting with line and column numbers, and comment handling in the formatter. ", 10) +
		"Status: DONE. Version v1.4"
	return []byte(`{"id":"bench-1","kind":"subtask","task":{"goal":"Improve the parser's error reporting","criteria":[` +
		`{"id":"done","must":true,"check":{"type":"contains","value":"DONE"}},` +
		`{"id":"parser","check":{"type":"contains","value":"PARSER","ignoreCase":true}},` +
		`{"id":"version","check":{"type":"regex","pattern":"v\\d+\\.\\d+"}},` +
		`{"id":"notodo","check":{"type":"contains","value":"TODO","not":true}},` +
		`{"id":"length","check":{"type":"length","minWords":50,"maxChars":4000}}]},` +
		`"output":{"summary":"` + summary + `"}}`)
}

// BenchmarkVerify measures one verification in-process, decoding and
// validation included: the figure behind the 20 µs goal.
func BenchmarkVerify(b *testing.B) {
	eng, err := engine.New(engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	data := benchRequest()
	ctx := context.Background()
	rep, err := eng.VerifyBytes(ctx, data)
	if err != nil {
		b.Fatal(err)
	}
	if rep.Verdict != vouch.VerdictPass {
		b.Fatalf("bench request should pass, got %s: %s", rep.Verdict, rep.Feedback)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := eng.VerifyBytes(ctx, data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyEncode adds encoding the report as JSON, as a batch does.
func BenchmarkVerifyEncode(b *testing.B) {
	eng, err := engine.New(engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	data := benchRequest()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		rep, err := eng.VerifyBytes(ctx, data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := wire.MarshalReport(rep); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyParallel runs verifications on every core, as a batch does.
func BenchmarkVerifyParallel(b *testing.B) {
	eng, err := engine.New(engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	data := benchRequest()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			if _, err := eng.VerifyBytes(ctx, data); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
