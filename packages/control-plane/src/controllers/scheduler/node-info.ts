import type { KubeObject } from '../../registry/types.ts';
import { integerValue, milliCpu } from './quantity.ts';

/** CPU (millicores) and memory (bytes) a pod asks for. */
export interface Resources {
  milliCpu: number;
  memory: number;
}

/** kube-scheduler's defaults for scoring a container that requests nothing (100m, 200Mi). */
const NON_ZERO_CPU = 100;
const NON_ZERO_MEMORY = 200 * 1024 * 1024;

function containerRequest(c: any, resource: 'cpu' | 'memory'): number | undefined {
  const v = c?.resources?.requests?.[resource] ?? c?.resources?.limits?.[resource];
  if (v === undefined) return undefined;
  return resource === 'cpu' ? milliCpu(v) : integerValue(v);
}

/**
 * A pod's requests as kube-scheduler computes them: the sum over containers (and restartable
 * init containers), at least the largest init container, plus the overhead; `nonZero` counts
 * 100m/200Mi for containers without requests (for scoring only).
 */
export function podRequests(pod: KubeObject): { requests: Resources; nonZero: Resources } {
  const requests = { milliCpu: 0, memory: 0 };
  const nonZero = { milliCpu: 0, memory: 0 };
  const add = (c: any) => {
    const cpu = containerRequest(c, 'cpu');
    const mem = containerRequest(c, 'memory');
    requests.milliCpu += cpu ?? 0;
    requests.memory += mem ?? 0;
    nonZero.milliCpu += cpu ?? NON_ZERO_CPU;
    nonZero.memory += mem ?? NON_ZERO_MEMORY;
  };
  const spec = pod.spec ?? {};
  for (const c of spec.containers ?? []) add(c);
  for (const c of spec.initContainers ?? []) {
    if (c?.restartPolicy === 'Always') add(c);
    else {
      requests.milliCpu = Math.max(requests.milliCpu, containerRequest(c, 'cpu') ?? 0);
      requests.memory = Math.max(requests.memory, containerRequest(c, 'memory') ?? 0);
    }
  }
  const overhead = spec.overhead ?? {};
  if (overhead.cpu !== undefined) requests.milliCpu += milliCpu(overhead.cpu);
  if (overhead.memory !== undefined) requests.memory += integerValue(overhead.memory);
  return { requests, nonZero };
}

/** A host port a pod uses: `protocol/port` and the host IP (`0.0.0.0` for any). */
export interface HostPort {
  key: string;
  ip: string;
}

/** The host ports a pod's containers ask for. */
export function podHostPorts(pod: KubeObject): HostPort[] {
  const out: HostPort[] = [];
  for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
    for (const p of c?.ports ?? []) {
      if (!p?.hostPort) continue;
      out.push({ key: `${p.protocol ?? 'TCP'}/${p.hostPort}`, ip: p.hostIP || '0.0.0.0' });
    }
  }
  return out;
}

/** One node as the scheduler sees it: allocatable, what its pods request, the host ports in use. */
export class NodeInfo {
  readonly node: KubeObject;
  readonly name: string;
  readonly allocatable: Resources & { pods: number };
  readonly requested: Resources = { milliCpu: 0, memory: 0 };
  readonly nonZeroRequested: Resources = { milliCpu: 0, memory: 0 };
  podCount = 0;
  /** Host ports in use: `protocol/port` → host IPs. */
  readonly ports = new Map<string, Set<string>>();
  /** Pods on the node per owner (controller UID), for spreading. */
  readonly owners = new Map<string, number>();

  constructor(node: KubeObject) {
    this.node = node;
    this.name = node.metadata?.name;
    const alloc = node.status?.allocatable ?? {};
    this.allocatable = {
      milliCpu: milliCpu(alloc.cpu),
      memory: integerValue(alloc.memory),
      pods: integerValue(alloc.pods),
    };
  }

  /** Counts a pod bound to this node. */
  add(pod: KubeObject): void {
    const { requests, nonZero } = podRequests(pod);
    this.requested.milliCpu += requests.milliCpu;
    this.requested.memory += requests.memory;
    this.nonZeroRequested.milliCpu += nonZero.milliCpu;
    this.nonZeroRequested.memory += nonZero.memory;
    this.podCount++;
    for (const p of podHostPorts(pod)) {
      const ips = this.ports.get(p.key) ?? new Set<string>();
      ips.add(p.ip);
      this.ports.set(p.key, ips);
    }
    const owner = controllerUid(pod);
    if (owner) this.owners.set(owner, (this.owners.get(owner) ?? 0) + 1);
  }
}

/** The UID of a pod's controller, if any. */
export function controllerUid(pod: KubeObject): string | undefined {
  return (pod.metadata?.ownerReferences ?? []).find((r: any) => r?.controller)?.uid;
}

/** Whether a pod still occupies its node's resources (not finished). */
export function occupiesNode(pod: KubeObject): boolean {
  const phase = pod.status?.phase;
  return Boolean(pod.spec?.nodeName) && phase !== 'Succeeded' && phase !== 'Failed';
}
