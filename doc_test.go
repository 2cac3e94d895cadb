package vouch_test

import (
	"os"
	"regexp"

	"github.com/vouchgate/vouch"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryExportedIdentifierDocumented walks the module and checks that
// every package has a package doc and every exported identifier a doc
// comment (a grouped const or var may share its group's doc).
func TestEveryExportedIdentifierDocumented(t *testing.T) {
	dirs := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			dirs[filepath.Dir(path)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 8 {
		t.Fatalf("found only %d package directories", len(dirs))
	}
	for dir := range dirs {
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, parser.ParseComments)
		if err != nil {
			t.Errorf("%s: %v", dir, err)
			continue
		}
		for name, pkg := range pkgs {
			hasDoc := false
			for _, f := range pkg.Files {
				hasDoc = hasDoc || f.Doc != nil
			}
			if !hasDoc {
				t.Errorf("package %s (%s) has no package doc", name, dir)
			}
			if name == "main" {
				continue
			}
			for path, f := range pkg.Files {
				for _, d := range f.Decls {
					checkDecl(t, fset, path, d)
				}
			}
		}
	}
}

func checkDecl(t *testing.T, fset *token.FileSet, path string, d ast.Decl) {
	t.Helper()
	missing := func(name string, pos token.Pos) {
		t.Errorf("%s: exported %s has no doc comment", fset.Position(pos), name)
	}
	switch d := d.(type) {
	case *ast.FuncDecl:
		if !d.Name.IsExported() || d.Doc != nil {
			return
		}
		if d.Recv != nil && !exportedRecv(d.Recv) {
			return
		}
		missing(d.Name.Name, d.Pos())
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if s.Name.IsExported() && s.Doc == nil && d.Doc == nil {
					missing(s.Name.Name, s.Pos())
				}
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if n.IsExported() && s.Doc == nil && s.Comment == nil && d.Doc == nil {
						missing(n.Name, n.Pos())
					}
				}
			}
		}
	}
}

func exportedRecv(fl *ast.FieldList) bool {
	if len(fl.List) == 0 {
		return false
	}
	e := fl.List[0].Type
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.IsExported()
		default:
			return false
		}
	}
}

// TestReadmeListsEveryCode checks the README's list of codes against the
// catalogue: every code is listed under its kind, and nothing is listed
// that the catalogue does not have.
func TestReadmeListsEveryCode(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(data), "\n### Codes\n")
	if !ok {
		t.Fatal("README.md has no Codes section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	checks, rest, _ := strings.Cut(sec, "Warning codes:")
	warnings, errs, _ := strings.Cut(rest, "Error codes")
	listed := map[vouch.CodeKind]map[string]bool{}
	quoted := regexp.MustCompile("`([A-Za-z_]+)`")
	for kind, text := range map[vouch.CodeKind]string{vouch.CodeCheck: checks, vouch.CodeWarning: warnings, vouch.CodeError: errs} {
		listed[kind] = map[string]bool{}
		for _, m := range quoted.FindAllStringSubmatch(text, -1) {
			listed[kind][m[1]] = true
		}
	}
	known := map[string]bool{}
	for _, c := range vouch.Codes() {
		known[c.Code] = true
		if !listed[c.Kind][c.Code] {
			t.Errorf("README.md does not list the %s code %s", c.Kind, c.Code)
		}
	}
	for _, codes := range listed {
		for c := range codes {
			if !known[c] {
				t.Errorf("README.md lists %s, which is no code", c)
			}
		}
	}
}
