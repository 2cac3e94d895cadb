// Package runner decides which commands named in a request may run, and
// runs them. Nothing runs unless a rule of the policy's allow-list
// (commands.allow) matches its whole argv: the program, every flag and
// every argument (see [vouch.CommandRule]); without a shell unless the
// policy allows one; sandboxed (see package sandbox), in the workspace,
// with a timeout, an output cap and a minimal environment.
package runner

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/sandbox"
	"github.com/vouchgate/vouch/internal/secret"
)

// MaxOutput bounds the bytes of standard output and of standard error kept
// from one run; the rest is counted and dropped.
const MaxOutput = 64 << 10

// Errors of Split and Check. A command the allow-list does not name gives
// ErrNotAllowed; one it names with a flag or argument its rule does not
// permit gives a *vouch.RefusedError, which matches ErrRefused.
var (
	ErrShell      = errors.New("runner: the command uses shell syntax and the policy allows no shell")
	ErrNotAllowed = vouch.ErrCommandNotListed
	ErrRefused    = vouch.ErrCommandRefused
	ErrEmpty      = errors.New("runner: empty command")
	// ErrNoDir is a run without a directory to run in.
	ErrNoDir = sandbox.ErrNoDir
)

// shellChars are the characters that make a command line need a shell,
// outside quotes.
const shellChars = "|&;<>()$`\\\n*?[]{}~!#"

// A line is a command line read as the subset of the shell vouch accepts:
// stages of plain words joined by |, ||, && and ;, each stage with at most
// the redirect 2>&1. Words are unquoted, 'single-quoted' or
// "double-quoted"; anything else the shell would read (an expansion, an
// escape, a glob, a subshell, another redirect, a background &, a
// comment, a newline, and $, ` or \ inside double quotes) is refused, so
// the words vouch checks are exactly the words the shell would run.
type line struct {
	stages [][]string
	seps   []string // between stages
	merged []bool   // the stage redirects 2>&1
}

