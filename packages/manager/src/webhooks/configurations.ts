import { type FeatureGates, GROUP, VERSION } from '@kruise/api';

import { webhookRoutes } from './paths.ts';

/** Names of kruise-manager's webhook objects, as upstream names them. */
export const WEBHOOK_NAMES = {
  service: 'kruise-webhook-service',
  namespace: 'kruise-system',
  secret: 'kruise-webhook-certs',
  mutating: 'kruise-mutating-webhook-configuration',
  validating: 'kruise-validating-webhook-configuration',
};

/** The two webhook configurations (without caBundle: kruise-manager patches it in at start). */
export function webhookConfigurations(gates: FeatureGates, namespace = WEBHOOK_NAMES.namespace) {
  const routes = webhookRoutes(gates);
  const webhook = (r: (typeof routes)[number]) => ({
    name: r.name ?? `${r.mutating ? 'm' : 'v'}${r.kind.toLowerCase()}.kb.io`,
    admissionReviewVersions: ['v1', 'v1beta1'],
    sideEffects: 'None',
    failurePolicy: 'Fail',
    timeoutSeconds: 30,
    clientConfig: { service: { name: WEBHOOK_NAMES.service, namespace, path: r.path, port: 443 } },
    ...(r.skipNamespacesLabelled
      ? {
          namespaceSelector: {
            matchExpressions: [{ key: r.skipNamespacesLabelled, operator: 'DoesNotExist' }],
          },
        }
      : {}),
    ...(r.objectSelectorLabelExists
      ? { objectSelector: { matchExpressions: [{ key: r.objectSelectorLabelExists, operator: 'Exists' }] } }
      : {}),
    rules: [
      {
        apiGroups: [r.group ?? GROUP],
        apiVersions: r.versions ?? [VERSION],
        operations: r.operations ?? ['CREATE', 'UPDATE'],
        resources: [r.plural],
        scope: '*',
      },
    ],
  });
  return {
    mutating: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: WEBHOOK_NAMES.mutating },
      webhooks: routes.filter((r) => r.mutating).map(webhook),
    },
    validating: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: WEBHOOK_NAMES.validating },
      webhooks: routes.filter((r) => !r.mutating).map(webhook),
    },
  };
}
