package code

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"strings"
)

func init() {
	Register(LangGo, []string{".go"}, goParser{})
}

// goParser parses Go with go/parser. It is stateless, hence safe for
// concurrent use.
//
// Symbols: functions; methods (Receiver is the receiver's type name
// without "*" or type parameters); type declarations (interface types are
// KindInterface, all others KindType); and package-level var or const
// names whose value is a function literal (KindConst). Other constants and
// variables are not symbols.
//
// Lines: a declaration that is alone in its var/const/type keyword
// (type T struct{...}) spans from the keyword; one inside a parenthesized
// group spans its own spec. The doc comment is the spec's own, or the
// group's when the group has a single spec.
type goParser struct{}

var _ Parser = goParser{}

// Parse implements [Parser].
func (goParser) Parse(ctx context.Context, path string, src []byte) (*File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if src == nil {
		src = []byte{} // never let go/parser read path from disk
	}
	fset := token.NewFileSet()
	af, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		var list scanner.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			e := list[0]
			err = &SyntaxError{Path: path, Line: e.Pos.Line, Column: e.Pos.Column, Msg: e.Msg}
		}
		// Not a syntax error (an I/O error cannot happen with src given):
		// returned as is.
	}
	if af == nil {
		return nil, err
	}
	g := goFile{fset: fset, f: &File{Lang: LangGo}}
	for _, d := range af.Decls {
		g.decl(d)
	}
	return g.f, err
}

type goFile struct {
	fset *token.FileSet
	f    *File
}

func (g *goFile) line(p token.Pos) int { return g.fset.Position(p).Line }

// add appends a symbol spanning node from..to with the given doc group.
func (g *goFile) add(s Symbol, from, to token.Pos, doc *ast.CommentGroup) {
	s.Start, s.End = g.line(from), g.line(to-1)
	if s.End < s.Start {
		s.End = s.Start
	}
	if doc != nil && strings.TrimSpace(doc.Text()) != "" {
		s.HasDoc = true
		// Not doc.End(): the scanner drops the \r of CRLF line endings
		// from a /* */ comment's text, which End counts on.
		last := doc.List[len(doc.List)-1]
		s.DocStart, s.DocEnd = g.line(doc.Pos()), g.line(last.Slash)+strings.Count(last.Text, "\n")
	}
	g.f.Symbols = append(g.f.Symbols, s)
}

func (g *goFile) decl(d ast.Decl) {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Name == nil || d.Name.Name == "_" {
			return
		}
		s := Symbol{Name: d.Name.Name, Kind: KindFunction, Exported: d.Name.IsExported()}
		if d.Recv != nil && len(d.Recv.List) > 0 {
			s.Kind = KindMethod
			s.Receiver = recvName(d.Recv.List[0].Type)
			s.Exported = s.Exported && ast.IsExported(s.Receiver)
		}
		g.add(s, d.Pos(), d.End(), d.Doc)
	case *ast.GenDecl:
		grouped := d.Lparen.IsValid()
		docFor := func(specDoc *ast.CommentGroup) *ast.CommentGroup {
			if specDoc != nil {
				return specDoc
			}
			if !grouped || len(d.Specs) == 1 {
				return d.Doc
			}
			return nil
		}
		span := func(spec ast.Spec) (token.Pos, token.Pos) {
			if grouped {
				return spec.Pos(), spec.End()
			}
			return d.Pos(), d.End()
		}
		for _, spec := range d.Specs {
			switch spec := spec.(type) {
			case *ast.TypeSpec:
				if spec.Name == nil || spec.Name.Name == "_" {
					continue
				}
				kind := KindType
				if _, ok := spec.Type.(*ast.InterfaceType); ok {
					kind = KindInterface
				}
				from, to := span(spec)
				g.add(Symbol{Name: spec.Name.Name, Kind: kind, Exported: spec.Name.IsExported()},
					from, to, docFor(spec.Doc))
			case *ast.ValueSpec:
				for i, name := range spec.Names {
					if i >= len(spec.Values) || name.Name == "_" {
						continue
					}
					if _, ok := ast.Unparen(spec.Values[i]).(*ast.FuncLit); !ok {
						continue
					}
					from, to := span(spec)
					g.add(Symbol{Name: name.Name, Kind: KindConst, Exported: name.IsExported()},
						from, to, docFor(spec.Doc))
				}
			}
		}
	}
}

// recvName returns the type name of a receiver expression: T for T, *T,
// T[K] and *T[K, V].
func recvName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}
