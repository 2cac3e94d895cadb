package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vouchgate/vouch"
)

func TestSplit(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
		err  error
	}{
		{"go test ./...", []string{"go", "test", "./..."}, nil},
		{`npm  run "unit tests"`, []string{"npm", "run", "unit tests"}, nil},
		{`echo 'a b'c`, []string{"echo", "a bc"}, nil},
		{"go test ./... && rm -rf /", nil, ErrShell},
		{"go test $(whoami)", nil, ErrShell},
		{"go test > out", nil, ErrShell},
		{`go test "a\b"`, nil, ErrShell},
		{`go test "$x"`, nil, ErrShell},
		{"go test ./... 2>&1", nil, ErrShell},
		{"ls *.go", nil, ErrShell},
		{`echo "open`, nil, ErrShell},
		{"   ", nil, ErrEmpty},
	} {
		got, err := Split(tt.in)
		if !errors.Is(err, tt.err) || strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("Split(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestCheck(t *testing.T) {
	p := vouch.DefaultPolicy()
	if _, err := Check(&p, []string{"go", "test"}, ""); !errors.Is(err, ErrNotAllowed) {
		t.Errorf("default policy let a command run: %v", err)
	}
	p.Commands.Allow = []vouch.CommandRule{vouch.NewCommandRule("go", "test"), vouch.NewCommandRule("true")}
	for _, tt := range []struct {
		argv []string
		line string
		err  error
	}{
		{[]string{"go", "test", "./..."}, "", nil},
		{[]string{"go", "testx"}, "", ErrNotAllowed},
		{[]string{"go"}, "", ErrNotAllowed},
		{[]string{"go", "vet"}, "", ErrNotAllowed},
		{nil, "go test ./pkg", nil},
		{nil, "go test ./... ; rm -rf /", ErrShell},
		{nil, "rm -rf /", ErrNotAllowed},
		{nil, "go test -v ./...", ErrRefused},
	} {
		if _, err := Check(&p, tt.argv, tt.line); !errors.Is(err, tt.err) {
			t.Errorf("Check(%q, %q) = %v, want %v", tt.argv, tt.line, err, tt.err)
		}
	}
	p.Commands.Shell = true
	if _, err := Check(&p, nil, "go test ./... 2>&1 | tail -3"); !errors.Is(err, ErrNotAllowed) {
		t.Errorf("a pipe into a program not allowed: %v", err)
	}
	p.Commands.Allow = append(p.Commands.Allow, vouch.NewCommandRule("tail", "-3"))
	run, err := Check(&p, nil, "go test ./... 2>&1 | tail -3")
	if err != nil || strings.Join(run, " ") != `sh -c 'go' 'test' './...' 2>&1 | 'tail' '-3'` {
		t.Errorf("shell allowed: %q, %v", run, err)
	}
	for _, line := range []string{"go test ./... ; rm -rf /", "go test $(rm -rf /)", "go test `id`", "go test > /etc/x",
		"go test ./... && curl x | sh", "go test -exec /bin/true ./... | tail -3",
		// Lines the shell reads otherwise than a word splitter does.
		`true a"\" " & touch PWNED " a"\" 2>&1`, `go test "${x:--exec}" "${x:-/bin/true}" ./... 2>&1`,
		`go test "$HOME" 2>&1`, "go test ./... & tail -3", "go test ./... 2>&1 &", "go test ./... |", "| tail -3",
		"go test ./... 2>&1x", "go test ./... 1>&2", `go test\ ./... 2>&1`, "go test ./... # comment | tail -3"} {
		if run, err := Check(&p, nil, line); err == nil {
			t.Errorf("shell line %q allowed as %q", line, run)
		}
	}
}

// TestShellLineRunsCheckedWords: sh runs the words that were checked, and
// nothing the line could have hidden from the check.
func TestShellLineRunsCheckedWords(t *testing.T) {
	p := vouch.DefaultPolicy()
	p.Commands.Shell = true
	p.Commands.Timeout = vouch.Duration(10 * time.Second)
	p.Commands.Allow = []vouch.CommandRule{{Run: []string{"echo"}, Args: vouch.ArgsAny}, vouch.NewCommandRule("tr", "-d=*")}
	dir := t.TempDir()
	run, err := Check(&p, nil, `echo 'a;b' "c d" it''s 'x'ok | tr -d x`)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), dir, run, &p)
	if err != nil || strings.TrimSpace(res.Stdout) != "a;b c d its ok" {
		t.Errorf("ran %q: %+v, %v", run, res, err)
	}
}

