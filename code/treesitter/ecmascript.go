//go:build cgo

package treesitter

import (
	"context"
	"path/filepath"
	"strings"

	ts "github.com/tree-sitter/go-tree-sitter"

	"github.com/vouchgate/vouch/code"
)

// esParser parses TypeScript or JavaScript. tsx, when set, is the grammar
// for .tsx files.
type esParser struct {
	lang    string
	grammar *grammar
	tsx     *grammar
}

var _ code.Parser = esParser{}

// Parse implements code.Parser.
func (p esParser) Parse(ctx context.Context, path string, src []byte) (*code.File, error) {
	g := p.grammar
	if p.tsx != nil && strings.EqualFold(filepath.Ext(path), ".tsx") {
		g = p.tsx
	}
	return parseTree(ctx, g, p.lang, path, src, func(root *ts.Node, src []byte, f *code.File) {
		w := esWalker{src: src, f: f, exportedNames: map[string]bool{}}
		w.collectExports(root)
		w.statements(root, scope{exported: true, top: true})
	})
}

// scope says how declarations in a statement list become exported.
type scope struct {
	// exported: an "export" in this list exports (false inside a
	// namespace that is not itself exported).
	exported bool
	// implicit: every declaration is exported (a declare module block).
	implicit bool
	// top: the program's own statements, where export clauses apply.
	top bool
}

type esWalker struct {
	src []byte
	f   *code.File
	// exportedNames are the local names exported by export clauses,
	// export default name, and CommonJS assignments.
	exportedNames map[string]bool
}

func (w *esWalker) text(n *ts.Node) string { return text(n, w.src) }

// at is a node by its place among its parent's children (all of them,
// named or not), so that what precedes it (decorators, comments) is found
// without tree-sitter's PrevSibling, which walks from the first child.
type at struct {
	list []ts.Node
	i    int
}

func (a at) node() *ts.Node { return &a.list[a.i] }

// collectExports records the names that statements of the program export
// by name rather than by wrapping a declaration.
func (w *esWalker) collectExports(root *ts.Node) {
	for _, st := range namedChildren(root) {
		switch st.Kind() {
		case "export_statement":
			if st.ChildByFieldName("declaration") != nil || st.ChildByFieldName("source") != nil {
				continue
			}
			if v := st.ChildByFieldName("value"); v != nil {
				if v.Kind() == "identifier" {
					w.exportedNames[w.text(v)] = true
				}
				continue
			}
			for _, clause := range namedChildren(&st) {
				if clause.Kind() != "export_clause" {
					continue
				}
				for _, spec := range namedChildren(&clause) {
					if spec.Kind() != "export_specifier" {
						continue
					}
					if name := spec.ChildByFieldName("name"); name != nil {
						w.exportedNames[w.text(name)] = true
					}
				}
			}
		case "expression_statement":
			as := st.NamedChild(0)
			if as == nil || as.Kind() != "assignment_expression" {
				continue
			}
			left, right := as.ChildByFieldName("left"), as.ChildByFieldName("right")
			if left == nil || right == nil {
				continue
			}
			switch l := w.text(left); {
			case l == "module.exports":
				switch right.Kind() {
				case "identifier":
					w.exportedNames[w.text(right)] = true
				case "object":
					for _, prop := range namedChildren(right) {
						switch prop.Kind() {
						case "shorthand_property_identifier":
							w.exportedNames[w.text(&prop)] = true
						case "pair":
							if v := prop.ChildByFieldName("value"); v != nil && v.Kind() == "identifier" {
								w.exportedNames[w.text(v)] = true
							}
						}
					}
				}
			case strings.HasPrefix(l, "exports.") || strings.HasPrefix(l, "module.exports."):
				if right.Kind() == "identifier" {
					w.exportedNames[w.text(right)] = true
				}
			}
		}
	}
}

// statements walks the statements of a program, namespace or module body.
func (w *esWalker) statements(list *ts.Node, sc scope) {
	kids := children(list)
	for i := range kids {
		if kids[i].IsNamed() {
			w.statement(&kids[i], at{kids, i}, false, false, sc)
		}
	}
}

