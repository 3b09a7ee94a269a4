import type { CloneSet } from '@kruise/api';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import { lifecycleState } from '../../workload/lifecycle/state.ts';
import { rankOf, sameNodeRanks, sortActivePods, spreadConstraintRanks } from '../../workload/pod-sorter.ts';
import { isCloneSetSpecifiedDelete } from './diffs.ts';

/** Label carrying a CloneSet pod's (and its PVCs') instance id. */
export const INSTANCE_ID_LABEL = 'apps.kruise.io/cloneset-instance-id';
/** Characters of generated instance ids (apimachinery's rand.String alphabet). */
export const INSTANCE_ID_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
/** Length of generated instance ids. */
export const INSTANCE_ID_LENGTH = 5;

/** Pods marked for deletion (specified-delete) and pods already PreparingDelete; `count` without duplicates. */
export function plannedDeletions(
  cs: CloneSet,
  pods: Pod[],
): { specified: Pod[]; preparingDelete: Pod[]; count: number } {
  const specified = pods.filter((p) => isCloneSetSpecifiedDelete(cs, p));
  const preparingDelete = pods.filter((p) => lifecycleState(p) === 'PreparingDelete');
  const names = new Set([...specified, ...preparingDelete].map((p) => p.metadata?.name));
  return { specified, preparingDelete, count: names.size };
}

/**
 * PreparingDelete pods whose deletion is cancelled (back to PreparingNormal) because replicas went
 * up again: while `replicas − pods + planned > 0`, each non-specified one. None when the preDelete
 * or inPlaceUpdate hook marks pods not-ready.
 */
export function deletionsToCancel(cs: CloneSet, pods: Pod[], preparingDelete: Pod[], planned: number): Pod[] {
  const l = cs.spec?.lifecycle;
  if (l?.preDelete?.markPodNotReady || l?.inPlaceUpdate?.markPodNotReady) return [];
  let diff = (cs.spec?.replicas ?? 1) - pods.length + planned;
  const out: Pod[] = [];
  for (const p of preparingDelete) {
    if (diff <= 0) break;
    if (isCloneSetSpecifiedDelete(cs, p)) continue;
    out.push(p);
    diff--;
  }
  return out;
}

/** A random instance id. */
export function randomInstanceId(random: () => number = Math.random): string {
  let id = '';
  for (let i = 0; i < INSTANCE_ID_LENGTH; i++)
    id += INSTANCE_ID_ALPHABET[Math.floor(random() * INSTANCE_ID_ALPHABET.length)];
  return id;
}

/**
 * Instance ids for `num` new pods: first those of PVCs no active pod uses (so the pod gets its
 * volumes back), then random ids no pod or PVC has.
 */
export function availableInstanceIds(
  num: number,
  pods: Pod[],
  pvcs: PersistentVolumeClaim[],
  random: () => number = Math.random,
): string[] {
  const existing = new Set<string>();
  const free = new Set<string>();
  for (const pvc of pvcs) {
    const id = pvc.metadata?.labels?.[INSTANCE_ID_LABEL];
    if (id) {
      existing.add(id);
      free.add(id);
    }
  }
  for (const p of pods) {
    const id = p.metadata?.labels?.[INSTANCE_ID_LABEL];
    if (id) {
      existing.add(id);
      free.delete(id);
    }
  }
  const reuse = [...free].sort();
  const out: string[] = [];
  while (out.length < num) {
    let id = reuse.shift();
    if (!id) {
      do id = randomInstanceId(random);
      while (existing.has(id) || out.includes(id));
    }
    out.push(id);
  }
  return out;
}

/** How to order pods for scale-in. */
export interface ScaleInOrder {
  available: (pod: Pod) => boolean;
  /** Labels of a node (for topologySpreadConstraints ranks). */
  nodeLabels: (node: string) => Record<string, string> | undefined;
}

/**
 * The pods scale-in deletes (upstream's choosePodsToDelete): `oldCount` of the not-updated pods,
 * the rest of the updated ones, each group in scale-in order (ranked by the template's topology
 * spread keys, or by crowding on a node).
 */
export function choosePodsToDelete(
  cs: CloneSet,
  total: number,
  oldCount: number,
  notUpdated: Pod[],
  updated: Pod[],
  order: ScaleInOrder,
): Pod[] {
  const keys = (cs.spec?.template?.spec?.topologySpreadConstraints ?? []).map((c) => c.topologyKey);
  const choose = (pods: Pod[], n: number) => {
    if (n >= pods.length) return pods;
    const ranks = keys.length ? spreadConstraintRanks(pods, keys, order.nodeLabels) : sameNodeRanks(pods);
    return sortActivePods(pods, {
      available: order.available,
      rank: rankOf(ranks),
      deletionCost: true,
    }).slice(0, n);
  };
  if (oldCount >= total) return choose(notUpdated, total);
  if (oldCount > 0) return [...choose(notUpdated, oldCount), ...choose(updated, total - oldCount)];
  return choose(updated, total);
}

/** The pods that may be deleted now: every not-ready one, ready ones while `readyLimit` lasts. */
export function limitByReadiness(
  pods: Pod[],
  readyLimit: number,
  isReady: (p: Pod) => boolean,
): { pods: Pod[]; readyLimit: number } {
  const out: Pod[] = [];
  let left = readyLimit;
  for (const p of pods) {
    if (!isReady(p)) out.push(p);
    else if (left > 0) {
      out.push(p);
      left--;
    }
  }
  return { pods: out, readyLimit: left };
}
