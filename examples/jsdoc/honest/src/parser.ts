export type Token = { kind: string; text: string };

/**
 * Parses source text into tokens, dropping white space.
 * @param src the text to parse
 */
export function parse(src: string): Token[] {
  return tokenize(src).filter((t) => t.kind !== "space");
}

/**
 * Splits source text at word boundaries.
 * @param src the text to split
 */
export function tokenize(src: string): Token[] {
  return src.split(/\b/).map((text) => ({ kind: /\s/.test(text) ? "space" : "word", text }));
}

/**
 * Joins tokens back into text.
 * @param tokens the tokens to join
 */
export function format(tokens: Token[]): string {
  return tokens.map((t) => t.text).join(" ");
}

/**
 * Reports whether every token has text.
 * @param tokens the tokens to check
 */
export function validate(tokens: Token[]): boolean {
  return tokens.every((t) => t.text.length > 0);
}
