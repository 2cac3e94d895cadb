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
	"github.com/vouchgate/vouch/internal/sharedtest"
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
func otelLog(tr *trace.Transcript) []byte { return otelSpans(tr, true) }

// otelLogNoIDs writes the spans as otelLog does, but the tool spans do not
// name the call they execute (gen_ai.tool.call.id is recommended, not
// required).
func otelLogNoIDs(tr *trace.Transcript) []byte { return otelSpans(tr, false) }

func otelSpans(tr *trace.Transcript, ids bool) []byte {
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
			str("gen_ai.tool.call.arguments", arguments(e.Input))}
		if ids {
			attrs = append(attrs, str("gen_ai.tool.call.id", e.ID))
		}
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

// chatTurns writes the session as an orchestrator logs Chat Completions
// turn by turn: a line a response, holding the request (the whole
// conversation so far) and the message returned. The assistant says a
// few words before each call; the tool messages carry no error flag, as
// the API has none; call ids are unique only within a response (call_0
// each time), or, with legacy set, the calls are the legacy function_call
// answered by function messages, without ids.
func chatTurns(tr *trace.Transcript, legacy bool) []byte {
	conv := []any{
		map[string]any{"role": "system", "content": "You are a coding agent."},
		map[string]any{"role": "user", "content": tr.Goal},
	}
	var turns []int
	for i, e := range tr.Trace {
		turns = append(turns, len(conv))
		say := fmt.Sprintf("Step %d: I will use %s.", i+1, e.Tool)
		if legacy {
			conv = append(conv, map[string]any{"role": "assistant", "content": say,
				"function_call": map[string]any{"name": e.Tool, "arguments": arguments(e.Input)}})
		} else {
			conv = append(conv, map[string]any{"role": "assistant", "content": say, "tool_calls": []any{
				map[string]any{"id": "call_0", "type": "function", "function": map[string]any{"name": e.Tool, "arguments": arguments(e.Input)}},
			}})
		}
		if e.Output != nil {
			if legacy {
				conv = append(conv, map[string]any{"role": "function", "name": e.Tool, "content": e.OutputText()})
			} else {
				conv = append(conv, map[string]any{"role": "tool", "tool_call_id": "call_0", "content": e.OutputText()})
			}
		}
	}
	turns = append(turns, len(conv))
	conv = append(conv, map[string]any{"role": "assistant", "content": tr.Output.Summary})
	var out []byte
	for _, n := range turns {
		out = append(append(out, mustJSON(map[string]any{
			"model":    model(tr),
			"messages": conv[:n],
			"choices":  []any{map[string]any{"index": 0, "finish_reason": "stop", "message": conv[n]}},
		})...), '\n')
	}
	return out
}

