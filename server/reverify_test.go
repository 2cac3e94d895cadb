package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vouchgate/vouch"
)

func TestReverify(t *testing.T) { testReverify(t, newEnv) }

// testReverify: stored verifications verified again under a new policy
// compare their verdicts; requests naming a workspace are skipped unless
// asked for; the log is left as it is.
func testReverify(t *testing.T, newEnv envMaker) {
	dir := t.TempDir()
	e := newEnv(t, func(c *Config) { c.Workspaces = map[string]string{"w": dir} })
	req := func(id, want string, ws bool) []byte {
		w := ""
		if ws {
			w = `"workspace":"w",`
		}
		return fmt.Appendf(nil, `{"id":%q,%s"task":{"goal":"g","criteria":[{"id":"a","must":true,"check":{"type":"contains","value":"DONE"}},{"id":"b","check":{"type":"contains","value":%q}}]},"output":{"summary":"DONE EXTRA"}}`, id, w, want)
	}
	for _, r := range []struct {
		id, want string
		ws       bool
	}{{"full", "EXTRA", false}, {"half", "MISSING", false}, {"inws", "MISSING", true}} {
		if res := e.do("POST", "/v1/verify", "", req(r.id, r.want, r.ws)); res.status != 200 {
			t.Fatalf("%s: %d %s", r.id, res.status, res.body)
		}
	}
	pol := vouch.DefaultPolicy()
	pol.PassAt, pol.FailBelow = 0.4, 0.2
	results := func(workspaces bool) map[string]ReverifyResult {
		t.Helper()
		b, err := e.srv.Reverify(t.Context(), ReverifyOptions{Tenant: DefaultTenant, Since: time.Unix(0, 0), Policy: pol, Workspaces: workspaces})
		if err != nil {
			t.Fatal(err)
		}
		if b.Total != 3 {
			t.Fatalf("batch of %d, want 3", b.Total)
		}
		st := e.waitBatch(DefaultTenant, "", b.ID)
		if st.Done != 3 || st.Failed != 0 {
			t.Fatalf("batch: %+v", st)
		}
		out := map[string]ReverifyResult{}
		for _, line := range strings.Split(strings.TrimSpace(string(e.do("GET", "/v1/batches/"+b.ID+"/results", "", nil).body)), "\n") {
			var r ReverifyResult
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			out[r.ID] = r
		}
		return out
	}
	got := results(false)
	if r := got["full"]; r.Changed || r.Old == nil || r.Old.Verdict != "pass" || r.New.Verdict != "pass" || r.Report != nil {
		t.Errorf("full: %+v", r)
	}
	if r := got["half"]; !r.Changed || r.Old.Verdict != "retry" || r.New.Verdict != "pass" || r.Report == nil {
		t.Errorf("half: %+v (old %+v new %+v)", r, r.Old, r.New)
	}
	if r := got["inws"]; r.Skipped == "" || !strings.Contains(r.Skipped, "workspace") || r.New != nil {
		t.Errorf("inws not skipped: %+v", r)
	}
	if r := results(true)["inws"]; r.Skipped != "" || !r.Changed {
		t.Errorf("inws with workspaces: %+v", r)
	}
	// The log is unchanged: the old verdict is still the stored one.
	if v, err := e.store.Get(t.Context(), DefaultTenant, "half", 1); err != nil || v.Verdict != vouch.VerdictRetry {
		t.Errorf("stored: %v %v", v, err)
	}
	if _, err := e.srv.Reverify(t.Context(), ReverifyOptions{Tenant: DefaultTenant, Since: time.Now().Add(time.Hour), Policy: pol}); err != ErrNoneToReverify {
		t.Errorf("empty window: %v", err)
	}
}
