package trace_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/vouchgate/vouch"
	_ "github.com/vouchgate/vouch/check/all"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/internal/sharedtest"
	"github.com/vouchgate/vouch/trace"
	"github.com/vouchgate/vouch/trace/claudecode"
	"github.com/vouchgate/vouch/trace/miniswe"
	"github.com/vouchgate/vouch/wire"
)

// requestOptions are those vouch trace prints a request with.
var requestOptions = json.JoinOptions(
	jsontext.WithIndent("  "),
	json.Deterministic(true),
	jsonv1.OmitEmptyWithLegacySemantics(true),
	jsontext.AllowInvalidUTF8(true),
)

// TestRequestsVerify holds the requests built from real sessions to the
// contract: they encode, decode with package wire unchanged in substance,
// and the engine verifies them.
func TestRequestsVerify(t *testing.T) {
	files := sharedtest.Glob(t, "agent-transcripts/claude-code/*.jsonl")
	files = append(files, sharedtest.Path(t, "agent-transcripts", "mini-swe-agent", "local.traj.json"))
	eng, err := engine.New(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			read := claudecode.Read
			if filepath.Ext(path) == ".json" {
				read = miniswe.Read
			}
			tr, err := read(f)
			if err != nil {
				t.Fatal(err)
			}
			data, err := json.Marshal(tr.Request(), requestOptions)
			if err != nil {
				t.Fatal(err)
			}
			req, err := wire.DecodeRequest(data, wire.Options{Name: path})
			if err != nil {
				t.Fatalf("the request does not decode: %v", vouch.ErrorList(err))
			}
			if len(req.Trace) != len(tr.Trace) || req.Output.Summary != tr.Output.Summary || req.Task.Goal != tr.Goal {
				t.Errorf("decoded request differs: %d entries, summary %q", len(req.Trace), req.Output.Summary)
			}
			for i := range req.Trace {
				if req.Trace[i].IsError != tr.Trace[i].IsError || req.Trace[i].OutputText() != tr.Trace[i].OutputText() {
					t.Fatalf("entry %d changed in the round trip", i)
				}
			}
			rep, err := eng.Verify(context.Background(), req)
			if err != nil {
				t.Fatalf("verify: %v", err)
			}
			if rep.Verdict == "" {
				t.Errorf("report without a verdict: %+v", rep)
			}
			// The summary the decoded request gives is the transcript's.
			if a, b := trace.Summarize(req.Trace, nil).Text(0), trace.Summarize(tr.Trace, nil).Text(0); a != b {
				t.Errorf("summaries differ after the round trip")
			}
		})
	}
}
