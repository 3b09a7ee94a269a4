/** Go's reflect.DeepEqual on two values decoded from JSON: same kinds, same keys, same scalars. */
export function jsonDeepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || a === undefined || b === undefined) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => jsonDeepEqual(v, b[i]));
  }
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ka = Object.keys(ao);
  return (
    ka.length === Object.keys(bo).length &&
    ka.every((k) => Object.hasOwn(bo, k) && jsonDeepEqual(ao[k], bo[k]))
  );
}
