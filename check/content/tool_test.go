package content

import (
	"testing"

	"github.com/vouchgate/vouch"
)

func TestToolCalled(t *testing.T) {
	trace := []vouch.TraceEntry{
		{Tool: "fs:read"},
		{Tool: "web:search", IsError: true},
		{Tool: "web:search"},
	}
	req := func(trace []vouch.TraceEntry, claimed ...string) *vouch.Request {
		return &vouch.Request{Trace: trace, Output: vouch.Output{ToolCalls: claimed}}
	}
	const spec = `{"type":"tool_called","tool":"web:search"}`
	runCases(t, []tc{
		{name: "in trace", spec: spec, req: req(trace),
			status: vouch.StatusPass, reason: `tool "web:search" was called 2 times in the trace (1 with an error)`,
			evidence: map[string]any{"tool": "web:search", "source": "trace", "calls": 2, "errors": 1, "traceEntries": 3}},
		{name: "once in trace", spec: `{"type":"tool_called","tool":"fs:read"}`, req: req(trace),
			status: vouch.StatusPass, reason: `called once`},
		{name: "not in trace", spec: spec, req: req(trace[:1]),
			status: vouch.StatusFail, code: vouch.CodeToolNotCalled, reason: `tool "web:search" does not appear in the trace`,
			evidence: map[string]any{"calls": 0, "claimed": nil}},
		{name: "claimed but not in trace", spec: spec, req: req(trace[:1], "web:search"),
			status: vouch.StatusFail, code: vouch.CodeToolNotCalled, reason: "claimed in output.toolCalls but does not appear in the trace",
			evidence: map[string]any{"claimed": true, "source": "trace"}},
		{name: "claimed without trace is light", spec: spec, req: req(nil, "fs:read", "web:search"),
			status: vouch.StatusPass, strength: vouch.StrengthLight, reason: "the agent's claim",
			evidence: map[string]any{"source": "output.toolCalls", "strength": nil}},
		{name: "not claimed without trace is light", spec: spec, req: req(nil, "fs:read"),
			status: vouch.StatusFail, code: vouch.CodeToolNotCalled, strength: vouch.StrengthLight,
			evidence: map[string]any{"source": "output.toolCalls", "strength": nil}},
		{name: "nothing at all", spec: spec, req: req(nil),
			status: vouch.StatusFail, code: vouch.CodeToolNotCalled, strength: vouch.StrengthLight},
		{name: "exact name", spec: `{"type":"tool_called","tool":"web"}`, req: req(trace),
			status: vouch.StatusFail, code: vouch.CodeToolNotCalled},
	})
}

func TestToolCalledCompileErrors(t *testing.T) {
	runErrCases(t, []errCase{
		{name: "missing tool", spec: `{"type":"tool_called"}`, path: "tool", code: vouch.ErrCriterion, msg: "is required"},
		{name: "empty tool", spec: `{"type":"tool_called","tool":""}`, path: "tool", code: vouch.ErrCriterion},
		{name: "tool wrong type", spec: `{"type":"tool_called","tool":true}`, path: "tool", code: vouch.ErrType},
		{name: "no target", spec: `{"type":"tool_called","tool":"x","target":"a.md"}`, path: "target", code: vouch.ErrUnknownField},
		{name: "unknown parameter", spec: `{"type":"tool_called","tool":"x","bogus":1}`, path: "bogus", code: vouch.ErrUnknownField},
	})
}
