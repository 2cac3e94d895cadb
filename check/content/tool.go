package content

import (
	"context"
	"fmt"
	"slices"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
)

type toolParams struct {
	check.Common `json:",inline"`
	Tool         *string `json:"tool"`
}

// toolChecker passes when the tool was called.
//
// The trace is evidence and wins over claims: with a trace, the tool must
// appear in it (strict), and a tool the agent lists in output.toolCalls but
// that the trace lacks fails. Without a trace, output.toolCalls is all there
// is; it is only the agent's claim, so those outcomes carry
// vouch.StrengthLight in Outcome.Strength, and their evidence says the
// source was output.toolCalls.
type toolChecker struct {
	tool string
}

func newToolCalled(spec vouch.CheckSpec, _ check.Env) (vouch.Checker, error) {
	var p toolParams
	if err := check.DecodeParams(spec, &p); err != nil {
		return nil, err
	}
	if p.Tool == nil {
		return nil, check.Errorf("tool", "is required")
	}
	if *p.Tool == "" {
		return nil, check.Errorf("tool", "must not be empty")
	}
	return &toolChecker{tool: *p.Tool}, nil
}

// Check implements vouch.Checker.
func (c *toolChecker) Check(_ context.Context, s *vouch.Subject) vouch.Outcome {
	req := s.Request
	claimed := slices.Contains(req.Output.ToolCalls, c.tool)
	if len(req.Trace) > 0 {
		calls, errs := 0, 0
		for i := range req.Trace {
			if req.Trace[i].Tool == c.tool {
				calls++
				if req.Trace[i].IsError {
					errs++
				}
			}
		}
		ev := map[string]any{"tool": c.tool, "source": "trace", "traceEntries": len(req.Trace), "calls": calls}
		if calls == 0 {
			reason := fmt.Sprintf("tool %q does not appear in the trace", c.tool)
			if claimed {
				ev["claimed"] = true
				reason = fmt.Sprintf("tool %q is claimed in output.toolCalls but does not appear in the trace", c.tool)
			}
			return vouch.Fail(vouch.CodeToolNotCalled, reason, ev)
		}
		reason := fmt.Sprintf("tool %q was called %d times in the trace", c.tool, calls)
		if calls == 1 {
			reason = fmt.Sprintf("tool %q was called once in the trace", c.tool)
		}
		if errs > 0 {
			ev["errors"] = errs
			reason += fmt.Sprintf(" (%d with an error)", errs)
		}
		return vouch.Pass(reason, ev)
	}
	ev := map[string]any{"tool": c.tool, "source": "output.toolCalls"}
	var o vouch.Outcome
	if claimed {
		o = vouch.Pass(fmt.Sprintf("tool %q is listed in output.toolCalls (the agent's claim; there is no trace)", c.tool), ev)
	} else {
		o = vouch.Fail(vouch.CodeToolNotCalled,
			fmt.Sprintf("tool %q is neither in a trace (there is none) nor in output.toolCalls", c.tool), ev)
	}
	o.Strength = vouch.StrengthLight
	return o
}
