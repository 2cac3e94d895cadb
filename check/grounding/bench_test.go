package grounding

import (
	"fmt"
	"os"
	"testing"

	"github.com/vouchgate/vouch"
)

// BenchmarkGround50 extracts and verifies the mentions of a real 5 KB agent
// answer against a 50-record trace, without a workspace: the cost grounding
// adds to a verification.
func BenchmarkGround50(b *testing.B) {
	answer, err := os.ReadFile("../../text/mention/testdata/agent.md")
	if err != nil {
		b.Fatal(err)
	}
	var tr []vouch.TraceEntry
	for i := range 50 {
		switch i % 5 {
		case 0:
			tr = append(tr, entry("Read", map[string]any{"file_path": fmt.Sprintf("/home/u/app/lib/app/mod%d.ex", i)},
				fmt.Sprintf("     1→defmodule App.Mod%d do\n     2→  alias App.Repo\n     3→  def run(opts), do: Repo.all(opts)\n     4→end\n", i), false))
		case 1:
			tr = append(tr, entry("Bash", map[string]any{"command": "mix test test/app/mod_test.exs"}, "..........\nFinished in 0.4 seconds\n10 tests, 0 failures\n", false))
		case 2:
			tr = append(tr, entry("Grep", map[string]any{"pattern": "SessionLive"}, "lib/app_web/live/session_live.ex\nlib/app_web/router.ex\n", false))
		case 3:
			tr = append(tr, entry("Edit", map[string]any{"file_path": fmt.Sprintf("/home/u/app/lib/app/mod%d.ex", i), "old_string": "def run", "new_string": "def run!"}, "The file has been updated.", false))
		case 4:
			tr = append(tr, entry("Glob", map[string]any{"pattern": "test/**/*_test.exs"}, "/home/u/app/test/app/mod_test.exs\n/home/u/app/test/app_web/session_live_test.exs\n", false))
		}
	}
	req := &vouch.Request{Output: vouch.Output{Summary: string(answer)}, Trace: tr}
	pol := vouch.DefaultPolicy()
	f := run(b, req, nil)
	b.Logf("%d verified, %d unverified mentions", len(f.Mentions.Verified), len(f.Mentions.Unverified))
	b.ReportAllocs()
	b.SetBytes(int64(len(answer)))
	for b.Loop() {
		s := &vouch.Subject{Request: req, Policy: &pol}
		var f vouch.Findings
		if err := (analyzer{}).Analyze(b.Context(), s, &f); err != nil {
			b.Fatal(err)
		}
	}
}
