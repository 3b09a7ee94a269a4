import type { SidecarContainer, SidecarSet } from '@kruise/api';
import type { Container } from 'kubernetes-types/core/v1.js';

/** Whether an init container is a native sidecar (`restartPolicy: Always`, Kubernetes ≥ 1.28). */
export function isNativeSidecar(container: Pick<Container, 'restartPolicy'>): boolean {
  return container.restartPolicy === 'Always';
}

/** Whether a sidecar container upgrades hot (a working and an empty copy). */
export function isHotUpgrade(container: SidecarContainer): boolean {
  return container.upgradeStrategy?.upgradeType === 'HotUpgrade';
}

/**
 * The sidecars a SidecarSet keeps up to date in its pods (upstream's listSidecarNameInSidecarSet):
 * its native-sidecar init containers and its containers, by name, sorted.
 */
export function sidecarNames(sidecarSet: SidecarSet): string[] {
  const names = new Set<string>();
  for (const c of sidecarSet.spec?.initContainers ?? []) if (isNativeSidecar(c)) names.add(c.name);
  for (const c of sidecarSet.spec?.containers ?? []) names.add(c.name);
  return [...names].sort();
}
