import type { ContainerConfig } from '@kruise/cri/generated/runtime/v1/ContainerConfig';
import type { LinuxContainerResources } from '@kruise/cri/generated/runtime/v1/LinuxContainerResources';
import type { LinuxContainerSecurityContext } from '@kruise/cri/generated/runtime/v1/LinuxContainerSecurityContext';
import type { Mount } from '@kruise/cri/generated/runtime/v1/Mount';
import type { PodSandboxConfig } from '@kruise/cri/generated/runtime/v1/PodSandboxConfig';
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
} from '@kruise/kube-compat';
import type { Container } from 'kubernetes-types/core/v1.js';
import type { BoundPod } from './bound-pod.ts';
import type { ComputeResources } from './container-resources.ts';
import { expandCommandAndArgs } from './env-expansion.ts';
import { sandboxSecurityContext } from './security-context.ts';

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
  /** Not kubelet's (kubelet reads them back from the runtime): the cpu/memory a container was created with. */
  resources: 'kruise.io/local-node-resources',
} as const;

/**
 * kubelet's namespacesForPod: the pod's own network (the runtime's CNI gives it an IP) unless
 * hostNetwork, a process namespace per container unless shareProcessNamespace or hostPID, the
 * pod's IPC namespace unless hostIPC.
 */
export function namespaceOptions(pod: BoundPod) {
  const s = pod.spec;
  return {
    network: s.hostNetwork ? 'NODE' : 'POD',
    pid: s.hostPID ? 'NODE' : s.shareProcessNamespace ? 'POD' : 'CONTAINER',
    ipc: s.hostIPC ? 'NODE' : 'POD',
  } as const;
}

/** kubelet's pod hostname: spec.hostname, else the pod's name cut to 63 characters without a trailing `-` or `.`. */
export function podHostname(pod: BoundPod): string {
  return pod.spec.hostname || pod.metadata.name.slice(0, 63).replace(/[-.]+$/, '');
}

/** The CRI sandbox config of a pod, labelled as kubelet labels it, its logs under `logDirectory`. */
export function sandboxConfig(pod: BoundPod, node: string, logDirectory = '', attempt = 0): PodSandboxConfig {
  const m = pod.metadata;
  return {
    metadata: { name: m.name, uid: m.uid, namespace: m.namespace, attempt },
    // (a host-network pod shares the node's UTS namespace, and so its hostname)
    hostname: pod.spec.hostNetwork ? '' : podHostname(pod),
    logDirectory,
    labels: {
      [KubeletKeys.podUid]: m.uid,
      [KubeletKeys.podName]: m.name,
      [KubeletKeys.podNamespace]: m.namespace,
    },
    annotations: { ...(m.annotations ?? {}), [KubeletKeys.localNode]: node },
    linux: { securityContext: { ...sandboxSecurityContext(pod), namespaceOptions: namespaceOptions(pod) } },
  };
}

/**
 * The CRI container config of one of a pod's containers at restart `attempt`, labelled as kubelet
 * labels it, its log at `logPath` (relative to the sandbox's log directory), its environment `env`
 * (resolved by resolveEnv) with `$(VAR)` in command and args expanded from it, its volume `mounts`
 * its cgroup `resources` and its `security` context (security-context.ts).
 */
export function containerConfig(
  pod: BoundPod,
  container: Container,
  attempt: number,
  logPath = '',
  env: Map<string, string> = new Map(),
  mounts: Mount[] = [],
  resources?: { applied: ComputeResources; linux: LinuxContainerResources },
  security: LinuxContainerSecurityContext = {},
): ContainerConfig {
  const { command, args } = expandCommandAndArgs(container, env);
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
  if (resources) annotations[KubeletKeys.resources] = JSON.stringify(resources.applied);
  return {
    metadata: { name: container.name, attempt },
    image: { image: container.image },
    command,
    args,
    workingDir: container.workingDir ?? '',
    envs: [...env].map(([key, value]) => ({ key, value })),
    mounts,
    labels: {
      [KubeletKeys.podUid]: m.uid,
      [KubeletKeys.podName]: m.name,
      [KubeletKeys.podNamespace]: m.namespace,
      [KubeletKeys.containerName]: container.name,
    },
    annotations,
    logPath,
    linux: {
      resources: resources?.linux,
      securityContext: { ...security, namespaceOptions: namespaceOptions(pod) },
    },
  };
}
