import { AGE_COLUMN, column } from '../columns.ts';
import type { ResourceType } from '../types.ts';
import { builtin } from './define.ts';

/** CustomResourceDefinitions and admission webhook configurations: how the API is extended. */
export const API_EXTENSION_RESOURCES: ResourceType[] = [
  builtin({
    group: 'apiextensions.k8s.io',
    version: 'v1',
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    statusSubresource: true,
    tracksGeneration: true,
    columns: [column('Created At', (o) => o.metadata?.creationTimestamp ?? '', 'date')],
  }),
  builtin({
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    kind: 'MutatingWebhookConfiguration',
    plural: 'mutatingwebhookconfigurations',
    namespaced: false,
    categories: ['api-extensions'],
    tracksGeneration: true,
    columns: [column('Webhooks', (o) => (o.webhooks ?? []).length, 'integer'), AGE_COLUMN],
  }),
  builtin({
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    kind: 'ValidatingWebhookConfiguration',
    plural: 'validatingwebhookconfigurations',
    namespaced: false,
    categories: ['api-extensions'],
    tracksGeneration: true,
    columns: [column('Webhooks', (o) => (o.webhooks ?? []).length, 'integer'), AGE_COLUMN],
  }),
];
