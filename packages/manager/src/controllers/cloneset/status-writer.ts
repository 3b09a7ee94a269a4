import { type CloneSet, type CloneSetStatus, KruiseResources } from '@kruise/api';
import { type KubeClient, type KubeObject, retryOnConflict } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { countPods, statusChanged, updateProgressing } from './status.ts';

/**
 * Completes the status of a reconcile (counts, currentRevision, expectedUpdatedReplicas, the
 * Progressing condition) and writes it through `/status` when something upstream tracks changed
 * (over the cached object; re-read after a conflict). Returns when to look again for the progress deadline.
 */
export async function updateCloneSetStatus(
  client: KubeClient,
  cs: CloneSet,
  status: CloneSetStatus,
  pods: Pod[],
  now: number,
): Promise<number | undefined> {
  countPods(cs, status, pods, now);
  const requeueMs = updateProgressing(cs, status, now);
  if (!statusChanged(cs.status, status)) return requeueMs;
  // written over the cached CloneSet, as upstream reads its cache; read again only after a conflict
  let latest = cs as CloneSet & KubeObject;
  let retry = false;
  await retryOnConflict(async () => {
    if (retry)
      latest = (await client.get(
        KruiseResources.CloneSet,
        cs.metadata?.namespace,
        cs.metadata?.name ?? '',
      )) as CloneSet & KubeObject;
    retry = true;
    await client.updateStatus(KruiseResources.CloneSet, { ...latest, status });
  });
  return requeueMs;
}
