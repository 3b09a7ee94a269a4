import type { FeatureGates } from '@kruise/api';
import type { WebhookRoute } from '../paths.ts';
import {
  type DeletionProtectionLookups,
  NO_DELETION_LOOKUPS,
  validateAlwaysOnlyDeletion,
  validateBuiltinWorkloadDeletion,
  validateCrdDeletion,
  validateNamespaceDeletion,
} from './validating.ts';

const ON_DELETE = {
  mutating: false,
  operations: ['DELETE'],
  objectSelectorLabelExists: 'policy.kruise.io/delete-protection',
};

/**
 * Deletion protection's webhooks for kinds Kruise does not own, with upstream's names, paths and
 * objectSelector (label `policy.kruise.io/delete-protection` exists); served whatever the gates,
 * as upstream (the handlers check ResourcesDeletionProtection).
 */
export function deletionProtectionRoutes(
  gates: FeatureGates,
  lookups: DeletionProtectionLookups = NO_DELETION_LOOKUPS,
): WebhookRoute[] {
  const workloads = validateBuiltinWorkloadDeletion(gates);
  const alwaysOnly = validateAlwaysOnlyDeletion(gates);
  const builtin = (kind: string, plural: string): WebhookRoute => ({
    ...ON_DELETE,
    kind,
    plural,
    name: `vbuiltin${kind.toLowerCase()}.kb.io`,
    path: `/validate-apps-${kind.toLowerCase()}`,
    group: 'apps',
    versions: ['v1'],
    handler: workloads,
  });
  return [
    builtin('Deployment', 'deployments'),
    builtin('ReplicaSet', 'replicasets'),
    builtin('StatefulSet', 'statefulsets'),
    {
      ...ON_DELETE,
      kind: 'CustomResourceDefinition',
      plural: 'customresourcedefinitions',
      path: '/validate-customresourcedefinition',
      group: 'apiextensions.k8s.io',
      versions: ['v1', 'v1beta1'],
      handler: validateCrdDeletion(gates, lookups.customResources),
    },
    {
      ...ON_DELETE,
      kind: 'Namespace',
      plural: 'namespaces',
      path: '/validate-namespace',
      group: '',
      versions: ['v1'],
      handler: validateNamespaceDeletion(gates, lookups),
    },
    {
      ...ON_DELETE,
      kind: 'Service',
      plural: 'services',
      path: '/validate-service',
      group: '',
      versions: ['v1'],
      handler: alwaysOnly,
    },
    {
      ...ON_DELETE,
      kind: 'Ingress',
      plural: 'ingresses',
      path: '/validate-ingress',
      group: 'networking.k8s.io',
      versions: ['v1', 'v1beta1'],
      handler: alwaysOnly,
    },
  ];
}
