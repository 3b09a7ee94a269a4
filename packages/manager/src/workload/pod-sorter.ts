import type { Pod } from 'kubernetes-types/core/v1.js';
import { isPodReady, podCondition } from './pod-state.ts';

/** Annotation lowering (or raising) a pod's chance to be deleted first. */
export const POD_DELETION_COST_ANNOTATION = 'controller.kubernetes.io/pod-deletion-cost';

const PHASE_ORDER: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

/** The pod's deletion cost (0 when absent or invalid, as Kubernetes reads it). */
export function deletionCost(pod: Pod): number {
  const v = pod.metadata?.annotations?.[POD_DELETION_COST_ANNOTATION];
  if (v === undefined || !/^(-?[1-9]\d*|0|-0)$/.test(v)) return 0;
  const n = Number(v);
  return n >= -(2 ** 31) && n < 2 ** 31 ? n : 0;
}

const readyTime = (p: Pod) => (isPodReady(p) ? (podCondition(p, 'Ready')?.lastTransitionTime ?? '') : '');
const restarts = (p: Pod) =>
  Math.max(0, ...(p.status?.containerStatuses ?? []).map((s) => s.restartCount ?? 0));
const time = (t: string | undefined) => (t ? Date.parse(t) : 0);

/** Kubernetes' afterOrZero: a zero time first, then the later one. */
function afterOrZero(a: number, b: number): boolean {
  if (a === 0 || b === 0) return a === 0;
  return a > b;
}

/** Options of {@link activePodsLess}: an availability test and a rank (higher goes first). */
export interface SortOptions {
  available?: (pod: Pod) => boolean;
  rank?: (pod: Pod) => number;
  /** Compare deletion costs (the scale-in order does; the update order does not). */
  deletionCost?: boolean;
}

/**
 * Kubernetes' ActivePods order, with Kruise's additions for scale-in (the pods to act on first come
 * first): unscheduled; Pending < Unknown < Running; unavailable; not ready; lower deletion cost;
 * higher rank; ready for less time; more restarts; newer.
 */
export function activePodsLess(a: Pod, b: Pod, opts: SortOptions = {}): boolean {
  const na = a.spec?.nodeName ?? '';
  const nb = b.spec?.nodeName ?? '';
  if (na !== nb && (!na || !nb)) return !na;
  const pa = PHASE_ORDER[a.status?.phase ?? ''] ?? 0;
  const pb = PHASE_ORDER[b.status?.phase ?? ''] ?? 0;
  if (pa !== pb) return pa < pb;
  if (opts.available) {
    const aa = opts.available(a);
    if (aa !== opts.available(b)) return !aa;
  }
  const ra = isPodReady(a);
  if (ra !== isPodReady(b)) return !ra;
  if (opts.deletionCost) {
    const ca = deletionCost(a);
    const cb = deletionCost(b);
    if (ca !== cb) return ca < cb;
  }
  if (opts.rank) {
    const ka = opts.rank(a);
    const kb = opts.rank(b);
    if (ka !== kb) return ka > kb;
  }
  if (ra && isPodReady(b)) {
    const ta = time(readyTime(a));
    const tb = time(readyTime(b));
    if (ta !== tb) return afterOrZero(ta, tb);
  }
  const sa = restarts(a);
  const sb = restarts(b);
  if (sa !== sb) return sa > sb;
  const ca = time(a.metadata?.creationTimestamp);
  const cb = time(b.metadata?.creationTimestamp);
  if (ca !== cb) return afterOrZero(ca, cb);
  return false;
}

/** Sorts pods by {@link activePodsLess} (stable). */
export function sortActivePods(pods: Pod[], opts: SortOptions = {}): Pod[] {
  return [...pods].sort((a, b) => (activePodsLess(a, b, opts) ? -1 : activePodsLess(b, a, opts) ? 1 : 0));
}

const podId = (p: Pod) => p.metadata?.uid ?? p.metadata?.name ?? '';

/**
 * Kruise's same-node ranker: on each node with several pods, all but the last in active order get
 * a rank, higher for earlier, so scale-in spreads deletions across crowded nodes.
 */
export function sameNodeRanks(pods: Pod[]): Map<string, number> {
  const ranks = new Map<string, number>();
  const byNode = new Map<string, Pod[]>();
  for (const p of pods) {
    const node = p.spec?.nodeName;
    if (node) byNode.set(node, [...(byNode.get(node) ?? []), p]);
  }
  for (const onNode of byNode.values()) {
    if (onNode.length <= 1) continue;
    const sorted = sortActivePods(onNode).slice(0, -1);
    for (const [i, p] of sorted.entries()) ranks.set(podId(p), sorted.length - i);
  }
  return ranks;
}

/**
 * Kruise's spread-constraints ranker: per topology key of the template's topologySpreadConstraints,
 * pods in each topology domain ranked by active order (ties broken by the same-node rank unless the
 * key is the hostname), weighted ln(domains + 2). `nodeLabels(name)` gives a node's labels.
 */
export function spreadConstraintRanks(
  pods: Pod[],
  topologyKeys: string[],
  nodeLabels: (node: string) => Record<string, string> | undefined,
): Map<string, number> {
  const ranks = new Map<string, number>();
  const sameNode = sameNodeRanks(pods);
  const onNode = new Map<string, Pod[]>();
  for (const p of pods) {
    const node = p.spec?.nodeName;
    if (node && nodeLabels(node)) onNode.set(node, [...(onNode.get(node) ?? []), p]);
  }
  for (const key of topologyKeys) {
    const domains = new Map<string, Pod[]>();
    for (const [node, list] of onNode) {
      const value = nodeLabels(node)?.[key];
      if (value === undefined) continue;
      domains.set(value, [...(domains.get(value) ?? []), ...list]);
    }
    const weight = Math.log(domains.size + 2);
    const rank = key === 'kubernetes.io/hostname' ? undefined : (p: Pod) => sameNode.get(podId(p)) ?? 0;
    for (const list of domains.values()) {
      const sorted = sortActivePods(list, rank ? { rank } : {});
      for (const [i, p] of sorted.entries())
        ranks.set(podId(p), (ranks.get(podId(p)) ?? 0) + (sorted.length - i) * weight);
    }
  }
  return ranks;
}

/** A rank function over a rank map (pods not in it rank 0). */
export const rankOf = (ranks: Map<string, number>) => (p: Pod) => ranks.get(podId(p)) ?? 0;
