import { kubeTime } from '@kruise/kube-compat';
import type {
  Container,
  ContainerStateTerminated,
  ContainerStatus,
  Pod,
  PodCondition,
  PodSpec,
  PodStatus,
} from 'kubernetes-types/core/v1.js';
import { type ComputeResources, changedResources, podQOSClass } from './container-resources.ts';
import { podPhase } from './pod-phase.ts';
import { isRestartableInit } from './termination-ordering.ts';

/** One CRI container of a pod, as the local node sees it. */
export interface RuntimeContainer {
  id: string;
  name: string;
  attempt: number;
  state: string;
  /** RFC 3339 times (undefined when the runtime reports 0). */
  startedAt?: string;
  finishedAt?: string;
  exitCode: number;
  reason: string;
  message: string;
  /** The image the container was created from (the pod spec's image at that time). */
  image: string;
  /** The image the runtime ran (its repo digest or ID): the status's imageID. */
  imageRef: string;
  /** kubelet's container hash recorded on the container (0 when missing). */
  hash: number;
  /** The cpu/memory the container was created with (undefined for containers of older local nodes). */
  resources?: ComputeResources;
}

/** A container's `terminated` state as the pod status shows it. */
export type TerminatedState = ContainerStateTerminated;

/** What the pod status is computed from. */
export interface PodRuntimeView {
  /** The latest container of each name (highest attempt). */
  latest: Map<string, RuntimeContainer>;
  /** Containers whose postStart hook has completed (they may be reported ready). */
  started: Set<string>;
  /** Why a container is not running yet (ContainerCreating, CrashLoopBackOff …). */
  waiting: Map<string, { reason: string; message?: string }>;
  /** The terminated state of each container's previous instance. */
  lastStates: Map<string, TerminatedState>;
  runtimeName: string;
  hostIP: string;
  /** The pod's IP: its sandbox's, the host's for a host-network pod ('' before the sandbox has one). */
  podIP: string;
  /** Per container: the cpu/memory allocated to it and applied to its cgroups (kubelet 1.33 status). */
  resources?: Map<string, { allocated: ComputeResources; applied: ComputeResources }>;
  /** Why a resize waits (PodResizePending), if it does. */
  resizePending?: { reason: string; message: string };
  /** Why actuating an allocated resize failed (PodResizeInProgress reason Error), if it did. */
  resizeError?: { reason: string; message: string };
  /** What the probes say of a running container (no probes: started and ready). */
  probes?: { started(id: string): boolean; ready(id: string): boolean };
}

/** A pod condition as kubelet writes it (`lastProbeTime: null`, which the Go type serializes). */
export type KubeletCondition = Omit<PodCondition, 'lastProbeTime'> & { lastProbeTime: null };

/** The pod status kubelet writes. */
export type KubeletPodStatus = Omit<PodStatus, 'conditions'> & { conditions: KubeletCondition[] };

/** Nanoseconds since the epoch (as a decimal string) to RFC 3339 seconds, undefined for 0. */
export function nanosToRFC3339(ns: string | number | undefined): string | undefined {
  const n = BigInt(ns ?? 0);
  if (n <= 0n) return undefined;
  return kubeTime(Number(n / 1_000_000n));
}

/** Whether kubelet would start this exited container again under the pod's restartPolicy. */
export function shouldRestart(restartPolicy: string | undefined, exitCode: number): boolean {
  if (restartPolicy === 'Never') return false;
  if (restartPolicy === 'OnFailure') return exitCode !== 0;
  return true;
}

/** A container's terminated state (also its `lastState` once it is replaced). */
export function terminatedOf(c: RuntimeContainer, runtimeName: string): TerminatedState {
  return {
    exitCode: c.exitCode,
    reason: c.reason || (c.exitCode === 0 ? 'Completed' : 'Error'),
    ...(c.message ? { message: c.message } : {}),
    ...(c.startedAt ? { startedAt: c.startedAt } : {}),
    ...(c.finishedAt ? { finishedAt: c.finishedAt } : {}),
    containerID: `${runtimeName}://${c.id}`,
  };
}

