/**
 * fieldpath.SplitMaybeSubscriptedPath for the subscripted form only: `metadata.labels['app']` →
 * [`metadata.labels`, `app`]; undefined for a path without a subscript.
 */
export function splitSubscriptedPath(fieldPath: string): [string, string] | undefined {
  if (!fieldPath.endsWith("']")) return undefined;
  const s = fieldPath.slice(0, -2);
  const at = s.indexOf("['");
  if (at <= 0) return undefined;
  return [s.slice(0, at), s.slice(at + 2)];
}
