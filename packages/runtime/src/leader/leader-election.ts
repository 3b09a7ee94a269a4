import { isoTime } from '@kruise/kube-compat/time';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { KubeClient } from '../kube/client.ts';
import { isAlreadyExists, isConflict, isNotFound } from '../kube/errors.ts';
import { withRequestSignal } from '../kube/request-scope.ts';
import { Resources } from '../kube/resources.ts';
import { type Logger, silentLogger } from '../log/logger.ts';
import type { Metrics } from '../metrics/registry.ts';

/** Timing and identity of a leader election (defaults: controller-runtime's 15 s / 10 s / 2 s). */
export interface LeaderElectionOptions {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  logger?: Logger;
  metrics?: Metrics;
  onStartedLeading: () => void;
  /**
   * Leadership was lost while competing: the lease could not be renewed within the renew deadline,
   * or another holder took it. Not called when `stop()` releases the lease.
   */
  onLostLeadership: (reason: string) => void;
}

/** RFC 3339 with microseconds, as a Lease's MicroTime fields are written. */
const microTime = (d = new Date()) => isoTime(d.getTime()).replace(/Z$/, '000Z');

/**
 * Leader election on a coordination.k8s.io/v1 Lease, as client-go does it: a lease is free once
 * its record has not changed for its duration (by our own clock); the holder renews every retry
 * period and loses leadership when it cannot renew within the renew deadline (every request is
 * bounded by what is left of that deadline, so a stalled API server cannot hold it past it) or
 * finds another holder; on release it empties the holder so a successor takes over at once.
 * An elector leads at most once: after a loss it stops competing (its process exits, ADR 0043).
 */
export class LeaderElector {
  private readonly client: KubeClient;
  private readonly o: Required<Omit<LeaderElectionOptions, 'logger' | 'metrics'>>;
  private readonly log: Logger;
  private readonly metrics: Metrics | undefined;
  private observedRecord = '';
  private observedAt = 0;
  private leading = false;
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(client: KubeClient, options: LeaderElectionOptions) {
    this.client = client;
    this.o = {
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      ...options,
    } as typeof this.o;
    validateTimings(this.o);
    this.log = (options.logger ?? silentLogger).child({ lease: `${options.namespace}/${options.name}` });
    this.metrics = options.metrics;
  }

  /** Whether this process holds the lease. */
  isLeader(): boolean {
    return this.leading;
  }

  /** Starts competing for the lease in the background. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }

  private async run(): Promise<void> {
    while (this.running && !this.leading) {
      if (await this.attempt(Date.now() + this.o.renewDeadlineMs)) {
        this.leading = true;
        this.metrics?.leaderStatus.set({ name: this.o.name }, 1);
        this.log.info({ identity: this.o.identity }, 'became leader');
        this.o.onStartedLeading();
        break;
      }
      await this.sleep(this.o.retryPeriodMs * (1 + Math.random() * 0.2));
    }
    while (this.running) {
      const deadline = Date.now() + this.o.renewDeadlineMs;
      let renewed = false;
      while (this.running && Date.now() < deadline && !this.takenOver) {
        await this.sleep(Math.min(this.o.retryPeriodMs, Math.max(0, deadline - Date.now())));
        if (!this.running) return;
        if (await this.attempt(deadline)) {
          renewed = true;
          break;
        }
      }
      if (!this.running) return;
      if (!renewed) {
        this.running = false;
        this.leading = false;
        this.metrics?.leaderStatus.set({ name: this.o.name }, 0);
        const reason = this.takenOver
          ? `the lease is held by ${this.takenOver}`
          : `failed to renew the lease within ${this.o.renewDeadlineMs} ms`;
        this.log.error({ identity: this.o.identity, reason }, 'leader election lost');
        this.o.onLostLeadership(reason);
        return;
      }
    }
  }

  /** Who took the lease from this leader, once seen. */
  private takenOver = '';

