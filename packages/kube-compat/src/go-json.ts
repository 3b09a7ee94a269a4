/**
 * JSON text as Go's encoding/json writes it, for hashes and payloads that must match bytes a Go
 * controller produced: `<`, `>`, `&`, U+2028 and U+2029 are escaped as `\u003c` …, everything
 * else as JSON.stringify writes it (Go ≥ 1.22 also writes `\b` and `\f`).
 */
export function goJsonString(value: string): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => {
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Marshals a JSON value as Go does: object keys in the order given, or sorted (as Go writes a
 * `map[string]interface{}`) when `sortKeys` is true; `undefined` members are left out.
 */
export function goMarshal(value: unknown, sortKeys = false): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goJsonString(value);
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => goMarshal(v, sortKeys)).join(',')}]`;
  if (isPlainObject(value)) {
    let keys = Object.keys(value).filter((k) => value[k] !== undefined);
    if (sortKeys) keys = keys.sort(compareBytes);
    return `{${keys.map((k) => `${goJsonString(k)}:${goMarshal(value[k], sortKeys)}`).join(',')}}`;
  }
  return 'null';
}

/** Orders strings by their UTF-8 bytes, as Go's sort.Strings does. */
export function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
