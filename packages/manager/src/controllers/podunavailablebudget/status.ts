import type { PodUnavailableBudget, PodUnavailableBudgetStatus } from '@kruise/api';
import { jsonDeepEqual } from '@kruise/kube-compat';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { KubeletContainerHash } from '../../workload/inplaceupdate/completion.ts';
import { isPodActive } from '../../workload/pod-state.ts';
import { isPubPodAvailable } from '../../workload/pub/pod-availability.ts';

/** A deletion or eviction the budget allowed counts against it this long if the pod survives. */
export const DELETION_TIMEOUT_MS = 20_000;
/** An in-place update the budget allowed counts against it this long; the pod's state decides after. */
export const UPDATE_RECHECK_MS = 10_000;

/** The records of disruptions still counted, and when to look again. */
export interface Records {
  disruptedPods: Record<string, string>;
  unavailablePods: Record<string, string>;
  /** The earliest time (ms) a record runs out (always after the reconcile's now); undefined when none will. */
  recheckAt?: number;
  /** Pods whose deletion ran out without them going (upstream's NotDeleted event). */
  notDeleted: Pod[];
}

/**
 * Keeps the records of the budget's active pods that have not run out (upstream's
 * buildDisruptedAndUnavailablePods): a disrupted pod 20 s after it was allowed, an updated one
 * after 10 s — or, beyond upstream, as soon as `isBack` says the updated pod went down after it
 * was recorded and is available again (its in-place update is over), so an update the budget
 * paces goes on as fast as pods come back. Records of pods gone or inactive are dropped.
 */
export function currentRecords(
  pods: Pod[],
  status: PodUnavailableBudgetStatus | undefined,
  now: number,
  isBack: (pod: Pod, recordedMs: number) => boolean = () => false,
): Records {
  const out: Records = { disruptedPods: {}, unavailablePods: {}, notDeleted: [] };
  const disrupted = status?.disruptedPods ?? {};
  const unavailable = status?.unavailablePods ?? {};
  const soonest = (t: number) => {
    if (out.recheckAt === undefined || t < out.recheckAt) out.recheckAt = t;
  };
  for (const pod of pods) {
    if (!isPodActive(pod)) continue;
    const name = pod.metadata?.name ?? '';
    if (Object.hasOwn(disrupted, name)) {
      const expires = Date.parse(disrupted[name]!) + DELETION_TIMEOUT_MS;
      if (expires <= now) out.notDeleted.push(pod);
      else {
        out.disruptedPods[name] = disrupted[name]!;
        soonest(expires);
      }
    }
    if (Object.hasOwn(unavailable, name)) {
      const recorded = Date.parse(unavailable[name]!);
      const expires = recorded + UPDATE_RECHECK_MS;
      if (expires > now && !isBack(pod, recorded)) {
        out.unavailablePods[name] = unavailable[name]!;
        soonest(expires);
      }
    }
  }
  return out;
}

/** Active, available pods the budget has no record of (upstream's countAvailablePods). */
export function countAvailable(pods: Pod[], records: Records, kubeletHash: KubeletContainerHash): number {
  let n = 0;
  for (const pod of pods) {
    const name = pod.metadata?.name ?? '';
    if (!isPodActive(pod) || name in records.disruptedPods || name in records.unavailablePods) continue;
    if (isPubPodAvailable(pod, kubeletHash)) n++;
  }
  return n;
}

/** The counts a status is computed from. */
export interface BudgetCounts {
  currentAvailable: number;
  desiredAvailable: number;
  totalReplicas: number;
}

/**
 * The status the budget should have, or undefined when it has it already (upstream's
 * updatePubStatus). unavailableAllowed is current − desired, at least 0 — and, beyond upstream
 * (#2175), available pods beyond the expected count (a surge pod beside one marked
 * specified-delete) are not counted, so the budget never allows more than its maxUnavailable.
 */
export function nextStatus(
  pub: PodUnavailableBudget,
  counts: BudgetCounts,
  records: Records,
): PodUnavailableBudgetStatus | undefined {
  const current =
    counts.totalReplicas > 0
      ? Math.min(counts.currentAvailable, counts.totalReplicas)
      : counts.currentAvailable;
  const status: PodUnavailableBudgetStatus = {
    observedGeneration: pub.metadata?.generation ?? 0,
    ...(Object.keys(records.disruptedPods).length ? { disruptedPods: records.disruptedPods } : {}),
    ...(Object.keys(records.unavailablePods).length ? { unavailablePods: records.unavailablePods } : {}),
    unavailableAllowed: Math.max(0, current - counts.desiredAvailable),
    currentAvailable: counts.currentAvailable,
    desiredAvailable: counts.desiredAvailable,
    totalReplicas: counts.totalReplicas,
  };
  const old = pub.status;
  const same =
    old !== undefined &&
    old.currentAvailable === status.currentAvailable &&
    old.desiredAvailable === status.desiredAvailable &&
    old.totalReplicas === status.totalReplicas &&
    old.unavailableAllowed === status.unavailableAllowed &&
    (old.observedGeneration ?? 0) === status.observedGeneration &&
    jsonDeepEqual(old.disruptedPods ?? {}, records.disruptedPods) &&
    jsonDeepEqual(old.unavailablePods ?? {}, records.unavailablePods);
  return same ? undefined : status;
}