// statement adds the symbols that the statement n declares. anchor is the
// node the declaration starts with and its doc comment precedes: n itself,
// or the export statement around it. exported says whether an "export"
// wraps it; isDefault whether that is an "export default".
func (w *esWalker) statement(n *ts.Node, anchor at, exported, isDefault bool, sc scope) {
	exp := func(name string) bool {
		return sc.implicit || (exported && sc.exported) || (sc.top && w.exportedNames[name])
	}
	switch n.Kind() {
	case "export_statement":
		isDefault := false
		for _, c := range children(n) {
			if c.Kind() == "default" {
				isDefault = true
				break
			}
		}
		if decl := n.ChildByFieldName("declaration"); decl != nil {
			w.statement(decl, anchor, true, isDefault, sc)
			return
		}
		if v := n.ChildByFieldName("value"); v != nil && isDefault {
			w.defaultValue(v, anchor, sc)
		}
	case "function_declaration", "generator_function_declaration", "function_signature":
		name := w.declName(n, isDefault)
		w.add(code.Symbol{Name: name, Kind: code.KindFunction, Exported: exp(name)}, anchor, n)
	case "class_declaration", "abstract_class_declaration":
		name := w.declName(n, isDefault)
		w.class(n, anchor, name, exp(name))
	case "interface_declaration":
		name := w.declName(n, isDefault)
		w.add(code.Symbol{Name: name, Kind: code.KindInterface, Exported: exp(name)}, anchor, n)
	case "type_alias_declaration", "enum_declaration":
		name := w.declName(n, isDefault)
		w.add(code.Symbol{Name: name, Kind: code.KindType, Exported: exp(name)}, anchor, n)
	case "lexical_declaration", "variable_declaration":
		var decls []*ts.Node
		for _, d := range namedChildren(n) {
			if d.Kind() == "variable_declarator" {
				decls = append(decls, &d)
			}
		}
		for _, d := range decls {
			nameNode, value := d.ChildByFieldName("name"), d.ChildByFieldName("value")
			if nameNode == nil || nameNode.Kind() != "identifier" || !isFunctionValue(value) {
				continue
			}
			name := w.text(nameNode)
			s := code.Symbol{Name: name, Kind: code.KindConst, Exported: exp(name)}
			if len(decls) == 1 {
				w.add(s, anchor, n)
			} else {
				// tsc gives the statement's JSDoc to no declarator of
				// several; the declarator spans its own lines.
				s.Start, s.End = startLine(d), endLine(d)
				w.f.Symbols = append(w.f.Symbols, s)
			}
		}
	case "ambient_declaration":
		for _, c := range namedChildren(n) {
			switch c.Kind() {
			case "module", "internal_module":
				// declare module "x" { ... }, declare namespace N { ... }:
				// every declaration inside is exported.
				if body := c.ChildByFieldName("body"); body != nil {
					w.statements(body, scope{exported: true, implicit: true})
				}
			default:
				w.statement(&c, anchor, exported, isDefault, sc)
			}
		}
	case "internal_module", "module":
		if body := n.ChildByFieldName("body"); body != nil {
			w.statements(body, scope{exported: exported && sc.exported, implicit: sc.implicit})
		}
	case "expression_statement":
		e := n.NamedChild(0)
		if e == nil {
			return
		}
		switch e.Kind() {
		case "internal_module":
			w.statement(e, anchor, exported, isDefault, sc)
		case "assignment_expression":
			// exports.f = function () {}; module.exports.f = ...
			left, right := e.ChildByFieldName("left"), e.ChildByFieldName("right")
			if left == nil || left.Kind() != "member_expression" || !isFunctionValue(right) {
				return
			}
			obj, prop := left.ChildByFieldName("object"), left.ChildByFieldName("property")
			if obj == nil || prop == nil {
				return
			}
			if o := w.text(obj); o != "exports" && o != "module.exports" {
				return
			}
			w.add(code.Symbol{Name: w.text(prop), Kind: code.KindConst, Exported: true}, anchor, n)
		}
	}
}

// defaultValue adds the symbol of export default <expression>.
func (w *esWalker) defaultValue(v *ts.Node, anchor at, sc scope) {
	switch v.Kind() {
	case "function_expression", "function", "generator_function":
		name := w.declName(v, true)
		w.add(code.Symbol{Name: name, Kind: code.KindFunction, Exported: true}, anchor, v)
	case "class":
		w.class(v, anchor, w.declName(v, true), true)
	default:
		if isFunctionValue(v) {
			w.add(code.Symbol{Name: "default", Kind: code.KindConst, Exported: true}, anchor, v)
		}
	}
}

// declName returns the name of a declaration, "default" for an anonymous
// default export.
func (w *esWalker) declName(n *ts.Node, isDefault bool) string {
	if name := n.ChildByFieldName("name"); name != nil {
		return w.text(name)
	}
	if isDefault {
		return "default"
	}
	return ""
}

