"""A small expression parser, used to benchmark the Python parser."""

from __future__ import annotations

import dataclasses
import enum
import functools
import re
from typing import Iterator, Sequence

__all__ = ["TokenKind", "Token", "Parser", "parse", "tokenize", "format_node", "validate"]

_NUMBER = re.compile(r"[0-9]+(\.[0-9]+)?")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

PRECEDENCE = {
    "||": 1,
    "&&": 2,
    "==": 3,
    "!=": 3,
    "<": 4,
    ">": 4,
    "+": 5,
    "-": 5,
    "*": 6,
    "/": 6,
}


class TokenKind(enum.Enum):
    """The kinds of token the lexer produces."""

    NAME = "name"
    NUMBER = "number"
    PUNCT = "punct"
    EOF = "eof"


@dataclasses.dataclass(frozen=True)
class Token:
    """A token with its position."""

    kind: TokenKind
    text: str
    line: int
    column: int


@dataclasses.dataclass
class Node:
    kind: str
    value: object = None
    children: list["Node"] = dataclasses.field(default_factory=list)

    def walk(self) -> Iterator["Node"]:
        """Yield this node and its descendants, depth first."""
        yield self
        for child in self.children:
            yield from child.walk()

    def __repr__(self) -> str:
        return f"Node({self.kind!r}, {self.value!r})"


class ParseError(Exception):
    """Raised in strict mode on the first error."""

    def __init__(self, message: str, token: Token) -> None:
        super().__init__(f"{token.line}:{token.column}: {message}")
        self.token = token


def tokenize(src: str) -> list[Token]:
    """Split source text into tokens.

    Args:
        src: the text to split.

    Returns:
        The tokens, ending with an EOF token.
    """
    tokens: list[Token] = []
    line, column, i = 1, 1, 0
    while i < len(src):
        c = src[i]
        if c == "\n":
            line, column, i = line + 1, 1, i + 1
            continue
        if c.isspace():
            column, i = column + 1, i + 1
            continue
        if m := _NUMBER.match(src, i):
            kind, end = TokenKind.NUMBER, m.end()
        elif m := _NAME.match(src, i):
            kind, end = TokenKind.NAME, m.end()
        elif src.startswith(("&&", "||", "==", "!="), i):
            kind, end = TokenKind.PUNCT, i + 2
        else:
            kind, end = TokenKind.PUNCT, i + 1
        tokens.append(Token(kind, src[i:end], line, column))
        column += end - i
        i = end
    tokens.append(Token(TokenKind.EOF, "", line, column))
    return tokens


class Parser:
    """A recursive-descent parser with precedence climbing."""

    def __init__(self, tokens: Sequence[Token], *, strict: bool = False, max_depth: int = 256):
        self._tokens = tokens
        self._pos = 0
        self._depth = 0
        self.strict = strict
        self.max_depth = max_depth
        self.errors: list[str] = []

    def parse_expression(self, min_prec: int = 0) -> Node:
        """Parse one expression."""
        left = self._parse_primary()
        while True:
            op = self.peek().text
            prec = PRECEDENCE.get(op)
            if prec is None or prec < min_prec:
                return left
            self.next()
            right = self.parse_expression(prec + 1)
            left = Node("binary", op, [left, right])

    def _parse_primary(self) -> Node:
        # A number, a name, a call or a parenthesized expression.
        tok = self.next()
        self._depth += 1
        try:
            if self._depth > self.max_depth:
                self._fail(tok, "expression nested too deeply")
            if tok.kind is TokenKind.NUMBER:
                return Node("number", float(tok.text))
            if tok.kind is TokenKind.NAME:
                return self._parse_call(Node("name", tok.text))
            if tok.text == "(":
                inner = self.parse_expression()
                self._expect(")")
                return inner
            self._fail(tok, f"unexpected {tok.text or 'end of input'}")
            return Node("number", float("nan"))
        finally:
            self._depth -= 1

    def _parse_call(self, callee: Node) -> Node:
        if self.peek().text != "(":
            return callee
        self.next()
        args = []
        while self.peek().text != ")" and self.peek().kind is not TokenKind.EOF:
            args.append(self.parse_expression())
            if self.peek().text == ",":
                self.next()
        self._expect(")")
        return Node("call", callee, args)

    def peek(self) -> Token:
        """Return the next token without consuming it."""
        return self._tokens[self._pos]

    def next(self) -> Token:
        """Consume and return the next token."""
        tok = self._tokens[self._pos]
        if tok.kind is not TokenKind.EOF:
            self._pos += 1
        return tok

    def _expect(self, text: str) -> None:
        tok = self.next()
        if tok.text != text:
            self._fail(tok, f"expected {text}, found {tok.text}")

    def _fail(self, tok: Token, message: str) -> None:
        if self.strict:
            raise ParseError(message, tok)
        self.errors.append(message)


@functools.lru_cache(maxsize=128)
def parse(src: str, strict: bool = False) -> Node:
    """Parse source text into a syntax tree."""
    return Parser(tokenize(src), strict=strict).parse_expression()


def format_node(node: Node) -> str:
    """Format a node back into source text."""
    if node.kind == "number":
        return repr(node.value)
    if node.kind == "name":
        return str(node.value)
    if node.kind == "call":
        args = ", ".join(format_node(a) for a in node.children)
        return f"{format_node(node.value)}({args})"
    left, right = node.children
    return f"({format_node(left)} {node.value} {format_node(right)})"


def validate(node: Node) -> bool:
    return all(n.kind != "number" or n.value == n.value for n in node.walk())


async def parse_file(path: str) -> Node:
    with open(path, encoding="utf-8") as f:
        return parse(f.read(), strict=True)