// parse reads s as a line, or gives ErrShell for anything outside the
// subset (see line) and ErrEmpty for a line without a word or a stage
// without one.
func parse(s string) (*line, error) {
	l := &line{}
	var (
		argv   []string
		cur    strings.Builder
		inWord bool
		merged bool
	)
	endWord := func() {
		if inWord {
			argv = append(argv, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	endStage := func(sep string) error {
		endWord()
		if len(argv) == 0 {
			return ErrEmpty
		}
		l.stages, l.merged = append(l.stages, argv), append(l.merged, merged)
		if sep != "" {
			l.seps = append(l.seps, sep)
		}
		argv, merged = nil, false
		return nil
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, ErrShell
			}
			cur.WriteString(s[i+1 : i+1+j])
			inWord, i = true, i+1+j
		case c == '"':
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 {
				return nil, ErrShell
			}
			q := s[i+1 : i+1+j]
			if strings.ContainsAny(q, "$`\\") {
				return nil, ErrShell // expanded or escaped by the shell
			}
			cur.WriteString(q)
			inWord, i = true, i+1+j
		case c == ' ' || c == '\t':
			endWord()
		case strings.HasPrefix(s[i:], "2>&1") && !inWord && (i+4 == len(s) || strings.IndexByte(" \t|&;", s[i+4]) >= 0):
			merged, i = true, i+3
		case strings.HasPrefix(s[i:], "&&") || strings.HasPrefix(s[i:], "||"):
			if err := endStage(s[i : i+2]); err != nil {
				return nil, err
			}
			i++
		case c == '|' || c == ';':
			if err := endStage(string(c)); err != nil {
				return nil, err
			}
		case strings.IndexByte(shellChars, c) >= 0 || c == '\r' || c == 0:
			return nil, ErrShell
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if err := endStage(""); err != nil {
		if len(l.stages) == 0 {
			return nil, ErrEmpty
		}
		return nil, ErrShell // a line that ends with a separator
	}
	return l, nil
}

// shellLine writes the line back for sh -c from its checked words, each
// single-quoted: the shell runs those words and nothing else.
func (l *line) shellLine() string {
	var b strings.Builder
	for k, argv := range l.stages {
		if k > 0 {
			b.WriteString(" " + l.seps[k-1] + " ")
		}
		for i, a := range argv {
			if i > 0 {
				b.WriteByte(' ')
			}
			// A single quote cannot be inside single quotes: it goes in
			// double quotes of its own ('it'"'"'s').
			b.WriteString("'" + strings.ReplaceAll(a, "'", `'"'"'`) + "'")
		}
		if l.merged[k] {
			b.WriteString(" 2>&1")
		}
	}
	return b.String()
}

// Split turns a command line into argv: words split on blanks, single and
// double quotes grouping. A line the shell would read as more than plain
// words (see line) gives ErrShell.
func Split(s string) ([]string, error) {
	l, err := parse(s)
	if err != nil {
		return nil, err
	}
	if len(l.stages) != 1 || l.merged[0] {
		return nil, ErrShell
	}
	return l.stages[0], nil
}

// Allowed returns nil when a rule of the policy's allow-list matches argv
// whole, ErrNotAllowed when no rule names its program, else the refusal
// of the first rule that names it (matching ErrRefused).
func Allowed(p *vouch.Policy, argv []string) error {
	var refused error
	for _, r := range p.Commands.Allow {
		switch err := r.Match(argv); {
		case err == nil:
			return nil
		case refused == nil && errors.Is(err, ErrRefused):
			refused = err
		}
	}
	if refused != nil {
		return refused
	}
	return ErrNotAllowed
}

// Check decides whether a command may run under the policy (see
// [Allowed]). A command given as argv runs as it is; a command line is
// read by [Split]. A line with more than one stage (|, ||, &&, ;) or with
// 2>&1 runs under sh -c only when the policy allows a shell, and then only
// if every stage is allowed on its own: "go test ./... 2>&1 | tail -5"
// needs both go test and tail on the allow-list. What sh runs is the line
// rebuilt from the words that were checked, each quoted; any other shell
// syntax (an expansion, an escape, a glob, another redirect) is refused.
func Check(p *vouch.Policy, argv []string, cmdline string) (run []string, err error) {
	if argv == nil {
		l, err := parse(cmdline)
		if err != nil {
			return nil, err
		}
		if len(l.stages) > 1 || l.merged[0] {
			if !p.Commands.Shell {
				return nil, ErrShell
			}
			for _, st := range l.stages {
				if err := allowedArgv(p, st); err != nil {
					return nil, err
				}
			}
			return []string{"sh", "-c", l.shellLine()}, nil
		}
		argv = l.stages[0]
	}
	if err := allowedArgv(p, argv); err != nil {
		return nil, err
	}
	return argv, nil
}

// allowedArgv checks one argv: not empty, no NUL or newline, allowed.
func allowedArgv(p *vouch.Policy, argv []string) error {
	if len(argv) == 0 {
		return ErrEmpty
	}
	for _, a := range argv {
		if strings.ContainsAny(a, "\n\x00") {
			return ErrShell
		}
	}
	return Allowed(p, argv)
}

// stageSep turns the separators of a pipeline or command list into ";".
var stageSep = strings.NewReplacer("&&", ";", "||", ";", "|", ";", "\n", ";")

// Stages splits a shell line at |, ||, &&, ; and newlines. It does not
// track quotes: a separator inside quotes splits too, which only ever makes
// a stage shorter, never hides one.
func Stages(line string) []string {
	return strings.FieldsFunc(stageSep.Replace(line), func(r rune) bool { return r == ';' })
}

// Result is the outcome of one run (see [sandbox.Result]).
type Result = sandbox.Result

// Run runs argv, which [Check] allowed, in the workspace dir under the
// policy's commands settings: its timeout, resource limits, environment,
// writable directories and network, in the sandbox. dir is the name a
// child process is given to start in, [vouch.Subject.Dir] for a
// verification's workspace (the directory that was opened, whatever its
// path has become); an empty dir is refused, never taken as vouch's own
// working directory. It returns an error only when the command could not
// start; a non-zero exit, a signal, a timeout or a cancellation is in the
// Result. Output is capped at MaxOutput bytes a stream, and scrubbed of
// the secrets of vouch's own environment.
func Run(ctx context.Context, dir string, argv []string, p *vouch.Policy) (Result, error) {
	if len(argv) == 0 {
		return Result{}, ErrEmpty
	}
	if dir == "" {
		return Result{}, ErrNoDir
	}
	c := p.Commands
	res, err := sandbox.Run(ctx, sandbox.Config{
		Argv:    argv,
		Dir:     dir,
		Env:     c.Env,
		Timeout: time.Duration(c.Timeout),
		Limits: sandbox.Limits{CPU: time.Duration(c.Limits.CPU), MemoryBytes: c.Limits.MemoryBytes,
			FileBytes: c.Limits.FileBytes, Processes: c.Limits.Processes},
		Writable:  c.Writable,
		Network:   c.Network,
		MaxOutput: MaxOutput,
	})
	if secrets := secret.Secrets(); len(secrets) > 0 {
		res.Stdout, res.Stderr = secret.Redact(res.Stdout, secrets), secret.Redact(res.Stderr, secrets)
	}
	return res, err
}

// Describe says why a run cannot decide anything, with its code: it timed
// out or was cancelled (COMMAND_TIMED_OUT), or was killed at a resource
// limit (COMMAND_KILLED). It returns "" for a run that exited or crashed
// on its own (a segmentation fault is the code's failure).
func Describe(res Result, timeout time.Duration) (code, why string) {
	switch {
	case res.TimedOut:
		return vouch.CodeCommandTimedOut, "did not finish within " + timeout.String()
	case res.Cancelled:
		return vouch.CodeCommandTimedOut, "was cancelled (the verification's deadline)"
	case res.Signal == "killed" || strings.HasSuffix(res.Signal, "limit exceeded"):
		return vouch.CodeCommandKilled, "was killed at a resource limit: " + res.Signal
	}
	return "", ""
}

// Tail returns the end of a run's output, where runners print their
// summaries, for a report's evidence.
func Tail(res Result) string {
	const n = 600
	s := res.Stdout + res.Stderr
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

// Reason says in words why Check refused a command, for a report.
func Reason(err error) string {
	var re *vouch.RefusedError
	switch {
	case errors.As(err, &re):
		return "the allow-list names it, but not all of it: " + re.Error()
	case errors.Is(err, ErrNotAllowed):
		return "it is not on the policy's allow-list (commands.allow)"
	case errors.Is(err, ErrShell):
		return "it needs a shell and the policy allows none (commands.shell)"
	}
	return err.Error()
}

// Sandboxed returns the evidence of how a run was confined.
func Sandboxed(res Result) map[string]any {
	c := res.Confinement
	ev := map[string]any{"supervised": c.Supervised, "pidNamespace": c.PIDNamespace, "limits": c.Limits, "landlock": c.Landlock, "network": c.Network}
	if len(c.Notes) > 0 {
		ev["notes"] = c.Notes
	}
	return ev
}

// environmentFailures are what a run prints when the sandbox, not the
// code under test, stopped it: a download the network isolation refused.
var environmentFailures = []string{
	"GOPROXY=off", "module lookup disabled", "network is unreachable", "no such host",
	"Temporary failure in name resolution", "getaddrinfo", "EAI_AGAIN", "ENOTFOUND",
	"Could not resolve host", "Failed to establish a new connection",
}

// EnvironmentFailure returns the line of the run's output that shows the
// sandbox stopped it (it needed the network), or "".
func EnvironmentFailure(res Result) string {
	for _, out := range []string{res.Stderr, res.Stdout} {
		for _, w := range environmentFailures {
			if i := strings.Index(out, w); i >= 0 {
				lo := strings.LastIndexByte(out[:i], '\n') + 1
				hi := strings.IndexByte(out[i:], '\n')
				if hi < 0 {
					hi = len(out) - i
				}
				return strings.TrimSpace(out[lo : i+hi])
			}
		}
	}
	return ""
}
