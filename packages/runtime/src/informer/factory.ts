import type { KubeClient, KubeObject } from '../kube/client.ts';
import { resourceId } from '../kube/resources.ts';
import type { Logger } from '../log/logger.ts';
import { Informer, type InformerOptions } from './informer.ts';

type Transform = (obj: KubeObject) => KubeObject;

/** One shared informer and the cache trims its users asked for. */
interface Shared {
  informer: Informer<any>;
  /** The trim every user asked for; `null` once two users disagree (whole objects are cached). */
  trim: Transform | null | undefined;
}

/**
 * One informer per resource and selector, shared by every controller that asks for it. Each user
 * declares its cache trim (`transform`); the objects are trimmed only while every user of the
 * informer asked for the same trim function, else they are cached whole (a trim is a projection,
 * so a user reading less than the whole object is served either way).
 */
export class InformerFactory {
  private readonly informers = new Map<string, Shared>();
  private readonly client: KubeClient;
  private readonly defaults: Partial<InformerOptions>;
  private started = false;

  constructor(client: KubeClient, defaults: Partial<InformerOptions> & { logger?: Logger } = {}) {
    this.client = client;
    this.defaults = defaults;
  }

  /** The shared informer for these options (created on first use). */
  informerFor<T extends KubeObject>(options: InformerOptions<T>): Informer<T> {
    const key = [
      resourceId(options.resource),
      options.namespace ?? '',
      options.labelSelector ?? '',
      options.fieldSelector ?? '',
    ].join('|');
    const wanted = (options.transform as Transform | undefined) ?? null;
    let shared = this.informers.get(key);
    if (!shared) {
      const entry: Shared = { informer: undefined as never, trim: wanted };
      entry.informer = new Informer<T>(this.client, {
        ...this.defaults,
        ...options,
        transform: (obj) => (entry.trim ? (entry.trim(obj) as T) : obj),
      });
      shared = entry;
      this.informers.set(key, shared);
      if (this.started) shared.informer.start();
    } else if (shared.trim !== wanted) {
      if (this.started && shared.trim)
        throw new Error(`informer for ${options.resource.plural} already caches trimmed objects`);
      shared.trim = null;
    }
    return shared.informer as Informer<T>;
  }

  /** Starts every informer (and those created later). */
  start(): void {
    this.started = true;
    for (const s of this.informers.values()) s.informer.start();
  }

  /**
   * Resolves once every informer has listed; rejects after `timeoutMs` (when given) naming each
   * informer that has not, with why its last list failed (e.g. `403 Forbidden: …` for a missing
   * `list` permission), as controller-runtime fails a manager whose caches do not sync.
   */
  async waitForCacheSync(timeoutMs?: number): Promise<void> {
    const all = Promise.all([...this.informers.values()].map((s) => s.informer.waitForSync()));
    if (timeoutMs === undefined) {
      await all;
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const result = await Promise.race([all, timedOut]);
    clearTimeout(timer);
    if (result !== 'timeout') return;
    const unsynced = [...this.informers.values()]
      .filter((s) => !s.informer.hasSynced())
      .map((s) => s.informer.describe());
    throw new Error(
      `failed to wait for caches to sync: ${unsynced
        .map(
          (u) =>
            `timed out waiting for cache to be synced for Kind ${u.kind}${u.lastFailure ? ` (${u.lastFailure})` : ''}`,
        )
        .join('; ')}`,
    );
  }

  /** Whether every informer has listed. */
  hasSynced(): boolean {
    return [...this.informers.values()].every((s) => s.informer.hasSynced());
  }

  /** Stops every informer. */
  async stop(): Promise<void> {
    this.started = false;
    await Promise.all([...this.informers.values()].map((s) => s.informer.stop()));
  }

  /** Number of distinct informers. */
  get size(): number {
    return this.informers.size;
  }
}
