import type { CriClient } from '@kruise/cri/client';
import { isCriNotFound } from '@kruise/cri/errors';
import {
  MIN_STOP_GRACE_SECONDS,
  runLifecycleHandler,
  stopContainerGracefully,
} from '@kruise/cri/lifecycle-handler';
import type { Logger } from '@kruise/runtime';
import type { Container } from 'kubernetes-types/core/v1.js';
import type { AllocationManager } from './allocation-manager.ts';
import { apiServerForPod, kubernetesServiceEnv } from './api-server-env.ts';
import type { BoundPod } from './bound-pod.ts';
import { type EnvSources, resolveEnv } from './container-env.ts';
import { computeResourcesOf, linuxResources } from './container-resources.ts';
import { ensureImage } from './image-pull.ts';
import { containerConfig, sandboxConfig } from './kubelet-metadata.ts';
import type { PodLogs } from './pod-logs.ts';
import type { Sandbox } from './pod-sandbox.ts';
import { type RuntimeContainer, type TerminatedState, terminatedOf } from './pod-status.ts';
import type { PodVolumes } from './pod-volumes.ts';
import type { PodRuntimeCache } from './runtime-cache.ts';
import { imageUserOf, linuxContainerSecurityContext, verifyRunAsNonRoot } from './security-context.ts';
import type { TerminationOrdering } from './termination-ordering.ts';

/** What one container's step did: how long to wait before looking again (0: nothing pending), whether it changed the runtime. */
export interface Step {
  waitMs: number;
  acted: boolean;
}

/** Records one of kubelet's events on a pod. */
export type PodEventSink = (
  pod: BoundPod,
  type: 'Normal' | 'Warning',
  reason: string,
  message: string,
) => void;

/** What the local node remembers of one pod's containers between syncs. */
export interface ContainerMemory {
  /** Containers whose postStart finished. */
  started: Set<string>;
  /** Why a container is not running yet (ContainerCreating, CrashLoopBackOff …). */
  waiting: Map<string, { reason: string; message?: string }>;
  /** The terminated state of each container's previous instance. */
  lastStates: Map<string, TerminatedState>;
  /** The pod's volumes as last set up (name → directory on the node), which its containers mount. */
  volumes?: Awaited<ReturnType<PodVolumes['setUp']>>;
}

/** What the container lifecycle works with. */
export interface ContainerLifecycleDeps {
  cri: CriClient;
  node: string;
  hostIP: string;
  runtimeName: string;
  logs: PodLogs;
  log: Logger;
  volumes: PodVolumes;
  envSources: EnvSources;
  allocatable: Record<string, string>;
  memoryCapacityBytes: number;
  /** The API server's URL as the node reaches it (the `kubernetes` Service's variables point pods at it). */
  apiServer?: string;
  /** Where a started container's cpu/memory is recorded as allocated and applied. */
  allocations: AllocationManager;
  /** Where a killed container is read back from before its next attempt starts. */
  runtime: PodRuntimeCache;
  event: PodEventSink;
}

/**
 * kubelet's kuberuntime_container: starts a container (image, env, mounts, cgroups, log, then
 * its postStart hook), starts the next attempt of an exited one, and kills a running one
 * (the Killing event, preStop, StopContainer); it keeps what it learned of each pod's containers.
 */
export class ContainerLifecycle {
  private readonly d: ContainerLifecycleDeps;
  /** Per pod UID: containers whose postStart finished, waiting reasons, and previous terminated states. */
  private readonly memory = new Map<string, ContainerMemory>();

  constructor(deps: ContainerLifecycleDeps) {
    this.d = deps;
  }

  /** What is remembered of the pod's containers; after a restart of the local node, read from the pod status. */
  memoryOf(pod: BoundPod): ContainerMemory {
    const uid = pod.metadata.uid;
    let m = this.memory.get(uid);
    if (!m) {
      m = { started: new Set(), waiting: new Map(), lastStates: new Map() };
      for (const s of [
        ...(pod.status?.containerStatuses ?? []),
        ...(pod.status?.initContainerStatuses ?? []),
      ]) {
        if (s.lastState?.terminated) m.lastStates.set(s.name, s.lastState.terminated);
        if (s.ready) m.started.add(s.name);
      }
      this.memory.set(uid, m);
    }
    return m;
  }

  /** Forgets a pod that is gone. */
  forget(uid: string): void {
    this.memory.delete(uid);
  }