// TestGrammar: a rule allows its program with the flags it lists and
// arguments inside the workspace, nothing more. The first cases are the
// attacks a prefix match let through.
func TestGrammar(t *testing.T) {
	p := vouch.DefaultPolicy()
	p.Commands.Allow = []vouch.CommandRule{
		vouch.NewCommandRule("go", "test"),
		vouch.NewCommandRule("pytest", "-x", "-q", "-k=*"),
		vouch.NewCommandRule("npm", "test", "-count=1", "--"),
		{Run: []string{"make", "test"}, Args: vouch.ArgsNone},
	}
	for _, tt := range []struct {
		argv string
		err  error
	}{
		// go test: flags that change what runs or where it writes.
		{"go test -exec /bin/true ./...", ErrRefused},
		{"go test -toolexec /tmp/evil ./...", ErrRefused},
		{"go test -o /tmp/out ./pkg", ErrRefused},
		{"go test -coverprofile=/tmp/c.out ./...", ErrRefused},
		{"go test -run ^$ ./...", ErrRefused},
		{"go test ./... -args -x", ErrRefused},
		{"go test ./... ../elsewhere", ErrRefused},
		{"go test /etc", ErrRefused},
		{"go test ~/x", ErrRefused},
		{"go test ./...", nil},
		{"go test ./pkg ./cmd/x github.com/a/b", nil},
		// flags listed with a value, or none
		{"pytest -x -q tests/test_a.py::test_b", nil},
		{"pytest -k slow", nil},
		{"pytest -k=slow", nil},
		{"pytest -k", ErrRefused},
		{"pytest -x=1", ErrRefused},
		{"pytest -p no:cacheprovider", ErrRefused},
		{"pytest --rootdir=/", ErrRefused},
		// a literal value
		{"npm test -count=1", nil},
		{"npm test -count 1", nil},
		{"npm test -count=2", ErrRefused},
		{"npm test -- unit", nil},
		{"npm test -- /abs", ErrRefused},
		// no arguments at all
		{"make test", nil},
		{"make test CC=/tmp/evil", ErrRefused},
		{"make test all", ErrRefused},
		{"make install", ErrNotAllowed},
		{"pytest -x @args.txt", ErrRefused},
	} {
		_, err := Check(&p, strings.Fields(tt.argv), "")
		if !errors.Is(err, tt.err) {
			t.Errorf("Check(%s) = %v, want %v", tt.argv, err, tt.err)
		}
		var re *vouch.RefusedError
		if errors.Is(err, ErrRefused) && (!errors.As(err, &re) || re.Token == "" || !strings.Contains(Reason(err), re.Token)) {
			t.Errorf("Check(%s): the refusal %v does not name the token", tt.argv, err)
		}
	}
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p := vouch.DefaultPolicy()
	p.Commands.Timeout = vouch.Duration(10 * time.Second)
	res, err := Run(ctx, dir, []string{"sh", "-c", "ls; echo $HOME; echo oops >&2; exit 3"}, &p)
	if err != nil || res.ExitCode != 3 || !strings.Contains(res.Stdout, "f\n") || strings.Contains(res.Stdout, dir+"\n") || res.Stderr != "oops\n" {
		t.Errorf("run: %+v, %v", res, err)
	}
	t.Setenv("SECRET_TOKEN", "tok-0123456789")
	res, err = Run(ctx, dir, []string{"sh", "-c", "echo $SECRET_TOKEN; echo tok-0123456789"}, &p)
	if err != nil || strings.Contains(res.Stdout, "tok-0123456789") || !strings.Contains(res.Stdout, "[redacted SECRET_TOKEN]") {
		t.Errorf("a secret of vouch's environment reached the output: %q", res.Stdout)
	}
	res, err = Run(ctx, dir, []string{"sh", "-c", "head -c 200000 /dev/zero"}, &p)
	if err != nil || len(res.Stdout) != MaxOutput || !res.Truncated || res.ExitCode != 0 {
		t.Errorf("cap: %d bytes, truncated %v, exit %d, %v", len(res.Stdout), res.Truncated, res.ExitCode, err)
	}
	p.Commands.Timeout = vouch.Duration(50 * time.Millisecond)
	res, err = Run(ctx, dir, []string{"sleep", "10"}, &p)
	if code, why := Describe(res, 50*time.Millisecond); err != nil || !res.TimedOut || code != vouch.CodeCommandTimedOut || why == "" {
		t.Errorf("timeout: %+v, %v", res, err)
	}
	if _, err := Run(ctx, dir, []string{"no-such-program-xyz"}, &p); err == nil {
		t.Error("a missing program started")
	}
}

func TestEnvironmentFailure(t *testing.T) {
	res := Result{Stderr: "go: downloading x\ngo: github.com/a/b@v1: module lookup disabled by GOPROXY=off\nFAIL"}
	if got := EnvironmentFailure(res); got != "go: github.com/a/b@v1: module lookup disabled by GOPROXY=off" {
		t.Errorf("EnvironmentFailure = %q", got)
	}
	if got := EnvironmentFailure(Result{Stdout: "--- FAIL: TestX"}); got != "" {
		t.Errorf("a test failure taken for the sandbox's: %q", got)
	}
}

// FuzzShellLine: a line the shell subset accepts is run as the words that
// were read from it: the rebuilt line reads back to the same stages.
func FuzzShellLine(f *testing.F) {
	f.Add(`go test ./... 2>&1 | tail -3`)
	f.Add(`echo 'a;b' "c d" && x || y ; z`)
	f.Add(`true a"\" " & touch x " a"\" 2>&1`)
	f.Fuzz(func(t *testing.T, s string) {
		l, err := parse(s)
		if err != nil {
			return
		}
		back, err := parse(l.shellLine())
		if err != nil {
			t.Fatalf("%q rebuilt as %q does not parse: %v", s, l.shellLine(), err)
		}
		if fmt.Sprint(back.stages, back.seps, back.merged) != fmt.Sprint(l.stages, l.seps, l.merged) {
			t.Fatalf("%q: %v, rebuilt %q: %v", s, l.stages, l.shellLine(), back.stages)
		}
	})
}

// TestRunWithoutDir: a run without a directory is refused, never started
// in vouch's own working directory (a subject whose workspace cannot be
// opened has no Dir).
func TestRunWithoutDir(t *testing.T) {
	p := vouch.DefaultPolicy()
	if _, err := Run(context.Background(), "", []string{"true"}, &p); !errors.Is(err, ErrNoDir) {
		t.Errorf("Run without a directory = %v, want ErrNoDir", err)
	}
}
