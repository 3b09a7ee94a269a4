import { formatGoDuration, parseGoDuration } from '@kruise/kube-compat/go-duration';

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

/** A Go `time.Duration` string (`1h0m0s`, `1.5s`, `300ms`) of nanoseconds. */
export const formatDuration: (ns: bigint) => string = formatGoDuration;

/** Nanoseconds of a Go duration string (undefined when unparseable). */
export function parseDuration(value: string): bigint | undefined {
  try {
    return parseGoDuration(value);
  } catch {
    return undefined;
  }
}
