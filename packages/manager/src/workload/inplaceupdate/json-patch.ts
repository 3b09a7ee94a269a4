import { jsonDeepEqual } from '@kruise/kube-compat';
/**
 * The JSON Patch OpenKruise computes between two revisions (appscode/jsonpatch v1 semantics, which
 * decide what counts as an in-place change): objects key by key; arrays of scalars (or of flat
 * objects) by edit distance; other arrays index by index, with adds and removes at the tail.
 */

/** One RFC 6902 operation. */
export interface PatchOperation {
  op: 'add' | 'remove' | 'replace';
  path: string;
  value?: unknown;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const isObject = (v: unknown): v is Record<string, Json> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
const isBasic = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
const kind = (v: unknown) => (v === null || v === undefined ? 'nil' : Array.isArray(v) ? 'array' : typeof v);

const escapeSegment = (key: string | number) => String(key).replace(/~/g, '~0').replace(/\//g, '~1');
const join = (path: string, key: string | number) => `${path}/${escapeSegment(key)}`;

/** appscode's isSimpleArray: scalars, or (deciding at the first object) an object of scalars. */
function isSimpleArray(a: Json[]): boolean {
  for (const v of a) {
    if (isBasic(v)) continue;
    if (isObject(v)) return Object.values(v).every((x) => x === null || isBasic(x));
    return false;
  }
  return true;
}

function diffObjects(
  a: Record<string, Json>,
  b: Record<string, Json>,
  path: string,
  out: PatchOperation[],
): void {
  for (const [key, bv] of Object.entries(b)) {
    const p = join(path, key);
    if (!(key in a)) out.push({ op: 'add', path: p, value: bv });
    else diffValues(a[key]!, bv, p, out);
  }
  for (const key of Object.keys(a)) if (!(key in b)) out.push({ op: 'remove', path: join(path, key) });
}

function editDistance(s: Json[], t: Json[], path: string): PatchOperation[] {
  const m = s.length;
  const n = t.length;
  const d = Array.from({ length: m + 1 }, (_, i) =>
    Array.from({ length: n + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let j = 1; j <= n; j++)
    for (let i = 1; i <= m; i++)
      d[i]![j] = jsonDeepEqual(s[i - 1], t[j - 1])
        ? d[i - 1]![j - 1]!
        : Math.min(d[i - 1]![j - 1]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j]! + 1);
  const out: PatchOperation[] = [];
  let i = m;
  let j = n;
  for (;;) {
    if (i > 0 && d[i - 1]![j]! + 1 === d[i]![j]) {
      out.push({ op: 'remove', path: join(path, i - 1) });
      i--;
    } else if (j > 0 && d[i]![j - 1]! + 1 === d[i]![j]) {
      out.push({ op: 'add', path: join(path, i), value: t[j - 1] });
      j--;
    } else if (i > 0 && j > 0 && d[i - 1]![j - 1]! + 1 === d[i]![j]) {
      if (isBasic(s[0])) out.push({ op: 'replace', path: join(path, i - 1), value: t[j - 1] });
      else diffValues(s[i - 1]!, t[j - 1]!, join(path, i - 1), out);
      i--;
      j--;
    } else if (i > 0 && j > 0 && d[i - 1]![j - 1] === d[i]![j]) {
      i--;
      j--;
    } else return out;
  }
}

function diffValues(a: Json, b: Json, path: string, out: PatchOperation[]): void {
  const ka = kind(a);
  const kb = kind(b);
  if (ka === 'nil' && kb === 'nil') return;
  if (ka === 'nil') {
    out.push({ op: 'add', path, value: b });
    return;
  }
  if (ka !== kb) {
    out.push({ op: 'replace', path, value: b });
    return;
  }
  if (isObject(a)) diffObjects(a, b as Record<string, Json>, path, out);
  else if (Array.isArray(a)) {
    const bt = b as Json[];
    if (isSimpleArray(a) && isSimpleArray(bt)) out.push(...editDistance(a, bt, path));
    else {
      const n = Math.min(a.length, bt.length);
      for (let i = a.length - 1; i >= n; i--) out.push({ op: 'remove', path: join(path, i) });
      for (let i = n; i < bt.length; i++) out.push({ op: 'add', path: join(path, i), value: bt[i] });
      for (let i = 0; i < n; i++) diffValues(a[i]!, bt[i]!, join(path, i), out);
    }
  } else if (a !== b) out.push({ op: 'replace', path, value: b });
}

/** The patch from document `a` to document `b` (both JSON objects). */
export function createPatch(a: Record<string, unknown>, b: Record<string, unknown>): PatchOperation[] {
  const out: PatchOperation[] = [];
  diffObjects(a as Record<string, Json>, b as Record<string, Json>, '', out);
  return out;
}

/** Undoes RFC 6901 escaping of one path segment (`~1` → `/`, `~0` → `~`). */
export const unescapePathSegment = (s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~');
