import { TAINT_NOT_READY, TAINT_UNREACHABLE } from '@kruise/kube-compat/taints';
import type { KubeObject } from '../../registry/types.ts';

/** The Ready condition's status: True, False or Unknown (absent counts as False: not yet reported). */
export function readyStatus(node: KubeObject): string {
  const ready = (node.status?.conditions ?? []).find((c: any) => c?.type === 'Ready');
  return ready?.status ?? 'False';
}

/**
 * The node's taints, plus the not-ready/unreachable NoSchedule taint its Ready condition implies
 * while the lifecycle controller has not written it yet (kube-scheduler never places pods on a
 * node that is not Ready unless they tolerate that taint).
 */
export function effectiveTaints(node: KubeObject): any[] {
  const taints: any[] = Array.isArray(node.spec?.taints) ? node.spec.taints : [];
  const ready = readyStatus(node);
  if (ready === 'True') return taints;
  const key = ready === 'Unknown' ? TAINT_UNREACHABLE : TAINT_NOT_READY;
  if (taints.some((t) => t?.key === key && t?.effect === 'NoSchedule')) return taints;
  return [...taints, { key, effect: 'NoSchedule' }];
}
