import { isNotFound, type KubeClient, Resources } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import { controllerOf } from './owner-events.ts';

/** The workload that claims pods. */
export interface PodOwner {
  ref: OwnerReference;
  /** Whether the owner is being deleted (it then adopts nothing). */
  deleting: boolean;
}

/**
 * The pods a workload controls after claiming (Kubernetes' PodControllerRefManager.ClaimPods): its
 * own pods that still `match` stay; its own that no longer match are released (their controller
 * reference removed); orphans that match are adopted — after `recheck` confirmed, from the API, that
 * the owner is the same object and not being deleted. Pods of other controllers are left alone.
 */
export async function claimPods(
  client: KubeClient,
  owner: PodOwner,
  candidates: Pod[],
  matches: (pod: Pod) => boolean,
  recheck: () => Promise<boolean>,
): Promise<Pod[]> {
  const claimed: Pod[] = [];
  let canAdopt: boolean | undefined;
  for (const pod of candidates) {
    const controller = controllerOf(pod);
    if (controller?.uid === owner.ref.uid) {
      if (matches(pod)) claimed.push(pod);
      else if (!pod.metadata?.deletionTimestamp) await release(client, pod, owner.ref.uid);
      continue;
    }
    if (controller || pod.metadata?.deletionTimestamp || owner.deleting || !matches(pod)) continue;
    canAdopt ??= await recheck();
    if (!canAdopt) continue;
    const adopted = await adopt(client, pod, owner.ref);
    if (adopted) claimed.push(adopted);
  }
  return claimed;
}

async function release(client: KubeClient, pod: Pod, uid: string | undefined): Promise<void> {
  const refs = (pod.metadata?.ownerReferences ?? []).filter((r) => r.uid !== uid);
  try {
    await client.mergePatch(Resources.Pod, pod.metadata?.namespace, pod.metadata?.name ?? '', {
      metadata: { ownerReferences: refs, uid: pod.metadata?.uid },
    });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

async function adopt(client: KubeClient, pod: Pod, ref: OwnerReference): Promise<Pod | undefined> {
  try {
    return (await client.mergePatch(Resources.Pod, pod.metadata?.namespace, pod.metadata?.name ?? '', {
      metadata: {
        ownerReferences: [...(pod.metadata?.ownerReferences ?? []), ref],
        uid: pod.metadata?.uid,
      },
    })) as unknown as Pod;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
