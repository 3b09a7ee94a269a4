import type { CriClient } from '@kruise/cri/client';
import {
  CRI_CONTAINER_HASH_ANNOTATION,
  CRI_POD_UID_LABEL,
  kubeletContainerIdentity,
  parseKubeletContainerHash,
} from '@kruise/kube-compat';
import type { RuntimeContainer } from './meta.ts';

/**
 * A pod's containers as the runtime has them (kubelet's GetPodStatus, trimmed): one ListContainers
 * by the pod UID label, the newest attempt of each container name, with kubelet's hash and restart
 * count read back from the container's annotations.
 */
export async function podRuntimeContainers(
  cri: Pick<CriClient, 'listContainers'>,
  runtimeName: string,
  podUid: string,
): Promise<RuntimeContainer[]> {
  const { containers } = await cri.listContainers({ labelSelector: { [CRI_POD_UID_LABEL]: podUid } });
  const newest = new Map<string, { attempt: number; createdAt: bigint; c: (typeof containers)[number] }>();
  for (const c of containers) {
    const { name, attempt } = kubeletContainerIdentity(c);
    const createdAt = BigInt(c.createdAt || 0);
    const prev = newest.get(name);
    if (!prev || attempt > prev.attempt || (attempt === prev.attempt && createdAt > prev.createdAt))
      newest.set(name, { attempt, createdAt, c });
  }
  return [...newest].map(([name, { attempt, c }]) => ({
    name,
    id: `${runtimeName}://${c.id}`,
    restartCount: attempt,
    hash: parseKubeletContainerHash(c.annotations?.[CRI_CONTAINER_HASH_ANNOTATION]),
    running: String(c.state) === 'CONTAINER_RUNNING',
  }));
}
