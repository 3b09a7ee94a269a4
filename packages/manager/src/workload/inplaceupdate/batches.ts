import { kubeTime } from '@kruise/kube-compat';
import type { Pod, ResourceRequirements } from 'kubernetes-types/core/v1.js';
import { containerPriority } from '../launch-priority.ts';
import { applyMetadataPatch } from './metadata-patch.ts';
import {
  INPLACE_UPDATE_STATE_KEY,
  type InPlaceUpdateState,
  type RefMetadata,
  serializeState,
  type UpdateSpec,
} from './state.ts';
import { applyResources } from './vertical.ts';

/**
 * The containers of this batch (upstream's launch-priority rule): every changed container without a
 * priority, plus the changed containers sharing the highest priority; then, transitively, any
 * container whose env-from-metadata shares a label or annotation key with one already chosen.
 */
export function containersOfBatch(pod: Pod, spec: UpdateSpec): Set<string> {
  const chosen = new Set<string>();
  let highest: number | undefined;
  let atHighest: string[] = [];
  for (const c of pod.spec?.containers ?? []) {
    const changed =
      c.name in (spec.containerImages ?? {}) ||
      c.name in (spec.containerRefMetadata ?? {}) ||
      c.name in (spec.containerResources ?? {});
    if (!changed) continue;
    const p = containerPriority(c);
    if (p === undefined) chosen.add(c.name);
    else if (highest === undefined || highest < p) {
      highest = p;
      atHighest = [c.name];
    } else if (highest === p) atHighest.push(c.name);
  }
  for (const n of atHighest) chosen.add(n);
  const refs = spec.containerRefMetadata ?? {};
  let added = [...chosen];
  while (added.length) {
    const labels = new Set(added.flatMap((n) => Object.keys(refs[n]?.labels ?? {})));
    const annotations = new Set(added.flatMap((n) => Object.keys(refs[n]?.annotations ?? {})));
    added = [];
    for (const [name, meta] of Object.entries(refs)) {
      if (chosen.has(name)) continue;
      const shares =
        Object.keys(meta.labels ?? {}).some((k) => labels.has(k)) ||
        Object.keys(meta.annotations ?? {}).some((k) => annotations.has(k));
      if (shares) {
        chosen.add(name);
        added.push(name);
      }
    }
  }
  return chosen;
}

/**
 * Applies the next batch of an in-place update to a copy of the pod (upstream's
 * defaultPatchUpdateSpecToPod): the metadata patch, new images of the batch's containers (their
 * current imageIDs recorded), their env-referenced labels/annotations, with vertical scaling their
 * resources; the rest is deferred into `next*` of the state, with the batch's containers required
 * ready before the next one. Writes the state annotation and returns the pod.
 */
export function patchUpdateSpecToPod(
  pod: Pod,
  spec: UpdateSpec,
  state: InPlaceUpdateState,
  opts: { verticalScaling?: boolean; now?: number } = {},
): Pod {
  const next = structuredClone(pod);
  state.nextContainerImages = {};
  state.nextContainerRefMetadata = {};
  state.nextContainerResources = {};
  if (spec.metaDataPatch) applyMetadataPatch(next, spec.metaDataPatch);
  next.metadata ??= {};
  next.metadata.labels ??= {};
  const labels = next.metadata.labels;
  next.metadata.annotations ??= {};
  const annotations = next.metadata.annotations;
  const batch = containersOfBatch(next, spec);

  const imageChanged = new Set<string>();
  for (const c of next.spec?.containers ?? []) {
    const image = spec.containerImages?.[c.name];
    if (image === undefined) continue;
    if (batch.has(c.name)) {
      c.image = image;
      imageChanged.add(c.name);
    } else state.nextContainerImages[c.name] = image;
  }
  for (const s of next.status?.containerStatuses ?? []) {
    if (!imageChanged.has(s.name)) continue;
    state.lastContainerStatuses ??= {};
    state.lastContainerStatuses[s.name] = { imageID: s.imageID };
  }

  if (opts.verticalScaling) {
    const expected: Record<string, ResourceRequirements> = {};
    for (const [name, r] of Object.entries(spec.containerResources ?? {})) {
      if (batch.has(name)) expected[name] = r;
      else state.nextContainerResources[name] = r;
    }
    applyResources(next, expected);
  }

  for (const [name, meta] of Object.entries(spec.containerRefMetadata ?? {})) {
    if (batch.has(name)) {
      Object.assign(labels, meta.labels ?? {});
      Object.assign(annotations, meta.annotations ?? {});
    } else state.nextContainerRefMetadata[name] = meta as RefMetadata;
  }

  const containers = [...batch].sort();
  const remaining =
    Object.keys(state.nextContainerImages).length +
    Object.keys(state.nextContainerRefMetadata).length +
    Object.keys(state.nextContainerResources).length;
  state.preCheckBeforeNext = remaining > 0 ? { containersRequiredReady: containers } : undefined;
  state.containerBatchesRecord = [
    ...(state.containerBatchesRecord ?? []),
    { timestamp: kubeTime(opts.now), containers },
  ];
  annotations[INPLACE_UPDATE_STATE_KEY] = serializeState(state);
  return next;
}

/** Whether the state still has containers waiting for a later batch. */
export function hasNextBatch(state: InPlaceUpdateState): boolean {
  return (
    Object.keys(state.nextContainerImages ?? {}).length > 0 ||
    Object.keys(state.nextContainerRefMetadata ?? {}).length > 0 ||
    Object.keys(state.nextContainerResources ?? {}).length > 0
  );
}

/** Why the next batch must wait: a container of this batch that is not ready yet. */
export function preCheckBeforeNext(pod: Pod, state: InPlaceUpdateState): string | undefined {
  for (const name of state.preCheckBeforeNext?.containersRequiredReady ?? []) {
    const s = pod.status?.containerStatuses?.find((x) => x.name === name);
    if (!s) return `not found container ${name} in pod status`;
    if (!s.ready) return `waiting container ${name} to be ready`;
  }
  return undefined;
}