  /** One attempt to take or keep the lease; its requests are abandoned at `deadline`. */
  private async attempt(deadline: number): Promise<boolean> {
    const signal = AbortSignal.timeout(Math.max(1, deadline - Date.now()));
    try {
      return await withRequestSignal(signal, () => this.tryAcquireOrRenew());
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'updating the lease failed');
      return false;
    }
  }

  /** One attempt to take or keep the lease. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = new Date();
    const durationSeconds = Math.ceil(this.o.leaseDurationMs / 1000);
    let lease: Lease;
    try {
      lease = await this.client.get<Lease>(Resources.Lease, this.o.namespace, this.o.name);
    } catch (err) {
      if (!isNotFound(err)) {
        this.log.warn({ err: (err as Error).message }, 'reading the lease failed');
        return false;
      }
      try {
        await this.client.create(Resources.Lease, {
          metadata: { name: this.o.name, namespace: this.o.namespace },
          spec: {
            holderIdentity: this.o.identity,
            leaseDurationSeconds: durationSeconds,
            acquireTime: microTime(now),
            renewTime: microTime(now),
            leaseTransitions: 0,
          },
        });
        this.observe(JSON.stringify({ holder: this.o.identity, renew: microTime(now) }));
        return true;
      } catch (createErr) {
        if (!isAlreadyExists(createErr))
          this.log.warn({ err: (createErr as Error).message }, 'creating the lease failed');
        return false;
      }
    }
    const spec = lease.spec ?? {};
    const record = JSON.stringify({ holder: spec.holderIdentity ?? '', renew: spec.renewTime ?? '' });
    if (record !== this.observedRecord) this.observe(record);
    const holder: string = spec.holderIdentity ?? '';
    const heldByOther = holder !== '' && holder !== this.o.identity;
    const expired = this.observedAt + (spec.leaseDurationSeconds ?? durationSeconds) * 1000 < Date.now();
    if (heldByOther && this.leading) this.takenOver = holder;
    if (heldByOther && !expired) return false;
    const next = {
      ...lease,
      spec: {
        ...spec,
        holderIdentity: this.o.identity,
        leaseDurationSeconds: durationSeconds,
        renewTime: microTime(now),
        acquireTime: holder === this.o.identity ? spec.acquireTime : microTime(now),
        leaseTransitions: (spec.leaseTransitions ?? 0) + (holder === this.o.identity ? 0 : 1),
      },
    };
    try {
      const updated = await this.client.update(Resources.Lease, next);
      this.observe(
        JSON.stringify({ holder: updated.spec?.holderIdentity ?? '', renew: updated.spec?.renewTime ?? '' }),
      );
      return true;
    } catch (err) {
      if (!isConflict(err)) this.log.warn({ err: (err as Error).message }, 'updating the lease failed');
      return false;
    }
  }

  private observe(record: string): void {
    this.observedRecord = record;
    this.observedAt = Date.now();
  }

  /** Stops competing; a leader empties the holder so a successor can take over at once. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    if (!this.leading) return;
    this.leading = false;
    this.metrics?.leaderStatus.set({ name: this.o.name }, 0);
    try {
      const lease = await withRequestSignal(AbortSignal.timeout(this.o.renewDeadlineMs), () =>
        this.client.get(Resources.Lease, this.o.namespace, this.o.name),
      );
      if (lease.spec?.holderIdentity === this.o.identity) {
        await withRequestSignal(AbortSignal.timeout(this.o.renewDeadlineMs), () =>
          this.client.update(Resources.Lease, {
            ...lease,
            spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime() },
          }),
        );
        this.log.info({ identity: this.o.identity }, 'released the lease');
      }
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'releasing the lease failed');
    }
  }
}

/** client-go's jitter factor for the retry period; the renew deadline must exceed retryPeriod × it. */
const JITTER_FACTOR = 1.2;

/** Refuses timings client-go refuses, in its words. */
function validateTimings(o: { leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number }) {
  if (o.leaseDurationMs <= 0) throw new Error('leaseDuration must be greater than zero');
  if (o.renewDeadlineMs <= 0) throw new Error('renewDeadline must be greater than zero');
  if (o.retryPeriodMs <= 0) throw new Error('retryPeriod must be greater than zero');
  if (o.leaseDurationMs <= o.renewDeadlineMs)
    throw new Error('leaseDuration must be greater than renewDeadline');
  if (o.renewDeadlineMs <= JITTER_FACTOR * o.retryPeriodMs)
    throw new Error('renewDeadline must be greater than retryPeriod*JitterFactor');
}
