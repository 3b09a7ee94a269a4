import { currentEnvFromMetadataHash, RUNTIME_CONTAINERS_META_ANNOTATION } from '@kruise/api';
import type { CriClient } from '@kruise/cri/client';
import { newController } from '@kruise/runtime/controller/builder';
import type { Controller } from '@kruise/runtime/controller/controller';
import { type Request, requestFor, requestKey } from '@kruise/runtime/controller/request';
import type { EventRecorder } from '@kruise/runtime/events/recorder';
import { ResourceVersionExpectations } from '@kruise/runtime/expectations/resource-version';
import { Informer } from '@kruise/runtime/informer/informer';
import { withoutManagedFields } from '@kruise/runtime/informer/trim';
import type { KubeClient, KubeObject } from '@kruise/runtime/kube/client';
import { isNotFound } from '@kruise/runtime/kube/errors';
import { Resources } from '@kruise/runtime/kube/resources';
import type { Logger } from '@kruise/runtime/log/logger';
import { ItemExponentialRateLimiter } from '@kruise/runtime/queue/rate-limiter';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { dumpMetaSet, needsSync, parseEnvOutput, readMetaSet, sameMetaSet, syncMetaSet } from './meta.ts';
import { ContainerRestarter } from './restarter.ts';
import { podRuntimeContainers } from './runtime-containers.ts';

type CachedPod = Pod & KubeObject;

/** What containermeta works with. */
export interface ContainerMetaDeps {
  node: string;
  client: KubeClient;
  cri: CriClient;
  /** The runtime's name, the prefix of the container IDs it owns (`containerd`). */
  runtimeName: string;
  recorder: EventRecorder;
  log: Logger;
  /** Gate InPlaceUpdateEnvFromMetadata: read env hashes and restart stale containers. */
  envFromMetadata: boolean;
  /** Counts expectations dropped at their timeout (metrics). */
  expectationTimeouts?: { inc(labels: { controller: string }): void };
}

const CONTROLLER = 'containermeta';
/** Upstream: 5 workers; a failed sync backs off from 500 ms to 50 s. */
const WORKERS = 5;
/** A pod change is synced after this (upstream's enqueue delay), collapsing a burst of updates. */
const ENQUEUE_DELAY_MS = 1000;
/** A container whose env could not be read is looked at again after this. */
const ENV_RETRY_MS = 3000;
/** How long a sync waits for the cache to show this daemon's own status write (upstream: 30 s). */
const EXPECTATION_TIMEOUT_MS = 30_000;
/** `env` in a container gets this long (upstream: 3 s). */
const ENV_EXEC_TIMEOUT_SECONDS = 3;

/** The pod's request, unless it is going away or has no containers yet. */
const syncable = (pod: CachedPod): Request | undefined =>
  pod.metadata?.deletionTimestamp || !pod.status?.containerStatuses?.length ? undefined : requestFor(pod);

/**
 * kruise-daemon's containermeta (gate DaemonWatchingPod): follows the pods on its node, and for
 * those a Kruise workload controls (or a SidecarSet injected) reports
 * `apps.kruise.io/runtime-containers-meta` through pods/status — per container its ID, restart
 * count, kubelet's hash and (gate InPlaceUpdateEnvFromMetadata) the hash of the env from metadata
 * the running container really has, read once per container by exec-ing `env`. While the pod's
 * InPlaceUpdateReady condition is False, a container whose env hash no longer matches the pod's
 * labels and annotations is handed to the restarter. A controller on the contract (ADR 0028).
 */
export class ContainerMetaController {
  readonly informer: Informer<CachedPod>;
  readonly controller: Controller;
  readonly restarter: ContainerRestarter;
  private readonly d: ContainerMetaDeps;
  private readonly expected: ResourceVersionExpectations;

