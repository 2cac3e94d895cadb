//go:build cgo

package treesitter

import (
	"context"
	"errors"
	"testing"

	"github.com/vouchgate/vouch/code"
)

// tokenCase is a base and a head version of a file, and whether their
// code is the same.
type tokenCase struct {
	name       string
	path       string
	base, head string
	same       bool
	line       int // of the first difference in head, when not same
}

func runTokenCases(t *testing.T, cases []tokenCase) {
	t.Helper()
	for _, tt := range cases {
		a, err := code.Tokens(context.Background(), tt.path, []byte(tt.base))
		if err != nil {
			t.Fatalf("%s: base: %v", tt.name, err)
		}
		b, err := code.Tokens(context.Background(), tt.path, []byte(tt.head))
		if err != nil {
			t.Fatalf("%s: head: %v", tt.name, err)
		}
		i := code.FirstDifference(a, b)
		if (i < 0) != tt.same {
			t.Errorf("%s: first difference at %d, want same=%v", tt.name, i, tt.same)
			continue
		}
		if !tt.same && i < len(b) && b[i].Line != tt.line {
			t.Errorf("%s: first difference on line %d of the head (%q), want %d", tt.name, b[i].Line, b[i].Text, tt.line)
		}
	}
}

func TestTokensPython(t *testing.T) {
	const base = `"""The module."""
import os


def add(a, b):
    """Add two numbers."""
    if a:
        a += 1
    return a + b


class Box:
    """A box."""

    def size(self):
        return 1
`
	runTokenCases(t, []tokenCase{
		{"comments and docstrings", "m.py", base, `"""The module, documented better."""
import os  # for paths


def add(a, b):
    """Add two numbers.

    Longer.
    """
    # one more
    if a:
        a += 1

    return a + b


class Box:
    """A box of things."""

    def size(self):
        # always one
        return 1
`, true, 0},
		{"a statement moved out of a block", "m.py", base, `"""The module."""
import os


def add(a, b):
    """Add two numbers."""
    if a:
        a += 1
        return a + b


class Box:
    """A box."""

    def size(self):
        return 1
`, false, 9},
		{"a string that is no docstring", "m.py", "x = 1\ns = \"a\"\n", "x = 1\ns = \"b\"\n", false, 2},
		{"a docstring added", "m.py", "def f():\n    return 1\n", "def f():\n    \"\"\"F.\"\"\"\n    return 1\n", true, 0},
		{"a coding declaration", "m.py", "# -*- coding: latin-1 -*-\nx = 1\n", "# -*- coding: utf-8 -*-\nx = 1\n", false, 1},
	})
}

func TestTokensTypeScript(t *testing.T) {
	const base = `import { x } from "./x";

/** Adds. */
export function add(a: number, b: number): number {
  return a + b;
}
`
	runTokenCases(t, []tokenCase{
		{"comments", "a.ts", base, `import { x } from "./x";

/**
 * Adds two numbers.
 */
// eslint-disable-next-line
export function add(a: number, b: number): number {
  /* the sum */ return a + b; // done
}
`, true, 0},
		{"logic", "a.ts", base, `import { x } from "./x";

/** Adds. */
export function add(a: number, b: number): number {
  return a * b;
}
`, false, 5},
		{"a type", "a.ts", base, `import { x } from "./x";

/** Adds. */
export function add(a: number, b: string): number {
  return a + b;
}
`, false, 4},
		{"a return split from its value", "a.js", "function f() {\n  return 1;\n}\n", "function f() {\n  return\n  1;\n}\n", false, 2},
		{"a JSX pragma", "a.jsx", "/** @jsx h */\nconst a = <b/>;\n", "/** @jsx React.createElement */\nconst a = <b/>;\n", false, 1},
	})
}

func TestTokensSyntaxError(t *testing.T) {
	for _, p := range []string{"a.py", "a.ts", "a.js"} {
		if _, err := code.Tokens(context.Background(), p, []byte("def (((\n")); !errors.Is(err, code.ErrSyntax) {
			t.Errorf("%s: %v, want a syntax error", p, err)
		}
	}
}

// TestTokensFormatting checks that what a formatter changes (quote style,
// a call wrapped with a trailing comma) is not a change of code, and that
// a one-element tuple still differs from its element.
func TestTokensFormatting(t *testing.T) {
	runTokenCases(t, []tokenCase{
		{"Python quotes", "m.py", "x = f('a', b)\n", "x = f(\"a\", b)\n", true, 0},
		{"Python trailing comma", "m.py", "x = f('a', b)\n", "x = f(\n    \"a\",\n    b,\n)\n", true, 0},
		{"Python tuple", "m.py", "x = 1\n", "x = 1,\n", false, 1},
		{"JavaScript quotes and trailing comma", "m.js", "const x = f('a', [1, 2]);\n", "const x = f(\"a\", [1, 2,],);\n", true, 0},
		{"JavaScript string changed", "m.js", "const x = f('a');\n", "const x = f('b');\n", false, 1},
	})
}
