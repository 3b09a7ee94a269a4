import {
  type ContainerRecreateRequest,
  type ContainerRecreateRequestContainer,
  type ContainerRecreateState,
  CRR_ACTIVE_LABEL,
  CRR_NODE_NAME_LABEL,
  CRR_POD_UID_LABEL,
  CRR_UNREADY_ACQUIRED_ANNOTATION,
} from '@kruise/api';
import { KruiseResources } from '@kruise/api/kinds';
import type { CriClient } from '@kruise/cri/client';
import {
  type HandlerTarget,
  type LifecycleHandler,
  stopContainerGracefully,
} from '@kruise/cri/lifecycle-handler';
import { CRI_POD_UID_LABEL, kubeletContainerIdentity, kubeTime } from '@kruise/kube-compat';
import { newController } from '@kruise/runtime/controller/builder';
import type { Controller } from '@kruise/runtime/controller/controller';
import { type Request, requestKey } from '@kruise/runtime/controller/request';
import type { EventRecorder } from '@kruise/runtime/events/recorder';
import { ResourceVersionExpectations } from '@kruise/runtime/expectations/resource-version';
import { Informer } from '@kruise/runtime/informer/informer';
import { withoutManagedFields } from '@kruise/runtime/informer/trim';
import type { KubeClient, KubeObject } from '@kruise/runtime/kube/client';
import { isConflict, isNotFound } from '@kruise/runtime/kube/errors';
import { Resources } from '@kruise/runtime/kube/resources';
import type { Logger } from '@kruise/runtime/log/logger';
import { type NodeContainer, nextStates, pickRequest } from './states.ts';

type Crr = ContainerRecreateRequest & KubeObject;

/** What the executor works with. */
export interface CrrExecutorDeps {
  node: string;
  client: KubeClient;
  cri: CriClient;
  /** The runtime's name, the prefix of container IDs it owns (`containerd`). */
  runtimeName: string;
  recorder: EventRecorder;
  log: Logger;
  workers?: number;
  /** Called once a container has been stopped for a request (metrics). */
  onStop?: (crr: Crr, container: string) => void;
  /** Counts expectations dropped at their timeout (metrics). */
  expectationTimeouts?: { inc(labels: { controller: string }): void };
}

const BY_POD = 'pod';
const CONTROLLER = 'containerrecreaterequest-daemon';
/** How long a sync waits for the cache to show this daemon's own last write (upstream: 10 s). */
const EXPECTATION_TIMEOUT_MS = 10_000;
/** The request a ContainerRecreateRequest's events map to: its pod (one request per pod at a time). */
const podOf = (c: Crr): Request => ({ namespace: c.metadata?.namespace ?? '', name: c.spec?.podName ?? '' });
const done = (s: ContainerRecreateState) => s.phase === 'Succeeded' || s.phase === 'Failed';

/**
 * kruise-daemon's ContainerRecreateRequest executor: watches the active requests of its node,
 * works on one request per pod at a time (a controller on the contract, ADR 0028, whose requests
 * are pods), and moves each container through upstream's state machine — stopping it through CRI
 * after its preStop hook, then waiting until kubelet has started it again and it has been ready
 * long enough. A request never waits for an unrelated event: finishing one immediately takes up the pod's next (#1626).
 */
export class CrrExecutor {
  readonly informer: Informer<Crr>;
  readonly controller: Controller;
  private readonly d: CrrExecutorDeps;
  /** Per request UID: containers this daemon has stopped (kept when a status write is lost). */
  private readonly killed = new Map<string, Set<string>>();
  /** Stops in progress, by `requestUID/container`. */
  private readonly stopping = new Map<string, Promise<void>>();
  /** Stops that failed and are not yet recorded in the states, by `requestUID/container`. */
  private readonly stopFailures = new Map<string, string>();
  /** Per request: the resourceVersion of this daemon's last write, until the cache shows it. */
  private readonly expected: ResourceVersionExpectations;

