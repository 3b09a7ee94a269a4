import { goFloat, parseQuantity, type Quantity } from '@kruise/kube-compat';
import { type Token, tokenize } from './expression-lexer.ts';
import {
  addQuantity,
  cmpQuantity,
  goInt64,
  milliQuantity,
  negQuantity,
  quantityString,
  scaleQuantity,
} from './quantity-math.ts';

const QUANTITY_SHAPE = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const QUANTITY_FORMAT = `quantities must match the regular expression '${QUANTITY_SHAPE.source}'`;

/** A value of the expression language: a plain number or a Kubernetes quantity. */
export type ExprValue = { number: number; quantity?: undefined } | { quantity: Quantity; number?: undefined };

/** strconv.ParseFloat as the language reads a number; a percentage is divided by 100. */
function parseNumber(text: string): number {
  const percent = text.endsWith('%');
  const s = percent ? text.slice(0, -1) : text;
  if (!/^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return 0;
  return percent ? Number(s) / 100 : Number(s);
}

const asQuantity = (v: ExprValue): Quantity => v.quantity ?? milliQuantity(goInt64(v.number * 1000));

/**
 * Upstream's calculator: `+ - * /`, parentheses, unary minus, `max(a, b)` / `min(a, b)`, numbers
 * (`0.5`, `50%`), quantities (`200m`, `1Gi`) and the variables given (`cpu` or `memory`). Errors
 * carry upstream's words (`division by zero`, `undefined variable: x`, `parse error: syntax error
 * at line 1, col 6`, `calculation result is negative: -100m`).
 * @throws Error when the expression cannot be evaluated.
 */
export function evaluateExpression(input: string, variables: Record<string, ExprValue>): ExprValue {
  const tokens = tokenize(input);
  let at = 0;
  let lastError: string | undefined;
  const fail = (message: string): undefined => {
    lastError = message;
    return undefined;
  };
  const peek = (): Token => tokens[at]!;
  const isChar = (c: string) => peek().kind === 'CHAR' && peek().text === c;
  const syntaxError = (): never => {
    const before = input.slice(0, peek().end);
    const lines = before.split('\n');
    throw new Error(
      lastError ??
        `parse error: syntax error at line ${lines.length}, col ${lines[lines.length - 1]!.length + 1}`,
    );
  };
  const expect = (c: string) => {
    if (!isChar(c)) syntaxError();
    at++;
  };

  const binary = (op: string, l: ExprValue | undefined, r: ExprValue | undefined): ExprValue | undefined => {
    if (!l || !r) return undefined;
    switch (op) {
      case '+':
      case '-': {
        if (l.quantity === undefined && r.quantity === undefined)
          return { number: op === '+' ? l.number + r.number : l.number - r.number };
        const right = op === '+' ? asQuantity(r) : negQuantity(asQuantity(r));
        return { quantity: addQuantity(asQuantity(l), right) };
      }
      case '*':
        if (l.quantity && r.quantity) return fail('multiplication of two quantities');
        if (l.quantity) return { quantity: scaleQuantity(l.quantity, (m) => m * r.number!) };
        if (r.quantity) return { quantity: scaleQuantity(r.quantity, (m) => m * l.number!) };
        return { number: l.number! * r.number! };
      default:
        if (r.quantity) return fail('division by quantity');
        if (r.number === 0) return fail('division by zero');
        if (l.quantity) return { quantity: scaleQuantity(l.quantity, (m) => m / r.number!) };
        return { number: l.number! / r.number! };
    }
  };
  const pick = (name: string, args: (ExprValue | undefined)[]): ExprValue | undefined => {
    const lower = name.toLowerCase();
    if (lower !== 'max' && lower !== 'min') return fail(`unknown function: ${name}`);
    if (args.length !== 2) return fail(`${lower} function requires exactly 2 arguments, got ${args.length}`);
    const [l, r] = args;
    if (!l || !r) return undefined;
    const wantLeft = (c: number) => (lower === 'max' ? c >= 0 : c <= 0);
    if (l.quantity === undefined && r.quantity === undefined) return wantLeft(l.number - r.number) ? l : r;
    const lq = asQuantity(l);
    const rq = asQuantity(r);
    return { quantity: wantLeft(cmpQuantity(lq, rq)) ? lq : rq };
  };
  const withDefault = (v: ExprValue | undefined, message: string) => {
    if (v === undefined && lastError === undefined) lastError = message;
    return v;
  };

  function factor(): ExprValue | undefined {
    const t = peek();
    if (t.kind === 'NUMBER') {
      at++;
      return { number: parseNumber(t.text) };
    }
    if (t.kind === 'QUANTITY') {
      at++;
      const q = parseQuantity(t.text);
      if (q) return { quantity: q };
      // resource.ParseQuantity's two errors: a malformed number, or a suffix it does not know.
      return fail(QUANTITY_SHAPE.test(t.text) ? "unable to parse quantity's suffix" : QUANTITY_FORMAT);
    }
    if (t.kind === 'IDENT') {
      at++;
      if (!isChar('(')) {
        const name = t.text.toLowerCase();
        return variables[name] ?? fail(`undefined variable: ${name}`);
      }
      at++;
      const args = [expr()];
      if (isChar(',')) {
        at++;
        args.push(expr());
      }
      expect(')');
      return withDefault(pick(t.text, args), 'function call failed');
    }
    if (isChar('(')) {
      at++;
      const v = expr();
      expect(')');
      return v;
    }
    if (isChar('-')) {
      at++;
      const v = factor();
      if (!v) return undefined;
      return v.quantity ? { quantity: negQuantity(v.quantity) } : { number: -v.number };
    }
    return syntaxError();
  }
  /** A left-associative level of the grammar: operands from `next`, joined by `ops` (operator → name). */
  const level =
    (ops: Record<string, string>, next: () => ExprValue | undefined) => (): ExprValue | undefined => {
      let v = next();
      while (peek().kind === 'CHAR' && peek().text in ops) {
        const op = peek().text;
        at++;
        v = withDefault(binary(op, v, next()), `invalid ${ops[op]} operation`);
      }
      return v;
    };
  const term = level({ '*': 'multiplication', '/': 'division' }, factor);
  const expr: () => ExprValue | undefined = level({ '+': 'addition', '-': 'subtraction' }, term);

  const result = expr();
  if (peek().kind !== 'EOF') syntaxError();
  if (!result) throw new Error(lastError ?? 'no result from parser');
  if (result.quantity ? result.quantity.mantissa < 0n : result.number! < 0)
    throw new Error(
      `calculation result is negative: ${result.quantity ? quantityString(result.quantity) : goFloat(result.number!)}`,
    );
  return result;
}
