import type { CriClient } from '@kruise/cri/client';
import {
  type HandlerTarget,
  type LifecycleHandler,
  stopContainerGracefully,
} from '@kruise/cri/lifecycle-handler';
import {
  CRI_CONTAINER_NAME_LABEL,
  CRI_POD_NAME_LABEL,
  CRI_POD_NAMESPACE_LABEL,
  CRI_POD_TERMINATION_GRACE_PERIOD_ANNOTATION,
  CRI_POD_UID_LABEL,
  CRI_PRESTOP_HANDLER_ANNOTATION,
} from '@kruise/kube-compat';
import { Controller } from '@kruise/runtime/controller/controller';
import type { EventRecorder } from '@kruise/runtime/events/recorder';
import type { Logger } from '@kruise/runtime/log/logger';
import { ItemExponentialRateLimiter } from '@kruise/runtime/queue/rate-limiter';

/** Upstream's restarter: 10 workers, each container's restarts backed off from 3 s to 10 min. */
const WORKERS = 10;
const BACKOFF_BASE_MS = 3000;
const BACKOFF_MAX_MS = 10 * 60_000;
const PORTS_ANNOTATION = 'io.kubernetes.container.ports';

/** What the restarter works with. */
export interface RestarterDeps {
  cri: CriClient;
  recorder: EventRecorder;
  log: Logger;
  /** The pod's IP from the cache (network preStop hooks), if known. */
  podIP: (namespace: string, name: string) => string | undefined;
}

const parseJSON = <T>(text: string | undefined): T | undefined => {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
};

/**
 * containermeta's restarter: stops a running container whose env from metadata is stale, as
 * kubelet's KillContainer does with the pod restored from the container's own labels — a
 * `Killing` event, its preStop hook, its pod's grace period — and kubelet then starts it again
 * with the env resolved anew. Rate limited per container as upstream (`addRateLimited`: the first
 * restart waits 3 s, repeated ones back off up to 10 min until one succeeds).
 */
export class ContainerRestarter {
  readonly controller: Controller;
  private readonly d: RestarterDeps;

  constructor(deps: RestarterDeps) {
    this.d = deps;
    this.controller = new Controller({
      name: 'containermeta-restarter',
      workers: WORKERS,
      logger: deps.log,
      rateLimiter: new ItemExponentialRateLimiter<string>(BACKOFF_BASE_MS, BACKOFF_MAX_MS),
      reconcile: (ctx, key) => this.restart(ctx.log, key),
    });
  }

  /** Asks for a restart of `containerID` (`<runtime>://<id>`), rate limited. */
  enqueue(containerID: string): void {
    this.controller.queue.addRateLimited(containerID);
  }

  start(): void {
    this.controller.start();
  }

  stop(): Promise<void> {
    return this.controller.stop(5000);
  }

  private async restart(log: Logger, containerID: string): Promise<undefined> {
    const id = containerID.slice(containerID.indexOf('://') + 3);
    const { containers } = await this.d.cri.listContainers({ id });
    const c = containers[0];
    if (!c || String(c.state) !== 'CONTAINER_RUNNING') return undefined;
    const labels = c.labels ?? {};
    const annotations = c.annotations ?? {};
    const namespace = labels[CRI_POD_NAMESPACE_LABEL] ?? '';
    const podName = labels[CRI_POD_NAME_LABEL] ?? '';
    const containerName = labels[CRI_CONTAINER_NAME_LABEL] ?? c.metadata?.name ?? '';
    this.d.recorder.event(
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { namespace, name: podName, uid: labels[CRI_POD_UID_LABEL] },
      },
      'Normal',
      'Killing',
      `Stopping containerID ${containerID} by container meta restarter`,
    );
    const preStop = parseJSON<LifecycleHandler>(annotations[CRI_PRESTOP_HANDLER_ANNOTATION]);
    const grace = Number(annotations[CRI_POD_TERMINATION_GRACE_PERIOD_ANNOTATION] ?? 30);
    const target: HandlerTarget = {
      containerId: id,
      containerName,
      podIP: this.d.podIP(namespace, podName) ?? '127.0.0.1',
      ports: parseJSON<HandlerTarget['ports']>(annotations[PORTS_ANNOTATION]),
    };
    const failure = await stopContainerGracefully(
      this.d.cri,
      target,
      preStop,
      Number.isFinite(grace) ? grace : 30,
    );
    if (failure) log.warn({ container: containerName, err: failure }, 'preStop hook failed');
    log.info(
      { pod: `${namespace}/${podName}`, container: containerName },
      'container stopped for its env from metadata',
    );
    return undefined;
  }
}
