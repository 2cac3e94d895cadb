package transcript_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/vouchgate/vouch"
	_ "github.com/vouchgate/vouch/check/all"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/trace"
	"github.com/vouchgate/vouch/trace/claudecode"
	"github.com/vouchgate/vouch/trace/transcript"
	"github.com/vouchgate/vouch/wire"
)

// The writers below turn a transcript into each format as a program that
// logs that format would write the same session: the goal as the user's
// message, one assistant turn a tool call with its result, and the
// summary as the last assistant message. Where the format has no error
// flag (the OpenAI APIs), the result carries the is_error member the
// importer honours, as some orchestrators add it.

// chatLog writes a Chat Completions request body and its response.
func chatLog(tr *trace.Transcript) []byte {
	msgs := []any{
		map[string]any{"role": "system", "content": "You are a coding agent."},
		map[string]any{"role": "user", "content": tr.Goal},
	}
	for _, e := range tr.Trace {
		msgs = append(msgs, map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{
			map[string]any{"id": e.ID, "type": "function", "function": map[string]any{"name": e.Tool, "arguments": arguments(e.Input)}},
		}})
		if e.Output != nil {
			msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": e.ID, "content": e.OutputText(), "is_error": e.IsError})
		}
	}
	return mustJSON(map[string]any{
		"model":    model(tr),
		"messages": msgs,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": tr.Output.Summary}}},
	})
}

