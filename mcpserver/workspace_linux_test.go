package mcpserver_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/mcpserver"
)

// TestWorkspaceSymlinkRace: while another goroutine flips the workspace
// between a symlink to a directory inside the root and one to a directory
// outside it, no verification ever reads the outside file: each is refused
// or reads the inside one. (Before, one call in ten or so leaked it.)
func TestWorkspaceSymlinkRace(t *testing.T) {
	root, ws, outside := swapFixture(t)
	in := filepath.Join(root, "in")
	if err := os.Rename(ws, in); err != nil {
		t.Fatal(err)
	}
	// The link inside is relative, as an agent would make it: the open
	// root follows it itself. The one out is absolute. Each flip swaps the
	// two names in one step (RENAME_EXCHANGE): ws always exists.
	alt := filepath.Join(root, "alt")
	if err := os.Symlink("in", ws); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, alt); err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(engine.Options{Workspace: mcpserver.Within(root, []string{root})})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := unix.Renameat2(unix.AT_FDCWD, ws, unix.AT_FDCWD, alt, unix.RENAME_EXCHANGE); err != nil {
				t.Error(err)
				return
			}
			// Back-to-back renames let a lookup in between see mostly one
			// of the two states; reading the link after each flip lets
			// lookups see both.
			_, _ = os.Readlink(ws)
		}
	})
	req := readsSecret(t)
	verified := 0
	for range 200 {
		rep, err := eng.Verify(context.Background(), req)
		if err != nil {
			continue // refused: the name led out of the root at that moment
		}
		verified++
		if got := criteria(t, rep); got["upper"] == vouch.CriterionMet || got["inside"] != vouch.CriterionMet {
			t.Errorf("criteria %v: a verification read another file than the workspace's", got)
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("%d of 200 verifications ran, the others were refused", verified)
}
