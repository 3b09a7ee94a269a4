import { kubeletContainerHash, kubeletContainerIdentity, parseKubeletContainerHash } from '@kruise/api';
import type { CriClient } from '@kruise/cri/client';
import { isCriNotFound } from '@kruise/cri/errors';
import type { Container as CriContainer } from '@kruise/cri/generated/runtime/v1/Container';
import type { ContainerStatus__Output } from '@kruise/cri/generated/runtime/v1/ContainerStatus';
import {
  MIN_STOP_GRACE_SECONDS,
  runLifecycleHandler,
  stopContainerGracefully,
} from '@kruise/cri/lifecycle-handler';
import {
  type EventRecorder,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type Logger,
  Resources,
} from '@kruise/runtime';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { type EnvSources, resolveEnv } from './container-env.ts';
import {
  type ComputeResources,
  changedResources,
  computeResourcesOf,
  deferredResize,
  infeasibleResize,
  linuxResources,
} from './container-resources.ts';
import { containerConfig, KubeletKeys, sandboxConfig } from './kubelet-metadata.ts';
import type { PodLogs } from './pod-logs.ts';
import {
  computePodStatus,
  type KubeletPodStatus,
  nanosToRFC3339,
  type PodRuntimeView,
  type RuntimeContainer,
  shouldRestart,
  type TerminatedState,
  terminatedOf,
} from './pod-status.ts';
import type { PodVolumes } from './pod-volumes.ts';
import type { Prober } from './prober.ts';
import type { RestartBackoff } from './restart-backoff.ts';

/** What a pod runner works with. */
export interface PodRunnerDeps {
  cri: CriClient;
  client: KubeClient;
  node: string;
  hostIP: string;
  runtimeName: string;
  backoff: RestartBackoff;
  /** Where the runtime writes container logs (kubelet's /var/log/pods layout). */
  logs: PodLogs;
  /** kubelet's events (Killing …) on the pods. */
  events: EventRecorder;
  log: Logger;
  /** Startup, readiness and liveness probes of running containers. */
  prober: Prober;
  /** The machine's memory (Burstable pods' oom_score_adj is scaled by it). */
  memoryCapacityBytes: number;
  /** The pods' volumes. */
  volumes: PodVolumes;
  /** How often a running pod with configMap/secret/downwardAPI/projected volumes is synced again, so they follow their sources (kubelet: 1 min). */
  volumeResyncMs?: number;
  /** ConfigMaps and Secrets that env values name. */
  envSources: EnvSources;
  /** The node's allocatable resources (limits of containers that set none, for the downward API). */
  allocatable: Record<string, string>;
  /** How soon a container that could not start is tried again (kubelet's pod worker: 10 s). */
  retryMs?: number;
  /** Why the runtime's network is not ready (kubelet's words), or undefined when it is. */
  networkNotReady?: () => string | undefined;
}

/** A pod's sandbox: its ID and the pod's IP. */
interface Sandbox {
  id: string;
  podIP: string;
}

/** A pod outside the host network cannot start while the runtime's network is not ready. */
class NetworkNotReadyError extends Error {
  constructor(why: string) {
    super(`network is not ready: ${why}`);
  }
}

/** A pod as the runner reads it: bound, so metadata and spec are there. */
export type BoundPod = Pod & {
  metadata: { name: string; namespace: string; uid: string };
  spec: NonNullable<Pod['spec']>;
};

/** What one container's step did: how long to wait before looking again (0: nothing pending), whether it changed the runtime. */
interface Step {
  waitMs: number;
  acted: boolean;
}

/** A CRI container and its status as the local node reads them back. */
export function runtimeContainerOf(c: CriContainer, status: ContainerStatus__Output): RuntimeContainer {
  const { name, attempt } = kubeletContainerIdentity(c);
  return {
    id: status.id || c.id!,
    name,
    attempt,
    state: status.state,
    startedAt: nanosToRFC3339(status.startedAt),
    finishedAt: nanosToRFC3339(status.finishedAt),
    exitCode: status.exitCode ?? 0,
    reason: status.reason ?? '',
    message: status.message ?? '',
    image: c.image?.image ?? '',
    imageRef: status.imageRef ?? '',
    hash: parseKubeletContainerHash(c.annotations?.[KubeletKeys.hash]),
    resources: readResources(c.annotations?.[KubeletKeys.resources]),
  };
}

