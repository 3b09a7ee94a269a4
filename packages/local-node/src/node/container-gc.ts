import type { Container__Output as CriContainer } from '@kruise/cri/generated/runtime/v1/Container';
import { KubeletKeys } from './kubelet-metadata.ts';

/** kubelet's ContainerGCPeriod: dead containers are collected once a minute. */
export const CONTAINER_GC_PERIOD_MS = 60_000;

/**
 * kubelet's container garbage collection (`MaxPerPodContainer`, default 1): of the containers that
 * are not running, grouped by pod UID and container name, the newest `keep` stay (the previous
 * instance a restart replaced, for `crictl ps -a` and the restart decisions) and the older ones are
 * returned to be removed; the newest of a group, if only created, is left out of it. Only pods `owns` says are this node's are looked at; a removed pod's
 * containers go with its sandbox.
 */
export function deadContainersToRemove(
  containers: CriContainer[],
  owns: (podUid: string) => boolean,
  keep = 1,
): string[] {
  const groups = new Map<string, CriContainer[]>();
  for (const c of containers) {
    const uid = c.labels?.[KubeletKeys.podUid];
    const name = c.labels?.[KubeletKeys.containerName];
    if (!uid || !name || !c.id || !owns(uid) || String(c.state) === 'CONTAINER_RUNNING') continue;
    const key = `${uid}/${name}`;
    const group = groups.get(key) ?? [];
    group.push(c);
    groups.set(key, group);
  }
  const created = (c: CriContainer) => BigInt(c.createdAt || 0);
  const evict: string[] = [];
  for (const dead of groups.values()) {
    dead.sort((a, b) => (created(b) > created(a) ? 1 : created(b) < created(a) ? -1 : 0));
    // The newest one only created may be a restart a pod sync is about to start: not dead yet, and
    // not a reason to remove the instance it replaces (kubelet's GC has that race once a minute).
    if (String(dead[0]!.state) === 'CONTAINER_CREATED') dead.shift();
    evict.push(...dead.slice(keep).map((c) => c.id!));
  }
  return evict;
}
