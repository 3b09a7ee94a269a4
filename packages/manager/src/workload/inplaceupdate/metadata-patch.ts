import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function mapPatch(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(b)) if (!(k in a) || !same(a[k], v)) out[k] = v;
  for (const k of Object.keys(a)) if (!(k in b)) out[k] = null;
  return Object.keys(out).length ? out : undefined;
}

/**
 * The strategic merge patch that turns pod metadata `from` into `to` (labels and annotations key
 * by key, a removed key as null; other fields replaced whole), as `{"metadata":{…}}` JSON, or
 * `{}` when they are equal.
 */
export function twoWayMetadataPatch(from: ObjectMeta, to: ObjectMeta): string {
  const a = from as Record<string, unknown>;
  const b = to as Record<string, unknown>;
  const meta: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const av = a[key];
    const bv = b[key];
    if (same(av, bv)) continue;
    if (
      (key === 'labels' || key === 'annotations') &&
      (isObject(av) || av === undefined) &&
      (isObject(bv) || bv === undefined)
    ) {
      const p = mapPatch((av ?? {}) as Record<string, unknown>, (bv ?? {}) as Record<string, unknown>);
      if (p) meta[key] = p;
    } else meta[key] = bv === undefined ? null : bv;
  }
  return Object.keys(meta).length ? JSON.stringify({ metadata: meta }) : '{}';
}

/** Applies a patch made by {@link twoWayMetadataPatch} to a pod's metadata. Mutates `pod`. */
export function applyMetadataPatch(pod: { metadata?: ObjectMeta }, patch: string): void {
  const meta = (JSON.parse(patch) as { metadata?: Record<string, unknown> }).metadata;
  if (!meta) return;
  pod.metadata ??= {};
  const target = pod.metadata as Record<string, unknown>;
  for (const [key, value] of Object.entries(meta)) {
    if (value === null) delete target[key];
    else if ((key === 'labels' || key === 'annotations') && isObject(value)) {
      const m = { ...((target[key] ?? {}) as Record<string, string>) };
      for (const [k, v] of Object.entries(value)) {
        if (v === null) delete m[k];
        else m[k] = String(v);
      }
      target[key] = m;
    } else target[key] = value;
  }
}
