import { readFileSync } from "node:fs";
import type { Diagnostic, Position } from "./diagnostics";

/** The kinds of token the lexer produces. */
export enum TokenKind {
  Identifier,
  Number,
  String,
  Punct,
  EOF,
}

/** A token with its position in the source. */
export interface Token {
  kind: TokenKind;
  text: string;
  pos: Position;
}

/** A node of the syntax tree. */
export type Node =
  | { type: "number"; value: number; pos: Position }
  | { type: "name"; name: string; pos: Position }
  | { type: "call"; callee: Node; args: Node[]; pos: Position }
  | { type: "binary"; op: string; left: Node; right: Node; pos: Position };

/** Options that tune the parser. */
export interface ParseOptions {
  /** Stop at the first error instead of recovering. */
  strict?: boolean;
  /** The maximum nesting depth. */
  maxDepth?: number;
}

const PRECEDENCE: Record<string, number> = {
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
};

/**
 * Splits source text into tokens.
 *
 * @param src the text to split
 * @returns the tokens, ending with an EOF token
 */
export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let line = 1;
  let column = 1;
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === "\n") {
      line++;
      column = 1;
      i++;
      continue;
    }
    if (/\s/.test(c)) {
      column++;
      i++;
      continue;
    }
    const start = i;
    let kind = TokenKind.Punct;
    if (/[0-9]/.test(c)) {
      while (i < src.length && /[0-9.]/.test(src[i])) i++;
      kind = TokenKind.Number;
    } else if (/[A-Za-z_]/.test(c)) {
      while (i < src.length && /[A-Za-z0-9_]/.test(src[i])) i++;
      kind = TokenKind.Identifier;
    } else if (c === '"') {
      i++;
      while (i < src.length && src[i] !== '"') i++;
      i++;
      kind = TokenKind.String;
    } else {
      i += src.startsWith("&&", i) || src.startsWith("||", i) ? 2 : 1;
    }
    tokens.push({ kind, text: src.slice(start, i), pos: { line, column } });
    column += i - start;
  }
  tokens.push({ kind: TokenKind.EOF, text: "", pos: { line, column } });
  return tokens;
}

/** A recursive-descent parser with precedence climbing. */
export class Parser {
  private pos = 0;
  private depth = 0;
  readonly diagnostics: Diagnostic[] = [];

  constructor(
    private readonly tokens: Token[],
    private readonly options: ParseOptions = {},
  ) {}

  /** Parses one expression. */
  parseExpression(minPrec = 0): Node {
    let left = this.parsePrimary();
    for (;;) {
      const op = this.peek().text;
      const prec = PRECEDENCE[op];
      if (prec === undefined || prec < minPrec) return left;
      this.next();
      const right = this.parseExpression(prec + 1);
      left = { type: "binary", op, left, right, pos: left.pos };
    }
  }

  // Parses a number, a name, a call or a parenthesized expression.
  private parsePrimary(): Node {
    const tok = this.next();
    if (++this.depth > (this.options.maxDepth ?? 256)) {
      this.fail(tok, "expression nested too deeply");
    }
    try {
      switch (tok.kind) {
        case TokenKind.Number:
          return { type: "number", value: Number(tok.text), pos: tok.pos };
        case TokenKind.Identifier:
          return this.parseCall({ type: "name", name: tok.text, pos: tok.pos });
        default:
          if (tok.text === "(") {
            const inner = this.parseExpression();
            this.expect(")");
            return inner;
          }
          this.fail(tok, `unexpected ${tok.text || "end of input"}`);
          return { type: "number", value: NaN, pos: tok.pos };
      }
    } finally {
      this.depth--;
    }
  }

  private parseCall(callee: Node): Node {
    if (this.peek().text !== "(") return callee;
    this.next();
    const args: Node[] = [];
    while (this.peek().text !== ")" && this.peek().kind !== TokenKind.EOF) {
      args.push(this.parseExpression());
      if (this.peek().text === ",") this.next();
    }
    this.expect(")");
    return { type: "call", callee, args, pos: callee.pos };
  }

  /** Returns the next token without consuming it. */
  peek(): Token {
    return this.tokens[this.pos];
  }

  /** Consumes and returns the next token. */
  next(): Token {
    const tok = this.tokens[this.pos];
    if (tok.kind !== TokenKind.EOF) this.pos++;
    return tok;
  }

  private expect(text: string): void {
    const tok = this.next();
    if (tok.text !== text) this.fail(tok, `expected ${text}, found ${tok.text}`);
  }

  private fail(tok: Token, message: string): void {
    this.diagnostics.push({ message, pos: tok.pos, severity: "error" });
    if (this.options.strict) throw new Error(message);
  }
}

/**
 * Parses source text into a syntax tree.
 */
export function parse(src: string, options?: ParseOptions): Node {
  return new Parser(tokenize(src), options).parseExpression();
}

/** Formats a node back into source text. */
export const format = (node: Node): string => {
  switch (node.type) {
    case "number":
      return String(node.value);
    case "name":
      return node.name;
    case "call":
      return `${format(node.callee)}(${node.args.map(format).join(", ")})`;
    case "binary":
      return `(${format(node.left)} ${node.op} ${format(node.right)})`;
  }
};

export function validate(node: Node): boolean {
  if (node.type === "binary") return validate(node.left) && validate(node.right);
  if (node.type === "call") return node.args.every(validate);
  return node.type !== "number" || !Number.isNaN(node.value);
}

export default function parseFile(path: string): Node {
  return parse(readFileSync(path, "utf8"), { strict: true });
}
