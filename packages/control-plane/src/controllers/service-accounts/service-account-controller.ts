import { DEFAULT_SERVICE_ACCOUNT } from '../../admission/service-account.ts';
import type { UserInfo } from '../../auth/attributes.ts';
import type { ControllerDeps } from '../deps.ts';
import { NamespaceObjectController, namespaceGoneOrTerminating } from './namespace-objects.ts';

const SERVICE_ACCOUNT_USER: UserInfo = {
  username: 'system:serviceaccount:kube-system:service-account-controller',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system'],
};

/**
 * kube-controller-manager's ServiceAccount controller: every active namespace has a `default`
 * ServiceAccount, made when the namespace appears and made again when it is deleted.
 */
export class ServiceAccountController extends NamespaceObjectController {
  constructor(deps: ControllerDeps) {
    super(deps, '/serviceaccounts', DEFAULT_SERVICE_ACCOUNT, SERVICE_ACCOUNT_USER);
  }

  protected async syncNamespace(ns: string): Promise<void> {
    if (!this.activeNamespace(ns)) return;
    if (this.store.get(this.resource, ns, this.name)) return;
    const type = this.registry.byResource('', 'serviceaccounts')!;
    try {
      await this.objects.create(type, ns, { metadata: { name: this.name } }, { user: this.user });
    } catch (err) {
      if (namespaceGoneOrTerminating(err) || (err as { code?: number }).code === 409) return;
      throw err;
    }
  }
}
