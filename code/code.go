// Package code finds the symbols a source file declares, and which of them
// carry a doc comment, with a real parser rather than regular expressions.
//
// A [Parser] turns one file into a [File]: its language and its [Symbol]s
// (functions, methods, classes, types, interfaces, and constants or
// variables holding a function), each with the lines of its declaration
// and of its doc comment. Parsers register by language with [Register];
// [ForPath] picks one by file extension and [Parse] parses a file in one
// call. [FileFor] parses a file of a verification's workspace (a
// vouch.Subject) at most once for all the checks of that verification,
// within the policy's parse budget.
//
// This package parses Go itself, with go/parser, and registers it from
// init. TypeScript, JavaScript and Python are parsed by package
// code/treesitter, which needs cgo: import it for its side effect. In a
// build without it (CGO_ENABLED=0, or the package not imported) those
// languages have no parser and [Parse] returns an error wrapping
// [ErrUnsupported]; a check should then be undecided, not failed.
//
// # Lines
//
// Lines are 1-based and ranges inclusive, as in vouch's contracts. A line
// ends at "\n", so files with CRLF line endings number their lines like
// the same file with LF endings; a last line without a newline counts as a
// line.
//
// # Doc comments
//
// What counts as a doc comment follows each language's own tooling:
//
//   - Go: the comment group go/parser attaches as the declaration's Doc,
//     which ends on the line right before the declaration. A comment
//     separated from the declaration by a blank line is not a doc comment.
//     Directive lines (//go:generate, //nolint:...) do not count as text.
//   - TypeScript and JavaScript: a JSDoc block, /** ... */, before the
//     declaration, as tsc attaches it (see package code/treesitter).
//   - Python: a docstring, the string literal that is the first statement
//     of the body.
//
// A doc comment with no text (/** */, an empty docstring) is treated as no
// doc comment: it documents nothing.
//
// # Syntax errors
//
// A file with syntax errors gives an error wrapping [ErrSyntax] (a
// *[SyntaxError] with the position of the first error) and, when the
// parser could recover, a partial File as well, like go/parser.ParseFile.
// Callers that need certainty treat such a file as undecided.
package code

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
)

// Symbol kinds, the values of [Symbol.Kind].
const (
	KindFunction  = "function"  // a top-level function declaration
	KindMethod    = "method"    // a method of a class or a Go receiver type
	KindClass     = "class"     // a class (TS, JS, Python)
	KindConst     = "const"     // a constant or variable holding a function: const f = () => {}
	KindType      = "type"      // a type declaration: Go types, TS type aliases and enums
	KindInterface = "interface" // an interface (Go, TS)
)

// Language names, the values of [File.Lang] and the languages [ForPath]
// knows by extension.
const (
	LangGo         = "go"
	LangTypeScript = "typescript"
	LangJavaScript = "javascript"
	LangPython     = "python"
)

// ErrUnsupported reports that no parser for a file's language is available
// in this build (or that its extension belongs to no known language).
// Callers turn it into an undecided check, not a failure.
var ErrUnsupported = errors.New("code: language not supported in this build")

// ErrSyntax reports that a file does not parse. Errors returned by parsers
// for malformed sources wrap it; see [SyntaxError].
var ErrSyntax = errors.New("code: syntax error")

// SyntaxError is the first syntax error found in a file. It wraps
// [ErrSyntax], so errors.Is(err, ErrSyntax) holds.
type SyntaxError struct {
	Path   string // the path given to the parser
	Line   int    // 1-based line of the error
	Column int    // 1-based column, in bytes
	Msg    string // what is wrong ("expected ';'", "missing ')'")
}

// Error formats the error as "path:line:col: syntax error: msg".
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d:%d: syntax error: %s", e.Path, e.Line, e.Column, e.Msg)
}

// Unwrap returns [ErrSyntax].
func (e *SyntaxError) Unwrap() error { return ErrSyntax }

// Symbol is one declaration found in a file.
type Symbol struct {
	// Name is the declared name: "parse". An anonymous default export in
	// TS or JS is named "default".
	Name string
	// Kind is one of the Kind constants.
	Kind string
	// Receiver is the class (TS, JS, Python) or receiver type (Go, without
	// "*" and type parameters) a method belongs to. Python classes nested
	// in a class have the enclosing class as Receiver too, and the methods
	// of a nested class have "Outer.Inner". It is "" for everything else.
	Receiver string
	// Start and End are the 1-based inclusive lines of the whole
	// declaration, from its first decorator or "export" keyword to its
	// last line, not including its doc comment (except a Python
	// docstring, which is inside the body).
	Start, End int
	// DocStart and DocEnd are the lines of the doc comment; 0 when there
	// is none.
	DocStart, DocEnd int
	// HasDoc reports whether the declaration has a doc comment with text.
	HasDoc bool
	// Exported reports whether the symbol is visible outside its module:
	// an upper-case Go name (for a method, of both the method and its
	// receiver type); a TS/JS declaration under "export", or named in an
	// export clause; a Python name listed in __all__ or, without __all__,
	// one not starting with "_". A method is exported when its class is
	// and it is not private.
	Exported bool
}

// QualifiedName returns "Receiver.Name" for a method ("Parser.parse") and
// the plain name otherwise.
func (s Symbol) QualifiedName() string {
	if s.Receiver == "" {
		return s.Name
	}
	return s.Receiver + "." + s.Name
}

