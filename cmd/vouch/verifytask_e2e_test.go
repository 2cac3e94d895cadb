package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/judge/fake"
)

// TestServeVerifyTaskModes drives the built binary's vouch serve, with a
// judge answered by the fake model: every scoring mode of POST
// /verify-task answers 200, the same text under each mode is its own
// stored report (none replays another mode's), and sent again under the
// same mode it replays.
func TestServeVerifyTaskModes(t *testing.T) {
	llm := fake.NewServer(fake.WithResponder(fake.Scored(0.8)))
	t.Cleanup(llm.Close)
	t.Setenv("VOUCH_JUDGE", "openai:gpt-4o")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", llm.URL()+"/v1")
	dir := t.TempDir()
	_, url := startServe(t, dir, "--store", filepath.Join(dir, "vouch.db"))
	post := func(mode, model string) (int, api.TaskResult, http.Header) {
		t.Helper()
		body, _ := json.Marshal(api.TaskInput{TaskDescription: "Summarise the release in one line",
			SuccessCriteria: []string{"mentions 3 fixes", "is one sentence"},
			TaskOutput:      "The release brings 3 fixes to the parser.", ScoringMode: mode, VerifierModel: model})
		res, err := http.Post(url+"/verify-task", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		var out api.TaskResult
		if res.StatusCode == http.StatusOK {
			if err := json.Unmarshal(b, &out); err != nil {
				t.Fatalf("%s: %v: %s", mode, err, b)
			}
		} else {
			t.Errorf("%s: %d %s", mode, res.StatusCode, b)
		}
		return res.StatusCode, out, res.Header
	}
	ids := map[string]string{}
	for _, mode := range []string{"rules", "judge", "rubric", "binary", "criteria_match"} {
		_, out, _ := post(mode, "")
		if out.ScoringMode != mode {
			t.Errorf("%s: answered as %q", mode, out.ScoringMode)
		}
		if prev, ok := ids[out.ID]; ok {
			t.Errorf("%s and %s share the stored id %s", prev, mode, out.ID)
		}
		ids[out.ID] = mode
		judged := mode == "judge" || mode == "rubric" || mode == "binary"
		if judged != (len(out.JudgeModels) > 0) {
			t.Errorf("%s: judge models %v", mode, out.JudgeModels)
		}
		_, again, h := post(mode, "")
		if again.ID != out.ID || h.Get("Idempotent-Replayed") != "true" {
			t.Errorf("%s sent again: id %s (first %s), replayed %q", mode, again.ID, out.ID, h.Get("Idempotent-Replayed"))
		}
	}
	// A bare model name resolves to the configured provider:model.
	if _, out, _ := post("judge", "gpt-4o"); out.VerifierModel != "openai:gpt-4o" {
		t.Errorf("verifier_model gpt-4o resolved to %q", out.VerifierModel)
	}
}
