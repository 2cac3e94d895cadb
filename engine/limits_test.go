package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/wire"
)

func decode(t *testing.T, s string) *vouch.Request {
	t.Helper()
	req, err := wire.DecodeRequest([]byte(s), wire.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// TestDeadlineFailsClosed: a verification whose deadline has passed runs
// no analyzer and no check, and does not pass.
func TestDeadlineFailsClosed(t *testing.T) {
	eng, err := engine.New(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	req := decode(t, `{"task":{"criteria":[{"id":"a","check":{"type":"contains","value":"ok"}}]},"output":{"summary":"ok"}}`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep, err := eng.Verify(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict == vouch.VerdictPass {
		t.Fatal("a verification past its deadline passed")
	}
	skipped := 0
	for _, w := range rep.Warnings {
		if w.Code == vouch.CodeAnalyzerFailed && strings.Contains(w.Message, "deadline") {
			skipped++
		}
	}
	if skipped == 0 {
		t.Errorf("no analyzer reported as not run: %+v", rep.Warnings)
	}
	for _, c := range rep.Checks {
		if c.Name == "contains:a" && (c.Status != vouch.StatusUndecided || c.Code != vouch.CodeCheckCancelled) {
			t.Errorf("the criterion ran past the deadline: %+v", c)
		}
	}

	// The policy's timeout is the deadline when the caller sets none.
	pol := vouch.DefaultPolicy()
	pol.Timeout = vouch.Duration(time.Nanosecond)
	eng, err = engine.New(engine.Options{Policy: &pol})
	if err != nil {
		t.Fatal(err)
	}
	rep, err = eng.Verify(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict == vouch.VerdictPass {
		t.Error("the policy's timeout did not bound the verification")
	}
}

// TestSpecialWorkspaces: the filesystem root and the kernel's
// pseudo-filesystems are never a workspace, whoever names them.
func TestSpecialWorkspaces(t *testing.T) {
	for dir, special := range map[string]bool{"/": true, "/proc": true, "/proc/self": true, "/sys/kernel": true, "/dev": true,
		"/devices": false, "/procurement": false, "/tmp": false} {
		if got := engine.SpecialDir(dir) != ""; got != special {
			t.Errorf("SpecialDir(%q) = %v, want %v", dir, got, special)
		}
	}
	eng, err := engine.New(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "ws")
	if err := os.Symlink("/proc/self", link); err != nil {
		t.Fatal(err)
	}
	for _, ws := range []string{"/", "/proc/self", "/proc/self/root", "/proc/self/fd", link} {
		req := decode(t, `{"task":{"criteria":[{"id":"e","check":{"type":"regex","target":"environ","pattern":"."}}]},"output":{"summary":"ok"}}`)
		req.Workspace = ws
		_, err := eng.Verify(context.Background(), req)
		var ve *vouch.Error
		if !errors.As(err, &ve) || ve.Path != "workspace" {
			t.Errorf("workspace %s: %v, want an input error on workspace", ws, err)
		}
	}
}

// TestRoots: a workspace is opened only inside an allowed root, whether
// named as written or through a symlink into the root; never through a
// symlink or a climb out of it, and never under a root that is the
// filesystem root.
func TestRoots(t *testing.T) {
	root := t.TempDir()
	inside := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(inside, 0o755); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	link := filepath.Join(root, "out")
	if err := os.Symlink(out, link); err != nil {
		t.Fatal(err)
	}
	into := filepath.Join(out, "into")
	if err := os.Symlink(inside, into); err != nil {
		t.Fatal(err)
	}
	rs := engine.OpenRoots([]string{root})
	defer rs.Close()
	for dir, ok := range map[string]bool{root: true, inside: true, filepath.Join(root, "a", "..", "a"): true, into: true,
		out: false, link: false, filepath.Join(root, ".."): false, "/proc/self": false, filepath.Join(root, "missing"): false} {
		r, err := rs.Open(dir)
		if (err == nil) != ok {
			t.Errorf("Open(%s) = %v, want allowed %v", dir, err, ok)
		}
		var ve *vouch.Error
		if err != nil && (!errors.As(err, &ve) || ve.Path != "workspace") {
			t.Errorf("Open(%s) = %v, want an input error on workspace", dir, err)
		}
		if r != nil {
			r.Close()
		}
	}
	// What is opened is the directory inside the root, by the open root.
	r, err := rs.Open(into)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fi, err := r.Stat(".")
	want, _ := os.Stat(inside)
	if err != nil || !os.SameFile(fi, want) {
		t.Errorf("Open(%s) opened another directory than %s", into, inside)
	}
	// The filesystem root is no root: it would allow /etc.
	all := engine.OpenRoots([]string{"/"})
	defer all.Close()
	if r, err := all.Open("/etc"); err == nil {
		r.Close()
		t.Error("/ allowed /etc as a workspace")
	}
}

// TestScrubAfterCommand: once a command ran (agent-written code that can
// read what the user running vouch can), no secret of vouch's environment
// is left in the report, wherever it would have shown.
func TestScrubAfterCommand(t *testing.T) {
	const key = "sk-test-scrub-0123456789abcdef"
	t.Setenv("VOUCH_TEST_SECRET_KEY", key)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "leak.txt"), []byte("value="+key+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pol := vouch.DefaultPolicy()
	pol.Commands.Allow = []vouch.CommandRule{vouch.NewCommandRule("true")}
	eng, err := engine.New(engine.Options{Policy: &pol})
	if err != nil {
		t.Fatal(err)
	}
	for _, ran := range []bool{false, true} {
		crits := `{"id":"r","check":{"type":"regex","target":"leak.txt","pattern":"sk-[a-z0-9-]+"}}`
		if ran {
			crits += `,{"id":"c","check":{"type":"command","run":["true"]}}`
		}
		req := decode(t, `{"task":{"criteria":[`+crits+`]},"output":{"summary":"done"}}`)
		req.Workspace = ws
		rep, err := eng.Verify(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := wire.EncodeReport(&b, rep, false); err != nil {
			t.Fatal(err)
		}
		if leaked := strings.Contains(b.String(), key); leaked == ran {
			t.Errorf("command ran %v: key in the report %v", ran, leaked)
		}
		if ran && !strings.Contains(b.String(), "[redacted VOUCH_TEST_SECRET_KEY]") {
			t.Errorf("no redaction marker in the report")
		}
	}
}
