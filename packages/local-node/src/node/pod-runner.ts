import type { CriClient } from '@kruise/cri/client';
import { kubeletContainerHash } from '@kruise/kube-compat';
import {
  type EventRecorder,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type Logger,
  Resources,
} from '@kruise/runtime';
import type { Container } from 'kubernetes-types/core/v1.js';
import { AllocationManager } from './allocation-manager.ts';
import type { BoundPod } from './bound-pod.ts';
import type { EnvSources } from './container-env.ts';
import { ContainerLifecycle, type Step } from './container-lifecycle.ts';
import { appContainersDone, planInitContainers } from './init-containers.ts';
import type { PodLogs } from './pod-logs.ts';
import { type PodResizeDeps, resizeContainer } from './pod-resize.ts';
import { NetworkNotReadyError, PodSandboxes, type Sandbox } from './pod-sandbox.ts';
import { computePodStatus, type PodRuntimeView, type RuntimeContainer, shouldRestart } from './pod-status.ts';
import type { PodVolumes } from './pod-volumes.ts';
import type { Prober } from './prober.ts';
import type { RestartBackoff } from './restart-backoff.ts';
import { type ContainerHistory, PodRuntimeCache } from './runtime-cache.ts';
import { writePodStatus } from './status-manager.ts';
import { hasRestartableInit, isRestartableInit, TerminationOrdering } from './termination-ordering.ts';

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
  /** The API server's URL as the node reaches it (pods get the `kubernetes` Service's variables from it). */
  apiServer?: string;
  /** The ServiceAccount tokens of projected volumes, forgotten with their pod. */
  tokens?: { forgetPod(uid: string): void };
}

/**
 * Runs pods through CRI the way kubelet's pod workers do: one sandbox per pod, init containers
 * one by one, then the containers in spec order (postStart blocking the next), restarts per
 * restartPolicy with crash-loop back-off, in-place resizes, graceful termination with preStop,
 * and the pod status written back.
 */
export class PodRunner {
  private readonly d: PodRunnerDeps;
  private readonly sandboxes: PodSandboxes;
  private readonly runtime: PodRuntimeCache;
  private readonly allocations = new AllocationManager();
  private readonly lifecycle: ContainerLifecycle;
  private readonly resize: PodResizeDeps;

  constructor(deps: PodRunnerDeps) {
    this.d = deps;
    this.sandboxes = new PodSandboxes(deps);
    this.runtime = new PodRuntimeCache(deps.cri);
    this.lifecycle = new ContainerLifecycle({
      ...deps,
      allocations: this.allocations,
      runtime: this.runtime,
      event: (pod, type, reason, message) => this.event(pod, type, reason, message),
    });
    this.resize = { ...deps, allocations: this.allocations, lifecycle: this.lifecycle };
  }

  /** The relist saw the pod's containers change: its next sync reads the runtime again. */
  invalidate(uid: string): void {
    this.runtime.invalidate(uid);
  }

  /**
   * Whether the pod's runtime view, as its last sync left it, is what a relist sees now
   * (`<id>:<state>` of each container): then the change the relist noticed is the sync's own.
   */
  viewMatches(uid: string, listed: ReadonlySet<string>): boolean {
    return this.runtime.viewMatches(uid, listed);
  }

  /** Records one of kubelet's events on the pod. */
  event(pod: BoundPod, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.d.events.event({ ...pod, apiVersion: 'v1', kind: 'Pod' } as KubeObject, type, reason, message);
  }

