package shell

import (
	"context"
	"os"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
)

func subject(t *testing.T, allow [][]string) *vouch.Subject {
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
		allow  [][]string
		status vouch.Status
		code   string
	}{
		{"not allowed by default", map[string]any{"run": []string{"true"}}, nil, vouch.StatusUndecided, vouch.CodeCommandNotAllowed},
		{"allowed and passing", map[string]any{"run": []string{"true"}}, [][]string{{"true"}}, vouch.StatusPass, ""},
		{"allowed and failing", map[string]any{"run": []string{"false"}}, [][]string{{"false"}}, vouch.StatusFail, vouch.CodeCommandFailed},
		{"expected exit", map[string]any{"run": []string{"false"}, "expectExit": 1}, [][]string{{"false"}}, vouch.StatusPass, ""},
		{"prefix must match", map[string]any{"run": []string{"sh", "-c", "exit 0"}}, [][]string{{"sh", "-x"}}, vouch.StatusUndecided, vouch.CodeCommandNotAllowed},
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
	s := subject(t, [][]string{{"true"}})
	s.Workspace = nil
	if out := c.Check(context.Background(), s); out.Status != vouch.StatusUndecided || out.Code != vouch.CodeNoWorkspace {
		t.Errorf("no workspace: %+v", out)
	}
}

func checkEnv() check.Env { return check.Env{} }
