/** A node's taint. */
export interface TaintFields {
  key: string;
  value?: string;
  effect: string;
}

/** A pod's toleration. */
export interface TolerationFields {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

/** Taint keys of the node lifecycle controller and the kubelet. */
export const TAINT_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_UNREACHABLE = 'node.kubernetes.io/unreachable';
export const TAINT_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';
export const TAINT_DISK_PRESSURE = 'node.kubernetes.io/disk-pressure';
export const TAINT_MEMORY_PRESSURE = 'node.kubernetes.io/memory-pressure';
export const TAINT_PID_PRESSURE = 'node.kubernetes.io/pid-pressure';
export const TAINT_NETWORK_UNAVAILABLE = 'node.kubernetes.io/network-unavailable';

/**
 * Whether a toleration tolerates a taint (core/v1 Toleration.ToleratesTaint): its effect, when set,
 * is the taint's; its key, when set, is the taint's; then `Exists` tolerates any value, `Equal` (or
 * no operator) the same value, and any other operator nothing.
 */
export function toleratesTaint(toleration: TolerationFields, taint: TaintFields): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? '') {
    case '':
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** Whether any of the tolerations tolerates the taint. */
export const taintToleratedBy = (tolerations: TolerationFields[] | undefined, taint: TaintFields): boolean =>
  (tolerations ?? []).some((t) => toleratesTaint(t, taint));

/** Taints that keep pods off a node: NoSchedule and NoExecute. */
export const NO_SCHEDULE_OR_NO_EXECUTE = (t: TaintFields): boolean =>
  t.effect === 'NoSchedule' || t.effect === 'NoExecute';

/** Taints that evict running pods: NoExecute. */
export const NO_EXECUTE = (t: TaintFields): boolean => t.effect === 'NoExecute';

/**
 * The first taint that `filter` selects and no toleration tolerates (v1helper
 * FindMatchingUntoleratedTaint), or undefined.
 */
export function findUntoleratedTaint(
  taints: TaintFields[] | undefined,
  tolerations: TolerationFields[] | undefined,
  filter: (t: TaintFields) => boolean,
): TaintFields | undefined {
  return (taints ?? []).find((t) => filter(t) && !taintToleratedBy(tolerations, t));
}

/** Whether two tolerations are the same one (core/v1 Toleration.MatchToleration: key, operator, value, effect). */
const sameToleration = (a: TolerationFields, b: TolerationFields): boolean =>
  (a.key ?? '') === (b.key ?? '') &&
  (a.operator ?? '') === (b.operator ?? '') &&
  (a.value ?? '') === (b.value ?? '') &&
  (a.effect ?? '') === (b.effect ?? '');

/**
 * The tolerations with `toleration` added (v1helper AddOrUpdateTolerationInPodSpec): every
 * toleration that is the same one is replaced by it, in its place; if none is, it is appended.
 */
export function addOrUpdateToleration(
  tolerations: TolerationFields[] | undefined,
  toleration: TolerationFields,
): TolerationFields[] {
  const current = tolerations ?? [];
  if (!current.some((t) => sameToleration(t, toleration))) return [...current, toleration];
  return current.map((t) => (sameToleration(t, toleration) ? toleration : t));
}
