import type { LinuxContainerResources } from '@kruise/cri/generated/runtime/v1/LinuxContainerResources';
import { canonicalQuantity, parseQuantity, quantityMilliValue, quantityValue } from '@kruise/kube-compat';
import type { Container, Pod, ResourceRequirements } from 'kubernetes-types/core/v1.js';

/** The compute resources kubelet hands to the runtime and resizes. */
const COMPUTE = ['cpu', 'memory'] as const;

/** A container's cpu and memory requests and limits, as kubelet tracks what it allocated and applied. */
export interface ComputeResources {
  requests: Record<string, string>;
  limits: Record<string, string>;
}

/** The cpu/memory part of a container's resources (requests defaulted to limits, as the API server does; canonical quantities). */
export function computeResourcesOf(container: Pick<Container, 'resources'>): ComputeResources {
  const r: ResourceRequirements = container.resources ?? {};
  const out: ComputeResources = { requests: {}, limits: {} };
  for (const name of COMPUTE) {
    const limit = r.limits?.[name];
    const request = r.requests?.[name] ?? limit;
    if (limit !== undefined) out.limits[name] = canonicalQuantity(String(limit));
    if (request !== undefined) out.requests[name] = canonicalQuantity(String(request));
  }
  return out;
}

const milli = (q: string | undefined) =>
  q === undefined
    ? 0
    : Number(quantityMilliValue(parseQuantity(q) ?? { mantissa: 0n, scale: 0, format: 'DecimalSI' }));
const bytes = (q: string | undefined) =>
  q === undefined
    ? 0
    : Number(quantityValue(parseQuantity(q) ?? { mantissa: 0n, scale: 0, format: 'DecimalSI' }));

/** The pod's QoS class (Kubernetes' GetPodQOS over cpu and memory of all its containers). */
export function podQOSClass(pod: Pod): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const all = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].map(computeResourcesOf);
  if (all.every((c) => !Object.keys(c.requests).length && !Object.keys(c.limits).length)) return 'BestEffort';
  const guaranteed = all.every((c) =>
    COMPUTE.every(
      (n) =>
        c.limits[n] !== undefined &&
        (n === 'cpu' ? milli : bytes)(c.requests[n]) === (n === 'cpu' ? milli : bytes)(c.limits[n]),
    ),
  );
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** kubelet's oom_score_adj per QoS class (Burstable scaled by the memory request's share of the node). */
function oomScoreAdj(qos: string, memoryRequest: number, memoryCapacity: number): number {
  if (qos === 'Guaranteed') return -997;
  if (qos === 'BestEffort') return 1000;
  const adj = 1000 - Math.floor((1000 * memoryRequest) / memoryCapacity);
  if (adj < 3) return 3;
  return adj === 1000 ? 999 : adj;
}

/** CFS period kubelet uses (100 ms). */
const QUOTA_PERIOD = 100_000;

/**
 * kubelet's LinuxContainerResources for a container (cgroup v1): cpu shares from the request
 * (at least 2), CFS quota from the limit over a 100 ms period (at least 1 ms, none without a
 * limit), the memory limit, and oom_score_adj by QoS class.
 */
export function linuxResources(
  pod: Pod,
  resources: ComputeResources,
  memoryCapacityBytes: number,
): LinuxContainerResources {
  const cpuRequest = milli(resources.requests.cpu);
  const cpuLimit = milli(resources.limits.cpu);
  const quota = cpuLimit === 0 ? 0 : Math.max(1000, Math.floor((cpuLimit * QUOTA_PERIOD) / 1000));
  return {
    cpuShares: String(Math.max(2, Math.floor((cpuRequest * 1024) / 1000))),
    cpuQuota: String(quota),
    cpuPeriod: String(QUOTA_PERIOD),
    memoryLimitInBytes: String(bytes(resources.limits.memory)),
    oomScoreAdj: String(oomScoreAdj(podQOSClass(pod), bytes(resources.requests.memory), memoryCapacityBytes)),
  };
}

/** The resources whose values differ between two states (`cpu`, `memory`). */
export function changedResources(a: ComputeResources, b: ComputeResources): string[] {
  return COMPUTE.filter((n) => {
    const same =
      n === 'cpu'
        ? (x?: string, y?: string) => milli(x) === milli(y)
        : (x?: string, y?: string) => bytes(x) === bytes(y);
    return !same(a.requests[n], b.requests[n]) || !same(a.limits[n], b.limits[n]);
  });
}

/** The sum of a pod's containers' cpu (milli) and memory (bytes) requests. */
function podRequests(containers: ComputeResources[]): { cpu: number; memory: number } {
  return {
    cpu: containers.reduce((s, c) => s + milli(c.requests.cpu), 0),
    memory: containers.reduce((s, c) => s + bytes(c.requests.memory), 0),
  };
}

/**
 * Why a resize cannot be allocated on this node (kubelet 1.33's `PodResizePending` reason
 * Infeasible and its message, memory checked first as canResizePod does), or undefined when the
 * pod's requests fit the node's allocatable.
 */
export function infeasibleResize(pod: Pod, allocatable: Record<string, string>): string | undefined {
  const { cpu, memory } = podRequests((pod.spec?.containers ?? []).map(computeResourcesOf));
  if (memory > bytes(allocatable.memory))
    return `Node didn't have enough capacity: memory, requested: ${memory}, capacity: ${bytes(allocatable.memory)}`;
  if (cpu > milli(allocatable.cpu))
    return `Node didn't have enough capacity: cpu, requested: ${cpu}, capacity: ${milli(allocatable.cpu)}`;
  return undefined;
}

/**
 * Why a feasible resize does not fit beside the requests allocated to the node's other pods
 * (kubelet 1.33 admits the resized pod again: reason Deferred, the message of the scheduler's
 * InsufficientResourceError, cpu before memory), or undefined when it fits.
 */
export function deferredResize(
  pod: Pod,
  others: ComputeResources[],
  allocatable: Record<string, string>,
): string | undefined {
  const want = podRequests((pod.spec?.containers ?? []).map(computeResourcesOf));
  const used = podRequests(others);
  const capacity = { cpu: milli(allocatable.cpu), memory: bytes(allocatable.memory) };
  for (const r of ['cpu', 'memory'] as const)
    if (want[r] > 0 && want[r] > capacity[r] - used[r])
      return `Node didn't have enough resource: ${r}, requested: ${want[r]}, used: ${used[r]}, capacity: ${capacity[r]}`;
  return undefined;
}
