package code

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseGo(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "functions with and without doc",
			src: `// Package parser parses things.
package parser

import "strings"

// Parse parses s.
// It returns nil on empty input.
func Parse(s string) *Node {
	return nil
}

func tokenize(s string) []string { return strings.Fields(s) }

// This comment is separated by a blank line: not a doc comment.

func Format(n *Node) string {
	return ""
}

/*
Validate checks n.
*/
func Validate(n *Node) error { return nil }
`,
			want: []string{
				"function Parse 8-10 doc 6-7 exported",
				"function tokenize 12-12",
				"function Format 16-18 exported",
				"function Validate 23-23 doc 20-22 exported",
			},
		},
		{
			name: "methods on pointer and value receivers",
			src: `package parser

// Parser holds state.
type Parser struct {
	pos int
}

// Next advances.
func (p *Parser) Next() {}

func (p Parser) Pos() int { return p.pos }

// reset is unexported.
func (p *Parser) reset() {}

type list[T any] []T

// Len is generic.
func (l *list[T]) Len() int { return len(l) }

type pair[K comparable, V any] struct{}

func (pair[K, V]) Key() {}
`,
			want: []string{
				"type Parser 4-6 doc 3-3 exported",
				"method Parser.Next 9-9 doc 8-8 exported",
				"method Parser.Pos 11-11 exported",
				"method Parser.reset 14-14 doc 13-13",
				"type list 16-16",
				"method list.Len 19-19 doc 18-18",
				"type pair 21-21",
				"method pair.Key 23-23",
			},
		},
		{
			name: "types and interfaces, grouped and alone",
			src: `package shapes

// Shape is a shape.
type Shape interface {
	Area() float64
}

// These are the named types.
type (
	// Point is a point.
	Point struct{ X, Y float64 }

	Kind int

	Sizer interface{ Size() int }
)

// Only is alone in its group: the group doc is its doc.
type (
	Only string
)

type Alias = Point
`,
			want: []string{
				"interface Shape 4-6 doc 3-3 exported",
				"type Point 11-11 doc 10-10 exported",
				"type Kind 13-13 exported",
				"interface Sizer 15-15 exported",
				"type Only 20-20 doc 18-18 exported",
				"type Alias 23-23 exported",
			},
		},
		{
			name: "grouped consts and vars holding functions",
			src: `package ops

// Limits; plain constants are not symbols.
const (
	// MaxDepth is the limit.
	MaxDepth = 10
	minDepth = 1
)

// Handlers.
var (
	// Add adds.
	Add = func(a, b int) int { return a + b }

	sub = func(a, b int) int {
		return a - b
	}

	count = 3
	Mul, Div = func() {}, (func() {})
)

// Square squares.
var Square = func(x int) int { return x * x }

var _ = func() {}
`,
			want: []string{
				"const Add 13-13 doc 12-12 exported",
				"const sub 15-17",
				"const Mul 20-20 exported",
				"const Div 20-20 exported",
				"const Square 24-24 doc 23-23 exported",
			},
		},
		{
			name: "directives are not documentation",
			src: `package x

//go:noinline
func hot() {}

// Cold is cold.
//
//go:noinline
func Cold() {}

//nolint:all
type t struct{}
`,
			want: []string{
				"function hot 4-4",
				"function Cold 9-9 doc 6-8 exported",
				"type t 12-12",
			},
		},
		{
			name: "exported method of an unexported type",
			src: `package x

type impl struct{}

// Do does.
func (*impl) Do() {}
`,
			want: []string{
				"type impl 3-3",
				"method impl.Do 6-6 doc 5-5",
			},
		},
		{
			name: "no final newline",
			src:  "package x\n\n// F is f.\nfunc F() {\n}",
			want: []string{"function F 4-5 doc 3-3 exported"},
		},
	}
	for _, tt := range tests {
		for _, eol := range []string{"LF", "CRLF"} {
			t.Run(tt.name+"/"+eol, func(t *testing.T) {
				src := tt.src
				if eol == "CRLF" {
					src = strings.ReplaceAll(src, "\n", "\r\n")
				}
				f, err := Parse(context.Background(), "x.go", []byte(src))
				if err != nil {
					t.Fatal(err)
				}
				if f.Lang != LangGo {
					t.Errorf("Lang = %q", f.Lang)
				}
				if diff := cmp.Diff(tt.want, describe(t, f.Symbols)); diff != "" {
					t.Errorf("symbols (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestParseGoSyntaxError(t *testing.T) {
	src := `package x

// Good is fine.
func Good() {}

func Bad( {
}
`
	f, err := Parse(context.Background(), "bad.go", []byte(src))
	var se *SyntaxError
	if !errors.As(err, &se) || !errors.Is(err, ErrSyntax) {
		t.Fatalf("err = %v, want a *SyntaxError", err)
	}
	if se.Path != "bad.go" || se.Line != 6 {
		t.Errorf("error at %s:%d:%d, want bad.go:6", se.Path, se.Line, se.Column)
	}
	if f == nil {
		t.Fatal("no partial file")
	}
	if got := f.Lookup("Good"); len(got) != 1 || !got[0].HasDoc {
		t.Errorf("partial file lost Good: %v", f.Symbols)
	}

	// Not even a package clause: nothing to return but the error.
	f, err = Parse(context.Background(), "empty.go", nil)
	if !errors.Is(err, ErrSyntax) {
		t.Errorf("nil source: err = %v", err)
	}
	if f != nil && len(f.Symbols) > 0 {
		t.Errorf("nil source: symbols %v", f.Symbols)
	}
}

func BenchmarkParseGo(b *testing.B) {
	src, err := os.ReadFile("testdata/bench.go")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(context.Background(), "bench.go", src); err != nil {
			b.Fatal(err)
		}
	}
}
