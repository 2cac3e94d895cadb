//go:build cgo

package treesitter

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	ts "github.com/tree-sitter/go-tree-sitter"

	"github.com/vouchgate/vouch/code"
)

var (
	_ code.Tokenizer = esParser{}
	_ code.Tokenizer = pyParser{}
)

// Tokens implements code.Tokenizer for TypeScript and JavaScript: the
// syntax tree written out in document order, each node as its kind and
// each leaf as its text, without comments (but for the directives and
// pragmas compilers and bundlers read: see code.Tokenizer).
func (p esParser) Tokens(ctx context.Context, path string, src []byte) ([]code.Token, error) {
	g := p.grammar
	if p.tsx != nil && strings.EqualFold(filepath.Ext(path), ".tsx") {
		g = p.tsx
	}
	return treeTokens(ctx, g, path, src, func(n *ts.Node) bool {
		switch n.Kind() {
		case "comment", "html_comment":
			return !esPragma.Match(src[n.StartByte():n.EndByte()])
		}
		return false
	})
}

// esPragma matches the comments a compiler or bundler reads: a
// triple-slash directive, a JSX pragma, a pure annotation, webpack's and
// Vite's magic comments, Flow's marker.
var esPragma = regexp.MustCompile(`^///|@jsx|@__PURE__|#__PURE__|@__NOINLINE__|webpack[A-Z]|@vite-ignore|@flow\b`)

// Tokens implements code.Tokenizer for Python: the syntax tree written out
// in document order, each node as its kind and each leaf as its text,
// without comments (but for a shebang and a coding declaration) and
// without docstrings (the string that is the first statement of a module,
// class or function body). The tree holds the blocks, so a statement moved
// in or out of one is a difference.
func (p pyParser) Tokens(ctx context.Context, path string, src []byte) ([]code.Token, error) {
	return treeTokens(ctx, p.grammar, path, src, func(n *ts.Node) bool {
		switch n.Kind() {
		case "comment":
			c := src[n.StartByte():n.EndByte()]
			return !(n.StartPosition().Row == 0 && bytes.HasPrefix(c, []byte("#!")) ||
				n.StartPosition().Row <= 1 && pyCoding.Match(c))
		case "expression_statement":
			return pyDocstring(n)
		}
		return false
	})
}

// pyCoding matches a Python coding declaration (PEP 263).
var pyCoding = regexp.MustCompile(`^#.*?coding[:=]`)

// pyDocstring reports whether statement n is a docstring: a string (or
// strings side by side) alone in a statement that is the first of a
// module, or of the body of a class or a function, comments aside.
func pyDocstring(n *ts.Node) bool {
	if n.NamedChildCount() != 1 {
		return false
	}
	switch n.NamedChild(0).Kind() {
	case "string", "concatenated_string":
	default:
		return false
	}
	parent := n.Parent()
	if parent == nil {
		return false
	}
	switch parent.Kind() {
	case "module":
	case "block":
		gp := parent.Parent()
		if gp == nil || gp.Kind() != "function_definition" && gp.Kind() != "class_definition" {
			return false
		}
	default:
		return false
	}
	for _, c := range namedChildren(parent) {
		if c.Kind() == "comment" {
			continue
		}
		return c.Id() == n.Id()
	}
	return false
}

// treeTokens parses src and writes its tree out: "(kind" when a node with
// children opens, its leaves' text, ")" when it closes. Subtrees skip
// reports are left out. A tree with an error gives a *code.SyntaxError and
// no tokens.
func treeTokens(ctx context.Context, g *grammar, path string, src []byte, skip func(*ts.Node) bool) ([]code.Token, error) {
	src = bytes.TrimPrefix(src, utf8BOM)
	tree, err := g.parse(ctx, src)
	if err != nil {
		if be, ok := err.(*brokenError); ok {
			at := min(be.at, len(src))
			return nil, &code.SyntaxError{Path: path, Line: bytes.Count(src[:at], []byte{'\n'}) + 1, Column: 1, Msg: be.Error()}
		}
		return nil, fmt.Errorf("code: %s: %w", path, err)
	}
	defer tree.Close()
	root := tree.RootNode()
	if root.HasError() {
		return nil, syntaxError(path, root, src)
	}
	var out []code.Token
	c := root.Walk()
	defer c.Close()
	for {
		n := c.Node()
		entered := false
		if !skip(n) {
			line := int(n.StartPosition().Row) + 1
			if n.ChildCount() == 0 {
				if n.EndByte() > n.StartByte() || n.IsNamed() {
					out = append(out, code.Token{Text: leafText(n.Kind(), src[n.StartByte():n.EndByte()]), Line: line})
				}
			} else {
				out = append(out, code.Token{Text: "(" + n.Kind(), Line: line})
				if c.GotoFirstChild() {
					entered = true
				}
			}
		}
		if entered {
			continue
		}
		// Leave the node: close every parent whose last child this was.
		for !c.GotoNextSibling() {
			if !c.GotoParent() {
				return code.DropLayout(out), ctx.Err()
			}
			out = append(out, code.Token{Text: ")", Line: int(c.Node().EndPosition().Row) + 1})
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// leafText is a leaf's text as compared: a string's quotes in one style
// ('a' and "a" are the same string in Python and JavaScript).
func leafText(kind string, b []byte) string {
	t := string(b)
	if kind == "string_start" || kind == "string_end" || strings.Trim(t, `'"`) == "" {
		return strings.ReplaceAll(t, "'", `"`)
	}
	return t
}
