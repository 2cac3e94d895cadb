//go:build cgo

package treesitter

import (
	"testing"

	"github.com/vouchgate/vouch/code"
)

func TestParseJavaScript(t *testing.T) {
	cases := []parseCase{
		{
			name: "commonjs module",
			path: "lib/parser.js",
			src: `'use strict';

const { Token } = require('./token');

/**
 * Parses src.
 */
function parse(src) {
  return tokenize(src);
}

// tokenize splits.
function tokenize(src) {
  return src.split(' ');
}

/** Formats. */
const format = (node) => String(node);

/** Validates. */
exports.validate = function (node) {
  return true;
};

class Parser {
  /** Runs. */
  run() {}

  @bound
  /** After the decorator: not a doc comment. */
  stop() {}

  /** Decorated. */
  @bound
  start() {}

  #hidden() {}

  handle = () => {};
}

module.exports = { parse, tokenize: tokenize, Parser };
`,
			want: []string{
				"function parse 8-10 doc 5-7 exported",
				"function tokenize 13-15 exported",
				"const format 18-18 doc 17-17",
				"const validate 21-23 doc 20-20 exported",
				"class Parser 25-40 exported",
				"method Parser.run 27-27 doc 26-26 exported",
				"method Parser.stop 29-31 exported",
				"method Parser.start 34-35 doc 33-33 exported",
				"method Parser.#hidden 37-37",
				"method Parser.handle 39-39 exported",
			},
		},
		{
			name: "jsx component",
			path: "src/Hello.jsx",
			src: `/** Greets. */
export default function Hello({ name }) {
  return <h1>Hello {name}</h1>;
}
`,
			want: []string{"function Hello 2-4 doc 1-1 exported"},
		},
		{
			name: "es module",
			path: "src/stream.mjs",
			src: `/** Streams. */
export async function* stream() {}

export default parse;

/** Parses. */
function parse() {}
`,
			want: []string{
				"function stream 2-2 doc 1-1 exported",
				"function parse 7-7 doc 6-6 exported",
			},
		},
	}
	runCases(t, code.LangJavaScript, cases)
}

func TestParsePython(t *testing.T) {
	cases := []parseCase{
		{
			name: "functions classes methods",
			path: "pkg/tokenizer.py",
			src: `"""Tokenizer utilities."""

from __future__ import annotations

import re


def parse(src: str) -> list[str]:
    """Parse src into tokens.

    Args:
        src: the text.
    """
    return tokenize(src)


def tokenize(src):
    # Splits on white space.
    return src.split()


async def fetch(url: str) -> bytes:
    """Fetch url."""
    ...


@functools.cache
@trace(level=2)
def cached(n):
    '''Cached.'''
    return n


class Parser:
    """A parser."""

    def __init__(self, src):
        self.src = src

    def run(self):
        """Run it."""
        return parse(self.src)

    @property
    def done(self):
        return True

    @staticmethod
    async def make():
        r"""Make one."""

    def _helper(self):
        f"""Not a docstring: {self.src}"""

    class Options:
        """Options."""

        def merge(self, other):
            pass


class _Private:
    def method(self):
        """Doc."""


def _internal():
    # a comment first
    """Still the docstring."""


def empty_doc():
    """"""


def not_first():
    x = 1
    """Not the first statement."""


def concatenated():
    "Implicitly " "concatenated."


lazy = lambda x: x * 2
`,
			want: []string{
				"function parse 8-14 doc 9-13 exported",
				"function tokenize 17-19 exported",
				"function fetch 22-24 doc 23-23 exported",
				"function cached 27-31 doc 30-30 exported",
				"class Parser 34-59 doc 35-35 exported",
				"method Parser.__init__ 37-38 exported",
				"method Parser.run 40-42 doc 41-41 exported",
				"method Parser.done 44-46 exported",
				"method Parser.make 48-50 doc 50-50 exported",
				"method Parser._helper 52-53",
				"class Parser.Options 55-59 doc 56-56 exported",
				"method Parser.Options.merge 58-59 exported",
				"class _Private 62-64",
				"method _Private.method 63-64 doc 64-64",
				"function _internal 67-69 doc 69-69",
				"function empty_doc 72-73 exported",
				"function not_first 76-78 exported",
				"function concatenated 81-82 doc 82-82 exported",
				"const lazy 85-85 exported",
			},
		},
		{
			name: "__all__",
			path: "pkg/api.py",
			src: `__all__ = ["parse", "Parser"]
__all__ += ("extra",)


def parse():
    pass


def helper():
    pass


def extra():
    pass


class Parser:
    def run(self):
        pass
`,
			want: []string{
				"function parse 5-6 exported",
				"function helper 9-10",
				"function extra 13-14 exported",
				"class Parser 17-19 exported",
				"method Parser.run 18-19 exported",
			},
		},
		{
			name: "no final newline",
			path: "pkg/a.py",
			src:  "def f():\n    \"\"\"Doc.\"\"\"\n    return 1",
			want: []string{"function f 1-3 doc 2-2 exported"},
		},
		{
			name: "stub",
			path: "pkg/a.pyi",
			src:  "def f(x: int) -> int: ...\nclass C:\n    def m(self) -> None: ...\n",
			want: []string{"function f 1-1 exported", "class C 2-3 exported", "method C.m 3-3 exported"},
		},
		{
			name: "syntax error keeps what parsed",
			path: "pkg/broken.py",
			src: `def good():
    """Good."""


def bad(:
    pass
`,
			want: []string{
				"function good 1-2 doc 2-2 exported",
				"function bad 5-6 exported",
			},
			syntaxErrorLine: 5,
		},
	}
	runCases(t, code.LangPython, cases)
}
