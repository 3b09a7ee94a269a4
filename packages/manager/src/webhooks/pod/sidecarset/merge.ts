import type { SidecarContainer } from '@kruise/api';
import type { Container, LocalObjectReference } from 'kubernetes-types/core/v1.js';
import { coreContainer } from '../../../workload/sidecarset/core-container.ts';
import { appendNew } from './append-new.ts';

/**
 * Upstream's mergeSidecarContainers: a sidecar named like a pod container replaces it in place; the
 * others go before the app containers (BeforeAppContainer) or after them (anything else), in order.
 */
export function mergeSidecarContainers(
  origins: Container[] | undefined,
  injected: SidecarContainer[],
): Container[] {
  const out = [...(origins ?? [])];
  const index = new Map(out.map((c, i) => [c.name, i]));
  const before: Container[] = [];
  const after: Container[] = [];
  for (const sidecar of injected) {
    const at = index.get(sidecar.name);
    if (at !== undefined) out[at] = coreContainer(sidecar);
    else (sidecar.podInjectPolicy === 'BeforeAppContainer' ? before : after).push(coreContainer(sidecar));
  }
  return [...before, ...out, ...after];
}

/** Upstream's mergeSidecarSecrets: the pod's secrets then the sidecars', each name once. */
export function mergeImagePullSecrets(
  inPod: LocalObjectReference[] | undefined,
  inSidecars: LocalObjectReference[],
): LocalObjectReference[] {
  return appendNew([], [...(inPod ?? []), ...inSidecars], (s) => s.name ?? '');
}
