/**
 * Types whose JSON form is not their message's fields: times, durations, quantities, int-or-string,
 * raw JSON and the apiextensions schema unions. Each maps message fields ↔ the JSON Go writes.
 */

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const EXT = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';

/** Full proto names of the well-known types. */
export const WELL_KNOWN = {
  time: `${META}.Time`,
  microTime: `${META}.MicroTime`,
  duration: `${META}.Duration`,
  fieldsV1: `${META}.FieldsV1`,
  verbs: `${META}.Verbs`,
  quantity: 'k8s.io.apimachinery.pkg.api.resource.Quantity',
  intOrString: 'k8s.io.apimachinery.pkg.util.intstr.IntOrString',
  rawExtension: 'k8s.io.apimachinery.pkg.runtime.RawExtension',
  json: `${EXT}.JSON`,
  schemaOrBool: `${EXT}.JSONSchemaPropsOrBool`,
  schemaOrArray: `${EXT}.JSONSchemaPropsOrArray`,
  schemaOrStringArray: `${EXT}.JSONSchemaPropsOrStringArray`,
} as const;

/** Message types whose JSON form is the array of their `items` (Verbs, authentication's ExtraValue). */
export function isStringArrayMessage(type: string): boolean {
  return type === WELL_KNOWN.verbs || type.endsWith('.v1.ExtraValue');
}

/** `metav1.Time` (seconds) or `MicroTime` (microseconds) as RFC 3339. */
export function formatTime(seconds: number, nanos: number, micro: boolean): string {
  const iso = new Date(seconds * 1000).toISOString();
  if (!micro) return iso.replace(/\.\d{3}Z$/, 'Z');
  return `${iso.slice(0, 19)}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
}

/** Seconds and nanoseconds of an RFC 3339 time (undefined when unparseable). */
export function parseTime(value: string): { seconds: number; nanos: number } | undefined {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return undefined;
  const fraction = /\.(\d+)/.exec(value)?.[1] ?? '';
  return { seconds: Math.floor(ms / 1000), nanos: Number(fraction.padEnd(9, '0').slice(0, 9)) };
}

const UNITS: [string, bigint][] = [
  ['h', 3_600_000_000_000n],
  ['m', 60_000_000_000n],
  ['s', 1_000_000_000n],
  ['ms', 1_000_000n],
  ['us', 1_000n],
  ['µs', 1_000n],
  ['ns', 1n],
];

/** A Go `time.Duration` string (`1h0m0s`, `1.5s`, `300ms`) of nanoseconds. */
export function formatDuration(ns: bigint): string {
  if (ns === 0n) return '0s';
  const sign = ns < 0n ? '-' : '';
  let v = ns < 0n ? -ns : ns;
  if (v < 1_000_000_000n) {
    for (const [unit, size] of [
      ['ms', 1_000_000n],
      ['µs', 1_000n],
      ['ns', 1n],
    ] as const) {
      if (v >= size) return `${sign}${fractional(v, size)}${unit}`;
    }
  }
  const h = v / 3_600_000_000_000n;
  v %= 3_600_000_000_000n;
  const m = v / 60_000_000_000n;
  v %= 60_000_000_000n;
  const s = fractional(v, 1_000_000_000n);
  if (h > 0n) return `${sign}${h}h${m}m${s}s`;
  if (m > 0n) return `${sign}${m}m${s}s`;
  return `${sign}${s}s`;
}

function fractional(v: bigint, unit: bigint): string {
  const whole = v / unit;
  const rest = v % unit;
  if (rest === 0n) return String(whole);
  const digits = String(unit).length - 1;
  return `${whole}.${String(rest).padStart(digits, '0').replace(/0+$/, '')}`;
}

/** Nanoseconds of a Go duration string (undefined when unparseable). */
export function parseDuration(value: string): bigint | undefined {
  const m = /^([-+]?)((?:\d+(?:\.\d+)?(?:h|ms|m|s|us|µs|ns))+)$/.exec(value);
  if (!m) return value === '0' ? 0n : undefined;
  let total = 0n;
  for (const [, num, unit] of m[2]!.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g)) {
    const size = UNITS.find(([u]) => u === unit)![1];
    const [whole, frac = ''] = num!.split('.');
    total += BigInt(whole!) * size;
    if (frac) total += (BigInt(frac) * size) / 10n ** BigInt(frac.length);
  }
  return m[1] === '-' ? -total : total;
}
