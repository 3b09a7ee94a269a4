import type { KubeObject } from '../registry/types.ts';
import type { Persistence } from './persistence.ts';

/** A stored object and its serialised form (sent as is on reads). */
export interface Entry {
  readonly obj: KubeObject;
  readonly json: string;
  readonly rv: number;
}

/** One change, as watchers see it. */
export interface ChangeEvent {
  readonly rv: number;
  readonly resource: string;
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly namespace: string;
  readonly obj: KubeObject;
  readonly prev: KubeObject | undefined;
  /** `{"type":…,"object":…}\n`, built once for every watcher. */
  readonly line: string;
}

/** Receives every committed change of the resources it subscribed to. */
export interface ChangeListener {
  onChange(event: ChangeEvent): void;
}

/** What a commit function returns: the new object, `null` to delete, or `undefined` to leave it as is. */
export type Mutation = (current: Entry | undefined) => KubeObject | null | undefined;

const objectKey = (namespace: string, name: string) => (namespace ? `${namespace}/${name}` : name);

/**
 * The object store: one monotonically increasing resourceVersion, a bounded history of
 * changes for watches, and synchronous commits so that checks and writes are atomic.
 */
export class Store {
  private rv = 0;
  private readonly resources = new Map<string, Map<string, Entry>>();
  private history: ChangeEvent[] = [];
  private historyStart = 0;
  /** Changes at or below this version are no longer available to watches. */
  private compactedRV = 0;
  private readonly listeners = new Map<string, Set<ChangeListener>>();

  private readonly historyLimit: number;
  private readonly persistence: Persistence | undefined;

  constructor(historyLimit = 20_000, persistence?: Persistence) {
    this.historyLimit = historyLimit;
    this.persistence = persistence;
    if (persistence) {
      const { records, snapshotRV } = persistence.load();
      this.rv = snapshotRV;
      for (const record of records) {
        if (record.obj) this.table(record.resource).set(record.key, this.entry(record.obj, record.rv));
        else this.table(record.resource).delete(record.key);
        this.rv = Math.max(this.rv, record.rv);
      }
      this.compactedRV = this.rv;
    }
  }

  /** The latest resourceVersion. */
  get currentRV(): number {
    return this.rv;
  }

  /** The oldest resourceVersion a watch may start from. */
  get oldestWatchableRV(): number {
    return this.compactedRV;
  }

  private table(resource: string): Map<string, Entry> {
    let t = this.resources.get(resource);
    if (!t) {
      t = new Map();
      this.resources.set(resource, t);
    }
    return t;
  }

  private entry(obj: KubeObject, rv: number): Entry {
    return { obj, json: JSON.stringify(obj), rv };
  }

  /** The stored entry, if any. */
  get(resource: string, namespace: string, name: string): Entry | undefined {
    return this.resources.get(resource)?.get(objectKey(namespace, name));
  }

  /** Entries of a resource (optionally one namespace), sorted by namespace then name. */
  list(resource: string, namespace?: string): Entry[] {
    const t = this.resources.get(resource);
    if (!t) return [];
    const keys = [...t.keys()].sort();
    const out: Entry[] = [];
    for (const key of keys) {
      const e = t.get(key)!;
      if (namespace && e.obj.metadata?.namespace !== namespace) continue;
      out.push(e);
    }
    return out;
  }

  /**
   * Entries of a resource as they were at `rv` (sorted as `list`), rebuilt from the current state
   * and the history after it; `undefined` when some of that history was compacted away.
   */
  listAt(resource: string, namespace: string | undefined, rv: number): Entry[] | undefined {
    const later = this.changesSince(resource, rv);
    if (!later) return undefined;
    if (later.length === 0) return this.list(resource, namespace);
    const state = new Map(this.resources.get(resource) ?? []);
    for (const event of later.reverse()) {
      const key = objectKey(event.namespace, event.obj.metadata?.name);
      if (event.type === 'ADDED' || !event.prev) state.delete(key);
      else state.set(key, this.entry(event.prev, Number(event.prev.metadata?.resourceVersion)));
    }
    return [...state.keys()]
      .sort()
      .map((k) => state.get(k)!)
      .filter((e) => !namespace || e.obj.metadata?.namespace === namespace);
  }

