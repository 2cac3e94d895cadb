//go:build cgo

package treesitter

import (
	"bytes"
	"context"
	"errors"
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

// maxBrokenBytes is the size above which a file with a syntax error is not
// parsed to its end: tree-sitter's error recovery on text that is not code
// takes seconds a megabyte, and a file with errors leaves its checks
// undecided whatever the rest of it holds.
const maxBrokenBytes = 1 << 20

// brokenError is returned by parse for a file over maxBrokenBytes once the
// parser met a syntax error, at byte offset at (where the parser was).
type brokenError struct{ at int }

func (e *brokenError) Error() string {
	return "a syntax error, in a file over 1 MiB: not parsed further"
}

// parse parses src into a tree the caller must Close. It gives up with
// ctx's error when ctx ends (tree-sitter calls back while it parses), and
// with a *brokenError on a large file with a syntax error.
func (g *grammar) parse(ctx context.Context, src []byte) (*ts.Tree, error) {
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
	n := len(src)
	broken := -1
	tree := p.ParseWithOptions(func(i int, _ ts.Point) []byte {
		if i < n {
			return src[i:]
		}
		return nil
	}, nil, &ts.ParseOptions{ProgressCallback: func(st ts.ParseState) bool {
		if broken < 0 && n > maxBrokenBytes && st.HasError {
			broken = int(st.CurrentByteOffset)
		}
		return broken >= 0 || ctx.Err() != nil
	}})
	p.Reset()
	select {
	case g.free <- p:
	default:
		p.Close()
	}
	if tree == nil {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if broken >= 0 {
			return nil, &brokenError{at: broken}
		}
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
func parseTree(ctx context.Context, g *grammar, lang, path string, src []byte, walk func(root *ts.Node, src []byte, f *code.File)) (*code.File, error) {
	src = bytes.TrimPrefix(src, utf8BOM)
	tree, err := g.parse(ctx, src)
	var be *brokenError
	if errors.As(err, &be) {
		at := min(be.at, len(src))
		line := bytes.Count(src[:at], []byte{'\n'}) + 1
		col := at - bytes.LastIndexByte(src[:at], '\n')
		return nil, &code.SyntaxError{Path: path, Line: line, Column: col, Msg: be.Error()}
	}
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

// firstError returns the first error or missing node in document order,
// walking with a cursor into the subtrees that hold errors only.
func firstError(n *ts.Node) *ts.Node {
	if !n.HasError() {
		return nil
	}
	c := n.Walk()
	defer c.Close()
	for {
		cur := c.Node()
		if cur.IsError() || cur.IsMissing() {
			return cur
		}
		if cur.HasError() && c.GotoFirstChild() {
			continue
		}
		for !c.GotoNextSibling() {
			if !c.GotoParent() {
				return nil
			}
		}
	}
}

// children returns the children of n, named or not, walked with a cursor:
// tree-sitter finds Child(i) by walking the first i children, so a loop
// over Child(i) (or NamedChild(i)) is quadratic in their number.
func children(n *ts.Node) []ts.Node {
	c := n.Walk()
	defer c.Close()
	return n.Children(c)
}

// namedChildren returns the named children of n (see children).
func namedChildren(n *ts.Node) []ts.Node {
	c := n.Walk()
	defer c.Close()
	return n.NamedChildren(c)
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