function readResources(text: string | undefined): ComputeResources | undefined {
  try {
    return text ? (JSON.parse(text) as ComputeResources) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs pods through CRI the way kubelet does: one sandbox per pod, init containers one by one,
 * then the containers in spec order (postStart blocking the next), restarts per restartPolicy
 * with crash-loop back-off, graceful termination with preStop, and the pod status written back.
 */
export class PodRunner {
  private readonly d: PodRunnerDeps;
  /** Per pod UID: containers whose postStart finished, waiting reasons, and previous terminated states. */
  private readonly memory = new Map<
    string,
    {
      started: Set<string>;
      waiting: Map<string, { reason: string; message?: string }>;
      lastStates: Map<string, TerminatedState>;
      /** Per container: the cpu/memory allocated to it and applied to its cgroups. */
      resources: Map<string, { allocated: ComputeResources; applied: ComputeResources }>;
      /** Why the last resize could not be allocated. */
      resizePending?: { reason: string; message: string };
      /** Why actuating the allocated resize failed (PodResizeInProgress reason Error). */
      resizeError?: { reason: string; message: string };
      /** The pod's volumes as last set up (name → directory on the node). */
      volumes?: Awaited<ReturnType<PodVolumes['setUp']>>;
    }
  >();

  /**
   * Per pod UID: its containers as a sync last read them (kubelet's PLEG cache; the sandbox is in
   * `sandboxes`), and the epoch they were read in. A sync whose pod's containers did not change
   * since reads nothing from the runtime (a pod update such as a readiness-gate condition only
   * recomputes the status); the relist bumps the epoch when it sees them change (`invalidate`).
   */
  private readonly views = new Map<string, { epoch: number; history: Map<string, RuntimeContainer[]> }>();
  private readonly epochs = new Map<string, number>();
  /** Per pod UID: the statuses of its exited containers, which never change (read once each). */
  private readonly exited = new Map<string, Map<string, RuntimeContainer>>();
  /** Per pod UID: its sandbox and the pod's IP, which never change while the sandbox lives (read once). */
  private readonly sandboxes = new Map<string, Sandbox>();

  constructor(deps: PodRunnerDeps) {
    this.d = deps;
  }

  /** The relist saw the pod's containers change: its next sync reads the runtime again. */
  invalidate(uid: string): void {
    this.epochs.set(uid, (this.epochs.get(uid) ?? 0) + 1);
  }

  private mem(pod: BoundPod) {
    const uid = pod.metadata.uid;
    let m = this.memory.get(uid);
    if (!m) {
      m = {
        started: new Set(),
        waiting: new Map(),
        lastStates: new Map(),
        resources: new Map(),
      };
      // After a restart of the local node, what it knew is in the pod status.
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

  /** Records one of kubelet's events on the pod. */
  event(pod: BoundPod, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.d.events.event({ ...pod, apiVersion: 'v1', kind: 'Pod' } as KubeObject, type, reason, message);
  }

  /** Every CRI container of a pod, newest attempt first per name. */
  async containers(uid: string): Promise<Map<string, RuntimeContainer[]>> {
    const { containers } = await this.d.cri.listContainers({ labelSelector: { [KubeletKeys.podUid]: uid } });
    const byName = new Map<string, RuntimeContainer[]>();
    const known = this.exited.get(uid);
    const exited = new Map<string, RuntimeContainer>();
    for (const c of containers) {
      let rc = known?.get(c.id);
      if (!rc) {
        const status = await this.statusOf(c.id);
        if (!status) continue;
        rc = runtimeContainerOf(c, status);
      }
      if (rc.state === 'CONTAINER_EXITED') exited.set(c.id, rc);
      const list = byName.get(rc.name) ?? [];
      list.push(rc);
      byName.set(rc.name, list);
    }
    for (const list of byName.values()) list.sort((a, b) => b.attempt - a.attempt);
    this.exited.set(uid, exited);
    return byName;
  }

  /**
   * The ready sandbox of a pod, started when missing, and the pod's IP: the host's in the host
   * network, else the one the runtime's CNI gave the sandbox (kubelet reads it from
   * PodSandboxStatus). A pod outside the host network waits while the runtime's network is not
   * ready, as kubelet's pod workers do.
   */
  private async sandbox(pod: BoundPod): Promise<Sandbox> {
    const { items } = await this.d.cri.listPodSandbox({
      labelSelector: { [KubeletKeys.podUid]: pod.metadata.uid },
      state: { state: 'SANDBOX_READY' },
    });
    let id = items[0]?.id;
    const known = this.sandboxes.get(pod.metadata.uid);
    if (id && known?.id === id) return known;
    if (!id) {
      const notReady = pod.spec.hostNetwork ? undefined : this.d.networkNotReady?.();
      if (notReady) throw new NetworkNotReadyError(notReady);
      // The directory itself is made with the first container's log (the sandbox writes none).
      id = await this.d.cri.runPodSandbox(sandboxConfig(pod, this.d.node, this.d.logs.podDirectory(pod)));
    }
    const podIP = pod.spec.hostNetwork
      ? this.d.hostIP
      : ((await this.d.cri.podSandboxStatus(id)).status?.network?.ip ?? '');
    const sandbox = { id, podIP };
    this.sandboxes.set(pod.metadata.uid, sandbox);
    return sandbox;
  }

  private async ensureImage(container: Container): Promise<void> {
    const image = container.image ?? '';
    const policy = container.imagePullPolicy ?? 'IfNotPresent';
    if (policy !== 'Always' && (await this.d.cri.imageStatus(image)).image) return;
    if (policy === 'Never')
      throw Object.assign(new Error(`Container image "${image}" is not present with pull policy of Never`), {
        reason: 'ErrImageNeverPull',
      });
    try {
      await this.d.cri.pullImage(image, {}, { timeoutMs: 10 * 60_000 });
    } catch (err) {
      throw Object.assign(new Error((err as Error).message), { reason: 'ErrImagePull' });
    }
  }

  /** Creates and starts one container at `attempt`, then runs its postStart hook. */
  private async start(
    pod: BoundPod,
    container: Container,
    attempt: number,
    sandbox: Sandbox,
  ): Promise<string> {
    const m = this.mem(pod);
    await this.ensureImage(container);
    const env = await resolveEnv(
      pod,
      container,
      { hostIP: this.d.hostIP, podIP: sandbox.podIP, allocatable: this.d.allocatable },
      this.d.envSources,
      (w) => this.event(pod, 'Warning', w.reason, w.message),
    );
    const mounts = this.d.volumes.mounts(container, m.volumes ?? new Map(), env);
    const applied = computeResourcesOf(container);
    const linux = linuxResources(pod, applied, this.d.memoryCapacityBytes);
    const log = this.d.logs.prepareContainerLog(pod, container.name, attempt);
    const id = await this.d.cri.createContainer(
      sandbox.id,
      containerConfig(pod, container, attempt, log.path, env, mounts, { applied, linux }),
      sandboxConfig(pod, this.d.node, log.directory),
    );
    await this.d.cri.startContainer(id);
    m.resources.set(container.name, { allocated: applied, applied });
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
   * Moves one container toward running, as kubelet's computePodActions does: start it; restart it
   * after back-off when it exited and the policy says so; kill and start again a running container
   * whose spec hash changed (an image update), at once and whatever the policy. Returns how long
   * to wait before looking again and whether it changed anything in the runtime.
   */
  private async step(
    pod: BoundPod,
    container: Container,
    history: RuntimeContainer[] | undefined,
    sandbox: Sandbox,
    policy: string,
  ): Promise<Step> {
    const m = this.mem(pod);
    const latest = history?.[0];
    const hash = kubeletContainerHash(container);
    try {
      if (!latest) {
        m.waiting.set(container.name, { reason: 'ContainerCreating' });
        await this.start(pod, container, 0, sandbox);
        m.waiting.delete(container.name);
        return { waitMs: 0, acted: true };
      }
      if (latest.state === 'CONTAINER_CREATED') {
        await this.d.cri.startContainer(latest.id);
        m.started.add(container.name);
        return { waitMs: 0, acted: true };
      }
      if (latest.state === 'CONTAINER_RUNNING') {
        const grace = pod.spec.terminationGracePeriodSeconds ?? 30;
        if (latest.hash !== hash) {
          await this.kill(pod, latest, container, grace, {
            reason: 'Killing',
            message: `Container ${container.name} definition changed, will be restarted`,
          });
          const stopped = await this.container(latest);
          return await this.restart(pod, container, stopped ?? latest, sandbox);
        }
        const failed = this.d.prober.failure(latest.id);
        if (!failed) return await this.resize(pod, container, latest, sandbox);
        // A failed liveness or startup probe: killed, and started again unless the policy is Never.
        const again = policy !== 'Never';
        await this.kill(pod, latest, container, failed.graceSeconds ?? grace, {
          reason: 'Killing',
          message: `Container ${container.name} failed ${failed.type.toLowerCase()} probe${again ? ', will be restarted' : ''}`,
        });
        if (!again) return { waitMs: 0, acted: true };
        const stopped = await this.container(latest);
        return await this.restart(pod, container, stopped ?? latest, sandbox);
      }
      if (latest.state !== 'CONTAINER_EXITED' || !shouldRestart(policy, latest.exitCode))
        return { waitMs: 0, acted: false };
      // kubelet's back-off key has the container's hash: a changed spec starts without waiting.
      const key = `${pod.metadata.uid}/${container.name}/${hash}`;
      const finished = Date.parse(latest.finishedAt ?? '') || Date.now();
      const wait = this.d.backoff.remaining(key, finished);
      if (wait > 0) {
        m.waiting.set(container.name, {
          reason: 'CrashLoopBackOff',
          message: `back-off ${Math.round(this.d.backoff.current(key) / 1000)}s restarting failed container=${container.name} pod=${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`,
        });
        return { waitMs: wait, acted: false };
      }
      this.d.backoff.next(key, finished);
      return await this.restart(pod, container, latest, sandbox);
    } catch (err) {
      const reason = (err as { reason?: string }).reason ?? 'CreateContainerError';
      const message = (err as Error).message;
      if (reason === 'CreateContainerConfigError' || reason === 'CreateContainerError') {
        // kubelet's event (repeats add to one Event's count).
        this.event(pod, 'Warning', 'Failed', `Error: ${message}`);
      }
      m.waiting.set(container.name, { reason, message });
      this.d.log.warn(
        { pod: pod.metadata.name, container: container.name, err: (err as Error).message },
        'container did not start',
      );
      return { waitMs: this.d.retryMs ?? 5000, acted: true };
    }
  }

  /**
   * kubelet 1.33's in-place resize of a running container whose cpu/memory spec differs from what
   * was allocated to it. A new request is admitted first: Infeasible (PodResizePending) when the
   * pod's requests exceed the node's allocatable, Deferred when they do not fit beside the other
   * pods' allocated requests (tried again every retry period), else allocated — the status then
   * says PodResizeInProgress until the next pass actuates it, with UpdateContainerResources or, when
   * the container's resizePolicy says RestartContainer for a changed resource, by a restart. A
   * failed update keeps PodResizeInProgress with reason Error and is tried again.
   */
  private async resize(
    pod: BoundPod,
    container: Container,
    latest: RuntimeContainer,
    sandbox: Sandbox,
  ): Promise<Step> {
    const m = this.mem(pod);
    const desired = computeResourcesOf(container);
    const known = m.resources.get(container.name);
    const applied = known?.applied ?? latest.resources ?? desired;
    const allocated = known?.allocated ?? applied;
    if (changedResources(allocated, desired).length) {
      const infeasible = infeasibleResize(pod, this.d.allocatable);
      const deferred = infeasible
        ? undefined
        : deferredResize(pod, this.othersAllocated(pod), this.d.allocatable);
      m.resources.set(container.name, { allocated, applied });
      if (infeasible) m.resizePending = { reason: 'Infeasible', message: infeasible };
      if (deferred) m.resizePending = { reason: 'Deferred', message: deferred };
      if (infeasible || deferred) return { waitMs: deferred ? (this.d.retryMs ?? 5000) : 0, acted: false };
      m.resizePending = undefined;
      m.resizeError = undefined;
      m.resources.set(container.name, { allocated: desired, applied });
      return { waitMs: 1, acted: false };
    }
    m.resizePending = undefined;
    const changed = changedResources(applied, allocated);
    if (!changed.length) {
      if (!known) m.resources.set(container.name, { allocated, applied });
      return { waitMs: 0, acted: false };
    }
    const restart = changed.some(
      (r) => container.resizePolicy?.find((p) => p.resourceName === r)?.restartPolicy === 'RestartContainer',
    );
    if (restart) {
      await this.kill(pod, latest, container, pod.spec.terminationGracePeriodSeconds ?? 30, {
        reason: 'Killing',
        message: `Container ${container.name} resize requires restart`,
      });
      const stopped = await this.container(latest);
      return await this.restart(pod, container, stopped ?? latest, sandbox);
    }
    try {
      await this.d.cri.updateContainerResources(
        latest.id,
        linuxResources(pod, allocated, this.d.memoryCapacityBytes),
      );
    } catch (err) {
      m.resizeError = { reason: 'Error', message: (err as Error).message };
      return { waitMs: this.d.retryMs ?? 5000, acted: false };
    }
    m.resizeError = undefined;
    m.resources.set(container.name, { allocated, applied: allocated });
    return { waitMs: 0, acted: true };
  }

  /** The cpu/memory requests allocated to the node's other pods' containers. */
  private othersAllocated(pod: BoundPod): ComputeResources[] {
    return [...this.memory]
      .filter(([uid]) => uid !== pod.metadata.uid)
      .flatMap(([, m]) => [...m.resources.values()].map((r) => r.allocated));
  }

  /**
   * Starts attempt + 1 of a container whose `previous` instance has exited; the dead instances stay
   * until the container garbage collection (kubelet's: the newest dead one is kept).
   */
  private async restart(
    pod: BoundPod,
    container: Container,
    previous: RuntimeContainer,
    sandbox: Sandbox,
  ): Promise<Step> {
    const m = this.mem(pod);
    m.lastStates.set(container.name, terminatedOf(previous, this.d.runtimeName));
    m.waiting.set(container.name, { reason: 'ContainerCreating' });
    await this.start(pod, container, previous.attempt + 1, sandbox);
    m.waiting.delete(container.name);
    this.d.logs.prune(pod, container.name, previous.attempt);
    return { waitMs: 0, acted: true };
  }

  /** A container's status as the runtime has it now (undefined when it is gone). */
  private async statusOf(id: string): Promise<ContainerStatus__Output | undefined> {
    try {
      return (await this.d.cri.containerStatus(id)).status ?? undefined;
    } catch (err) {
      if (isCriNotFound(err)) return undefined;
      throw err;
    }
  }

  /**
   * One container read again (undefined when it is gone): its status, with the image it was
   * created from (a status names the image by its first tag, which may be another of its tags).
   */
  private async container(c: RuntimeContainer): Promise<RuntimeContainer | undefined> {
    const status = await this.statusOf(c.id);
    return status && runtimeContainerOf({ ...status, id: c.id, image: { image: c.image } }, status);
  }

  /**
   * Whether the pod's runtime view, as its last sync left it, is what a relist sees now
   * (`<id>:<state>` of each container): then the change the relist noticed is the sync's own.
   */
  viewMatches(uid: string, listed: ReadonlySet<string>): boolean {
    const view = this.views.get(uid);
    if (!view || view.epoch !== (this.epochs.get(uid) ?? 0)) return false;
    const seen = [...view.history.values()].flat();
    return seen.length === listed.size && seen.every((c) => listed.has(`${c.id}:${c.state}`));
  }

  /** Brings a pod bound to this node to its spec and writes its status; returns when to look again. */
  async sync(pod: BoundPod): Promise<number | undefined> {
    if (pod.metadata.deletionTimestamp) {
      await this.terminate(pod);
      return undefined;
    }
    if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return undefined;
    const m = this.mem(pod);
    const steps: Step[] = [];
    let mounted = true;
    try {
      m.volumes = await this.d.volumes.setUp(pod);
    } catch (err) {
      // kubelet's volume manager: the pod waits in ContainerCreating, the event says why.
      mounted = false;
      this.event(pod, 'Warning', 'FailedMount', (err as Error).message);
      steps.push({ waitMs: this.d.retryMs ?? 5000, acted: false });
    }
    const epoch = this.epochs.get(pod.metadata.uid) ?? 0;
    const cached = this.views.get(pod.metadata.uid);
    // taken, not shared: a sync that fails half-way leaves the next one to read the runtime
    this.views.delete(pod.metadata.uid);
    const fresh = cached?.epoch === epoch ? cached : undefined;
    let sandbox: Sandbox;
    try {
      // a fresh view: the sandbox it was read with still stands, no need to list it again
      sandbox = (fresh && this.sandboxes.get(pod.metadata.uid)) ?? (await this.sandbox(pod));
    } catch (err) {
      if (!(err instanceof NetworkNotReadyError)) throw err;
      // kubelet's pod worker: the event, and the pod left as it is until the network is ready
      this.event(pod, 'Warning', 'NetworkNotReady', err.message);
      return this.d.retryMs ?? 10_000;
    }
    const policy = pod.spec.restartPolicy ?? 'Always';
    let history = fresh?.history ?? (await this.containers(pod.metadata.uid));
    let initialized = true;
    for (const ic of pod.spec.initContainers ?? []) {
      if (!mounted) break;
      const latest = history.get(ic.name)?.[0];
      if (latest?.state === 'CONTAINER_EXITED' && latest.exitCode === 0) continue;
      initialized = false;
      if (!latest || latest.state === 'CONTAINER_EXITED' || latest.state === 'CONTAINER_CREATED')
        steps.push(
          await this.step(pod, ic, history.get(ic.name), sandbox, policy === 'Never' ? 'Never' : 'OnFailure'),
        );
      break;
    }
    if (initialized && mounted)
      for (const c of pod.spec.containers ?? [])
        steps.push(await this.step(pod, c, history.get(c.name), sandbox, policy));
    // Read the runtime again only when a step changed it.
    if (steps.some((x) => x.acted)) history = await this.containers(pod.metadata.uid);
    // kept under the epoch it was read in: a change the relist saw meanwhile leaves it unused
    this.views.set(pod.metadata.uid, { epoch, history });
    this.d.prober.update(
      pod.metadata.uid,
      (pod.spec.containers ?? []).flatMap((spec) => {
        const c = history.get(spec.name)?.[0];
        return c?.state === 'CONTAINER_RUNNING'
          ? [
              {
                podUid: pod.metadata.uid,
                podIP: sandbox.podIP,
                id: c.id,
                spec,
                startedAtMs: Date.parse(c.startedAt ?? '') || Date.now(),
              },
            ]
          : [];
      }),
    );
    const view: PodRuntimeView = {
      latest: new Map([...history].map(([k, v]) => [k, v[0]!])),
      started: m.started,
      waiting: m.waiting,
      lastStates: m.lastStates,
      // (set only when every init container had already exited 0, which no step changes)
      initialized,
      runtimeName: this.d.runtimeName,
      hostIP: this.d.hostIP,
      podIP: sandbox.podIP,
      probes: this.d.prober,
      resources: m.resources,
      resizePending: m.resizePending,
      resizeError: m.resizeError,
    };
    await this.writeStatus(pod, computePodStatus(pod, view));
    const pending = steps.map((x) => x.waitMs).filter((w) => w > 0);
    if ((pod.spec.volumes ?? []).some((v) => v.configMap || v.secret || v.downwardAPI || v.projected))
      pending.push(this.d.volumeResyncMs ?? 60_000);
    return pending.length ? Math.min(...pending) : undefined;
  }

  private async writeStatus(pod: BoundPod, status: KubeletPodStatus): Promise<void> {
    const own = (s: { conditions?: { type: string }[] } | undefined) =>
      (s?.conditions ?? [])
        .filter((c) => KUBELET_CONDITIONS.has(c.type))
        .sort((a, b) => a.type.localeCompare(b.type));
    const view = (s: Record<string, unknown> | undefined) =>
      JSON.stringify(
        Object.keys(status).map((k) =>
          k === 'conditions' ? own(s as { conditions?: { type: string }[] }) : (s?.[k] ?? null),
        ),
      );
    if (view(pod.status as Record<string, unknown> | undefined) === view(status)) return;
    // Conditions kubelet set before and no longer wants go, as kubelet's status patch removes them.
    const gone = (pod.status?.conditions ?? []).filter(
      (c) => KUBELET_CONDITIONS.has(c.type) && !status.conditions.some((n) => n.type === c.type),
    );
    const body = gone.length
      ? {
          status: {
            ...status,
            conditions: [...status.conditions, ...gone.map((c) => ({ type: c.type, $patch: 'delete' }))],
          },
        }
      : { status };
    await this.d.client.request(
      'PATCH',
      `/api/v1/namespaces/${encodeURIComponent(pod.metadata.namespace)}/pods/${encodeURIComponent(pod.metadata.name)}/status`,
      { body, contentType: 'application/strategic-merge-patch+json' },
    );
  }

  /**
   * Stops a deleting pod as kubelet does: every running container at once, preStop first, then
   * StopContainer with what is left of the grace period (at least 2 s); then the sandbox; then
   * the final status and the deletion with grace 0 (UID precondition).
   */
  async terminate(pod: BoundPod): Promise<void> {
    const uid = pod.metadata.uid;
    const grace = pod.metadata.deletionGracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? 30;
    const history = await this.containers(uid);
    const specs = new Map<string, Container>(
      [...(pod.spec.initContainers ?? []), ...(pod.spec.containers ?? [])].map((c) => [c.name, c]),
    );
    await Promise.all(
      [...history.values()]
        .map((h) => h[0]!)
        .filter((c) => c.state === 'CONTAINER_RUNNING')
        .map((c) => this.kill(pod, c, specs.get(c.name), grace)),
    );
    await this.removeSandboxes(uid);
    try {
      await this.d.client.delete(Resources.Pod, pod.metadata.namespace, pod.metadata.name, {
        gracePeriodSeconds: 0,
        preconditions: { uid },
      });
    } catch (err) {
      if (!isNotFound(err) && (err as { statusCode?: number }).statusCode !== 409) throw err;
    }
    this.d.log.info({ pod: `${pod.metadata.namespace}/${pod.metadata.name}` }, 'pod terminated');
  }

  /**
   * kubelet's killContainer: the Killing event (`Stopping container <name>` unless a reason is
   * given), preStop, then StopContainer with what is left of `grace`.
   */
  private async kill(
    pod: BoundPod,
    c: RuntimeContainer,
    spec: Container | undefined,
    grace: number,
    why: { reason: string; message: string } = { reason: 'Killing', message: `Stopping container ${c.name}` },
  ): Promise<void> {
    this.event(pod, 'Normal', why.reason, why.message);
    const podIP = pod.status?.podIP ?? this.d.hostIP;
    const target = { containerId: c.id, containerName: c.name, podIP, ports: spec?.ports };
    const failure = await stopContainerGracefully(this.d.cri, target, spec?.lifecycle?.preStop, grace).catch(
      (err) => {
        if (!isCriNotFound(err)) throw err;
        return undefined;
      },
    );
    if (failure)
      this.d.log.warn({ pod: pod.metadata.name, container: c.name, err: failure }, 'preStop hook failed');
  }

  /** Stops and removes every sandbox (and so every container) of a pod UID, and forgets the pod. */
  async removeSandboxes(uid: string): Promise<void> {
    const { items } = await this.d.cri.listPodSandbox({ labelSelector: { [KubeletKeys.podUid]: uid } });
    for (const s of items) {
      await this.d.cri.stopPodSandbox(s.id).catch(() => undefined);
      await this.d.cri.removePodSandbox(s.id).catch(() => undefined);
    }
    this.memory.delete(uid);
    this.views.delete(uid);
    this.epochs.delete(uid);
    this.exited.delete(uid);
    this.sandboxes.delete(uid);
    this.d.prober.forgetPod(uid);
    this.d.volumes.tearDown(uid);
    this.d.backoff.forgetPod(uid);
    this.d.logs.removePod(uid);
  }
}

/** The pod conditions kubelet owns; the others (readiness gates) belong to their controllers. */
const KUBELET_CONDITIONS = new Set([
  'Initialized',
  'Ready',
  'ContainersReady',
  'PodScheduled',
  'PodResizePending',
  'PodResizeInProgress',
]);
