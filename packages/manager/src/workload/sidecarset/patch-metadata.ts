import type { SidecarSetPatchPodMetadata } from '@kruise/api';
import { goMarshal } from '@kruise/kube-compat';

/** RFC 7386 JSON merge patch of `patch` onto `target`. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!patch || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    target && typeof target === 'object' && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/**
 * Applies a SidecarSet's `patchPodMetadata` to pod annotations (upstream's PatchPodMetadata):
 * Retain (or no policy) sets absent keys only, Overwrite sets every key, MergePatchJson merges the
 * value as a JSON merge patch into the present JSON value (or sets it when absent). Returns whether
 * the annotations changed; mutates `annotations`.
 * @throws Error when a MergePatchJson value or the annotation it patches is not JSON.
 */
export function patchPodMetadata(
  annotations: Record<string, string>,
  patches: SidecarSetPatchPodMetadata[] | undefined,
): boolean {
  const before = JSON.stringify(Object.entries(annotations).sort());
  for (const patch of patches ?? []) {
    for (const [key, value] of Object.entries(patch.annotations ?? {})) {
      switch (patch.patchPolicy ?? 'Retain') {
        case 'Retain':
          if (!(key in annotations)) annotations[key] = value;
          break;
        case 'Overwrite':
          annotations[key] = value;
          break;
        case 'MergePatchJson': {
          const origin = annotations[key];
          // Go writes the merged document with its keys sorted.
          annotations[key] = origin
            ? goMarshal(mergePatch(JSON.parse(origin), JSON.parse(value)), true)
            : value;
          break;
        }
      }
    }
  }
  return JSON.stringify(Object.entries(annotations).sort()) !== before;
}