// Extent returns the lines the symbol covers with its doc comment: from
// the doc comment's first line (or the declaration's, without one) to the
// declaration's last line.
func (s Symbol) Extent() (start, end int) {
	start = s.Start
	if s.DocStart > 0 && s.DocStart < start {
		start = s.DocStart
	}
	return start, s.End
}

// String returns "kind QualifiedName (lines start-end)" for messages.
func (s Symbol) String() string {
	return fmt.Sprintf("%s %s (lines %d-%d)", s.Kind, s.QualifiedName(), s.Start, s.End)
}

// File is what a parser found in one source file.
type File struct {
	// Lang is the language the file was parsed as (a Lang constant).
	Lang string
	// Symbols are the declarations in source order: top-level ones and
	// the members of classes. Declarations nested in function bodies are
	// not listed. Symbols must not change once Lookup or InRegion has been
	// called: they index it.
	Symbols []Symbol

	idx atomic.Pointer[index]
}

// index makes Lookup and InRegion cost time proportional to what they
// return, not to the file's symbols: a check over every symbol of a file
// with many of them would otherwise be quadratic.
type index struct {
	// byName maps a plain name and, for methods, a qualified name to the
	// symbols' positions in Symbols, in source order.
	byName map[string][]int
	// byStart holds the positions of the symbols sorted by the first line
	// of their extent; maxEnd[i] is the largest last line among
	// byStart[:i+1].
	byStart []int
	maxEnd  []int
}

// index returns f's index, building it on first use.
func (f *File) index() *index {
	if x := f.idx.Load(); x != nil {
		return x
	}
	x := &index{byName: make(map[string][]int, len(f.Symbols))}
	for i, s := range f.Symbols {
		x.byName[s.Name] = append(x.byName[s.Name], i)
		if s.Receiver != "" {
			q := s.QualifiedName()
			x.byName[q] = append(x.byName[q], i)
		}
	}
	x.byStart = make([]int, len(f.Symbols))
	for i := range x.byStart {
		x.byStart[i] = i
	}
	slices.SortStableFunc(x.byStart, func(a, b int) int {
		sa, _ := f.Symbols[a].Extent()
		sb, _ := f.Symbols[b].Extent()
		return sa - sb
	})
	x.maxEnd = make([]int, len(x.byStart))
	for k, i := range x.byStart {
		_, end := f.Symbols[i].Extent()
		x.maxEnd[k] = end
		if k > 0 {
			x.maxEnd[k] = max(end, x.maxEnd[k-1])
		}
	}
	f.idx.CompareAndSwap(nil, x)
	return f.idx.Load()
}

// Lookup returns the symbols a name refers to, in source order: every
// symbol whose plain name is name ("parse" finds the function parse and
// every method parse), or whose qualified name is name ("Parser.parse").
// It also accepts the spellings agents and docs use for members: a
// trailing "()" ("parse()"), Go's "(*Parser).parse" and "(Parser).parse",
// and JSDoc's "Parser#parse". It returns nil when nothing matches.
func (f *File) Lookup(name string) []Symbol {
	name = normalizeName(name)
	if name == "" {
		return nil
	}
	at := f.index().byName[name]
	if len(at) == 0 {
		return nil
	}
	// A method's plain and qualified names can be equal only when its
	// receiver is empty, so no position appears twice.
	out := make([]Symbol, len(at))
	for k, i := range at {
		out[k] = f.Symbols[i]
	}
	return out
}

// normalizeName strips the decorations Lookup accepts around a name.
func normalizeName(name string) string {
	name = strings.TrimSpace(name)
	name = strings.TrimSuffix(name, "()")
	// (*T).M and (T).M
	if strings.HasPrefix(name, "(") {
		if i := strings.Index(name, ")."); i > 0 {
			recv := strings.TrimPrefix(name[1:i], "*")
			name = recv + "." + name[i+2:]
		}
	}
	// Parser#parse, but not a bare private name like #secret.
	if i := strings.LastIndexByte(name, '#'); i > 0 && name[i-1] != '.' {
		name = name[:i] + "." + name[i+1:]
	}
	return name
}

// InRegion returns the symbols, in source order, whose extent (see
// [Symbol.Extent]: the declaration with its doc comment) overlaps the
// inclusive line range start..end. The doc comment counts so that an edit
// that only added a JSDoc block above a function still finds the function.
// It returns nil when start > end or nothing overlaps.
func (f *File) InRegion(start, end int) []Symbol {
	if start > end {
		return nil
	}
	x := f.index()
	// The symbols whose extent starts at or before end, then back from the
	// last of them while some of those before can still reach start.
	k := sort.Search(len(x.byStart), func(k int) bool {
		from, _ := f.Symbols[x.byStart[k]].Extent()
		return from > end
	})
	var at []int
	for k--; k >= 0 && x.maxEnd[k] >= start; k-- {
		if _, to := f.Symbols[x.byStart[k]].Extent(); to >= start {
			at = append(at, x.byStart[k])
		}
	}
	if len(at) == 0 {
		return nil
	}
	slices.Sort(at) // source order
	out := make([]Symbol, len(at))
	for n, i := range at {
		out[n] = f.Symbols[i]
	}
	return out
}

// Parser parses source files of one language. Implementations must be
// safe for concurrent use.
type Parser interface {
	// Parse parses src, the contents of the file at path (path is used in
	// errors, and may select a dialect, as .tsx does). It returns an error
	// wrapping ErrSyntax, possibly with a partial File, when src has
	// syntax errors, and ctx's error when ctx ends before it is done.
	// Parsing and the walk over the tree take time linear in the size of
	// src.
	Parse(ctx context.Context, path string, src []byte) (*File, error)
}