/** The `containerStatuses` entry of one spec container. */
export function containerStatus(spec: Container, view: PodRuntimeView): ContainerStatus {
  const c = view.latest.get(spec.name);
  const last = view.lastStates.get(spec.name);
  const base: ContainerStatus = {
    name: spec.name,
    // The running container's image (the spec's until one exists), as kubelet reports it.
    image: c?.image || spec.image || '',
    imageID: c?.imageRef ?? '',
    restartCount: c?.attempt ?? 0,
    ready: false,
    started: false,
    lastState: last ? { terminated: last } : {},
  };
  if (c) base.containerID = `${view.runtimeName}://${c.id}`;
  const res = view.resources?.get(spec.name);
  if (res && Object.keys(res.allocated.requests).length) base.allocatedResources = res.allocated.requests;
  if (res && c?.state === 'CONTAINER_RUNNING') base.resources = structuredClone(res.applied);
  const waiting = view.waiting.get(spec.name);
  if (c?.state === 'CONTAINER_RUNNING' && !waiting) {
    base.state = { running: { startedAt: c.startedAt ?? kubeTime() } };
    base.started = view.probes?.started(c.id) ?? true;
    base.ready = view.started.has(spec.name) && (view.probes?.ready(c.id) ?? true);
  } else if (c?.state === 'CONTAINER_EXITED' && !waiting) {
    base.state = { terminated: terminatedOf(c, view.runtimeName) };
  } else {
    base.state = { waiting: waiting ?? { reason: 'ContainerCreating' } };
  }
  return base;
}

function condition(
  old: PodCondition[],
  type: string,
  ok: boolean,
  reason?: string,
  message?: string,
): KubeletCondition {
  const status = ok ? 'True' : 'False';
  const prev = old.find((c) => c.type === type);
  return {
    type,
    status,
    lastProbeTime: null,
    lastTransitionTime: prev?.status === status ? prev.lastTransitionTime : kubeTime(),
    ...(reason && !ok ? { reason } : {}),
    ...(message && !ok ? { message } : {}),
  };
}

/** kubelet's condition for a pod in a terminal phase: False with reason PodCompleted or PodFailed. */
function terminalCondition(old: PodCondition[], type: string, phase: string): KubeletCondition {
  return condition(old, type, false, phase === 'Succeeded' ? 'PodCompleted' : 'PodFailed');
}

/**
 * kubelet's GeneratePodInitializedCondition: True once every regular init container exited 0 and
 * every native sidecar has started, or once an app container has run (a sidecar restarting later
 * does not take it back); else False with the incomplete containers named.
 */
function initializedCondition(
  old: PodCondition[],
  spec: Partial<PodSpec>,
  initStatuses: ContainerStatus[],
  statuses: ContainerStatus[],
  phase: string,
): KubeletCondition {
  if (phase === 'Succeeded') return { ...condition(old, 'Initialized', true), reason: 'PodCompleted' };
  const incomplete = (spec.initContainers ?? [])
    .filter((c) => {
      const s = initStatuses.find((x) => x.name === c.name);
      if (isRestartableInit(c)) return !s?.started;
      return s?.state?.terminated?.exitCode !== 0;
    })
    .map((c) => c.name);
  const appRan = statuses.some((s) => s.state?.running || s.state?.terminated);
  return condition(
    old,
    'Initialized',
    appRan || incomplete.length === 0,
    'ContainersNotInitialized',
    `containers with incomplete status: [${incomplete.join(' ')}]`,
  );
}

/**
 * The pod status kubelet would write: phase, the conditions kubelet owns (PodScheduled,
 * Initialized, ContainersReady, Ready — Ready also requires every readiness gate's condition to be
 * True), init and regular containerStatuses, host and pod IPs (host network). Native sidecars (init
 * containers with restartPolicy Always) report started/ready from their probes and count toward
 * the pod's readiness. `terminal`: the pod's containers are stopped for good (a finished job pod).
 */