  /**
   * Moves one container toward running, as kubelet's computePodActions does: start it; restart it
   * after back-off when it exited and the policy says so; kill and start again a running container
   * whose spec hash changed (an image update), at once and whatever the policy. Returns how long
   * to wait before looking again and whether it changed anything in the runtime. `sidecar`: a
   * native sidecar (restarted whatever the pod's policy; kubelet's init-container words).
   */
  private async step(
    pod: BoundPod,
    container: Container,
    history: RuntimeContainer[] | undefined,
    sandbox: Sandbox,
    policy: string,
    sidecar = false,
  ): Promise<Step> {
    const m = this.lifecycle.memoryOf(pod);
    const latest = history?.[0];
    const hash = kubeletContainerHash(container);
    try {
      if (!latest) {
        m.waiting.set(container.name, { reason: 'ContainerCreating' });
        await this.lifecycle.start(pod, container, 0, sandbox);
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
        if (latest.hash !== hash)
          return await this.lifecycle.replace(pod, container, latest, sandbox, grace, {
            reason: 'Killing',
            message: sidecar
              ? `Init container ${container.name} definition changed`
              : `Container ${container.name} definition changed, will be restarted`,
          });
        const failed = this.d.prober.failure(latest.id);
        if (!failed) return await resizeContainer(this.resize, pod, container, latest, sandbox);
        // A failed liveness or startup probe: killed, and started again unless the policy is Never.
        const again = policy !== 'Never';
        const why = {
          reason: 'Killing',
          message: sidecar
            ? `Init container ${container.name} failed ${failed.type.toLowerCase()} probe`
            : `Container ${container.name} failed ${failed.type.toLowerCase()} probe${again ? ', will be restarted' : ''}`,
        };
        if (again)
          return await this.lifecycle.replace(
            pod,
            container,
            latest,
            sandbox,
            failed.graceSeconds ?? grace,
            why,
          );
        await this.lifecycle.kill(pod, latest, container, failed.graceSeconds ?? grace, why);
        return { waitMs: 0, acted: true };
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
      return await this.lifecycle.restart(pod, container, latest, sandbox);
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

  /** Brings a pod bound to this node to its spec and writes its status; returns when to look again. */
  async sync(pod: BoundPod): Promise<number | undefined> {
    if (pod.metadata.deletionTimestamp) {
      await this.terminate(pod);
      return undefined;
    }
    if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return undefined;
    const uid = pod.metadata.uid;
    const m = this.lifecycle.memoryOf(pod);
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
    const { epoch, fresh } = this.runtime.take(uid);
    let sandbox: Sandbox;
    try {
      // a fresh view: the sandbox it was read with still stands, no need to list it again
      sandbox = (fresh && this.sandboxes.known(uid)) ?? (await this.sandboxes.ensure(pod));
    } catch (err) {
      if (!(err instanceof NetworkNotReadyError)) throw err;
      // kubelet's pod worker: the event, and the pod left as it is until the network is ready
      this.event(pod, 'Warning', 'NetworkNotReady', err.message);
      return this.d.retryMs ?? 10_000;
    }
    const policy = pod.spec.restartPolicy ?? 'Always';
    let history = fresh ?? (await this.runtime.containers(uid));
    const latest = (name: string) => history.get(name)?.[0];
    const inits = pod.spec.initContainers ?? [];
    const apps = pod.spec.containers ?? [];
    // kubelet: a job pod whose app containers are all done has its native sidecars stopped; it completes
    const done = appContainersDone(apps, latest, policy);
    if (done) {
      const grace = pod.spec.terminationGracePeriodSeconds ?? 30;
      if (await this.stopRunning(pod, history, grace)) steps.push({ waitMs: 0, acted: true });
    } else if (mounted) {
      const created = apps.some((c) => /^CONTAINER_(CREATED|RUNNING)$/.test(latest(c.name)?.state ?? ''));
      const plan = planInitContainers(
        inits,
        latest,
        created,
        (spec, c) => !spec.startupProbe || this.d.prober.startupSucceeded(c.id),
      );
      for (const i of plan.step) {
        const ic = inits[i]!;
        const sidecar = isRestartableInit(ic);
        const own = sidecar ? 'Always' : policy === 'Never' ? 'Never' : 'OnFailure';
        steps.push(await this.step(pod, ic, history.get(ic.name), sandbox, own, sidecar));
      }
      if (plan.initialized)
        for (const c of apps) steps.push(await this.step(pod, c, history.get(c.name), sandbox, policy));
    }
    // Read the runtime again only when a step changed it.
    if (steps.some((x) => x.acted)) history = await this.runtime.containers(uid);
    this.runtime.keep(uid, epoch, history);
    this.d.prober.update(
      uid,
      [...inits.filter(isRestartableInit), ...apps].flatMap((spec) => {
        const c = history.get(spec.name)?.[0];
        return c?.state === 'CONTAINER_RUNNING'
          ? [
              {
                podUid: uid,
                podIP: sandbox.podIP,
                id: c.id,
                spec,
                startedAtMs: Date.parse(c.startedAt ?? '') || Date.now(),
              },
            ]
          : [];
      }),
    );
    const allocation = this.allocations.of(uid);
    const view: PodRuntimeView = {
      latest: new Map([...history].map(([k, v]) => [k, v[0]!])),
      started: m.started,
      waiting: m.waiting,
      lastStates: m.lastStates,
      runtimeName: this.d.runtimeName,
      hostIP: this.d.hostIP,
      podIP: sandbox.podIP,
      probes: this.d.prober,
      resources: allocation.resources,
      resizePending: allocation.resizePending,
      resizeError: allocation.resizeError,
    };
    await writePodStatus(this.d.client, pod, computePodStatus(pod, view, done));
    const pending = steps.map((x) => x.waitMs).filter((w) => w > 0);
    if ((pod.spec.volumes ?? []).some((v) => v.configMap || v.secret || v.downwardAPI || v.projected))
      pending.push(this.d.volumeResyncMs ?? 60_000);
    return pending.length ? Math.min(...pending) : undefined;
  }

  /**
   * Stops a deleting pod as kubelet does: every running container at once, preStop first, then
   * StopContainer with what is left of the grace period (at least 2 s) — native sidecars only once
   * the app containers and the sidecars declared after them have stopped; then the sandbox; then
   * the final status and the deletion with grace 0 (UID precondition).
   */
  async terminate(pod: BoundPod): Promise<void> {
    const uid = pod.metadata.uid;
    const grace = pod.metadata.deletionGracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? 30;
    await this.stopRunning(pod, await this.runtime.containers(uid), grace);
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
   * kubelet's killContainersWithSyncResult: stops every running container of the pod at once,
   * in kubelet's termination order when it has native sidecars. Returns whether any was running.
   */
  private async stopRunning(pod: BoundPod, history: ContainerHistory, grace: number): Promise<boolean> {
    const specs = new Map<string, Container>(
      [...(pod.spec.initContainers ?? []), ...(pod.spec.containers ?? [])].map((c) => [c.name, c]),
    );
    const running = [...history.values()].map((h) => h[0]!).filter((c) => c.state === 'CONTAINER_RUNNING');
    const ordering = hasRestartableInit(pod.spec)
      ? new TerminationOrdering(
          pod.spec,
          running.map((c) => c.name),
        )
      : undefined;
    await Promise.all(
      running.map((c) => this.lifecycle.kill(pod, c, specs.get(c.name), grace, undefined, ordering)),
    );
    return running.length > 0;
  }

  /** Stops and removes every sandbox (and so every container) of a pod UID, and forgets the pod. */
  async removeSandboxes(uid: string): Promise<void> {
    await this.sandboxes.remove(uid);
    this.lifecycle.forget(uid);
    this.allocations.forget(uid);
    this.runtime.forget(uid);
    this.d.prober.forgetPod(uid);
    this.d.volumes.tearDown(uid);
    this.d.tokens?.forgetPod(uid);
    this.d.backoff.forgetPod(uid);
    this.d.logs.removePod(uid);
  }
}
