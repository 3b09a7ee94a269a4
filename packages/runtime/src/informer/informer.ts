import type { KubeClient, KubeObject } from '../kube/client.ts';
import { GoneError, KubeApiError } from '../kube/errors.ts';
import { collectionPath, type ResourceRef } from '../kube/resources.ts';
import { type Logger, silentLogger } from '../log/logger.ts';
import { IndexedCache, type IndexFunc, objectKey } from './indexer.ts';
import { streamWatch, type WatchEvent } from './watch-stream.ts';

/** Callbacks of an informer; they run synchronously and should only enqueue work. */
export interface EventHandler<T> {
  add?(obj: T): void;
  update?(oldObj: T, newObj: T): void;
  delete?(obj: T): void;
}

/** What to watch and how. */
export interface InformerOptions<T extends KubeObject = KubeObject> {
  resource: ResourceRef;
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Full relist to heal anything missed (default 10 min; 0 disables). */
  relistPeriodMs?: number;
  /** Re-deliver every cached object as an update (client-go's resync; default off). */
  resyncPeriodMs?: number;
  /** Restart a watch that saw no event and no bookmark for this long (default 2 min). */
  staleAfterMs?: number;
  /** Backoff between failed attempts: from `minBackoffMs` doubling up to `maxBackoffMs`. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  logger?: Logger;
  /** Trims each object before it is cached (keep only what the controllers read; saves memory). */
  transform?: (obj: T) => T;
}

/**
 * List + watch of one resource into an indexed cache: tracks resourceVersions and bookmarks,
 * relists on 410 Gone, reconnects with capped backoff on any other error (it never stops on its
 * own), relists periodically and restarts a watch that has gone quiet.
 */
export class Informer<T extends KubeObject = KubeObject> {
  readonly cache = new IndexedCache<T>();
  private readonly handlers: EventHandler<T>[] = [];
  private readonly client: KubeClient;
  private readonly options: Required<
    Omit<InformerOptions, 'namespace' | 'labelSelector' | 'fieldSelector' | 'logger' | 'transform'>
  > &
    Pick<InformerOptions, 'namespace' | 'labelSelector' | 'fieldSelector'>;
  private readonly log: Logger;
  private readonly transform: ((obj: T) => T) | undefined;
  private resourceVersion = '';
  private synced = false;
  private running = false;
  private abort: AbortController | undefined;
  /** Aborted by `stop()`: ends any watch or backoff in progress, whenever it started. */
  private stopped = new AbortController();
  private lastActivity = Date.now();
  private timers: NodeJS.Timeout[] = [];
  private loop: Promise<void> | undefined;
  private relistRequested = false;
  private syncWaiters: (() => void)[] = [];
  /** Why the last list or watch failed (until one succeeds): what a sync timeout reports. */
  private lastFailure: string | undefined;
  /** Counters for tests and metrics. */
  readonly stats = { lists: 0, watches: 0, relistsOnGone: 0, restarts: 0, staleRestarts: 0 };

  constructor(client: KubeClient, options: InformerOptions<T>) {
    this.client = client;
    this.options = {
      relistPeriodMs: 10 * 60_000,
      resyncPeriodMs: 0,
      staleAfterMs: 2 * 60_000,
      minBackoffMs: 200,
      maxBackoffMs: 30_000,
      ...options,
    };
    this.log = (options.logger ?? silentLogger).child({ resource: options.resource.plural });
    this.transform = options.transform;
  }

  /** Adds an index over the cache. */
  addIndex(name: string, fn: IndexFunc<T>): this {
    this.cache.addIndex(name, fn);
    return this;
  }

  /** Registers handlers; objects already cached are delivered as adds. */
  addEventHandler(handler: EventHandler<T>): void {
    this.handlers.push(handler);
    if (this.synced) for (const obj of this.cache.values()) handler.add?.(obj);
  }

