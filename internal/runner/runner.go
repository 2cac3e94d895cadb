// Package runner runs commands named in a request, and only those the
// policy allow-lists: matched on leading argv tokens, without a shell unless
// the policy allows one, in the workspace, with a timeout, an output cap and
// a minimal environment. Nothing from a request runs by default.
package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/vouchgate/vouch"
)

// MaxOutput bounds the bytes of standard output and of standard error kept
// from one run; the rest is counted and dropped.
const MaxOutput = 64 << 10

// Errors of Split and Check.
var (
	ErrShell      = errors.New("runner: the command uses shell syntax and the policy allows no shell")
	ErrNotAllowed = errors.New("runner: the command is not on the policy's allow-list")
	ErrEmpty      = errors.New("runner: empty command")
)

// shellChars are the characters that make a command line need a shell.
const shellChars = "|&;<>()$`\\\n*?[]{}~!#"

// Split turns a command line into argv: words split on blanks, single and
// double quotes grouping (without escapes inside). A line with any shell
// syntax outside quotes gives ErrShell.
func Split(line string) ([]string, error) {
	var argv []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				argv = append(argv, cur.String())
				cur.Reset()
				inWord = false
			}
		case strings.ContainsRune(shellChars, r):
			return nil, ErrShell
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, ErrShell
	}
	if inWord {
		argv = append(argv, cur.String())
	}
	if len(argv) == 0 {
		return nil, ErrEmpty
	}
	return argv, nil
}

// Allowed reports whether argv's leading tokens match an entry of the
// allow-list.
func Allowed(p *vouch.Policy, argv []string) bool {
	for _, prefix := range p.Commands.Allow {
		if len(prefix) > 0 && len(argv) >= len(prefix) {
			ok := true
			for i := range prefix {
				ok = ok && argv[i] == prefix[i]
			}
			if ok {
				return true
			}
		}
	}
	return false
}

// Check decides whether a command may run under the policy. A command given
// as argv runs as it is; a command line is split by [Split]. A line with
// shell syntax runs under sh -c only when the policy allows a shell, and
// then only if every stage of its pipeline (split at |, ||, && and ;) is
// allowed on its own, it redirects nothing but 2>&1, and it substitutes no
// commands: "go test ./... 2>&1 | tail -5" needs both go test and tail on
// the allow-list.
func Check(p *vouch.Policy, argv []string, line string) (run []string, err error) {
	if argv == nil {
		argv, err = Split(line)
		if errors.Is(err, ErrShell) && p.Commands.Shell {
			if err := checkStages(p, line); err != nil {
				return nil, err
			}
			return []string{"sh", "-c", line}, nil
		}
		if err != nil {
			return nil, err
		}
	}
	if len(argv) == 0 {
		return nil, ErrEmpty
	}
	for _, a := range argv {
		if strings.ContainsAny(a, "\n\x00") {
			return nil, ErrShell
		}
	}
	if !Allowed(p, argv) {
		return nil, ErrNotAllowed
	}
	return argv, nil
}

// stageSep turns the separators of a pipeline or command list into ";".
var stageSep = strings.NewReplacer("&&", ";", "||", ";", "|", ";", "\n", ";")

// Stages splits a shell line at |, ||, &&, ; and newlines. It does not
// track quotes: a separator inside quotes splits too, which only ever makes
// a stage shorter, never hides one.
func Stages(line string) []string {
	return strings.FieldsFunc(stageSep.Replace(line), func(r rune) bool { return r == ';' })
}

// checkStages allows a shell line whose every stage is allowed.
func checkStages(p *vouch.Policy, line string) error {
	for _, bad := range []string{"`", "$(", "<(", ">(", "\n"} {
		if strings.Contains(line, bad) {
			return ErrShell
		}
	}
	stages := Stages(strings.ReplaceAll(line, "2>&1", " "))
	if len(stages) == 0 {
		return ErrEmpty
	}
	for _, st := range stages {
		argv, err := Split(st)
		if err != nil {
			return err
		}
		if !Allowed(p, argv) {
			return ErrNotAllowed
		}
	}
	return nil
}

// Result is the outcome of one run.
type Result struct {
	ExitCode  int
	Stdout    string
	Stderr    string
	TimedOut  bool
	Truncated bool
	Duration  time.Duration
}

// Run runs argv in dir with a minimal environment (PATH, HOME set to dir,
// LANG=C, CI=true, NO_COLOR=1), no standard input, the timeout and the
// output cap. It returns an error only when the command could not start;
// a non-zero exit or a timeout is in the Result.
func Run(ctx context.Context, dir string, argv []string, timeout time.Duration) (Result, error) {
	if len(argv) == 0 {
		return Result{}, ErrEmpty
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LANG=C", "LC_ALL=C", "CI=true", "NO_COLOR=1", "TERM=dumb"}
	cmd.Stdin = nil
	var out, errb capped
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = time.Second
	start := time.Now()
	err := cmd.Run()
	res := Result{Stdout: out.String(), Stderr: errb.String(), Truncated: out.dropped+errb.dropped > 0, Duration: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		res.TimedOut, res.ExitCode = true, -1
	case errors.As(err, &ee):
		res.ExitCode = ee.ExitCode()
	case err != nil:
		return res, fmt.Errorf("runner: start %s: %w", argv[0], err)
	}
	return res, nil
}

// capped keeps the first MaxOutput bytes written to it.
type capped struct {
	buf     bytes.Buffer
	dropped int
}

func (c *capped) Write(p []byte) (int, error) {
	n := len(p)
	room := MaxOutput - c.buf.Len()
	if room < len(p) {
		c.dropped += len(p) - max(room, 0)
		p = p[:max(room, 0)]
	}
	c.buf.Write(p)
	return n, nil
}

func (c *capped) String() string { return c.buf.String() }
