package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// defaultTimeout bounds one Read or Snapshot, all its git processes
// together.
const defaultTimeout = 30 * time.Second

// runner runs git for Read, Snapshot and Cache.
type runner struct {
	// hook, when set, is called with the arguments of each git process
	// before it starts (tests count invocations with it). It may be called
	// concurrently.
	hook func(args []string)
}

var defaultRunner = &runner{}

// minGit is the oldest git that honours everything env sets
// (GIT_CONFIG_COUNT came in 2.31, GIT_CONFIG_GLOBAL in 2.32): with an older
// one the overrides that keep the workspace's configuration from running
// programs would be silently ignored.
var minGit = [2]int{2, 32}

// lookGit finds the git binary and checks its version, once per process.
var lookGit = sync.OnceValues(func() (string, error) {
	p, err := exec.LookPath("git")
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoGit, err)
	}
	cmd := exec.Command(p, "version")
	cmd.Env = env(nil)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git: git version: %w", err)
	}
	if v, ok := parseVersion(string(out)); !ok || v[0] < minGit[0] || v[0] == minGit[0] && v[1] < minGit[1] {
		return "", fmt.Errorf("git: %s is not supported: vouch needs git %d.%d or later",
			strings.TrimSpace(string(out)), minGit[0], minGit[1])
	}
	return p, nil
})

// parseVersion reads major and minor from "git version 2.39.5" (or
// "git version 2.45.1.windows.1").
func parseVersion(s string) ([2]int, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), "git version ")
	if !ok {
		return [2]int{}, false
	}
	parts := strings.SplitN(rest, ".", 3)
	if len(parts) < 2 {
		return [2]int{}, false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	return [2]int{major, minor}, err1 == nil && err2 == nil
}

// kv is one configuration override.
type kv struct{ key, value string }

// baseConfig is the configuration every git process gets. It is passed
// through GIT_CONFIG_COUNT/KEY/VALUE rather than -c, so a key is never split
// at an "=" it contains. Command-line configuration wins over the
// repository's (and over what it includes, and over a worktree's), and git
// hands it on to the git processes it starts itself.
//
// Of the settings through which the workspace could name a program:
// core.fsmonitor is switched off and core.hooksPath points where no hook can
// be (a "git diff <commit>" that refreshes the index writes it and fires
// post-index-change, even with GIT_OPTIONAL_LOCKS=0). The credential helpers
// and the askpass program, reached only through a network transport (a
// partial clone's lazy fetch), are emptied as a second line behind the
// transport ban in env; an empty credential.helper resets the list.
var baseConfig = []kv{
	{"core.quotePath", "false"},
	{"core.pager", "cat"},
	{"color.ui", "false"},
	{"core.fsmonitor", "false"},
	{"core.hooksPath", os.DevNull},
	{"credential.helper", ""},
	{"core.askPass", ""},
	{"diff.noprefix", "false"},
	{"diff.mnemonicPrefix", "false"},
	{"diff.relative", "false"},
	{"diff.autoRefreshIndex", "true"},
	{"diff.submodule", "short"},
	{"protocol.allow", "never"},
	{"gc.auto", "0"},
	{"maintenance.auto", "false"},
}

// env returns the environment of a git process: nothing inherited but PATH
// (and what Windows needs to start a process), plus cfg as configuration.
// In particular no GIT_DIR, GIT_INDEX_FILE or GIT_WORK_TREE of a hook vouch
// may be running in, and no GIT_TRACE or GIT_EXTERNAL_DIFF.
func env(cfg []kv) []string {
	e := []string{
		"PATH=" + os.Getenv("PATH"),
		// A home where nothing can be: no ~/.config/git/ignore or
		// attributes is read, and "~/x" in the repository's config still
		// expands (git dies on "~" when HOME is unset).
		"HOME=" + os.DevNull,
		"LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + os.DevNull,
		"GIT_TERMINAL_PROMPT=0",
		"GIT_OPTIONAL_LOCKS=0",
		"GIT_PAGER=cat",
		"PAGER=cat",
		"GIT_NO_REPLACE_OBJECTS=1",
		// A partial clone missing an object would fetch it from its
		// promisor remote, through ssh (core.sshCommand), a remote helper
		// (remote.<name>.vcs, which git runs as a path relative to the
		// workspace when it holds a slash) or ext::. Gits from 2.39.4 do
		// not try; every git refuses each transport, helpers included,
		// before it connects or starts anything, as none is allowed.
		"GIT_NO_LAZY_FETCH=1",
		"GIT_ALLOW_PROTOCOL=none",
		"GIT_PROTOCOL_FROM_USER=0",
	}
	if runtime.GOOS == "windows" {
		for _, k := range []string{"SYSTEMROOT", "TEMP", "TMP"} {
			if v, ok := os.LookupEnv(k); ok {
				e = append(e, k+"="+v)
			}
		}
	}
	all := append(baseConfig[:len(baseConfig):len(baseConfig)], cfg...)
	e = append(e, "GIT_CONFIG_COUNT="+strconv.Itoa(len(all)))
	for i, c := range all {
		n := strconv.Itoa(i)
		e = append(e, "GIT_CONFIG_KEY_"+n+"="+c.key, "GIT_CONFIG_VALUE_"+n+"="+c.value)
	}
	return e
}