  constructor(deps: CrrExecutorDeps) {
    this.d = deps;
    this.expected = new ResourceVersionExpectations({
      controller: CONTROLLER,
      timeoutMs: EXPECTATION_TIMEOUT_MS,
      logger: deps.log,
      timeouts: deps.expectationTimeouts,
    });
    this.informer = new Informer<Crr>(deps.client, {
      resource: KruiseResources.ContainerRecreateRequest,
      labelSelector: `${CRR_NODE_NAME_LABEL}=${deps.node},${CRR_ACTIVE_LABEL}=true`,
      logger: deps.log,
      transform: withoutManagedFields,
    });
    this.informer.addIndex(BY_POD, (c) => [requestKey(podOf(c))]);
    this.controller = newController(
      {
        name: CONTROLLER,
        workers: deps.workers ?? 32,
        reconcile: (ctx, req) => this.sync(ctx.log, requestKey(req)),
      },
      { logger: deps.log },
    ).watches(this.informer, {
      add: podOf,
      update: (_o, n) => {
        this.expected.observe(n);
        return podOf(n);
      },
      delete: (c) => {
        this.killed.delete(c.metadata?.uid ?? '');
        this.expected.delete(c);
        return podOf(c);
      },
    }).controller;
  }

  /** Starts watching and working. */
  start(): void {
    this.informer.start();
    this.controller.start();
  }

  /** Whether the request informer has listed. */
  hasSynced(): boolean {
    return this.informer.hasSynced();
  }

  /** Stops working; container stops in progress get up to 5 s to finish. */
  async stop(): Promise<void> {
    await this.controller.stop(5000);
    await Promise.race([
      Promise.all(this.stopping.values()),
      new Promise((r) => setTimeout(r, 5000).unref()),
    ]);
    await this.informer.stop();
  }

  /** Merge-patches the status, guarded by the cached resourceVersion; returns the stored object. */
  private async writeStatus(crr: Crr, status: Record<string, unknown>): Promise<Crr> {
    const updated = await this.d.client.mergePatchStatus<Crr>(
      KruiseResources.ContainerRecreateRequest,
      crr.metadata!.namespace,
      crr.metadata!.name!,
      { metadata: { resourceVersion: crr.metadata?.resourceVersion }, status },
    );
    this.expected.expect(updated);
    return updated;
  }

  private async complete(crr: Crr, message: string, states?: ContainerRecreateState[]): Promise<void> {
    await this.writeStatus(crr, {
      phase: 'Completed',
      completionTime: kubeTime(),
      message,
      ...(states ? { containerRecreateStates: states } : {}),
    });
    this.killed.delete(crr.metadata!.uid!);
  }

