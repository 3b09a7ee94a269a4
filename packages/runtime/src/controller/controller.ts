import { randomUUID } from 'node:crypto';
import type { Logger } from '../log/logger.ts';
import { silentLogger } from '../log/logger.ts';
import type { Metrics } from '../metrics/registry.ts';
import type { RateLimiter } from '../queue/rate-limiter.ts';
import { WorkQueue } from '../queue/work-queue.ts';
import { TerminalError } from './errors.ts';
import type { Request } from './request.ts';

/** What one reconcile sees. */
export interface ReconcileContext {
  /** Aborted when the controller stops. */
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
 * Runs a reconciler over a work queue with N workers. Errors requeue with rate limiting,
 * `TerminalError`s do not, and an exception never kills a worker (it is counted as a panic).
 */
export class Controller {
  readonly name: string;
  readonly queue: WorkQueue<string>;
  private readonly reconciler: Reconciler;
  private readonly workers: number;
  private readonly log: Logger;
  private readonly metrics: Metrics | undefined;
  private abort = new AbortController();
  private running: Promise<void>[] = [];
  /** Reconciles run so far, by result. */
  readonly counts = { success: 0, error: 0, terminal: 0, requeueAfter: 0 };

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

  /** Starts the workers. */
  start(): void {
    this.abort = new AbortController();
    this.metrics?.maxConcurrent.set({ controller: this.name }, this.workers);
    for (let i = 0; i < this.workers; i++) this.running.push(this.worker());
    this.log.info({ workers: this.workers }, 'starting workers');
  }

  /** Stops taking work, lets in-flight reconciles finish (up to `drainMs`), then resolves. */
  async stop(drainMs = 30_000): Promise<void> {
    this.abort.abort();
    await Promise.race([this.queue.shutDownWithDrain(), new Promise((r) => setTimeout(r, drainMs).unref())]);
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
    try {
      const result = await this.reconciler({ signal: this.abort.signal, log }, key);
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
      this.metrics?.reconcileErrors.inc({ controller: this.name });
      this.metrics?.reconcileTotal.inc({ controller: this.name, result: 'error' });
      if (err instanceof TerminalError) {
        this.counts.terminal++;
        this.metrics?.terminalErrors.inc({ controller: this.name });
        this.queue.forget(key);
        log.error({ err: err.message }, 'reconcile failed for good');
      } else {
        this.counts.error++;
        if (!(err instanceof Error)) this.metrics?.reconcilePanics.inc({ controller: this.name });
        log.warn(
          { err: err instanceof Error ? err.message : String(err), requeues: this.queue.numRequeues(key) },
          'reconcile failed, will retry',
        );
        this.queue.addRateLimited(key);
      }
    } finally {
      timer?.();
    }
  }
}