// responsesTurns writes the session as an orchestrator logs the Responses
// API turn by turn: a line a response, holding the request's input (all
// the items so far) and the response's output (a message with a few words,
// then the call). The outputs carry no error flag.
func responsesTurns(tr *trace.Transcript) []byte {
	msg := func(role, typ, text string) any {
		return map[string]any{"type": "message", "role": role, "content": []any{map[string]any{"type": typ, "text": text}}}
	}
	items := []any{msg("user", "input_text", tr.Goal)}
	var out []byte
	line := func(output ...any) {
		out = append(append(out, mustJSON(map[string]any{
			"model": model(tr), "input": slices.Clone(items),
			"output": output,
		})...), '\n')
		items = append(items, output...)
	}
	for i, e := range tr.Trace {
		line(msg("assistant", "output_text", fmt.Sprintf("Step %d: I will use %s.", i+1, e.Tool)),
			map[string]any{"type": "function_call", "id": "fc_" + e.ID, "call_id": e.ID, "name": e.Tool, "arguments": arguments(e.Input), "status": "completed"})
		if e.Output != nil {
			items = append(items, map[string]any{"type": "function_call_output", "call_id": e.ID, "output": e.OutputText()})
		}
	}
	line(msg("assistant", "output_text", tr.Output.Summary))
	return out
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
	shared := sharedtest.Optional(t, "agent-transcripts/claude-code/*.jsonl")
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
		unflagged := degrade(orig)
		wantUnflagged := verify(t, eng, unflagged)
		for _, tt := range []struct {
			name   string
			format transcript.Format
			write  func(*trace.Transcript) []byte
			// flags: the log carries the error flags (an is_error member,
			// a span's status); ids: the calls' own ids.
			flags, ids bool
		}{
			{"", transcript.OpenAIChat, chatLog, true, true},
			{"", transcript.OpenAIResponses, responsesLog, true, true},
			{"", transcript.OTelGenAI, otelLog, true, true},
			{"turns", transcript.OpenAIChat, func(tr *trace.Transcript) []byte { return chatTurns(tr, false) }, false, false},
			{"turns-legacy", transcript.OpenAIChat, func(tr *trace.Transcript) []byte { return chatTurns(tr, true) }, false, false},
			{"turns", transcript.OpenAIResponses, responsesTurns, false, true},
			{"no-call-ids", transcript.OTelGenAI, otelLogNoIDs, true, true},
		} {
			name := string(tt.format)
			if tt.name != "" {
				name += "-" + tt.name
			}
			t.Run(filepath.Base(path)+"/"+name, func(t *testing.T) {
				t.Parallel() // each case reads its own log; the engine is shared, and safe for that
				log := tt.write(orig)
				f, err := transcript.Detect(log)
				if err != nil || f != tt.format {
					t.Fatalf("detected %q, %v", f, err)
				}
				got, err := transcript.Reader(f)(bytesReader(log))
				if err != nil {
					t.Fatal(err)
				}
				ref, rep := orig, want
				if !tt.flags {
					// The documented difference: without an error flag, a
					// failed call is an error only when it is a command
					// whose output states a status other than 0, and a
					// command's status is the one its output states.
					ref, rep = unflagged, wantUnflagged
				}
				same(t, ref, got, tt.format == transcript.OTelGenAI, tt.ids)
				if got := verify(t, eng, got); !cmp.Equal(got, rep) {
					t.Errorf("the verification differs (-claude +%s):\n%s", name, cmp.Diff(rep, got))
				}
			})
		}
	}
}

// degrade returns the transcript as a log without error flags gives it:
// a call is an error only when it is a command whose output states a
// status other than 0, and a command's status is only what its output
// states.
func degrade(orig *trace.Transcript) *trace.Transcript {
	d := *orig
	d.Trace = slices.Clone(orig.Trace)
	for i := range d.Trace {
		e := &d.Trace[i]
		code, ok := trace.ExitCode(e)
		e.IsError = e.IsError && trace.Builtin().CallOp(e.Tool, e.Input) == trace.OpExec && ok && code != 0
	}
	if orig.Output.Artifacts != nil {
		a := *orig.Output.Artifacts
		a.CommandResults = nil
		for _, c := range trace.Summarize(d.Trace, nil).Commands {
			if c.Command != "" {
				a.CommandResults = append(a.CommandResults, vouch.CommandResult{Command: c.Command, ExitCode: c.ExitCode})
			}
		}
		d.Output.Artifacts = &a
	}
	return &d
}

// same holds a transcript read back against the original.
func same(t *testing.T, orig, got *trace.Transcript, timestamps, ids bool) {
	t.Helper()
	if len(got.Trace) != len(orig.Trace) {
		t.Fatalf("%d entries, want %d", len(got.Trace), len(orig.Trace))
	}
	for i := range orig.Trace {
		o, g := &orig.Trace[i], &got.Trace[i]
		if (ids && o.ID != g.ID) || o.Tool != g.Tool || o.IsError != g.IsError || (o.Output == nil) != (g.Output == nil) || o.OutputText() != g.OutputText() {
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
