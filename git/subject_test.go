package git

import (
	"context"
	"os"
	"testing"

	"github.com/vouchgate/vouch"
)

// TestChangesFor checks that the changes of a verification's workspace are
// read once and shared, and that no workspace gives none.
func TestChangesFor(t *testing.T) {
	ctx := context.Background()
	if ch, err := ChangesFor(ctx, &vouch.Subject{Request: &vouch.Request{}}); ch != nil || err != nil {
		t.Errorf("no workspace: %v, %v", ch, err)
	}
	r, base := changedRepo(t, 3)
	root, err := os.OpenRoot(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	s := &vouch.Subject{Request: &vouch.Request{Base: base}, Workspace: root}
	ch, err := ChangesFor(ctx, s)
	if err != nil || ch == nil || !ch.Repo || ch.File("src/f0.txt") == nil || ch.File("NEW.md") == nil {
		t.Fatalf("changes %+v, %v", ch, err)
	}
	if again, _ := ChangesFor(ctx, s); again != ch {
		t.Error("read twice in one verification")
	}
	// Another verification reads again, here without a base.
	other, err := ChangesFor(ctx, &vouch.Subject{Request: &vouch.Request{}, Workspace: root})
	if err != nil || other == ch || other.File("src/f0.txt") != nil {
		t.Errorf("another verification: %+v, %v", other, err)
	}
}