export function computePodStatus(pod: Pod, view: PodRuntimeView, terminal = false): KubeletPodStatus {
  const spec: Partial<PodSpec> = pod.spec ?? {};
  const old = pod.status?.conditions ?? [];
  const statuses = (spec.containers ?? []).map((c) => containerStatus(c, view));
  const initSpecs = spec.initContainers ?? [];
  const initStatuses = initSpecs.map((c) => containerStatus(c, view));
  initStatuses.forEach((s, i) => {
    if (!isRestartableInit(initSpecs[i])) s.ready = s.state?.terminated?.exitCode === 0;
  });
  const phase = podPhase(spec, initStatuses, statuses, terminal);
  const initialized = initializedCondition(old, spec, initStatuses, statuses, phase);
  // kubelet's GenerateContainersReadyCondition: the sidecars first, then the app containers
  const notReady = [
    ...initStatuses.filter((s, i) => isRestartableInit(initSpecs[i]) && !s.ready),
    ...statuses.filter((s) => !s.ready),
  ].map((s) => s.name);
  const containersReady = notReady.length === 0 && initialized.status === 'True';
  const gates = (spec.readinessGates ?? []).map((g) => g.conditionType);
  // kubelet's GeneratePodReadyCondition: a message per gate whose condition is absent or not True
  const unreadyGates = gates.flatMap((g) => {
    const c = old.find((x) => x.type === g);
    if (!c) return [`corresponding condition of pod readiness gate "${g}" does not exist.`];
    return c.status === 'True'
      ? []
      : [`the status of pod readiness gate "${g}" is not "True", but ${c.status}`];
  });
  const ready = containersReady && unreadyGates.length === 0;
  const readyMessage = !containersReady
    ? `containers with unready status: [${notReady.join(' ')}]`
    : unreadyGates.join(', ');
  const ended = phase === 'Succeeded' || phase === 'Failed';
  const conditions = [
    initialized,
    ended
      ? terminalCondition(old, 'Ready', phase)
      : condition(
          old,
          'Ready',
          ready,
          containersReady ? 'ReadinessGatesNotReady' : 'ContainersNotReady',
          readyMessage,
        ),
    ended
      ? terminalCondition(old, 'ContainersReady', phase)
      : condition(
          old,
          'ContainersReady',
          containersReady,
          'ContainersNotReady',
          `containers with unready status: [${notReady.join(' ')}]`,
        ),
    condition(old, 'PodScheduled', true),
  ];
  if (view.resizePending)
    conditions.push({
      type: 'PodResizePending',
      status: 'True',
      lastProbeTime: null,
      lastTransitionTime: old.find((c) => c.type === 'PodResizePending')?.lastTransitionTime ?? kubeTime(),
      ...view.resizePending,
    });
  // kubelet 1.33: an allocated resize not yet actuated (allocated != actual) is in progress.
  const resizing = [...(view.resources?.values() ?? [])].some(
    (r) => changedResources(r.allocated, r.applied).length > 0,
  );
  if (resizing)
    conditions.push({
      type: 'PodResizeInProgress',
      status: 'True',
      lastProbeTime: null,
      lastTransitionTime: old.find((c) => c.type === 'PodResizeInProgress')?.lastTransitionTime ?? kubeTime(),
      ...view.resizeError,
    });
  return {
    phase,
    conditions,
    hostIP: view.hostIP,
    hostIPs: [{ ip: view.hostIP }],
    ...(view.podIP ? { podIP: view.podIP, podIPs: [{ ip: view.podIP }] } : {}),
    startTime: pod.status?.startTime ?? kubeTime(),
    ...(initStatuses.length ? { initContainerStatuses: initStatuses } : {}),
    containerStatuses: statuses,
    qosClass: pod.status?.qosClass ?? podQOSClass(pod),
  };
}
