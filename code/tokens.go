package code

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"slices"
	"strings"
)

// Token is one token of the code of a file, as a [Tokenizer] lists it.
type Token struct {
	// Text is the token: its source text, or, for the structure a
	// tree-sitter parser adds, a node's kind ("(if_statement", ")").
	Text string
	// Line is the 1-based line the token starts on.
	Line int
}

// Tokenizer is a [Parser] that can also list what a file does, without
// what only documents it: the tokens of its code in order, with comments,
// doc strings and layout left out and the structure of the code kept. Two
// versions of a file with the same tokens run the same way; versions
// whose tokens differ may or may not.
//
// Comments the toolchain reads are code and are kept: Go's build
// constraints and //go: directives, //export and //line comments and the
// cgo preamble before import "C"; the triple-slash directives and the
// pragmas of JavaScript and TypeScript compilers and bundlers (@jsx,
// @__PURE__); Python's coding declaration and a shebang line.
type Tokenizer interface {
	Parser
	// Tokens returns the code tokens of src, the contents of the file at
	// path. It returns an error wrapping ErrSyntax when src does not
	// parse, with no tokens: a partial reading would compare as a change.
	Tokens(ctx context.Context, path string, src []byte) ([]Token, error)
}

// Tokens returns the code tokens of src with the parser [ForPath] picks
// (see [Tokenizer]). It returns an error wrapping [ErrUnsupported] when
// there is no parser for the file's language in this build, or the parser
// cannot list tokens.
func Tokens(ctx context.Context, path string, src []byte) ([]Token, error) {
	lang, p, ok := ForPath(path)
	if !ok {
		if lang == "" {
			return nil, fmt.Errorf("code: %s: unknown language: %w", path, ErrUnsupported)
		}
		return nil, fmt.Errorf("code: %s: no %s parser in this build: %w", path, lang, ErrUnsupported)
	}
	t, ok := p.(Tokenizer)
	if !ok {
		return nil, fmt.Errorf("code: %s: the %s parser lists no tokens: %w", path, lang, ErrUnsupported)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return t.Tokens(ctx, path, src)
}

// FirstDifference compares two token lists and returns the index of the
// first token where they differ (the length of the shorter one when one
// is the start of the other), or -1 when they are equal.
func FirstDifference(a, b []Token) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i].Text != b[i].Text {
			return i
		}
	}
	if len(a) == len(b) {
		return -1
	}
	return n
}

var _ Tokenizer = goParser{}

// Tokens implements [Tokenizer] for Go: the tokens go/scanner reads, with
// the semicolons it inserts at line ends written as ";" and those before a
// closing brace or parenthesis left out (so that a block on one line or on
// several reads the same), the import declarations as the sorted list of
// what they import, and the comments the go command or cgo reads kept
// (see [Tokenizer]).
func (goParser) Tokens(ctx context.Context, path string, src []byte) ([]Token, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if src == nil {
		src = []byte{}
	}
	fset := token.NewFileSet()
	// The file must parse: a file that does not is no program to compare.
	af, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		var list scanner.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			e := list[0]
			return nil, &SyntaxError{Path: path, Line: e.Pos.Line, Column: e.Pos.Column, Msg: e.Msg}
		}
		return nil, err
	}
	// The cgo preamble (the doc comment of an import "C") is code. The
	// import declarations are compared as the set of what they import,
	// however grouped and ordered.
	preamble := map[int]bool{}
	doc := func(g *ast.CommentGroup) {
		if g != nil {
			for _, c := range g.List {
				preamble[fset.Position(c.Pos()).Offset] = true
			}
		}
	}
	type span struct{ from, to int }
	var imports []span
	var specs []Token
	for _, d := range af.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			continue
		}
		imports = append(imports, span{fset.Position(gd.Pos()).Offset, fset.Position(gd.End()).Offset})
		for _, spec := range gd.Specs {
			is, ok := spec.(*ast.ImportSpec)
			if !ok || is.Path == nil {
				continue
			}
			if is.Path.Value == `"C"` {
				doc(gd.Doc)
				doc(is.Doc)
			}
			name := ""
			if is.Name != nil {
				name = is.Name.Name + " "
			}
			specs = append(specs, Token{Text: "import " + name + is.Path.Value, Line: fset.Position(is.Pos()).Line})
		}
	}
	slices.SortStableFunc(specs, func(a, b Token) int { return strings.Compare(a.Text, b.Text) })
	inImport := func(off int) bool {
		for _, sp := range imports {
			if off >= sp.from && off < sp.to {
				return true
			}
		}
		return false
	}
	var s scanner.Scanner
	f := fset.AddFile(path, -1, len(src))
	s.Init(f, src, nil, scanner.ScanComments)
	var out []Token
	importsAt := -1 // where the import specs go: after the package clause
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		off := f.Offset(pos)
		line := f.Line(pos)
		switch {
		case tok == token.COMMENT:
			if preamble[off] || goDirective(lit) {
				out = append(out, Token{Text: lit, Line: line})
			}
			continue
		case inImport(off):
			if importsAt < 0 {
				importsAt = len(out)
			}
			continue
		case tok == token.SEMICOLON:
			lit = ";"
		}
		if lit == "" {
			lit = tok.String()
		}
		out = append(out, Token{Text: lit, Line: line})
	}
	if importsAt >= 0 {
		out = slices.Insert(out, importsAt, specs...)
	}
	return DropLayout(out), nil
}

// DropLayout drops the tokens layout alone puts in: a semicolon before a
// closing brace or parenthesis ends nothing ("{ f() }" on one line is
// "{\n\tf()\n}" on three), and a trailing comma before a closing
// bracket separates nothing (a call wrapped one argument a line).
func DropLayout(out []Token) []Token {
	kept := out[:0]
	for i, t := range out {
		if (t.Text == ";" || t.Text == ",") && i+1 < len(out) && closing(out[i+1].Text) {
			continue
		}
		kept = append(kept, t)
	}
	return kept
}

func closing(t string) bool { return t == "}" || t == ")" || t == "]" }

// goDirective reports a comment the go command, the compiler or cgo reads.
func goDirective(c string) bool {
	for _, p := range []string{"//go:", "// +build", "//+build", "//export ", "//line ", "/*line "} {
		if strings.HasPrefix(c, p) {
			return true
		}
	}
	return false
}
