import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import type { KubeObject } from '../kube/client.ts';

/** Computes the index values of an object. */
export type IndexFunc<T> = (obj: T) => string[];

/** The key of an object in caches and queues: `namespace/name`, or `name` when cluster-scoped. */
export function objectKey(obj: { metadata?: { namespace?: string; name?: string } }): string {
  const ns = obj.metadata?.namespace;
  return ns ? `${ns}/${obj.metadata?.name}` : (obj.metadata?.name ?? '');
}

/** Splits a key into namespace and name. */
export function splitKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return slash === -1
    ? { namespace: '', name: key }
    : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** Ready-made index functions. */
export const Indexers = {
  /** By namespace. */
  namespace: (obj: KubeObject) => [obj.metadata?.namespace ?? ''],
  /** By the UID of each owner. */
  ownerUid: (obj: KubeObject) =>
    ((obj.metadata?.ownerReferences ?? []) as OwnerReference[]).map((r) => String(r.uid)),
  /** By `spec.nodeName` (pods). */
  nodeName: (obj: KubeObject) => (obj.spec?.nodeName ? [String(obj.spec.nodeName)] : []),
  /** By the value of a label. */
  label: (key: string) => (obj: KubeObject) =>
    obj.metadata?.labels?.[key] !== undefined ? [String(obj.metadata.labels[key])] : [],
};

/** A keyed object cache with secondary indexes, kept in step on every change. */
export class IndexedCache<T extends KubeObject> {
  private readonly items = new Map<string, T>();
  private readonly indexers = new Map<string, IndexFunc<T>>();
  private readonly indices = new Map<string, Map<string, Set<string>>>();

  /** Adds an index; existing objects are indexed at once. */
  addIndex(name: string, fn: IndexFunc<T>): void {
    if (this.indexers.has(name)) return;
    this.indexers.set(name, fn);
    const index = new Map<string, Set<string>>();
    this.indices.set(name, index);
    for (const [key, obj] of this.items) for (const v of fn(obj)) this.link(index, v, key);
  }

  private link(index: Map<string, Set<string>>, value: string, key: string): void {
    let set = index.get(value);
    if (!set) {
      set = new Set();
      index.set(value, set);
    }
    set.add(key);
  }

  private unlink(obj: T, key: string): void {
    for (const [name, fn] of this.indexers) {
      const index = this.indices.get(name)!;
      for (const v of fn(obj)) {
        const set = index.get(v);
        set?.delete(key);
        if (set?.size === 0) index.delete(v);
      }
    }
  }

  /** Inserts or replaces; returns the previous object. */
  set(key: string, obj: T): T | undefined {
    const old = this.items.get(key);
    if (old) this.unlink(old, key);
    this.items.set(key, obj);
    for (const [name, fn] of this.indexers)
      for (const v of fn(obj)) this.link(this.indices.get(name)!, v, key);
    return old;
  }

  /** Removes; returns the removed object. */
  delete(key: string): T | undefined {
    const old = this.items.get(key);
    if (!old) return undefined;
    this.unlink(old, key);
    this.items.delete(key);
    return old;
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  keys(): IterableIterator<string> {
    return this.items.keys();
  }

  values(): T[] {
    return [...this.items.values()];
  }

  get size(): number {
    return this.items.size;
  }

  /** Objects whose index `name` has `value`. */
  byIndex(name: string, value: string): T[] {
    const index = this.indices.get(name);
    if (!index) throw new Error(`no index named ${name}`);
    return [...(index.get(value) ?? [])].map((k) => this.items.get(k)!).filter(Boolean);
  }
}
