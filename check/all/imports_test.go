package all_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// module is the module path of vouch.
const module = "github.com/vouchgate/vouch"

// allowedImport reports whether the check package pkg (a path relative to
// the module root, "check/fs") may import imp. A check package imports the
// domain (vouch), the registry (check), the shared helpers of the checks
// (check/internal/...), the reading of agent text (text/...), vouch's
// internal helpers (internal/...), the adapters (git, code, trace and
// their subpackages), the standard library and third-party modules: never
// another check package, which would make the checks a web of libraries.
// Shared needs go to the domain or an adapter. check/all, which registers
// every check, is the one exception, and the registry itself imports no
// check package.
func allowedImport(pkg, imp string) bool {
	if pkg == "check/all" {
		return true
	}
	if imp != module && !strings.HasPrefix(imp, module+"/") {
		return true // the standard library or another module
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
	under := func(dir string) bool { return rel == dir || strings.HasPrefix(rel, dir+"/") }
	switch {
	case rel == "", rel == "check":
		return true
	case under("check/internal"):
		return pkg != "check" // the registry uses none of the checks' helpers
	case under("text"), under("internal"), under("git"), under("code"), under("trace"):
		return true
	}
	return false
}

// TestCheckImports holds every check package to allowedImport. It reads
// the import blocks of the non-test Go files under check/ (whatever their
// build constraints) with go/parser, and fails naming each file and import
// that breaks the rule.
func TestCheckImports(t *testing.T) {
	root := filepath.Join("..", "..") // the module root, from check/all
	fset := token.NewFileSet()
	pkgs := map[string]bool{}
	err := filepath.WalkDir(filepath.Join(root, "check"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		pkg := path.Dir(rel)
		pkgs[pkg] = true
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, spec := range f.Imports {
			imp, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return err
			}
			if !allowedImport(pkg, imp) {
				t.Errorf("%s imports %s: a check package imports no other check package (move what it shares to the domain, an adapter or check/internal)", rel, imp)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The walk must have seen the registry and the checks, or it proves
	// nothing.
	for _, want := range []string{"check", "check/all", "check/claims", "check/fs", "check/grounding", "check/symbols"} {
		if !pkgs[want] {
			t.Errorf("package %s not found under %s", want, filepath.Join(root, "check"))
		}
	}
}

// TestAllowedImport checks the rule itself.
func TestAllowedImport(t *testing.T) {
	for _, tt := range []struct {
		pkg, imp string
		want     bool
	}{
		{"check/fs", module, true},
		{"check/fs", module + "/check", true},
		{"check/fs", module + "/check/claims", false},
		{"check/grounding", module + "/check/symbols", false},
		{"check/claims", module + "/check/internal/codecheck", true},
		{"check/internal/codecheck", module + "/check/symbols", false},
		{"check", module + "/check/internal/codecheck", false},
		{"check", module + "/internal/jsonerr", true},
		{"check/grounding", module + "/text/mention", true},
		{"check/grounding", module + "/trace", true},
		{"check/claims", module + "/trace/claudecode", true},
		{"check/symbols", module + "/code/treesitter", true},
		{"check/claims", module + "/git", true},
		{"check/claims", module + "/engine", false},
		{"check/content", module + "/wire", false},
		{"check/content", module + "/policy", false},
		{"check/claims", module + "/gitx", false},
		{"check/cel", "cel.dev/cel-go/cel", true},
		{"check/cel", "strings", true},
		{"check/cel", module + "x/other", true}, // another module
		{"check/all", module + "/check/claims", true},
	} {
		if got := allowedImport(tt.pkg, tt.imp); got != tt.want {
			t.Errorf("allowedImport(%q, %q) = %v, want %v", tt.pkg, tt.imp, got, tt.want)
		}
	}
}
