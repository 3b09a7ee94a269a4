import type { SidecarSet } from '@kruise/api';
import { goMarshal, kubeTime } from '@kruise/kube-compat';
import { type KubeClient, type KubeObject, Resources, retryOnConflict } from '@kruise/runtime';
import type { Pod, PodCondition } from 'kubernetes-types/core/v1.js';
import { SIDECARSET_UPGRADABLE_CONDITION } from '../../workload/sidecarset/index.ts';

/** The pod as stored now (the cache keeps only part of each pod). */
const fresh = async (client: KubeClient, pod: Pod) =>
  (await client.get(Resources.Pod, pod.metadata?.namespace ?? '', pod.metadata?.name ?? '')) as Pod;

/**
 * Reads the pod, lets `edit` change it and writes it back, again on a conflict (upstream's
 * RetryOnConflict around Get and Update). Returns the pod written.
 */
export function editPod(client: KubeClient, pod: Pod, edit: (pod: Pod) => void): Promise<Pod> {
  return retryOnConflict(async () => {
    const current = await fresh(client, pod);
    edit(current);
    return (await client.update(Resources.Pod, current as KubeObject)) as Pod;
  });
}

/** The key/value pairs a condition keeps in its message (JSON); unreadable → none. */
function messageKv(condition: PodCondition | undefined): Record<string, unknown> {
  if (!condition?.message) return {};
  try {
    const v = JSON.parse(condition.message) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * Records in the pod's `SidecarSetUpgradable` condition whether this SidecarSet can upgrade it in
 * place (upstream's updatePodSidecarSetUpgradableCondition): the message keeps each SidecarSet's
 * answer as JSON; the condition is True (AllSidecarsetUpgradable) when all can, else False
 * (UpdateImmutableField). Written only when it changes.
 */
export async function setUpgradableCondition(
  client: KubeClient,
  sidecarSet: SidecarSet,
  pod: Pod,
  upgradable: boolean,
  now = Date.now(),
): Promise<void> {
  // the cached pod already says so: no read, no write
  if (nextCondition(pod, sidecarSet, upgradable, now) === undefined) return;
  await retryOnConflict(async () => {
    const current = await fresh(client, pod);
    const next = nextCondition(current, sidecarSet, upgradable, now);
    if (!next) return;
    const conditions = [...(current.status?.conditions ?? [])];
    const i = conditions.findIndex((c) => c.type === SIDECARSET_UPGRADABLE_CONDITION);
    if (i === -1) conditions.push(next);
    else conditions[i] = next;
    await client.updateStatus(Resources.Pod, {
      ...current,
      status: { ...current.status, conditions },
    } as KubeObject);
  });
}

/** The pod's SidecarSetUpgradable condition with this SidecarSet's answer, or undefined when it has it already. */
function nextCondition(
  pod: Pod,
  sidecarSet: SidecarSet,
  upgradable: boolean,
  now: number,
): PodCondition | undefined {
  const old = pod.status?.conditions?.find((c) => c.type === SIDECARSET_UPGRADABLE_CONDITION);
  const kv = { ...messageKv(old), [sidecarSet.metadata?.name ?? '']: upgradable };
  const all = Object.values(kv).every((v) => v !== false);
  const status = all ? 'True' : 'False';
  const next: PodCondition = {
    ...(old ?? {}),
    type: SIDECARSET_UPGRADABLE_CONDITION,
    status,
    reason: all ? 'AllSidecarsetUpgradable' : 'UpdateImmutableField',
    message: goMarshal(kv, true),
    lastTransitionTime: old?.status === status ? old.lastTransitionTime : kubeTime(now),
  };
  return old && JSON.stringify(old) === JSON.stringify(next) ? undefined : next;
}
