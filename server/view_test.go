package server

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/store"
)

// ?view=brief answers a report's brief form, on POST /v1/verify and on
// GET /v1/verifications/{id}, with a reviewer's override when there is
// one; an unknown view is refused before anything is verified.
func TestBriefView(t *testing.T) {
	e := newEnv(t, nil)
	res := e.do("POST", "/v1/verify?view=brief", "", request("b1", 1, "not yet"))
	if res.status != 200 || len(res.body) >= vouch.BriefMaxBytes+1 {
		t.Fatalf("POST ?view=brief: %d, %d bytes: %s", res.status, len(res.body), res.body)
	}
	var b vouch.Brief
	if err := json.Unmarshal(res.body, &b); err != nil {
		t.Fatal(err)
	}
	if b.ID != "b1" || b.Verdict != vouch.VerdictRetry || len(b.Findings) == 0 || b.Feedback == "" {
		t.Errorf("brief %+v: want b1, retry, with findings and feedback", b)
	}
	full := e.do("GET", "/v1/verifications/b1", "", nil)
	if !strings.Contains(string(full.body), `"checks"`) || len(full.body) <= len(res.body) {
		t.Errorf("GET without a view is not the full report: %s", full.body)
	}
	if res := e.do("POST", "/v1/verifications/b1/override", "", []byte(`{"verdict":"pass","reason":"the reviewer read it"}`)); res.status != 201 {
		t.Fatalf("override: %d %s", res.status, res.body)
	}
	res = e.do("GET", "/v1/verifications/b1?view=brief", "", nil)
	if err := json.Unmarshal(res.body, &b); err != nil || b.Override != vouch.VerdictPass || b.Verdict != vouch.VerdictRetry {
		t.Errorf("GET ?view=brief after an override: %v %s", err, res.body)
	}
	if res := e.do("POST", "/v1/verify?view=short", "", request("b2", 1, "DONE")); res.status != 400 {
		t.Errorf("an unknown view: %d %s", res.status, res.body)
	}
	if _, err := e.store.Get(t.Context(), DefaultTenant, "b2", 1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a request with an unknown view was verified and stored: %v", err)
	}
}
