import { requiredNodeAffinityMatches } from '@kruise/kube-compat/node-affinity';
import {
  insufficientResources,
  UNSCHEDULABLE_REASON,
  unschedulableUntolerated,
} from '@kruise/kube-compat/node-fit';
import { findUntoleratedTaint, NO_SCHEDULE_OR_NO_EXECUTE } from '@kruise/kube-compat/taints';
import type { KubeObject } from '../../registry/types.ts';
import type { NodeInfo, podHostPorts, Resources } from './node-info.ts';
import { effectiveTaints } from './taints.ts';
import { type PodClaim, volumeBinding } from './volumes.ts';

/**
 * Why a node does not fit, worded as kube-scheduler's filter plugins word it. `resolvable` says
 * whether preemption could help (Unschedulable) or not (UnschedulableAndUnresolvable).
 */
export interface FilterFailure {
  reasons: string[];
  resolvable: boolean;
}

/** What the filters need to know about the pod being scheduled (computed once per pod). */
export interface PodFacts {
  pod: KubeObject;
  tolerations: any[];
  requests: Resources;
  hostPorts: ReturnType<typeof podHostPorts>;
  /** The pod's PersistentVolumeClaims (VolumeBinding). */
  claims?: PodClaim[];
}

/** A filter plugin: undefined when the node passes. */
export type Filter = (facts: PodFacts, info: NodeInfo) => FilterFailure | undefined;

const unresolvable = (reason: string): FilterFailure => ({ reasons: [reason], resolvable: false });

/** NodeUnschedulable. */
const nodeUnschedulable: Filter = (facts, info) =>
  unschedulableUntolerated(info.node.spec?.unschedulable, facts.tolerations)
    ? unresolvable(UNSCHEDULABLE_REASON)
    : undefined;

/** TaintToleration: the first NoSchedule/NoExecute taint not tolerated. */
const taintToleration: Filter = (facts, info) => {
  const taint = findUntoleratedTaint(
    effectiveTaints(info.node),
    facts.tolerations,
    NO_SCHEDULE_OR_NO_EXECUTE,
  );
  return taint
    ? unresolvable(`node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`)
    : undefined;
};

/** NodeAffinity (nodeSelector and required node affinity). */
const nodeAffinity: Filter = (facts, info) =>
  requiredNodeAffinityMatches(facts.pod.spec, info.node)
    ? undefined
    : unresolvable("node(s) didn't match Pod's node affinity/selector");

/** NodePorts: a wanted host port already used on the same IP (0.0.0.0 overlaps every IP). */
const nodePorts: Filter = (facts, info) => {
  for (const p of facts.hostPorts) {
    const used = info.ports.get(p.key);
    if (used && (p.ip === '0.0.0.0' || used.has('0.0.0.0') || used.has(p.ip)))
      return { reasons: ["node(s) didn't have free ports for the requested pod ports"], resolvable: true };
  }
  return undefined;
};

/** NodeResourcesFit: pod count, CPU, memory, ephemeral storage and scalar resources against allocatable. */
const nodeResourcesFit: Filter = (facts, info) => {
  const reasons = insufficientResources(facts.requests, info.allocatable, {
    podCount: info.podCount,
    requested: info.requested,
  });
  return reasons.length ? { reasons, resolvable: true } : undefined;
};

/** The default profile's filters this scheduler runs, in kube-scheduler's order. */
export const DEFAULT_FILTERS: Filter[] = [
  nodeUnschedulable,
  taintToleration,
  nodeAffinity,
  nodePorts,
  nodeResourcesFit,
  volumeBinding,
];
