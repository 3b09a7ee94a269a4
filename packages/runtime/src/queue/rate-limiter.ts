/** Decides how long an item waits before it is retried. */
export interface RateLimiter<T> {
  /** Delay before the item may be processed again (and counts a failure). */
  when(item: T): number;
  /** Forgets the item's failures. */
  forget(item: T): void;
  /** Failures counted for the item. */
  numRequeues(item: T): number;
}

/** Per-item exponential backoff: `baseMs * 2^failures`, capped at `maxMs` (client-go: 5 ms → 1000 s). */
export class ItemExponentialRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>();
  private readonly baseMs: number;
  private readonly maxMs: number;

  constructor(baseMs = 5, maxMs = 1000_000) {
    this.baseMs = baseMs;
    this.maxMs = maxMs;
  }

  when(item: T): number {
    const n = this.failures.get(item) ?? 0;
    this.failures.set(item, n + 1);
    return Math.min(this.baseMs * 2 ** n, this.maxMs);
  }

  forget(item: T): void {
    this.failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }
}

/** An overall token bucket: `qps` tokens a second, at most `burst` saved (client-go: 10 qps, burst 100). */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  private tokens: number;
  private last = Date.now();
  private readonly qps: number;
  private readonly burst: number;

  constructor(qps = 10, burst = 100) {
    this.qps = qps;
    this.burst = burst;
    this.tokens = burst;
  }

  when(_item: T): number {
    const now = Date.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.qps) * 1000);
  }

  forget(_item: T): void {}

  numRequeues(_item: T): number {
    return 0;
  }
}

/** The longest delay of several limiters. */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  private readonly limiters: RateLimiter<T>[];

  constructor(...limiters: RateLimiter<T>[]) {
    this.limiters = limiters;
  }

  when(item: T): number {
    return Math.max(...this.limiters.map((l) => l.when(item)));
  }

  forget(item: T): void {
    for (const l of this.limiters) l.forget(item);
  }

  numRequeues(item: T): number {
    return Math.max(...this.limiters.map((l) => l.numRequeues(item)));
  }
}

/** Options of the default controller rate limiter. */
export interface DefaultRateLimiterOptions {
  baseDelayMs?: number;
  maxDelayMs?: number;
  qps?: number;
  burst?: number;
}

/** client-go's DefaultControllerRateLimiter: max(per-item exponential 5 ms → 1000 s, bucket 10 qps / 100). */
export function defaultControllerRateLimiter<T>(options: DefaultRateLimiterOptions = {}): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(
    new ItemExponentialRateLimiter<T>(options.baseDelayMs ?? 5, options.maxDelayMs ?? 1000_000),
    new BucketRateLimiter<T>(options.qps ?? 10, options.burst ?? 100),
  );
}
