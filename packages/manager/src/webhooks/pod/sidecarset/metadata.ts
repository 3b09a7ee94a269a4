import type { SidecarSet } from '@kruise/api';
import { patchPodMetadata } from '../../../workload/sidecarset/patch-metadata.ts';

const isJson = (s: string) => {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
};

/**
 * Applies each matched SidecarSet's `patchPodMetadata` to the pod's annotations, in order (upstream's
 * PatchPodMetadata: Retain, Overwrite, MergePatchJson). Returns whether they changed.
 * @throws Error `Invalid JSON Document` / `Invalid JSON Patch` (json-patch's words) when a
 * MergePatchJson annotation or its patch is not JSON.
 */
export function patchMetadata(annotations: Record<string, string>, matched: SidecarSet[]): boolean {
  let changed = false;
  for (const sidecarSet of matched) {
    const patches = sidecarSet.spec?.patchPodMetadata;
    for (const patch of patches ?? []) {
      if (patch.patchPolicy !== 'MergePatchJson') continue;
      for (const [key, value] of Object.entries(patch.annotations ?? {})) {
        const origin = annotations[key];
        if (origin && (!isJson(origin) || JSON.parse(origin) === null))
          throw new Error('Invalid JSON Document');
        if (origin && (!isJson(value) || JSON.parse(value) === null)) throw new Error('Invalid JSON Patch');
      }
    }
    if (patchPodMetadata(annotations, patches)) changed = true;
  }
  return changed;
}
