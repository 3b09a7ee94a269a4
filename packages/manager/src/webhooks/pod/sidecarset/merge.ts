import type { SidecarContainer } from '@kruise/api';
import type { Container, LocalObjectReference } from 'kubernetes-types/core/v1.js';
import { appendNew } from './append-new.ts';

/** A SidecarContainer as a core container (the SidecarSet's own fields left out). */
export function asContainer(sidecar: SidecarContainer): Container {
  const {
    podInjectPolicy: _p,
    upgradeStrategy: _u,
    shareVolumePolicy: _s,
    shareVolumeDevicePolicy: _d,
    transferEnv: _t,
    resourcesPolicy: _r,
    ...container
  } = sidecar;
  return container;
}

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
    if (at !== undefined) out[at] = asContainer(sidecar);
    else (sidecar.podInjectPolicy === 'BeforeAppContainer' ? before : after).push(asContainer(sidecar));
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
