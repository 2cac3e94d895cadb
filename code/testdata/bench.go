// Package bench is a copy of vouch code used to benchmark the Go parser.
package bench

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// knownExts maps the extensions of the languages vouch knows to their
// language, whether or not a parser for it is registered in this build.
var knownExts = map[string]string{
	".go":  LangGo,
	".ts":  LangTypeScript,
	".tsx": LangTypeScript,
	".mts": LangTypeScript,
	".cts": LangTypeScript,
	".js":  LangJavaScript,
	".jsx": LangJavaScript,
	".mjs": LangJavaScript,
	".cjs": LangJavaScript,
	".py":  LangPython,
	".pyi": LangPython,
}

var registry = struct {
	sync.RWMutex
	parsers map[string]Parser // by language
	exts    map[string]string // extension -> language, for registered parsers
}{
	parsers: map[string]Parser{},
	exts:    map[string]string{},
}

// Register makes p the parser of lang for files with the given extensions
// (".ts", with the dot; matched case-insensitively). It is meant to be
// called from init functions, and panics on an empty language, a nil
// parser, no extensions, an extension without a leading dot, a language
// registered twice or an extension already claimed by another language.
func Register(lang string, exts []string, p Parser) {
	if lang == "" {
		panic("code: Register with an empty language")
	}
	if p == nil {
		panic("code: Register " + lang + " with a nil parser")
	}
	if len(exts) == 0 {
		panic("code: Register " + lang + " without extensions")
	}
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.parsers[lang]; dup {
		panic("code: Register called twice for " + lang)
	}
	norm := make([]string, len(exts))
	for i, e := range exts {
		e = strings.ToLower(e)
		if len(e) < 2 || e[0] != '.' {
			panic(fmt.Sprintf("code: Register %s: bad extension %q", lang, exts[i]))
		}
		if other, ok := registry.exts[e]; ok && other != lang {
			panic(fmt.Sprintf("code: Register %s: extension %s already belongs to %s", lang, e, other))
		}
		norm[i] = e
	}
	for _, e := range norm {
		registry.exts[e] = lang
	}
	registry.parsers[lang] = p
}

// ForPath returns the language of the file at path, by its extension, and
// the parser registered for that language. ok is false when there is no
// parser: then lang is the language the extension belongs to if vouch
// knows it (a .ts file in a build without cgo gives "typescript"), and ""
// otherwise.
func ForPath(path string) (lang string, p Parser, ok bool) {
	ext := strings.ToLower(filepath.Ext(path))
	if ext == "" {
		return "", nil, false
	}
	registry.RLock()
	defer registry.RUnlock()
	lang, found := registry.exts[ext]
	if !found {
		lang = knownExts[ext]
	}
	p = registry.parsers[lang]
	return lang, p, p != nil
}

// Languages returns the languages with a registered parser, sorted.
func Languages() []string {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]string, 0, len(registry.parsers))
	for lang := range registry.parsers {
		out = append(out, lang)
	}
	slices.Sort(out)
	return out
}

// Parse parses src, the contents of the file at path, with the parser
// [ForPath] picks. Without a parser it returns an error wrapping
// [ErrUnsupported]. Otherwise it returns what the parser returns: see
// [Parser].
func Parse(path string, src []byte) (*File, error) {
	lang, p, ok := ForPath(path)
	if !ok {
		if lang == "" {
			return nil, fmt.Errorf("code: %s: unknown language: %w", path, ErrUnsupported)
		}
		return nil, fmt.Errorf("code: %s: no %s parser in this build: %w", path, lang, ErrUnsupported)
	}
	return p.Parse(path, src)
}

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

// Parse implements [Parser].
func (goParser) Parse(path string, src []byte) (*File, error) {
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
		s.DocStart, s.DocEnd = g.line(doc.Pos()), g.line(doc.End()-1)
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