// responsesLog writes Responses API items, one a line (JSONL), and the
// response that ends the session.
func responsesLog(tr *trace.Transcript) []byte {
	items := []any{
		map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": tr.Goal}}},
	}
	for _, e := range tr.Trace {
		items = append(items, map[string]any{"type": "function_call", "id": "fc_" + e.ID, "call_id": e.ID, "name": e.Tool, "arguments": arguments(e.Input), "status": "completed"})
		if e.Output != nil {
			items = append(items, map[string]any{"type": "function_call_output", "call_id": e.ID, "output": e.OutputText(), "is_error": e.IsError})
		}
	}
	// The last line is the response, with its model.
	items = append(items, map[string]any{"object": "response", "status": "completed", "model": model(tr), "output": []any{
		map[string]any{"type": "message", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": tr.Output.Summary, "annotations": []any{}}}}}})
	var out []byte
	for _, it := range items {
		out = append(append(out, mustJSON(it)...), '\n')
	}
	return out
}

// otelLog writes OTLP JSON: an agent span around a chat span for each
// call, whose output message holds the tool call, followed by the tool's
// execution span; then a last chat span with the summary. The spans are
// listed last first, so the importer has to order them.
func otelLog(tr *trace.Transcript) []byte {
	str := func(k, v string) any { return map[string]any{"key": k, "value": map[string]any{"stringValue": v}} }
	msgs := func(role string, parts ...any) string {
		return string(mustJSON([]any{map[string]any{"role": role, "parts": parts}}))
	}
	text := func(s string) any { return map[string]any{"type": "text", "content": s} }
	var spans []any
	span := func(id, name string, start, end int64, status int, attrs ...any) {
		s := map[string]any{"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": id, "parentSpanId": "00f067aa0ba90001",
			"name": name, "startTimeUnixNano": strconv.FormatInt(start, 10), "endTimeUnixNano": strconv.FormatInt(end, 10), "attributes": attrs}
		if status != 0 {
			s["status"] = map[string]any{"code": status}
		}
		spans = append(spans, s)
	}
	t0 := int64(1767225600_000000000)
	at := t0
	for i, e := range tr.Trace {
		// The session's own time when it has one, else a millisecond a
		// call; never earlier than the call before.
		if ts, err := time.Parse(time.RFC3339Nano, e.Timestamp); err == nil && ts.UnixNano() > at {
			at = ts.UnixNano()
		}
		at += 3
		var input any = map[string]any{}
		if e.Input != nil {
			input = e.Input
		}
		span(fmt.Sprintf("c%015x", i), "chat", at, at+1, 0,
			str("gen_ai.operation.name", "chat"), str("gen_ai.response.model", model(tr)),
			str("gen_ai.output.messages", msgs("assistant", map[string]any{"type": "tool_call", "id": e.ID, "name": e.Tool, "arguments": input})))
		attrs := []any{str("gen_ai.operation.name", "execute_tool"), str("gen_ai.tool.name", e.Tool),
			str("gen_ai.tool.call.id", e.ID), str("gen_ai.tool.call.arguments", arguments(e.Input))}
		status := 0
		if e.Output != nil {
			attrs = append(attrs, str("gen_ai.tool.call.result", e.OutputText()))
			status = 1
		}
		if e.IsError {
			status = 2
		}
		span(fmt.Sprintf("e%015x", i), "execute_tool "+e.Tool, at+2, at+2, status, attrs...)
	}
	span("f000000000000001", "chat", at+10, at+20, 0,
		str("gen_ai.operation.name", "chat"), str("gen_ai.response.model", model(tr)),
		str("gen_ai.output.messages", msgs("assistant", text(tr.Output.Summary))))
	span("00f067aa0ba90001", "invoke_agent", t0, at+30, 0,
		str("gen_ai.operation.name", "invoke_agent"), str("gen_ai.agent.name", "coder"),
		str("gen_ai.input.messages", msgs("user", text(tr.Goal))),
		str("gen_ai.output.messages", msgs("assistant", text(tr.Output.Summary))))
	slices.Reverse(spans)
	return mustJSON(map[string]any{"resourceSpans": []any{map[string]any{
		"resource":   map[string]any{"attributes": []any{str("service.name", "agent")}},
		"scopeSpans": []any{map[string]any{"scope": map[string]any{"name": "test"}, "spans": spans}},
	}}})
}

func arguments(in map[string]any) string {
	if in == nil {
		return "{}"
	}
	return string(mustJSON(in))
}

func model(tr *trace.Transcript) string {
	if tr.Executor == nil {
		return ""
	}
	return tr.Executor.Model
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// sessions are the Claude Code sessions held against the formats: the
// one in testdata, and the real ones in /work/shared when it is there.
func sessions(t *testing.T) []string {
	files := []string{filepath.Join("testdata", "claude-session.jsonl")}
	shared, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "agent-transcripts", "claude-code", "*.jsonl"))
	if len(shared) == 0 {
		t.Log("no real sessions in ../../../shared: the testdata session only")
	}
	return append(files, shared...)
}

// TestEquivalence: each format's importer turns the session, written in
// that format, into a request that verifies as the Claude Code session's
// own request does.
func TestEquivalence(t *testing.T) {
	eng, err := engine.New(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range sessions(t) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		orig, err := claudecode.Read(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		want := verify(t, eng, orig)
		for _, tt := range []struct {
			format transcript.Format
			write  func(*trace.Transcript) []byte
		}{
			{transcript.OpenAIChat, chatLog},
			{transcript.OpenAIResponses, responsesLog},
			{transcript.OTelGenAI, otelLog},
		} {
			t.Run(filepath.Base(path)+"/"+string(tt.format), func(t *testing.T) {
				log := tt.write(orig)
				f, err := transcript.Detect(log)
				if err != nil || f != tt.format {
					t.Fatalf("detected %q, %v", f, err)
				}
				got, err := transcript.Reader(f)(bytesReader(log))
				if err != nil {
					t.Fatal(err)
				}
				same(t, orig, got, tt.format == transcript.OTelGenAI)
				if rep := verify(t, eng, got); !cmp.Equal(rep, want) {
					t.Errorf("the verification differs (-claude +%s):\n%s", tt.format, cmp.Diff(want, rep))
				}
			})
		}
	}
}

// same holds a transcript read back against the original.
func same(t *testing.T, orig, got *trace.Transcript, timestamps bool) {
	t.Helper()
	if len(got.Trace) != len(orig.Trace) {
		t.Fatalf("%d entries, want %d", len(got.Trace), len(orig.Trace))
	}
	for i := range orig.Trace {
		o, g := &orig.Trace[i], &got.Trace[i]
		if o.ID != g.ID || o.Tool != g.Tool || o.IsError != g.IsError || (o.Output == nil) != (g.Output == nil) || o.OutputText() != g.OutputText() {
			t.Errorf("entry %d: %s %s error %v output %.80q; want %s %s error %v output %.80q",
				i, g.ID, g.Tool, g.IsError, g.OutputText(), o.ID, o.Tool, o.IsError, o.OutputText())
		}
		if d := cmp.Diff(o.Input, g.Input, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("entry %d (%s): input differs:\n%s", i, o.ID, d)
		}
		if timestamps && o.Timestamp != "" {
			ot, _ := time.Parse(time.RFC3339Nano, o.Timestamp)
			gt, err := time.Parse(time.RFC3339Nano, g.Timestamp)
			if err != nil || gt.Before(ot) || gt.Sub(ot) > time.Second {
				t.Errorf("entry %d: timestamp %s, want about %s", i, g.Timestamp, o.Timestamp)
			}
		}
	}
	if got.Output.Summary != orig.Output.Summary {
		t.Errorf("summary %q, want %q", got.Output.Summary, orig.Output.Summary)
	}
	if got.Goal != orig.Goal {
		t.Errorf("goal %q, want %q", got.Goal, orig.Goal)
	}
	if model(got) != model(orig) {
		t.Errorf("model %q, want %q", model(got), model(orig))
	}
	if !slices.Equal(got.Output.ToolCalls, orig.Output.ToolCalls) || !slices.Equal(got.Output.Commands, orig.Output.Commands) {
		t.Errorf("toolCalls %q commands %q, want %q %q", got.Output.ToolCalls, got.Output.Commands, orig.Output.ToolCalls, orig.Output.Commands)
	}
	oc, gc := results(orig), results(got)
	if len(oc) != len(gc) {
		t.Fatalf("%d command results, want %d", len(gc), len(oc))
	}
	sum := trace.Summarize(orig.Trace, nil)
	for i := range oc {
		if oc[i].Command != gc[i].Command {
			t.Errorf("command result %d: %q, want %q", i, gc[i].Command, oc[i].Command)
			continue
		}
		o, g := exit(oc[i].ExitCode), exit(gc[i].ExitCode)
		// A background run's status from a Claude Code task notification
		// (a user message, not a tool result) is not in the trace: the
		// other formats cannot carry it, and the engine does not read it.
		if run := sum.Commands[i]; run.Background && run.ExitCode == nil && g == "none" {
			continue
		}
		if o != g {
			t.Errorf("command result %d (%s): exit %s, want %s", i, oc[i].Command, g, o)
		}
	}
}

func results(tr *trace.Transcript) []vouch.CommandResult {
	if tr.Output.Artifacts == nil {
		return nil
	}
	return tr.Output.Artifacts.CommandResults
}

func exit(c *int) string {
	if c == nil {
		return "none"
	}
	return strconv.Itoa(*c)
}

// outcome is what a verification decided, as the equivalence compares it.
type outcome struct {
	Verdict  vouch.Verdict
	Action   vouch.Action
	Row      int
	Score    string
	Checks   []string // name status code
	Warnings []string
}

var requestOptions = jsonv2.JoinOptions(
	jsontext.WithIndent("  "),
	jsonv2.Deterministic(true),
	jsonv1.OmitEmptyWithLegacySemantics(true),
	jsontext.AllowInvalidUTF8(true),
)

// verify verifies a transcript's request as vouch verify does one that
// vouch trace printed: encoded, decoded, then verified by rule (no judge).
func verify(t *testing.T, eng *engine.Engine, tr *trace.Transcript) outcome {
	t.Helper()
	data, err := jsonv2.Marshal(tr.Request(), requestOptions)
	if err != nil {
		t.Fatal(err)
	}
	req, err := wire.DecodeRequest(data, wire.Options{MaxBytes: 64 << 20})
	if err != nil {
		t.Fatalf("the request does not decode: %v", vouch.ErrorList(err))
	}
	rep, err := eng.Verify(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	o := outcome{Verdict: rep.Verdict, Action: rep.Action, Row: rep.VerdictRow}
	if rep.Score != nil {
		o.Score = strconv.FormatFloat(*rep.Score, 'f', 4, 64)
	}
	for _, c := range rep.Checks {
		o.Checks = append(o.Checks, c.Name+" "+string(c.Status)+" "+c.Code)
	}
	for _, w := range rep.Warnings {
		o.Warnings = append(o.Warnings, string(w.Code))
	}
	if len(o.Checks) == 0 {
		t.Errorf("no check ran: %+v", rep)
	}
	return o
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
