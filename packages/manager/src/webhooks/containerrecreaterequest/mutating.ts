import {
  type ContainerRecreateRequest,
  CRR_ACTIVE_LABEL,
  CRR_NODE_NAME_LABEL,
  CRR_POD_UID_LABEL,
  CRR_UNREADY_ACQUIRED_ANNOTATION,
  type FeatureGates,
  SIDECAR_TERMINATED_CONDITION,
  VIRTUAL_KUBELET_LABEL,
  VIRTUAL_KUBELET_VALUE,
} from '@kruise/api';
import { type AdmissionHandler, denied, patched } from '@kruise/runtime';
import type { Container, ContainerStatus, Node, Pod } from 'kubernetes-types/core/v1.js';

import { decodeObject, gateOff } from '../decode.ts';

/** Shortest activeDeadlineSeconds upstream accepts. */
export const MIN_DEADLINE_SECONDS = 3;

/** How the webhook reads the target pod and its node (live reads: the containerIDs must be current). */
export interface CrrLookup {
  /** The pod, or undefined when it does not exist. */
  pod(namespace: string, name: string): Promise<Pod | undefined>;
  /** The node; throws with the API's message when it cannot be read. */
  node(name: string): Promise<Node>;
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const deepEqual = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Whether a pod can still have containers recreated (kubecontroller.IsPodActive, or ended by SidecarTerminator). */
function podIsActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  if (phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata?.deletionTimestamp) return true;
  return (pod.status?.conditions ?? []).some((c) => c?.type === SIDECAR_TERMINATED_CONDITION);
}

function updateDenial(crr: ContainerRecreateRequest, old: ContainerRecreateRequest) {
  if (!deepEqual(crr.spec, old.spec)) return denied(403, 'spec of ContainerRecreateRequest is immutable');
  for (const label of [CRR_POD_UID_LABEL, CRR_NODE_NAME_LABEL]) {
    if (crr.metadata?.labels?.[label] !== old.metadata?.labels?.[label])
      return denied(403, `not allowed to update immutable label ${label}`);
  }
  const acquired = old.metadata?.annotations?.[CRR_UNREADY_ACQUIRED_ANNOTATION];
  if (acquired && crr.metadata?.annotations?.[CRR_UNREADY_ACQUIRED_ANNOTATION] !== acquired)
    return denied(403, `not allowed to update immutable annotation ${CRR_UNREADY_ACQUIRED_ANNOTATION}`);
  return undefined;
}

/** Fills what the daemon needs from the pod into each container; returns the error text or undefined. */
function injectPod(crr: ContainerRecreateRequest, pod: Pod): string | undefined {
  const spec = crr.spec!;
  spec.strategy!.terminationGracePeriodSeconds ??= pod.spec?.terminationGracePeriodSeconds;
  const podContainers: Container[] = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  const statuses: ContainerStatus[] = [
    ...(pod.status?.initContainerStatuses ?? []),
    ...(pod.status?.containerStatuses ?? []),
  ];
  const seen = new Set<string>();
  for (const c of spec.containers) {
    if (!c || typeof c !== 'object') return 'containers list can not be null';
    // Upstream never records the names it has seen, so its duplicate check never fires; ours does.
    if (seen.has(c.name)) return `can not recreate ${c.name} multi times`;
    seen.add(c.name);
    if (c.preStop != null || c.ports != null || c.statusContext != null)
      return 'preStop, ports, statusContext in container are ready-only fields';
    const podContainer = podContainers.find((x) => x?.name === c.name);
    if (!podContainer) return `container ${c.name} not found in Pod`;
    const status = statuses.find((x) => x?.name === c.name);
    if (!status) return `not found ${c.name} containerStatus in Pod Status`;
    if (!status.containerID)
      return `no containerID in ${c.name} containerStatus, maybe the container has not been initialized`;
    const preStop = podContainer.lifecycle?.preStop;
    if (preStop) {
      c.preStop = {
        ...(preStop.exec ? { exec: preStop.exec } : {}),
        ...(preStop.httpGet ? { httpGet: preStop.httpGet } : {}),
        ...(preStop.tcpSocket ? { tcpSocket: preStop.tcpSocket } : {}),
      };
      if (preStop.httpGet && podContainer.ports) c.ports = podContainer.ports;
    }
    c.statusContext = { containerID: status.containerID, restartCount: status.restartCount ?? 0 };
  }
  return undefined;
}

