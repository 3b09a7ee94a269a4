import { formatQuantity, parseQuantity, type Quantity, quantityMilliValue } from '@kruise/kube-compat';

/** apimachinery's `NewMilliQuantity(milli, DecimalSI)`. */
export const milliQuantity = (milli: bigint): Quantity => ({
  mantissa: milli,
  scale: -3,
  format: 'DecimalSI',
});

/** apimachinery's `NewQuantity(value, DecimalSI)`. */
export const wholeQuantity = (value: bigint): Quantity => ({
  mantissa: value,
  scale: 0,
  format: 'DecimalSI',
});

/** The zero Quantity (a missing entry of a Go ResourceList). */
export const ZERO_QUANTITY: Quantity = { mantissa: 0n, scale: 0, format: 'DecimalSI' };

const align = (a: Quantity, b: Quantity): [bigint, bigint, number] => {
  const s = Math.min(a.scale, b.scale);
  return [a.mantissa * 10n ** BigInt(a.scale - s), b.mantissa * 10n ** BigInt(b.scale - s), s];
};

/** `q.Add(y)`: the sum, in q's format (y's when q is zero). */
export function addQuantity(q: Quantity, y: Quantity): Quantity {
  const [a, b, scale] = align(q, y);
  return { mantissa: a + b, scale, format: q.mantissa === 0n ? y.format : q.format };
}

/** `q.Neg()`. */
export const negQuantity = (q: Quantity): Quantity => ({ ...q, mantissa: -q.mantissa });

/** `q.Cmp(y)`: -1, 0 or 1. */
export function cmpQuantity(q: Quantity, y: Quantity): number {
  const [a, b] = align(q, y);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Go's `int64(f)` for a float: truncated toward zero. */
export const goInt64 = (f: number): bigint => BigInt(Math.trunc(f));

/** `q.SetMilli(int64(op(float64(q.MilliValue()))))`, q's format kept. */
export function scaleQuantity(q: Quantity, op: (milli: number) => number): Quantity {
  return { ...milliQuantity(goInt64(op(Number(quantityMilliValue(q))))), format: q.format };
}

/** `Quantity.String()`. */
export const quantityString = (q: Quantity): string => formatQuantity(q);

/** A container resource value (`"500m"`) as a Quantity; absent or unreadable → undefined. */
export function resourceQuantity(value: string | number | undefined): Quantity | undefined {
  return value === undefined ? undefined : parseQuantity(String(value));
}
