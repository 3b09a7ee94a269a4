/** The tokens of upstream's resources expression language (pkg/util/calculator). */
export type Token =
  | { kind: 'NUMBER' | 'QUANTITY' | 'IDENT'; text: string; end: number }
  | { kind: 'CHAR'; text: string; end: number }
  | { kind: 'EOF'; text: ''; end: number };

const isDigit = (c: string) => c >= '0' && c <= '9';
const isLetter = (c: string) => /\p{L}/u.test(c);
const isSpace = (c: string) => /\s/u.test(c);
const UNITS = new Set(['m', 'k', 'M', 'G', 'T', 'P', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi']);

/** Upstream's isQuantity: digits (with `.eE+-`) followed by one of its units. */
function isQuantity(s: string): boolean {
  const end = [...s].findIndex((c) => !isDigit(c) && !'.eE+-'.includes(c));
  return end > 0 && UNITS.has(s.slice(end));
}

/** Splits an expression as upstream's lexer does (numbers with units, percentages, exponents). */
export function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  const peek = () => input[pos] ?? '';
  const readNumber = (): string => {
    const start = pos;
    let dot = false;
    let exp = false;
    let percent = false;
    let wantDigit = false;
    for (let c = peek(); c !== ''; c = peek()) {
      if (isDigit(c)) {
        wantDigit = false;
      } else if (c === '.') {
        if (dot || exp || percent) break;
        dot = true;
      } else if (c === 'e' || c === 'E') {
        if (exp || percent) break;
        exp = true;
        wantDigit = true;
      } else if (c === '+' || c === '-') {
        if (!wantDigit) break;
        wantDigit = false;
      } else if (c === '%') {
        if (percent) break;
        percent = true;
      } else if (isLetter(c)) {
        if (wantDigit) break;
        while (isLetter(peek())) pos++;
        break;
      } else break;
      pos++;
    }
    return input.slice(start, pos);
  };
  for (;;) {
    while (peek() !== '' && isSpace(peek())) pos++;
    const c = peek();
    if (c === '') {
      tokens.push({ kind: 'EOF', text: '', end: pos });
      return tokens;
    }
    if (c === '.' || isDigit(c)) {
      const text = readNumber();
      tokens.push({ kind: isQuantity(text) ? 'QUANTITY' : 'NUMBER', text, end: pos });
    } else if (isLetter(c)) {
      const start = pos;
      while (peek() !== '' && (isLetter(peek()) || isDigit(peek()) || peek() === '_')) pos++;
      tokens.push({ kind: 'IDENT', text: input.slice(start, pos), end: pos });
    } else {
      pos++;
      tokens.push({ kind: 'CHAR', text: c, end: pos });
    }
  }
}
