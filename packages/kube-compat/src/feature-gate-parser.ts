import { GO_FALSE, GO_TRUE, parseGoBool } from './go-bool.ts';

/** The characters Go's `strings.TrimSpace` removes (`unicode.IsSpace`), as a regular-expression class. */
const GO_SPACE = '[\\t\\n\\v\\f\\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]';
const AROUND = new RegExp(`^${GO_SPACE}+|${GO_SPACE}+$`, 'g');
const trimSpace = (text: string) => text.replace(AROUND, '');

/**
 * Reads a `--feature-gates` value (`A=true,B=false`) over `defaults` as component-base's
 * feature-gate flag (`featureGate.Set`) does: the list is split at commas and empty items skipped;
 * each item is `name=value` with spaces around both trimmed, the value in any spelling of Go's
 * `strconv.ParseBool` (`true`, `True`, `1`, `t`, `false`, `F`, …), a later item winning over an
 * earlier one; then every name must be a known gate. The result is a copy of `defaults` with the
 * named gates set; any rules between gates are the caller's.
 * @throws Error in component-base's words: `missing bool value for X`, `invalid value of X=yes, err:
 * strconv.ParseBool: parsing "yes": invalid syntax` (both before any name is checked), then
 * `unrecognized feature gate: X`.
 */
export function parseFeatureGateFlag(
  text: string | undefined,
  defaults: Readonly<Record<string, boolean>>,
): Record<string, boolean> {
  const given = new Map<string, boolean>();
  for (const item of (text ?? '').split(',')) {
    if (item === '') continue;
    const at = item.indexOf('=');
    const name = trimSpace(at < 0 ? item : item.slice(0, at));
    if (at < 0) throw new Error(`missing bool value for ${name}`);
    const raw = trimSpace(item.slice(at + 1));
    try {
      given.set(name, parseGoBool(raw));
    } catch (err) {
      throw new Error(`invalid value of ${name}=${raw}, err: ${(err as Error).message}`);
    }
  }
  const values = { ...defaults };
  for (const [name, value] of given) {
    if (!Object.hasOwn(defaults, name)) throw new Error(`unrecognized feature gate: ${name}`);
    values[name] = value;
  }
  return values;
}

/**
 * A regular expression (as text, for a JSON schema's `pattern`) matching exactly the
 * `--feature-gates` values {@link parseFeatureGateFlag} accepts for these gates.
 */
export function featureGateFlagPattern(gates: readonly string[]): string {
  const names = gates.map((g) => g.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const bools = [...GO_TRUE, ...GO_FALSE].join('|');
  const item = `${GO_SPACE}*(${names})${GO_SPACE}*=${GO_SPACE}*(${bools})${GO_SPACE}*`;
  return `^(${item})?(,(${item})?)*$`;
}
