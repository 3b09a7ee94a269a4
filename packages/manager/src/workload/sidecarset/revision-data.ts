import type { SidecarSet, SidecarSetSpec } from '@kruise/api';
import { goMarshal } from '@kruise/kube-compat';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import { encodeStruct } from '../revision/go-encode.ts';
import { sidecarSetHash, sidecarSetHashWithoutImage } from './hash.ts';
import { SIDECARSET_HASH_ANNOTATION, SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION } from './keys.ts';

/** The spec fields a SidecarSet revision records (upstream's copySidecarSetSpecRevision). */
const RECORDED = [
  ['volumes', 'Volume'],
  ['containers', 'SidecarContainer'],
  ['initContainers', 'SidecarContainer'],
  ['imagePullSecrets', 'LocalObjectReference'],
  ['patchPodMetadata', 'SidecarSetPatchPodMetadata'],
] as const;

/**
 * A SidecarSet revision's `data`, byte for byte what upstream stores:
 * `{"spec":{"$patch":"replace","containers":[…],"imagePullSecrets":…,"initContainers":…,
 * "patchPodMetadata":…,"volumes":…}}`, every key sorted, each element as Go encodes its struct,
 * and `null` for a field that is absent or empty. Revisions are told apart and named by these bytes.
 */
export function sidecarSetRevisionData(sidecarSet: SidecarSet): string {
  const spec = (sidecarSet.spec ?? {}) as Record<string, unknown>;
  const recorded: Record<string, unknown> = { $patch: 'replace' };
  for (const [field, struct] of RECORDED) {
    const items = spec[field];
    recorded[field] =
      Array.isArray(items) && items.length > 0
        ? items.map((item) => encodeStruct((item ?? {}) as Record<string, unknown>, struct))
        : null;
  }
  return goMarshal({ spec: recorded }, true);
}

/**
 * The SidecarSet as it was at `revision` (upstream's GetHistorySidecarSet): the revision's data
 * replaces the whole spec (`$patch: replace`, so only the recorded fields remain), the hash
 * annotations come from the revision (or are computed from the restored spec when it has none)
 * and `status.latestRevision` names the revision. `current` is not changed.
 * @throws Error when the revision's data holds no spec object.
 */
export function restoreSidecarSetRevision(current: SidecarSet, revision: ControllerRevision): SidecarSet {
  const data = (typeof revision.data === 'string' ? JSON.parse(revision.data) : revision.data) as
    | { spec?: unknown }
    | undefined;
  if (!data || typeof data.spec !== 'object' || data.spec === null || Array.isArray(data.spec))
    throw new Error(`controllerRevision ${revision.metadata?.name ?? ''} holds no SidecarSet spec`);
  const spec: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data.spec as Record<string, unknown>))
    if (k !== '$patch' && v !== null && v !== undefined) spec[k] = v;
  const restored: SidecarSet = {
    ...structuredClone(current),
    spec: structuredClone(spec) as SidecarSetSpec,
  };
  restored.metadata = { ...restored.metadata, annotations: { ...(restored.metadata?.annotations ?? {}) } };
  const annotations = restored.metadata.annotations!;
  const stored = revision.metadata?.annotations ?? {};
  annotations[SIDECARSET_HASH_ANNOTATION] = stored[SIDECARSET_HASH_ANNOTATION] || sidecarSetHash(restored);
  annotations[SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION] =
    stored[SIDECARSET_HASH_WITHOUT_IMAGE_ANNOTATION] || sidecarSetHashWithoutImage(restored);
  restored.status = {
    ...(restored.status ?? {}),
    latestRevision: revision.metadata?.name ?? '',
  } as SidecarSet['status'];
  return restored;
}
