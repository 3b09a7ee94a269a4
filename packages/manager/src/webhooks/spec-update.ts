import { createPatch } from '../workload/inplaceupdate/json-patch.ts';
import { encodeStruct } from '../workload/revision/go-encode.ts';

/** Empty maps and lists count as absent (apimachinery's semantic equality). */
function semantic(v: unknown): unknown {
  if (Array.isArray(v)) return v.length ? v.map(semantic) : undefined;
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const s = semantic(x);
      if (s !== undefined) out[k] = s;
    }
    return Object.keys(out).length ? out : undefined;
  }
  return v ?? undefined;
}

/**
 * Whether an update changed a workload's spec beyond its `mutable` fields: the rest compared as Go
 * decodes them into `struct`, with apimachinery's semantic equality (empty and absent alike).
 */
export function specChangedBeyond(
  spec: object | undefined,
  old: object | undefined,
  mutable: readonly string[],
  struct: string,
): boolean {
  const rest = (s: object | undefined) => {
    const copy: Record<string, unknown> = { ...(s ?? {}) };
    for (const k of mutable) delete copy[k];
    return JSON.stringify(semantic(encodeStruct(copy, struct)));
  };
  return rest(spec) !== rest(old);
}

/**
 * The first change from one pod spec to the next (both as Go encodes them, in the order of the
 * JSON patch upstream computes) that is not a `replace` at a path `imagePath` matches, as
 * `op path`; undefined when only images changed (what the InPlaceOnly strategies allow).
 */
export function firstNonImageChange(before: unknown, after: unknown, imagePath: RegExp): string | undefined {
  const encoded = (s: unknown) => encodeStruct((s ?? {}) as Record<string, unknown>, 'PodSpec');
  for (const op of createPatch(encoded(before), encoded(after)))
    if (op.op !== 'replace' || !imagePath.test(op.path)) return `${op.op} ${op.path}`;
  return undefined;
}