  /** Whether the first list has completed. */
  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves once the first list has completed. */
  waitForSync(): Promise<void> {
    return this.synced ? Promise.resolve() : new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  /**
   * What the informer lists, as controller-runtime names a kind in its sync errors
   * (`*v1.Pod`), and why its last list failed, if it did.
   */
  describe(): { kind: string; lastFailure: string | undefined } {
    const r = this.options.resource;
    return { kind: `*${r.version}.${r.kind}`, lastFailure: this.lastFailure };
  }

  /** Cached objects. */
  list(): T[] {
    return this.cache.values();
  }

  /** A cached object by key (`ns/name` or `name`). */
  get(key: string): T | undefined {
    return this.cache.get(key);
  }

  /** Cached objects by index value. */
  byIndex(name: string, value: string): T[] {
    return this.cache.byIndex(name, value);
  }

  /** Starts listing and watching in the background. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopped = new AbortController();
    this.lastActivity = Date.now();
    const { relistPeriodMs, resyncPeriodMs, staleAfterMs } = this.options;
    if (relistPeriodMs > 0) this.timers.push(setInterval(() => this.requestRelist(), relistPeriodMs));
    if (resyncPeriodMs > 0) this.timers.push(setInterval(() => this.resync(), resyncPeriodMs));
    this.timers.push(
      setInterval(
        () => {
          if (this.synced && Date.now() - this.lastActivity > staleAfterMs) {
            this.stats.staleRestarts++;
            this.log.warn({ idlems: Date.now() - this.lastActivity }, 'watch went quiet, restarting it');
            this.abort?.abort();
          }
        },
        Math.max(1000, Math.floor(staleAfterMs / 4)),
      ),
    );
    for (const t of this.timers) t.unref();
    this.loop = this.run();
  }

  /** Stops the informer and waits for its loop to end. */
  async stop(): Promise<void> {
    this.running = false;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    this.stopped.abort();
    await this.loop;
  }

  /** Asks for a full relist at the next opportunity (ends the current watch). */
  requestRelist(): void {
    this.relistRequested = true;
    this.abort?.abort();
  }

  private resync(): void {
    for (const obj of this.cache.values()) for (const h of this.handlers) h.update?.(obj, obj);
  }

  private query() {
    return { labelSelector: this.options.labelSelector, fieldSelector: this.options.fieldSelector };
  }

  private async run(): Promise<void> {
    let backoff = this.options.minBackoffMs;
    let needList = true;
    while (this.running) {
      try {
        if (needList || this.relistRequested) {
          this.relistRequested = false;
          await this.relist();
          needList = false;
        }
        this.abort = new AbortController();
        this.stats.watches++;
        await streamWatch(
          this.client,
          collectionPath(this.options.resource, this.options.namespace),
          {
            ...this.query(),
            resourceVersion: this.resourceVersion,
            allowWatchBookmarks: true,
            timeoutSeconds: 300 + Math.floor(Math.random() * 300),
          },
          (e) => this.onEvent(e),
          AbortSignal.any([this.abort.signal, this.stopped.signal]),
        );
        backoff = this.options.minBackoffMs;
      } catch (err) {
        if (!this.running) break;
        if (err instanceof GoneError || (err as { gone?: boolean }).gone) {
          this.stats.relistsOnGone++;
          this.log.info({}, 'resource version expired, relisting');
          needList = true;
          continue;
        }
        if ((err as Error).name === 'AbortError' || this.abort?.signal.aborted) continue;
        this.stats.restarts++;
        this.lastFailure = failureText(this.options.resource, err);
        this.log.warn({ err: (err as Error).message, backoffms: backoff }, 'list or watch failed, retrying');
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, backoff * (0.8 + Math.random() * 0.4));
          this.stopped.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve();
          });
        });
        backoff = Math.min(backoff * 2, this.options.maxBackoffMs);
      }
    }
  }

  private async relist(): Promise<void> {
    this.stats.lists++;
    // Page by page, so only one page of full objects is alive at a time (with a transform,
    // the cache keeps the trimmed form and each page becomes garbage at once).
    const seen = new Set<string>();
    let cont: string | undefined;
    let resourceVersion = '';
    do {
      const page = await this.client.list<T>(this.options.resource, {
        namespace: this.options.namespace,
        ...this.query(),
        limit: 500,
        continue: cont,
      });
      if (!resourceVersion) resourceVersion = page.metadata.resourceVersion ?? '';
      for (const obj of page.items) {
        const key = objectKey(obj);
        seen.add(key);
        this.upsert(key, obj);
      }
      cont = page.metadata.continue || undefined;
    } while (cont);
    this.lastActivity = Date.now();
    for (const key of [...this.cache.keys()]) {
      if (seen.has(key)) continue;
      const old = this.cache.delete(key)!;
      for (const h of this.handlers) h.delete?.(old);
    }
    this.resourceVersion = resourceVersion;
    this.lastFailure = undefined;
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w();
    }
  }

  private upsert(key: string, raw: T): void {
    const obj = this.transform ? this.transform(raw) : raw;
    const old = this.cache.set(key, obj);
    if (!old) for (const h of this.handlers) h.add?.(obj);
    else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion)
      for (const h of this.handlers) h.update?.(old, obj);
  }

  private onEvent(e: WatchEvent): void {
    this.lastActivity = Date.now();
    if (e.type === 'ERROR') {
      const err = new Error(e.object?.message ?? 'watch error') as Error & { gone?: boolean };
      err.gone = e.object?.code === 410;
      throw err;
    }
    const rv = e.object?.metadata?.resourceVersion;
    if (e.type === 'BOOKMARK') {
      if (rv) this.resourceVersion = rv;
      return;
    }
    const key = objectKey(e.object);
    if (e.type === 'DELETED') {
      const old = this.cache.delete(key);
      for (const h of this.handlers) h.delete?.(old ?? e.object);
    } else this.upsert(key, e.object as T);
    if (rv) this.resourceVersion = rv;
  }
}

/** A failed list or watch as client-go's reflector logs it: `failed to list *v1.Pod: 403 Forbidden: …`. */
function failureText(resource: ResourceRef, err: unknown): string {
  const kind = `*${resource.version}.${resource.kind}`;
  if (err instanceof KubeApiError)
    return `failed to list ${kind}: ${err.code}${err.reason ? ` ${err.reason}` : ''}: ${err.message}`;
  return `failed to list ${kind}: ${(err as Error)?.message ?? String(err)}`;
}
