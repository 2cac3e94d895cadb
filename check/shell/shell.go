// Package shell holds the command check kind: a criterion decided by
// running a command in the workspace. Only commands the policy allow-lists
// run (see package runner); any other stays undecided.
package shell

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/internal/runner"
)

func init() {
	check.Register(check.Type{
		Name:     "command",
		Strength: vouch.StrengthStrict,
		New:      newCommand,
		Params:   "{run: [argv...], expectExit}",
		Doc:      "The command, run in the workspace if the policy allow-lists it, exits with expectExit (default 0).",
	})
}

type commandParams struct {
	check.Common `json:",inline"`
	Run          []string `json:"run"`
	ExpectExit   *int     `json:"expectExit,omitempty"`
}

type commandChecker struct {
	argv   []string
	expect int
}

func newCommand(spec vouch.CheckSpec, _ check.Env) (vouch.Checker, error) {
	var p commandParams
	if err := check.DecodeParams(spec, &p); err != nil {
		return nil, err
	}
	if len(p.Run) == 0 {
		return nil, check.Errorf("run", "is required: the command as an argv list, e.g. [\"go\", \"test\", \"./...\"]")
	}
	for i, a := range p.Run {
		if a == "" && i == 0 {
			return nil, check.Errorf("run[0]", "must name the program")
		}
	}
	c := &commandChecker{argv: p.Run}
	if p.ExpectExit != nil {
		c.expect = *p.ExpectExit
	}
	return c, nil
}

// Check implements vouch.Checker.
func (c *commandChecker) Check(ctx context.Context, s *vouch.Subject) vouch.Outcome {
	cmd := strings.Join(c.argv, " ")
	ev := map[string]any{"command": c.argv, "expectExit": c.expect}
	argv, err := runner.Check(s.Policy, c.argv, "")
	if err != nil {
		o := vouch.Undecided(vouch.CodeCommandNotAllowed, fmt.Sprintf("%q does not run: %s", cmd, runner.Reason(err)))
		o.Evidence = ev
		return o
	}
	if s.Workspace == nil {
		return vouch.Undecided(vouch.CodeNoWorkspace, fmt.Sprintf("%q needs a workspace to run in", cmd))
	}
	timeout := time.Duration(s.Policy.Commands.Timeout)
	res, err := runner.Run(ctx, s.Dir(), argv, s.Policy)
	s.MarkRan()
	if err != nil {
		o := vouch.Undecided(vouch.CodeCheckUnavailable, fmt.Sprintf("%q could not start: %v", cmd, err))
		o.Evidence = ev
		return o
	}
	ev["exitCode"], ev["durationMs"] = res.ExitCode, res.Duration.Milliseconds()
	ev["output"] = runner.Tail(res)
	ev["sandbox"] = runner.Sandboxed(res)
	if code, why := runner.Describe(res, timeout); why != "" {
		o := vouch.Undecided(code, fmt.Sprintf("%q %s", cmd, why))
		o.Evidence = ev
		return o
	}
	if line := runner.EnvironmentFailure(res); line != "" && res.ExitCode != c.expect {
		o := vouch.Undecided(vouch.CodeCheckUnavailable, fmt.Sprintf("%q failed for want of the network, which the sandbox denies: %s", cmd, line))
		o.Evidence = ev
		return o
	}
	if res.ExitCode != c.expect {
		return vouch.Fail(vouch.CodeCommandFailed, fmt.Sprintf("%q exited %d, want %d", cmd, res.ExitCode, c.expect), ev)
	}
	return vouch.Pass(fmt.Sprintf("%q exited %d", cmd, res.ExitCode), ev)
}
