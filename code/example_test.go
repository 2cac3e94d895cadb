package code_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/vouchgate/vouch/code"
)

func ExampleParse() {
	src := []byte(`package parser

// Parse parses src.
func Parse(src string) *Node { return nil }

func Tokenize(src string) []string { return nil }

// Parser holds state.
type Parser struct{}

// Next advances.
func (p *Parser) Next() {}
`)
	f, err := code.Parse(context.Background(), "parser/parser.go", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range f.Symbols {
		fmt.Printf("%-8s %-11s lines %2d-%-2d doc: %v\n", s.Kind, s.QualifiedName(), s.Start, s.End, s.HasDoc)
	}
	fmt.Println(len(f.Lookup("(*Parser).Next")), len(f.InRegion(3, 3)))
	// Output:
	// function Parse       lines  4-4  doc: true
	// function Tokenize    lines  6-6  doc: false
	// type     Parser      lines  9-9  doc: true
	// method   Parser.Next lines 12-12 doc: true
	// 1 1
}

func ExampleParse_unsupported() {
	// package code alone parses Go only; TypeScript, JavaScript and Python
	// need package code/treesitter (and cgo).
	_, err := code.Parse(context.Background(), "src/parser.rb", []byte("def parse; end"))
	fmt.Println(errors.Is(err, code.ErrUnsupported))
	// Output:
	// true
}
