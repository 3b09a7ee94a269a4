import { randomUUID } from 'node:crypto';
import { withRequestSignal } from '../kube/request-scope.ts';
import type { Logger } from '../log/logger.ts';
import { silentLogger } from '../log/logger.ts';
import type { Metrics } from '../metrics/registry.ts';
import type { RateLimiter } from '../queue/rate-limiter.ts';
import { WorkQueue } from '../queue/work-queue.ts';
import { isPanic, TerminalError } from './errors.ts';
import type { Request } from './request.ts';

/** What one reconcile sees. */
export interface ReconcileContext {
  /**
   * Aborted when the reconcile must end now: at once when leadership is lost, after the drain period
   * on shutdown. Every API request the reconcile makes through a `KubeClient` is tied to it already
   * (see `withRequestSignal`); a reconciler passes it on only to other kinds of waiting (timers,
   * child processes).
   */
  signal: AbortSignal;
  /** A logger carrying `controller`, `key` and `reconcileID`. */
  log: Logger;
}

/** What a reconcile asks for next. */
export interface ReconcileResult {
  /** Reconcile this key again after this many milliseconds. */
  requeueAfterMs?: number;
}

/**
 * The engine's reconciler, by work-queue key (`namespace/name` or `name`). Controllers declared with
 * `Manager.newController` get a `Request` instead (see `RequestReconciler`).
 */
export type Reconciler = (
  ctx: ReconcileContext,
  key: string,
) => Promise<ReconcileResult | undefined> | Promise<void>;

/**
 * A level-based reconciler (the controller contract): it never sees the event, reads the informer
 * caches, moves the world toward the spec, throws to retry with backoff, throws a `TerminalError`
 * to stop retrying, and may ask to be run again after `requeueAfterMs`.
 */
export type RequestReconciler = (
  ctx: ReconcileContext,
  req: Request,
) => Promise<ReconcileResult | undefined> | Promise<void>;

/** Options of a controller. */
export interface ControllerOptions {
  name: string;
  reconcile: Reconciler;
  workers?: number;
  logger?: Logger;
  metrics?: Metrics;
  rateLimiter?: RateLimiter<string>;
}

/**
 * Runs a reconciler over a work queue with N workers, counting as controller-runtime counts:
 * - every exception is a reconcile error (`controller_runtime_reconcile_errors_total`,
 *   `controller_runtime_reconcile_total{result="error"}`);
 * - a `TerminalError` is also counted in `controller_runtime_terminal_reconcile_errors_total` and
 *   not retried; any other exception is retried with rate limiting;
 * - a programming fault (a `TypeError`, `ReferenceError`, `RangeError` … or a thrown non-Error —
 *   what a Go reconciler would panic on, see `isPanic`) is also counted in
 *   `controller_runtime_reconcile_panics_total`, as controller-runtime counts a recovered panic,
 *   and logged with its stack.
 * An exception never kills a worker.
 *
 * A controller runs once: `start` after `stop` throws, because `stop` shuts its queue down for good
 * (a replica that loses its Lease exits and is restarted instead, ADR 0043).
 */
export class Controller {
  readonly name: string;
  readonly queue: WorkQueue<string>;
  private readonly reconciler: Reconciler;
  private readonly workers: number;
  private readonly log: Logger;
  private readonly metrics: Metrics | undefined;
  private readonly abort = new AbortController();
  private state: 'new' | 'running' | 'stopped' = 'new';
  private running: Promise<void>[] = [];
  /** Reconciles run so far, by result. */
  readonly counts = { success: 0, error: 0, terminal: 0, panic: 0, requeueAfter: 0 };

  constructor(options: ControllerOptions) {
    this.name = options.name;
    this.reconciler = options.reconcile;
    this.workers = options.workers ?? 1;
    this.log = (options.logger ?? silentLogger).child({ controller: options.name });
    this.metrics = options.metrics;
    this.queue = new WorkQueue<string>({
      rateLimiter: options.rateLimiter,
      metrics: options.metrics?.queueMetrics(options.name),
    });
  }

  /** Queues a key. */
  enqueue(key: string): void {
    this.queue.add(key);
  }

  /** Starts the workers; throws when the controller was stopped (its queue is shut down for good). */
  start(): void {
    if (this.state === 'stopped')
      throw new Error(`controller ${this.name} was stopped: a stopped controller cannot start again`);
    if (this.state === 'running') return;
    this.state = 'running';
    this.metrics?.maxConcurrent.set({ controller: this.name }, this.workers);
    for (let i = 0; i < this.workers; i++) this.running.push(this.worker());
    this.log.info({ workers: this.workers }, 'starting workers');
  }

  /**
   * Stops for good: takes no new keys, lets the queued and in-flight reconciles finish for up to
   * `drainMs`, then aborts whatever still runs (its API requests are cancelled and no new one is
   * sent) and shuts the queue down. `drainMs` 0 aborts at once: what a replica that lost its Lease
   * must do, since another may lead already.
   */
  async stop(drainMs = 30_000): Promise<void> {
    this.state = 'stopped';
    if (drainMs <= 0) this.abort.abort();
    await Promise.race([this.queue.shutDownWithDrain(), new Promise((r) => setTimeout(r, drainMs).unref())]);
    this.abort.abort();
    this.queue.shutDown();
    await Promise.race([Promise.all(this.running), new Promise((r) => setTimeout(r, 100).unref())]);
    this.running = [];
  }

  private async worker(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      this.metrics?.activeWorkers.inc({ controller: this.name });
      try {
        await this.process(key);
      } finally {
        this.metrics?.activeWorkers.dec({ controller: this.name });
        this.queue.done(key);
      }
    }
  }

  private async process(key: string): Promise<void> {
    const log = this.log.child({ key, reconcileID: randomUUID() });
    const timer = this.metrics?.reconcileTime.startTimer({ controller: this.name });
    const signal = this.abort.signal;
    try {
      const result = await withRequestSignal(signal, () => this.reconciler({ signal, log }, key));
      if (result?.requeueAfterMs !== undefined && result.requeueAfterMs > 0) {
        this.queue.forget(key);
        this.queue.addAfter(key, result.requeueAfterMs);
        this.counts.requeueAfter++;
        this.metrics?.reconcileTotal.inc({ controller: this.name, result: 'requeue_after' });
      } else {
        this.queue.forget(key);
        this.counts.success++;
        this.metrics?.reconcileTotal.inc({ controller: this.name, result: 'success' });
      }
    } catch (err) {
      if (signal.aborted) {
        log.debug({ err: err instanceof Error ? err.message : String(err) }, 'reconcile aborted');
        return;
      }
      this.metrics?.reconcileErrors.inc({ controller: this.name });
      this.metrics?.reconcileTotal.inc({ controller: this.name, result: 'error' });
      if (err instanceof TerminalError) {
        this.counts.terminal++;
        this.metrics?.terminalErrors.inc({ controller: this.name });
        this.queue.forget(key);
        log.error({ err: err.message }, 'reconcile failed for good');
        return;
      }
      this.counts.error++;
      const requeues = this.queue.numRequeues(key);
      if (isPanic(err)) {
        this.counts.panic++;
        this.metrics?.reconcilePanics.inc({ controller: this.name });
        log.error(
          { err: err instanceof Error ? err.message : String(err), stack: (err as Error)?.stack, requeues },
          'reconcile panicked, will retry',
        );
      } else log.warn({ err: (err as Error).message, requeues }, 'reconcile failed, will retry');
      this.queue.addRateLimited(key);
    } finally {
      timer?.();
    }
  }
}
