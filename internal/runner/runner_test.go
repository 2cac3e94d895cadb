package runner

import (
	"context"
	"errors"
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
	p.Commands.Allow = [][]string{{"go", "test"}, {"true"}}
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
	} {
		if _, err := Check(&p, tt.argv, tt.line); !errors.Is(err, tt.err) {
			t.Errorf("Check(%q, %q) = %v, want %v", tt.argv, tt.line, err, tt.err)
		}
	}
	p.Commands.Shell = true
	if _, err := Check(&p, nil, "go test ./... 2>&1 | tail -3"); !errors.Is(err, ErrNotAllowed) {
		t.Errorf("a pipe into a program not allowed: %v", err)
	}
	p.Commands.Allow = append(p.Commands.Allow, []string{"tail"})
	run, err := Check(&p, nil, "go test ./... 2>&1 | tail -3")
	if err != nil || strings.Join(run, " ") != "sh -c go test ./... 2>&1 | tail -3" {
		t.Errorf("shell allowed: %q, %v", run, err)
	}
	for _, line := range []string{"go test ./... ; rm -rf /", "go test $(rm -rf /)", "go test `id`", "go test > /etc/x", "go test ./... && curl x | sh"} {
		if _, err := Check(&p, nil, line); err == nil {
			t.Errorf("shell line %q allowed", line)
		}
	}
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := Run(ctx, dir, []string{"sh", "-c", "ls; echo $HOME; echo oops >&2; exit 3"}, 10*time.Second)
	if err != nil || res.ExitCode != 3 || !strings.Contains(res.Stdout, "f\n") || !strings.Contains(res.Stdout, dir) || res.Stderr != "oops\n" {
		t.Errorf("run: %+v, %v", res, err)
	}
	res, err = Run(ctx, dir, []string{"sh", "-c", "echo $SECRET_TOKEN"}, 10*time.Second)
	if err != nil || strings.TrimSpace(res.Stdout) != "" {
		t.Errorf("environment leaked: %q", res.Stdout)
	}
	res, err = Run(ctx, dir, []string{"sh", "-c", "head -c 200000 /dev/zero"}, 10*time.Second)
	if err != nil || len(res.Stdout) != MaxOutput || !res.Truncated || res.ExitCode != 0 {
		t.Errorf("cap: %d bytes, truncated %v, exit %d, %v", len(res.Stdout), res.Truncated, res.ExitCode, err)
	}
	res, err = Run(ctx, dir, []string{"sleep", "10"}, 50*time.Millisecond)
	if err != nil || !res.TimedOut {
		t.Errorf("timeout: %+v, %v", res, err)
	}
	if _, err := Run(ctx, dir, []string{"no-such-program-xyz"}, time.Second); err == nil {
		t.Error("a missing program started")
	}
}
