//go:build vouchfault

// Package fault registers the check kind "fault", which fails on
// purpose: it panics, or ends the process, when a request's criterion
// names it. It exists for the failure tests of the job queue (a poison
// request, a worker that dies), and is compiled only into binaries built
// with the build tag vouchfault; a release binary has no such check.
package fault

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
)

func init() {
	check.Register(check.Type{
		Name:     "fault",
		Strength: vouch.StrengthStrict,
		New:      newFault,
		Params:   "{panic, exit}",
		Doc:      "Fails on purpose, for failure tests: panics with the message panic, or ends the process with status exit.",
	})
}

type params struct {
	Panic string `json:"panic"`
	Exit  int    `json:"exit"`
}

func newFault(spec vouch.CheckSpec, _ check.Env) (vouch.Checker, error) {
	var p params
	if err := json.Unmarshal(spec.Raw, &p); err != nil {
		return nil, fmt.Errorf("fault: %w", err)
	}
	return fault(p), nil
}

type fault params

// Check implements vouch.Checker: it does what its parameters say.
func (f fault) Check(context.Context, *vouch.Subject) vouch.Outcome {
	if f.Exit != 0 {
		os.Exit(f.Exit)
	}
	if f.Panic != "" {
		panic(f.Panic)
	}
	return vouch.Outcome{Status: vouch.StatusPass, Score: 1}
}
