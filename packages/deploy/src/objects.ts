import { parseFeatureGates } from '@kruise/api';
import { webhookConfigurations } from '@kruise/manager';
import { NAMES } from './names.ts';
import { DEFAULTS, type ValueSource } from './value-source.ts';

/**
 * kruise-system (installation.namespace), labelled `control-plane` (as upstream's is), which the
 * pod webhook's namespaceSelector skips: kruise-manager's own pods never wait for its webhook.
 */
export const installationNamespace = (v: ValueSource = DEFAULTS): object => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: v.scalar('installation.namespace'), labels: { 'control-plane': 'controller-manager' } },
});

/** kruise-daemon-config: where the manager copies pull secrets for the daemons. */
export const daemonConfigNamespace = (): object => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: NAMES.daemonConfigNamespace },
});

/** The two namespaces. */
export const namespaces = (v: ValueSource = DEFAULTS): object[] => [
  installationNamespace(v),
  daemonConfigNamespace(),
];

/** The webhook Service (443 → the manager pods' webhook port). */
export const webhookService = (v: ValueSource = DEFAULTS): object => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: NAMES.webhookService, namespace: v.scalar('installation.namespace') },
  spec: {
    selector: { ...NAMES.managerLabels },
    ports: [{ port: 443, targetPort: v.scalar('manager.webhook.port') }],
  },
});

/** The empty certificates Secret the manager fills. */
export const webhookSecret = (v: ValueSource = DEFAULTS): object => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: NAMES.webhookSecret, namespace: v.scalar('installation.namespace') },
  type: 'Opaque',
});

/** The webhook Service and the certificates Secret. */
export const webhookObjects = (v: ValueSource = DEFAULTS): object[] => [webhookService(v), webhookSecret(v)];

interface Webhook {
  name: string;
  failurePolicy: string;
  timeoutSeconds: number;
}

/**
 * The mutating and validating webhook configurations (caBundle patched in by the manager), the
 * manager's own list with every gate-dependent webhook present: the pod webhook `mpod.kb.io` is
 * kept unless featureGates turns PodWebhook off, with webhookConfiguration.failurePolicy.pods.
 */
export function webhookConfigurationObjects(v: ValueSource = DEFAULTS): object[] {
  const c = webhookConfigurations(parseFeatureGates(''), v.scalar<string>('installation.namespace'));
  for (const config of [c.mutating, c.validating]) {
    const webhooks = config.webhooks as Webhook[];
    config.webhooks = webhooks.flatMap((w) => {
      const hook = { ...w, timeoutSeconds: v.scalar<number>('webhookConfiguration.timeoutSeconds') };
      if (w.name !== 'mpod.kb.io') return [hook];
      hook.failurePolicy = v.scalar('webhookConfiguration.failurePolicy.pods');
      return v.when({ gateOff: 'PodWebhook' }, hook);
    }) as typeof config.webhooks;
  }
  return [c.mutating, c.validating];
}
