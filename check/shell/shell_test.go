package shell

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
)

func subject(t *testing.T, allow []vouch.CommandRule) *vouch.Subject {
	t.Helper()
	p := vouch.DefaultPolicy()
	p.Commands.Allow = allow
	root, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return &vouch.Subject{Request: &vouch.Request{}, Policy: &p, Workspace: root}
}

func TestCommand(t *testing.T) {
	for _, tt := range []struct {
		name   string
		spec   map[string]any
		allow  []vouch.CommandRule
		status vouch.Status
		code   string
	}{
		{"not allowed by default", map[string]any{"run": []string{"true"}}, nil, vouch.StatusUndecided, vouch.CodeCommandNotAllowed},
		{"allowed and passing", map[string]any{"run": []string{"true"}}, []vouch.CommandRule{vouch.NewCommandRule("true")}, vouch.StatusPass, ""},
		{"allowed and failing", map[string]any{"run": []string{"false"}}, []vouch.CommandRule{vouch.NewCommandRule("false")}, vouch.StatusFail, vouch.CodeCommandFailed},
		{"expected exit", map[string]any{"run": []string{"false"}, "expectExit": 1}, []vouch.CommandRule{vouch.NewCommandRule("false")}, vouch.StatusPass, ""},
		{"prefix must match", map[string]any{"run": []string{"sh", "-c", "exit 0"}}, []vouch.CommandRule{vouch.NewCommandRule("sh", "-x")}, vouch.StatusUndecided, vouch.CodeCommandNotAllowed},
	} {
		c, err := newCommand(vouch.NewCheckSpec("command", false, tt.spec), checkEnv())
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		out := c.Check(context.Background(), subject(t, tt.allow))
		if out.Status != tt.status || out.Code != tt.code {
			t.Errorf("%s: %s %s (%s), want %s %s", tt.name, out.Status, out.Code, out.Reason, tt.status, tt.code)
		}
	}
	if _, err := newCommand(vouch.NewCheckSpec("command", false, nil), checkEnv()); err == nil {
		t.Error("a command without run compiled")
	}
	c, _ := newCommand(vouch.NewCheckSpec("command", false, map[string]any{"run": []string{"true"}}), checkEnv())
	s := subject(t, []vouch.CommandRule{vouch.NewCommandRule("true")})
	s.Workspace = nil
	if out := c.Check(context.Background(), s); out.Status != vouch.StatusUndecided || out.Code != vouch.CodeNoWorkspace {
		t.Errorf("no workspace: %+v", out)
	}
}

func checkEnv() check.Env { return check.Env{} }

// TestGoEnvInWorkspace: a workspace file .config/go/env that sets
// GOFLAGS=-exec=/bin/true (which makes go test pass without running a
// test) is not read: the run's HOME is not the workspace, and GOENV is off.
func TestGoEnvInWorkspace(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not installed")
	}
	s := subject(t, []vouch.CommandRule{vouch.NewCommandRule("go", "test")})
	// The test process's own build cache, shared so that the run does
	// not compile the standard library cold.
	out, err := exec.Command(goBin, "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	cache := strings.TrimSpace(string(out))
	s.Policy.Commands.Env = map[string]string{"GOCACHE": cache}
	s.Policy.Commands.Writable = []string{cache}
	ws, ctlDir := s.Workspace.Name(), t.TempDir()
	for name, body := range map[string]string{
		"go.mod":            "module example.com/ws\n\ngo 1.26\n",
		"a_test.go":         "package ws\n\nimport \"testing\"\n\nfunc TestFails(t *testing.T) { t.Fatal(\"broken\") }\n",
		".config/go/env":    "GOFLAGS=-exec=/bin/true\n",
		"go.env":            "GOFLAGS=-exec=/bin/true\n",
		".config/go/go.env": "GOFLAGS=-exec=/bin/true\n",
	} {
		for _, dir := range []string{ws, ctlDir} {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The control: run with HOME at the workspace, as vouch used to, go
	// test reads the file and passes.
	ctl := exec.Command(goBin, "test", "./...")
	ctl.Dir = ctlDir
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "HOME" && k != "GOENV" && k != "GOFLAGS" && k != "XDG_CONFIG_HOME" {
			ctl.Env = append(ctl.Env, kv)
		}
	}
	ctl.Env = append(ctl.Env, "HOME="+ctlDir, "GOCACHE="+cache)
	if out, err := ctl.CombinedOutput(); err != nil {
		t.Fatalf("control: with HOME at the workspace go test should pass on the planted GOFLAGS: %v\n%s", err, out)
	}
	c, err := newCommand(vouch.NewCheckSpec("command", false, map[string]any{"run": []string{"go", "test", "./..."}}), checkEnv())
	if err != nil {
		t.Fatal(err)
	}
	o := c.Check(context.Background(), s)
	if o.Status != vouch.StatusFail || o.Code != vouch.CodeCommandFailed {
		t.Fatalf("go test on a failing test: %s %s %s %v", o.Status, o.Code, o.Reason, o.Evidence["output"])
	}
	// Nothing of the run is left in the workspace.
	ents, _ := os.ReadDir(ws)
	for _, e := range ents {
		if e.Name() != "go.mod" && e.Name() != "a_test.go" && e.Name() != ".config" && e.Name() != "go.env" {
			t.Errorf("the run left %s in the workspace", e.Name())
		}
	}
}
