package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/api"
)

// TestServeMetricsViews drives the built binary: verifications sent to
// vouch serve, then vouch metrics against it, which shows the score by
// task complexity and the retry success by issue type (the first failure
// code of a task's first attempt).
func TestServeMetricsViews(t *testing.T) {
	dir := t.TempDir()
	_, url := startServe(t, dir, "--store", filepath.Join(dir, "vouch.db"))
	verify := func(id string, attempt int, summary string, words ...string) vouch.Report {
		t.Helper()
		var crit []string
		for i, w := range words {
			crit = append(crit, fmt.Sprintf(`{"id":"c%d","text":"says %s","must":true,"check":{"type":"contains","value":%q}}`, i, w, w))
		}
		body := fmt.Sprintf(`{"id":%q,"attempt":%d,"task":{"id":%q,"goal":"report","criteria":[%s]},"output":{"summary":%q}}`,
			id, attempt, id, strings.Join(crit, ","), summary)
		res, err := http.Post(url+"/v1/verify", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		var rep vouch.Report
		if res.StatusCode != http.StatusOK || json.Unmarshal(b, &rep) != nil {
			t.Fatalf("%s/%d: %d %s", id, attempt, res.StatusCode, b)
		}
		return rep
	}
	// Task a writes one criterion: sent back, then passed. Task b writes
	// five and passes first time. Task c writes one, is sent back and
	// never retried.
	first := verify("a", 1, "still working", "DONE")
	if !first.Verdict.SentBack() || len(first.Checks) == 0 {
		t.Fatalf("a/1: %s, want it sent back", first.Verdict)
	}
	if rep := verify("a", 2, "DONE", "DONE"); rep.Verdict != "pass" {
		t.Fatalf("a/2: %s, want pass", rep.Verdict)
	}
	if rep := verify("b", 1, "A B C D E", "A", "B", "C", "D", "E"); rep.Verdict != "pass" {
		t.Fatalf("b/1: %s, want pass", rep.Verdict)
	}
	verify("c", 1, "nothing", "DONE")

	run := func(args ...string) []byte {
		t.Helper()
		cmd := exec.Command(filepath.Join(dir, "vouch"), append([]string{"metrics", "--server", url}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("vouch metrics %v: %v: %s", args, err, stderr.Bytes())
		}
		return out
	}
	var m api.Metrics
	if err := json.Unmarshal(run("--json"), &m); err != nil {
		t.Fatal(err)
	}
	cb := m.ScoreByComplexity
	if len(cb) != 5 || cb[1].N != 3 || cb[3].N != 1 || cb[3].Pass.N != 1 || cb[1].Pass.N != 1 || cb[0].N != 0 {
		t.Errorf("score by complexity %+v: want a/1, a/2 and c/1 at 1 (one passed), b/1 at 4-7 (passed)", cb)
	}
	issue := "TEXT_MISSING"
	if got := m.RetrySuccessByIssue; len(got) != 1 || got[0].Code != issue || got[0].SentBack != 2 ||
		got[0].RetrySuccess.N != 1 || got[0].RetrySuccess.Of != 1 {
		t.Errorf("retry success by issue %+v: want %s, 2 sent back, 1 of 1 retried passed", got, issue)
	}
	text := string(run())
	for _, want := range []string{"Score by complexity", "4-7 ", "Retry success by issue", issue + "  2 "} {
		if !strings.Contains(text, want) {
			t.Errorf("vouch metrics lacks %q:\n%s", want, text)
		}
	}
}
