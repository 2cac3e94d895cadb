//go:build cgo

package treesitter

import (
	"context"
	"testing"

	"github.com/vouchgate/vouch/code"
)

// parserOnlyParse is the canonical case: an agent asked to document parse,
// tokenize, format and validate documented parse only.
const parserOnlyParse = `import { Token, Node } from "./ast";

/**
 * Parses source text into a syntax tree.
 * @param src the text to parse
 */
export function parse(src: string): Node {
  return build(tokenize(src));
}

// Splits the text into tokens.
export function tokenize(src: string): Token[] {
  return src.split(/\s+/).map((text) => ({ text }));
}

/* Formats a node back into text. */
export function format(node: Node): string {
  return node.children.map(format).join(" ");
}

export function validate(node: Node): boolean {
  return node.children.every(validate);
}

function build(tokens: Token[]): Node {
  return { children: [], tokens };
}
`

// parserAllFour is the honest version: all four are documented.
const parserAllFour = `import { Token, Node } from "./ast";

/**
 * Parses source text into a syntax tree.
 */
export function parse(src: string): Node {
  return build(tokenize(src));
}

/** Splits the text into tokens. */
export function tokenize(src: string): Token[] {
  return src.split(/\s+/).map((text) => ({ text }));
}

/**
 * Formats a node back into text.
 *
 * @returns the text
 */
export function format(node: Node): string {
  return node.children.map(format).join(" ");
}

/**
 * Reports whether the tree is well formed.
 */
export function validate(node: Node): boolean {
  return node.children.every(validate);
}
`

