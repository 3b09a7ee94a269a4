import { type NodeAffinityPodSpec, type NodeFields, requiredNodeAffinityMatches } from './node-affinity.ts';
import {
  addOrUpdateToleration,
  findUntoleratedTaint,
  NO_EXECUTE,
  NO_SCHEDULE_OR_NO_EXECUTE,
  TAINT_DISK_PRESSURE,
  TAINT_MEMORY_PRESSURE,
  TAINT_NETWORK_UNAVAILABLE,
  TAINT_NOT_READY,
  TAINT_PID_PRESSURE,
  TAINT_UNREACHABLE,
  TAINT_UNSCHEDULABLE,
  type TaintFields,
  type TolerationFields,
} from './taints.ts';

/** What daemon placement reads of a PodSpec. */
export interface DaemonPodSpec extends NodeAffinityPodSpec {
  nodeName?: string;
  hostNetwork?: boolean;
  tolerations?: TolerationFields[];
}

/** What daemon placement reads of a Node. */
export interface DaemonNode extends NodeFields {
  spec?: { taints?: TaintFields[] };
}

const exists = (key: string, effect: string): TolerationFields => ({ key, operator: 'Exists', effect });

/**
 * The tolerations every daemon pod gets (the DaemonSet controller's AddOrUpdateDaemonPodTolerations),
 * so node problems and cordoning never evict or keep out a node's daemon: not-ready and
 * unreachable (NoExecute); disk, memory and pid pressure and unschedulable (NoSchedule); and for a
 * host-network pod, network-unavailable (NoSchedule).
 */
export function daemonTolerations(spec: DaemonPodSpec): TolerationFields[] {
  const added = [
    exists(TAINT_NOT_READY, 'NoExecute'),
    exists(TAINT_UNREACHABLE, 'NoExecute'),
    exists(TAINT_DISK_PRESSURE, 'NoSchedule'),
    exists(TAINT_MEMORY_PRESSURE, 'NoSchedule'),
    exists(TAINT_PID_PRESSURE, 'NoSchedule'),
    exists(TAINT_UNSCHEDULABLE, 'NoSchedule'),
    ...(spec.hostNetwork ? [exists(TAINT_NETWORK_UNAVAILABLE, 'NoSchedule')] : []),
  ];
  return added.reduce(addOrUpdateToleration, spec.tolerations ?? []);
}

/** How a daemon pod fits a node (the DaemonSet controller's Predicates). */
export interface DaemonPodFit {
  /** The pod names no node, or this one. */
  fitsNodeName: boolean;
  /** Its nodeSelector and required node affinity admit the node. */
  fitsNodeAffinity: boolean;
  /** It tolerates every NoSchedule and NoExecute taint of the node. */
  fitsTaints: boolean;
}

/** How a daemon pod (its spec with the daemon tolerations) fits a node. */
export function daemonPodFit(spec: DaemonPodSpec, node: DaemonNode): DaemonPodFit {
  return {
    fitsNodeName: !spec.nodeName || spec.nodeName === node.metadata?.name,
    fitsNodeAffinity: requiredNodeAffinityMatches(spec, node),
    fitsTaints: !findUntoleratedTaint(node.spec?.taints, spec.tolerations, NO_SCHEDULE_OR_NO_EXECUTE),
  };
}

/** Whether a daemon set's pod belongs on a node. */
export interface DaemonPlacement {
  /** A pod should be created there when it has none. */
  shouldRun: boolean;
  /** A pod already there may stay. */
  shouldContinueRunning: boolean;
}

/**
 * Whether a daemon set whose pod template has `templateSpec` runs a pod on the node
 * (nodeShouldRunDaemonPod of the native and the Advanced DaemonSet): not when the template names
 * another node or its node affinity refuses this one; a taint it does not tolerate keeps a new pod
 * off, and evicts a running one only when it is NoExecute. A cordoned node (`spec.unschedulable`)
 * still runs daemons: they tolerate its taint.
 */
export function nodeShouldRunDaemonPod(node: DaemonNode, templateSpec: DaemonPodSpec): DaemonPlacement {
  const spec = { ...templateSpec, tolerations: daemonTolerations(templateSpec) };
  const fit = daemonPodFit(spec, node);
  if (!fit.fitsNodeName || !fit.fitsNodeAffinity) return { shouldRun: false, shouldContinueRunning: false };
  if (fit.fitsTaints) return { shouldRun: true, shouldContinueRunning: true };
  return {
    shouldRun: false,
    shouldContinueRunning: !findUntoleratedTaint(node.spec?.taints, spec.tolerations, NO_EXECUTE),
  };
}

/** A node condition, as far as the comparison of node updates reads it. */
interface ConditionFields {
  type?: string;
  status?: string;
}

/** Whether two lists of node conditions have the same types with status True (nodeInSameCondition). */
export function sameTrueConditions(
  old: ConditionFields[] | undefined,
  cur: ConditionFields[] | undefined,
): boolean {
  const trueTypes = (cs: ConditionFields[] | undefined) =>
    new Set((cs ?? []).filter((c) => c.status === 'True').map((c) => c.type));
  const a = trueTypes(old);
  const b = trueTypes(cur);
  return a.size === b.size && [...a].every((t) => b.has(t));
}

/**
 * A JSON value with empty lists and maps, nulls and undefined values left out (as Go's semantic
 * equality treats nil and empty alike), keys sorted: two values are semantically equal when their
 * canonical texts are.
 */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) {
    const c = canonical((v as Record<string, unknown>)[k]);
    if (c === undefined || c === null) continue;
    if (Array.isArray(c) && c.length === 0) continue;
    if (typeof c === 'object' && !Array.isArray(c) && Object.keys(c).length === 0) continue;
    out[k] = c;
  }
  return out;
}

/** A Node object as its updates are compared. */
interface NodeObject {
  metadata?: { resourceVersion?: string } & Record<string, unknown>;
  status?: { conditions?: ConditionFields[] } & Record<string, unknown>;
  [k: string]: unknown;
}

/**
 * Whether a node update can be ignored by a daemon set controller (shouldIgnoreNodeUpdate): the same
 * conditions are True, and nothing else changed but the resourceVersion and the conditions
 * (heartbeats).
 */
export function nodeUpdateIgnorable(old: NodeObject, cur: NodeObject): boolean {
  if (!sameTrueConditions(old.status?.conditions, cur.status?.conditions)) return false;
  const strip = (n: NodeObject) => ({
    ...n,
    metadata: { ...n.metadata, resourceVersion: undefined },
    status: { ...n.status, conditions: undefined },
  });
  return JSON.stringify(canonical(strip(old))) === JSON.stringify(canonical(strip(cur)));
}