  /** Creates and starts one container at `attempt`, then runs its postStart hook. */
  async start(pod: BoundPod, container: Container, attempt: number, sandbox: Sandbox): Promise<string> {
    const m = this.memoryOf(pod);
    await ensureImage(this.d.cri, container);
    // kubelet's generateContainerConfig: the image's user, checked against runAsNonRoot
    const imageUser = imageUserOf((await this.d.cri.imageStatus(container.image ?? '')).image);
    verifyRunAsNonRoot(pod, container, imageUser);
    const env = await resolveEnv(
      pod,
      container,
      {
        hostIP: this.d.hostIP,
        podIP: sandbox.podIP,
        allocatable: this.d.allocatable,
        serviceEnv: this.d.apiServer
          ? kubernetesServiceEnv(
              apiServerForPod(this.d.apiServer, pod.spec.hostNetwork === true, sandbox.podIP),
            )
          : undefined,
      },
      this.d.envSources,
      (w) => this.d.event(pod, 'Warning', w.reason, w.message),
    );
    const mounts = this.d.volumes.mounts(container, m.volumes ?? new Map(), env);
    const applied = computeResourcesOf(container);
    const linux = linuxResources(pod, applied, this.d.memoryCapacityBytes);
    const log = this.d.logs.prepareContainerLog(pod, container.name, attempt);
    const id = await this.d.cri.createContainer(
      sandbox.id,
      containerConfig(
        pod,
        container,
        attempt,
        log.path,
        env,
        mounts,
        { applied, linux },
        linuxContainerSecurityContext(pod, container, imageUser),
      ),
      sandboxConfig(pod, this.d.node, log.directory),
    );
    await this.d.cri.startContainer(id);
    this.d.allocations.of(pod.metadata.uid).resources.set(container.name, { allocated: applied, applied });
    m.started.delete(container.name);
    const postStart = container.lifecycle?.postStart;
    if (postStart) {
      const failure = await runLifecycleHandler(
        this.d.cri,
        postStart,
        { containerId: id, containerName: container.name, podIP: sandbox.podIP, ports: container.ports },
        pod.spec.terminationGracePeriodSeconds ?? 30,
      );
      if (failure) {
        this.d.log.warn(
          { pod: pod.metadata.name, container: container.name, err: failure },
          'postStart hook failed',
        );
        await this.d.cri.stopContainer(id, MIN_STOP_GRACE_SECONDS).catch(() => undefined);
        return id;
      }
    }
    m.started.add(container.name);
    return id;
  }

  /**
   * Starts attempt + 1 of a container whose `previous` instance has exited; the dead instances stay
   * until the container garbage collection (kubelet's: the newest dead one is kept).
   */
  async restart(
    pod: BoundPod,
    container: Container,
    previous: RuntimeContainer,
    sandbox: Sandbox,
  ): Promise<Step> {
    const m = this.memoryOf(pod);
    m.lastStates.set(container.name, terminatedOf(previous, this.d.runtimeName));
    m.waiting.set(container.name, { reason: 'ContainerCreating' });
    await this.start(pod, container, previous.attempt + 1, sandbox);
    m.waiting.delete(container.name);
    this.d.logs.prune(pod, container.name, previous.attempt);
    return { waitMs: 0, acted: true };
  }

  /**
   * Kills a running container (`why` gives the Killing event) and starts its next attempt: a
   * changed spec, a failed probe, a resize that requires a restart.
   */
  async replace(
    pod: BoundPod,
    container: Container,
    latest: RuntimeContainer,
    sandbox: Sandbox,
    grace: number,
    why: { reason: string; message: string },
  ): Promise<Step> {
    await this.kill(pod, latest, container, grace, why);
    const stopped = await this.d.runtime.reread(latest);
    return await this.restart(pod, container, stopped ?? latest, sandbox);
  }

  /**
   * kubelet's killContainer: the Killing event (`Stopping container <name>` unless a reason is
   * given), preStop, then StopContainer with what is left of `grace`; with an `ordering` (a pod with
   * native sidecars being stopped whole), a sidecar waits for its turn between the two.
   */
  async kill(
    pod: BoundPod,
    c: RuntimeContainer,
    spec: Container | undefined,
    grace: number,
    why: { reason: string; message: string } = { reason: 'Killing', message: `Stopping container ${c.name}` },
    ordering?: TerminationOrdering,
  ): Promise<void> {
    this.d.event(pod, 'Normal', why.reason, why.message);
    const podIP = pod.status?.podIP ?? this.d.hostIP;
    const target = { containerId: c.id, containerName: c.name, podIP, ports: spec?.ports };
    const turn = ordering && ((left: number) => ordering.waitForTurn(c.name, left));
    try {
      const failure = await stopContainerGracefully(
        this.d.cri,
        target,
        spec?.lifecycle?.preStop,
        grace,
        turn,
      ).catch((err) => {
        if (!isCriNotFound(err)) throw err;
        return undefined;
      });
      if (failure)
        this.d.log.warn({ pod: pod.metadata.name, container: c.name, err: failure }, 'preStop hook failed');
    } finally {
      ordering?.terminated(c.name);
    }
  }
}
