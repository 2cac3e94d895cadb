package e2e

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/engine"
)

// TestRerunTimedOutIsUnverified: "All tests pass" over a trace whose run
// passed, with the test command allowed to run again; the re-run times
// out, which shows nothing either way. The claim is unverified and so is
// the verdict: never a pass on a claim that could not be checked, and
// never a send-back either.
func TestRerunTimedOutIsUnverified(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not installed")
	}
	w := build(t, map[string]string{"Makefile": "test:\n\t@echo ok\n"}, map[string]string{"Makefile": "test:\n\t@sleep 30\n"}, nil, nil, true)
	pol := vouch.DefaultPolicy()
	pol.Commands.Allow = []vouch.CommandRule{vouch.NewCommandRule("make", "test")}
	pol.Commands.Timeout = vouch.Duration(200 * time.Millisecond)
	eng, err := engine.New(engine.Options{Policy: &pol})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := eng.Verify(context.Background(), &vouch.Request{
		Task:      vouch.Task{Goal: "Make the tests pass"},
		Output:    vouch.Output{Summary: "All tests pass."},
		Trace:     []vouch.TraceEntry{{Tool: "Bash", Input: map[string]any{"command": "make test"}, Output: []byte(`"ok"`)}},
		Workspace: w.dir, Base: w.base,
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != vouch.VerdictUnverified || len(rep.Claims) != 1 || rep.Claims[0].State != vouch.ClaimUnverified {
		t.Fatalf("verdict %s (row %d), claims %+v", rep.Verdict, rep.VerdictRow, rep.Claims)
	}
	found := false
	for _, c := range rep.Checks {
		if c.Name == "claims.tests" {
			found = true
			if c.Status != vouch.StatusUndecided || c.Code != vouch.CodeCommandTimedOut || c.Evidence["source"] != "rerun" {
				t.Errorf("claims.tests: %s %s %s", c.Status, c.Code, c.Reason)
			}
		}
	}
	if !found {
		t.Errorf("no claims.tests check: %+v", rep.Checks)
	}
}
