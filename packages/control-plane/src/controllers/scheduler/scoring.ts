import { preferredNodeAffinityScore } from '@kruise/kube-compat/node-affinity';
import { taintToleratedBy } from '@kruise/kube-compat/taints';
import type { PodFacts } from './filters.ts';
import { controllerUid, type NodeInfo, type Resources } from './node-info.ts';

/** NodeResourcesFit's LeastAllocated score (0–100) over CPU and memory, with non-zero requests. */
function leastAllocated(info: NodeInfo, nonZero: Resources): number {
  const part = (alloc: number, used: number) =>
    alloc <= 0 || used > alloc ? 0 : ((alloc - used) * 100) / alloc;
  return (
    (part(info.allocatable.milliCpu, info.nonZeroRequested.milliCpu + nonZero.milliCpu) +
      part(info.allocatable.memory, info.nonZeroRequested.memory + nonZero.memory)) /
    2
  );
}

/** Scales raw values to 0–100, the highest raw value scoring 100 (or the lowest, when `reverse`). */
function normalize(raw: number[], reverse: boolean): number[] {
  const max = Math.max(0, ...raw);
  if (max === 0) return raw.map(() => (reverse ? 100 : 0));
  return raw.map((v) => (reverse ? ((max - v) * 100) / max : (v * 100) / max));
}

/**
 * Scores the feasible nodes as the default profile weighs its score plugins (simplified):
 * LeastAllocated ×1, NodeAffinity preferred terms ×2, spreading of the pod's controller over
 * hostnames ×2 (the default topology spread), PreferNoSchedule taints ×3. Returns the index of
 * the best node; ties are broken at random as kube-scheduler does.
 */
export function pickNode(facts: PodFacts, nonZero: Resources, feasible: NodeInfo[]): NodeInfo {
  if (feasible.length === 1) return feasible[0]!;
  const owner = controllerUid(facts.pod);
  const affinity = normalize(
    feasible.map((n) => preferredNodeAffinityScore(facts.pod.spec, n.node)),
    false,
  );
  const spread = normalize(
    feasible.map((n) => (owner ? (n.owners.get(owner) ?? 0) : 0)),
    true,
  );
  const taints = normalize(
    feasible.map(
      (n) =>
        (n.node.spec?.taints ?? []).filter(
          (t: any) => t?.effect === 'PreferNoSchedule' && !taintToleratedBy(facts.tolerations, t),
        ).length,
    ),
    true,
  );
  let best: NodeInfo[] = [];
  let bestScore = -1;
  feasible.forEach((n, i) => {
    const score = leastAllocated(n, nonZero) + 2 * affinity[i]! + 2 * spread[i]! + 3 * taints[i]!;
    if (score > bestScore + 1e-9) {
      best = [n];
      bestScore = score;
    } else if (Math.abs(score - bestScore) <= 1e-9) best.push(n);
  });
  return best[Math.floor(Math.random() * best.length)]!;
}