// gitError is a git process that failed.
type gitError struct {
	args   []string
	code   int    // exit code, -1 when git did not exit normally
	stderr string // trimmed, bounded
	err    error
}

func (e *gitError) Error() string {
	var b strings.Builder
	b.WriteString("git: ")
	b.WriteString(subcommand(e.args))
	b.WriteString(": ")
	b.WriteString(e.err.Error())
	if e.stderr != "" {
		b.WriteString(": ")
		b.WriteString(e.stderr)
	}
	return b.String()
}

func (e *gitError) Unwrap() error { return e.err }

// exitCode returns the exit code of a failed git process, or -1.
func exitCode(err error) int {
	var ge *gitError
	if errors.As(err, &ge) {
		return ge.code
	}
	return -1
}

// subcommand names a git invocation by its subcommand for messages.
func subcommand(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return "git " + a
		}
	}
	return "git"
}

// invocation is one git process to run.
type invocation struct {
	dir   string
	cfg   []kv
	stdin string
	args  []string
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// stream runs git and hands its standard output to read as it comes. When
// read returns an error the process is stopped. When git itself exits with
// an error, that error wins over the error of read (a parse error of
// truncated output says less than git's own message).
func (r *runner) stream(ctx context.Context, in invocation, read func(io.Reader) error) error {
	bin, err := lookGit()
	if err != nil {
		return err
	}
	if r.hook != nil {
		r.hook(in.args)
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(cctx, bin, in.args...)
	cmd.Dir = in.dir
	cmd.Env = env(in.cfg)
	cmd.WaitDelay = time.Second
	if in.stdin != "" {
		cmd.Stdin = strings.NewReader(in.stdin)
	}
	stderr := &limitedBuffer{max: 4 << 10}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("git: %s: %w", subcommand(in.args), err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git: %s: %w", subcommand(in.args), err)
	}
	rerr := read(out)
	if rerr != nil {
		cancel()
	}
	_, _ = io.Copy(io.Discard, out)
	werr := cmd.Wait()
	if werr == nil {
		return rerr
	}
	code := -1
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		code = ee.ExitCode()
	}
	if code < 0 {
		if rerr != nil {
			return rerr // stopped because read failed
		}
		if ctx.Err() != nil {
			werr = context.Cause(ctx) // killed at the caller's deadline or cancel
		}
	}
	return &gitError{args: in.args, code: code, stderr: firstLines(stderr.String()), err: werr}
}

// output runs git and returns its standard output.
func (r *runner) output(ctx context.Context, in invocation) ([]byte, error) {
	var out []byte
	err := r.stream(ctx, in, func(rd io.Reader) error {
		var err error
		out, err = io.ReadAll(rd)
		return err
	})
	return out, err
}

// firstLines trims git's standard error to its first two lines.
func firstLines(s string) string {
	s = strings.TrimSpace(s)
	lines := strings.SplitN(s, "\n", 3)
	if len(lines) > 2 {
		lines = lines[:2]
	}
	return strings.Join(lines, "; ")
}

// splitNUL splits -z output into its NUL-terminated fields.
func splitNUL(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	s := strings.TrimSuffix(string(b), "\x00")
	return strings.Split(s, "\x00")
}

// parallel runs fns concurrently and returns the first error any returned;
// the first error cancels the context the others run under.
func parallel(ctx context.Context, fns ...func(context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for _, fn := range fns {
		if fn == nil {
			continue
		}
		wg.Go(func() {
			if err := fn(ctx); err != nil {
				once.Do(func() { first = err })
				cancel()
			}
		})
	}
	wg.Wait()
	return first
}
