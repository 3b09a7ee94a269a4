import { parseFeatureGates, webhookConfigurations } from '@kruise/manager';
import { DEPLOY_FEATURE_GATES, NAMES } from './names.ts';

/**
 * The two namespaces. kruise-system is labelled `control-plane` (as upstream's is), which the pod
 * webhook's namespaceSelector skips: kruise-manager's own pods never wait for its webhook.
 */
export const namespaces = (): object[] => [
  {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: NAMES.namespace, labels: { 'control-plane': 'controller-manager' } },
  },
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMES.daemonConfigNamespace } },
];

/** The webhook Service (443 → 9876 on the manager pods) and the empty certificates Secret the manager fills. */
export const webhookObjects = (): object[] => [
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: NAMES.webhookService, namespace: NAMES.namespace },
    spec: { selector: { ...NAMES.managerLabels }, ports: [{ port: 443, targetPort: 9876 }] },
  },
  {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: NAMES.webhookSecret, namespace: NAMES.namespace },
    type: 'Opaque',
  },
];

/** The mutating and validating webhook configurations (caBundle patched in by the manager). */
export function webhookConfigurationObjects(): object[] {
  const c = webhookConfigurations(parseFeatureGates(DEPLOY_FEATURE_GATES), NAMES.namespace);
  return [c.mutating, c.validating];
}
