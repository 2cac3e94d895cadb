//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"
)

// run runs the command directly: on systems other than Linux only the
// temporary directories, the minimal environment, the output cap and the
// timeout hold.
func run(ctx context.Context, c Config, tmp string, env []string) (Result, error) {
	res := Result{ExitCode: -1, Confinement: Confinement{Network: "open",
		Notes: []string{"no supervisor, resource limits, Landlock or network isolation on this system"}}}
	if c.Network {
		res.Confinement.Network = "allowed"
	}
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Argv[0], c.Argv[1:]...)
	cmd.Dir, cmd.Env = c.Dir, env
	out, errb := &capped{max: c.MaxOutput}, &capped{max: c.MaxOutput}
	cmd.Stdout, cmd.Stderr = out, errb
	cmd.WaitDelay = time.Second
	start := time.Now()
	err := cmd.Run()
	res.Duration = time.Since(start)
	res.Stdout, res.Stderr = out.buf.String(), errb.buf.String()
	res.Truncated = out.dropped+errb.dropped > 0
	var ee *exec.ExitError
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		res.TimedOut = true
	case ctx.Err() != nil:
		res.Cancelled = true
	case errors.As(err, &ee):
		res.ExitCode = ee.ExitCode()
	case err != nil:
		return res, fmt.Errorf("sandbox: start %s: %w", c.Argv[0], err)
	default:
		res.ExitCode = 0
	}
	return res, nil
}

// chmodDir makes the directory at p writable by its owner.
func chmodDir(p string) { _ = os.Chmod(p, 0o700) }
