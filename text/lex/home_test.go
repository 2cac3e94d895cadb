package lex

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// structuredTables are literals the guard would take for word lists that are
// tables of another shape, kept in Go: the plan's topic table (names,
// phrases and an example subgoal per topic) and the injection scanner's lead
// expressions (regular expressions by name).
var structuredTables = map[string]bool{
	"check/plan/topics.go":     true,
	"check/injection/rules.go": true,
}

// wordLike is an English word as the lists write it.
var wordLike = regexp.MustCompile(`^[a-z][a-z'’-]*$`)

// TestOneHome keeps the words in one place: no Go file outside text/lex
// holds a word list (a []string or map literal of eight or more words), and
// no function outside it decides by itself what a word character is
// (letters and digits): it asks [IsWordRune] or uses [Scan].
func TestOneHome(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	for _, dir := range []string{"text", "check"} {
		walk(t, fset, root, filepath.Join(root, dir))
	}
}

// walk checks the Go files under dir (see TestOneHome).
func walk(t *testing.T, fset *token.FileSet, root, dir string) {
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && rel != "." || rel == "text/lex" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CompositeLit:
				if !wordListType(n.Type) || structuredTables[rel] {
					return true
				}
				if words, all := literalWords(n); all >= 8 && words*4 >= all*3 {
					t.Errorf("%s: a word list of %d words in code: move it to text/lex/words", fset.Position(n.Pos()), all)
				}
			case *ast.FuncDecl:
				if n.Body != nil && callsBoth(n.Body, "IsLetter", "IsDigit") {
					t.Errorf("%s: %s splits words by itself: use lex.Scan", fset.Position(n.Pos()), n.Name.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// literalWords counts the string elements (or keys) of a literal that look
// like words, and all its string elements.
func literalWords(lit *ast.CompositeLit) (words, all int) {
	for _, e := range lit.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			e = kv.Key
		}
		b, ok := e.(*ast.BasicLit)
		if !ok || b.Kind != token.STRING {
			continue
		}
		s, err := strconv.Unquote(b.Value)
		if err != nil {
			continue
		}
		all++
		if wordLike.MatchString(s) {
			words++
		}
	}
	return words, all
}

// callsBoth reports whether body calls unicode functions a and b.
func callsBoth(body *ast.BlockStmt, a, b string) bool {
	var sawA, sawB bool
	ast.Inspect(body, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "unicode" {
				sawA = sawA || sel.Sel.Name == a
				sawB = sawB || sel.Sel.Name == b
			}
		}
		return true
	})
	return sawA && sawB
}

// wordListType reports whether a literal of type x would be a word list:
// []string, or a map from string to bool, string or a number.
func wordListType(x ast.Expr) bool {
	switch x := x.(type) {
	case *ast.ArrayType:
		id, ok := x.Elt.(*ast.Ident)
		return ok && id.Name == "string"
	case *ast.MapType:
		k, ok := x.Key.(*ast.Ident)
		v, ok2 := x.Value.(*ast.Ident)
		if !ok || !ok2 || k.Name != "string" {
			return false
		}
		switch v.Name {
		case "bool", "string", "int", "float64":
			return true
		}
	}
	return false
}
