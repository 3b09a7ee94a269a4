import { ROOT_CA_CONFIG_MAP } from '../../admission/service-account.ts';
import type { UserInfo } from '../../auth/attributes.ts';
import type { KubeObject } from '../../registry/types.ts';
import { deepEqual } from '../../util/deep-equal.ts';
import type { ControllerDeps } from '../deps.ts';
import { NamespaceObjectController, namespaceGoneOrTerminating } from './namespace-objects.ts';

const PUBLISHER_USER: UserInfo = {
  username: 'system:serviceaccount:kube-system:root-ca-cert-publisher',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system'],
};

const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

/**
 * kube-controller-manager's root-ca-cert-publisher: every active namespace has the ConfigMap
 * `kube-root-ca.crt` whose `ca.crt` is the CA that signed the API server's serving certificate
 * (what pods' `kube-api-access` volumes carry); edited, it is put back; deleted, it is made again.
 */
export class RootCaPublisher extends NamespaceObjectController {
  private readonly caCert: string;

  constructor(deps: ControllerDeps, caCert: string) {
    super(deps, '/configmaps', ROOT_CA_CONFIG_MAP, PUBLISHER_USER);
    this.caCert = caCert;
  }

  protected async syncNamespace(ns: string): Promise<void> {
    if (!this.activeNamespace(ns)) return;
    const type = this.registry.byResource('', 'configmaps')!;
    const data = { 'ca.crt': this.caCert };
    const current = this.store.get(this.resource, ns, this.name)?.obj;
    try {
      if (!current) {
        await this.objects.create(
          type,
          ns,
          { metadata: { name: this.name, annotations: { [DESCRIPTION_ANNOTATION]: DESCRIPTION } }, data },
          { user: this.user },
        );
        return;
      }
      if (deepEqual(current.data, data) && current.metadata?.annotations?.[DESCRIPTION_ANNOTATION]) return;
      await this.objects.update(
        type,
        ns,
        this.name,
        {
          patch: (cm: KubeObject) => ({
            ...cm,
            data,
            metadata: {
              ...cm.metadata,
              annotations: { ...cm.metadata?.annotations, [DESCRIPTION_ANNOTATION]: DESCRIPTION },
            },
          }),
        },
        { user: this.user },
      );
    } catch (err) {
      if (namespaceGoneOrTerminating(err) || (err as { code?: number }).code === 409) {
        // gone, terminating, or changed meanwhile: a change brings it back here
        if ((err as { code?: number }).code === 409) this.queue.mark(ns);
        return;
      }
      throw err;
    }
  }
}