/**
 * The ContainerRecreateRequest mutating webhook, as upstream: on create it validates the request
 * (with upstream's messages), defaults the strategy, labels the request with its pod's UID and node
 * and `active=true`, and copies each container's preStop, ports and current status; on update it
 * keeps the spec, the pod-uid and node-name labels and a set unready-acquired time immutable.
 */
export function mutateContainerRecreateRequest(gates: FeatureGates, lookup: CrrLookup): AdmissionHandler {
  return async (request) => {
    if (!gates.enabled('KruiseDaemon')) return gateOff('KruiseDaemon');
    const decoded = decodeObject<ContainerRecreateRequest>(request, 'ContainerRecreateRequest');
    if ('response' in decoded) return decoded.response;
    if (request.operation === 'UPDATE') {
      const old = decodeObject<ContainerRecreateRequest>(
        { ...request, object: request.oldObject },
        'ContainerRecreateRequest',
      );
      if ('response' in old) return old.response;
      return updateDenial(decoded.obj, old.obj) ?? { allowed: true };
    }
    const crr = structuredClone(decoded.obj);
    crr.metadata = { ...(crr.metadata ?? {}) };
    const labels: Record<string, string> = { ...(crr.metadata.labels ?? {}) };
    const spec = (crr.spec ?? {}) as ContainerRecreateRequest['spec'] & object;
    crr.spec = spec;
    if (!spec.podName || typeof spec.podName !== 'string') return denied(400, 'podName can not be empty');
    spec.strategy ??= {};
    labels[CRR_ACTIVE_LABEL] = 'true';
    if (!Array.isArray(spec.containers) || spec.containers.length === 0)
      return denied(400, 'containers list can not be null');
    if (
      spec.activeDeadlineSeconds != null &&
      (!isNumber(spec.activeDeadlineSeconds) || spec.activeDeadlineSeconds < MIN_DEADLINE_SECONDS)
    )
      return denied(400, `activeDeadlineSeconds can not be less than ${MIN_DEADLINE_SECONDS}s`);
    for (const field of ['terminationGracePeriodSeconds', 'unreadyGracePeriodSeconds'] as const) {
      const v = spec.strategy[field];
      if (v != null && (!isNumber(v) || v < 0)) return denied(400, `${field} must be non-negative integer`);
    }
    const policy = spec.strategy.failurePolicy;
    if (!policy) spec.strategy.failurePolicy = 'Fail';
    else if (policy !== 'Fail' && policy !== 'Ignore') return denied(400, `unknown failurePolicy ${policy}`);
    const namespace = crr.metadata.namespace ?? request.namespace ?? '';
    let pod: Pod | undefined;
    try {
      pod = await lookup.pod(namespace, spec.podName);
    } catch (err) {
      return denied(500, `failed to find Pod ${spec.podName}: ${(err as Error).message}`);
    }
    if (!pod) return denied(400, `no found Pod named ${spec.podName}`);
    if (!podIsActive(pod)) return denied(400, 'not allowed to recreate containers in an inactive Pod');
    const nodeName: string | undefined = pod.spec?.nodeName;
    if (!nodeName) return denied(400, 'not allowed to recreate containers in a pending Pod');
    let node: Node;
    try {
      node = await lookup.node(nodeName);
    } catch (err) {
      return denied(400, `failed to get Node ${nodeName}: ${(err as Error).message}`);
    }
    labels[CRR_NODE_NAME_LABEL] = nodeName;
    labels[CRR_POD_UID_LABEL] = String(pod.metadata?.uid ?? '');
    if (node.metadata?.labels?.[VIRTUAL_KUBELET_LABEL] === VIRTUAL_KUBELET_VALUE)
      labels[VIRTUAL_KUBELET_LABEL] = VIRTUAL_KUBELET_VALUE;
    crr.metadata.labels = labels;
    const problem = injectPod(crr, pod);
    if (problem) return denied(400, problem);
    return patched(request.object, crr);
  };
}
