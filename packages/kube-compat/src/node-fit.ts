import type { DaemonNode, DaemonPodSpec } from './daemon-placement.ts';
import { requiredNodeAffinityMatches } from './node-affinity.ts';
import {
  amountMilliValue,
  amountValue,
  podRequests,
  type RequestsPodSpec,
  type ResourceAmounts,
  type ResourceListFields,
  resourceAmounts,
} from './pod-requests.ts';
import {
  findUntoleratedTaint,
  NO_SCHEDULE_OR_NO_EXECUTE,
  TAINT_UNSCHEDULABLE,
  type TolerationFields,
  taintToleratedBy,
} from './taints.ts';

/**
 * Resources as kube-scheduler's framework.Resource holds them: CPU in millicores, memory and
 * ephemeral storage in bytes, scalar resources (extended, hugepages, `kubernetes.io/`-prefixed,
 * attachable volumes) in whole units, each rounded up from the exact amount.
 */
export interface SchedulingResources {
  milliCpu: number;
  memory: number;
  ephemeralStorage: number;
  scalar: Map<string, number>;
}

/** Node allocatable as the scheduler holds it: the resources, plus how many pods it takes. */
export interface NodeAllocatable extends SchedulingResources {
  allowedPodNumber: number;
}

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** validation.IsQualifiedName: `[prefix/]name`, the prefix a DNS subdomain, the name ≤ 63 characters. */
export function isQualifiedName(value: string): boolean {
  const parts = value.split('/');
  if (parts.length > 2) return false;
  const name = parts.length === 2 ? parts[1]! : parts[0]!;
  if (parts.length === 2 && (!parts[0] || parts[0].length > 253 || !DNS_SUBDOMAIN.test(parts[0])))
    return false;
  return name.length > 0 && name.length <= 63 && QUALIFIED_NAME.test(name);
}

/** v1helper.IsNativeResource: no domain, or the `kubernetes.io/` one. */
const isNativeResource = (name: string) => !name.includes('/') || name.includes('kubernetes.io/');

/** v1helper.IsExtendedResourceName: a domain-qualified name outside `kubernetes.io/`. */
export function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith('requests.')) return false;
  return isQualifiedName(`requests.${name}`);
}

/** schedutil.IsScalarResourceName: the resources the scheduler fits besides cpu, memory, storage, pods. */
export function isScalarResourceName(name: string): boolean {
  return (
    isExtendedResourceName(name) ||
    name.startsWith('hugepages-') ||
    name.includes('kubernetes.io/') ||
    name.startsWith('attachable-volumes-')
  );
}

/** Exact amounts as the scheduler rounds them (framework.Resource.Add of one resource list). */
export function schedulingResources(amounts: ResourceAmounts): SchedulingResources {
  const out: SchedulingResources = { milliCpu: 0, memory: 0, ephemeralStorage: 0, scalar: new Map() };
  for (const [name, amount] of amounts) {
    if (name === 'cpu') out.milliCpu += amountMilliValue(amount);
    else if (name === 'memory') out.memory += amountValue(amount);
    else if (name === 'ephemeral-storage') out.ephemeralStorage += amountValue(amount);
    else if (isScalarResourceName(name))
      out.scalar.set(name, (out.scalar.get(name) ?? 0) + amountValue(amount));
  }
  return out;
}

/** A node's `status.allocatable` as the scheduler holds it. */
export function nodeAllocatable(allocatable: ResourceListFields | undefined): NodeAllocatable {
  const amounts = resourceAmounts(allocatable);
  const pods = amounts.get('pods');
  return { ...schedulingResources(amounts), allowedPodNumber: pods === undefined ? 0 : amountValue(pods) };
}

/** Adds `b` into `a` (the requests of the pods already on a node). */
export function addSchedulingResources(a: SchedulingResources, b: SchedulingResources): void {
  a.milliCpu += b.milliCpu;
  a.memory += b.memory;
  a.ephemeralStorage += b.ephemeralStorage;
  for (const [name, v] of b.scalar) a.scalar.set(name, (a.scalar.get(name) ?? 0) + v);
}

/** Nothing requested. */
export const noResources = (): SchedulingResources => ({
  milliCpu: 0,
  memory: 0,
  ephemeralStorage: 0,
  scalar: new Map(),
});

/** What a node already holds: how many pods, and what they request. */
export interface NodeUsage {
  podCount: number;
  requested: SchedulingResources;
}

