/** IntOrString values (`3`, `"20%"`) turned into counts, with the two parsers upstream uses. */

/** A Kubernetes IntOrString as it appears in JSON. */
export type IntOrString = number | string;

/** Go's base-10 integer parsing with an optional sign, within `bits` bits (`fn` names it in errors). */
function goParseBase10(text: string, bits: bigint, fn: string): number {
  if (!/^[+-]?\d+$/.test(text))
    throw new Error(`strconv.${fn}: parsing ${JSON.stringify(text)}: invalid syntax`);
  const n = BigInt(text);
  const limit = 2n ** (bits - 1n);
  if (n >= limit || n < -limit)
    throw new Error(`strconv.${fn}: parsing ${JSON.stringify(text)}: value out of range`);
  return Number(n);
}

/**
 * Go's strconv.Atoi: a base-10 integer with an optional sign, in int64's range.
 * @throws Error with Go's words (`strconv.Atoi: parsing "x": invalid syntax` / `value out of range`).
 */
export function goAtoi(text: string): number {
  return goParseBase10(text, 64n, 'Atoi');
}

/**
 * Go's strconv.ParseInt(text, 10, 32): a base-10 integer with an optional sign, in int32's range.
 * @throws Error with Go's words (`strconv.ParseInt: parsing "x": invalid syntax` / `value out of range`).
 */
export function goParseInt32(text: string): number {
  return goParseBase10(text, 32n, 'ParseInt');
}

/**
 * Kruise's GetScaledValueFromIntOrPercent: an integer as is, or a percentage (decimals allowed,
 * `"12.5%"`) of `total`, rounded up or down.
 * @throws Error with upstream's words for a string without `%` or an unparsable number.
 */
export function scaledValue(value: IntOrString | undefined | null, total: number, roundUp: boolean): number {
  if (value === undefined || value === null) throw new Error('nil value for IntOrString');
  if (typeof value === 'number') return Math.trunc(value);
  if (!value.endsWith('%')) throw new Error('invalid type: string is not a percentage');
  const text = value.slice(0, -1);
  const v = Number(text);
  if (text.trim() === '' || text !== text.trim() || !Number.isFinite(v) || /^0x/i.test(text))
    throw new Error(`strconv.ParseFloat: parsing "${text}": invalid syntax`);
  return roundUp ? Math.ceil((v * total) / 100) : Math.floor((v * total) / 100);
}

/** An integer as is, or the percentage `percentText` reads from the string (or refuses), of `total`. */
function intOrPercentOf(
  value: IntOrString | undefined | null,
  total: number,
  roundUp: boolean,
  percentText: (s: string) => string,
): number {
  if (value === undefined || value === null) throw new Error('nil value for IntOrString');
  if (typeof value === 'number') return Math.trunc(value);
  const text = percentText(value);
  let v: number;
  try {
    v = goAtoi(text);
  } catch (err) {
    throw new Error(
      `invalid value for IntOrString: invalid value ${JSON.stringify(value)}: ${(err as Error).message}`,
    );
  }
  return roundUp ? Math.ceil((v * total) / 100) : Math.floor((v * total) / 100);
}

/**
 * apimachinery's intstr.GetScaledValueFromIntOrPercent, which the CloneSet controller uses for
 * maxSurge and maxUnavailable: percentages must be integers (`"12.5%"` is an error, and the
 * controller then uses 0).
 * @throws Error with apimachinery's words.
 */
export function intPercentValue(
  value: IntOrString | undefined | null,
  total: number,
  roundUp: boolean,
): number {
  return intOrPercentOf(value, total, roundUp, (s) => {
    if (!s.endsWith('%'))
      throw new Error('invalid value for IntOrString: invalid type: string is not a percentage');
    return s.slice(0, -1);
  });
}

/**
 * apimachinery's deprecated intstr.GetValueFromIntOrPercent, which Advanced StatefulSet's webhook
 * still uses: an integer as is, and every string a percentage of `total`, with or without its `%`
 * (all `%` signs dropped before parsing).
 * @throws Error with apimachinery's words.
 */
export function deprecatedIntPercentValue(
  value: IntOrString | undefined | null,
  total: number,
  roundUp: boolean,
): number {
  return intOrPercentOf(value, total, roundUp, (s) => s.replaceAll('%', ''));
}

/** {@link intPercentValue}, or 0 where it throws (as the controller does, ignoring the error). */
export function intPercentValueOrZero(
  value: IntOrString | undefined | null,
  total: number,
  roundUp: boolean,
): number {
  try {
    return intPercentValue(value, total, roundUp);
  } catch {
    return 0;
  }
}
