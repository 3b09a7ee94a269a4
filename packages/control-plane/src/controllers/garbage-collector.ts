import type { UserInfo } from '../auth/attributes.ts';
import type { KubeObject, ResourceType } from '../registry/types.ts';
import type { ChangeEvent } from '../store/store.ts';
import { BuiltinController, type ControllerDeps } from './deps.ts';

const GC_USER: UserInfo = {
  username: 'system:serviceaccount:kube-system:generic-garbage-collector',
  groups: ['system:masters'],
};

interface Dependent {
  resource: string;
  namespace: string;
  name: string;
}

/**
 * Background and foreground cascading deletion through ownerReferences, and orphaning:
 * keeps an index from owner UID to dependents and acts when an owner goes away.
 */
export class GarbageCollector extends BuiltinController {
  private readonly dependents = new Map<string, Map<string, Dependent>>();
  private readonly liveUids = new Map<string, Dependent>();
  private pending = Promise.resolve();

  constructor(deps: ControllerDeps) {
    super(deps);
    const { store, registry } = deps;
    store.subscribe('*', { onChange: (e) => this.observe(e) });
    for (const type of registry.all()) {
      const resource = `${type.group}/${type.plural}`;
      for (const { obj } of store.list(resource)) {
        if (obj.metadata?.uid)
          this.liveUids.set(obj.metadata.uid, {
            resource,
            namespace: obj.metadata.namespace ?? '',
            name: obj.metadata.name,
          });
        this.index(obj, resource, true);
      }
    }
  }

  private static id(d: Dependent): string {
    return `${d.resource}|${d.namespace}|${d.name}`;
  }

  private index(obj: KubeObject | undefined, resource: string, add: boolean): void {
    if (!obj) return;
    const d = { resource, namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name };
    for (const ref of obj.metadata?.ownerReferences ?? []) {
      let set = this.dependents.get(ref.uid);
      if (add) {
        if (!set) {
          set = new Map();
          this.dependents.set(ref.uid, set);
        }
        set.set(GarbageCollector.id(d), d);
      } else set?.delete(GarbageCollector.id(d));
    }
  }

  private observe(e: ChangeEvent): void {
    this.index(e.prev, e.resource, false);
    const uid = e.obj.metadata?.uid;
    if (e.type === 'DELETED') {
      if (uid) this.liveUids.delete(uid);
      this.enqueue(() => this.ownerGone(e.obj));
      for (const ref of e.obj.metadata?.ownerReferences ?? []) {
        const at = this.liveUids.get(ref.uid);
        const owner = at && this.store.get(at.resource, at.namespace, at.name)?.obj;
        if (owner?.metadata?.deletionTimestamp) this.enqueue(() => this.finishDeletion(at!.resource, owner));
      }
      return;
    }
    if (uid)
      this.liveUids.set(uid, { resource: e.resource, namespace: e.namespace, name: e.obj.metadata?.name });
    this.index(e.obj, e.resource, true);
    const fin: string[] = e.obj.metadata?.finalizers ?? [];
    if (e.obj.metadata?.deletionTimestamp && (fin.includes('foregroundDeletion') || fin.includes('orphan'))) {
      this.enqueue(() => this.finishDeletion(e.resource, e.obj));
    }
    if ((e.obj.metadata?.ownerReferences ?? []).some((r: any) => !this.liveUids.has(r.uid))) {
      this.enqueue(() => this.checkDependent(e.resource, e.obj));
    }
  }

  private enqueue(work: () => Promise<void>): void {
    this.pending = this.pending.then(work).catch(() => undefined);
  }

  /** Resolves once queued collection work is done (for tests). */
  settled(): Promise<void> {
    return this.pending;
  }

  private typeOf(resource: string): ResourceType | undefined {
    const slash = resource.indexOf('/');
    return this.registry.byResource(resource.slice(0, slash), resource.slice(slash + 1));
  }

  private async ownerGone(owner: KubeObject): Promise<void> {
    const uid = owner.metadata?.uid;
    const deps = uid ? [...(this.dependents.get(uid)?.values() ?? [])] : [];
    for (const d of deps) {
      const e = this.store.get(d.resource, d.namespace, d.name);
      if (e) await this.checkDependent(d.resource, e.obj);
    }
  }

  /** Deletes a dependent whose owners are all gone; drops dangling references when some remain. */
  private async checkDependent(resource: string, obj: KubeObject): Promise<void> {
    const type = this.typeOf(resource);
    if (!type) return;
    const refs: any[] = obj.metadata?.ownerReferences ?? [];
    const live = refs.filter((r) => this.liveUids.has(r.uid));
    if (live.length === refs.length) return;
    const ns = obj.metadata?.namespace ?? '';
    const name = obj.metadata?.name;
    try {
      if (live.length === 0) {
        if (!obj.metadata?.deletionTimestamp)
          await this.objects.delete(type, ns, name, { user: GC_USER, propagationPolicy: 'Background' });
      } else {
        await this.objects.update(
          type,
          ns,
          name,
          {
            patch: (cur) => ({
              ...cur,
              metadata: {
                ...cur.metadata,
                ownerReferences: (cur.metadata?.ownerReferences ?? []).filter((r: any) =>
                  this.liveUids.has(r.uid),
                ),
              },
            }),
          },
          { user: GC_USER },
        );
      }
    } catch {
      // gone meanwhile, or changed: the next event brings it back here
    }
  }

  /** Foreground: delete dependents, then drop the finalizer. Orphan: strip references, then drop it. */
  private async finishDeletion(resource: string, owner: KubeObject): Promise<void> {
    const type = this.typeOf(resource);
    if (!type) return;
    const uid = owner.metadata?.uid;
    const fin: string[] = owner.metadata?.finalizers ?? [];
    const orphan = fin.includes('orphan');
    const deps = [...(this.dependents.get(uid)?.values() ?? [])];
    let remaining = 0;
    for (const d of deps) {
      const e = this.store.get(d.resource, d.namespace, d.name);
      const dt = this.typeOf(d.resource);
      if (!e || !dt) continue;
      try {
        if (orphan) {
          await this.objects.update(
            dt,
            d.namespace,
            d.name,
            {
              patch: (cur) => ({
                ...cur,
                metadata: {
                  ...cur.metadata,
                  ownerReferences: (cur.metadata?.ownerReferences ?? []).filter((r: any) => r.uid !== uid),
                },
              }),
            },
            { user: GC_USER },
          );
        } else {
          remaining++;
          if (!e.obj.metadata?.deletionTimestamp)
            await this.objects.delete(dt, d.namespace, d.name, {
              user: GC_USER,
              propagationPolicy: 'Foreground',
            });
        }
      } catch {
        // retried on the next change
      }
    }
    if (remaining > 0) return;
    const drop = orphan ? 'orphan' : 'foregroundDeletion';
    try {
      await this.objects.update(
        type,
        owner.metadata?.namespace ?? '',
        owner.metadata?.name,
        {
          patch: (cur) => ({
            ...cur,
            metadata: {
              ...cur.metadata,
              finalizers: (cur.metadata?.finalizers ?? []).filter((f: string) => f !== drop),
            },
          }),
        },
        { user: GC_USER },
      );
    } catch {
      // already gone
    }
  }
}
