package vouch_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is vouch's module path.
const module = "github.com/vouchgate/vouch"

// packageImports returns, for every package of the module (its directory
// from the root), the vouch packages its non-test files import.
func packageImports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "testdata", "node_modules", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(p))
		for _, im := range f.Imports {
			imp, _ := strconv.Unquote(im.Path.Value)
			if imp == module || strings.HasPrefix(imp, module+"/") {
				out[dir] = append(out[dir], strings.TrimPrefix(strings.TrimPrefix(imp, module), "/"))
			}
		}
		if _, ok := out[dir]; !ok {
			out[dir] = nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// unit is the top-level folder of a package directory ("." for the root).
func unit(dir string) string {
	if dir == "" || dir == "." {
		return "."
	}
	u, _, _ := strings.Cut(dir, "/")
	return u
}

// TestLayout holds the tree to its layering: a package of internal/ is a
// leaf, importing no vouch package but the root and internal/ ones; and,
// counting each top-level folder as one unit, no two units import each
// other (the root package aside, which every unit may import and which
// imports none).
func TestLayout(t *testing.T) {
	pkgs := packageImports(t)
	if len(pkgs) < 50 {
		t.Fatalf("found %d packages: not run from the module's root?", len(pkgs))
	}
	edges := map[[2]string][]string{} // unit pairs, with an example
	for dir, imps := range pkgs {
		for _, imp := range imps {
			if strings.HasPrefix(dir, "internal/") && imp != "" && !strings.HasPrefix(imp, "internal/") {
				t.Errorf("%s imports %s: a package of internal/ imports only the root and internal/", dir, imp)
			}
			from, to := unit(dir), unit(imp)
			if from == to || from == "." || to == "." {
				continue
			}
			k := [2]string{from, to}
			edges[k] = append(edges[k], dir+" → "+imp)
		}
	}
	var cycles []string
	for k, ex := range edges {
		if k[0] < k[1] {
			if back, ok := edges[[2]string{k[1], k[0]}]; ok {
				cycles = append(cycles, k[0]+" and "+k[1]+" import each other: "+ex[0]+"; "+back[0])
			}
		}
	}
	slices.Sort(cycles)
	for _, c := range cycles {
		t.Error(c)
	}
}
