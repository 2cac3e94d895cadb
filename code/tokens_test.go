package code

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestTokensGo(t *testing.T) {
	const base = `package a

import "fmt"

// Add adds.
func Add(a, b int) int {
	return a + b
}

func Print() { fmt.Println("x") }
`
	for _, tt := range []struct {
		name, head string
		same       bool
		line       int // of the first difference in head, when not same
	}{
		{"same", base, true, 0},
		{"a call wrapped with a trailing comma", strings.Replace(base, `func Print() { fmt.Println("x") }`, "func Print() {\n\tfmt.Println(\n\t\t\"x\",\n\t)\n}", 1), true, 0},
		{"comments and layout", `// Package a adds.
package a

import (
	"fmt"
)

// Add adds two numbers.
// It never fails.
func Add(a, b int) int {
	return a + b // the sum
}

/* Print prints. */
func Print() {
	fmt.Println("x")
}
`, true, 0},
		{"logic", `package a

import "fmt"

// Add adds.
func Add(a, b int) int {
	return a - b
}

func Print() { fmt.Println("x") }
`, false, 7},
		{"a literal", `package a

import "fmt"

// Add adds.
func Add(a, b int) int {
	return a + b
}

func Print() { fmt.Println("y") }
`, false, 10},
		{"a build constraint", `//go:build linux

package a

import "fmt"

// Add adds.
func Add(a, b int) int {
	return a + b
}

func Print() { fmt.Println("x") }
`, false, 1},
	} {
		a, err := Tokens(context.Background(), "a.go", []byte(base))
		if err != nil {
			t.Fatal(err)
		}
		b, err := Tokens(context.Background(), "a.go", []byte(tt.head))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		i := FirstDifference(a, b)
		if (i < 0) != tt.same {
			t.Errorf("%s: first difference at %d, want same=%v", tt.name, i, tt.same)
			continue
		}
		if !tt.same {
			line := 0
			if i < len(b) {
				line = b[i].Line
			}
			if line != tt.line {
				t.Errorf("%s: first difference on line %d of the head, want %d", tt.name, line, tt.line)
			}
		}
	}
}

func TestTokensGoCgoPreamble(t *testing.T) {
	a, err := Tokens(context.Background(), "c.go", []byte("package c\n\n// #include <stdio.h>\nimport \"C\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Tokens(context.Background(), "c.go", []byte("package c\n\n// #include <stdlib.h>\nimport \"C\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if FirstDifference(a, b) < 0 {
		t.Error("a change of the cgo preamble compares equal")
	}
}

func TestTokensErrors(t *testing.T) {
	if _, err := Tokens(context.Background(), "a.go", []byte("package a\nfunc {")); !errors.Is(err, ErrSyntax) {
		t.Errorf("a syntax error: %v", err)
	}
	if _, err := Tokens(context.Background(), "a.exs", []byte("defmodule A do end")); !errors.Is(err, ErrUnsupported) {
		t.Errorf("an unknown language: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Tokens(ctx, "a.go", []byte("package a")); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled context: %v", err)
	}
}

func TestFirstDifference(t *testing.T) {
	tk := func(s ...string) []Token {
		var out []Token
		for _, x := range s {
			out = append(out, Token{Text: x})
		}
		return out
	}
	for _, tt := range []struct {
		a, b []Token
		want int
	}{
		{tk("a", "b"), tk("a", "b"), -1},
		{nil, nil, -1},
		{tk("a"), tk("a", "b"), 1},
		{tk("a", "c"), tk("a", "b"), 1},
		{nil, tk("a"), 0},
	} {
		if got := FirstDifference(tt.a, tt.b); got != tt.want {
			t.Errorf("FirstDifference(%v, %v) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
