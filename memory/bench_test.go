package memory_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/vouchgate/vouch/memory"
)

// BenchmarkRecord records one report, with its context read as the loop
// does before each attempt, into a memory holding 20 interactions of 10
// tasks each.
func BenchmarkRecord(b *testing.B) {
	for _, kind := range []string{"mem", "file"} {
		b.Run(kind, func(b *testing.B) {
			var st memory.Store = memory.NewMem()
			if kind == "file" {
				f, err := memory.OpenFile(filepath.Join(b.TempDir(), "m.json"))
				if err != nil {
					b.Fatal(err)
				}
				st = f
			}
			m := memory.New(st, memory.Options{})
			ctx := context.Background()
			rep := report(0.9, []string{"calc.go", "calc_test.go"}, []string{"helpers.go"}, []string{"no tests"})
			for i := range 200 {
				if err := m.Record(ctx, memory.Scope{InteractionID: fmt.Sprintf("i%d", i%20), TaskID: fmt.Sprintf("t%d", i)}, rep); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				s := memory.Scope{InteractionID: "i3", TaskID: fmt.Sprintf("t%d", i%10)}
				if _, err := m.Context(ctx, s); err != nil {
					b.Fatal(err)
				}
				if err := m.Record(ctx, s, rep); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
