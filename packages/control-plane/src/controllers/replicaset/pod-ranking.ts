import type { KubeObject } from '../../registry/types.ts';
import { isPodReady, maxContainerRestarts, podReadyTime } from './pod-state.ts';

/** The annotation whose lower value makes a pod go first on scale-down. */
export const POD_DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';

const PHASE_ORDER: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

/** A pod's deletion cost (0 when absent or not an int32). */
export function deletionCost(pod: KubeObject): number {
  const text = pod.metadata?.annotations?.[POD_DELETION_COST];
  if (text === undefined || !/^[+-]?\d+$/.test(String(text))) return 0;
  const v = Number(text);
  return v >= -(2 ** 31) && v < 2 ** 31 ? v : 0;
}

const created = (pod: KubeObject) => {
  const t = Date.parse(pod.metadata?.creationTimestamp ?? '');
  return Number.isNaN(t) ? undefined : t;
};

/** log2 of how long ago `t` was (ns), -1 when not in the past: the LogarithmicScaleDown buckets. */
function logRank(t: number, now: number): number {
  const d = (now - t) * 1e6;
  return d > 0 ? Math.floor(Math.log2(d)) : -1;
}

/** Whether `a` goes before `b` by time: a missing time first, then the more recent, compared in log2 buckets. */
function newerFirst(
  a: KubeObject,
  b: KubeObject,
  ta: number | undefined,
  tb: number | undefined,
  now: number,
) {
  if (ta === tb) return undefined;
  if (ta === undefined) return true;
  if (tb === undefined) return false;
  const diff = logRank(ta, now) - logRank(tb, now);
  if (diff === 0) return String(a.metadata?.uid) < String(b.metadata?.uid);
  return diff < 0;
}

/** A pod with its rank: how many of its controller's related active pods share its node. */
export interface RankedPod {
  pod: KubeObject;
  rank: number;
}

/**
 * kube-controller-manager's ActivePodsWithRanks order: the pods that go first on scale-down.
 * Unassigned before assigned; Pending, Unknown, Running; not ready before ready; lower
 * pod-deletion-cost; more pods on the same node; more recently ready; more restarts; newer.
 */
export function deletionOrder(now: number): (a: RankedPod, b: RankedPod) => number {
  const before = (a: RankedPod, b: RankedPod): boolean | undefined => {
    const pa = a.pod;
    const pb = b.pod;
    const na = Boolean(pa.spec?.nodeName);
    const nb = Boolean(pb.spec?.nodeName);
    if (na !== nb) return !na;
    const phaseA = PHASE_ORDER[pa.status?.phase ?? ''] ?? 0;
    const phaseB = PHASE_ORDER[pb.status?.phase ?? ''] ?? 0;
    if (phaseA !== phaseB) return phaseA < phaseB;
    const ra = isPodReady(pa);
    const rb = isPodReady(pb);
    if (ra !== rb) return !ra;
    const ca = deletionCost(pa);
    const cb = deletionCost(pb);
    if (ca !== cb) return ca < cb;
    if (a.rank !== b.rank) return a.rank > b.rank;
    if (ra && rb) {
      const byReady = newerFirst(pa, pb, podReadyTime(pa), podReadyTime(pb), now);
      if (byReady !== undefined) return byReady;
    }
    const restartsA = maxContainerRestarts(pa);
    const restartsB = maxContainerRestarts(pb);
    if (restartsA !== restartsB) return restartsA > restartsB;
    return newerFirst(pa, pb, created(pa), created(pb), now);
  };
  return (a, b) => {
    const ab = before(a, b);
    if (ab === undefined) return 0;
    return ab ? -1 : 1;
  };
}

/**
 * The `count` pods to delete of `pods`, ranked by how many `related` active pods (of every
 * ReplicaSet of the same owner) share their node.
 */
export function podsToDelete(pods: KubeObject[], related: KubeObject[], count: number, now = Date.now()) {
  if (count >= pods.length) return pods;
  const perNode = new Map<string, number>();
  for (const p of related) {
    const node = p.spec?.nodeName;
    if (node) perNode.set(node, (perNode.get(node) ?? 0) + 1);
  }
  const ranked = pods.map((pod) => ({ pod, rank: perNode.get(pod.spec?.nodeName ?? '') ?? 0 }));
  ranked.sort(deletionOrder(now));
  return ranked.slice(0, count).map((r) => r.pod);
}
