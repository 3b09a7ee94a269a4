import type { UserInfo } from '../auth/attributes.ts';
import { BuiltinController, type ControllerDeps } from './deps.ts';

const NAMESPACE_USER: UserInfo = {
  username: 'system:serviceaccount:kube-system:namespace-controller',
  groups: ['system:masters'],
};

/** Deletes the contents of a terminating namespace, then the namespace itself. */
export class NamespaceController extends BuiltinController {
  private readonly scheduled = new Set<string>();

  constructor(deps: ControllerDeps) {
    super(deps);
    const { store } = deps;
    store.subscribe('*', {
      onChange: (e) => {
        const ns =
          e.resource === '/namespaces' ? e.obj.metadata?.name : e.type === 'DELETED' ? e.namespace : '';
        if (!ns) return;
        const namespace = store.get('/namespaces', '', ns)?.obj;
        if (namespace?.metadata?.deletionTimestamp) this.schedule(ns);
      },
    });
    for (const { obj } of store.list('/namespaces'))
      if (obj.metadata?.deletionTimestamp) this.schedule(obj.metadata.name);
  }

  private schedule(ns: string): void {
    if (this.scheduled.has(ns)) return;
    this.scheduled.add(ns);
    setImmediate(() => {
      this.scheduled.delete(ns);
      this.sweep(ns).catch(() => undefined);
    });
  }

  private async sweep(ns: string): Promise<void> {
    let remaining = 0;
    for (const type of this.registry.all()) {
      if (!type.namespaced || type.virtual) continue;
      for (const { obj } of this.store.list(`${type.group}/${type.plural}`, ns)) {
        remaining++;
        if (obj.metadata?.deletionTimestamp) continue;
        try {
          await this.objects.delete(type, ns, obj.metadata?.name, {
            user: NAMESPACE_USER,
            propagationPolicy: 'Background',
          });
        } catch {
          // deleted meanwhile
        }
      }
    }
    if (remaining > 0) return;
    const namespace = this.store.get('/namespaces', '', ns)?.obj;
    if (!namespace?.metadata?.deletionTimestamp) return;
    const type = this.registry.byResource('', 'namespaces')!;
    await this.objects.update(
      type,
      '',
      ns,
      { patch: (cur) => ({ ...cur, spec: { ...cur.spec, finalizers: [] } }) },
      { user: NAMESPACE_USER, subresource: 'finalize' },
    );
  }
}