  private async sync(log: Logger, key: string): Promise<{ requeueAfterMs?: number } | undefined> {
    const { current, waiting } = pickRequest(this.informer.byIndex(BY_POD, key));
    for (const w of waiting) {
      await this.writeStatus(w, { phase: 'Pending' }).catch((err) => {
        if (!isConflict(err) && !isNotFound(err)) throw err;
      });
    }
    if (!current) return undefined;
    // The cache must show this daemon's last write first (or the expectation times out).
    if (!this.expected.isSatisfied(current)) return { requeueAfterMs: 50 };
    try {
      const result = await this.work(log, current);
      if (result === 'completed') return { requeueAfterMs: 1 };
      return result;
    } catch (err) {
      if (isConflict(err)) return { requeueAfterMs: 20 };
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private async work(
    log: Logger,
    cached: Crr,
  ): Promise<'completed' | { requeueAfterMs?: number } | undefined> {
    let crr = cached;
    const unreadyGrace = crr.spec?.strategy?.unreadyGracePeriodSeconds;
    // Recreating is written on its own only when the manager must see it first (to hold the pod
    // not-ready); otherwise it goes out with the first container states, after the first stop.
    const recreating = crr.status?.phase === 'Recreating';
    if (!recreating && unreadyGrace != null) crr = await this.writeStatus(crr, { phase: 'Recreating' });
    if (unreadyGrace != null) {
      const acquired = crr.metadata?.annotations?.[CRR_UNREADY_ACQUIRED_ANNOTATION];
      if (!acquired) return undefined;
      const at = Date.parse(acquired);
      if (Number.isNaN(at)) {
        await this.complete(crr, `failed to parse unready-acquired time ${acquired}`);
        return 'completed';
      }
      const left = at + unreadyGrace * 1000 - Date.now();
      if (left > 0) return { requeueAfterMs: left + 100 };
    }
    const containers = crr.spec?.containers ?? [];
    const prefixes = new Set(containers.map((c) => (c.statusContext?.containerID ?? '').split('://')[0]));
    const prefix = [...prefixes][0] ?? '';
    if (prefixes.size !== 1 || prefix !== this.d.runtimeName) {
      await this.complete(
        crr,
        `failed to find runtime service: ${prefixes.size > 1 ? 'containers of several runtimes' : `no runtime service for ${prefix || 'an empty containerID'}`}`,
      );
      return 'completed';
    }
    const onNode =
      (await this.stillRunning(crr)) ??
      (await this.nodeContainers(
        crr.metadata?.labels?.[CRR_POD_UID_LABEL] ?? '',
        (crr.spec?.strategy?.minStartedSeconds ?? 0) > 0,
      ));
    const killed = this.killed.get(crr.metadata!.uid!) ?? new Set<string>();
    this.killed.set(crr.metadata!.uid!, killed);
    const { states, recheckAt } = nextStates(crr, onNode, killed, Date.now());
    const failFast = (crr.spec?.strategy?.failurePolicy ?? 'Fail') === 'Fail';
    const next = states.map((s) => ({ ...s }));
    for (let i = 0; i < containers.length; i++) {
      const s = next[i]!;
      if (s.phase === 'Succeeded') continue;
      if (s.phase === 'Failed') {
        if (failFast) {
          await this.complete(crr, '', next);
          return 'completed';
        }
        continue;
      }
      if (s.phase === 'Recreating') {
        if (crr.spec?.strategy?.orderedRecreate) break;
        continue;
      }
      const onNodeNow = onNode.get(s.name);
      if (!onNodeNow) {
        // Not on the node (yet): nothing to stop; activeDeadlineSeconds bounds the wait.
        if (crr.spec?.strategy?.orderedRecreate) break;
        continue;
      }
      // The stop (preStop, then StopContainer) runs beside the queue, so a long preStop never holds
      // a worker; when it ends the pod is synced again and the outcome lands in the states.
      // (Upstream stops one container per sync and holds a worker for the whole stop.)
      const stopKey = `${crr.metadata!.uid}/${s.name}`;
      const failure = this.stopFailures.get(stopKey);
      if (failure !== undefined) {
        this.stopFailures.delete(stopKey);
        next[i] = { name: s.name, phase: 'Failed', message: `kill container error: ${failure}` };
        if (failFast) break;
        continue;
      }
      if (!this.stopping.has(stopKey)) {
        const podKey = `${crr.metadata!.namespace}/${crr.spec!.podName}`;
        const stop = this.kill(log, crr, containers[i]!, onNodeNow)
          .then((err) => {
            if (err === undefined) killed.add(s.name);
            else this.stopFailures.set(stopKey, err);
          })
          .finally(() => {
            this.stopping.delete(stopKey);
            this.controller.enqueue(podKey);
          });
        this.stopping.set(stopKey, stop);
      }
      // Ordered: the next container waits for this one to succeed; unordered: all stop at once.
      if (crr.spec?.strategy?.orderedRecreate) break;
    }
    if (next.every(done)) {
      await this.complete(crr, '', next);
      return 'completed';
    }
    // One write per sync, after the stop: the observed states and the stop's outcome together
    // (and the Recreating phase, unless it went out before the unready grace period).
    if (crr.status?.phase !== 'Recreating')
      await this.writeStatus(crr, { phase: 'Recreating', containerRecreateStates: next });
    else if (JSON.stringify(next) !== JSON.stringify(crr.status?.containerRecreateStates ?? []))
      await this.writeStatus(crr, { containerRecreateStates: next });
    const min = crr.spec?.strategy?.minStartedSeconds ?? 0;
    if (recheckAt) return { requeueAfterMs: Math.max(1, recheckAt - Date.now()) };
    return min > 0 ? { requeueAfterMs: min * 1000 } : undefined;
  }

  /**
   * The fast path of a request's first sync: when every container it names is still the running
   * container of its statusContext, those are the pod's current containers (kubelet starts a new
   * attempt only after the old one exits) — one ContainerStatus each, no ListContainers of the
   * whole node. Undefined when any of them is not (then the full listing decides).
   */
  private async stillRunning(crr: Crr): Promise<Map<string, NodeContainer> | undefined> {
    if (crr.status?.containerRecreateStates?.length) return undefined;
    const out = new Map<string, NodeContainer>();
    for (const c of crr.spec?.containers ?? []) {
      const containerID = c.statusContext?.containerID ?? '';
      const id = containerID.slice(containerID.indexOf('://') + 3);
      if (!id) return undefined;
      const status = await this.d.cri.containerStatus(id).then(
        (r) => r.status,
        () => undefined,
      );
      if (status?.state !== 'CONTAINER_RUNNING') return undefined;
      out.set(c.name, {
        containerID,
        restartCount: kubeletContainerIdentity(status).attempt,
        exited: false,
        startedAtMs: Number(BigInt(status.startedAt ?? 0) / 1_000_000n),
      });
    }
    return out;
  }

  /**
   * The newest CRI container of each name in a pod: one ListContainers, plus a ContainerStatus per
   * container only when the request needs start times (minStartedSeconds).
   */
  private async nodeContainers(podUid: string, withStartTimes: boolean): Promise<Map<string, NodeContainer>> {
    const { containers } = await this.d.cri.listContainers({
      labelSelector: { [CRI_POD_UID_LABEL]: podUid },
    });
    const newest = new Map<string, { attempt: number; id: string; state: string }>();
    for (const c of containers) {
      const { name, attempt } = kubeletContainerIdentity(c);
      const prev = newest.get(name);
      if (!prev || attempt > prev.attempt) newest.set(name, { attempt, id: c.id, state: String(c.state) });
    }
    const out = new Map<string, NodeContainer>();
    for (const [name, { attempt, id, state }] of newest) {
      let startedAtMs = 0;
      if (withStartTimes) {
        const status = (await this.d.cri.containerStatus(id)).status;
        if (!status) continue;
        startedAtMs = Number(BigInt(status.startedAt ?? 0) / 1_000_000n);
      }
      out.set(name, {
        containerID: `${this.d.runtimeName}://${id}`,
        restartCount: attempt,
        exited: state === 'CONTAINER_EXITED',
        startedAtMs,
      });
    }
    return out;
  }

  /**
   * Stops one container as kubelet's KillContainer does: a `Killing` event, the preStop hook for at
   * most the grace period, then StopContainer with what is left of it (at least 2 s).
   * Resolves with an error text when the stop failed.
   */
  private async kill(
    log: Logger,
    crr: Crr,
    spec: ContainerRecreateRequestContainer,
    current: NodeContainer,
  ): Promise<string | undefined> {
    const ns = crr.metadata!.namespace!;
    const podName = crr.spec!.podName;
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: podName, namespace: ns, uid: crr.metadata?.labels?.[CRR_POD_UID_LABEL] },
    };
    this.d.recorder.event(
      pod,
      'Normal',
      'Killing',
      `Stopping container ${spec.name} by ContainerRecreateRequest ${crr.metadata!.name}`,
    );
    const id = current.containerID.slice(current.containerID.indexOf('://') + 3);
    // The stand-in pod's grace: the request's, else 30 s (kubelet's default).
    const grace = crr.spec?.strategy?.terminationGracePeriodSeconds ?? 30;
    const preStop = spec.preStop as LifecycleHandler | undefined;
    const podIP = preStop && !preStop.exec ? await this.podIP(ns, podName) : '';
    try {
      const failure = await stopContainerGracefully(
        this.d.cri,
        { containerId: id, containerName: spec.name, podIP, ports: spec.ports as HandlerTarget['ports'] },
        preStop,
        grace,
      );
      if (failure) log.warn({ container: spec.name, err: failure }, 'preStop hook failed');
      this.d.onStop?.(crr, spec.name);
      log.info({ pod: `${ns}/${podName}`, container: spec.name }, 'container stopped for recreation');
      return undefined;
    } catch (err) {
      return (err as Error).message;
    }
  }

  private async podIP(namespace: string, name: string): Promise<string> {
    try {
      const pod = await this.d.client.get(Resources.Pod, namespace, name);
      return pod.status?.podIP ?? '127.0.0.1';
    } catch {
      return '127.0.0.1';
    }
  }
}
