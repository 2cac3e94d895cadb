package mcpserver_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/mcpserver"
	"github.com/vouchgate/vouch/wire"
)

// secret is the content of the file outside the allowed root: it must
// never reach a report.
const secret = "OUTSIDE-SECRET-7f3a"

// swapFixture is an allowed root holding the workspace ws, whose
// secret.txt is "inside", and a directory outside the root whose
// secret.txt is the secret.
func swapFixture(t *testing.T) (root, ws, outside string) {
	t.Helper()
	root, outside = t.TempDir(), t.TempDir()
	ws = filepath.Join(root, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "secret.txt"), []byte("inside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte(secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, ws, outside
}

// readsSecret is a request whose workspace is "ws" and whose criteria read
// secret.txt: "inside" is met when the workspace's file was read, "upper"
// only when the outside one was (its content starts with a capital).
func readsSecret(t *testing.T) *vouch.Request {
	t.Helper()
	req, err := wire.DecodeRequest([]byte(`{"workspace":"ws","task":{"goal":"read","criteria":[
		{"id":"inside","check":{"type":"contains","target":"secret.txt","value":"inside"}},
		{"id":"upper","check":{"type":"regex","target":"secret.txt","pattern":"^[A-Z]"}}]},
		"output":{"summary":"done"}}`), wire.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// criteria returns the status of each criterion of rep by id, and fails
// the test when the secret shows anywhere in the report.
func criteria(t *testing.T, rep *vouch.Report) map[string]vouch.CriterionStatus {
	t.Helper()
	b, err := wire.MarshalReport(rep)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), secret) {
		t.Errorf("the report holds the file outside the root: %s", b)
	}
	out := map[string]vouch.CriterionStatus{}
	for _, c := range rep.Criteria {
		out[c.ID] = c.Status
	}
	return out
}

// TestWorkspaceSwappedAfterOpen: the workspace is opened once, by the
// resolver, and the engine verifies that open directory. Renaming it and
// putting a symlink out of the root in its place afterwards changes
// nothing the verification reads. (Before, the resolver returned a path
// and the engine opened it again: the outside file was read.)
func TestWorkspaceSwappedAfterOpen(t *testing.T) {
	root, ws, outside := swapFixture(t)
	open := mcpserver.Within(root, []string{root})
	req := readsSecret(t)
	opened, err := open(req)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(ws, ws+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, ws); err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(engine.Options{Workspace: func(*vouch.Request) (*os.Root, error) { return opened, nil }})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := eng.Verify(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got := criteria(t, rep); got["inside"] != vouch.CriterionMet || got["upper"] == vouch.CriterionMet {
		t.Errorf("criteria %v: want the workspace that was opened read (inside met, upper not)", got)
	}
	// Resolved now, the name leads out of the root: refused.
	if r, err := open(req); err == nil {
		r.Close()
		t.Error("a workspace that is a symlink out of the root was opened")
	}
}
