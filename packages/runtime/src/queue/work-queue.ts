import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.ts';

/** Observes a queue (controller-runtime's workqueue metrics hook in here). */
export interface QueueMetrics {
  add(): void;
  depth(n: number): void;
  queued(seconds: number): void;
  worked(seconds: number): void;
  retry(): void;
}

/**
 * A work queue with client-go semantics: an item is queued at most once; an item is never handed
 * to two workers at once; adding an item that is being processed marks it dirty and it is queued
 * again when `done` is called; delayed and rate-limited adds; shut down with or without drain.
 */
export class WorkQueue<T = string> {
  private queue: T[] = [];
  private head = 0;
  private readonly dirty = new Set<T>();
  private readonly processing = new Set<T>();
  private readonly addedAt = new Map<T, number>();
  private readonly startedAt = new Map<T, number>();
  private readonly waiting = new Map<T, { readyAt: number; timer: NodeJS.Timeout }>();
  private getters: ((item: T | undefined) => void)[] = [];
  private shuttingDown = false;
  private drainWaiters: (() => void)[] = [];
  readonly rateLimiter: RateLimiter<T>;
  private readonly metrics: QueueMetrics | undefined;

  constructor(options: { rateLimiter?: RateLimiter<T>; metrics?: QueueMetrics } = {}) {
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<T>();
    this.metrics = options.metrics;
  }

  /** Items waiting to be processed. */
  len(): number {
    return this.queue.length - this.head;
  }

  /** Whether `shutDown` was called. */
  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Queues an item unless it is queued already; an item being processed is queued again after `done`. */
  add(item: T): void {
    if (this.shuttingDown || this.dirty.has(item)) return;
    this.metrics?.add();
    this.dirty.add(item);
    if (this.processing.has(item)) return;
    this.enqueueReady(item);
  }

  /** Makes a dirty item available: straight to a waiting `get()`, else to the back of the queue. */
  private enqueueReady(item: T): void {
    this.addedAt.set(item, performance.now());
    const getter = this.getters.shift();
    if (getter) this.hand(item, getter);
    else {
      this.queue.push(item);
      this.metrics?.depth(this.len());
    }
  }

  private hand(item: T, getter: (item: T | undefined) => void): void {
    this.dirty.delete(item);
    this.processing.add(item);
    const now = performance.now();
    this.metrics?.queued((now - (this.addedAt.get(item) ?? now)) / 1000);
    this.addedAt.delete(item);
    this.startedAt.set(item, now);
    getter(item);
  }

  /** Waits for the next item; resolves `undefined` once the queue is shut down and (when draining) empty. */
  get(): Promise<T | undefined> {
    if (this.len() > 0) {
      const item = this.queue[this.head++] as T;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      this.metrics?.depth(this.len());
      return new Promise((resolve) => this.hand(item, resolve));
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Marks an item finished; queues it again if it was added meanwhile. */
  done(item: T): void {
    const started = this.startedAt.get(item);
    if (started !== undefined) this.metrics?.worked((performance.now() - started) / 1000);
    this.startedAt.delete(item);
    this.processing.delete(item);
    if (this.dirty.has(item) && !this.shuttingDown) this.enqueueReady(item);
    if (this.processing.size === 0) for (const w of this.drainWaiters.splice(0)) w();
  }

  /** Adds the item after `delayMs`; an earlier pending time wins. */
  addAfter(item: T, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) {
      this.add(item);
      return;
    }
    const readyAt = Date.now() + delayMs;
    const pending = this.waiting.get(item);
    if (pending && pending.readyAt <= readyAt) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.waiting.delete(item);
      this.add(item);
    }, delayMs);
    timer.unref();
    this.waiting.set(item, { readyAt, timer });
  }

  /** Adds the item after the rate limiter's delay (a failure counts towards its backoff). */
  addRateLimited(item: T): void {
    this.metrics?.retry();
    this.addAfter(item, this.rateLimiter.when(item));
  }

  /** Clears the item's failure count. */
  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  /** Failures counted for the item. */
  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }

  /** Seconds the longest running item has been processed. */
  longestRunningSeconds(): number {
    let oldest = Number.POSITIVE_INFINITY;
    for (const t of this.startedAt.values()) oldest = Math.min(oldest, t);
    return oldest === Number.POSITIVE_INFINITY ? 0 : (performance.now() - oldest) / 1000;
  }

  /** Stops accepting items; waiting `get`s resolve `undefined`. Queued items are dropped. */
  shutDown(): void {
    this.shuttingDown = true;
    this.queue = [];
    this.head = 0;
    this.dirty.clear();
    for (const { timer } of this.waiting.values()) clearTimeout(timer);
    this.waiting.clear();
    for (const g of this.getters.splice(0)) g(undefined);
  }

  /** Stops accepting items, lets workers finish what is queued and in flight, then resolves. */
  async shutDownWithDrain(): Promise<void> {
    this.shuttingDown = true;
    for (const { timer } of this.waiting.values()) clearTimeout(timer);
    this.waiting.clear();
    for (const g of this.getters.splice(0)) g(undefined);
    while (this.len() > 0 || this.processing.size > 0) {
      await new Promise<void>((resolve) => {
        this.drainWaiters.push(resolve);
        setTimeout(resolve, 50).unref();
      });
    }
  }
}
