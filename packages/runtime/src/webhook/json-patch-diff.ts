/** One RFC 6902 operation. */
export interface JsonPatchOperation {
  op: 'add' | 'remove' | 'replace';
  path: string;
  value?: unknown;
}

const escapeKey = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const ak = Object.keys(a).filter((k) => a[k] !== undefined);
    const bk = Object.keys(b).filter((k) => b[k] !== undefined);
    return ak.length === bk.length && ak.every((k) => k in b && sameJson(a[k], b[k]));
  }
  return false;
}

/**
 * The JSON Patch that turns `from` into `to`: objects are compared key by key; arrays that
 * differ are replaced whole (simple, and correct whatever the list semantics).
 */
export function jsonPatchDiff(from: unknown, to: unknown, path = ''): JsonPatchOperation[] {
  if (sameJson(from, to)) return [];
  if (isObject(from) && isObject(to)) {
    const ops: JsonPatchOperation[] = [];
    for (const key of Object.keys(from)) {
      if (from[key] !== undefined && (!(key in to) || to[key] === undefined))
        ops.push({ op: 'remove', path: `${path}/${escapeKey(key)}` });
    }
    for (const [key, value] of Object.entries(to)) {
      if (value === undefined) continue;
      const child = `${path}/${escapeKey(key)}`;
      if (!(key in from) || from[key] === undefined) ops.push({ op: 'add', path: child, value });
      else ops.push(...jsonPatchDiff(from[key], value, child));
    }
    return ops;
  }
  return [{ op: 'replace', path, value: to }];
}