  /** Number of stored objects of a resource. */
  count(resource: string): number {
    return this.resources.get(resource)?.size ?? 0;
  }

  /** Allocates the next resourceVersion (for objects that are answered but not stored, like dry runs). */
  peekNextRV(): number {
    return this.rv + 1;
  }

  /**
   * Reads the current entry, asks `mutate` for the new state and commits it, all synchronously.
   * The new object's `metadata.resourceVersion` is set here. Returns the committed entry, or
   * `undefined` when deleted or unchanged.
   */
  commit(resource: string, namespace: string, name: string, mutate: Mutation): Entry | undefined {
    const t = this.table(resource);
    const key = objectKey(namespace, name);
    const current = t.get(key);
    const next = mutate(current);
    if (next === undefined) return current;
    const rv = ++this.rv;
    if (next === null) {
      if (!current) return undefined;
      t.delete(key);
      const obj = { ...current.obj, metadata: { ...current.obj.metadata, resourceVersion: String(rv) } };
      this.persistence?.append({ resource, key, rv, obj: null });
      this.emit(resource, 'DELETED', namespace, obj, current.obj, rv, JSON.stringify(obj));
      return undefined;
    }
    next.metadata = { ...next.metadata, resourceVersion: String(rv) };
    const e = this.entry(next, rv);
    t.set(key, e);
    this.persistence?.append({ resource, key, rv, obj: next });
    this.emit(resource, current ? 'MODIFIED' : 'ADDED', namespace, next, current?.obj, rv, e.json);
    return e;
  }

  private emit(
    resource: string,
    type: ChangeEvent['type'],
    namespace: string,
    obj: KubeObject,
    prev: KubeObject | undefined,
    rv: number,
    json: string,
  ): void {
    const event: ChangeEvent = {
      rv,
      resource,
      type,
      namespace,
      obj,
      prev,
      line: `{"type":"${type}","object":${json}}\n`,
    };
    this.history.push(event);
    if (this.history.length - this.historyStart > this.historyLimit) {
      this.compactedRV = this.history[this.historyStart]!.rv;
      this.historyStart++;
      if (this.historyStart > this.historyLimit) {
        this.history = this.history.slice(this.historyStart);
        this.historyStart = 0;
      }
    }
    const listeners = this.listeners.get(resource);
    if (listeners) for (const l of listeners) l.onChange(event);
    const all = this.listeners.get('*');
    if (all) for (const l of all) l.onChange(event);
  }

  /** Changes of a resource after `rv`, or `undefined` when some of them were compacted away. */
  changesSince(resource: string, rv: number): ChangeEvent[] | undefined {
    if (rv < this.compactedRV) return undefined;
    const out: ChangeEvent[] = [];
    for (let i = this.historyStart; i < this.history.length; i++) {
      const e = this.history[i]!;
      if (e.rv > rv && e.resource === resource) out.push(e);
    }
    return out;
  }

  /** Subscribes to committed changes of one resource (`*` for all). */
  subscribe(resource: string, listener: ChangeListener): () => void {
    let set = this.listeners.get(resource);
    if (!set) {
      set = new Set();
      this.listeners.set(resource, set);
    }
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Forgets all history: watches from any earlier resourceVersion get 410 Gone. */
  compact(): void {
    this.history = [];
    this.historyStart = 0;
    this.compactedRV = this.rv;
  }

  /** Writes everything durable (with a data dir) and stops persisting. */
  close(): void {
    this.persistence?.close(() => this.snapshot(), this.rv);
  }

  /** Every stored record, for a snapshot. */
  private *snapshot() {
    for (const [resource, t] of this.resources) {
      for (const [key, e] of t) yield { resource, key, rv: e.rv, obj: e.obj };
    }
  }
}
