import { nowRFC3339 } from '../api/context.ts';
import type { UserInfo } from '../auth/attributes.ts';
import { resourceTypesOfCrd } from '../registry/crd-types.ts';
import type { KubeObject } from '../registry/types.ts';
import { BuiltinController, type ControllerDeps } from './deps.ts';

const CRD_USER: UserInfo = { username: 'system:apiextensions-controller', groups: ['system:masters'] };
const CRD_RESOURCE = 'apiextensions.k8s.io/customresourcedefinitions';

/**
 * The versions objects of a CRD may be stored at: those recorded, plus the current storage version
 * (kube-apiserver appends it when the storage version changes and never drops one by itself).
 */
function storedVersionsOf(crd: KubeObject): string[] {
  const recorded: string[] = crd.status?.storedVersions ?? [];
  const storage = (crd.spec?.versions ?? []).find((v: any) => v.storage)?.name;
  return storage && !recorded.includes(storage) ? [...recorded, storage] : recorded;
}

/** Serves the resources of CRDs: registers them, marks the CRD Established, and cleans up on delete. */
export class CrdController extends BuiltinController {
  constructor(deps: ControllerDeps) {
    super(deps);
    const { store } = deps;
    store.subscribe(CRD_RESOURCE, {
      onChange: (e) => {
        this.unregister(e.prev);
        if (e.type === 'DELETED') {
          this.unregister(e.obj);
          void this.deleteInstances(e.obj);
        } else {
          this.register(e.obj);
          if (!this.established(e.obj)) void this.markEstablished(e.obj.metadata?.name);
          else if (storedVersionsOf(e.obj).join() !== (e.obj.status?.storedVersions ?? []).join())
            void this.recordStorageVersion(e.obj.metadata?.name);
        }
      },
    });
    for (const { obj } of store.list(CRD_RESOURCE)) this.register(obj);
  }

  private register(crd: KubeObject): void {
    for (const type of resourceTypesOfCrd(crd)) this.registry.add(type);
  }

  private unregister(crd: KubeObject | undefined): void {
    if (!crd) return;
    for (const v of crd.spec?.versions ?? [])
      this.registry.remove(crd.spec.group, v.name, crd.spec.names?.plural);
  }

  private established(crd: KubeObject): boolean {
    return (crd.status?.conditions ?? []).some((c: any) => c.type === 'Established' && c.status === 'True');
  }

  private async markEstablished(name: string): Promise<void> {
    const type = this.registry.byResource('apiextensions.k8s.io', 'customresourcedefinitions')!;
    const now = nowRFC3339();
    try {
      await this.objects.update(
        type,
        '',
        name,
        {
          patch: (crd) => ({
            ...crd,
            status: {
              conditions: [
                {
                  type: 'NamesAccepted',
                  status: 'True',
                  lastTransitionTime: now,
                  reason: 'NoConflicts',
                  message: 'no conflicts found',
                },
                {
                  type: 'Established',
                  status: 'True',
                  lastTransitionTime: now,
                  reason: 'InitialNamesAccepted',
                  message: 'the initial names have been accepted',
                },
              ],
              acceptedNames: crd.spec?.names ?? {},
              storedVersions: storedVersionsOf(crd),
            },
          }),
        },
        { user: CRD_USER, subresource: 'status' },
      );
    } catch {
      // deleted meanwhile
    }
  }

  /** Adds a new storage version to `status.storedVersions`, as kube-apiserver does when it changes. */
  private async recordStorageVersion(name: string): Promise<void> {
    const type = this.registry.byResource('apiextensions.k8s.io', 'customresourcedefinitions')!;
    try {
      await this.objects.update(
        type,
        '',
        name,
        { patch: (crd) => ({ ...crd, status: { ...crd.status, storedVersions: storedVersionsOf(crd) } }) },
        { user: CRD_USER, subresource: 'status' },
      );
    } catch {
      // deleted meanwhile
    }
  }

  private async deleteInstances(crd: KubeObject): Promise<void> {
    const resource = `${crd.spec?.group}/${crd.spec?.names?.plural}`;
    for (const e of this.store.list(resource)) {
      this.store.commit(resource, e.obj.metadata?.namespace ?? '', e.obj.metadata?.name, () => null);
    }
  }
}
