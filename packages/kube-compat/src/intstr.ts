/** IntOrString values (`3`, `"20%"`) turned into counts, with the two parsers upstream uses. */

/** A Kubernetes IntOrString as it appears in JSON. */
export type IntOrString = number | string;

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
  if (value === undefined || value === null) throw new Error('nil value for IntOrString');
  if (typeof value === 'number') return Math.trunc(value);
  if (!value.endsWith('%'))
    throw new Error('invalid value for IntOrString: invalid type: string is not a percentage');
  const text = value.slice(0, -1);
  if (!/^[+-]?\d+$/.test(text))
    throw new Error(
      `invalid value for IntOrString: invalid value "${value}": strconv.Atoi: parsing "${text}": invalid syntax`,
    );
  const v = Number(text);
  return roundUp ? Math.ceil((v * total) / 100) : Math.floor((v * total) / 100);
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
