package grounding

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/testws"
)

// TestChangedFilesAreEvidence checks that, with a base, a symbol defined
// in a file the work changed is found though the answer does not name the
// file, and that without the base it is not.
func TestChangedFilesAreEvidence(t *testing.T) {
	r := testws.NewRepo(t)
	r.Write(map[string]string{"cfg/config.go": "package cfg\n\nfunc helper() int { return 1 }\n\nfunc Load() int { return 1 }\n"})
	base := r.Commit("base")
	r.Write(map[string]string{"cfg/config.go": "package cfg\n\nfunc helper() int { return 1 }\n\nfunc Load() int { return helper() + 1 }\n"})
	r.Commit("work")
	for _, tt := range []struct {
		base  string
		unver []string
	}{
		{base, nil},
		{"", []string{"symbol:Load", "symbol:helper"}},
	} {
		root, err := os.OpenRoot(r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		pol := vouch.DefaultPolicy()
		s := &vouch.Subject{Request: &vouch.Request{Base: tt.base, Output: vouch.Output{Summary: "`Load` now goes through `helper`."}}, Policy: &pol, Workspace: root}
		var f vouch.Findings
		if err := (analyzer{}).Analyze(context.Background(), s, &f); err != nil {
			t.Fatal(err)
		}
		root.Close()
		if got := texts(f.Mentions.Unverified); !slices.Equal(got, tt.unver) {
			t.Errorf("base %q: unverified %q, want %q", tt.base, got, tt.unver)
		}
	}
}
