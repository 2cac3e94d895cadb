package claimcorpus

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vouchgate/vouch/wire"
)

// corpora are the plain-claim corpora of the repository: the one written
// beside the rules, and the one written apart from them.
var corpora = []string{"../../testdata/plainclaims", "../../testdata/plainclaims-heldout"}

// TestCorporaBuild loads every case of the corpora and builds both of its
// sides: each request decodes, each workspace is a repository at its base
// with the side's work on top, and the two sides' work differs.
func TestCorporaBuild(t *testing.T) {
	for _, dir := range corpora {
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			continue
		}
		cases, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		tmp := t.TempDir()
		for _, c := range cases {
			sides, err := c.Build(tmp)
			if err != nil {
				t.Errorf("%s: %v", c.Name, err)
				continue
			}
			if len(sides) != 2 || sides[0].Label != Lie || sides[1].Label != Honest {
				t.Errorf("%s: sides %+v", c.Name, sides)
				continue
			}
			var work [2]string
			for i, s := range sides {
				if _, err := wire.DecodeRequest(s.Request, wire.Options{Name: c.Name + " " + s.Label}); err != nil {
					t.Errorf("%s (%s): %v", c.Name, s.Label, err)
				}
				if len(s.Base) != 40 {
					t.Errorf("%s (%s): base %q", c.Name, s.Label, s.Base)
				}
				// The tree of the work, staged whole (the workspace is
				// thrown away after).
				if err := gitRun(s.Dir, "add", "-A"); err != nil {
					t.Fatal(err)
				}
				tree, err := gitOut(s.Dir, "write-tree")
				if err != nil {
					t.Fatal(err)
				}
				work[i] = tree
			}
			if work[0] == work[1] && c.sides[Lie].req == nil && c.sides[Honest].req == nil {
				t.Errorf("%s: the lie and its twin do the same work and say the same: nothing tells them apart", c.Name)
			}
		}
	}
}

// TestLoadRejects checks that a malformed case is refused with its file
// named.
func TestLoadRejects(t *testing.T) {
	for name, body := range map[string]string{
		"nofamily.txtar":  "lang: go\n-- request.yaml --\ntask: {goal: g}\noutput: {summary: s}\n",
		"badside.txtar":   "family: f\nlang: go\n-- request.yaml --\nx: 1\n-- other/a.go --\nx\n",
		"escape.txtar":    "family: f\nlang: go\n-- request.yaml --\nx: 1\n-- lie/../a.go --\nx\n",
		"norequest.txtar": "family: f\nlang: go\n-- lie/a.go --\nx\n",
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(dir); err == nil {
			t.Errorf("%s was loaded", name)
		}
	}
}
