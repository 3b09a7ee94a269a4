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
  stop(): Promise<void>;
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
}

/**
 * Runs a process's parts: HTTP servers and webhooks always; informers always (warm caches);
 * controllers only while this replica leads. Stops everything in order on `stop()` or SIGTERM.
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
  private stopping: Promise<void> | undefined;
  /** Ports bound by the probe and metrics servers (0 when not serving). */
  healthPort = 0;
  metricsPort = 0;

  constructor(options: ManagerOptions) {
    this.options = options;
    this.client = options.client;
    this.log = options.logger ?? silentLogger;
    this.metrics = options.metrics ?? new Metrics();
    this.informers = new InformerFactory(options.client, { logger: this.log });
    this.probes.addHealthzCheck('ping', () => undefined);
    this.probes.addReadyzCheck('informers', () => {
      if (!this.informers.hasSynced()) throw new Error('caches not synced');
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
        stop: () => controller.stop(this.options.gracefulShutdownMs ?? 30_000),
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

  /** Starts servers, always-runnables and informers, waits for caches, then leads or competes. */
  async start(): Promise<void> {
    const health = this.options.healthProbeAddr
      ? parseListenAddress(this.options.healthProbeAddr)
      : undefined;
    if (health) this.healthPort = await this.probes.listen(health.host, health.port);
    const metrics = this.options.metricsAddr ? parseListenAddress(this.options.metricsAddr) : undefined;
    if (metrics) this.metricsPort = await this.metricsServer.listen(metrics.host, metrics.port);
    for (const r of this.always) await r.start();
    this.informers.start();
    await this.informers.waitForCacheSync();
    this.log.info({ informers: this.informers.size }, 'caches synced');
    const le = this.options.leaderElection;
    if (!le) {
      await this.startLeading();
      return;
    }
    this.elector = new LeaderElector(this.client, {
      ...le,
      identity: le.identity ?? `${hostname()}_${process.pid}`,
      logger: this.log,
      metrics: this.metrics,
      onStartedLeading: () => void this.startLeading(),
      onStoppedLeading: () => void this.stopLeading(),
    });
    this.elector.start();
  }

  private async startLeading(): Promise<void> {
    if (this.leading) return;
    this.leading = true;
    for (const r of this.leaderOnly) await r.start();
  }

  private async stopLeading(): Promise<void> {
    if (!this.leading) return;
    this.leading = false;
    await Promise.all(this.leaderOnly.map((r) => r.stop()));
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
