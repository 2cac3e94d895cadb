package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/engine"
)

// FuzzVerifyBytes feeds arbitrary input through decoding, criteria
// compilation and verification. It must never panic; an error must be an
// input error, never internal; a report must be well formed, and a report
// whose score is null must not pass.
func FuzzVerifyBytes(f *testing.F) {
	seeds, _ := filepath.Glob("../testdata/requests/*")
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	cases, _ := filepath.Glob("testdata/cases/*.yaml")
	for _, s := range cases {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"task":{"criteria":[{"check":{"type":"cel","expr":"size(summary) > 2"}},{"check":{"type":"json_schema","schema":{"type":"object"}}}]},"output":{"summary":"{}"}}`))
	f.Add([]byte(`{"task":{"policy":{"passAt":0.9},"criteria":[{"must":true,"check":{"type":"sections","required":["A"],"not":true}}]},"output":{"summary":"# A"}}`))
	eng, err := engine.New(engine.Options{Analyzers: []string{}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := eng.VerifyBytes(context.Background(), data)
		if err != nil {
			if vouch.Code(err) == vouch.ErrInternal {
				t.Fatalf("internal error for input %q: %v", data, err)
			}
			if rep != nil {
				t.Fatal("a report alongside an error")
			}
			return
		}
		if rep.Score == nil && rep.Verdict == vouch.VerdictPass {
			t.Fatal("a pass with nothing decided")
		}
		if rep.Score != nil && (*rep.Score < 0 || *rep.Score > 1) {
			t.Fatalf("score %v out of range", *rep.Score)
		}
		if rep.Confidence < 0 || rep.Confidence > 1 {
			t.Fatalf("confidence %v out of range", rep.Confidence)
		}
		for _, c := range rep.Criteria {
			if c.Must && c.Status != vouch.CriterionMet && rep.Verdict == vouch.VerdictPass {
				t.Fatalf("pass with must-pass criterion %s %s", c.ID, c.Status)
			}
		}
	})
}