// class adds a class and its members.
func (w *esWalker) class(n *ts.Node, anchor at, name string, exported bool) {
	if name == "" {
		return
	}
	w.add(code.Symbol{Name: name, Kind: code.KindClass, Exported: exported}, anchor, n)
	body := n.ChildByFieldName("body")
	if body == nil {
		return
	}
	members := children(body)
	for i := range members {
		m := &members[i]
		if !m.IsNamed() {
			continue
		}
		var nameNode *ts.Node
		switch m.Kind() {
		case "method_definition", "abstract_method_signature", "method_signature":
			nameNode = m.ChildByFieldName("name")
		case "public_field_definition", "field_definition":
			if !isFunctionValue(m.ChildByFieldName("value")) {
				continue
			}
			nameNode = m.ChildByFieldName("name")
			if nameNode == nil {
				nameNode = m.ChildByFieldName("property") // JavaScript
			}
		default:
			continue
		}
		if nameNode == nil {
			continue
		}
		mname := w.memberName(nameNode)
		private := nameNode.Kind() == "private_property_identifier"
		for _, c := range namedChildren(m) {
			if c.Kind() == "accessibility_modifier" && w.text(&c) == "private" {
				private = true
			}
		}
		w.add(code.Symbol{
			Name: mname, Kind: code.KindMethod, Receiver: name,
			Exported: exported && !private,
		}, at{members, i}, m)
	}
}

// memberName returns a member's name without the quotes of a string name.
func (w *esWalker) memberName(n *ts.Node) string {
	s := w.text(n)
	if n.Kind() == "string" && len(s) >= 2 {
		s = s[1 : len(s)-1]
	}
	return s
}

// add appends s spanning from anchor (or the decorators before it) to the
// end of decl, with the JSDoc comment before it.
func (w *esWalker) add(s code.Symbol, anchor at, decl *ts.Node) {
	if s.Name == "" {
		return
	}
	first := leadingDecorators(anchor)
	s.Start = startLine(first.node())
	s.End = max(endLine(decl), endLine(anchor.node()))
	if doc := w.jsDoc(first); doc != nil {
		s.HasDoc = true
		s.DocStart, s.DocEnd = startLine(doc), endLine(doc)
	}
	w.f.Symbols = append(w.f.Symbols, s)
}

// leadingDecorators returns the first of the decorators that precede n as
// its siblings (as TypeScript's grammar places a method's decorators,
// possibly with comments between them), or n when there are none.
func leadingDecorators(n at) at {
	first := n
	for i := n.i - 1; i >= 0; i-- {
		switch n.list[i].Kind() {
		case "decorator":
			first.i = i
			continue
		case "comment":
			continue
		}
		break
	}
	return first
}

// jsDoc returns the JSDoc comment that documents the declaration starting
// at first, or nil; see the package documentation for the rules.
func (w *esWalker) jsDoc(first at) *ts.Node {
	// The comments right before first, nearest first, and the token
	// before them.
	var comments []*ts.Node
	var prev *ts.Node
	for i := first.i - 1; i >= 0; i-- {
		if first.list[i].Kind() != "comment" {
			prev = &first.list[i]
			break
		}
		comments = append(comments, &first.list[i])
	}
	for _, c := range comments {
		if prev != nil && startLine(c) <= endLine(prev) {
			// On the line where the previous token ends: a trailing
			// comment of that line, and so are the ones before it.
			break
		}
		if isJSDoc(w.text(c)) {
			return c
		}
	}
	return nil
}

// isJSDoc reports whether a comment is a JSDoc block with some text.
func isJSDoc(c string) bool {
	if !strings.HasPrefix(c, "/**") || strings.HasPrefix(c, "/**/") || !strings.HasSuffix(c, "*/") || len(c) < 5 {
		return false
	}
	body := c[3 : len(c)-2]
	for line := range strings.Lines(body) {
		line = strings.TrimSpace(line)
		line = strings.TrimLeft(line, "*")
		if strings.TrimSpace(line) != "" {
			return true
		}
	}
	return false
}

// isFunctionValue reports whether an initializer is a function: an arrow
// function or function expression, in parentheses, under as, satisfies or
// !, or passed as the first argument of a call (memo(() => ...)).
func isFunctionValue(v *ts.Node) bool {
	for v != nil {
		switch v.Kind() {
		case "arrow_function", "function_expression", "function", "generator_function":
			return true
		case "parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression":
			v = v.NamedChild(0)
		case "call_expression":
			args := v.ChildByFieldName("arguments")
			if args == nil {
				return false
			}
			v = args.NamedChild(0)
			if v == nil {
				return false
			}
			switch v.Kind() {
			case "arrow_function", "function_expression", "function", "generator_function":
				return true
			}
			return false
		default:
			return false
		}
	}
	return false
}
