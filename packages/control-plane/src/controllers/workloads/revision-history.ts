import type { ObjectService } from '../../api/objects.ts';
import type { UserInfo } from '../../auth/attributes.ts';
import type { KubeObject, ResourceType } from '../../registry/types.ts';
import type { Store } from '../../store/store.ts';
import { controllerOf } from './pod-state.ts';

const REVISIONS = 'apps/controllerrevisions';

/** A ControllerRevision as the built-in controllers handle it. */
export type Revision = KubeObject & { revision: number };

/**
 * The ControllerRevisions of one workload, read from the store and written through the API as a
 * controller's history client does (controller.kubernetes.io/history's realHistory).
 */
export class RevisionHistory {
  private readonly type: ResourceType;
  private readonly store: Store;
  private readonly objects: ObjectService;
  private readonly user: UserInfo;

  constructor(store: Store, objects: ObjectService, user: UserInfo) {
    this.store = store;
    this.objects = objects;
    this.user = user;
    this.type = objects.registry.byResource('apps', 'controllerrevisions')!;
  }

  /** The revisions the owner controls. */
  owned(owner: KubeObject): Revision[] {
    const uid = owner.metadata?.uid;
    return this.store
      .list(REVISIONS, owner.metadata?.namespace)
      .map((e) => e.obj as Revision)
      .filter((r) => controllerOf(r)?.uid === uid);
  }

  /** Creates a revision; undefined when its name is taken. */
  async create(revision: KubeObject): Promise<Revision | undefined> {
    const ns = revision.metadata?.namespace;
    if (this.store.get(REVISIONS, ns, revision.metadata?.name)) return undefined;
    try {
      return (await this.objects.create(this.type, ns, structuredClone(revision), {
        user: this.user,
      })) as Revision;
    } catch (err) {
      if ((err as { code?: number }).code === 409) return undefined;
      throw err;
    }
  }

  /** The stored revision of that name. */
  get(namespace: string, name: string): Revision | undefined {
    return this.store.get(REVISIONS, namespace, name)?.obj as Revision | undefined;
  }

  /** Gives a revision a new number (a rollback brings an old template forward). */
  async renumber(revision: Revision, number: number): Promise<Revision> {
    return (await this.objects.update(
      this.type,
      revision.metadata?.namespace,
      revision.metadata?.name,
      { patch: (cur) => ({ ...cur, revision: number }) },
      { user: this.user },
    )) as Revision;
  }

  /** Deletes a revision (gone already is fine). */
  async delete(revision: KubeObject): Promise<void> {
    await this.objects
      .delete(this.type, revision.metadata?.namespace, revision.metadata?.name, { user: this.user })
      .catch(() => undefined);
  }
}
