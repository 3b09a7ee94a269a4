/**
 * Upstream's util.Merge* helpers in one: `original`, then each of `additional` whose key is neither
 * in `taken` (default: the keys of `original`) nor added before it.
 */
export function appendNew<T>(
  original: T[] | undefined,
  additional: T[],
  key: (item: T) => string,
  taken: Iterable<string> = (original ?? []).map(key),
): T[] {
  const seen = new Set(taken);
  const out = [...(original ?? [])];
  for (const item of additional) {
    const k = key(item);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(item);
  }
  return out;
}

/** The list, or undefined when empty (Go's omitempty on a nil slice). */
export const orNone = <T>(list: T[]): T[] | undefined => (list.length ? list : undefined);
