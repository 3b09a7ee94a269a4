import { tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import type { CriClient } from '@kruise/cri/client';
import {
  Controller,
  EventRecorder,
  Informer,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type Logger,
  objectKey,
  Resources,
  silentLogger,
} from '@kruise/runtime';
import type { BoundPod } from './bound-pod.ts';
import { CONTAINER_GC_PERIOD_MS, deadContainersToRemove } from './container-gc.ts';
import { KubeletKeys } from './kubelet-metadata.ts';
import { KubeletServer } from './kubelet-server.ts';
import { heartbeat, type NodeFacts, nodeCapacity, registerNode } from './node-registration.ts';
import { PodLogs } from './pod-logs.ts';
import { PodRunner } from './pod-runner.ts';
import { PodVolumes, type VolumeSources } from './pod-volumes.ts';
import { Prober } from './prober.ts';
import { RestartBackoff } from './restart-backoff.ts';
import { runtimeNetworkNotReady } from './runtime-network.ts';
import { ServiceAccountTokens, tokenRequester } from './service-account-tokens.ts';

/** How a local node is run. */
export interface LocalNodeOptions {
  client: KubeClient;
  cri: CriClient;
  nodeName: string;
  /** Address pods and the node report (host network). */
  hostIP?: string;
  /** Extra Node labels. */
  labels?: Record<string, string>;
  /** Relist of the runtime's containers (kubelet's PLEG: 1 s). */
  plegIntervalMs?: number;
  /** Container garbage collection (kubelet: every minute, keeping one dead container per container). */
  containerGcIntervalMs?: number;
  /** Node status heartbeat (default 10 s). */
  heartbeatIntervalMs?: number;
  /** Crash-loop back-off (kubelet: 10 s doubling to 5 min). */
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  workers?: number;
  /** How soon a container that could not start (e.g. a missing ConfigMap key) is tried again (default 10 s). */
  retryMs?: number;
  /** kubelet's root directory: pod volumes under `pods/<uid>/volumes/` (default: under the temp dir). */
  rootDir?: string;
  /** How often pods with configMap/secret/downwardAPI/projected volumes are synced again (kubelet: 1 min). */
  volumeResyncMs?: number;
  /** Where the runtime writes container logs (kubelet: /var/log/pods). */
  podLogsDir?: string;
  /** Port of the kubelet server that answers `kubectl logs` on hostIP (0: any free port). */
  kubeletPort?: number;
  /**
   * Host directories this node keeps elsewhere, as a node of its own on a shared machine: a
   * hostPath volume at a key (or under it) mounts the given directory instead (e.g. `/var/run` →
   * the directory of this node's containerd socket). Any other hostPath mounts the path as is.
   */
  hostPaths?: Record<string, string>;
  /** kubelet's clock for ServiceAccount token refreshes (default Date.now; tests move it). */
  now?: () => number;
  logger?: Logger;
}

/**
 * Plays kubelet's part for one Node on a real CRI runtime: registers the Node and keeps it Ready,
 * runs the pods bound to it, notices container exits by relisting the runtime (PLEG) and writes
 * pod status. Test and local-stack infrastructure; never used by manager or daemon.
 */
export class LocalNode {
  readonly pods: Informer<KubeObject>;
  readonly controller: Controller;
  private readonly o: LocalNodeOptions;
  private readonly log: Logger;
  private runner: PodRunner | undefined;
  private facts: NodeFacts | undefined;
  private readonly uidToKey = new Map<string, string>();
  /** Per pod UID: its containers as the last relist saw them (`<id>:<state>`). */
  private readonly signatures = new Map<string, Set<string>>();
  private timers: NodeJS.Timeout[] = [];
  private kubelet: KubeletServer | undefined;
  private logs: PodLogs | undefined;
  private relisting = false;
  private readonly events: EventRecorder;
  private prober: Prober | undefined;
  private volumes: PodVolumes | undefined;

  constructor(options: LocalNodeOptions) {
    this.o = options;
    this.log = (options.logger ?? silentLogger).child({ node: options.nodeName });
    this.events = new EventRecorder(options.client, 'kubelet', { host: options.nodeName, logger: this.log });
    this.pods = new Informer(options.client, {
      resource: Resources.Pod,
      fieldSelector: `spec.nodeName=${options.nodeName}`,
      logger: this.log,
    });
    this.controller = new Controller({
      name: 'local-node',
      workers: options.workers ?? 16,
      logger: this.log,
      reconcile: async (_ctx, key) => {
        const pod = this.pods.get(key);
        if (!pod) {
          const uid = [...this.uidToKey].find(([, k]) => k === key)?.[0];
          if (uid) {
            await this.runner!.removeSandboxes(uid);
            this.uidToKey.delete(uid);
            this.signatures.delete(uid);
          }
          return undefined;
        }
        const wait = await this.runner!.sync(pod as BoundPod);
        return wait ? { requeueAfterMs: wait } : undefined;
      },
    });
    const enqueue = (pod: KubeObject) => {
      this.uidToKey.set(pod.metadata!.uid!, objectKey(pod));
      this.controller.enqueue(objectKey(pod));
    };
    this.pods.addEventHandler({
      add: enqueue,
      update: (_o, n) => enqueue(n),
      delete: (p) => this.controller.enqueue(objectKey(p)),
    });
  }

  /** Registers the Node, then starts running its pods. */
  async start(): Promise<void> {
    const version = await this.o.cri.version();
    const hostIP = this.o.hostIP ?? '127.0.0.1';
    const logs = new PodLogs(this.o.podLogsDir ?? join(tmpdir(), `kruise-pod-logs-${this.o.nodeName}`));
    this.logs = logs;
    this.kubelet = new KubeletServer(logs, this.log, {
      cri: this.o.cri,
      containerId: (namespace, pod, container) => {
        const p = this.pods.get(`${namespace}/${pod}`);
        const s = [...(p?.status?.containerStatuses ?? []), ...(p?.status?.initContainerStatuses ?? [])].find(
          (c: { name: string }) => c.name === container,
        );
        return s?.state?.running ? String(s.containerID).replace(/^[^:]+:\/\//, '') : undefined;
      },
    });
    const kubeletPort = await this.kubelet.listen(hostIP, this.o.kubeletPort ?? 0);
    this.facts = {
      kubeletPort,
      name: this.o.nodeName,
      hostIP,
      runtimeName: version.runtimeName,
      runtimeVersion: version.runtimeVersion,
      labels: this.o.labels,
      networkNotReady: runtimeNetworkNotReady(await this.o.cri.status()),
    };
    const sources = objectSources(this.o.client);
    // kubelet's token manager, asking with the node's own identity
    const tokens = new ServiceAccountTokens(tokenRequester(this.o.client), this.o.now);
    this.volumes = new PodVolumes(
      this.o.rootDir ?? join(tmpdir(), `kruise-kubelet-${this.o.nodeName}`),
      { ...sources, serviceAccountToken: (ns, sa, spec) => tokens.token(ns, sa, spec) },
      { hostIP, allocatable: nodeCapacity() },
      this.o.hostPaths,
    );
    this.prober = new Prober({
      cri: this.o.cri,
      onChange: (uid) => {
        const key = this.uidToKey.get(uid);
        if (key) this.controller.enqueue(key);
      },
      onUnhealthy: (uid, _container, message) => {
        const key = this.uidToKey.get(uid);
        const pod = key ? this.pods.get(key) : undefined;
        if (pod) this.runner?.event(pod as BoundPod, 'Warning', 'Unhealthy', message);
      },
    });
    this.runner = new PodRunner({
      prober: this.prober,
      cri: this.o.cri,
      client: this.o.client,
      node: this.o.nodeName,
      hostIP,
      runtimeName: version.runtimeName,
      backoff: new RestartBackoff(this.o.backoffInitialMs, this.o.backoffMaxMs),
      logs,
      events: this.events,
      envSources: sources,
      allocatable: nodeCapacity(),
      memoryCapacityBytes: totalmem(),
      volumes: this.volumes,
      volumeResyncMs: this.o.volumeResyncMs,
      retryMs: this.o.retryMs,
      networkNotReady: () => this.facts?.networkNotReady,
      apiServer: this.o.client.access.server,
      tokens,
      log: this.log,
    });
    await registerNode(this.o.client, this.facts);
    this.pods.start();
    await this.pods.waitForSync();
    await this.removeOrphans();
    this.controller.start();
    this.timers.push(setInterval(() => void this.relist(), this.o.plegIntervalMs ?? 1000));
    this.timers.push(
      setInterval(
        () => void this.collectDeadContainers(),
        this.o.containerGcIntervalMs ?? CONTAINER_GC_PERIOD_MS,
      ),
    );
    this.timers.push(setInterval(() => void this.heartbeat(), this.o.heartbeatIntervalMs ?? 10_000));
    if (this.facts.networkNotReady)
      this.log.warn({ reason: this.facts.networkNotReady }, 'only host-network pods can run');
    this.log.info({ runtime: version.runtimeName, version: version.runtimeVersion }, 'local node ready');
  }

  /** kubelet's node status loop: the runtime's network state, then the Ready condition's heartbeat. */
  private async heartbeat(): Promise<void> {
    const facts = this.facts!;
    try {
      facts.networkNotReady = runtimeNetworkNotReady(await this.o.cri.status());
      await heartbeat(this.o.client, facts);
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'node heartbeat failed');
    }
  }

  /**
   * PLEG: one ListContainers; pods whose containers changed state are synced. A dead container
   * gone (the garbage collection removed it) only drops the pod's runtime view, as kubelet's
   * ContainerRemoved event is no reason to sync.
   */
  private async relist(): Promise<void> {
    if (this.relisting) return;
    this.relisting = true;
    try {
      const { containers } = await this.o.cri.listContainers();
      const byPod = new Map<string, Set<string>>();
      for (const c of containers) {
        const uid = c.labels?.[KubeletKeys.podUid];
        if (!uid || !this.uidToKey.has(uid)) continue;
        const set = byPod.get(uid) ?? new Set<string>();
        set.add(`${c.id}:${c.state}`);
        byPod.set(uid, set);
      }
      for (const [uid, key] of this.uidToKey) {
        const now = byPod.get(uid) ?? new Set<string>();
        const before = this.signatures.get(uid);
        const appeared = !before || [...now].some((e) => !before.has(e));
        const vanished = before ? [...before].filter((e) => !now.has(e)) : [];
        if (!appeared && !vanished.length) continue;
        this.signatures.set(uid, now);
        // the pod's own sync made the change and read it back: nothing new to sync
        if (this.runner?.viewMatches(uid, now)) continue;
        this.runner?.invalidate(uid);
        if (appeared || vanished.some((e) => !e.endsWith(':CONTAINER_EXITED'))) this.controller.enqueue(key);
      }
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'runtime relist failed');
    } finally {
      this.relisting = false;
    }
  }

  /** kubelet's container GC: removes the dead containers of this node's pods beyond one per container. */
  private async collectDeadContainers(): Promise<void> {
    try {
      const { containers } = await this.o.cri.listContainers();
      for (const id of deadContainersToRemove(containers, (uid) => this.uidToKey.has(uid)))
        await this.o.cri
          .removeContainer(id)
          .catch((err) =>
            this.log.warn({ container: id, err: (err as Error).message }, 'dead container not removed'),
          );
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'container garbage collection failed');
    }
  }

  /** Removes sandboxes this node made for pods that no longer exist. */
  private async removeOrphans(): Promise<void> {
    const live = new Set(this.pods.list().map((p) => p.metadata?.uid));
    const { items } = await this.o.cri.listPodSandbox();
    for (const s of items) {
      const uid = s.labels?.[KubeletKeys.podUid];
      if (s.annotations?.[KubeletKeys.localNode] === this.o.nodeName && uid && !live.has(uid))
        await this.runner!.removeSandboxes(uid);
    }
  }

  /** Stops syncing; running containers are left as they are (as when kubelet stops). */
  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    this.prober?.stop();
    await this.controller.stop(5000);
    await this.pods.stop();
    await this.kubelet?.close();
    await this.events.flush();
    this.logs?.removeRootIfEmpty();
    this.volumes?.removeRootIfEmpty();
  }
}

/** ConfigMaps, Secrets, claims and volumes read from the API server when needed (not found: undefined). */
function objectSources(client: KubeClient): VolumeSources {
  const get = async <T>(
    resource: typeof Resources.ConfigMap,
    namespace: string | undefined,
    name: string,
  ) => {
    try {
      return (await client.get(resource, namespace, name)) as T;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };
  return {
    configMap: (namespace, name) => get(Resources.ConfigMap, namespace, name),
    secret: (namespace, name) => get(Resources.Secret, namespace, name),
    claim: (namespace, name) => get(Resources.PersistentVolumeClaim, namespace, name),
    volume: (name) => get(Resources.PersistentVolume, undefined, name),
  };
}
