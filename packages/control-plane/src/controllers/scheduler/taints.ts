import type { KubeObject } from '../../registry/types.ts';

/** Taint keys kube-controller-manager's node lifecycle controller uses. */
export const TAINT_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_UNREACHABLE = 'node.kubernetes.io/unreachable';
export const TAINT_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';

/** Whether a toleration tolerates a taint (ToleratesTaint). */
export function tolerates(toleration: any, taint: any): boolean {
  if (toleration?.effect && toleration.effect !== taint?.effect) return false;
  if (toleration?.key && toleration.key !== taint?.key) return false;
  if (!toleration?.key && toleration?.operator !== 'Exists') return false;
  if (toleration?.operator === 'Exists') return true;
  return (toleration?.value ?? '') === (taint?.value ?? '');
}

/** Whether any of the tolerations tolerates the taint. */
export const toleratedBy = (tolerations: any[], taint: any): boolean =>
  tolerations.some((t) => tolerates(t, taint));

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
