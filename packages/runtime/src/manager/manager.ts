import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { type ControllerBuilder, type NewControllerOptions, newController } from '../controller/builder.ts';
import type { Controller } from '../controller/controller.ts';
import { EventRecorder } from '../events/recorder.ts';
import type { ExpectationsOptions } from '../expectations/timeout.ts';
import { parseListenAddress } from '../http/address.ts';
import { type Check, ProbeServer } from '../http/probe-server.ts';
import { InformerFactory } from '../informer/factory.ts';
import type { KubeClient } from '../kube/client.ts';
import { LeaderElector } from '../leader/leader-election.ts';
import { type Logger, silentLogger } from '../log/logger.ts';
import { Metrics } from '../metrics/registry.ts';

/** Something the manager starts and stops. */
export interface Runnable {
  name: string;
  start(): void | Promise<void>;
  /** Stops; leader-only runnables are given how long in-flight work may take (0: abort at once). */
  stop(drainMs?: number): Promise<void>;
}

/** Options of a manager. */
export interface ManagerOptions {
  client: KubeClient;
  logger?: Logger;
  metrics?: Metrics;
  /** Lease used to elect one active replica; `undefined` runs controllers at once. */
  leaderElection?: {
    namespace: string;
    name: string;
    identity?: string;
    leaseDurationMs?: number;
    renewDeadlineMs?: number;
    retryPeriodMs?: number;
  };
  /** `/healthz` and `/readyz` listen here (e.g. `:8000`); none when absent. */
  healthProbeAddr?: string;
  /** `/metrics` listens here (e.g. `:8080`); none when absent. */
  metricsAddr?: string;
  /** Everything must stop within this (default 30 s). */
  gracefulShutdownMs?: number;
  /**
   * How long informers may take to list before start-up fails (controller-runtime's
   * CacheSyncTimeout; default 2 min).
   */
  cacheSyncTimeoutMs?: number;
  /** How often every informer re-delivers its cached objects as updates (controller-runtime's SyncPeriod); none when 0 or absent. */
  syncPeriodMs?: number;
  /**
   * Called once this replica has lost its Lease, after its controllers were aborted. The default ends
   * the process with exit code 1, as a controller-runtime manager does, so that its supervisor
   * (kubelet, the local stack) starts a fresh replica (ADR 0043); tests running managers in-process
   * pass their own. The manager never leads again either way.
   */
  onLeadershipLost?: (reason: string) => void;
}

/** What a replica does by default when it loses its Lease: exit 1 (the elector logged why). */
export function exitOnLeadershipLost(): never {
  process.exit(1);
}

/**
 * Runs a process's parts: HTTP servers and webhooks always; informers always (warm caches);
 * controllers only while this replica leads. Stops everything in order on `stop()` or SIGTERM.
 *
 * A manager runs once: it starts once, leads at most once, and a lost Lease ends it for good
 * (`onLeadershipLost`, by default process exit) — a stopped controller cannot run again, so a
 * replica that won the Lease back would otherwise lead with dead queues (ADR 0043).
 */
export class Manager {
  readonly client: KubeClient;
  readonly log: Logger;
  readonly metrics: Metrics;
  readonly informers: InformerFactory;
  readonly probes = new ProbeServer();
  private readonly metricsServer = new ProbeServer();
  private readonly options: ManagerOptions;
  private readonly always: Runnable[] = [];
  private readonly leaderOnly: Runnable[] = [];
  private readonly recorders = new Map<string, EventRecorder>();
  private elector: LeaderElector | undefined;
  private leading = false;
  private started = false;
  /** Why leadership was lost, once it was. */
  private lostReason: string | undefined;
  private stopping: Promise<void> | undefined;
  /** Ports bound by the probe and metrics servers (0 when not serving). */
  healthPort = 0;
  metricsPort = 0;

  constructor(options: ManagerOptions) {
    this.options = options;
    this.client = options.client;
    this.log = options.logger ?? silentLogger;
    this.metrics = options.metrics ?? new Metrics();
    this.informers = new InformerFactory(options.client, {
      logger: this.log,
      ...(options.syncPeriodMs ? { resyncPeriodMs: options.syncPeriodMs } : {}),
    });
    this.probes.addHealthzCheck('ping', () => undefined);
    this.probes.addReadyzCheck('informers', () => {
      if (!this.informers.hasSynced()) throw new Error('caches not synced');
    });
    const le = options.leaderElection;
    if (le)
      this.elector = new LeaderElector(this.client, {
        ...le,
        identity: le.identity ?? `${hostname()}_${randomUUID()}`,
        logger: this.log,
        metrics: this.metrics,
        onStartedLeading: () => void this.startLeading(),
        onLostLeadership: (reason) => this.loseLeadership(reason),
      });
    this.metricsServer.handle('/metrics', async (_req, res) => {
      const text = await this.metrics.expose();
      res.writeHead(200, { 'content-type': this.metrics.registry.contentType });
      res.end(text);
    });
  }

