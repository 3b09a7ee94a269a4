import {
  addSchedulingResources,
  type NodeAllocatable,
  nodeAllocatable,
  noResources,
  type SchedulingResources,
  schedulingResources,
} from '@kruise/kube-compat/node-fit';
import { podRequests as podResourceRequests } from '@kruise/kube-compat/pod-requests';
import type { KubeObject } from '../../registry/types.ts';

/** What a pod asks for, as kube-scheduler rounds it (millicores, bytes, scalar units). */
export type Resources = SchedulingResources;

/** kube-scheduler's defaults for scoring a container that requests nothing (100m, 200Mi). */
const NON_ZERO_REQUESTS = { cpu: '100m', memory: '200Mi' };

/**
 * A pod's requests as kube-scheduler computes them (kube-compat's component-helpers PodRequests:
 * containers, init and sidecar containers, overhead); `nonZero` counts 100m/200Mi for containers
 * without CPU or memory requests (for scoring only).
 */
export function podRequests(pod: KubeObject): { requests: Resources; nonZero: Resources } {
  return {
    requests: schedulingResources(podResourceRequests(pod.spec)),
    nonZero: schedulingResources(
      podResourceRequests(pod.spec, { nonMissingContainerRequests: NON_ZERO_REQUESTS }),
    ),
  };
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
  readonly allocatable: NodeAllocatable;
  readonly requested: Resources = noResources();
  readonly nonZeroRequested: Resources = noResources();
  podCount = 0;
  /** Host ports in use: `protocol/port` → host IPs. */
  readonly ports = new Map<string, Set<string>>();
  /** Pods on the node per owner (controller UID), for spreading. */
  readonly owners = new Map<string, number>();

  constructor(node: KubeObject) {
    this.node = node;
    this.name = node.metadata?.name;
    this.allocatable = nodeAllocatable(node.status?.allocatable);
  }

  /** Counts a pod bound to this node. */
  add(pod: KubeObject): void {
    const { requests, nonZero } = podRequests(pod);
    addSchedulingResources(this.requested, requests);
    addSchedulingResources(this.nonZeroRequested, nonZero);
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
