//go:build cgo

package treesitter

import (
	"bytes"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	ts "github.com/tree-sitter/go-tree-sitter"
	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	tspy "github.com/tree-sitter/tree-sitter-python/bindings/go"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"

	"github.com/vouchgate/vouch/code"
)

// Available reports whether this build has the tree-sitter parsers. It is
// true: the package was built with cgo and registered its parsers.
const Available = true

func init() {
	typescript := newGrammar("typescript", tsts.LanguageTypescript())
	tsx := newGrammar("tsx", tsts.LanguageTSX())
	javascript := newGrammar("javascript", tsjs.Language())
	python := newGrammar("python", tspy.Language())

	code.Register(code.LangTypeScript, []string{".ts", ".tsx", ".mts", ".cts"},
		esParser{lang: code.LangTypeScript, grammar: typescript, tsx: tsx})
	code.Register(code.LangJavaScript, []string{".js", ".jsx", ".mjs", ".cjs"},
		esParser{lang: code.LangJavaScript, grammar: javascript})
	code.Register(code.LangPython, []string{".py", ".pyi"}, pyParser{grammar: python})
}

// grammar is one tree-sitter language with a free list of parsers for it.
//
// A free list, not a sync.Pool: go-tree-sitter sets no finalizer on its
// parsers, so a parser that a sync.Pool drops at a garbage collection
// would leak its C memory. The free list holds at most GOMAXPROCS idle
// parsers; a parser that does not fit is closed at once.
type grammar struct {
	name string
	lang *ts.Language
	free chan *ts.Parser
}

func newGrammar(name string, ptr unsafe.Pointer) *grammar {
	return &grammar{
		name: name,
		lang: ts.NewLanguage(ptr),
		free: make(chan *ts.Parser, runtime.GOMAXPROCS(0)),
	}
}

// parse parses src into a tree the caller must Close.
func (g *grammar) parse(src []byte) (*ts.Tree, error) {
	var p *ts.Parser
	select {
	case p = <-g.free:
	default:
		p = ts.NewParser()
		if err := p.SetLanguage(g.lang); err != nil {
			p.Close()
			return nil, fmt.Errorf("treesitter: %s grammar: %w", g.name, err)
		}
	}
	tree := p.Parse(src, nil)
	p.Reset()
	select {
	case g.free <- p:
	default:
		p.Close()
	}
	if tree == nil {
		return nil, fmt.Errorf("treesitter: %s: the parser returned no tree", g.name)
	}
	return tree, nil
}

// utf8BOM is skipped before parsing: tree-sitter would see it as an
// error. It is on the first line, so line numbers do not move.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// parseTree parses src with g, runs walk over the root node, closes the
// tree and returns the file with a *code.SyntaxError when the tree has an
// error node.
func parseTree(g *grammar, lang, path string, src []byte, walk func(root *ts.Node, src []byte, f *code.File)) (*code.File, error) {
	src = bytes.TrimPrefix(src, utf8BOM)
	tree, err := g.parse(src)
	if err != nil {
		return nil, fmt.Errorf("code: %s: %w", path, err)
	}
	defer tree.Close()
	root := tree.RootNode()
	f := &code.File{Lang: lang}
	walk(root, src, f)
	if root.HasError() {
		return f, syntaxError(path, root, src)
	}
	return f, nil
}

// syntaxError describes the first error or missing node under root.
func syntaxError(path string, root *ts.Node, src []byte) error {
	n := firstError(root)
	if n == nil {
		n = root
	}
	pos := n.StartPosition()
	e := &code.SyntaxError{Path: path, Line: int(pos.Row) + 1, Column: int(pos.Column) + 1}
	switch {
	case n.IsMissing():
		e.Msg = "missing " + strconv.Quote(n.Kind())
	case n.StartByte() < n.EndByte():
		tok := string(src[n.StartByte():n.EndByte()])
		if i := strings.IndexAny(tok, "\r\n"); i >= 0 {
			tok = tok[:i]
		}
		if len(tok) > 24 {
			tok = tok[:24] + "..."
		}
		e.Msg = "unexpected " + strconv.Quote(tok)
	default:
		e.Msg = "unexpected end of input"
	}
	return e
}

// firstError returns the first error or missing node in document order.
func firstError(n *ts.Node) *ts.Node {
	if n.IsError() || n.IsMissing() {
		return n
	}
	if !n.HasError() {
		return nil
	}
	for i := range n.ChildCount() {
		if e := firstError(n.Child(i)); e != nil {
			return e
		}
	}
	return nil
}

// startLine returns the 1-based line n starts on.
func startLine(n *ts.Node) int { return int(n.StartPosition().Row) + 1 }

// endLine returns the 1-based line of n's last character: a node that
// ends at the start of a line (after its newline) ends on the line before.
func endLine(n *ts.Node) int {
	end := n.EndPosition()
	if end.Column == 0 && end.Row > n.StartPosition().Row {
		return int(end.Row)
	}
	return int(end.Row) + 1
}

// text returns the source text of n.
func text(n *ts.Node, src []byte) string {
	return string(src[n.StartByte():n.EndByte()])
}
