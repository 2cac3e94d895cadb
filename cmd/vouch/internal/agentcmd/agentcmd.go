// Package agentcmd runs an agent that is a command, for vouch run: it
// hands the agent its prompt, bounds the run by a timeout (the agent and
// everything it started are killed together), and reads what the agent
// claims it did from the result the command leaves.
//
// The agent is the operator's own program, named on vouch's command line,
// so it runs as the operator, not in the re-run sandbox; what it prints is
// still untrusted text, read through size limits.
package agentcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/jail"
	"github.com/vouchgate/vouch/trace/claudecode"
	"github.com/vouchgate/vouch/wire"
)

// PromptPlaceholder in an argument is replaced by the prompt.
const PromptPlaceholder = "{prompt}"

// How the agent's result is read.
const (
	// ResultStdout: the agent's standard output is its summary.
	ResultStdout = "stdout"
	// ResultClaude: the standard output is a Claude Code stream-json
	// transcript (claude -p --output-format stream-json --verbose), read as
	// a session log: claims from its final report, evidence from its tool
	// calls.
	ResultClaude = "claude"
	// ResultRequest: the agent writes a request (JSON or YAML) to a file;
	// its output and trace are read, nothing else.
	ResultRequest = "request"
)

// MaxOutputBytes caps what is read of the agent's standard output and of a
// result file.
const MaxOutputBytes = 32 << 20

// Command is an agent to run.
type Command struct {
	// Argv is the program and its arguments; "{prompt}" in an argument is
	// replaced by the prompt.
	Argv []string
	// Dir is the working directory (the workspace).
	Dir string
	// Stdin hands the prompt on standard input (else stdin is empty).
	Stdin bool
	// Result is how the result is read: ResultStdout (default),
	// ResultClaude or ResultRequest.
	Result string
	// ResultFile is the file, relative to Dir, that ResultRequest reads.
	ResultFile string
	// Timeout bounds one run; 0 means only the context bounds it.
	Timeout time.Duration
	// Env is added to vouch's own environment.
	Env []string
	// Stderr receives the agent's standard error (discarded when nil).
	Stderr io.Writer
}

// Result is one run of the agent.
type Result struct {
	// Output and Trace are what the agent claimed and what its log shows.
	Output vouch.Output
	Trace  []vouch.TraceEntry
	// ExitCode is the agent's exit status; -1 when it was killed.
	ExitCode int
	// TimedOut is set when the run was killed at its timeout.
	TimedOut bool
	Duration time.Duration
}

// ErrTimedOut is wrapped by Run's error when the agent ran past its
// timeout.
var ErrTimedOut = errors.New("agent timed out")

// Run runs the agent once with prompt and reads its result. An agent that
// exits non-zero still has a result (its summary may say why); one that
// times out, cannot start, or leaves no readable result is an error.
func (c *Command) Run(ctx context.Context, prompt string, attempt int) (*Result, error) {
	if len(c.Argv) == 0 {
		return nil, errors.New("agent: no command")
	}
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	argv := make([]string, len(c.Argv))
	for i, a := range c.Argv {
		argv[i] = strings.ReplaceAll(a, PromptPlaceholder, prompt)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), c.Env...)
	cmd.Env = append(cmd.Env, "VOUCH_PROMPT="+prompt, fmt.Sprintf("VOUCH_ATTEMPT=%d", attempt))
	if c.Stdin {
		cmd.Stdin = strings.NewReader(prompt)
	}
	var stdout limitedBuffer
	stdout.max = MaxOutputBytes
	cmd.Stdout = &stdout
	if c.Stderr != nil {
		cmd.Stderr = c.Stderr
	}
	group(cmd)
	// Pipes a killed agent's children hold open must not keep Wait.
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	runErr := cmd.Run()
	res := &Result{ExitCode: -1, Duration: time.Since(start)}
	if cmd.ProcessState != nil {
		res.ExitCode = cmd.ProcessState.ExitCode()
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		res.TimedOut = true
		return res, fmt.Errorf("%w after %s", ErrTimedOut, c.Timeout)
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	var exitErr *exec.ExitError
	if runErr != nil && !errors.As(runErr, &exitErr) {
		return res, fmt.Errorf("agent: %w", runErr)
	}
	if err := c.read(res, stdout.Bytes(), stdout.over); err != nil {
		return res, err
	}
	return res, nil
}

// read fills res from the agent's result.
func (c *Command) read(res *Result, stdout []byte, over bool) error {
	switch c.Result {
	case "", ResultStdout:
		if over {
			return fmt.Errorf("agent: its output is over %d bytes", MaxOutputBytes)
		}
		res.Output.Summary = strings.TrimSpace(string(stdout))
	case ResultClaude:
		if over {
			return fmt.Errorf("agent: its transcript is over %d bytes", MaxOutputBytes)
		}
		t, err := claudecode.Read(bytes.NewReader(stdout))
		if err != nil {
			return fmt.Errorf("agent: reading its Claude Code transcript: %w", err)
		}
		res.Output, res.Trace = t.Output, t.Trace
	case ResultRequest:
		data, err := c.readResultFile()
		if err != nil {
			return err
		}
		req, err := wire.DecodeRequest(data, wire.Options{Name: c.ResultFile})
		if err != nil {
			return fmt.Errorf("agent: its result file: %w", err)
		}
		res.Output, res.Trace = req.Output, req.Trace
	default:
		return fmt.Errorf("agent: unknown result kind %q (want stdout, claude or request)", c.Result)
	}
	return nil
}

// readResultFile reads the result file inside Dir, never through a path or
// a symlink out of it, and as package jail opens what an agent controls:
// without blocking, so that a FIFO the agent left there is refused at once
// instead of hanging the run, and only a regular file.
func (c *Command) readResultFile() ([]byte, error) {
	if c.ResultFile == "" {
		return nil, errors.New("agent: no result file named")
	}
	dir := c.Dir
	if dir == "" {
		dir = "."
	}
	root, err := jail.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	defer root.Close()
	data, err := jail.ReadFile(root, filepath.Clean(c.ResultFile), MaxOutputBytes)
	switch {
	case errors.Is(err, jail.ErrNotRegular):
		return nil, fmt.Errorf("agent: its result file %s is not a regular file", c.ResultFile)
	case errors.Is(err, jail.ErrTooLarge):
		return nil, fmt.Errorf("agent: its result file is over %d bytes", MaxOutputBytes)
	case err != nil:
		return nil, fmt.Errorf("agent: its result file: %w", err)
	}
	return data, nil
}

// limitedBuffer keeps the first max bytes written and notes the rest, so
// an agent that prints without end neither blocks nor fills memory.
// It has no ReadFrom, so that exec copies through Write.
type limitedBuffer struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room < len(p) {
		b.over = true
		if room > 0 {
			b.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return b.buf.Write(p)
}

// Bytes returns what was kept.
func (b *limitedBuffer) Bytes() []byte { return b.buf.Bytes() }
