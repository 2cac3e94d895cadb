package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkBatch runs `vouch verify --batch` in-process over 2000 requests
// with five text criteria each; go run ./bench measures the whole process.
func BenchmarkBatch(b *testing.B) {
	dir := b.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	var sb strings.Builder
	summary := strings.Repeat("the parser now reports errors with line and column numbers while the formatter keeps comments ", 10)
	for i := range 2000 {
		fmt.Fprintf(&sb, `{"id":"req-%d","kind":"subtask","task":{"goal":"Improve the parser","criteria":[`+
			`{"id":"done","must":true,"check":{"type":"contains","value":"DONE"}},`+
			`{"id":"parser","check":{"type":"contains","value":"PARSER","ignoreCase":true}},`+
			`{"id":"version","check":{"type":"regex","pattern":"v\\d+\\.\\d+"}},`+
			`{"id":"notodo","check":{"type":"contains","value":"TODO","not":true}},`+
			`{"id":"length","check":{"type":"length","minWords":50,"maxChars":4000}}]},`+
			`"output":{"summary":"%s Status: DONE. Version v1.%d"}}`+"\n", i, summary, i%50)
	}
	if err := os.WriteFile(in, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	args := []string{"verify", "--batch", in, "--out", filepath.Join(dir, "out.jsonl")}
	b.ReportAllocs()
	for b.Loop() {
		// The summaries make claims no rule can check: the batch exits
		// 3 (unverified). Any code but a verdict's is a failure.
		if code := Main(context.Background(), args, Streams{Out: io.Discard, Err: io.Discard}); code != 0 && code != 1 && code != 3 {
			b.Fatalf("exit %d", code)
		}
	}
}
