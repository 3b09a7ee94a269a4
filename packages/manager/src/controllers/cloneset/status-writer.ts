import type { CloneSet, CloneSetStatus } from '@kruise/api';
import { type KubeClient, type KubeObject, Resources, retryOnConflict } from '@kruise/runtime';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { countPods, statusChanged, updateProgressing } from './status.ts';

/**
 * Completes the status of a reconcile (counts, currentRevision, expectedUpdatedReplicas, the
 * Progressing condition) and writes it through `/status` when something upstream tracks changed
 * (re-reading on conflict). Returns when to look again for the progress deadline.
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
  await retryOnConflict(async () => {
    const fresh = (await client.get(
      Resources.CloneSet,
      cs.metadata?.namespace,
      cs.metadata?.name ?? '',
    )) as CloneSet & KubeObject;
    fresh.status = status;
    await client.updateStatus(Resources.CloneSet, fresh);
  });
  return requeueMs;
}
