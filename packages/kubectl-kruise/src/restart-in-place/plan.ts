import type { AvailabilityLimit, PodState } from './budget.ts';

/** What the planner knows at one moment of a restart. */
export interface RestartSnapshot {
  /** Every pod the limits count, by name (the workload's and any other pod a budget selects). */
  pods: Map<string, PodState>;
  /** The workload's pods still to restart, in the order to restart them. */
  pending: string[];
  /** Pods whose restart has been started and is not yet done. */
  inFlight: Set<string>;
  /** The workload's maxUnavailable: at most this many restarts run at once. */
  maxUnavailable: number;
  limits: AvailabilityLimit[];
}

/** The pods to start now, or why none can start. */
export interface BatchPlan {
  start: string[];
  /** When nothing starts though pods are pending: the first limit that holds them back. */
  blockedBy?: string;
}

/**
 * The next batch: pending pods, in order, whose restart keeps every limit — at most
 * `maxUnavailable` restarts at once, and for each limit that covers the pod, at least
 * `minAvailable` of its pods healthy once the pod goes down (a pod that is not available, or that
 * the limit counts as unavailable, does not lower the count; a restart under way counts as down
 * until the pod is Ready again).
 * Pure: the caller passes in what it observed.
 */
export function nextBatch(s: RestartSnapshot): BatchPlan {
  const inFlight = new Set(s.inFlight);
  const healthy = (l: AvailabilityLimit, name: string) =>
    !inFlight.has(name) && s.pods.get(name)?.available === true && !l.unavailable?.has(name);
  const healthyCount = new Map(s.limits.map((l) => [l, [...l.covers].filter((n) => healthy(l, n)).length]));
  const start: string[] = [];
  let blockedBy: string | undefined;
  for (const name of s.pending) {
    if (inFlight.has(name)) continue;
    if (inFlight.size >= s.maxUnavailable) {
      blockedBy ??= `maxUnavailable ${s.maxUnavailable}`;
      break;
    }
    // the limits this pod's restart costs: those that count it healthy now
    const costs = s.limits.filter((l) => l.covers.has(name) && healthy(l, name));
    const limit = costs.find((l) => healthyCount.get(l)! - 1 < l.minAvailable);
    if (limit) {
      blockedBy ??= limit.source;
      continue;
    }
    for (const l of costs) healthyCount.set(l, healthyCount.get(l)! - 1);
    inFlight.add(name);
    start.push(name);
  }
  return start.length || !blockedBy ? { start } : { start, blockedBy };
}

/**
 * The order to restart pods in: pods that are not available first (their restart costs no
 * availability, and it is often why a restart is asked for), then by name.
 */
export function restartOrder(pods: PodState[]): string[] {
  return [...pods]
    .sort((a, b) => Number(a.available) - Number(b.available) || a.name.localeCompare(b.name))
    .map((p) => p.name);
}
