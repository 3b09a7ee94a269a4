import { GO_FALSE } from '@kruise/kube-compat/go-bool';
import { defaultValue, type ValuePath } from './values.ts';

/** When an object or list item is rendered: a value is true, or featureGates turns a gate off. */
export type Condition = { value: ValuePath } | { gateOff: string };

/**
 * Where the install's builders take configurable values from. One builder renders both outputs:
 * with `DEFAULTS` it gives deploy/'s objects; with a chart source (chart-template.ts) every value
 * is a token that becomes a Helm template expression in charts/kruise.
 */
export interface ValueSource {
  /** A whole scalar (number, boolean or string; a string stays a string in the chart). */
  scalar<T extends string | number | boolean>(path: ValuePath): T;
  /** A whole scalar rendered as a string (e.g. a port in an env var's value). */
  string(path: ValuePath): string;
  /** A value inside a longer string, e.g. `--addr=:${v.text('daemon.port')}`. */
  text(path: ValuePath): string;
  /** A mapping or list placed whole under its key. */
  block<T>(path: ValuePath): T;
  /** `{ [key]: value }` to spread into a mapping, or nothing when the value is empty. */
  optional(key: string, path: ValuePath): Record<string, unknown>;
  /** The items of a list value, to spread into a list. */
  items(path: ValuePath): object[];
  /** `[item]` to spread into a list when the condition holds (`[]` otherwise). */
  when<T extends object>(condition: Condition, item: T): T[];
}

const isEmpty = (v: unknown) =>
  v === undefined ||
  v === null ||
  v === '' ||
  (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && Object.keys(v).length === 0);

/** Whether a condition holds for the given values (as the chart's template tests it). */
export function holds(condition: Condition, value: (path: ValuePath) => unknown): boolean {
  if ('value' in condition) return Boolean(value(condition.value));
  const gates = String(value('featureGates')).replace(/\s/g, '');
  const last = [...gates.matchAll(new RegExp(`(^|,)${condition.gateOff}=([^,]*)`, 'g'))].at(-1)?.[2];
  return !(GO_FALSE as readonly string[]).includes(last ?? '');
}

/** The chart's default values: what deploy/ is rendered from. */
export const DEFAULTS: ValueSource = {
  scalar: <T>(path: ValuePath) => defaultValue(path) as T,
  string: (path) => String(defaultValue(path)),
  text: (path) => String(defaultValue(path)),
  block: <T>(path: ValuePath) => structuredClone(defaultValue(path)) as T,
  optional: (key, path) => {
    const v = defaultValue(path);
    return isEmpty(v) ? {} : { [key]: structuredClone(v) };
  },
  items: (path) => structuredClone(defaultValue(path) as object[]),
  when: (condition, item) => (holds(condition, defaultValue) ? [item] : []),
};