/**
 * The noderesources plugin's Fits: why a pod requesting `request` does not fit a node with
 * `allocatable` that already runs `usage` ("Too many pods", "Insufficient cpu", "Insufficient
 * memory", "Insufficient ephemeral-storage", "Insufficient <scalar>"); empty when it fits.
 */
export function insufficientResources(
  request: SchedulingResources,
  allocatable: NodeAllocatable,
  usage: NodeUsage,
): string[] {
  const reasons: string[] = [];
  if (usage.podCount + 1 > allocatable.allowedPodNumber) reasons.push('Too many pods');
  const { requested } = usage;
  if (request.milliCpu > 0 && request.milliCpu > allocatable.milliCpu - requested.milliCpu)
    reasons.push('Insufficient cpu');
  if (request.memory > 0 && request.memory > allocatable.memory - requested.memory)
    reasons.push('Insufficient memory');
  if (
    request.ephemeralStorage > 0 &&
    request.ephemeralStorage > allocatable.ephemeralStorage - requested.ephemeralStorage
  )
    reasons.push('Insufficient ephemeral-storage');
  for (const name of [...request.scalar.keys()].sort()) {
    const want = request.scalar.get(name)!;
    if (want === 0) continue;
    if (want > (allocatable.scalar.get(name) ?? 0) - (requested.scalar.get(name) ?? 0))
      reasons.push(`Insufficient ${name}`);
  }
  return reasons;
}

/** The scheduler's reason for a node whose `spec.unschedulable` the pod does not tolerate. */
export const UNSCHEDULABLE_REASON = 'node(s) were unschedulable';

/**
 * Whether a cordoned node (`spec.unschedulable`) keeps the pod off (the NodeUnschedulable plugin): it does unless the pod
 * tolerates the `node.kubernetes.io/unschedulable:NoSchedule` taint.
 */
export function unschedulableUntolerated(
  unschedulable: boolean | undefined,
  tolerations: TolerationFields[] | undefined,
): boolean {
  return (
    Boolean(unschedulable) &&
    !taintToleratedBy(tolerations, { key: TAINT_UNSCHEDULABLE, effect: 'NoSchedule' })
  );
}

/** What node fitness reads of a PodSpec. */
export interface NodeFitPodSpec extends DaemonPodSpec, RequestsPodSpec {}

/** What node fitness reads of a Node. */
export interface NodeFitNode extends DaemonNode {
  spec?: DaemonNode['spec'] & { unschedulable?: boolean };
  status?: { allocatable?: ResourceListFields };
}

/**
 * Why a pod cannot run on a node, as the BroadcastJob controller checks it (checkNodeFitness):
 * another node named in `nodeName`, required node affinity, an untolerated NoSchedule/NoExecute
 * taint, a cordoned node, then the resources it requests against the node's allocatable less what
 * `usage` (the pods already there) requests. Empty when the pod fits. The first four stop at their
 * reason; the resource check reports every shortfall. `request` is the pod's requests, when the
 * caller computed them once for many nodes.
 */
export function nodeFitFailures(
  spec: NodeFitPodSpec,
  node: NodeFitNode,
  usage?: NodeUsage,
  request: SchedulingResources = schedulingResources(podRequests(spec)),
): string[] {
  if (spec.nodeName && spec.nodeName !== node.metadata?.name)
    return ["node(s) didn't match the requested node name"];
  if (!requiredNodeAffinityMatches(spec, node)) return ["node(s) didn't match Pod's node affinity/selector"];
  const taint = findUntoleratedTaint(node.spec?.taints, spec.tolerations, NO_SCHEDULE_OR_NO_EXECUTE);
  if (taint) return [`node(s) had taint {${taint.key}: ${taint.value ?? ''}}, that the pod didn't tolerate`];
  if (unschedulableUntolerated(node.spec?.unschedulable, spec.tolerations)) return [UNSCHEDULABLE_REASON];
  return insufficientResources(
    request,
    nodeAllocatable(node.status?.allocatable),
    usage ?? { podCount: 0, requested: noResources() },
  );
}

/** What the pods on a node request together (each pod's requests rounded as the scheduler rounds them). */
export function nodeUsage(podSpecs: Iterable<RequestsPodSpec | undefined>): NodeUsage {
  const usage: NodeUsage = { podCount: 0, requested: noResources() };
  for (const spec of podSpecs) {
    usage.podCount++;
    addSchedulingResources(usage.requested, schedulingResources(podRequests(spec)));
  }
  return usage;
}
