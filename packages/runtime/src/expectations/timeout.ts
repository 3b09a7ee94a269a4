import type { Logger } from '../log/logger.ts';

/** Upstream's `--expectation-timeout` default: an expectation unsatisfied this long is dropped. */
export const DEFAULT_EXPECTATION_TIMEOUT_MS = 5 * 60_000;

/** What every kind of expectations shares: the controller name, the timeout and where a drop is reported. */
export interface ExpectationsOptions {
  /** The controller these expectations belong to (the metric's `controller` label). */
  controller: string;
  /** An expectation unsatisfied for this long is dropped (default 5 min, upstream's). */
  timeoutMs?: number;
  logger?: Logger;
  /** Counts drops: `kruise_manager_expectations_timeout_total{controller}` (see `Metrics`). */
  timeouts?: { inc(labels: { controller: string }): void };
  /** The clock (tests). */
  now?: () => number;
}

/** Reports a dropped expectation once: a warning with constant text and a count. */
export class TimeoutReporter {
  readonly controller: string;
  readonly timeoutMs: number;
  readonly now: () => number;
  private readonly log: Logger | undefined;
  private readonly timeouts: ExpectationsOptions['timeouts'];

  constructor(options: ExpectationsOptions) {
    this.controller = options.controller;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_EXPECTATION_TIMEOUT_MS;
    this.now = options.now ?? Date.now;
    this.log = options.logger?.child({ controller: options.controller });
    this.timeouts = options.timeouts;
  }

  /** Whether something expected since `since` has waited past the timeout. */
  expired(since: number): boolean {
    return this.now() - since >= this.timeoutMs;
  }

  /** Milliseconds left before something expected since `since` times out (at least 1). */
  left(since: number): number {
    return Math.max(1, since + this.timeoutMs - this.now());
  }

  /** Logs and counts one dropped expectation. */
  dropped(kind: string, key: string, pending: Record<string, unknown>): void {
    this.log?.warn({ kind, key, ...pending, timeoutms: this.timeoutMs }, 'expectation timed out, dropped');
    this.timeouts?.inc({ controller: this.controller });
  }
}