  constructor(deps: ContainerMetaDeps) {
    this.d = deps;
    this.informer = new Informer<CachedPod>(deps.client, {
      resource: Resources.Pod,
      fieldSelector: `spec.nodeName=${deps.node}`,
      logger: deps.log,
      transform: withoutManagedFields,
    });
    this.expected = new ResourceVersionExpectations({
      controller: CONTROLLER,
      timeoutMs: EXPECTATION_TIMEOUT_MS,
      logger: deps.log,
      timeouts: deps.expectationTimeouts,
    });
    this.restarter = new ContainerRestarter({
      cri: deps.cri,
      recorder: deps.recorder,
      log: deps.log,
      podIP: (ns, name) => this.informer.get(`${ns}/${name}`)?.status?.podIP,
    });
    const gate = deps.envFromMetadata;
    // Handlers only map pod events to requests, each queued after ENQUEUE_DELAY_MS.
    this.controller = newController(
      {
        name: CONTROLLER,
        workers: WORKERS,
        rateLimiter: new ItemExponentialRateLimiter<string>(500, 50_000),
        reconcile: (ctx, req) => this.sync(ctx.log, requestKey(req)),
      },
      { logger: deps.log },
    ).watches(
      this.informer,
      {
        // A pod seen for the first time is synced only when it already carries a meta set (upstream).
        add: (pod) => (readMetaSet(pod) && needsSync(undefined, pod, gate) ? syncable(pod) : undefined),
        update: (oldPod, pod) => (needsSync(oldPod, pod, gate) ? syncable(pod) : undefined),
        delete: (pod) => {
          this.expected.delete(pod);
          return undefined;
        },
      },
      { delayMs: ENQUEUE_DELAY_MS },
    ).controller;
  }

  /** Starts following the node's pods, syncing and restarting. */
  start(): void {
    this.informer.start();
    this.controller.start();
    this.restarter.start();
  }

  /** Whether the pod informer has listed. */
  hasSynced(): boolean {
    return this.informer.hasSynced();
  }

  async stop(): Promise<void> {
    await Promise.all([this.controller.stop(5000), this.restarter.stop()]);
    await this.informer.stop();
  }

  private async sync(log: Logger, key: string): Promise<{ requeueAfterMs?: number } | undefined> {
    const pod = this.informer.get(key);
    if (!pod || pod.metadata?.deletionTimestamp || !pod.status?.containerStatuses?.length) return undefined;
    this.expected.observe(pod);
    if (!this.expected.isSatisfied(pod)) return { requeueAfterMs: ENQUEUE_DELAY_MS };
    const existing = pod.status.containerStatuses.find((s) => s.containerID)?.containerID;
    if (!existing) return undefined;
    const runtime = existing.slice(0, existing.indexOf('://'));
    if (runtime !== this.d.runtimeName) {
      log.warn({ pod: key, runtime }, 'no runtime service for the pod containers');
      return undefined;
    }
    const containers = await podRuntimeContainers(this.d.cri, this.d.runtimeName, pod.metadata?.uid ?? '');
    const old = readMetaSet(pod);
    const { set, restart, retry } = await syncMetaSet(pod, containers, this.d.envFromMetadata, (spec, id) =>
      this.currentEnvHash(spec, id),
    );
    for (const id of restart) {
      log.info({ pod: key, containerid: id }, 'container env from metadata is stale, restarting it');
      this.restarter.enqueue(id);
    }
    if (!sameMetaSet(old, set)) {
      log.info({ pod: key }, 'reporting runtime containers meta');
      try {
        const updated = await this.d.client.mergePatchStatus<CachedPod>(
          Resources.Pod,
          pod.metadata?.namespace,
          pod.metadata!.name!,
          { metadata: { annotations: { [RUNTIME_CONTAINERS_META_ANNOTATION]: dumpMetaSet(set) } } },
        );
        this.expected.expect(updated);
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    }
    return retry ? { requeueAfterMs: ENV_RETRY_MS } : undefined;
  }

  /**
   * The env-from-metadata hash of what a running container really has. `env` is exec-ed (3 s) only
   * when the container has an env var from the pod's labels or annotations, at most once, as
   * upstream's lazy getter: an exec is a process started in the container, and a container with no
   * such var has hash 0 without one.
   */
  private async currentEnvHash(spec: Parameters<typeof currentEnvFromMetadataHash>[0], containerID: string) {
    const id = containerID.slice(containerID.indexOf('://') + 3);
    let env: Promise<Record<string, string>> | undefined;
    const read = () =>
      (env ??= this.d.cri
        .execSync(id, ['env'], ENV_EXEC_TIMEOUT_SECONDS)
        .then((res) => parseEnvOutput(Buffer.from(res.stdout ?? []).toString('utf8'))));
    return currentEnvFromMetadataHash(spec, async (name) => (await read())[name] ?? '');
  }
}
