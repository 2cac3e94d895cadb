//go:build cgo

package treesitter

import (
	"context"
	"strings"

	ts "github.com/tree-sitter/go-tree-sitter"

	"github.com/vouchgate/vouch/code"
)

// pyParser parses Python.
type pyParser struct {
	grammar *grammar
}

var _ code.Parser = pyParser{}

// Parse implements code.Parser.
func (p pyParser) Parse(ctx context.Context, path string, src []byte) (*code.File, error) {
	return parseTree(ctx, p.grammar, code.LangPython, path, src, func(root *ts.Node, src []byte, f *code.File) {
		w := pyWalker{src: src, f: f}
		w.collectAll(root)
		w.block(root, "", true)
	})
}

type pyWalker struct {
	src []byte
	f   *code.File
	// all holds the names in __all__; nil when the module has none.
	all map[string]bool
}

func (w *pyWalker) text(n *ts.Node) string { return text(n, w.src) }

// collectAll reads __all__ = [...] / (...) and __all__ += [...] at module
// level.
func (w *pyWalker) collectAll(root *ts.Node) {
	for _, st := range namedChildren(root) {
		if st.Kind() != "expression_statement" {
			continue
		}
		as := st.NamedChild(0)
		if as == nil || (as.Kind() != "assignment" && as.Kind() != "augmented_assignment") {
			continue
		}
		left, right := as.ChildByFieldName("left"), as.ChildByFieldName("right")
		if left == nil || right == nil || w.text(left) != "__all__" {
			continue
		}
		if right.Kind() != "list" && right.Kind() != "tuple" {
			continue
		}
		if w.all == nil || as.Kind() == "assignment" {
			w.all = map[string]bool{}
		}
		for _, s := range namedChildren(right) {
			if s.Kind() == "string" {
				if content, ok := w.stringContent(&s); ok {
					w.all[content] = true
				}
			}
		}
	}
}

// block adds the definitions in a module (receiver "") or class body.
// exported says whether the enclosing class is exported.
func (w *pyWalker) block(b *ts.Node, receiver string, exported bool) {
	for _, a := range namedChildren(b) {
		anchor := &a
		def := anchor
		if anchor.Kind() == "decorated_definition" {
			def = anchor.ChildByFieldName("definition")
			if def == nil {
				continue
			}
		}
		switch def.Kind() {
		case "function_definition":
			name := w.name(def)
			kind := code.KindFunction
			if receiver != "" {
				kind = code.KindMethod
			}
			w.add(code.Symbol{Name: name, Kind: kind, Receiver: receiver, Exported: w.exported(name, receiver, exported)}, anchor, def)
		case "class_definition":
			name := w.name(def)
			if name == "" {
				continue
			}
			exp := w.exported(name, receiver, exported)
			w.add(code.Symbol{Name: name, Kind: code.KindClass, Receiver: receiver, Exported: exp}, anchor, def)
			if body := def.ChildByFieldName("body"); body != nil {
				inner := name
				if receiver != "" {
					inner = receiver + "." + name
				}
				w.block(body, inner, exp)
			}
		case "expression_statement":
			// name = lambda ...: at module level only.
			if receiver != "" {
				continue
			}
			as := def.NamedChild(0)
			if as == nil || as.Kind() != "assignment" {
				continue
			}
			left, right := as.ChildByFieldName("left"), as.ChildByFieldName("right")
			if left == nil || right == nil || left.Kind() != "identifier" || right.Kind() != "lambda" {
				continue
			}
			name := w.text(left)
			w.f.Symbols = append(w.f.Symbols, code.Symbol{
				Name: name, Kind: code.KindConst, Exported: w.exported(name, "", true),
				Start: startLine(def), End: endLine(def),
			})
		}
	}
}

func (w *pyWalker) name(def *ts.Node) string {
	if n := def.ChildByFieldName("name"); n != nil {
		return w.text(n)
	}
	return ""
}

// exported applies __all__ and the underscore convention.
func (w *pyWalker) exported(name, receiver string, classExported bool) bool {
	if receiver == "" {
		if w.all != nil {
			return w.all[name]
		}
		return !strings.HasPrefix(name, "_")
	}
	dunder := len(name) > 4 && strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__")
	return classExported && (!strings.HasPrefix(name, "_") || dunder)
}

// add appends s spanning anchor (the decorated definition, from its first
// decorator) with the docstring of def's body.
func (w *pyWalker) add(s code.Symbol, anchor, def *ts.Node) {
	if s.Name == "" {
		return
	}
	s.Start, s.End = startLine(anchor), endLine(anchor)
	if doc := w.docstring(def.ChildByFieldName("body")); doc != nil {
		s.HasDoc = true
		s.DocStart, s.DocEnd = startLine(doc), endLine(doc)
	}
	w.f.Symbols = append(w.f.Symbols, s)
}

// docstring returns the string literal that is the first statement of
// body, when it is a docstring with some text.
func (w *pyWalker) docstring(body *ts.Node) *ts.Node {
	if body == nil {
		return nil
	}
	for _, st := range namedChildren(body) {
		if st.Kind() == "comment" {
			continue
		}
		if st.Kind() != "expression_statement" || st.NamedChildCount() != 1 {
			return nil
		}
		s := st.NamedChild(0)
		var parts []*ts.Node
		switch s.Kind() {
		case "string":
			parts = []*ts.Node{s}
		case "concatenated_string":
			for _, p := range namedChildren(s) {
				if p.Kind() == "string" {
					parts = append(parts, &p)
				}
			}
		default:
			return nil
		}
		text := false
		for _, p := range parts {
			content, ok := w.stringContent(p)
			if !ok {
				return nil // an f-string or bytes: not a docstring
			}
			text = text || strings.TrimSpace(content) != ""
		}
		if !text {
			return nil
		}
		return s
	}
	return nil
}

// stringContent returns the text between the quotes of a string literal,
// escapes unprocessed. ok is false for f-strings and bytes, which are not
// docstrings (nor names in __all__).
func (w *pyWalker) stringContent(s *ts.Node) (content string, ok bool) {
	var start, end *ts.Node
	for _, c := range children(s) {
		switch c.Kind() {
		case "string_start":
			start = &c
		case "string_end":
			end = &c
		case "interpolation":
			return "", false
		}
	}
	if start == nil || end == nil || end.StartByte() < start.EndByte() {
		return "", false
	}
	prefix := strings.TrimRight(w.text(start), `"'`)
	if strings.ContainsAny(prefix, "fFbBtT") {
		return "", false
	}
	return string(w.src[start.EndByte():end.StartByte()]), true
}
