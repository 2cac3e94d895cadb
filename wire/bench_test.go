package wire

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/vouchgate/vouch"
)

// benchSummary is a summary of about 1 KB.
var benchSummary = strings.Repeat("Added JSDoc comments to parse and tokenize in src/parser.ts. ", 17)

// benchRequest is a typical request of about 1.5 KB besides its summary: 5
// criteria with checks, a ~1 KB summary, a claimed edit and a short trace.
// It has no id, so decoding includes the content hash.
var benchRequest = []byte(`{
  "apiVersion": "vouch/v1",
  "kind": "subtask",
  "attempt": 1,
  "task": {
    "id": "t-42",
    "goal": "Add doc comments to the exported functions of src/parser.ts",
    "criteria": [
      {"id": "docs", "text": "every exported function has a doc comment", "must": true, "check": {"type": "doc_comments", "file": "src/parser.ts", "symbols": ["parse", "tokenize"]}},
      {"text": "mentions the file", "check": {"type": "contains", "value": "src/parser.ts", "ignoreCase": true}},
      {"text": "no TODO left", "weight": 0.5, "check": {"type": "contains", "value": "TODO", "not": true}},
      {"text": "short enough", "check": {"type": "length", "maxWords": 400}},
      {"text": "tests were run", "check": {"type": "tool_called", "tool": "shell:run"}}
    ]
  },
  "output": {
    "summary": "` + benchSummary + `",
    "modified": ["src/parser.ts"],
    "toolCalls": ["fs:read", "fs:write"],
    "testResult": "passed",
    "artifacts": {
      "fileEdits": [{"file": "src/parser.ts", "linesChanged": 12, "editedRegion": {"start": 10, "end": 22}, "changeType": "modify"}]
    }
  },
  "trace": [
    {"id": "1", "tool": "fs:read", "input": {"path": "src/parser.ts"}, "output": "export function parse() {}"}
  ]
}`)

// benchRequestYAML is benchRequest written as a human would in YAML.
var benchRequestYAML = []byte(`apiVersion: vouch/v1
kind: subtask
attempt: 1
task:
  id: t-42
  goal: Add doc comments to the exported functions of src/parser.ts
  criteria:
    - id: docs
      text: every exported function has a doc comment
      must: true
      check: {type: doc_comments, file: src/parser.ts, symbols: [parse, tokenize]}
    - text: mentions the file
      check: {type: contains, value: src/parser.ts, ignoreCase: true}
    - text: no TODO left
      weight: 0.5
      check: {type: contains, value: TODO, not: true}
    - text: short enough
      check: {type: length, maxWords: 400}
    - text: tests were run
      check: {type: tool_called, tool: "shell:run"}
output:
  summary: >
    ` + benchSummary + `
  modified: [src/parser.ts]
  toolCalls: ["fs:read", "fs:write"]
  testResult: passed
  artifacts:
    fileEdits:
      - file: src/parser.ts
        linesChanged: 12
        editedRegion: {start: 10, end: 22}
        changeType: modify
trace:
  - id: "1"
    tool: "fs:read"
    input: {path: src/parser.ts}
    output: "export function parse() {}"
`)

func BenchmarkDecodeRequest(b *testing.B) {
	b.SetBytes(int64(len(benchRequest)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeRequest(benchRequest, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJSONFloor is the part of BenchmarkDecodeRequest spent in the
// json v2 decoder itself (same options, no validation, no content hash):
// the floor DecodeRequest's own work sits on.
func BenchmarkJSONFloor(b *testing.B) {
	b.SetBytes(int64(len(benchRequest)))
	b.ReportAllocs()
	for b.Loop() {
		var r vouch.Request
		if err := json.Unmarshal(benchRequest, &r, decodeOptions); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeRequestYAML(b *testing.B) {
	b.SetBytes(int64(len(benchRequestYAML)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeRequest(benchRequestYAML, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshalReport(b *testing.B) {
	r := fullReport()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := MarshalReport(r); err != nil {
			b.Fatal(err)
		}
	}
}

func TestBenchRequestsDecode(t *testing.T) {
	j, err := DecodeRequest(benchRequest, Options{})
	if err != nil {
		t.Fatal(err)
	}
	y, err := DecodeRequest(benchRequestYAML, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(j.Task.Criteria) != 5 || len(y.Task.Criteria) != 5 || len(j.Output.Summary) < 1000 {
		t.Fatalf("bench requests are not what they claim")
	}
	if strings.TrimSpace(y.Output.Summary) != strings.TrimSpace(j.Output.Summary) {
		t.Errorf("YAML summary differs")
	}
}
