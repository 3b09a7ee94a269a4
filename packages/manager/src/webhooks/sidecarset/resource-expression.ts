import { canonicalQuantity, parseQuantity, quantityMilliValue } from '@kruise/kube-compat';

/**
 * Upstream's resource-expression calculator (pkg/util/calculator) as its SidecarSet webhook uses
 * it: numbers (`0.5`, `50%`, `1e3`), quantities (`100m`, `1Gi`), the one variable of the field
 * (`cpu` or `memory`, set to 1), `+ - * /`, unary minus, parentheses, `max(a, b)` and `min(a, b)`.
 * Errors read as upstream's: the last evaluation error wins over a syntax error, which names the
 * line and column after the token that broke the grammar.
 */

const QUANTITY_FORMAT =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const UNITS = ['m', 'k', 'M', 'G', 'T', 'P', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi'];

type Tok = { kind: 'NUMBER' | 'QUANTITY' | 'IDENT' | 'EOF' | string; text: string; col: number };
/** A value: a plain number, or a quantity in thousandths. */
type Value = { quantity: false; n: number } | { quantity: true; milli: number };

const isLetter = (c: string) => /\p{L}/u.test(c);
const isDigit = (c: string) => c >= '0' && c <= '9';

/** The lexer, as upstream's: whitespace skipped, numbers with a unit read as one token. */
function tokenize(input: string): Tok[] {
  const toks: Tok[] = [];
  let pos = 0;
  let col = 1;
  let line = 1;
  const step = () => {
    if (input[pos] === '\n') {
      line++;
      col = 1;
    } else col++;
    pos++;
  };
  const readNumber = () => {
    const start = pos;
    let dot = false;
    let exp = false;
    let pct = false;
    let wantExpDigit = false;
    while (pos < input.length) {
      const c = input[pos]!;
      if (isDigit(c)) {
        wantExpDigit = false;
        step();
      } else if (c === '.' && !dot && !exp && !pct) {
        dot = true;
        step();
      } else if ((c === 'e' || c === 'E') && !exp && !pct) {
        exp = true;
        wantExpDigit = true;
        step();
      } else if ((c === '+' || c === '-') && wantExpDigit) {
        wantExpDigit = false;
        step();
      } else if (c === '%' && !pct) {
        pct = true;
        step();
      } else if (isLetter(c) && !wantExpDigit) {
        while (pos < input.length && isLetter(input[pos]!)) step();
        break;
      } else break;
    }
    return input.slice(start, pos);
  };
  for (;;) {
    while (pos < input.length && /\s/.test(input[pos]!)) step();
    if (pos >= input.length) {
      toks.push({ kind: 'EOF', text: '', col: line === 1 ? col : col });
      return toks;
    }
    const c = input[pos]!;
    if (isDigit(c) || c === '.') {
      const text = readNumber();
      toks.push({ kind: isQuantityToken(text) ? 'QUANTITY' : 'NUMBER', text, col });
    } else if (isLetter(c)) {
      const start = pos;
      while (pos < input.length && (isLetter(input[pos]!) || isDigit(input[pos]!) || input[pos] === '_'))
        step();
      toks.push({ kind: 'IDENT', text: input.slice(start, pos), col });
    } else {
      step();
      toks.push({ kind: c, text: c, col });
    }
    toks[toks.length - 1]!.col = col;
    (toks[toks.length - 1] as Tok & { line?: number }).line = line;
  }
}

function isQuantityToken(s: string): boolean {
  const end = [...s].findIndex((c) => !isDigit(c) && !'.eE+-'.includes(c));
  return end > 0 && UNITS.includes(s.slice(end));
}

function parseNumber(s: string): number {
  const text = s.endsWith('%') ? s.slice(0, -1) : s;
  const n = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number(text) : 0;
  return s.endsWith('%') ? n / 100 : n;
}

const milliOf = (v: Value) => (v.quantity ? v.milli : Math.trunc(v.n * 1000));
const quantityText = (milli: number) => canonicalQuantity(`${milli}m`);

class Evaluator {
  private i = 0;
  lastError: string | undefined;
  syntaxError: string | undefined;

  private readonly toks: Tok[];
  private readonly variable: string;

  constructor(toks: Tok[], variable: string) {
    this.toks = toks;
    this.variable = variable;
  }

  private peek = () => this.toks[this.i]!;
  private fail(): never {
    const t = this.peek();
    const line = (t as Tok & { line?: number }).line ?? 1;
    this.syntaxError = `parse error: syntax error at line ${line}, col ${t.col}`;
    throw new SyntaxError();
  }
  private expect(kind: string) {
    if (this.peek().kind !== kind) this.fail();
    this.i++;
  }

  input(): Value | null {
    const v = this.expr();
    if (this.peek().kind !== 'EOF') this.fail();
    return v;
  }

  /** A left-associative chain of `next` joined by `ops` (expr: `+ -` over terms; term: `* /` over factors). */
  private chain(ops: string[], next: () => Value | null): Value | null {
    let left = next();
    while (ops.includes(this.peek().kind)) {
      const op = this.peek().kind;
      this.i++;
      left = this.binary(op, left, next());
    }
    return left;
  }

  private expr(): Value | null {
    return this.chain(['+', '-'], () => this.term());
  }

  private term(): Value | null {
    return this.chain(['*', '/'], () => this.factor());
  }

  private factor(): Value | null {
    const t = this.peek();
    switch (t.kind) {
      case 'NUMBER':
        this.i++;
        return { quantity: false, n: parseNumber(t.text) };
      case 'QUANTITY': {
        this.i++;
        const q = parseQuantity(t.text);
        if (!q) {
          this.lastError = QUANTITY_FORMAT;
          return null;
        }
        return { quantity: true, milli: Number(quantityMilliValue(q)) };
      }
      case 'IDENT':
        this.i++;
        if (this.peek().kind === '(') return this.call(t.text);
        if (t.text.toLowerCase() === this.variable) return { quantity: false, n: 1 };
        this.lastError = `undefined variable: ${t.text.toLowerCase()}`;
        return null;
      case '(': {
        this.i++;
        const v = this.expr();
        this.expect(')');
        return v;
      }
      case '-': {
        this.i++;
        const v = this.factor();
        if (!v) return null;
        return v.quantity ? { quantity: true, milli: -v.milli } : { quantity: false, n: -v.n };
      }
      default:
        return this.fail();
    }
  }

  private call(name: string): Value | null {
    this.expect('(');
    const args = [this.expr()];
    if (this.peek().kind === ',') {
      this.i++;
      args.push(this.expr());
    }
    this.expect(')');
    const lower = name.toLowerCase();
    if (lower !== 'max' && lower !== 'min') {
      this.lastError = `unknown function: ${name}`;
      return null;
    }
    if (args.length !== 2) {
      this.lastError = `${lower} function requires exactly 2 arguments, got ${args.length}`;
      return null;
    }
    const [a, b] = args;
    if (!a || !b) return null;
    const pick = (x: number, y: number) => (lower === 'max' ? x >= y : x <= y);
    if (!a.quantity && !b.quantity) return pick(a.n, b.n) ? a : b;
    const [ma, mb] = [milliOf(a), milliOf(b)];
    return { quantity: true, milli: pick(ma, mb) ? ma : mb };
  }

  private binary(op: string, a: Value | null, b: Value | null): Value | null {
    const v = a && b ? this.apply(op, a, b) : null;
    if (!v && !this.lastError)
      this.lastError = `invalid ${{ '+': 'addition', '-': 'subtraction', '*': 'multiplication', '/': 'division' }[op]} operation`;
    return v;
  }

  private apply(op: string, a: Value, b: Value): Value | null {
    switch (op) {
      case '+':
      case '-': {
        const sign = op === '+' ? 1 : -1;
        if (!a.quantity && !b.quantity) return { quantity: false, n: a.n + sign * b.n };
        return { quantity: true, milli: milliOf(a) + sign * milliOf(b) };
      }
      case '*':
        if (a.quantity && b.quantity) {
          this.lastError = 'multiplication of two quantities';
          return null;
        }
        if (a.quantity) return { quantity: true, milli: Math.trunc(a.milli * (b as { n: number }).n) };
        if (b.quantity) return { quantity: true, milli: Math.trunc(b.milli * a.n) };
        return { quantity: false, n: a.n * b.n };
      default:
        if (b.quantity) {
          this.lastError = 'division by quantity';
          return null;
        }
        if (b.n === 0) {
          this.lastError = 'division by zero';
          return null;
        }
        return a.quantity
          ? { quantity: true, milli: Math.trunc(a.milli / b.n) }
          : { quantity: false, n: a.n / b.n };
    }
  }
}

/** Go's `%g` of a float64, for the negative-result message. */
const goG = (n: number) => {
  const s = String(n);
  return /e/.test(s) ? s.replace(/e([+-])(\d)$/, 'e$10$2') : s;
};

/**
 * The error of a resource expression for `variable` (`cpu` or `memory`), worded as upstream's
 * validateResourceExpression (`invalid expression: …`), or undefined when it is valid.
 */
export function resourceExpressionError(expr: string, variable: 'cpu' | 'memory'): string | undefined {
  if (!expr) return undefined;
  const ev = new Evaluator(tokenize(expr), variable);
  let result: Value | null = null;
  try {
    result = ev.input();
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    return `invalid expression: ${ev.lastError ?? ev.syntaxError}`;
  }
  if (!result) return `invalid expression: ${ev.lastError ?? 'no result from parser'}`;
  if (result.quantity ? result.milli < 0 : result.n < 0)
    return `invalid expression: calculation result is negative: ${
      result.quantity ? quantityText(result.milli) : goG(result.n)
    }`;
  return undefined;
}
