import { TAINT_NOT_READY, TAINT_UNREACHABLE } from '@kruise/kube-compat/taints';
import { nowRFC3339 } from '../../api/context.ts';
import type { KubeObject } from '../../registry/types.ts';
import type { Store } from '../../store/store.ts';

/** The conditions kubelet reports and the lifecycle controller turns Unknown when it goes silent. */
const KUBELET_CONDITIONS = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];

/** When the node last showed life: its Lease's renewTime, its Ready heartbeat, or its creation. */
export function lastHeartbeat(store: Store, node: KubeObject): number {
  const name = node.metadata?.name;
  const lease = store.get('coordination.k8s.io/leases', 'kube-node-lease', name)?.obj;
  const ready = (node.status?.conditions ?? []).find((c: any) => c?.type === 'Ready');
  const times = [lease?.spec?.renewTime, ready?.lastHeartbeatTime, node.metadata?.creationTimestamp]
    .map((t) => (t ? Date.parse(String(t)) : Number.NaN))
    .filter((t) => !Number.isNaN(t));
  return times.length ? Math.max(...times) : 0;
}

/**
 * The status conditions of a node whose kubelet stopped posting: every kubelet condition
 * Unknown with kube-controller-manager's reasons (NodeStatusUnknown, or NodeStatusNeverUpdated
 * for a node that never reported), heartbeat times kept.
 */
export function unknownConditions(node: KubeObject): any[] {
  const now = nowRFC3339();
  const conditions: any[] = [...(node.status?.conditions ?? [])];
  for (const type of KUBELET_CONDITIONS) {
    const at = conditions.findIndex((c) => c?.type === type);
    if (at === -1) {
      conditions.push({
        type,
        status: 'Unknown',
        reason: 'NodeStatusNeverUpdated',
        message: 'Kubelet never posted node status.',
        lastHeartbeatTime: node.metadata?.creationTimestamp,
        lastTransitionTime: now,
      });
    } else if (conditions[at].status !== 'Unknown') {
      conditions[at] = {
        ...conditions[at],
        status: 'Unknown',
        reason: 'NodeStatusUnknown',
        message: 'Kubelet stopped posting node status.',
        lastTransitionTime: now,
      };
    }
  }
  return conditions;
}

/**
 * The node's taints as the lifecycle controller keeps them: `unreachable` (Ready Unknown) or
 * `not-ready` (Ready False or absent), NoSchedule and NoExecute; none of them once Ready.
 */
export function lifecycleTaints(node: KubeObject, ready: string): any[] {
  const taints: any[] = (node.spec?.taints ?? []).filter(
    (t: any) => t?.key !== TAINT_UNREACHABLE && t?.key !== TAINT_NOT_READY,
  );
  if (ready === 'True') return taints;
  const key = ready === 'Unknown' ? TAINT_UNREACHABLE : TAINT_NOT_READY;
  const old = (node.spec?.taints ?? []).find((t: any) => t?.key === key && t?.effect === 'NoExecute');
  return [
    ...taints,
    { key, effect: 'NoSchedule' },
    { key, effect: 'NoExecute', timeAdded: old?.timeAdded ?? nowRFC3339() },
  ];
}
