/**
 * Reads a `--feature-gates` value (`A=true,B=false`, spaces around names, values and commas allowed)
 * over `defaults`, as component-base's feature-gate flag does: the result is a copy of `defaults`
 * with each named gate set. The gate set and any rules between gates are the caller's.
 * @throws Error for a pair without `=` (`missing bool value for X`), a gate not in `defaults`
 * (`unrecognized feature gate: X`) or a value that is not a boolean (Go's strconv.ParseBool error).
 */
export function parseFeatureGateFlag(
  text: string | undefined,
  defaults: Readonly<Record<string, boolean>>,
): Record<string, boolean> {
  const values = { ...defaults };
  for (const part of (text ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const at = part.indexOf('=');
    const name = (at < 0 ? part : part.slice(0, at)).trim();
    if (at < 0) throw new Error(`missing bool value for ${name}`);
    const raw = part.slice(at + 1).trim();
    if (!Object.hasOwn(defaults, name)) throw new Error(`unrecognized feature gate: ${name}`);
    if (raw !== 'true' && raw !== 'false')
      throw new Error(
        `invalid value of ${name}=${raw}, err: strconv.ParseBool: parsing "${raw}": invalid syntax`,
      );
    values[name] = raw === 'true';
  }
  return values;
}
