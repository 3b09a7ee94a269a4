import type { UserInfo } from '../../auth/attributes.ts';
import { ApiError } from '../../errors.ts';
import type { KubeObject } from '../../registry/types.ts';
import type { ChangeEvent } from '../../store/store.ts';
import { BuiltinController, type ControllerDeps } from '../deps.ts';
import { SyncQueue } from '../sync-queue.ts';

/** Whether a create failed because the namespace is gone or terminating (nothing to retry then). */
export function namespaceGoneOrTerminating(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  if (err.code === 404) return true;
  return (err.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating');
}

/**
 * Base of the controllers that keep one object in every active namespace (the `default`
 * ServiceAccount, the `kube-root-ca.crt` ConfigMap): a namespace is synced when it appears or
 * changes, and whenever its object of `resource` named `name` is written or goes away.
 */
export abstract class NamespaceObjectController extends BuiltinController {
  protected readonly queue = new SyncQueue((ns) => this.syncNamespace(ns));
  /** The store resource of the object kept (`/serviceaccounts`). */
  protected readonly resource: string;
  /** Its name. */
  protected readonly name: string;
  /** Who writes it. */
  protected readonly user: UserInfo;
  private readonly unsubscribe: () => void;

  constructor(deps: ControllerDeps, resource: string, name: string, user: UserInfo) {
    super(deps);
    this.resource = resource;
    this.name = name;
    this.user = user;
    this.unsubscribe = deps.store.subscribe('*', { onChange: (e) => this.observe(e) });
    for (const { obj } of deps.store.list('/namespaces')) this.queue.mark(obj.metadata?.name);
  }

  /** Resolves once every namespace seen so far was synced once. */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** Stops watching. */
  stop(): void {
    this.unsubscribe();
    this.queue.stop();
  }

  private observe(e: ChangeEvent): void {
    if (e.resource === '/namespaces') {
      if (e.type !== 'DELETED') this.queue.mark(e.obj.metadata?.name);
    } else if (e.resource === this.resource && e.obj.metadata?.name === this.name)
      this.queue.mark(e.namespace);
  }

  /** The namespace, when it is there and not terminating. */
  protected activeNamespace(ns: string): KubeObject | undefined {
    const namespace = this.store.get('/namespaces', '', ns)?.obj;
    if (!namespace || namespace.metadata?.deletionTimestamp || namespace.status?.phase === 'Terminating')
      return undefined;
    return namespace;
  }

  /** Brings the namespace's object to what it should be. */
  protected abstract syncNamespace(ns: string): Promise<void>;
}
