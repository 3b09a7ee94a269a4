import {
  CRI_CONTAINER_HASH_ANNOTATION,
  CRI_CONTAINER_NAME_LABEL,
  CRI_CONTAINER_RESTART_COUNT_ANNOTATION,
  CRI_POD_NAME_LABEL,
  CRI_POD_NAMESPACE_LABEL,
  CRI_POD_TERMINATION_GRACE_PERIOD_ANNOTATION,
  CRI_POD_UID_LABEL,
  CRI_PRESTOP_HANDLER_ANNOTATION,
  CRI_TERMINATION_MESSAGE_PATH_ANNOTATION,
  formatKubeletContainerHash,
  kubeletContainerHash,
} from '@kruise/api';
import type { ContainerConfig } from '@kruise/cri/generated/runtime/v1/ContainerConfig';
import type { PodSandboxConfig } from '@kruise/cri/generated/runtime/v1/PodSandboxConfig';
import type { Container } from 'kubernetes-types/core/v1.js';
import type { BoundPod } from './pod-runner.ts';

/** kubelet's CRI label and annotation keys (the daemon reads them back). */
export const KubeletKeys = {
  podUid: CRI_POD_UID_LABEL,
  podName: CRI_POD_NAME_LABEL,
  podNamespace: CRI_POD_NAMESPACE_LABEL,
  containerName: CRI_CONTAINER_NAME_LABEL,
  restartCount: CRI_CONTAINER_RESTART_COUNT_ANNOTATION,
  hash: CRI_CONTAINER_HASH_ANNOTATION,
  terminationMessagePath: CRI_TERMINATION_MESSAGE_PATH_ANNOTATION,
  terminationMessagePolicy: 'io.kubernetes.container.terminationMessagePolicy',
  preStopHandler: CRI_PRESTOP_HANDLER_ANNOTATION,
  ports: 'io.kubernetes.container.ports',
  terminationGracePeriod: CRI_POD_TERMINATION_GRACE_PERIOD_ANNOTATION,
  /** Not kubelet's: marks sandboxes this local node made, so it cleans up only its own. */
  localNode: 'kruise.io/local-node',
} as const;

/** The host-network namespaces every local-node pod uses (there is no CNI on the local node). */
const HOST_NETWORK = { network: 'NODE', pid: 'CONTAINER', ipc: 'POD' } as const;

/** The CRI sandbox config of a pod, labelled as kubelet labels it, its logs under `logDirectory`. */
export function sandboxConfig(pod: BoundPod, node: string, logDirectory = '', attempt = 0): PodSandboxConfig {
  const m = pod.metadata;
  return {
    metadata: { name: m.name, uid: m.uid, namespace: m.namespace, attempt },
    logDirectory,
    labels: {
      [KubeletKeys.podUid]: m.uid,
      [KubeletKeys.podName]: m.name,
      [KubeletKeys.podNamespace]: m.namespace,
    },
    annotations: { ...(m.annotations ?? {}), [KubeletKeys.localNode]: node },
    linux: { securityContext: { namespaceOptions: HOST_NETWORK } },
  };
}

/** Environment values kubelet resolves that a local node can: literals and pod field references. */
function envOf(pod: BoundPod, container: Container): { key: string; value: string }[] {
  const fields: Record<string, string | undefined> = {
    'metadata.name': pod.metadata.name,
    'metadata.namespace': pod.metadata.namespace,
    'metadata.uid': pod.metadata.uid,
    'spec.nodeName': pod.spec.nodeName,
    'status.podIP': '127.0.0.1',
    'status.hostIP': '127.0.0.1',
  };
  const out: { key: string; value: string }[] = [];
  for (const e of container.env ?? []) {
    const ref = e.valueFrom?.fieldRef?.fieldPath;
    const value = ref ? fields[ref] : undefined;
    if (value !== undefined) out.push({ key: e.name, value });
    else if (!e.valueFrom) out.push({ key: e.name, value: String(e.value ?? '') });
  }
  return out;
}

/**
 * The CRI container config of one of a pod's containers at restart `attempt`, labelled as kubelet
 * labels it, its log at `logPath` (relative to the sandbox's log directory).
 */
export function containerConfig(
  pod: BoundPod,
  container: Container,
  attempt: number,
  logPath = '',
): ContainerConfig {
  const m = pod.metadata;
  const annotations: Record<string, string> = {
    [KubeletKeys.hash]: formatKubeletContainerHash(kubeletContainerHash(container)),
    [KubeletKeys.restartCount]: String(attempt),
    [KubeletKeys.terminationMessagePath]: container.terminationMessagePath ?? '/dev/termination-log',
    [KubeletKeys.terminationMessagePolicy]: container.terminationMessagePolicy ?? 'File',
    [KubeletKeys.terminationGracePeriod]: String(pod.spec.terminationGracePeriodSeconds ?? 30),
  };
  if (container.lifecycle?.preStop)
    annotations[KubeletKeys.preStopHandler] = JSON.stringify(container.lifecycle.preStop);
  if (container.ports?.length) annotations[KubeletKeys.ports] = JSON.stringify(container.ports);
  return {
    metadata: { name: container.name, attempt },
    image: { image: container.image },
    command: container.command ?? [],
    args: container.args ?? [],
    workingDir: container.workingDir ?? '',
    envs: envOf(pod, container),
    labels: {
      [KubeletKeys.podUid]: m.uid,
      [KubeletKeys.podName]: m.name,
      [KubeletKeys.podNamespace]: m.namespace,
      [KubeletKeys.containerName]: container.name,
    },
    annotations,
    logPath,
    linux: { securityContext: { namespaceOptions: HOST_NETWORK } },
  };
}
