import type { StatefulSet } from '@kruise/api';
import { inRange, type OrdinalRange, parentAndOrdinal } from '@kruise/kube-compat/statefulset-ordinals';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { defaultRevisionAdapter } from '../../workload/revision/pod-revision.ts';
import { isTerminating } from './pod-health.ts';

/** The set's pods sorted out for a reconcile (upstream's replicas and condemned slices). */
export interface SortedPods {
  /** One slot per ordinal of the range, from its start (reserved ordinals stay empty). */
  replicas: (Pod | undefined)[];
  /** Pods with an ordinal outside the range or reserved, highest ordinal first. */
  condemned: Pod[];
}

const ordinalOf = (pod: Pod) => parentAndOrdinal(pod.metadata?.name ?? '').ordinal;

/** Sorts pods into the range's replicas and the condemned (pods without an ordinal are ignored). */
export function sortPods(pods: Pod[], range: OrdinalRange): SortedPods {
  const replicas: (Pod | undefined)[] = new Array(range.end - range.start).fill(undefined);
  const condemned: Pod[] = [];
  for (const pod of pods) {
    const ordinal = ordinalOf(pod);
    if (inRange(ordinal, range)) replicas[ordinal - range.start] = pod;
    else if (ordinal >= 0) condemned.push(pod);
  }
  condemned.sort((a, b) => ordinalOf(b) - ordinalOf(a));
  return { replicas, condemned };
}

/**
 * Whether the pod to create at `ordinal` takes the current revision rather than the update
 * revision (upstream's isCurrentRevisionNeeded): with RollingUpdate, the pods below the partition —
 * counted in ordinal order over existing pods, or, with unorderedUpdate, as many as the partition
 * keeps not updated — stay at the current revision.
 */
export function currentRevisionNeeded(
  set: StatefulSet,
  updateRevision: string,
  ordinal: number,
  start: number,
  replicas: (Pod | undefined)[],
): boolean {
  const strategy = set.spec?.updateStrategy;
  if ((strategy?.type ?? 'RollingUpdate') !== 'RollingUpdate') return false;
  const rolling = strategy?.rollingUpdate;
  if (!rolling) return ordinal < start + (set.status?.currentReplicas ?? 0);
  const partition = rolling.partition ?? 0;
  if (!rolling.unorderedUpdate) {
    let existing = 0;
    for (let i = 0; i < ordinal - start; i++) if (replicas[i]) existing++;
    return existing + 1 <= partition;
  }
  let notUpdated = 0;
  for (const pod of replicas) {
    if (!pod || ordinalOf(pod) === ordinal) continue;
    if (!defaultRevisionAdapter.matches(pod.metadata?.labels, updateRevision)) notUpdated++;
  }
  return notUpdated < partition;
}

/** Pods sorted by update priority: `compare` ranks two pods (negative: the first goes first). */
export type PodOrder = (indexes: number[], replicas: (Pod | undefined)[]) => number[];

/**
 * The replica slots to update, in order, at most `replicas - partition` of them (upstream's
 * sortPodsToUpdate): descending ordinals down to the partition; with unorderedUpdate, pods already
 * updated or terminating first, then the others by priority.
 */
export function podsToUpdate(
  set: StatefulSet,
  updateRevision: string,
  replicas: (Pod | undefined)[],
  byPriority: PodOrder,
): number[] {
  const rolling = set.spec?.updateStrategy?.rollingUpdate;
  const partition = rolling?.partition ?? 0;
  const maxUpdate = (set.spec?.replicas ?? 1) - partition;
  if (maxUpdate <= 0) return [];
  if (!rolling?.unorderedUpdate) {
    const out: number[] = [];
    for (let i = replicas.length - 1; i >= partition && out.length < maxUpdate; i--)
      if (replicas[i]) out.push(i);
    return out;
  }
  const done: number[] = [];
  let waiting: number[] = [];
  for (let i = replicas.length - 1; i >= 0; i--) {
    const pod = replicas[i];
    if (!pod) continue;
    if (isTerminating(pod) || defaultRevisionAdapter.matches(pod.metadata?.labels, updateRevision))
      done.push(i);
    else waiting.push(i);
  }
  if (rolling.unorderedUpdate.priorityStrategy) waiting = byPriority(waiting, replicas);
  return [...done, ...waiting].slice(0, maxUpdate);
}