  /** Adds a runnable: `leaderOnly` ones run while this replica leads. */
  add(runnable: Runnable, options: { leaderOnly?: boolean } = {}): void {
    (options.leaderOnly ? this.leaderOnly : this.always).push(runnable);
  }

  /** Adds a controller (leader only). */
  addController(controller: Controller): void {
    this.add(
      {
        name: controller.name,
        start: () => controller.start(),
        stop: (drainMs) => controller.stop(drainMs ?? this.options.gracefulShutdownMs ?? 30_000),
      },
      { leaderOnly: true },
    );
  }

  /**
   * Declares a controller (the contract every `controllers/<kind>/add` uses): builds it with the
   * manager's logger and metrics, registers it to run while this replica leads, and returns the
   * builder on which the caller declares what it watches.
   */
  newController(options: NewControllerOptions): ControllerBuilder {
    const builder = newController(options, { logger: this.log, metrics: this.metrics });
    this.addController(builder.controller);
    return builder;
  }

  /** The options expectations of `controller` are built with: its name, the logger and the timeout metric. */
  expectationsOptions(controller: string, timeoutMs?: number): ExpectationsOptions {
    return {
      controller,
      logger: this.log,
      timeouts: this.metrics.expectationsTimeout,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    };
  }

  /** The event recorder of `component` (one per component, shared; flushed on stop). */
  eventRecorder(component: string): EventRecorder {
    let r = this.recorders.get(component);
    if (!r) {
      r = new EventRecorder(this.client, component, { logger: this.log });
      this.recorders.set(component, r);
    }
    return r;
  }

  /** Adds a liveness check. */
  addHealthzCheck(name: string, check: Check): void {
    this.probes.addHealthzCheck(name, check);
  }

  /** Adds a readiness check. */
  addReadyzCheck(name: string, check: Check): void {
    this.probes.addReadyzCheck(name, check);
  }

  /** Whether this replica runs its controllers now. */
  isLeader(): boolean {
    return this.leading;
  }

  /** Why this replica lost its Lease, if it did. */
  leadershipLost(): string | undefined {
    return this.lostReason;
  }

  /**
   * Starts servers, always-runnables and informers, waits for caches (failing after the cache sync
   * timeout with the resources that did not list, and why), then leads or competes.
   */
  async start(): Promise<void> {
    if (this.started) throw new Error('a manager starts once');
    this.started = true;
    const health = this.options.healthProbeAddr
      ? parseListenAddress(this.options.healthProbeAddr)
      : undefined;
    if (health) this.healthPort = await this.probes.listen(health.host, health.port);
    const metrics = this.options.metricsAddr ? parseListenAddress(this.options.metricsAddr) : undefined;
    if (metrics) this.metricsPort = await this.metricsServer.listen(metrics.host, metrics.port);
    for (const r of this.always) await r.start();
    this.informers.start();
    await this.informers.waitForCacheSync(this.options.cacheSyncTimeoutMs ?? 120_000);
    this.log.info({ informers: this.informers.size }, 'caches synced');
    if (!this.elector) {
      await this.startLeading();
      return;
    }
    this.elector.start();
  }

  private async startLeading(): Promise<void> {
    if (this.leading || this.lostReason !== undefined || this.stopping) return;
    this.leading = true;
    for (const r of this.leaderOnly) {
      if (!this.leading) return;
      await r.start();
    }
  }

  /** The Lease is gone: abort every controller now (no write goes out after this), then hand over. */
  private loseLeadership(reason: string): void {
    this.lostReason = reason;
    const stopping = this.stopLeading(0);
    (this.options.onLeadershipLost ?? exitOnLeadershipLost)(reason);
    void stopping.catch(() => undefined);
  }

  private async stopLeading(drainMs?: number): Promise<void> {
    if (!this.leading) return;
    this.leading = false;
    await Promise.all(this.leaderOnly.map((r) => r.stop(drainMs)));
  }

  /** Stops everything within the graceful shutdown deadline; the lease is released for a successor. */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    const deadline = this.options.gracefulShutdownMs ?? 30_000;
    const work = (async () => {
      await this.stopLeading();
      await this.elector?.stop();
      for (const r of [...this.always].reverse()) await r.stop();
      await this.informers.stop();
      await this.probes.close();
      await this.metricsServer.close();
      await Promise.all([...this.recorders.values()].map((r) => r.flush()));
    })();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.log.warn({ deadlinems: deadline }, 'graceful shutdown deadline passed');
        resolve();
      }, deadline);
    });
    await Promise.race([work, timeout]);
    clearTimeout(timer);
  }
}