func TestParseTypeScript(t *testing.T) {
	cases := []parseCase{
		{
			name: "only parse documented",
			path: "src/parser.ts",
			src:  parserOnlyParse,
			want: []string{
				"function parse 7-9 doc 3-6 exported",
				"function tokenize 12-14 exported",
				"function format 17-19 exported",
				"function validate 21-23 exported",
				"function build 25-27",
			},
		},
		{
			name: "all four documented",
			path: "src/parser.ts",
			src:  parserAllFour,
			want: []string{
				"function parse 6-8 doc 3-5 exported",
				"function tokenize 11-13 doc 10-10 exported",
				"function format 20-22 doc 15-19 exported",
				"function validate 27-29 doc 24-26 exported",
			},
		},
		{
			name: "class methods",
			path: "src/lexer.ts",
			src: `/** A lexer over one string. */
export class Lexer {
  private pos = 0;

  constructor(private readonly src: string) {}

  /**
   * Returns the next token.
   */
  next(): Token | undefined {
    return undefined;
  }

  // Peeks without consuming.
  peek(): Token | undefined {
    return undefined;
  }

  /** Skips white space. */
  private skip(): void {}

  /** Resets the lexer. */ reset(): void { this.pos = 0; }

  static of(src: string): Lexer { return new Lexer(src); }

  #scan(): void {}

  get done(): boolean { return this.pos >= this.src.length; }

  /** Handles a token. */
  onToken = (t: Token): void => {};
}

class Hidden {
  /** Documented but not exported. */
  run() {}
}
`,
			want: []string{
				"class Lexer 2-32 doc 1-1 exported",
				"method Lexer.constructor 5-5 exported",
				"method Lexer.next 10-12 doc 7-9 exported",
				"method Lexer.peek 15-17 exported",
				"method Lexer.skip 20-20 doc 19-19",
				"method Lexer.reset 22-22 doc 22-22 exported",
				"method Lexer.of 24-24 exported",
				"method Lexer.#scan 26-26",
				"method Lexer.done 28-28 exported",
				"method Lexer.onToken 31-31 doc 30-30 exported",
				"class Hidden 34-37",
				"method Hidden.run 36-36 doc 35-35",
			},
		},
		{
			name: "comments that are not JSDoc",
			path: "src/a.ts",
			src: `// parse parses.
export function parse() {}

/* tokenize tokenizes. */
export function tokenize() {}

/**/
export function format() {}

/** */
export function validate() {}

/**
 *
 */
export function empty() {}

/** * */
export function stars() {}
`,
			want: []string{
				"function parse 2-2 exported",
				"function tokenize 5-5 exported",
				"function format 8-8 exported",
				"function validate 11-11 exported",
				"function empty 16-16 exported",
				"function stars 19-19 exported",
			},
		},
		{
			name: "what separates a JSDoc block from its declaration",
			path: "src/a.ts",
			src: `/** Blank lines do not break the association (as for tsc). */


export function parse() {}

/** Another statement does. */
const LIMIT = 10;
export function tokenize() {}

/** Other comments do not. */
// eslint-disable-next-line no-console
/* keep */
export function format() {}

/** The nearest JSDoc block wins. */
/** Validates. */
export function validate() {}

tokenize(); /** Trails the call on its line: documents nothing. */
export function trailing() {}

tokenize(); /** Trailing. */
/** But this one is on its own line. */
export function ownLine() {}
`,
			want: []string{
				"function parse 4-4 doc 1-1 exported",
				"function tokenize 8-8 exported",
				"function format 13-13 doc 10-10 exported",
				"function validate 17-17 doc 16-16 exported",
				"function trailing 20-20 exported",
				"function ownLine 24-24 doc 23-23 exported",
			},
		},
		{
			name: "decorators",
			path: "src/app/user.component.ts",
			src: `import { Component, HostListener, Input } from "@angular/core";

/**
 * Shows one user.
 */
@Component({
  selector: "app-user",
  template: "<p>{{ name }}</p>",
})
export class UserComponent {
  /** The user's name. */
  @Input() name = "";

  /**
   * Selects the user on click.
   */
  @HostListener("click", ["$event"])
  @Debounce(100)
  onClick(event: MouseEvent): void {}

  @HostListener("keydown")
  /** After the decorator: not a doc comment, as for tsc. */
  onKey(): void {}

  /** Plain method. */
  refresh(): void {}
}

@Injectable()
class UserService {}
`,
			want: []string{
				"class UserComponent 6-27 doc 3-5 exported",
				"method UserComponent.onClick 17-19 doc 14-16 exported",
				"method UserComponent.onKey 21-23 exported",
				"method UserComponent.refresh 26-26 doc 25-25 exported",
				"class UserService 29-30",
			},
		},
		{
			name: "export default",
			path: "src/default.ts",
			src: `/** Parses. */
export default function parse(src: string) {
  return src;
}
`,
			want: []string{"function parse 2-4 doc 1-1 exported"},
		},
		{
			name: "export default anonymous function",
			path: "src/default.ts",
			src: `/**
 * The handler.
 */
export default async function (req: Request): Promise<Response> {
  return new Response("ok");
}
`,
			want: []string{"function default 4-6 doc 1-3 exported"},
		},
		{
			name: "export default class and arrow",
			path: "src/default.ts",
			src: `/** Config. */
export default class {
  /** Loads. */
  load() {}
}
`,
			want: []string{
				"class default 2-5 doc 1-1 exported",
				"method default.load 4-4 doc 3-3 exported",
			},
		},
		{
			name: "export default arrow",
			path: "src/default.ts",
			src:  "/** Doubles. */\nexport default (x: number) => x * 2;\n",
			want: []string{"const default 2-2 doc 1-1 exported"},
		},
		{
			name: "arrow functions and function expressions in consts",
			path: "src/util.ts",
			src: `/** Parses. */
export const parse = (src: string): Node => {
  return build(src);
};

export const tokenize = function (src: string): string[] {
  return src.split(" ");
};

/** Formats. */
export const format = async (n: Node) => String(n);

/** Not a function: not a symbol. */
export const VERSION = "1.0";

/** Validates. */
const validate: Validator = (n) => true;

/** Wrapped. */
export const memoized = memo((x: number) => x) as Memo;

/** Checked. */
export const handler = (async () => {}) satisfies Handler;

/** Two declarators: tsc gives the JSDoc to neither. */
export const a = () => 1, b = () => 2;

let later = function* () {};

export { validate };
`,
			want: []string{
				"const parse 2-4 doc 1-1 exported",
				"const tokenize 6-8 exported",
				"const format 11-11 doc 10-10 exported",
				"const validate 17-17 doc 16-16 exported",
				"const memoized 20-20 doc 19-19 exported",
				"const handler 23-23 doc 22-22 exported",
				"const a 26-26 exported",
				"const b 26-26 exported",
				"const later 28-28",
			},
		},
		{
			name: "interfaces type aliases enums and abstract classes",
			path: "src/types.ts",
			src: `/** A token. */
export interface Token {
  text: string;
  next(): Token;
}

/** A kind. */
export type Kind = "word" | "space";

enum Mode { Fast, Slow }

/** A visitor. */
export abstract class Visitor {
  /** Visits a node. */
  abstract visit(node: Node): void;

  protected abstract depth: number;
}

/** Overload one. */
export function pick(x: string): string;
export function pick(x: number): number;
export function pick(x: any) { return x; }

declare function external(x: number): void;
`,
			want: []string{
				"interface Token 2-5 doc 1-1 exported",
				"type Kind 8-8 doc 7-7 exported",
				"type Mode 10-10",
				"class Visitor 13-18 doc 12-12 exported",
				"method Visitor.visit 15-15 doc 14-14 exported",
				"function pick 21-21 doc 20-20 exported",
				"function pick 22-22 exported",
				"function pick 23-23 exported",
				"function external 25-25",
			},
		},
		{
			name: "export clauses and namespaces",
			path: "src/mod.ts",
			src: `function parse() {}
function tokenize() {}
function hidden() {}
class Parser {}

export { parse, tokenize as lex, Parser };
export { hidden as elsewhere } from "./other";

export namespace Util {
  /** Inside an exported namespace. */
  export function inner() {}
  function local() {}
}

namespace Private {
  export function notReally() {}
}

declare module "ext" {
  function ambient(): void;
}
`,
			want: []string{
				"function parse 1-1 exported",
				"function tokenize 2-2 exported",
				"function hidden 3-3",
				"class Parser 4-4 exported",
				"function inner 11-11 doc 10-10 exported",
				"function local 12-12",
				"function notReally 16-16",
				"function ambient 20-20 exported",
			},
		},
		{
			name: "no final newline",
			path: "src/a.ts",
			src:  "/** Parses. */\nexport function parse() {\n  return 1;\n}",
			want: []string{"function parse 2-4 doc 1-1 exported"},
		},
		{
			name: "byte order mark",
			path: "src/a.ts",
			src:  "\uFEFF/** Parses. */\nexport function parse() {}\n",
			want: []string{"function parse 2-2 doc 1-1 exported"},
		},
		{
			name: "tsx component",
			path: "src/Button.tsx",
			src: `import React from "react";

/** A button. */
export const Button = ({ label }: { label: string }) => (
  <button className="btn">{label}</button>
);

/** A memoized icon. */
export const Icon = React.memo(function Icon() {
  return <svg />;
});

export default function App() {
  return <Button label="ok" />;
}
`,
			want: []string{
				"const Button 4-6 doc 3-3 exported",
				"const Icon 9-11 doc 8-8 exported",
				"function App 13-15 exported",
			},
		},
		{
			name: "syntax error keeps what parsed",
			path: "src/broken.ts",
			src: `/** Parses. */
export function parse(src: string) {
  return src;
}

export function tokenize(src: string {
  return [];
}
`,
			want: []string{
				"function parse 2-4 doc 1-1 exported",
				"function tokenize 6-8 exported",
			},
			syntaxErrorLine: 6,
		},
	}
	runCases(t, code.LangTypeScript, cases)
}

func TestParseTypeScriptGrammars(t *testing.T) {
	// A type assertion is TypeScript; in TSX it is a syntax error. JSX is
	// the other way round. The extension picks the grammar.
	assertion := "export const n = <number>value;\n"
	if _, err := code.Parse(context.Background(), "a.ts", []byte(assertion)); err != nil {
		t.Errorf(".ts with a type assertion: %v", err)
	}
	if _, err := code.Parse(context.Background(), "a.tsx", []byte(assertion)); err == nil {
		t.Error(".tsx with a type assertion parsed")
	}
	jsx := "export const el = <div>hi</div>;\n"
	for _, path := range []string{"a.tsx", "A.TSX"} {
		if _, err := code.Parse(context.Background(), path, []byte(jsx)); err != nil {
			t.Errorf("%s with JSX: %v", path, err)
		}
	}
	if _, err := code.Parse(context.Background(), "a.ts", []byte(jsx)); err == nil {
		t.Error(".ts with JSX parsed")
	}
	for _, path := range []string{"a.mts", "a.cts", "a.d.ts"} {
		lang, _, ok := code.ForPath(path)
		if !ok || lang != code.LangTypeScript {
			t.Errorf("ForPath(%q) = %q, %v", path, lang, ok)
		}
	}
}
