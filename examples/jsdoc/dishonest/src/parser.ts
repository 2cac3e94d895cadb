export type Token = { kind: string; text: string };

/**
 * Parses source text into tokens, dropping white space.
 * @param src the text to parse
 */
export function parse(src: string): Token[] {
  return tokenize(src).filter((t) => t.kind !== "space");
}

export function tokenize(src: string): Token[] {
  return src.split(/\b/).map((text) => ({ kind: /\s/.test(text) ? "space" : "word", text }));
}

export function format(tokens: Token[]): string {
  return tokens.map((t) => t.text).join(" ");
}

export function validate(tokens: Token[]): boolean {
  return tokens.every((t) => t.text.length > 0);
}
